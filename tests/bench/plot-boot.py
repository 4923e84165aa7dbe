#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Summarise `make bench-boot`: medians per N and approach as markdown, plus gnuplot's data.

Usage: plot-boot.py RESULTS.tsv OUTDIR [DEADLINE]
(DEADLINE: for runs whose status does not carry their own.)

RESULTS.tsv has one line per run (tests/vm/guest-bench-boot.sh): boot, set, N, approach, run, time
to all LVs active, time to settle, CPU s, processes, udev kills/timeouts, slow-worker
warnings, failed systemd units, status. Prints the table and the ratios the issue's targets
are about; writes OUTDIR/plot.dat (one block per approach: N and median time to all LVs
active, single-PV VGs only) for plot-boot.gnuplot.
"""
import collections
import statistics
import sys

LABELS = {
    "a": "lvm2 rule, no systemd (vgchange in udev's worker)",
    "b": "lvm2 rule, systemd (systemd-run vgchange)",
    "c": "lvm2 pvscan --cache -aay per device (systemd-run)",
    "d": "one vgchange -aay after settle",
    "e": "floor: udev alone, same dm devices",
    "f": "pvscan-fast rule, no systemd",
    "g": "pvscan-fast rule, systemd",
}
LVM2 = ("a", "b", "c", "d")


def label(boot, ap):
    if ap in ("d", "e"):
        return "%s (%s)" % (LABELS[ap], "systemd" if boot == "systemd" else "no systemd")
    return LABELS[ap]


def num(v):
    return None if v == "-" else float(v)


def median_or_none(vals):
    """Median with a run that never finished counted as longer than any that did."""
    if not vals:
        return None
    done = sorted(v for v in vals if v is not None)
    if len(done) * 2 <= len(vals):
        return None
    return statistics.median(done + [float("inf")] * (len(vals) - len(done)))


def fmt(v, deadline):
    if v is None:
        return "> %s" % deadline
    return "%.1f" % v


def run_deadline(rows, default):
    """The deadline of unfinished runs, from their status ("deadline@600s:..."), else default."""
    ds = [int(r[12].split("@")[1].split("s")[0]) for r in rows if r[12].startswith("deadline@")]
    return min(ds) if ds else default


def main():
    results, outdir = sys.argv[1], sys.argv[2]
    deadline = sys.argv[3] if len(sys.argv) > 3 else "deadline"
    groups = {}
    for line in open(results):
        f = line.rstrip("\n").split("\t")
        if len(f) < 13:
            continue
        key = (f[1], int(f[2]), f[0], f[3])
        groups.setdefault(key, []).append(f)

    print("| PVs | VGs of | approach | all LVs active (s) | settled (s) | CPU (s) "
          "| processes | udevd kill/timeout lines (slow warnings) | runs |")
    print("|---|---|---|---|---|---|---|---|---|")
    med = {}
    order = sorted(groups, key=lambda k: (k[0] != "single", k[1], "abcdefg".index(k[3]), k[2]))
    for key in order:
        rows = groups[key]
        s, n, boot, ap = key
        up = median_or_none([num(r[5]) for r in rows])
        st = median_or_none([num(r[6]) for r in rows])
        cpu = statistics.median(float(r[7]) for r in rows)
        procs = int(statistics.median(int(r[8]) for r in rows))
        kills = sum(int(r[9]) for r in rows)
        slow = sum(int(r[10]) for r in rows)
        failed = sum(int(r[11]) for r in rows)
        bad = [r[12] for r in rows if r[12] != "ok"]
        dl = run_deadline(rows, deadline)
        med[key] = (up, st, dl)
        note = "%d (%d)" % (kills, slow)
        if failed:
            note += ", %d failed units" % failed
        runs = str(len(rows))
        if bad:
            runs += " (%s)" % "; ".join("%d× %s" % (c, b) if c > 1 else b
                                       for b, c in collections.Counter(bad).items())
        print("| %d | %s | %s | %s | %s | %.1f | %d | %s | %s |" % (
            n, "1 PV" if s == "single" else "3 PVs", label(boot, ap), fmt(up, dl),
            fmt(st, dl), cpu, procs, note, runs))

    print()
    print("Ratios, lvm2's time over pvscan-fast's, same boot (> : the lvm2 path did not finish")
    print("within the deadline); settle: pvscan-fast's time to settle over the floor's:")
    print()
    for (s, n) in sorted({(k[0], k[1]) for k in groups}, key=lambda x: (x[0] != "single", x[1])):
        for boot, pf in (("plain", "f"), ("systemd", "g")):
            p = med.get((s, n, boot, pf))
            if not p or p[0] is None:
                continue
            parts = []
            for ap in LVM2:
                m = med.get((s, n, boot, ap))
                if not m:
                    continue
                if m[0] is None:
                    parts.append("%s: > %.1fx" % (ap, float(m[2]) / p[0]))
                else:
                    parts.append("%s: %.1fx" % (ap, m[0] / p[0]))
            fl = med.get((s, n, boot, "e"))
            if fl and fl[1] and p[1]:
                parts.append("settle / floor's settle: %.2fx" % (p[1] / fl[1]))
            print("* %d PVs (%s), %s vs lvm2: %s" % (
                n, "1-PV VGs" if s == "single" else "3-PV VGs", label(boot, pf),
                ", ".join(parts) if parts else "no lvm2 path measured"))

    with open(outdir + "/plot.dat", "w") as out:
        for boot, ap in sorted({(k[2], k[3]) for k in groups if k[0] == "single"},
                               key=lambda x: ("abcdefg".index(x[1]), x[0])):
            pts = sorted((k[1], v[0]) for k, v in med.items()
                         if k[0] == "single" and k[2] == boot and k[3] == ap and v[0])
            if not pts:
                continue
            out.write('"%s"\n' % label(boot, ap))
            for n, t in pts:
                out.write("%d %.2f\n" % (n, t))
            out.write("\n\n")


if __name__ == "__main__":
    main()
