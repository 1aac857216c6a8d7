# latency.gp: mean latency of each mirror's successful attempts, per second, for every chosen
# line, and below them the answered queries' p50 and p99 per karma period, each drawn over the
# period it describes. All panels share the x range. Variables as convergence.gp.
load gp.'/common.gp'
set xlabel 'time since the start (s)'
set ylabel 'latency (ms)'
set logscale y
set xrange [0:xmax]
set multiplot layout nl + 1,1 title runtitle."\nlatency" noenhanced
do for [l=0:nl-1] {
    load sprintf('%s/plots/marks_%d.gp', dir, l)
    set title value(sprintf('t%d', l)).': mean of successful attempts, per second' noenhanced
    f = sprintf('%s/plots/lat_%d.dat', dir, l)
    n = value(sprintf('n%d', l))
    plot for [i=0:n-1] f index i using 1:($2 > 0 ? $2 : NaN) with steps lw 1.5 lc rgb col(i) \
         dt dashof(i) title columnheader(1)
}
load sprintf('%s/plots/marks_%d.gp', dir, 0)
unset label
unset arrow
set title 'answered queries (failed ones are counted apart): p50 and p99 per karma period' noenhanced
plot dir.'/plots/overall.dat' using 1:($2 > 0 ? $2 : NaN) with lines lw 2 lc rgb pal[1] title 'p50', \
     '' using 1:($3 > 0 ? $3 : NaN) with lines lw 2 lc rgb pal[4] dt 2 title 'p99'
unset multiplot
