#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Under systemd the leader's records and messages reach the journal with SYSLOG_IDENTIFIER,
# VG=, DEVICE= and PVID= fields. No journald is needed: in a private mount namespace a tmpfs
# over /run holds /run/systemd/system (systemd "runs") and a datagram socket at
# /run/systemd/journal/socket where a small listener keeps what libsystemd's sd_journal_sendv()
# sends. One loop PV (single: vg0), activated by a fake lvm. Checked: the dev, vg, claim and
# activated records arrive with their fields (the PV's device and PVID, the VG); stdout and
# stderr are what they are without the journal; PVSCAN_FAST_JOURNAL=0 sends nothing.
# shellcheck disable=SC2154 # top_srcdir, top_builddir come from test-lib.sh
. "$(dirname "$0")/../lib/test-lib.sh"
t_require xz unshare python3 jq

img=$(t_unpack "$FIXTURES/single/d1.img.xz" s0.img)
t_attach "$img"
DEV=$T_DEV
DEVNO=$(stat -L -c '%Hr:%Lr' "$DEV")
PVID=$(awk '$1 == "d1.img" { print $2 }' "$FIXTURES/single/devices")
t_lvm_conf "$T_DIR/etc" "$DEV" "$T_CONF_NO_LISTS" "$(t_conf_events)"
cat >"$T_DIR/lvm" <<'EOF'
#!/bin/sh
exit 0
EOF
chmod +x "$T_DIR/lvm"

# The listener: every datagram as one JSON object of its fields, one a line, until the stop
# file appears (or a deadline ends a hang).
cat >"$T_DIR/sink.py" <<'EOF'
import json, os, socket, sys, time
path, out, stop = sys.argv[1:4]
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(path)
open(path + ".ready", "w").close()
s.settimeout(0.1)
deadline = time.monotonic() + 120
with open(out, "w") as f:
    while time.monotonic() < deadline and not os.path.exists(stop):
        try:
            data = s.recv(1 << 20)
        except socket.timeout:
            continue
        fields, rest = {}, data
        while rest:
            line, _, rest = rest.partition(b"\n")
            if b"=" in line:
                k, _, v = line.partition(b"=")
            else:  # KEY\n<le64 size><value>\n
                k, n = line, int.from_bytes(rest[:8], "little")
                v, rest = rest[8:8 + n], rest[8 + n + 1:]
            fields[k.decode()] = v.decode(errors="replace")
        f.write(json.dumps(fields) + "\n")
        f.flush()
EOF

# run_leader TAG JOURNAL_ENV: a first leader for the device, with a journal socket to send to
run_leader() {
	rm -rf "$T_DIR/run" "$T_DIR/stop" "$T_DIR/journal.$1"
	mkdir -p "$T_DIR/run"
	LVM_SYSTEM_DIR="$T_DIR/etc" PVSCAN_FAST_RUN_DIR="$T_DIR/run/lvm" \
		PVSCAN_FAST_LOCK_DIR="$T_DIR/run/lock/lvm" PVSCAN_FAST_LVM="$T_DIR/lvm" \
		PVSCAN_FAST_ENGINE="$top_builddir/pvscan-fast/pvscan-fast-engine" \
		LVM_SUPPRESS_FD_WARNINGS=1 PVSCAN_FAST_JOURNAL="$2" \
		T_DIR="$T_DIR" TAG="$1" PF="$PVSCAN_FAST" DEVNO="$DEVNO" \
		unshare --mount --propagation private sh -c '
		mount -t tmpfs -o mode=0755,size=8m pvscan-fast-test /run || exit 1
		mkdir -p /run/systemd/system /run/systemd/journal
		python3 "$T_DIR/sink.py" /run/systemd/journal/socket "$T_DIR/journal.$TAG" \
			"$T_DIR/stop" &
		i=0
		while [ ! -e /run/systemd/journal/socket.ready ] && [ $i -lt 600 ]; do
			sleep 0.1
			i=$((i + 1))
		done
		unset JOURNAL_STREAM ACTION SEQNUM
		"$PF" --cache -aay --driverloaded n --major "${DEVNO%:*}" --minor "${DEVNO#*:}" \
			>"$T_DIR/out.$TAG" 2>"$T_DIR/err.$TAG"
		echo $? >"$T_DIR/rc.$TAG"
		touch "$T_DIR/stop"
		wait'
}

# has TAG JQ-SELECT DESCRIPTION: some datagram of the run matches
has() {
	if jq -e -s "[.[] | select($2)] | length > 0" "$T_DIR/journal.$1" >/dev/null 2>&1; then
		t_pass "$1: $3"
	else
		t_fail "$1: $3"
		head -c 2000 "$T_DIR/journal.$1" | sed 's/^/#   /'
	fi
}

run_leader auto ""
[ "$(cat "$T_DIR/rc.auto")" = 0 ] && t_pass "auto: the leader exits 0" ||
	t_fail "auto: the leader exits $(cat "$T_DIR/rc.auto")"
has auto '.SYSLOG_IDENTIFIER == "pvscan-fast" and .PVSCAN_FAST_RECORD == "dev" and
	.DEVICE == "'"$DEV"'" and .PVID == "'"$PVID"'" and .VG == "vg0" and .PRIORITY == "6"' \
	"the PV's dev record with DEVICE=, PVID= and VG="
has auto '.PVSCAN_FAST_RECORD == "vg" and .VG == "vg0" and (.MESSAGE | test("state=complete"))' \
	"vg0 complete, VG=vg0"
has auto '.PVSCAN_FAST_RECORD == "claim" and .VG == "vg0"' "the claim"
has auto '.PVSCAN_FAST_RECORD == "activated" and .VG == "vg0" and
	(.MESSAGE | test("how=lvm2 res=ok status=0"))' "the activation's end, lvm2's exit status"
if jq -e -s 'all(.[]; .SYSLOG_IDENTIFIER == "pvscan-fast" and (.MESSAGE | length) > 0)' \
	"$T_DIR/journal.auto" >/dev/null; then
	t_pass "auto: every datagram is pvscan-fast's, with a message"
else
	t_fail "auto: a datagram without identifier or message"
fi

run_leader off 0
if [ "$(cat "$T_DIR/rc.off")" = 0 ] && [ ! -s "$T_DIR/journal.off" ]; then
	t_pass "off: PVSCAN_FAST_JOURNAL=0 sends nothing"
else
	t_fail "off: $(wc -l <"$T_DIR/journal.off") datagrams, exit $(cat "$T_DIR/rc.off")"
fi
# lvm2's lines name the process: pvscan[PID]
for f in out.auto out.off err.auto err.off; do
	sed 's/\[[0-9]*\]/[PID]/g' "$T_DIR/$f" >"$T_DIR/$f.n"
done
if cmp -s "$T_DIR/out.auto.n" "$T_DIR/out.off.n" && cmp -s "$T_DIR/err.auto.n" "$T_DIR/err.off.n"; then
	t_pass "the command's output is the same with and without the journal"
else
	t_fail "the output differs with the journal"
	diff "$T_DIR/err.off.n" "$T_DIR/err.auto.n" | sed 's/^/#   /' | head -10
fi

t_done
