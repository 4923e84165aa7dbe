#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The real root of the boot tests, assembled from the host's own installed packages: no
# network, no mirror. The files dpkg lists for a closure of packages (systemd as init, udev,
# lvm2, the tools the check needs) are copied into a directory, with the host's accounts, a
# few kernel modules and a systemd setup that starts only what a storage server's boot needs.
#
# usage: mkroot.sh CACHEDIR KVER [--dpkg]
# Prints the tree's path, CACHEDIR/root-KEY (root-dpkg-KEY with --dpkg), where KEY covers this
# script, the packages' versions and the kernel: an unchanged host reuses the tree. The tree is
# read, never changed, by the boots (each makes its own hard-linked copy).
# --dpkg: a root that installs packages and builds its own initramfs: dpkg, initramfs-tools
# and what they need join the closure, with dpkg's database of the closure's packages (their
# status, file lists, maintainer scripts, the triggers they are interested in).
set -eu

cache=$1
kver=$2
flavour=""
PKGS="systemd systemd-sysv udev libc6 coreutils bash dash util-linux mount kmod e2fsprogs lvm2
dmsetup libaio1 libdevmapper1.02.1 grep sed gawk mawk findutils procps mdadm cryptsetup-bin
multipath-tools kpartx"
if [ "${3:-}" = --dpkg ]; then
	flavour=dpkg-
	# libc-bin: ldd and ldconfig for mkinitramfs; perl-base (essential, so no package names
	# it) for debconf and deb-systemd-helper; diffutils (essential) for dpkg; busybox-static:
	# the initramfs's shell; multipath-tools-boot: multipath in the initramfs the guest
	# builds (the host's images get it through their own hook), or a multipath LUN's two
	# paths are two disks there
	PKGS="$PKGS dpkg init-system-helpers initramfs-tools linux-base libc-bin
perl-base diffutils cpio lz4 busybox-static multipath-tools-boot"
fi
# Modules the real root may load itself: dm targets lvm2 asks for, the file systems and disks
# (the initramfs loaded them already; udev's modprobe in the root finds them loaded).
MODS="virtio_pci virtio_scsi sd_mod ext4 dm_mod dm_snapshot dm_mirror dm_zero autofs4 raid1
dm_crypt xts aes_generic dm_multipath dm_round_robin dm_service_time scsi_dh_alua"

# The closure over Pre-Depends and Depends among installed packages; of alternatives, the
# first installed one. One dpkg-query for all: one per package costs seconds.
closure() {
	dpkg-query -W -f='${Package}\t${Status}\t${Version}\t${Pre-Depends}, ${Depends}\n' |
		awk -F'\t' -v want="$PKGS" '
		$2 ~ /ok installed$/ { ver[$1] = $3; dep[$1] = $4 }
		END {
			n = split(want, todo, /[ \n]+/)
			while (n > 0) {
				p = todo[n--]
				if (p == "" || (p in seen) || !(p in ver)) continue
				seen[p] = 1
				print p, ver[p]
				m = split(dep[p], alts, /,/)
				for (i = 1; i <= m; i++) {
					k = split(alts[i], a, /\|/)
					for (j = 1; j <= k; j++) {
						q = a[j]
						sub(/\(.*/, "", q); sub(/:any/, "", q); gsub(/[ \t]/, "", q)
						if (q in ver) { todo[++n] = q; break }
					}
				}
			}
		}' | LC_ALL=C sort
}

# A package missing on the host would leave a root that cannot boot, and say so only then.
miss=""
for p in $PKGS; do
	case $p in gawk | mawk) continue ;; esac
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed$' || miss="$miss $p"
done
if [ -n "$miss" ]; then
	echo "mkroot.sh: not installed on this host:$miss (scripts/bootstrap installs them)" >&2
	exit 1
fi
pkgs=$(closure)
key=$({ cat "$0"; echo "$pkgs"; echo "$kver"; } | cksum | cut -d' ' -f1)
tree=$cache/root-$flavour$key
if [ -d "$tree" ]; then
	echo "$tree"
	exit 0
fi

mkdir -p "$cache"
tmp=$(mktemp -d "$cache/root.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM
r=$tmp/tree
mkdir -p "$r/usr/bin" "$r/usr/sbin" "$r/usr/lib" "$r/usr/lib64" "$r/etc" "$r/proc" "$r/sys" \
	"$r/dev" "$r/run" "$r/tmp" "$r/root" "$r/var/log" "$r/var/tmp" "$r/mnt" "$r/srv"
chmod 1777 "$r/tmp" "$r/var/tmp"
# Debian 12 has merged /usr: dpkg lists /bin/x for what lives in /usr/bin/x.
for d in bin sbin lib lib64; do
	ln -s "usr/$d" "$r/$d"
done

# Files and links, not directories (tar makes those), without documentation.
echo "$pkgs" | cut -d' ' -f1 | xargs dpkg-query -L 2>/dev/null | LC_ALL=C sort -u |
	grep -Ev '^/usr/share/(doc|man|info|locale|lintian|bug)/' |
	while read -r f; do
		if [ -L "$f" ] || [ -f "$f" ]; then
			echo "${f#/}"
		fi
	done >"$tmp/files"
tar -C / -cf - --no-recursion -T "$tmp/files" |
	tar -C "$r" -xf - --keep-directory-symlink
# Alternatives (awk, pager, ...) are links update-alternatives made, not in dpkg's lists: the
# host's, where the tree has what they point to.
mkdir -p "$r/etc/alternatives"
for a in /etc/alternatives/*; do
	t=$(readlink -f "$a") || continue
	[ ! -e "$r$t" ] || cp -P "$a" "$r/etc/alternatives/"
done
for l in /usr/bin/* /usr/sbin/*; do
	[ -L "$l" ] || continue
	case $(readlink "$l") in
	/etc/alternatives/*) [ ! -L "$r$(readlink "$l")" ] || cp -P "$l" "$r$l" ;;
	esac
done
for f in passwd group shadow gshadow ld.so.cache; do
	[ ! -e "/etc/$f" ] || cp -p "/etc/$f" "$r/etc/$f"
done

for m in $MODS; do
	modprobe -S "$kver" --show-depends "$m"
done | awk '$1 == "insmod" { print substr($2, 2) }' | LC_ALL=C sort -u >"$tmp/mods"
tar -C / -cf - -T "$tmp/mods" | tar -C "$r" -xf - --keep-directory-symlink
for f in modules.order modules.builtin modules.builtin.modinfo; do
	cp "/lib/modules/$kver/$f" "$r/lib/modules/$kver/$f"
done
depmod -b "$r" "$kver"

echo pf-boot >"$r/etc/hostname"
printf '127.0.0.1\tlocalhost pf-boot\n' >"$r/etc/hosts"
echo 5f2b0e0c1e6a4a38a7f3b5c0d9e8f701 >"$r/etc/machine-id"
ln -sf /usr/share/zoneinfo/Etc/UTC "$r/etc/localtime" 2>/dev/null || true

# systemd: only what a storage server's boot needs, and nothing that waits for a network, a
# terminal or a D-Bus this root has not got.
u=$r/etc/systemd/system
mkdir -p "$u" "$r/etc/systemd/journald.conf.d"
for unit in getty@tty1.service serial-getty@ttyS0.service getty.target \
	systemd-logind.service lvm2-monitor.service lvm2-lvmpolld.socket dm-event.socket \
	e2scrub_reap.service e2scrub_all.timer fstrim.timer systemd-timesyncd.service \
	systemd-firstboot.service systemd-random-seed.service systemd-update-utmp.service \
	systemd-update-utmp-runlevel.service systemd-pstore.service systemd-journal-flush.service \
	systemd-binfmt.service proc-sys-fs-binfmt_misc.automount sys-kernel-config.mount \
	sys-kernel-debug.mount sys-kernel-tracing.mount sys-fs-fuse-connections.mount \
	dev-hugepages.mount dev-mqueue.mount systemd-hwdb-update.service \
	systemd-ask-password-console.path systemd-ask-password-wall.path \
	systemd-tmpfiles-clean.timer apt-daily.timer apt-daily-upgrade.timer man-db.timer \
	dpkg-db-backup.timer logrotate.timer; do
	ln -sf /dev/null "$u/$unit"
done
# Generators cost seconds under TCG each boot; of theirs only fstab's and crypttab's units
# are wanted here.
mkdir -p "$r/etc/systemd/system-generators"
for g in "$r"/usr/lib/systemd/system-generators/*; do
	case ${g##*/} in
	systemd-fstab-generator | systemd-cryptsetup-generator) ;;
	*) ln -sf /dev/null "$r/etc/systemd/system-generators/${g##*/}" ;;
	esac
done
# multipathd as its package enables it (deb-systemd-helper's links are not dpkg's files).
mkdir -p "$u/sysinit.target.wants" "$u/sockets.target.wants"
ln -sf /lib/systemd/system/multipathd.service "$u/sysinit.target.wants/multipathd.service"
ln -sf /lib/systemd/system/multipathd.socket "$u/sockets.target.wants/multipathd.socket"
# The journal stays in memory, every line kept: the check reads udevd's log from it.
printf '[Journal]\nStorage=volatile\nRateLimitBurst=0\n' >"$r/etc/systemd/journald.conf.d/pf-boot.conf"

if [ -n "$flavour" ]; then
	# dpkg's database for the closure alone: the packages' status paragraphs, their info files
	# (lists, maintainer scripts, trigger interests), and of the trigger and diversion tables
	# the entries that name them. Paths on the host are read, never written.
	names=$(echo "$pkgs" | cut -d' ' -f1)
	# the packages' empty directories too (/etc/initramfs-tools/scripts/...): dpkg lists them
	echo "$names" | xargs dpkg-query -L 2>/dev/null | LC_ALL=C sort -u | while read -r f; do
		[ -L "$f" ] || [ ! -d "$f" ] || [ -d "$r$f" ] || mkdir -p "$r$f"
	done
	db=$r/var/lib/dpkg
	mkdir -p "$db/info" "$db/updates" "$db/triggers" "$db/alternatives"
	echo "$names" | awk 'NR == FNR { want[$1] = 1; next }
		/^Package: / { keep = ($2 in want) }
		keep' - /var/lib/dpkg/status >"$db/status"
	# format: the info files' layout (multiarch names), which dpkg does not guess
	cp -p /var/lib/dpkg/info/format "$db/info/format"
	for p in $names; do
		for f in /var/lib/dpkg/info/"$p".* /var/lib/dpkg/info/"$p":*.*; do
			[ ! -e "$f" ] || cp -p "$f" "$db/info/"
		done
	done
	echo "$names" | awk 'NR == FNR { want[$1] = 1; next }
		{ p = $2; sub(/\/noawait$/, "", p); sub(/:.*/, "", p); if (p in want) print }' \
		- /var/lib/dpkg/triggers/File >"$db/triggers/File"
	for t in /var/lib/dpkg/triggers/*; do
		case ${t##*/} in File | Lock | Unincorp) continue ;; esac
		# an explicit trigger: its interested packages, one a line
		echo "$names" | awk 'NR == FNR { want[$1] = 1; next }
			{ p = $1; sub(/\/noawait$/, "", p); sub(/:.*/, "", p); if (p in want) print }' \
			- "$t" >"$db/triggers/${t##*/}"
		[ -s "$db/triggers/${t##*/}" ] || rm -f "$db/triggers/${t##*/}"
	done
	: >"$db/triggers/Unincorp"
	: >"$db/diversions"
	: >"$db/statoverride"
	: >"$db/available"
	cp -p /var/lib/dpkg/arch "$db/arch" 2>/dev/null || true
fi

# One tree at a time: an older one is of a host that has changed since.
for old in "$cache"/root-$flavour[0-9]*; do
	[ ! -d "$old" ] || rm -rf "$old"
done
mv "$r" "$tree"
echo "$tree"
