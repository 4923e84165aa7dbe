# shellcheck shell=sh
# For tests/bench/run-bench-realboot.sh, on the host, beside tests/lib/boot-host.sh (sourced
# first): the benchmark's additions to the boot tests' real roots, the floor's initramfs, and
# one timed boot reduced to a row of results.

# realboot_root_hook TREE MODE (boot-host.sh's BOOT_ROOT_HOOK): the bench report
# (tests/bench/realboot-guest.sh), pf-boot-settle.service, which records when udev has
# settled after the real root's coldplug, and pf-boot-bench-stat.service, CPU and processes
# at multi-user.target; all act only with pf-boot.bench on the kernel command line. The floor's root has lvm2's rule masked: udev alone handles the dm devices the
# initramfs made. TREE's files are hard links into the cache: new files only.
realboot_root_hook() {
	cp "$top_srcdir/tests/bench/realboot-guest.sh" "$1/etc/pf-boot/bench.sh"
	cat >"$1/etc/systemd/system/pf-boot-settle.service" <<-EOT
	[Unit]
	Description=pf-boot bench: when udev has settled after the coldplug
	DefaultDependencies=no
	After=systemd-udev-trigger.service
	ConditionKernelCommandLine=pf-boot.bench
	[Service]
	Type=oneshot
	ExecStart=/bin/sh -c 'udevadm settle --timeout=$BOOT_DEADLINE; cut -d" " -f1 /proc/uptime >/run/pf-boot-settled'
	EOT
	cat >"$1/etc/systemd/system/pf-boot-bench-stat.service" <<-EOT
	[Unit]
	Description=pf-boot bench: CPU time and processes at multi-user.target
	After=multi-user.target
	Before=pf-boot-check.service
	ConditionKernelCommandLine=pf-boot.bench
	[Service]
	Type=oneshot
	ExecStart=/bin/sh /etc/pf-boot/bench.sh --stat
	EOT
	mkdir -p "$1/etc/systemd/system/sysinit.target.wants" \
		"$1/etc/systemd/system/pf-boot.target.wants"
	ln -sf ../pf-boot-settle.service "$1/etc/systemd/system/sysinit.target.wants/"
	ln -sf ../pf-boot-bench-stat.service "$1/etc/systemd/system/pf-boot.target.wants/"
	if [ "$2" = floor ]; then
		mkdir -p "$1/etc/udev/rules.d"
		ln -sf /dev/null "$1/etc/udev/rules.d/69-lvm.rules"
	fi
}

# realboot_floor_tables REPORT DIR: from a boot's report (boot-check.sh's DEV, DM and TABLE
# lines), DIR/concise: every dm device as one `dmsetup create --concise` argument, each disk
# written @H:C:T:L@ (its SCSI address: device numbers follow the scan's order, which changes
# from boot to boot), and DIR/disks: those addresses. 1 when the report has no dm device.
realboot_floor_tables() {
	mkdir -p "$2"
	# the serial port ends the report's lines with CR LF
	tr -d '\r' <"$1" | awk -v disks="$2/disks" '
		$1 == "DEV" { addr[$2] = $3; next }
		$1 == "DM" { uuid[$2] = $3; name[++n] = $2; next }
		$1 == "TABLE" {
			dev = $2
			sub(/:$/, "", dev)
			line = ""
			for (i = 3; i <= NF; i++) {
				f = $i
				if (f in addr) { used[addr[f]] = 1; f = "@" addr[f] "@" }
				line = line (i > 3 ? " " : "") f
			}
			if (dev in tab) line = tab[dev] "," line
			tab[dev] = line
		}
		END {
			for (i = 1; i <= n; i++) {
				printf "%s%s,%s,,rw,%s", (i > 1 ? ";" : ""), name[i], uuid[name[i]], tab[name[i]]
			}
			if (n) printf "\n"
			for (a in used) print a >disks
		}' >"$2/concise"
	[ -s "$2/concise" ]
}

# realboot_floor_image REPORT: $work/floor/initrd-it.img, initramfs-tools's image of lvm2's
# boot (boot_initramfs_tools) with lvm2's rule emptied, and a local-top script that waits for
# every disk of REPORT's tables, then creates every LV in one `dmsetup create --concise` under
# one udev cookie: what udev alone costs for the same dm devices.
realboot_floor_image() {
	_c=$work/floor/it-conf
	mkdir -p "$_c/hooks" "$_c/scripts/local-top"
	realboot_floor_tables "$1" "$_c/pf-floor" || return 1
	cat >"$_c/hooks/pf-floor" <<-'EOT'
	#!/bin/sh
	PREREQ="lvm2 dmsetup udev"
	[ "$1" = prereqs ] && { echo "$PREREQ"; exit 0; }
	: >"$DESTDIR/lib/udev/rules.d/69-lvm.rules"
	mkdir -p "$DESTDIR/etc/pf-floor"
	cp "$CONFDIR/pf-floor/concise" "$CONFDIR/pf-floor/disks" "$DESTDIR/etc/pf-floor/"
	EOT
	cat >"$_c/scripts/local-top/pf-floor" <<-EOT
	#!/bin/sh
	# The benchmark's floor: every LV of an earlier boot, created at once. Its steps go to the
	# kernel log (and the real root's journal).
	[ "\$1" = prereqs ] && { echo ""; exit 0; }
	say() { echo "pf-floor: \$*" >/dev/kmsg; }
	end=\$(( \$(cut -d. -f1 /proc/uptime) + $BOOT_DEADLINE ))
	want=\$(wc -l </etc/pf-floor/disks)
	sed 's/.*/@&@/' /etc/pf-floor/disks >/run/pf-floor.want
	while :; do
		# the disks by SCSI address, as the report named them (/sys/block/sdX/device)
		set -- /sys/block/sd*
		if [ "\$#" -ge "\$want" ]; then
			for b; do
				[ -r "\$b/dev" ] && a=\$(readlink "\$b/device") && read -r d <"\$b/dev" &&
					echo "s/@\${a##*/}@/\$d/g"
			done >/run/pf-floor.sed
			[ "\$(grep -c -F -f /run/pf-floor.want /run/pf-floor.sed)" -lt "\$want" ] || break
		fi
		[ "\$(cut -d. -f1 /proc/uptime)" -lt "\$end" ] ||
			{ say "not every disk came: \$(paste -sd' ' /run/pf-floor.sed)"; exit 0; }
		sleep 0.1
	done
	say "\$(wc -l </etc/pf-floor/disks) disks found"
	c=\$(dmsetup udevcreatecookie)
	DM_UDEV_COOKIE=\$c dmsetup create --concise "\$(sed -f /run/pf-floor.sed /etc/pf-floor/concise)" ||
		say "dmsetup create --concise failed"
	say "dm devices created, waiting for udev (cookie \$c)"
	dmsetup udevreleasecookie "\$c"
	say "udev done with them"
	EOT
	chmod 755 "$_c/hooks/pf-floor" "$_c/scripts/local-top/pf-floor"
	boot_initramfs_tools floor
}

# realboot_boot NAME MODE INITRD LIST WORDS: one boot of the disks in LIST (boot.sh) with
# pf-boot.bench; its report, boot.sh's output and the console kept in $rb_out/NAME; one line
# appended to $rb_results:
#   N NAME status root-mounted lvs-active multi-user default-target settled cpu processes
#   udev-bad wall
# status "ok", or why the boot failed; "-" for what the boot did not get to.
# BOOT_APPEND: more words for every boot's kernel command line (pf-boot.journal: the real
# root's journal and pvscan-fast's records in the report).
realboot_boot() {
	_o=$rb_out/$1
	rm -rf "$_o"
	mkdir -p "$_o"
	sh "$top_srcdir/tests/boot/boot.sh" --initrd "$3" --disks "$4" --out "$work/$1" \
		--deadline "$BOOT_DEADLINE" --mem "${REALBOOT_MEM:-1024}" \
		--append "root=/dev/mapper/vgroot-root rw $5 pf-boot.bench ${BOOT_APPEND:-}" \
		>"$_o/boot.out" 2>&1
	_rc=$?
	tr -d '\r' <"$work/$1/report.log" >"$_o/report.log"
	cp "$work/$1/console.log" "$_o/" 2>/dev/null
	if [ "$_rc" -eq 0 ]; then
		_st=ok
	else
		_st=$(sed -n 's/^boot.sh: FAIL: \(.*\) (wall.*/\1/p; s/^boot.sh: SKIP: /skipped: /p' \
			"$_o/boot.out" | head -n 1)
		_f=$(sed -n 's/^FAIL //p' "$_o/report.log" | head -n 2 | paste -sd';')
		[ -z "$_f" ] || _st="$_st: $_f"
		[ -n "$_st" ] || _st="boot.sh exit $_rc"
	fi
	tr -d '\r' <"$work/$1/report.log" | awk -v n="$BOOT_N" -v name="$1" -v st="$_st" '
		function v(k) { return (k in t) ? t[k] : "-" }
		$1 == "TIME" { t[$2] = $3 }
		$1 == "BENCH" && ($2 == "cpu" || $2 == "processes" || $2 == "settled") { t[$2] = $3 }
		$1 == "WALL" { t["wall"] = $2 }
		/^PASS no udev worker killed/ { t["udev"] = 0 }
		/^FAIL udev workers killed or timed out:/ { t["udev"] = $(NF - 1) }
		END {
			printf "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", n, name, st,
				v("root-mounted"), v("lvs-active"), v("multi-user"), v("default-target"),
				v("settled"), v("cpu"), v("processes"), v("udev"), v("wall")
		}' | tee -a "$rb_results"
	return "$_rc"
}
