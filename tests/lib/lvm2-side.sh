# shellcheck shell=sh
# Running lvm2's pvscan and pvscan-fast side by side (sourced after test-lib.sh and t_require):
# each gets its own run dir, the same argv and LVM_SYSTEM_DIR ($ETC, written by the caller);
# step() compares exit status, stdout, stderr and the run dirs. See cache-lvm2.sh for why the
# comparison is fair and what is filtered.

ETC="$T_DIR/etc"
L2="$T_DIR/l2" # lvm2's /run
PF="$T_DIR/pf" # pvscan-fast's: $PF/lvm, $PF/lock/lvm
DM_NOISE='WARNING: Activation disabled\. No device-mapper interaction will be attempted\.$'
mkdir -p "$ETC"

# The activation wrapper pvscan-fast runs instead of /sbin/lvm.
cat >"$T_DIR/lvm-wrap" <<'EOF'
#!/bin/sh
case " $* " in
*" --driverloaded "*) ;;
*) set -- "$@" --driverloaded n ;;
esac
exec unshare --mount --propagation private sh -c \
	'mount --bind "$0" /run && exec lvm "$@"' "${PVSCAN_FAST_RUN_DIR%/lvm}" "$@"
EOF
chmod 0755 "$T_DIR/lvm-wrap"

# After a full scan lvm2 rewrites hints and drops newhints; pvscan-fast leaves hints to the
# next lvm command (and touches newhints so it does): not compared for full scans.
# shellcheck disable=SC2034 # for the callers
FULL_EXCEPT='^\./(hints|newhints) '

devno() {
	printf '%d:%d' "0x$(stat -L -c %t "$1")" "0x$(stat -L -c %T "$1")"
}

# lvm_tool ARGS...: any lvm command on our config, with /run in a scratch directory.
# shellcheck disable=SC2016
lvm_tool() {
	mkdir -p "$T_DIR/tool-run"
	LVM_SYSTEM_DIR="$ETC" LVM_SUPPRESS_FD_WARNINGS=1 \
		unshare --mount --propagation private sh -c \
		'mount --bind "$0" /run && exec lvm "$@" --driverloaded n' "$T_DIR/tool-run" "$@"
}

# mkvg NAME VG LV [SYSTEM_ID]: a scratch PV with VG (one LV) on it, made by lvm2, in T_DEV;
# SYSTEM_ID: the VG then belongs to that host (set last: lvm2 changes no VG of another's).
mkvg() {
	truncate -s 16M "$T_DIR/$1.img"
	t_attach_rw "$T_DIR/$1.img"
	{
		lvm_tool pvcreate -q --devices "$T_DEV" "$T_DEV" &&
			lvm_tool vgcreate -q --devices "$T_DEV" "$2" "$T_DEV" &&
			lvm_tool lvcreate -q --devices "$T_DEV" -an -Zn -L 4M -n "$3" "$2" &&
			{ [ -z "${4:-}" ] ||
				lvm_tool vgchange -q -y --devices "$T_DEV" --systemid "$4" "$2"; }
	} >"$T_DIR/mkvg.log" 2>&1 || {
		echo "FAIL: cannot make VG $2 on $T_DEV" >&2
		cat "$T_DIR/mkvg.log" >&2
		exit 1
	}
}

fresh() {
	rm -rf "$L2" "$PF"
	mkdir -m 0755 "$L2" "$PF"
}

# shellcheck disable=SC2016
run_lvm2() {
	LVM_SYSTEM_DIR="$ETC" LVM_SUPPRESS_FD_WARNINGS=1 \
		unshare --mount --propagation private sh -c \
		'mount --bind "$0" /run && exec lvm pvscan "$@"' "$L2" "$@"
}

# Each step compares one invocation with lvm2's, so ours acts alone (--nocoalesce): a
# coalescing first leader would scan every device, not only the one named. The coalesced
# path is compared with lvm2 by its end state (coalesce-lvm2.sh).
run_ours() {
	LVM_SYSTEM_DIR="$ETC" LVM_SUPPRESS_FD_WARNINGS=1 PVSCAN_FAST_RUN_DIR="$PF/lvm" \
		PVSCAN_FAST_LOCK_DIR="$PF/lock/lvm" PVSCAN_FAST_LVM="$T_DIR/lvm-wrap" \
		"$PVSCAN_FAST" --nocoalesce "$@"
}

# listing DIR [EXCLUDE_RE]: one line per entry: path, type, mode, size. pvscan-fast's own
# queue (lvm/pvscan-fast/, lib/state/coalesce.h) is not lvm2 state and is left out.
listing() {
	[ -d "$1" ] || return 0
	(cd "$1" && find . -mindepth 1 -printf '%p %y %m %s\n') | grep -Ev "${2:-^$}" |
		grep -Ev '^\./pvscan-fast[ /]' | LC_ALL=C sort
}

# same_state TAG [EXCLUDE_RE]: lvm2's and our lvm/ directories are identical.
same_state() {
	stat -c '%a' "$L2/lvm" >"$T_DIR/a.lst" 2>/dev/null || echo absent >"$T_DIR/a.lst"
	stat -c '%a' "$PF/lvm" >"$T_DIR/b.lst" 2>/dev/null || echo absent >"$T_DIR/b.lst"
	listing "$L2/lvm" "${2:-}" >>"$T_DIR/a.lst"
	listing "$PF/lvm" "${2:-}" >>"$T_DIR/b.lst"
	if ! diff -u "$T_DIR/a.lst" "$T_DIR/b.lst" >"$T_DIR/state.diff"; then
		echo "# $1: run dir entries differ (- lvm2, + ours):"
		sed 's/^/#   /' "$T_DIR/state.diff"
		return 1
	fi
	while read -r p type _rest; do
		[ "$type" = f ] || continue
		if ! cmp -s "$L2/lvm/$p" "$PF/lvm/$p"; then
			echo "# $1: $p differs: lvm2 '$(cat "$L2/lvm/$p")' ours '$(cat "$PF/lvm/$p")'"
			return 1
		fi
	done <"$T_DIR/a.lst"
	return 0
}

# The program's own name differs on purpose: "Run `pvscan-fast --help'", getopt's messages.
norm() {
	sed -e 's/pvscan\[[0-9]*\]/pvscan[PID]/' -e 's/^pvscan-fast: /pvscan: /' \
		-e "s/\`pvscan-fast --help'/\`pvscan --help'/" "$1" | grep -v "$DM_NOISE"
}

# same_text TAG WHAT LVM2_FILE OUR_FILE. For stderr, the caller may drop lines matching
# $ERR_IGNORE on both sides, keep only the first of the lines matching $ERR_ONCE and fold
# repeated lines ($ERR_UNIQ=1); it says why where it does.
same_text() {
	norm "$3" >"$T_DIR/a.txt"
	norm "$4" >"$T_DIR/b.txt"
	if [ "$2" = stderr ]; then
		for f in a b; do
			grep -Ev "${ERR_IGNORE:-^\$^}" "$T_DIR/$f.txt" |
				awk -v re="${ERR_ONCE:-^\$^}" '$0 ~ re { if (seen[$0]++) next } 1' \
					>"$T_DIR/$f.tmp"
			if [ "${ERR_UNIQ:-0}" = 1 ]; then
				uniq "$T_DIR/$f.tmp" >"$T_DIR/$f.txt"
			else
				mv "$T_DIR/$f.tmp" "$T_DIR/$f.txt"
			fi
		done
	fi
	if ! diff -u "$T_DIR/a.txt" "$T_DIR/b.txt" >"$T_DIR/text.diff"; then
		echo "# $1: $2 differs (- lvm2, + ours):"
		sed 's/^/#   /' "$T_DIR/text.diff"
		return 1
	fi
	return 0
}

# step TAG [--state-except RE] [--any-stderr] ARGS...: run both, compare everything (stderr
# not, with --any-stderr). $OURS_EXTRA: a regex of stdout lines only pvscan-fast may print.
step() {
	tag=$1
	shift
	except=""
	any_stderr=0
	if [ "$1" = --state-except ]; then
		except=$2
		shift 2
	fi
	if [ "$1" = --any-stderr ]; then
		any_stderr=1
		shift
	fi
	# Side by side for speed: separate run dirs, read-only devices.
	run_lvm2 "$@" >"$T_DIR/l.out" 2>"$T_DIR/l.err" &
	lpid=$!
	run_ours "$@" >"$T_DIR/o.all" 2>"$T_DIR/o.err"
	orc=$?
	wait "$lpid"
	lrc=$?
	grep -Ev "${OURS_EXTRA:-^$}" "$T_DIR/o.all" >"$T_DIR/o.out"
	[ "$any_stderr" -eq 0 ] || cp "$T_DIR/l.err" "$T_DIR/o.err"
	ok=1
	if [ "$lrc" -ne "$orc" ]; then
		echo "# $tag: exit status lvm2 $lrc, ours $orc"
		ok=0
	fi
	same_text "$tag" stdout "$T_DIR/l.out" "$T_DIR/o.out" || ok=0
	same_text "$tag" stderr "$T_DIR/l.err" "$T_DIR/o.err" || ok=0
	same_state "$tag" "$except" || ok=0
	if [ -n "${PF_TEST_VERBOSE:-}" ]; then
		echo "# $tag: pvscan $* (lvm2 $lrc, ours $orc)"
		sed 's/^/#   lvm2 out: /' "$T_DIR/l.out"
		sed 's/^/#   lvm2 err: /' "$T_DIR/l.err"
		sed 's/^/#   ours out: /' "$T_DIR/o.all"
		sed 's/^/#   ours err: /' "$T_DIR/o.err"
	fi
	if [ "$ok" -eq 1 ]; then
		t_pass "$tag"
	else
		echo "# $tag: pvscan $*"
		t_fail "$tag"
	fi
}

