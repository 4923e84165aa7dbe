#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# make bench-realboot: real boots under QEMU (TCG) of a machine with N one-PV VGs beside its
# root VG, every way of activating them timed from the kernel's start (root).
#
# For each N the disks of the boot tests (tests/boot/mkdisks.sh: vgroot/root and N VGs of one
# PV and one linear LV, 3 of them mounted from the real root's fstab; above 50 disks all but
# those are clones of one lvm2-made PV, tests/bench/clone-pvs.py; cached) are booted once per
# variant (REALBOOT_BOOTS), each with the real root and initramfs of tests/lib/boot-host.sh:
#   it-lvm2             lvm2's stock initramfs-tools path (69-lvm.rules: vgchange in udev's
#                       worker), udev.children_max=64: with udevd's default it never finds the
#                       root (tests/README.md, boot tests)
#   it-lvm2-default     the same with udevd's default number of workers: a failure is its result
#   dracut-lvm2         lvm2's stock dracut path (dracut's lvm module)
#   it-pvscan-fast      pvscan-fast through initramfs-tools (installed and switched on)
#   dracut-pvscan-fast  pvscan-fast through dracut (its 90pvscan-fast module)
#   floor               udev alone making the same dm devices: initramfs-tools's image with
#                       lvm2's rule emptied and a local-top script that waits for every disk and
#                       creates every LV (tables from an earlier boot of this N, disks found by
#                       SCSI address) in one `dmsetup create --concise` under one udev cookie;
#                       lvm2's rule masked in the real root
# and pvscan-fast's boots again with the root disk attached last (REALBOOT_ROOT="first last":
# it-pvscan-fast-last, dracut-pvscan-fast-last). The kernel command line carries
# pf-boot.bench: the real root's check (tests/boot/boot-check.sh) then also reports CPU,
# processes, udev's settle after the coldplug, systemd-analyze and its blame
# (tests/bench/realboot-guest.sh). A boot that fails is a row with its reason.
#
# Writes $top_builddir/bench-realboot.md (a table per boot, ratios, details) and, with
# gnuplot, bench-realboot.png (all LVs active against N); the reports of every boot and
# results.tsv are kept in REALBOOT_OUT.
#
# Knobs (environment):
#   REALBOOT_N         disk counts ("100 300 1000"; an hour or more per N=1000 boot under TCG)
#   REALBOOT_ROOT      root disk positions for pvscan-fast's boots ("first last")
#   REALBOOT_BOOTS     variants, in the order run (all of the above, floor after a boot that
#                      passed, it-lvm2-default last)
#   REALBOOT_DEADLINE  seconds a boot may take (900 + 3 s per disk); also rootdelay= and
#                      rd.retry= for N >= 300, where a stock 180 s wait for the root could end
#                      a boot that is only slow under TCG (not for it-lvm2-default)
#   REALBOOT_MEM       guest memory in MB (1024, as the boot tests: udevd's default number of
#                      workers depends on it)
#   REALBOOT_OUT       results directory ($top_builddir/tests/bench/bench-realboot.out)
#   REALBOOT_REPORT=1  no boot: the report again from REALBOOT_OUT's results.tsv
#   BOOT_STACKS=0 is exported: the boot tests' layered stacks stay out of the benchmark's disks.

here=$(cd "$(dirname "$0")" && pwd)
: "${top_srcdir:=$(cd "$here/../.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
export top_srcdir top_builddir
NS=${REALBOOT_N:-"100 300 1000"}
ROOTS=${REALBOOT_ROOT:-"first last"}
BOOTS=${REALBOOT_BOOTS:-"it-pvscan-fast it-lvm2 floor dracut-pvscan-fast dracut-lvm2 it-lvm2-default"}
OUT=${REALBOOT_OUT:-$top_builddir/tests/bench/bench-realboot.out}
BOOT_STACKS=0
BOOT_MOUNTED=${BOOT_MOUNTED:-3}
export BOOT_STACKS BOOT_MOUNTED
# Each disk is a drive with a snapshot overlay: two descriptors in QEMU.
ulimit -n 65536 2>/dev/null || ulimit -n 8192 2>/dev/null || true

. "$top_srcdir/tests/lib/boot-host.sh"
. "$top_srcdir/tests/lib/realboot-host.sh"
BOOT_ROOT_HOOK=realboot_root_hook

mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
rb_results=$OUT/results.tsv
start=$(date +%s)
load0=$(cut -d' ' -f1-3 /proc/loadavg)
if [ "${REALBOOT_REPORT:-0}" = 1 ]; then
	NS=""
else
	[ ! -f "$rb_results" ] || mv -f "$rb_results" "$rb_results.old"
	: >"$rb_results"
fi

# bench_n N: every boot of N disks, in a subshell of its own (boot_init's scratch directory
# and its cleanup are per N).
bench_n() {
	BOOT_N=$1
	BOOT_DEADLINE=${REALBOOT_DEADLINE:-$((900 + 3 * $1))}
	boot_init "realboot-$1"
	rb_out=$OUT/n$1
	rm -rf "$rb_out"
	mkdir -p "$rb_out"
	slow_it="" slow_dracut=""
	if [ "$1" -ge 300 ]; then
		slow_it="rootdelay=$BOOT_DEADLINE"
		slow_dracut="rd.retry=$BOOT_DEADLINE"
	fi
	it="quiet panic=1"
	dracut="quiet panic=1 rd.shell=0 rd.emergency=poweroff $slow_dracut"
	tables=""
	made=" "
	for b in $BOOTS; do
		mode=${b#*-}
		mode=${mode%-default}
		case $made in *" $mode "*) ;; *) boot_root "$mode"; made="$made$mode " ;; esac
		case $b in
		floor)
			if [ -z "$tables" ] || ! realboot_floor_image "$tables"; then
				printf '%s\tfloor\tnot run: no earlier boot of these disks passed\n' "$1" |
					tee -a "$rb_results"
				continue
			fi
			realboot_boot floor floor "$work/floor/initrd-it.img" "$work/floor/disks" \
				"$it $slow_it" >/dev/null
			tail -n 1 "$rb_results" | cut -f2-6 | sed "s/^/# n=$1 /"
			continue
			;;
		it-*)
			boot_initramfs_tools "$mode"
			img=$work/$mode/initrd-it.img
			words="$it $slow_it"
			case $b in
			it-lvm2) words="$words udev.children_max=64" ;;
			it-lvm2-default) words=$it ;;
			esac
			;;
		dracut-*)
			boot_dracut "$mode"
			img=$work/$mode/initrd-dracut.img
			words=$dracut
			;;
		esac
		for pos in $ROOTS; do
			list=$work/$mode/disks name=$b
			if [ "$pos" = last ]; then
				[ "$mode" = pvscan-fast ] || continue
				list=$work/$mode/disks-last name=$b-last
				{ tail -n +2 "$work/$mode/disks"; head -n 1 "$work/$mode/disks"; } >"$list"
			fi
			if realboot_boot "$name" "$mode" "$img" "$list" "$words" >/dev/null &&
				[ -z "$tables" ] && [ "$pos" = first ]; then
				tables=$work/$name/report.log
			fi
			tail -n 1 "$rb_results" | cut -f2-6 | sed "s/^/# n=$1 /"
		done
	done
}

for n in $NS; do
	echo "# bench-realboot: N=$n, load $(cut -d' ' -f1-3 /proc/loadavg)"
	(bench_n "$n")
	rc=$?
	[ "$rc" -ne 77 ] || exit 77
done
[ -z "$NS" ] || echo "$load0, at the end $(cut -d' ' -f1-3 /proc/loadavg); $(($(date +%s) - start)) s" \
	>"$OUT/load"
vm_kernel ""

# The report: one table of every boot, the ratios, then each boot's systemd-analyze.
md=$top_builddir/bench-realboot.md
{
	echo "Real boots: $(nproc) host CPUs, QEMU TCG 2 vCPUs, ${REALBOOT_MEM:-1024} MB; guest kernel"
	echo "$kver, lvm2 $(lvm version 2>/dev/null | sed -n 's/^ *LVM version: *//p' | head -1)."
	echo "Host load average at the start $(cat "$OUT/load" 2>/dev/null)."
	echo
	echo "Seconds since the kernel started. default target: pf-boot.target (multi-user.target and"
	echo "the check). settled: \`udevadm settle\` after the real root's coldplug. CPU: busy"
	echo "seconds of both vCPUs, and processes started, until multi-user.target. wall: the host's"
	echo "seconds from QEMU's start to the report's end."
	echo
	echo "| N | boot | result | root mounted | all LVs active | multi-user.target | default target | udev settled | CPU s | processes | udev kills/timeouts | wall s |"
	echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
	awk -F'\t' 'NF >= 3 {
		printf "| %s | %s | %s |", $1, $2, $3
		for (i = 4; i <= 12; i++) {
			v = (i <= NF ? $i : "-")
			if (v ~ /^[0-9]+\.[0-9][0-9][0-9]/) v = sprintf("%.2f", v)
			printf " %s |", v
		}
		printf "\n"
	}' "$rb_results"
	echo
	echo "Ratios of the time to all LVs active (pvscan-fast's against each; targets: lvm2's"
	echo "stock path at least 3x later at N=1000, the floor within 1.2x):"
	echo
	awk -F'\t' '
		{ ok[$1 " " $2] = ($3 == "ok"); t[$1 " " $2] = $5; st[$1 " " $2] = $3; ns[$1] = 1 }
		function ratio(n, a, b,   r) {
			if (!((n " " a) in t) || !((n " " b) in t)) return ""
			r = ""
			if (t[n " " a] + 0 > 0 && t[n " " b] + 0 > 0)
				r = sprintf("%.2fx", t[n " " b] / t[n " " a])
			if (!ok[n " " b]) r = r sprintf(" (%s: %s)", b, st[n " " b])
			if (!ok[n " " a]) r = r sprintf(" (%s: %s)", a, st[n " " a])
			return r
		}
		function line(n, what, a, b,   r) {
			r = ratio(n, a, b)
			if (r != "") printf "* N=%s, %s: %s\n", n, what, r
		}
		END {
			for (n in ns) {
				line(n, "lvm2 stock initramfs-tools (children_max=64) / pvscan-fast", "it-pvscan-fast", "it-lvm2")
				line(n, "lvm2 stock initramfs-tools (default workers) / pvscan-fast", "it-pvscan-fast", "it-lvm2-default")
				line(n, "lvm2 stock dracut / pvscan-fast", "dracut-pvscan-fast", "dracut-lvm2")
				line(n, "pvscan-fast (initramfs-tools) / floor", "floor", "it-pvscan-fast")
				line(n, "pvscan-fast, root disk last / root disk first (initramfs-tools)", "it-pvscan-fast", "it-pvscan-fast-last")
				line(n, "pvscan-fast, root disk last / root disk first (dracut)", "dracut-pvscan-fast", "dracut-pvscan-fast-last")
			}
		}' "$rb_results" | sort -t= -k2 -n
	echo
	echo "<details><summary>systemd-analyze and its blame (first 10), per boot; the floor's steps</summary>"
	echo
	for r in "$OUT"/n*/*/report.log; do
		[ -f "$r" ] || continue
		b=${r%/report.log}
		echo "N=$(basename "$(dirname "$b")" | tr -d n), $(basename "$b"):"
		echo
		echo '```'
		sed -n 's/^BENCH \(floor\|analyze\|blame\) //p' "$r"
		echo '```'
		echo
	done
	echo "</details>"
} >"$md"
cat "$md"

# The plot: one block per boot, its title first, then N and the time to all LVs active.
awk -F'\t' '$3 == "ok" && $5 != "-" { pts[$2] = pts[$2] $1 " " $5 "\n" }
	END { for (b in pts) printf "\"%s\"\n%s\n\n", b, pts[b] }' "$rb_results" >"$OUT/plot.dat"
if ! command -v gnuplot >/dev/null 2>&1; then
	echo "bench-realboot: gnuplot not installed (Debian: gnuplot-nox): no plot"
elif [ -s "$OUT/plot.dat" ]; then
	gnuplot -e "datafile='$OUT/plot.dat'; outfile='$top_builddir/bench-realboot.png'" \
		-e "plottitle='Real boots of N one-PV VGs beside the root VG, QEMU TCG, 2 vCPUs'" \
		-e "ylabel='seconds from the kernel start until every LV is active'" \
		-e "xtics='$(cut -f1 "$rb_results" | sort -un | paste -sd,)'" \
		"$top_srcdir/tests/bench/plot-boot.gnuplot" &&
		echo "bench-realboot: plot $top_builddir/bench-realboot.png"
fi
echo "bench-realboot: $md"
