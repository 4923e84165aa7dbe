#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# make bench-boot: N PVs coldplugged on null_blk in the VM, every way of activating them timed.
#
# Clones the fixtures here (natively; tests/bench/clone-pvs.py), packs the non-zero blocks of
# every image, boots the VM once without systemd and once with it (tests/vm/vm-run.sh
# [--systemd]) to run tests/vm/guest-bench-boot.sh, then writes the medians as a markdown table and
# plots time to all LVs active against N (tests/bench/plot-boot.py and plot-boot.gnuplot;
# the plot needs gnuplot).
#
# Knobs (environment):
#   BENCH_BOOT_N           PV counts, each its own VG with one linear LV ("100 300 1000")
#   BENCH_BOOT_MIXED       PVs of the mixed run: 3-PV VGs with striped LVs, copies of
#                          fixtures/three-pv (300; 0 = none)
#   BENCH_BOOT_RUNS        runs per N and approach (3; BENCH_BOOT_RUNS_1000 for N=1000: 1)
#   BENCH_BOOT_APPROACHES  letters, see tests/vm/guest-bench-boot.sh ("a b c d e f g")
#   BENCH_BOOT_BOOTS       "plain systemd" (default) or one of them
#   BENCH_BOOT_DEADLINE    seconds a run may take before it is given up (300)
#   BENCH_BOOT_NULLB_NSEC  null_blk completion latency in ns (100000)
#   BENCH_BOOT_MEM         guest memory in MB (3072)
#   BENCH_BOOT_OUT         results directory ($top_builddir/tests/bench/bench-boot.out):
#                          results.tsv (every run), results.md, bench-boot.png
set -eu

here=$(cd "$(dirname "$0")" && pwd)
: "${top_srcdir:=$(cd "$here/../.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
export top_srcdir top_builddir
NS=${BENCH_BOOT_N:-"100 300 1000"}
MIXED=${BENCH_BOOT_MIXED:-300}
RUNS=${BENCH_BOOT_RUNS:-3}
APPROACHES=${BENCH_BOOT_APPROACHES:-"a b c d e f g"}
BOOTS=${BENCH_BOOT_BOOTS:-"plain systemd"}
DEADLINE=${BENCH_BOOT_DEADLINE:-300}
NSEC=${BENCH_BOOT_NULLB_NSEC:-100000}
MEM=${BENCH_BOOT_MEM:-3072}
OUT=${BENCH_BOOT_OUT:-$top_builddir/tests/bench/bench-boot.out}

for c in python3 qemu-system-x86_64; do
	command -v "$c" >/dev/null 2>&1 || { echo "SKIP: bench-boot: $c not installed"; exit 77; }
done
mkdir -p "$OUT" "$top_builddir/tests/bench"
OUT=$(readlink -f "$OUT")
dir=$(mktemp -d "$top_builddir/tests/bench/bench-boot.XXXXXX")
trap 'rm -rf "$dir"' EXIT
trap 'exit 130' INT TERM

# pack FIXTURE PREFIX COPIES SET: SET.pack (image k's non-zero 4 KiB blocks, for /dev/nullbk)
# and SET.lvs ("K VG/LV", K the last image of the VG)
pack() {
	python3 "$top_srcdir/tests/bench/clone-pvs.py" "$top_srcdir/tests/fixtures/$1" "$3" \
		"$dir/img" "$2" >"$dir/$4.list"
	python3 - "$top_srcdir/tests/fixtures/$1/lvs.json" "$dir/$4.list" "$dir/$4" <<'EOF'
import json, os, struct, sys
lvs_json, listing, base = sys.argv[1:4]
names = []
for lv in json.load(open(lvs_json))["report"][0]["lv"]:
    if lv["lv_name"] not in names and not lv["lv_name"].startswith("["):
        names.append(lv["lv_name"])
last = {}
with open(base + ".pack", "wb") as out:
    for k, path in enumerate(open(listing).read().split()):
        vg = os.path.basename(path).rsplit("-", 1)[0]
        last[vg] = k
        with open(path, "rb") as f:
            data = f.read()
        blocks = [o for o in range(0, len(data), 4096) if data[o:o + 4096].count(0) != 4096]
        out.write(struct.pack("<II", k, len(blocks)))
        for o in blocks:
            out.write(struct.pack("<QI", o, 4096) + data[o:o + 4096])
        os.unlink(path)
with open(base + ".lvs", "w") as f:
    for vg, k in last.items():
        for lv in names:
            f.write("%d %s/%s\n" % (k, vg, lv))
EOF
}

# Sets in the order they run: the smaller N first, then the mixed run, then N >= 1000 (the
# longest, so an interrupted benchmark still has the rest).
max=0
sets=""
big=""
for n in $NS; do
	[ "$n" -le "$max" ] || max=$n
	if [ "$n" -lt 1000 ]; then
		sets="$sets single:$n:$RUNS"
	else
		big="$big single:$n:${BENCH_BOOT_RUNS_1000:-1}"
	fi
done
t=$(date +%s)
[ "$max" -eq 0 ] || pack single bs "$max" single
if [ "$MIXED" -gt 0 ]; then
	pack three-pv bm $((MIXED / 3)) three-pv
	sets="$sets three-pv:$((MIXED / 3 * 3)):$RUNS"
fi
sets="$sets$big"
echo "bench-boot: images for$sets packed in $(($(date +%s) - t)) s"

: >"$OUT/results.tsv.new"
[ ! -f "$OUT/results.tsv" ] || mv "$OUT/results.tsv" "$OUT/results.tsv.old"
mv "$OUT/results.tsv.new" "$OUT/results.tsv"
rc=0
for boot in $BOOTS; do
	opt=""
	[ "$boot" = plain ] || opt=--systemd
	# shellcheck disable=SC2086
	sh "$top_srcdir/tests/vm/vm-run.sh" $opt --mem "$MEM" --timeout "${BENCH_BOOT_VM_TIMEOUT:-21600}" \
		--rw "$OUT" --env "BENCH_BOOT_SETS=$sets" --env "BENCH_BOOT_RUNS=$RUNS" \
		--env "BENCH_BOOT_APPROACHES=$APPROACHES" --env "BENCH_BOOT_DEADLINE=$DEADLINE" \
		--env "BENCH_BOOT_NULLB_NSEC=$NSEC" \
		"$top_srcdir/tests/vm/guest-bench-boot.sh" "$dir" "$OUT" || rc=$?
done

python3 "$top_srcdir/tests/bench/plot-boot.py" "$OUT/results.tsv" "$OUT" "$DEADLINE" \
	>"$OUT/results.md"
cat "$OUT/results.md"
if command -v gnuplot >/dev/null 2>&1; then
	gnuplot -e "datafile='$OUT/plot.dat'; outfile='$OUT/bench-boot.png'" \
		"$top_srcdir/tests/bench/plot-boot.gnuplot" && echo "bench-boot: plot $OUT/bench-boot.png"
else
	echo "bench-boot: gnuplot not installed (Debian: gnuplot-nox): no plot"
fi
exit "$rc"
