#!/bin/sh
# Coalescing with mixed callers: an admin's full --cache that leads again does not scan
# everything or activate everything a second time, and one queued -aay does not make the
# leader activate VGs whose own events did not ask for it (lvm2 would not).
. "$(dirname "$0")/../lib/test-lib.sh"
t_require xz python3 flock

t_require_inject
PF=$PFI
python3 "$top_srcdir/tests/bench/clone-pvs.py" "$FIXTURES/single" 3 "$T_DIR/img" mx >/dev/null
t_attach "$T_DIR/img/mx00000-d1.img"; A=$T_DEV
t_attach "$T_DIR/img/mx00001-d1.img"; B=$T_DEV
t_attach "$T_DIR/img/mx00002-d1.img"; C=$T_DEV
t_lvm_conf "$T_DIR/etc" "$A $B $C"
cat >"$T_DIR/fake-lvm" <<EOS
#!/bin/sh
for a; do vg=\$a; done
echo "\$vg" >>"$T_DIR/act.log"
EOS
chmod 0755 "$T_DIR/fake-lvm"
export LVM_SYSTEM_DIR="$T_DIR/etc" LVM_SUPPRESS_FD_WARNINGS=1 PVSCAN_FAST_LVM="$T_DIR/fake-lvm"
RUN="$T_DIR/run/lvm"
export PVSCAN_FAST_RUN_DIR="$RUN" PVSCAN_FAST_LOCK_DIR="$T_DIR/run/lock"
LOCK="$T_DIR/run/lock/pvscan-fast.leader"

reset() {
	rm -rf "$T_DIR/run"
	mkdir -p "$T_DIR/run"
	: >"$T_DIR/act.log"
}

# 1. A full --cache -aay leads; while it holds the lock (drained), -aay C is queued; it then
#    leads again for C only: one read of C, each VG activated once.
reset
PVSCAN_FAST_DEBUG=1 PVSCAN_FAST_INJECT='drained:delay=700' "$PF" --cache -aay \
	>"$T_DIR/full.out" 2>"$T_DIR/full.err" &
full=$!
sleep 0.35
"$PF" --cache -aay "$C" >"$T_DIR/f.out" 2>&1 || t_fail "follower exit status"
wait "$full" || { t_fail "full scan exit status"; cat "$T_DIR/full.out" "$T_DIR/full.err"; }
n_full=$(grep -c 'scan: .* devices' "$T_DIR/full.err")
if grep -q 'leading again' "$T_DIR/full.err"; then
	# the second pass reads one device, not every one
	if [ "$n_full" -eq 2 ] && grep 'scan: ' "$T_DIR/full.err" | tail -1 | grep -q ' 1 read'; then
		t_pass "leading again after a full scan reads only what was queued"
	else
		t_fail "leading again repeated the full scan"
		cat "$T_DIR/full.err"
	fi
else
	t_pass "no entry slipped in (the follower's entry was taken in the full pass)"
fi
if [ "$(sort "$T_DIR/act.log" | uniq -d | wc -l)" -eq 0 ] &&
	[ "$(sort -u "$T_DIR/act.log" | wc -l)" -eq 3 ]; then
	t_pass "each VG activated exactly once"
else
	t_fail "activations: $(tr '\n' ' ' <"$T_DIR/act.log")"
fi

# 2. Queued together: -aay A and plain --cache B. Only A's VG is activated, as lvm2 would.
reset
"$PF" --cache >/dev/null 2>&1 # a first full scan since boot happened (without -aay)
rm -f "$RUN"/pvs_online/* "$RUN"/vgs_online/* # as if A and B had not been there then
mkdir -p "${LOCK%/*}"
exec 8>"$LOCK"
flock 8
"$PF" --cache -aay "$A" || t_fail "follower A exit status"
"$PF" --cache "$B" || t_fail "follower B exit status"
flock -u 8
exec 8>&-
"$PF" --cache -aay "$A" >"$T_DIR/lead.out" 2>&1 || t_fail "leader exit status"
vga=$(sed -n 's/.*VG \(mx[0-9]*\) is complete.*/\1/p' "$T_DIR/lead.out" | head -1)
if [ "$(cat "$T_DIR/act.log")" = "$vga" ] && [ -n "$vga" ] &&
	[ "$(ls "$RUN/vgs_online")" = "$vga" ]; then
	t_pass "only the VG whose event asked for activation was claimed and activated"
else
	t_fail "activated: '$(tr '\n' ' ' <"$T_DIR/act.log")' claimed: '$(ls "$RUN/vgs_online" | tr '\n' ' ')'"
	cat "$T_DIR/lead.out"
fi
if grep -q "PV $B online\.$" "$T_DIR/lead.out"; then
	t_pass "the plain --cache device is reported as lvm2 reports it"
else
	t_fail "B's line"
	cat "$T_DIR/lead.out"
fi
t_done
