#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# `pvscan-fast --help` and pvscan-fast(8) name the same options, the command accepts each of
# them, the man page has its sections, and groff finds nothing to warn about.
. "$(dirname "$0")/../lib/test-lib.sh"

MAN="$top_srcdir/docs/pvscan-fast.8"
# automake runs tests from the build directory; a VPATH build keeps the binary there
[ -x "$PVSCAN_FAST" ] || [ ! -x "$PWD/pvscan-fast/pvscan-fast" ] ||
	PVSCAN_FAST="$PWD/pvscan-fast/pvscan-fast"
[ -x "$PVSCAN_FAST" ] || { echo "FAIL: $PVSCAN_FAST not built"; exit 1; }
[ -r "$MAN" ] || { echo "FAIL: $MAN missing"; exit 1; }

T_DIR=$(mktemp -d "${TMPDIR:-/tmp}/pvscan-fast-test.XXXXXX") || exit 1
trap t_cleanup EXIT
trap 'exit 130' INT TERM HUP PIPE

# Option names in text: a '-' or '--' token that starts the text or follows a blank or one of
# [ ( | / , ' (so "device-mapper" is no option), one per line, sorted and unique. lvm2 drops
# hyphens inside long names, and so does the comparison: --dry-run is --dryrun.
options_in() {
	grep -oE "(^|[][[:space:](|/,'])--?[A-Za-z][A-Za-z0-9-]*" |
		sed -e 's/^[^-]*//' -e ':a' -e 's/^\(--[^-]*\)-/\1/' -e 'ta' |
		sort -u
}

# The man page's option headings: the line after each .TP and every .TQ line of OPTIONS,
# with troff's escapes, font changes and quotes taken out.
man_headings() {
	awk '
		/^\.SH/ { in_opts = ($0 ~ /^\.SH "?OPTIONS"?[[:space:]]*$/); next }
		!in_opts { next }
		/^\.TP/ { want = 1; next }
		/^\.TQ/ { want = 1; next }
		want { print; want = 0 }
	' "$MAN" | sed -e 's/\\-/-/g' -e 's/\\f[BIRP]//g' -e 's/\\f(..//g' -e 's/"/ /g' \
		-e 's/^\.[A-Z]*[[:space:]]*/ /'
}

"$PVSCAN_FAST" --help >"$T_DIR/help" 2>"$T_DIR/help.err"
rc=$?
if [ "$rc" -ne 0 ] || [ ! -s "$T_DIR/help" ]; then
	t_fail "--help: exit status $rc, $(wc -c <"$T_DIR/help") bytes of output"
	cat "$T_DIR/help.err"
	t_done
	exit 1
fi
options_in <"$T_DIR/help" >"$T_DIR/help.opts"
man_headings | options_in >"$T_DIR/man.opts"

if [ "$(wc -l <"$T_DIR/help.opts")" -lt 10 ] || [ "$(wc -l <"$T_DIR/man.opts")" -lt 10 ]; then
	t_fail "too few options found: --help $(wc -l <"$T_DIR/help.opts"), man page" \
		"$(wc -l <"$T_DIR/man.opts") (did a format change break the extraction?)"
fi

only_help=$(comm -23 "$T_DIR/help.opts" "$T_DIR/man.opts")
only_man=$(comm -13 "$T_DIR/help.opts" "$T_DIR/man.opts")
for o in $only_help; do
	t_fail "$o: in --help, not among the man page's OPTIONS headings"
done
for o in $only_man; do
	t_fail "$o: in the man page's OPTIONS, not in --help"
done
[ -z "$only_help$only_man" ] &&
	t_pass "--help and the man page list the same $(wc -l <"$T_DIR/help.opts") options"

# Every option either lists must parse: "--version OPT 1" prints the version once the whole
# command line parsed (the "1" is OPT's argument or an unused device), and fails with a
# usage error on an unknown option. Private roots, in case a build ignores --version.
mkdir -p "$T_DIR/sys" "$T_DIR/dev" "$T_DIR/proc" "$T_DIR/etc" "$T_DIR/run" "$T_DIR/lock"
sort -u "$T_DIR/help.opts" "$T_DIR/man.opts" >"$T_DIR/all.opts"
bad=""
while read -r o; do
	out=$(PVSCAN_FAST_SYS_DIR="$T_DIR/sys" PVSCAN_FAST_DEV_DIR="$T_DIR/dev" \
		PVSCAN_FAST_PROC_DIR="$T_DIR/proc" LVM_SYSTEM_DIR="$T_DIR/etc" \
		PVSCAN_FAST_RUN_DIR="$T_DIR/run" PVSCAN_FAST_LOCK_DIR="$T_DIR/lock" \
		"$PVSCAN_FAST" --version "$o" 1 </dev/null 2>&1)
	case $out in
	"pvscan-fast "[0-9]*) ;;
	*"Usage:"*) ;; # -h, --help, --longhelp
	*) bad="$bad $o"; t_fail "$o: the command does not accept it: $(echo "$out" | head -n 2)" ;;
	esac
done <"$T_DIR/all.opts"
[ -z "$bad" ] && t_pass "the command accepts every option listed"

missing=""
for s in NAME SYNOPSIS DESCRIPTION OPTIONS "EXIT STATUS" FILES ENVIRONMENT EXAMPLES \
	"SEE ALSO"; do
	grep -qE "^\.SH \"?$s\"?[[:space:]]*\$" "$MAN" || missing="$missing, $s"
done
if [ -n "$missing" ]; then
	t_fail "man page sections missing: ${missing#, }"
else
	t_pass "man page has every required section"
fi

if command -v groff >/dev/null 2>&1; then
	groff -man -ww -z "$MAN" >"$T_DIR/groff" 2>&1
	if [ -s "$T_DIR/groff" ]; then
		t_fail "groff warns about the man page:"
		sed 's/^/    /' "$T_DIR/groff"
	else
		t_pass "groff -man -ww: no warnings"
	fi
else
	echo "ok - # SKIP groff not installed: troff warnings not checked"
fi
t_done
