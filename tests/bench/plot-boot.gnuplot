# SPDX-License-Identifier: GPL-2.0-or-later
# Plot of `make bench-boot`: time to all LVs active against N, one line per approach.
#   gnuplot -e "datafile='plot.dat'; outfile='bench-boot.png'" plot-boot.gnuplot
# `make bench-realboot` sets plottitle, ylabel and xtics (the Ns, comma-separated) too.
# plot.dat (tests/bench/plot-boot.py): one block per approach, its title on the first line.
if (!exists("datafile")) datafile = 'plot.dat'
if (!exists("outfile")) outfile = 'bench-boot.png'
set terminal pngcairo size 1000,720 font ",10" noenhanced
set output outfile
if (!exists("plottitle")) plottitle = "Coldplug of N PVs (one VG, one LV each) on null_blk, QEMU TCG, 2 vCPUs\n(a point is missing where the run did not finish within its deadline)"
if (!exists("ylabel")) ylabel = "seconds from udevadm trigger until every LV is active"
if (!exists("xtics")) xtics = "100, 300, 1000"
set title plottitle
set xlabel "PVs (N)"
set ylabel ylabel
set logscale xy
eval sprintf("set xtics (%s)", xtics)
set offsets graph 0.05, graph 0.05, 0, 0
set grid
set key outside below vertical maxrows 4 font ",9"
plot for [i=0:*] datafile index i using 1:2 with linespoints lw 2 pt 7 title columnheader(1)
