# shellcheck shell=sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The real-boot benchmark's report in the booted real root (/etc/pf-boot/bench.sh), after the
# boot test's own checks, with pf-boot.bench on the kernel command line (boot-check.sh sources
# it from its finish(), with $fails set and its output on the second serial port). Lines:
#   BENCH cpu S          busy seconds of every CPU from the kernel's start to multi-user.target
#                        (/proc/stat; pf-boot-bench-stat.service, --stat)
#   BENCH processes N    processes started in that time
#   BENCH settled S      when `udevadm settle` after the real root's coldplug returned
#                        (pf-boot-settle.service), seconds since the kernel started
#   BENCH floor LINE     the floor's initramfs steps (its kernel log lines)
#   BENCH analyze LINE   systemd-analyze, once the boot has finished
#   BENCH blame LINE     systemd-analyze blame, the first 10
#   TIME default-target S
# systemd-analyze needs the boot finished, and the check is one of its jobs: the check hands
# over to a transient unit (--late) and ends; that unit waits for the boot to finish (its own
# deadline), reports, and ends the boot as the check would have.

# bench_stat: the BENCH cpu and processes lines, now.
bench_stat() {
	# shellcheck disable=SC2034 # i(dle) and w(ait) are not busy time
	while read -r k u n s i w q sq st rest; do
		case $k in
		cpu) j=$((u + n + s + q + sq + st)); echo "BENCH cpu $((j / 100)).$((j % 100 / 10))" ;;
		processes) echo "BENCH processes $u" ;;
		esac
	done </proc/stat
}

if [ "${1:-}" = --stat ]; then
	# pf-boot-bench-stat.service, at multi-user.target: before the check's own processes
	bench_stat >/run/pf-boot-bench.stat
elif [ "${1:-}" != --late ]; then
	cat /run/pf-boot-bench.stat 2>/dev/null || bench_stat
	echo "BENCH settled $(cat /run/pf-boot-settled 2>/dev/null || echo -)"
	grep 'pf-floor: ' /tmp/journal 2>/dev/null | sed 's/^/BENCH floor /'
	sync
	if systemd-run --no-block --collect --unit pf-boot-bench-late -p DefaultDependencies=no \
		/bin/sh /etc/pf-boot/bench.sh --late "$fails" >/dev/null 2>&1; then
		exit 0
	fi
	echo "BENCH analyze (no transient unit: systemd-run failed)"
	# back in finish(): the check ends the boot
else
	export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
	exec >/dev/ttyS1 2>&1
	i=0
	state=$(systemctl is-system-running 2>/dev/null)
	while [ "$state" = starting ] || [ "$state" = initializing ]; do
		[ "$i" -lt 600 ] || break
		sleep 1
		i=$((i + 1))
		state=$(systemctl is-system-running 2>/dev/null)
	done
	echo "BENCH state $state"
	systemd-analyze --no-pager 2>&1 | head -n 3 | sed 's/^/BENCH analyze /'
	systemd-analyze blame --no-pager 2>&1 | head -n 10 | sed 's/^ */BENCH blame /'
	echo "TIME default-target $(systemctl show -P ActiveEnterTimestampMonotonic default.target |
		awk '{ printf "%.2f", $1 / 1e6 }')"
	echo "@@BOOT-CHECK-DONE ${2:-1}@@"
	sync
	systemctl poweroff -ff 2>/dev/null || echo o >/proc/sysrq-trigger
fi
