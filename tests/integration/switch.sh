#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# pvscan-fast-switch in a scratch root (PVSCAN_FAST_SWITCH_ROOT) with stand-in udevadm,
# update-initramfs, dracut and systemctl that log their calls: on, off and status; each run
# twice changes nothing and rebuilds nothing the second time; every refusal (no lvm2, an
# admin's own 69-lvm.rules file or symlink, an admin's mask of pvscan-fast's rule) changes
# nothing at all; nothing of the admin's is ever removed; a failed rebuild is owed until made.
# The initramfs-tools hook and the dracut module add nothing while the switch is off.
. "$(dirname "$0")/../lib/test-lib.sh"

SWITCH="$top_builddir/switch/pvscan-fast-switch"
HOOK="$top_builddir/initramfs/initramfs-tools/hooks/pvscan-fast"
DMOD="$top_builddir/initramfs/dracut/90pvscan-fast/module-setup.sh"
for f in "$SWITCH" "$HOOK" "$DMOD"; do
	[ -f "$f" ] || { echo "FAIL: $f not built"; exit 1; }
done
for c in readlink find sort; do
	command -v "$c" >/dev/null 2>&1 || t_skip "needs $c"
done

T_DIR=$(mktemp -d "${TMPDIR:-/tmp}/pvscan-fast-switch.XXXXXX") || exit 1
trap t_cleanup EXIT
trap 'exit 130' INT TERM HUP PIPE

udevrulesdir=$(t_make_var udevrulesdir)
unitdir=$(t_make_var systemdunitdir)
sbindir=$(t_make_var sbindir)
pkglibexecdir=$(t_make_var pkglibexecdir)
[ -n "$udevrulesdir" ] && [ -n "$unitdir" ] || { echo "FAIL: no install paths"; exit 1; }

R="$T_DIR/root"
BIN="$T_DIR/bin"
CALLS="$T_DIR/calls"
UNIT=pvscan-fast-recover.service
WANTS="$R/etc/systemd/system/sysinit.target.wants"
mkdir -p "$BIN"

# Stand-ins: each logs its arguments; systemctl keeps its enablement as a link, as the real one.
for c in udevadm update-initramfs dracut; do
	cat >"$BIN/$c" <<EOF
#!/bin/sh
echo "$c \$*" >>"$CALLS"
[ ! -e "$T_DIR/fail-$c" ]
EOF
done
cat >"$BIN/systemctl" <<EOF
#!/bin/sh
root=
case "\$1" in --root=*) root=\${1#--root=}; shift ;; esac
[ "\$root" = "$R" ] || { echo "systemctl: --root=\$root, not the scratch root" >&2; exit 1; }
case "\$1" in
is-enabled) [ -L "$WANTS/$UNIT" ] ;;
enable) echo "systemctl \$*" >>"$CALLS"; mkdir -p "$WANTS" && ln -sf "$unitdir/$UNIT" "$WANTS/$UNIT" ;;
disable) echo "systemctl \$*" >>"$CALLS"; rm -f "$WANTS/$UNIT" ;;
*) echo "systemctl: unexpected \$*" >&2; exit 1 ;;
esac
EOF
chmod 755 "$BIN"/*

# A host with lvm2 (Debian's rule name), pvscan-fast, systemd, initramfs-tools, dracut-core
# and a running udevd.
make_root() {
	rm -rf "$R"
	mkdir -p "$R/usr/sbin" "$R/usr/lib/udev/rules.d" "$R$udevrulesdir" "$R$unitdir" \
		"$R/etc/udev/rules.d" "$R/etc/initramfs-tools" "$R/etc/dracut.conf.d" "$R/run/udev"
	printf '#!/bin/sh\n' >"$R/usr/sbin/lvm"
	chmod 755 "$R/usr/sbin/lvm"
	echo '# lvm2' >"$R/usr/lib/udev/rules.d/69-lvm.rules"
	echo '# pvscan-fast' >"$R$udevrulesdir/69-pvscan-fast.rules"
	echo '[Unit]' >"$R$unitdir/$UNIT"
	: >"$R/etc/initramfs-tools/initramfs.conf"
	: >"$R/run/udev/control"
	: >"$CALLS"
}

sw() {
	PVSCAN_FAST_SWITCH_ROOT="$R" PVSCAN_FAST_SWITCH_UDEVADM="$BIN/udevadm" \
		PVSCAN_FAST_SWITCH_UPDATE_INITRAMFS="$BIN/update-initramfs" \
		PVSCAN_FAST_SWITCH_DRACUT="$BIN/dracut" PVSCAN_FAST_SWITCH_SYSTEMCTL="$BIN/systemctl" \
		"$SWITCH" "$@" >"$T_DIR/out" 2>"$T_DIR/err"
}

# The root's every path, with link targets and sizes: what "nothing changed" compares.
snapshot() {
	(cd "$R" && find . -printf '%p %y %l %s\n' | LC_ALL=C sort)
}

is_null_link() {
	[ -L "$R$1" ] && [ "$(readlink "$R$1")" = /dev/null ]
}

check() { # check DESCRIPTION COMMAND...
	_what=$1
	shift
	if "$@"; then
		t_pass "$_what"
	else
		t_fail "$_what"
		sed 's/^/#   out: /' "$T_DIR/out"
		sed 's/^/#   err: /' "$T_DIR/err"
		sed 's/^/#   call: /' "$CALLS"
	fi
}

calls_are() {
	[ "$(cat "$CALLS")" = "$1" ]
}

status_says() { # status_says EXIT RULE SWITCH
	sw status
	_rc=$?
	[ "$_rc" -eq "$1" ] && grep -qx "rule in charge: $2.*" "$T_DIR/out" &&
		grep -qx "switch: $3" "$T_DIR/out"
}

# again_changes_nothing SUBCOMMAND: run a second time, it exits 0, changes and runs nothing.
again_changes_nothing() {
	before=$(snapshot)
	: >"$CALLS"
	sw "$1"
	rc=$?
	check "$1 again: exit 0, nothing changed, nothing rebuilt or reloaded" \
		eval '[ $rc -eq 0 ] && [ "$(snapshot)" = "$before" ] && calls_are ""'
}

L=/etc/udev/rules.d

# --- the package's life: init, on, on, off, off
make_root
check "status with both rules installed and neither masked: both, exit 1" \
	status_says 1 both "neither wholly on nor wholly off"
sw init
check "init masks pvscan-fast's rule only, and rebuilds nothing" \
	eval 'is_null_link $L/69-pvscan-fast.rules && [ ! -e "$R$L/69-lvm.rules" ] && calls_are ""'
check "after init: lvm2's rule, switch off" status_says 0 "lvm2's" off

: >"$CALLS"
sw on
rc=$?
check "on: exit 0" [ $rc -eq 0 ]
check "on: lvm2's rule masked under both names" \
	eval "is_null_link $L/69-lvm.rules && is_null_link $L/69-dm-lvm.rules"
check "on: pvscan-fast's mask removed" [ ! -e "$R$L/69-pvscan-fast.rules" ]
check "on: recovery unit enabled" [ -L "$WANTS/$UNIT" ]
check "on: dracut conf adds the module" \
	grep -q 'add_dracutmodules+=" pvscan-fast "' "$R/etc/dracut.conf.d/90-pvscan-fast-switch.conf"
check "on: enable, reload, update-initramfs -u, in that order" calls_are "systemctl enable $UNIT
udevadm control --reload
update-initramfs -u"
check "on: status says pvscan-fast's rule, switch on, exit 0" status_says 0 "pvscan-fast's" on

again_changes_nothing on

: >"$CALLS"
sw off
rc=$?
check "off: exit 0" [ $rc -eq 0 ]
check "off: lvm2's rule unmasked" \
	eval "[ ! -e $R$L/69-lvm.rules ] && [ ! -L $R$L/69-lvm.rules ] && [ ! -L $R$L/69-dm-lvm.rules ]"
check "off: pvscan-fast's rule masked" is_null_link "$L/69-pvscan-fast.rules"
check "off: recovery unit disabled" [ ! -L "$WANTS/$UNIT" ]
check "off: dracut conf removed" [ ! -e "$R/etc/dracut.conf.d/90-pvscan-fast-switch.conf" ]
check "off: disable, reload, update-initramfs -u" calls_are "systemctl disable $UNIT
udevadm control --reload
update-initramfs -u"
check "off: status says lvm2's rule, switch off, exit 0" status_says 0 "lvm2's" off

again_changes_nothing off

# --- the hooks follow the switch
hook_adds_nothing() {
	rm -rf "$T_DIR/img"
	mkdir -p "$T_DIR/img"
	PVSCAN_FAST_INITRAMFS_ROOT="$R" DESTDIR="$T_DIR/img" sh "$HOOK" >"$T_DIR/out" 2>"$T_DIR/err" &&
		[ -z "$(ls -A "$T_DIR/img")" ]
}
# dracut's functions as stand-ins that log; what install() asks for is the module's content.
dracut_install() {
	: >"$T_DIR/dracut-calls"
	log="$T_DIR/dracut-calls" bash -c '
		dinfo() { :; }
		inst_binary() { echo "inst_binary $*" >>"$log"; }
		inst_multiple() { echo "inst_multiple $*" >>"$log"; }
		inst_simple() { echo "inst_simple $*" >>"$log"; }
		inst_hook() { echo "inst_hook $*" >>"$log"; }
		. "$1"
		dracutsysrootdir=$2 moddir=/m hostonly= lvmconf=no
		install' dracut "$DMOD" "$R" >"$T_DIR/out" 2>"$T_DIR/err"
}
check "switch off: the initramfs-tools hook adds nothing" hook_adds_nothing
dracut_install
check "switch off: the dracut module installs nothing" eval '[ ! -s "$T_DIR/dracut-calls" ]'
sw on
dracut_install
check "switch on: the dracut module installs the command, engine and rule" eval \
	"grep -q 'inst_binary .*$sbindir/pvscan-fast' '$T_DIR/dracut-calls' &&
	 grep -q 'inst_binary .*$pkglibexecdir/pvscan-fast-engine' '$T_DIR/dracut-calls' &&
	 grep -q 'inst_simple .*69-pvscan-fast.rules' '$T_DIR/dracut-calls'"

# --- dracut builds the initramfs where initramfs-tools is not installed
make_root
rm -f "$R/etc/initramfs-tools/initramfs.conf"
sw on
check "on without initramfs-tools: dracut -f" calls_are "systemctl enable $UNIT
udevadm control --reload
dracut -f"
: >"$CALLS"
sw off
check "off without initramfs-tools: dracut -f" eval 'tail -1 "$CALLS" | grep -qx "dracut -f"'

# --- a host without systemd, udevd or dracut: the rules and the rebuild only
make_root
rm -rf "$R$unitdir/$UNIT" "$R/run/udev/control" "$R/etc/dracut.conf.d"
sw on
check "on without systemd, udevd and dracut: only update-initramfs -u" \
	eval 'calls_are "update-initramfs -u" && is_null_link $L/69-lvm.rules'

# --- a failed rebuild is owed until one succeeds
make_root
: >"$T_DIR/fail-update-initramfs"
sw on
rc=$?
check "on with a failing update-initramfs: exit non-zero, says so" \
	eval '[ $rc -ne 0 ] && grep -q "update-initramfs -u failed" "$T_DIR/err"'
check "status: the rebuild is owed, exit 1" \
	eval 'sw status; [ $? -eq 1 ] && grep -q "rebuild is owed" "$T_DIR/out"'
rm -f "$T_DIR/fail-update-initramfs"
: >"$CALLS"
sw on
check "on again: the owed rebuild is made, status exit 0" \
	eval 'calls_are "update-initramfs -u" && status_says 0 "pvscan-fast'"'"'s" on'

# --- refusals: exit non-zero, a message, nothing changed, nothing run
refused() { # refused DESCRIPTION MESSAGE-REGEX
	before=$(snapshot)
	: >"$CALLS"
	sw on
	rc=$?
	why=$2
	check "refused ($1): exit non-zero, says why, changes and runs nothing" \
		eval '[ $rc -ne 0 ] && grep -qi "refusing.*$why" "$T_DIR/err" &&
			[ "$(snapshot)" = "$before" ] && calls_are ""'
}

make_root
rm -f "$R/usr/sbin/lvm"
refused "no lvm command" "lvm2 is not installed"
make_root
rm -f "$R/usr/lib/udev/rules.d/69-lvm.rules"
refused "no lvm2 rule" "lvm2 is not installed"
make_root
rm -f "$R$udevrulesdir/69-pvscan-fast.rules"
refused "pvscan-fast's rule not installed" "69-pvscan-fast.rules is not installed"
make_root
echo '# the admin: own rule' >"$R$L/69-lvm.rules"
refused "admin's own 69-lvm.rules file" "69-lvm.rules is a local file"
make_root
: >"$R$L/69-lvm.rules"
refused "admin's own empty 69-lvm.rules" "69-lvm.rules is a local file"
make_root
ln -s /dev/null "$R$L/69-lvm.rules"
refused "admin's own mask of 69-lvm.rules" "69-lvm.rules is a symlink"
make_root
ln -s /etc/lvm/my.rules "$R$L/69-dm-lvm.rules"
refused "admin's own symlink 69-dm-lvm.rules" "69-dm-lvm.rules is a symlink"
make_root
ln -s /dev/null "$R$L/69-pvscan-fast.rules"
refused "admin's own mask of pvscan-fast's rule" "masks pvscan-fast's rule"

# --- an admin's file in place of a mask of ours is never removed
make_root
sw on
rm -f "$R$L/69-lvm.rules"
echo '# the admin: now' >"$R$L/69-lvm.rules"
sw off
check "off leaves the admin's 69-lvm.rules that replaced our mask, and says so" \
	eval 'grep -q "admin" "$R$L/69-lvm.rules" && grep -q "69-lvm.rules.*left as it is" "$T_DIR/err"'
check "status: admin's file in charge of lvm2's name, not pvscan-fast's" status_says 0 "lvm2's" off
make_root
ln -s /dev/null "$R$L/69-lvm.rules"
sw off
check "off leaves the admin's own mask of lvm2's rule, and warns" \
	eval 'is_null_link $L/69-lvm.rules && grep -q "masks lvm2.*not this script" "$T_DIR/err"'
check "status then: no rule in charge, exit 1" status_says 1 none "neither wholly on nor wholly off"
make_root
echo '# admin copy' >"$R$L/69-pvscan-fast.rules"
sw off
check "off leaves the admin's own 69-pvscan-fast.rules" \
	eval 'grep -q "admin copy" "$R$L/69-pvscan-fast.rules"'

# --- usage
sw bogus
rc=$?
check "an unknown subcommand: exit 2 and the usage" eval '[ $rc -eq 2 ] && grep -q Usage "$T_DIR/err"'

t_done
