#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# --background outside systemd: the invocation that leads returns at once, its stdout and
# stderr closed, while the leader goes on in its own session and activates every VG once.
#
# udev waits for what it RUNs and kills a worker that outlasts its event timeout; a leader with
# a thousand VGs to bring up must not be that worker. Here the activations are a fake lvm that
# sleeps, so the leader visibly outlives the invocations; command substitution would hang for as
# long as anything held the invocation's stdout. (Under systemd the leader is a transient
# service: tests/vm covers that path.)
. "$(dirname "$0")/../lib/test-lib.sh"
t_require xz flock python3 setsid timeout
[ -d /run/systemd/system ] && t_skip "systemd runs here: --background would start a service"

N=${BACKGROUND_N:-12}
ETC="$T_DIR/etc"
RUN="$T_DIR/run"
ACT="$T_DIR/act.log"
mkdir -p "$ETC" "$RUN"
: >"$ACT"
# Each activation takes a while and notes its session, so the leader is seen working after
# its invocation returned, and away from the invoker's session.
cat >"$T_DIR/fake-lvm" <<EOF
#!/bin/sh
sleep 0.3
echo "\$(ps -o sid= -p \$\$ | tr -d ' ') \$*" >>"$ACT"
EOF
chmod 0755 "$T_DIR/fake-lvm"
export LVM_SUPPRESS_FD_WARNINGS=1 PVSCAN_FAST_LVM="$T_DIR/fake-lvm" LVM_SYSTEM_DIR="$ETC" \
	PVSCAN_FAST_RUN_DIR="$RUN/lvm" PVSCAN_FAST_LOCK_DIR="$RUN/lock"
LOCK="$RUN/lock/pvscan-fast.leader"

python3 "$top_srcdir/tests/bench/clone-pvs.py" "$FIXTURES/single" "$N" "$T_DIR/img" bg \
	>"$T_DIR/images" || { echo "FAIL: clone-pvs.py"; exit 1; }
: >"$T_DIR/devs"
for img in $(cat "$T_DIR/images"); do
	t_attach "$img"
	echo "$T_DEV $((0x$(stat -c %t "$T_DEV"))) $((0x$(stat -c %T "$T_DEV")))" >>"$T_DIR/devs"
done
t_lvm_conf "$ETC" "$(cut -d' ' -f1 "$T_DIR/devs")" "$T_CONF_NO_LISTS"

# invoke DEV MAJ MIN: as udev's RUN does, output captured by command substitution.
invoke() {
	ACTION=add MAJOR=$2 MINOR=$3 DEVNAME=$1 \
		timeout 20 "$PVSCAN_FAST" --cache -aay --autoactivation event --background \
		--driverloaded n --major "$2" --minor "$3" 2>&1 </dev/null
}

my_sid=$(ps -o sid= -p $$ | tr -d ' ')
set -- $(head -n 1 "$T_DIR/devs")
out=$(invoke "$@")
rc=$?
if [ "$rc" -eq 0 ] && [ -z "$out" ]; then
	t_pass "the leading invocation returns 0 at once, with nothing on stdout or stderr"
else
	t_fail "the leading invocation: status $rc, output '$out'"
fi
if flock -n "$LOCK" true; then
	t_fail "nobody holds the leader lock after the leading invocation returned"
else
	t_pass "the leader goes on after its invocation returned"
fi
# The rest arrive while it works: followers, recorded and picked up.
tail -n +2 "$T_DIR/devs" | while read -r dev maj min; do
	out=$(invoke "$dev" "$maj" "$min") || echo "status $? $dev" >>"$T_DIR/bad"
	[ -z "$out" ] || echo "output $dev: $out" >>"$T_DIR/bad"
done
if [ -s "$T_DIR/bad" ]; then
	t_fail "followers: $(cat "$T_DIR/bad")"
else
	t_pass "$((N - 1)) more invocations return 0 with no output"
fi

# Wait for every leader (a leader that lets go looks at the queue once more).
timeout 60 flock "$LOCK" true || t_fail "the leader lock is still held after 60 s"
sleep 0.5
timeout 60 flock "$LOCK" true || true

activated=$(awk '{ print $NF }' "$ACT" | sort)
want=$(sed 's|.*/||; s|-d1.img$||' "$T_DIR/images" | sort)
if [ "$activated" = "$want" ]; then
	t_pass "each of the $N VGs activated exactly once"
else
	t_fail "activated: $(echo "$activated" | tr '\n' ' ') want: $(echo "$want" | tr '\n' ' ')"
fi
if awk -v s="$my_sid" '$1 == s { bad = 1 } END { exit !bad }' "$ACT"; then
	t_fail "an activation ran in the invoker's session"
else
	t_pass "the leader ran in a session of its own"
fi
n_online=$(find "$RUN/lvm/pvs_online" -type f | wc -l)
[ "$n_online" -eq "$N" ] && t_pass "$N PVs online" || t_fail "$n_online of $N PVs online"
left=$(t_queue_left "$RUN/lvm" | wc -l)
[ "$left" -eq 0 ] && t_pass "queue and journal empty" || t_fail "$left entries left in the queue"

# The queue unusable (here its directory is a file; a /run out of inodes does the same): the
# device cannot be recorded, so it is read alone, as lvm2's pvscan would, and still outside
# the caller; the caller says why and returns at once.
RUN="$T_DIR/run2"
export PVSCAN_FAST_RUN_DIR="$RUN/lvm" PVSCAN_FAST_LOCK_DIR="$RUN/lock"
mkdir -p "$RUN/lvm"
: >"$RUN/lvm/pvscan-fast"
: >"$ACT"
set -- $(head -n 1 "$T_DIR/devs")
out=$(invoke "$@")
rc=$?
case $rc/$out in
"0/  WARNING: pvscan-fast: cannot queue the device: Not a directory; reading it alone.")
	t_pass "queue unusable: the invocation says why and returns 0 at once" ;;
*) t_fail "queue unusable: status $rc, output '$out'" ;;
esac
i=0
while [ ! -s "$ACT" ] && [ $i -lt 600 ]; do
	i=$((i + 1))
	sleep 0.1
done
if [ "$(wc -l <"$ACT")" -eq 1 ] && ! awk -v s="$my_sid" '$1 == s { bad = 1 } END { exit !bad }' \
	"$ACT" && [ "$(find "$RUN/lvm/pvs_online" -type f | wc -l)" -eq 1 ]; then
	t_pass "queue unusable: the PV is online and its VG activated, outside the caller"
else
	t_fail "queue unusable: activations '$(cat "$ACT")'"
fi
t_done
