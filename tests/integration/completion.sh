#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Bash completion (completion/pvscan-fast): `pvscan-fast --` offers exactly the long options
# of the command's option table (pvscan-fast/options.c; --dry-run as --help spells it), so a
# new option cannot be left out; option values (ay, event, y n); block device names from
# /sys/class/block after --dump and --cache, only those matching what is typed; the switch's
# subcommands. Runs bash on the completion file alone, without the bash-completion package.
. "$(dirname "$0")/../lib/test-lib.sh"

COMPLETION="$top_srcdir/completion/pvscan-fast"
OPTIONS_C="$top_srcdir/pvscan-fast/options.c"
command -v bash >/dev/null 2>&1 || t_skip "needs bash"
[ -x "$PVSCAN_FAST" ] || { echo "FAIL: $PVSCAN_FAST not built"; exit 1; }

T_DIR=$(mktemp -d "${TMPDIR:-/tmp}/pvscan-fast-completion.XXXXXX") || exit 1
trap t_cleanup EXIT
trap 'exit 130' INT TERM HUP PIPE

# complete FUNCTION WORD...: what FUNCTION offers for the last WORD, one a line, sorted.
complete_words() {
	bash -c '. "$1"; f=$2; shift 2; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1))
		"$f"; printf "%s\n" "${COMPREPLY[@]}"' bash "$COMPLETION" "$@" | LC_ALL=C sort
}

check_eq() { # check_eq WHAT EXPECTED ACTUAL
	if [ "$2" = "$3" ]; then
		t_pass "$1"
	else
		t_fail "$1"
		printf '%s\n' "$2" >"$T_DIR/want"
		printf '%s\n' "$3" >"$T_DIR/got"
		diff "$T_DIR/want" "$T_DIR/got" | sed 's/^/#   /'
	fi
}

# The option table: every { "name", ... } of long_options[]; lvm2's --dry-run is "dryrun" there.
sed -n '/long_options\[\] = {/,/NULL, 0/p' "$OPTIONS_C" | grep -o '{ "[a-z]*"' |
	sed -e 's/^{ "/--/' -e 's/"$//' -e 's/^--dryrun$/--dry-run/' | LC_ALL=C sort >"$T_DIR/table"
if [ "$(wc -l <"$T_DIR/table")" -lt 30 ]; then
	t_fail "only $(wc -l <"$T_DIR/table") options read from options.c (did its format change?)"
fi
check_eq "--<TAB>: exactly the option table's long options" "$(cat "$T_DIR/table")" \
	"$(complete_words _pvscan_fast "$PVSCAN_FAST" --)"
check_eq "--dum<TAB>: --dump" "--dump" "$(complete_words _pvscan_fast "$PVSCAN_FAST" --dum)"
check_eq "-<TAB> offers the short options too" "-a -b -d -h -j -q -t -v -y" \
	"$(complete_words _pvscan_fast "$PVSCAN_FAST" - | grep -v '^--' | tr '\n' ' ' | sed 's/ $//')"
check_eq "--activate <TAB>: ay" ay "$(complete_words _pvscan_fast "$PVSCAN_FAST" --cache --activate '')"
check_eq "--autoactivation <TAB>: event" event \
	"$(complete_words _pvscan_fast "$PVSCAN_FAST" --cache -aay --autoactivation '')"
check_eq "--driverloaded <TAB>: y n" "n
y" "$(complete_words _pvscan_fast "$PVSCAN_FAST" --driverloaded '')"
check_eq "--timeout <TAB>: nothing" "" "$(complete_words _pvscan_fast "$PVSCAN_FAST" --timeout '')"

# Devices: a fake /sys/class/block, so the answer does not depend on the machine's disks.
sys="$T_DIR/sys"
mkdir -p "$sys/class/block"
for d in sda sda1 sdb loop0 nvme0n1; do
	mkdir "$sys/class/block/$d"
done
devs=$(printf '/dev/%s\n' loop0 nvme0n1 sda sda1 sdb | LC_ALL=C sort)
export PVSCAN_FAST_COMPLETION_SYSFS="$sys"
check_eq "--dump <TAB>: every block device" "$devs" \
	"$(complete_words _pvscan_fast "$PVSCAN_FAST" --dump '')"
check_eq "--dump --json /dev/sd<TAB>: the sd devices" "/dev/sda
/dev/sda1
/dev/sdb" "$(complete_words _pvscan_fast "$PVSCAN_FAST" --dump --json /dev/sd)"
check_eq "--cache --activate ay <TAB>: every block device" "$devs" \
	"$(complete_words _pvscan_fast "$PVSCAN_FAST" --cache --activate ay '')"
: >"$T_DIR/image.img"
check_eq "--dump with a file name typed: image files too" "$T_DIR/image.img" \
	"$(complete_words _pvscan_fast "$PVSCAN_FAST" --dump "$T_DIR/ima")"
check_eq "no form yet: no device offered" "" "$(complete_words _pvscan_fast "$PVSCAN_FAST" '')"

check_eq "pvscan-fast-switch <TAB>: on off status" "off
on
status" "$(complete_words _pvscan_fast_switch pvscan-fast-switch '')"
check_eq "pvscan-fast-switch o<TAB>: on off" "off
on" "$(complete_words _pvscan_fast_switch pvscan-fast-switch o)"
check_eq "pvscan-fast-switch on <TAB>: nothing" "" \
	"$(complete_words _pvscan_fast_switch pvscan-fast-switch on '')"

# Registered under both names.
if bash -c '. "$1"; complete -p pvscan-fast && complete -p pvscan-fast-switch' bash \
	"$COMPLETION" >/dev/null 2>&1; then
	t_pass "registered for pvscan-fast and pvscan-fast-switch"
else
	t_fail "not registered for both commands"
fi

t_done
