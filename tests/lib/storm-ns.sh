# shellcheck shell=sh
# SPDX-License-Identifier: GPL-2.0-or-later
# One storm, run as PID 1 of a private mount and PID namespace (st_start in storm-lib.sh):
#   storm-ns.sh RUN_FROM LAUNCHER [ARG...]
# /run is a fresh tmpfs (RUN_FROM empty) or the directory RUN_FROM bind-mounted, so that both
# tools start from empty state, as at boot (lvm2 compiles /run/lvm in). Then the launcher, its
# exit status, and what was left under /run.
from=$1
shift
if [ -n "$from" ]; then
	mount --bind "$from" /run
else
	mount -t tmpfs -o mode=0755 pvscan-fast-storm /run
fi || { echo "rc=mount"; exit 0; }
"$@"
echo "rc=$?"
count() { if [ -d "$1" ]; then ls -A "$1" | wc -l; else echo 0; fi; }
d=/run/lvm
echo "pvs=$(count $d/pvs_online) vgs=$(count $d/vgs_online)" \
	"pending=$(count $d/pvscan-fast/pending) inflight=$(count $d/pvscan-fast/inflight)" \
	"activate=$(count $d/pvscan-fast/activate)"
lock=/run/lock/lvm/pvscan-fast.leader
if [ ! -e $lock ]; then
	echo lock=none
elif flock -n $lock true; then
	echo lock=free
else
	echo lock=held
fi
