#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The initramfs-tools hook and the dracut module put pvscan-fast into an initramfs: built from a
# staged `make install` with private configuration (never /etc/initramfs-tools, /etc/dracut.conf*
# or /boot), each image must hold the command, the engine, the udev rule naming that command,
# the wait script and the engine's libraries, checked by listing (lsinitramfs, lsinitrd) and by
# running the engine inside the unpacked image (chroot), so that no library is missing.
#
# The hook and the module take the installed files from $PVSCAN_FAST_INITRAMFS_ROOT (a staging
# root); only this test sets it. Until `make install` installs the initramfs files, they are
# generated here from their templates with the paths the build tree's Makefile knows.
# Each half is skipped when its tool is missing; exit 77 when both are.
. "$(dirname "$0")/../lib/test-lib.sh"

[ "$(id -u)" -eq 0 ] || t_skip "needs root"
for c in cpio chroot sed sort; do
	command -v "$c" >/dev/null 2>&1 || t_skip "needs $c"
done
have_it=1
command -v mkinitramfs >/dev/null 2>&1 && command -v lsinitramfs >/dev/null 2>&1 || have_it=0
have_dracut=1
command -v dracut >/dev/null 2>&1 && command -v lsinitrd >/dev/null 2>&1 || have_dracut=0
[ -d /usr/lib/dracut/modules.d ] || have_dracut=0
[ $have_it -eq 1 ] || [ $have_dracut -eq 1 ] ||
	t_skip "needs initramfs-tools (mkinitramfs) or dracut (dracut-core)"
[ -x "$PVSCAN_FAST" ] || { echo "FAIL: $PVSCAN_FAST not built"; exit 1; }

# Any kernel with modules will do: the images are listed, never booted.
KVER=""
for d in /lib/modules/*/modules.dep; do
	[ -e "$d" ] || continue
	d=${d%/modules.dep}
	KVER=${d##*/}
done
[ -n "$KVER" ] || t_skip "needs a kernel's modules in /lib/modules"

T_DIR=$(mktemp -d "${TMPDIR:-/tmp}/pvscan-fast-initramfs.XXXXXX")
trap t_cleanup EXIT
trap 'exit 130' INT TERM HUP PIPE
STAGE="$T_DIR/stage"

sbindir=$(t_make_var sbindir)
pkglibexecdir=$(t_make_var pkglibexecdir)
udevrulesdir=$(t_make_var udevrulesdir)
lvm=$(t_make_var LVM)
systemd_run=$(t_make_var SYSTEMD_RUN)
itdir=$(t_make_var initramfstoolsdir)
dracutdir=$(t_make_var dracutmodulesdir)
: "${itdir:=/usr/share/initramfs-tools}"
: "${dracutdir:=/usr/lib/dracut/modules.d}"
if [ -z "$sbindir" ] || [ -z "$pkglibexecdir" ] || [ -z "$udevrulesdir" ]; then
	echo "FAIL: cannot read the install paths from $top_builddir/Makefile"
	exit 1
fi

if ! make -s -C "$top_builddir" install DESTDIR="$STAGE" >"$T_DIR/install.log" 2>&1; then
	tail -20 "$T_DIR/install.log"
	echo "FAIL: make install DESTDIR=... failed"
	exit 1
fi
t_pass "make install DESTDIR=..."

subst() {
	sed -e "s|@sbindir@|$sbindir|g" -e "s|@pkglibexecdir@|$pkglibexecdir|g" \
		-e "s|@udevrulesdir@|$udevrulesdir|g" -e "s|@LVM@|$lvm|g" \
		-e "s|@SYSTEMD_RUN@|$systemd_run|g" "$1" >"$2"
	chmod 755 "$2"
}
src="$top_srcdir/initramfs"
hook="$STAGE$itdir/hooks/pvscan-fast"
bottom="$STAGE$itdir/scripts/local-bottom/pvscan-fast"
dmod="$STAGE$dracutdir/90pvscan-fast"
if [ ! -f "$hook" ]; then
	echo "# make install has no initramfs files yet: generated from the templates"
	mkdir -p "${hook%/*}" "${bottom%/*}" "$dmod"
	subst "$src/initramfs-tools/hooks/pvscan-fast.in" "$hook"
	subst "$src/initramfs-tools/scripts/local-bottom/pvscan-fast.in" "$bottom"
	subst "$src/dracut/90pvscan-fast/module-setup.sh.in" "$dmod/module-setup.sh"
	subst "$src/dracut/90pvscan-fast/pvscan-fast-wait.sh.in" "$dmod/pvscan-fast-wait.sh"
	subst "$src/dracut/90pvscan-fast/parse-pvscan-fast.sh" "$dmod/parse-pvscan-fast.sh"
fi
if grep -q '@[a-zA-Z_]*@' "$hook" "$bottom" "$dmod"/*; then
	t_fail "installed initramfs files still hold @...@ placeholders"
fi

# check_list LIST WHAT PATH...: every PATH (relative, as the listing tools print them) listed.
check_list() {
	list=$1 what=$2
	shift 2
	for p in "$@"; do
		if grep -qx "$p" "$list"; then
			t_pass "$what: $p"
		else
			t_fail "$what: $p missing"
		fi
	done
}

# check_tree ROOT WHAT: the unpacked image runs the command and the engine with what it holds.
check_tree() {
	root=$1 what=$2
	rule=$(find "$root" -name 69-pvscan-fast.rules | head -1)
	if [ -n "$rule" ] && grep -q "RUN+=\"$sbindir/pvscan-fast " "$rule"; then
		t_pass "$what: the rule runs $sbindir/pvscan-fast"
	else
		t_fail "$what: no rule running $sbindir/pvscan-fast"
	fi
	if chroot "$root" "$sbindir/pvscan-fast" --version >/dev/null 2>&1; then
		t_pass "$what: the command runs inside"
	else
		t_fail "$what: the command does not run inside"
	fi
	if chroot "$root" "$pkglibexecdir/pvscan-fast-engine" --version >/dev/null 2>&1; then
		t_pass "$what: the engine runs inside (its libraries are there)"
	else
		t_fail "$what: the engine does not run inside:" \
			"$(chroot "$root" "$pkglibexecdir/pvscan-fast-engine" --version 2>&1 | head -1)"
	fi
}

# check_wait ROOT WHAT CMD...: the image's wait step, run with the image's shell (chroot),
# returns at once with no leader lock file, and waits for a leader that holds the lock.
check_wait() {
	root=$1 what=$2
	shift 2
	# a machine with no block device at all: the scan finds nothing, and says nothing
	mkdir -p "$root/tmp/pf/run" "$root/tmp/pf/lock" "$root/tmp/pf/sys/block" \
		"$root/tmp/pf/sys/class/block" "$root/tmp/pf/sys/dev/block" "$root/tmp/pf/dev"
	t_lvm_conf "$root/tmp/pf/etc" ""
	mkdir -p "$root/dev"
	[ -e "$root/dev/null" ] || mknod -m 666 "$root/dev/null" c 1 3
	set -- env LVM_SYSTEM_DIR=/tmp/pf/etc PVSCAN_FAST_RUN_DIR=/tmp/pf/run \
		PVSCAN_FAST_LOCK_DIR=/tmp/pf/lock PVSCAN_FAST_SYS_DIR=/tmp/pf/sys \
		PVSCAN_FAST_DEV_DIR=/tmp/pf/dev chroot "$root" "$@"
	if "$@" >"$T_DIR/wait.log" 2>&1 && [ -z "$(ls "$root/tmp/pf/run")" ]; then
		t_pass "$what: the wait step does nothing before any PV event"
	else
		t_fail "$what: the wait step did something before any PV event"
	fi
	if ! command -v flock >/dev/null 2>&1; then
		echo "# SKIP $what: no flock(1) to stand in for a leader"
		return
	fi
	# A live leader's round: the lock held, its device in flight. The holder lets go only when
	# told, once the step has had a second to give up wrongly: an order, not a duration, so a
	# slow machine cannot fail it.
	q="$root/tmp/pf/run/pvscan-fast"
	lock="$root/tmp/pf/lock/pvscan-fast.leader"
	mkdir -p "$q/pending" "$q/inflight" "$q/activate"
	: >"$q/inflight/7:0,a,0"
	rm -f "$T_DIR/release"
	flock "$lock" sh -c 'until [ -e "$1" ]; do sleep 0.1; done' holder "$T_DIR/release" &
	holder=$!
	i=0
	while flock -n "$lock" true 2>/dev/null && [ $i -lt 600 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	"$@" >>"$T_DIR/wait.log" 2>&1 &
	waiter=$!
	sleep 1
	waited=no
	! kill -0 "$waiter" 2>/dev/null || waited=yes
	: >"$T_DIR/release"
	wait "$waiter"
	wait "$holder"
	if [ $waited = yes ] && [ -z "$(ls "$q/inflight")" ] && [ -e "$q/scanned" ]; then
		t_pass "$what: the wait step waits for the leader, then finishes what it left"
	else
		t_fail "$what: the wait step did not wait for the leader (waited: $waited), or left work"
		cat "$T_DIR/wait.log"
	fi
	# Everything done: it neither waits for a lock holder nor reads anything.
	# flock locks belong to the open file: exec leaves one process holding it, killed below
	sh -c 'exec 9>>"$1" && flock 9 && exec sleep 30' holder \
		"$root/tmp/pf/lock/pvscan-fast.leader" &
	holder=$!
	sleep 1
	before=$(find "$root/tmp/pf/run" | LC_ALL=C sort)
	if "$@" >>"$T_DIR/wait.log" 2>&1 && kill -0 "$holder" 2>/dev/null &&
		[ "$(find "$root/tmp/pf/run" | LC_ALL=C sort)" = "$before" ]; then
		t_pass "$what: with nothing left the wait step returns at once and changes nothing"
	else
		t_fail "$what: with nothing left the wait step waited or changed something"
		cat "$T_DIR/wait.log"
	fi
	kill "$holder" 2>/dev/null
	wait "$holder" 2>/dev/null
}

# Paths as listed, relative; with merged /usr an image's lib/ is a link to usr/lib/, and the
# tools list a file under either: both become lib/.
strip_slash() {
	sed -e 's|^\./||' -e 's|^/||' -e 's|^usr/lib/|lib/|'
}

# The engine's libraries, by file name: where an image keeps them depends on merged /usr.
libs_of_engine() {
	ldd "$STAGE$pkglibexecdir/pvscan-fast-engine" |
		sed -n 's/.*\(libdevmapper[^ ]*\|libaio[^ ]*\) =>.*/\1/p'
}

check_libs() {
	list=$1 what=$2
	for l in $(libs_of_engine); do
		if grep -q "/$l\$" "$list"; then
			t_pass "$what: $l"
		else
			t_fail "$what: $l missing"
		fi
	done
}

check_dm_mod() {
	if grep -q '/dm-mod\.ko' "$1" ||
		grep -q '/dm-mod\.ko' "/lib/modules/$KVER/modules.builtin" 2>/dev/null; then
		t_pass "$2: dm-mod"
	else
		t_fail "$2: dm-mod missing"
	fi
}

expect() {
	printf '%s\n' "$sbindir/pvscan-fast" "$pkglibexecdir/pvscan-fast-engine" | strip_slash
}

if [ $have_it -eq 1 ]; then
	conf="$T_DIR/initramfs-tools"
	mkdir -p "$conf/hooks" "$conf/scripts/local-bottom" "$conf/conf.d"
	printf 'MODULES=list\nBUSYBOX=auto\nCOMPRESS=gzip\n' >"$conf/initramfs.conf"
	: >"$conf/modules"
	# As the package would install them, into the private configuration directory.
	cp -p "$hook" "$conf/hooks/pvscan-fast"
	cp -p "$bottom" "$conf/scripts/local-bottom/pvscan-fast"
	img="$T_DIR/initrd.img"
	if PVSCAN_FAST_INITRAMFS_ROOT="$STAGE" mkinitramfs -d "$conf" -o "$img" "$KVER" \
		>"$T_DIR/mkinitramfs.log" 2>&1; then
		t_pass "mkinitramfs with the hook"
		lsinitramfs "$img" | strip_slash | sort -u >"$T_DIR/it.list"
		# shellcheck disable=SC2046
		check_list "$T_DIR/it.list" initramfs-tools $(expect) \
			lib/udev/rules.d/69-pvscan-fast.rules scripts/local-bottom/pvscan-fast \
			lib/udev/rules.d/55-dm.rules lib/udev/rules.d/95-dm-notify.rules
		[ -f /etc/lvm/lvm.conf ] && check_list "$T_DIR/it.list" initramfs-tools etc/lvm/lvm.conf
		check_libs "$T_DIR/it.list" initramfs-tools
		check_dm_mod "$T_DIR/it.list" initramfs-tools
		mkdir "$T_DIR/it"
		if command -v unmkinitramfs >/dev/null 2>&1 && unmkinitramfs "$img" "$T_DIR/it"; then
			root="$T_DIR/it"
			[ -d "$root/main" ] && root="$root/main"
			if grep -q 'local-bottom/pvscan-fast' "$root/scripts/local-bottom/ORDER"; then
				t_pass "initramfs-tools: local-bottom/pvscan-fast runs at boot"
			else
				t_fail "initramfs-tools: local-bottom/pvscan-fast not in ORDER"
			fi
			check_tree "$root" initramfs-tools
			check_wait "$root" initramfs-tools /scripts/local-bottom/pvscan-fast
		else
			t_fail "initramfs-tools: cannot unpack the image"
		fi
	else
		tail -20 "$T_DIR/mkinitramfs.log"
		t_fail "mkinitramfs with the hook"
	fi
else
	echo "# SKIP initramfs-tools half: mkinitramfs or lsinitramfs missing"
fi

if [ $have_dracut -eq 1 ]; then
	# A private dracut base: the system's, with this module beside its own.
	base="$T_DIR/dracut"
	mkdir -p "$base/modules.d" "$T_DIR/dracut.conf.d" "$T_DIR/dracut-tmp"
	for f in /usr/lib/dracut/*; do
		[ "${f##*/}" = modules.d ] || ln -s "$f" "$base/${f##*/}"
	done
	for m in /usr/lib/dracut/modules.d/*; do
		ln -s "$m" "$base/modules.d/${m##*/}"
	done
	ln -s "$dmod" "$base/modules.d/90pvscan-fast"
	: >"$T_DIR/dracut.conf"
	img="$T_DIR/dracut.img"
	if PVSCAN_FAST_INITRAMFS_ROOT="$STAGE" dracutbasedir="$base" dracut --force \
		--conf "$T_DIR/dracut.conf" --confdir "$T_DIR/dracut.conf.d" \
		--tmpdir "$T_DIR/dracut-tmp" --no-hostonly --no-compress --no-early-microcode \
		--modules "base pvscan-fast" --kver "$KVER" "$img" >"$T_DIR/dracut.log" 2>&1; then
		t_pass "dracut with the module"
		# ls -l style lines: the name is the last field once a link's target is cut off
		lsinitrd "$img" 2>"$T_DIR/lsinitrd.err" | sed -e 's/ -> .*//' |
			awk 'NF { print $NF }' | strip_slash | sort -u >"$T_DIR/dracut.list"
		# shellcheck disable=SC2046
		check_list "$T_DIR/dracut.list" dracut $(expect) \
			etc/udev/rules.d/69-pvscan-fast.rules \
			lib/dracut/hooks/pre-pivot/30-pvscan-fast-wait.sh \
			lib/dracut/hooks/cmdline/30-parse-pvscan-fast.sh
		check_libs "$T_DIR/dracut.list" dracut
		check_dm_mod "$T_DIR/dracut.list" dracut
		mkdir "$T_DIR/dr"
		if (cd "$T_DIR/dr" && cpio -id --quiet <"$img"); then
			check_tree "$T_DIR/dr" dracut
			check_wait "$T_DIR/dr" dracut /bin/sh -c \
				'. /lib/dracut-lib.sh; . /lib/dracut/hooks/pre-pivot/30-pvscan-fast-wait.sh'
		else
			t_fail "dracut: cannot unpack the image"
		fi
	else
		tail -20 "$T_DIR/dracut.log"
		t_fail "dracut with the module"
	fi
else
	echo "# SKIP dracut half: dracut (dracut-core) or lsinitrd missing"
fi

t_done
