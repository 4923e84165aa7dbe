#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The Debian package: `make deb` builds it (dpkg-buildpackage -us -uc -b, from a distdir copy:
# the source tree is left as it was); lintian reports no error and no warning; it holds
# exactly the expected files, none of them one of lvm2's, with the version configure has and
# lvm2, libdevmapper and libaio among its dependencies. Then, as root, its life on a copy of
# this host (an overlay over /, in a private mount namespace, entered with chroot; the real
# dpkg, systemctl and the maintainer scripts, with update-initramfs, dracut and mandb stood
# in for): install (pvscan-fast's rule masked, lvm2's in charge, nothing else of the host's
# changed), switch on, on again, off, on, remove (lvm2's rule back, the initramfs rebuilt),
# purge (nothing of pvscan-fast's left in /etc or /var/lib; the admin's own rule untouched).
#
# It takes minutes (a whole build), so it is not in make check: `make check-deb` runs it.
# PVSCAN_FAST_DEB=FILE tests that .deb instead of building one.
. "$(dirname "$0")/../lib/test-lib.sh"

for c in dpkg-buildpackage lintian dpkg-deb; do
	command -v "$c" >/dev/null 2>&1 || t_skip "needs $c (scripts/bootstrap installs them)"
done
dpkg-checkbuilddeps "$top_srcdir/debian/control" >/dev/null 2>&1 ||
	t_skip "build dependencies missing: $(dpkg-checkbuilddeps "$top_srcdir/debian/control" 2>&1)"

T_DIR=$(mktemp -d "${TMPDIR:-/tmp}/pvscan-fast-deb.XXXXXX") || exit 1
trap t_cleanup EXIT
trap 'exit 130' INT TERM HUP PIPE

version=$(t_make_var VERSION)
deb=${PVSCAN_FAST_DEB:-}
if [ -z "$deb" ]; then
	before=$(cd "$top_srcdir" && git status --porcelain 2>/dev/null)
	if make -C "$top_builddir" deb PF_DEB_DIR="$T_DIR/deb" >"$T_DIR/build.log" 2>&1; then
		t_pass "make deb"
	else
		tail -30 "$T_DIR/build.log"
		t_fail "make deb"
		t_done
		exit 1
	fi
	deb=$(ls "$T_DIR/deb"/pvscan-fast_*.deb 2>/dev/null | head -n 1)
	if [ "$(cd "$top_srcdir" && git status --porcelain 2>/dev/null)" = "$before" ]; then
		t_pass "make deb leaves the source tree as it was"
	else
		t_fail "make deb changed the source tree: $(cd "$top_srcdir" && git status --porcelain)"
	fi
fi
case "$deb" in
*/pvscan-fast_"$version"_*.deb) [ -f "$deb" ] && t_pass "the .deb: ${deb##*/}" ;;
*) t_fail "no pvscan-fast_${version}_*.deb from make deb: '$deb'"; t_done; exit 1 ;;
esac

# lintian as the build leaves it: the .changes when there is one (binary and dbgsym together).
changes=$(ls "${deb%/*}"/pvscan-fast_"$version"_*.changes 2>/dev/null | head -n 1)
lintian --fail-on none --info --display-info "${changes:-$deb}" >"$T_DIR/lintian" 2>&1
sed 's/^/#   lintian: /' "$T_DIR/lintian"
if grep -q '^[EW]: ' "$T_DIR/lintian"; then
	t_fail "lintian: errors or warnings"
else
	t_pass "lintian: no error, no warning"
fi

# The content, exactly.
dpkg-deb -c "$deb" | awk '{ p = $6; sub(/^\./, "", p); if ($1 !~ /^d/) print p }' |
	LC_ALL=C sort >"$T_DIR/content"
LC_ALL=C sort >"$T_DIR/expected" <<'EOF'
/lib/systemd/system/pvscan-fast-recover.service
/lib/udev/rules.d/69-pvscan-fast.rules
/usr/lib/dracut/modules.d/90pvscan-fast/module-setup.sh
/usr/lib/dracut/modules.d/90pvscan-fast/parse-pvscan-fast.sh
/usr/lib/dracut/modules.d/90pvscan-fast/pvscan-fast-wait.sh
/usr/libexec/pvscan-fast/pvscan-fast-engine
/usr/sbin/pvscan-fast
/usr/sbin/pvscan-fast-switch
/usr/share/bash-completion/completions/pvscan-fast
/usr/share/bash-completion/completions/pvscan-fast-switch
/usr/share/doc/pvscan-fast/changelog.gz
/usr/share/doc/pvscan-fast/copyright
/usr/share/initramfs-tools/hooks/pvscan-fast
/usr/share/initramfs-tools/scripts/local-bottom/pvscan-fast
/usr/share/lintian/overrides/pvscan-fast
/usr/share/man/man8/pvscan-fast-switch.8.gz
/usr/share/man/man8/pvscan-fast.8.gz
EOF
if cmp -s "$T_DIR/expected" "$T_DIR/content"; then
	t_pass "content: the command, engine, rule, man pages, hook, dracut module, unit, switch, completion"
else
	t_fail "content differs from the expected list"
	diff "$T_DIR/expected" "$T_DIR/content" | sed 's/^/#   /'
fi
sed 's/^/#   deb: /' "$T_DIR/content"

# None of lvm2's files, with /lib and /usr/lib taken as one (merged /usr).
if dpkg-query -W lvm2 >/dev/null 2>&1; then
	dpkg -L lvm2 | sed 's|^/usr/lib/|/lib/|; s|^/usr/sbin/|/sbin/|' | LC_ALL=C sort -u >"$T_DIR/lvm2"
	sed 's|^/usr/lib/|/lib/|; s|^/usr/sbin/|/sbin/|' "$T_DIR/content" | LC_ALL=C sort -u |
		comm -12 - "$T_DIR/lvm2" >"$T_DIR/shared"
	if [ -s "$T_DIR/shared" ]; then
		t_fail "ships lvm2's files: $(tr '\n' ' ' <"$T_DIR/shared")"
	else
		t_pass "ships none of lvm2's files"
	fi
else
	echo "# SKIP lvm2's files: lvm2 is not installed"
fi

fields=$(dpkg-deb -f "$deb" Version Depends)
case "$fields" in
*"Version: $version"*) t_pass "version $version, as configure's" ;;
*) t_fail "version is not configure's $version: $fields" ;;
esac
for d in lvm2 libdevmapper libaio; do
	case "$fields" in
	*"$d"*) t_pass "depends on $d" ;;
	*) t_fail "no dependency on $d: $fields" ;;
	esac
done

# --- install, switch, remove, purge on an overlay copy of this host
cycle_skip() {
	echo "# SKIP install cycle: $*"
	t_done
	exit $?
}
[ "$(id -u)" -eq 0 ] || cycle_skip "needs root"
command -v unshare >/dev/null 2>&1 || cycle_skip "needs unshare"
dpkg-query -W lvm2 >/dev/null 2>&1 || cycle_skip "needs lvm2 installed (the package depends on it)"
[ "$(findmnt -n -o TARGET -T /usr)" = / ] || cycle_skip "/usr is not on the root file system"
if dpkg-query -W pvscan-fast >/dev/null 2>&1; then
	cycle_skip "pvscan-fast is installed on this host"
fi

cp "$deb" "$T_DIR/pvscan-fast.deb"
cat >"$T_DIR/cycle.sh" <<'EOF'
# Runs in a private mount namespace: every mount goes with it.
set -u
T=$1
. "$2"
R="$T/root"
mkdir -p "$T/t" "$R"
mount -t tmpfs tmpfs "$T/t" || { echo "FAIL: tmpfs"; exit 1; }
mkdir -p "$T/t/upper" "$T/t/work"
mount -t overlay overlay -o "lowerdir=/,upperdir=$T/t/upper,workdir=$T/t/work" "$R" ||
	{ echo "SKIP: no overlay of /"; exit 77; }
mount -t proc proc "$R/proc"
mount --bind /dev "$R/dev"
# No udevd, no systemd as PID 1 inside: the switch reloads nothing, systemctl works offline.
mount -t tmpfs tmpfs "$R/run"
mount -t tmpfs tmpfs "$R/tmp"
cp "$T/pvscan-fast.deb" "$R/tmp/"
calls=/var/log/pf-calls
for c in /usr/sbin/update-initramfs /usr/bin/dracut /usr/bin/mandb; do
	[ -e "$R$c" ] || continue
	printf '#!/bin/sh\necho "%s $*" >>%s\n' "${c##*/}" "$calls" >"$R$c"
	chmod 755 "$R$c"
done
: >"$R$calls"
echo '# the admin' >"$R/etc/udev/rules.d/99-admin.rules"

in_root() {
	chroot "$R" env DEBIAN_FRONTEND=noninteractive PATH=/usr/sbin:/usr/bin:/sbin:/bin "$@" \
		>"$T/out" 2>&1
}
show() {
	sed 's/^/#   /' "$T/out"
}
null_link() {
	[ -L "$R$1" ] && [ "$(readlink "$R$1")" = /dev/null ]
}
L=/etc/udev/rules.d
lvm2_rule=69-lvm.rules
[ -e "$R/lib/udev/rules.d/69-dm-lvm.rules" ] && lvm2_rule=69-dm-lvm.rules
unit_on() {
	chroot "$R" systemctl is-enabled --quiet pvscan-fast-recover.service 2>/dev/null
}
rebuilt() { # rebuilt: update-initramfs ran since the last call
	_n=$(grep -c '^update-initramfs' "$R$calls")
	_was=${rebuilds:-0}
	rebuilds=$_n
	[ "$_n" -gt "$_was" ]
}
step() { # step WHAT COMMAND...: the command's exit 0, else fail with its output
	_what=$1
	shift
	if in_root "$@"; then
		t_pass "$_what"
	else
		t_fail "$_what"
		show
	fi
}
check() {
	_what=$1
	shift
	if "$@"; then t_pass "$_what"; else t_fail "$_what"; show; fi
}

step "dpkg -i" dpkg -i /tmp/pvscan-fast.deb
check "installed: pvscan-fast's rule masked" null_link "$L/69-pvscan-fast.rules"
check "installed: lvm2's rule not masked" eval "[ ! -e '$R$L/$lvm2_rule' ] && [ ! -L '$R$L/$lvm2_rule' ]"
check "installed: the recovery unit not enabled" eval '! unit_on'
step "installed: status says lvm2's rule, switch off" pvscan-fast-switch status
check "installed: status text" grep -qx "rule in charge: lvm2's" "$T/out"
rebuilt || true

step "switch on" pvscan-fast-switch on
check "on: lvm2's rule masked, pvscan-fast's not" \
	eval "null_link $L/$lvm2_rule && [ ! -e '$R$L/69-pvscan-fast.rules' ]"
check "on: the recovery unit enabled" unit_on
check "on: the initramfs rebuilt" rebuilt
step "on: status exit 0" pvscan-fast-switch status
check "on: status says pvscan-fast's rule" grep -qx "rule in charge: pvscan-fast's.*" "$T/out"
step "on again" pvscan-fast-switch on
check "on again: no rebuild" eval '! rebuilt'

step "switch off" pvscan-fast-switch off
check "off: lvm2's rule unmasked, pvscan-fast's masked" \
	eval "[ ! -L '$R$L/$lvm2_rule' ] && null_link $L/69-pvscan-fast.rules"
check "off: the recovery unit disabled" eval '! unit_on'
check "off: the initramfs rebuilt" rebuilt
step "off: status exit 0" pvscan-fast-switch status

step "on before the remove" pvscan-fast-switch on
rebuilt || true
step "dpkg -r" dpkg -r pvscan-fast
check "removed: lvm2's rule in charge (its mask gone)" eval "[ ! -L '$R$L/$lvm2_rule' ]"
check "removed: the initramfs rebuilt" rebuilt
check "removed: the command is gone" eval "[ ! -e '$R/usr/sbin/pvscan-fast' ]"
check "removed: the recovery unit's enablement gone" \
	eval "[ -z \"\$(find '$R/etc/systemd' -name pvscan-fast-recover.service)\" ]"

step "dpkg -P" dpkg -P pvscan-fast
check "purged: nothing named pvscan-fast left in /etc or /var/lib (dpkg's own records aside)" \
	eval "[ -z \"\$(find '$R/etc' '$R/var/lib' -path '$R/var/lib/dpkg' -prune -o \
		-name '*pvscan-fast*' -print)\" ]"
check "purged: the state directory gone" eval "[ ! -e '$R/var/lib/pvscan-fast' ]"
check "purged: the admin's own rule untouched" grep -qx '# the admin' "$R$L/99-admin.rules"
check "purged: lvm2's rule in /etc as before the install" \
	eval "[ ! -e '$R$L/$lvm2_rule' ] && [ ! -L '$R$L/$lvm2_rule' ]"
sed 's/^/#   called: /' "$R$calls"
t_done
EOF
unshare -m --propagation private sh "$T_DIR/cycle.sh" "$T_DIR" "$top_srcdir/tests/lib/test-lib.sh" \
	>"$T_DIR/cycle.log" 2>&1
rc=$?
cat "$T_DIR/cycle.log"
case $rc in
0) t_pass "install, switch on, off, remove, purge" ;;
77) echo "# SKIP install cycle: $(grep '^SKIP' "$T_DIR/cycle.log")" ;;
*) t_fail "install, switch on, off, remove, purge (see above)" ;;
esac
t_done
