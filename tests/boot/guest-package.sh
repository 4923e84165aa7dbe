# shellcheck shell=sh
# SPDX-License-Identifier: GPL-2.0-or-later
# boot-package.sh's checks and steps in the real root: sourced by boot-check.sh (as
# /etc/pf-boot/check.d/package.sh) once its own checks are done, with pass, fail and $mode.
# pf-boot.step=N on the kernel command line says which boot of the cycle this is:
#   1  lvm2's stock path, pvscan-fast not installed: dpkg -i the .deb, lvm2's rule still in
#      charge, then pvscan-fast-switch on
#   2  pvscan-fast in charge (its rule in the booted initramfs, --status exit 0 naming every
#      VG): pvscan-fast-switch off
#   3  lvm2 in charge again: dpkg --purge pvscan-fast
#   4  lvm2 in charge: nothing of pvscan-fast's in /etc, /usr, /var/lib or the initramfs
# Every boot: lvm2's own pvscan, as its udev rule runs it, finds /run/lvm already saying what
# it would say (run on a copy of /run/lvm in a private mount namespace: it adds nothing,
# prints nothing, exits 0), and the pvs_online and vgs_online files are exactly the PVs and
# VGs lvm2's pvs reports, each PV's file naming its device number and VG.

: "${mode:=unknown}"
pk_step=0
for w in $(cat /proc/cmdline); do
	case $w in pf-boot.step=*) pk_step=${w#pf-boot.step=} ;; esac
done
pk_kv=$(uname -r)
pk_out=/tmp/pk.out

# pk_run WHAT COMMAND...: the command's exit 0 (its output to $pk_out), else fail with it
pk_run() {
	_w=$1
	shift
	if "$@" >"$pk_out" 2>&1; then
		pass "step $pk_step: $_w"
	else
		fail "step $pk_step: $_w (exit $?)"
		sed 's/^/LOG /' "$pk_out" | tail -n 40
	fi
}

# The PVs as lvm2 reports them: device, PVID without dashes, VG.
pvs --noheadings -o pv_name,pv_uuid,vg_name 2>/dev/null |
	awk '{ gsub(/-/, "", $2); print $1, $2, $3 }' | LC_ALL=C sort >/tmp/pk.pvs
echo "INFO step $pk_step: $(wc -l </tmp/pk.pvs) PVs, mode $mode"

# lvm2's per-device form of its udev rule against a private copy of /run/lvm.
cat >/tmp/pk-pvscan.sh <<'EOT'
set -u
mkdir -p /tmp/pk-run
mount -t tmpfs tmpfs /tmp/pk-run || exit 90
cp -a /run/lvm/. /tmp/pk-run/ || exit 91
mount --bind /tmp/pk-run /run/lvm || exit 92
rc=0
while read -r dev pvid vg; do
	out=$(lvm pvscan --cache --listvg --checkcomplete --vgonline --autoactivation event \
		--udevoutput "$dev" 2>/tmp/pk-pvscan.err)
	r=$?
	echo "$dev $r ${out:-(nothing)}"
	[ "$r" -eq 0 ] && [ -z "$out" ] || rc=1
done </tmp/pk.pvs
exit $rc
EOT
(cd /run/lvm && find . -type f -exec sh -c 'for f; do echo "$f $(cat "$f" | tr "\n" " ")"; done' \
	sh {} + | LC_ALL=C sort) >/tmp/pk.before
if unshare -m --propagation private sh /tmp/pk-pvscan.sh >/tmp/pk.pvscan 2>&1; then
	pass "step $pk_step: lvm2's pvscan --cache --listvg --checkcomplete --vgonline --udevoutput" \
		"per PV: each VG already complete and online, nothing printed"
else
	fail "step $pk_step: lvm2's pvscan per PV disagrees with /run/lvm"
	sed 's/^/LOG /' /tmp/pk.pvscan /tmp/pk-pvscan.err 2>/dev/null | head -n 40
fi
(cd /run/lvm && find . -type f -exec sh -c 'for f; do echo "$f $(cat "$f" | tr "\n" " ")"; done' \
	sh {} + | LC_ALL=C sort) >/tmp/pk.after
if cmp -s /tmp/pk.before /tmp/pk.after; then
	pass "step $pk_step: /run/lvm untouched by the private pvscan"
else
	fail "step $pk_step: /run/lvm changed while lvm2's pvscan ran on a copy"
	diff /tmp/pk.before /tmp/pk.after | sed 's/^/LOG /' | head -n 20
fi

# pvs_online and vgs_online: exactly lvm2's PVs and VGs, each PV's file with its device and VG.
pk_bad=""
while read -r dev pvid vg; do
	f=/run/lvm/pvs_online/$pvid
	devno=$(cat "/sys/class/block/$(basename "$(readlink -f "$dev")")/dev" 2>/dev/null)
	if [ ! -f "$f" ]; then
		pk_bad="$pk_bad $dev:no-file"
	elif [ "$(head -n 1 "$f")" != "$devno" ] || ! grep -qx "vg:$vg" "$f"; then
		pk_bad="$pk_bad $dev:$(tr '\n' ' ' <"$f")"
	fi
done </tmp/pk.pvs
cut -d' ' -f2 /tmp/pk.pvs | LC_ALL=C sort >/tmp/pk.want-pvs
cut -d' ' -f3 /tmp/pk.pvs | LC_ALL=C sort -u >/tmp/pk.want-vgs
ls /run/lvm/pvs_online 2>/dev/null | LC_ALL=C sort >/tmp/pk.have-pvs
ls /run/lvm/vgs_online 2>/dev/null | LC_ALL=C sort >/tmp/pk.have-vgs
if [ -n "$pk_bad" ]; then
	fail "step $pk_step: pvs_online files disagree with pvs:$pk_bad"
elif ! cmp -s /tmp/pk.want-pvs /tmp/pk.have-pvs || ! cmp -s /tmp/pk.want-vgs /tmp/pk.have-vgs; then
	fail "step $pk_step: /run/lvm's pvs_online/vgs_online are not pvs's PVs and VGs"
	diff /tmp/pk.want-pvs /tmp/pk.have-pvs | sed 's/^/LOG pvs_online: /'
	diff /tmp/pk.want-vgs /tmp/pk.have-vgs | sed 's/^/LOG vgs_online: /'
else
	pass "step $pk_step: pvs_online and vgs_online are pvs's $(wc -l </tmp/pk.have-pvs) PVs" \
		"and $(wc -l </tmp/pk.have-vgs) VGs, each PV's file with its device and VG"
fi

# Who was in charge, by what the boot left: pvscan-fast's run directory and --status, the
# booted initramfs's content, the switch's own answer.
lsinitramfs -l "/boot/initrd.img-$pk_kv" >/tmp/pk.initrd-l 2>&1
awk '{ print $NF }' /tmp/pk.initrd-l >/tmp/pk.initrd
if [ "$mode" = pvscan-fast ]; then
	if grep -qx 'usr/sbin/pvscan-fast' /tmp/pk.initrd &&
		grep -qx 'usr/lib/udev/rules.d/69-pvscan-fast.rules' /tmp/pk.initrd; then
		pass "step $pk_step: the booted initramfs holds pvscan-fast and its rule"
	else
		fail "step $pk_step: the booted initramfs has no pvscan-fast or no rule of it"
	fi
	# the switch's mask of lvm2's rule, copied by lvm2's hook as an empty file
	if awk '$NF ~ /\/69-lvm\.rules$/ && $5 != 0 { bad = 1 } END { exit bad }' /tmp/pk.initrd-l
	then
		pass "step $pk_step: lvm2's rule in the booted initramfs is empty (masked)"
	else
		fail "step $pk_step: lvm2's rule in the booted initramfs is not masked"
	fi
	pk_run "pvscan-fast --status: exit 0" pvscan-fast --status
	sed 's/^/INFO status: /' "$pk_out" | head -n 20
	pk_miss=""
	for vg in $(cat /tmp/pk.want-vgs); do
		grep -qw "$vg" "$pk_out" || pk_miss="$pk_miss $vg"
	done
	if [ -z "$pk_miss" ]; then
		pass "step $pk_step: --status names every VG"
	else
		fail "step $pk_step: --status does not name:$pk_miss"
	fi
	pk_run "pvscan-fast-switch status: exit 0" pvscan-fast-switch status
	if grep -q "^rule in charge: pvscan-fast's" "$pk_out"; then
		pass "step $pk_step: the switch says pvscan-fast's rule is in charge"
	else
		fail "step $pk_step: the switch says: $(head -n 1 "$pk_out")"
	fi
else
	if [ -e /run/lvm/pvscan-fast ]; then
		fail "step $pk_step: /run/lvm/pvscan-fast exists: pvscan-fast ran at boot"
	else
		pass "step $pk_step: no /run/lvm/pvscan-fast: lvm2's rule did the work"
	fi
	# Switched off with the package installed, initramfs-tools still copies its local-bottom
	# script (which does nothing without the command); once purged nothing of it is left.
	pk_ours='usr/(sbin|libexec/pvscan-fast)/pvscan-fast.*|.*/69-pvscan-fast\.rules'
	[ "$pk_step" -lt 4 ] || pk_ours='.*pvscan-fast.*'
	if grep -Eqx "$pk_ours" /tmp/pk.initrd || ! grep -q '/69-lvm\.rules$' /tmp/pk.initrd; then
		fail "step $pk_step: the booted initramfs holds pvscan-fast or lacks lvm2's rule"
		grep -E 'pvscan-fast|69-lvm' /tmp/pk.initrd | sed 's/^/LOG /'
	else
		pass "step $pk_step: the booted initramfs has lvm2's rule and nothing of pvscan-fast's" \
			"$([ "$pk_step" -lt 4 ] || echo at all)"
	fi
	if command -v pvscan-fast-switch >/dev/null 2>&1; then
		pk_run "pvscan-fast-switch status: exit 0" pvscan-fast-switch status
		if grep -q "^rule in charge: lvm2's" "$pk_out"; then
			pass "step $pk_step: the switch says lvm2's rule is in charge"
		else
			fail "step $pk_step: the switch says: $(head -n 1 "$pk_out")"
		fi
	fi
fi

export DEBIAN_FRONTEND=noninteractive
case $pk_step in
1)
	if dpkg-query -W pvscan-fast >/dev/null 2>&1; then
		fail "step 1: pvscan-fast is installed before the install"
	fi
	pk_run "dpkg -i pvscan-fast.deb" dpkg -i /root/pvscan-fast.deb
	sed 's/^/INFO dpkg: /' "$pk_out"
	pk_run "installed: pvscan-fast-switch status exit 0" pvscan-fast-switch status
	if grep -q "^rule in charge: lvm2's" "$pk_out" && [ ! -e /etc/udev/rules.d/69-lvm.rules ]; then
		pass "step 1: installed, lvm2's rule still in charge"
	else
		fail "step 1: installed, the switch says: $(head -n 1 "$pk_out")"
	fi
	pk_run "pvscan-fast-switch on" pvscan-fast-switch on
	sed 's/^/INFO on: /' "$pk_out"
	;;
2)
	pk_run "pvscan-fast-switch off" pvscan-fast-switch off
	sed 's/^/INFO off: /' "$pk_out"
	;;
3)
	pk_run "dpkg --purge pvscan-fast" dpkg --purge pvscan-fast
	sed 's/^/INFO purge: /' "$pk_out"
	;;
4)
	if dpkg-query -W pvscan-fast >/dev/null 2>&1; then
		fail "step 4: dpkg still knows pvscan-fast: $(dpkg-query -W -f='${Status}' pvscan-fast)"
	else
		pass "step 4: dpkg knows no pvscan-fast"
	fi
	find /etc /usr /var/lib -name '*pvscan-fast*' >/tmp/pk.left 2>/dev/null
	ls /etc/udev/rules.d >>/tmp/pk.left 2>/dev/null
	if [ -s /tmp/pk.left ]; then
		fail "step 4: left after the purge: $(tr '\n' ' ' </tmp/pk.left)"
	else
		pass "step 4: nothing of pvscan-fast's in /etc, /usr, /var/lib; /etc/udev/rules.d empty"
	fi
	;;
esac
# What the steps wrote (the initramfs in /boot, dpkg's database) is on the disks before the
# check powers the machine off.
sync
