# latency.gp: latency per mirror per karma period (mean solid, p99 dashed) of the first agent
# line, and overall query latency p50/p99 per period, fault windows shaded.
# Variables: dir, out, term, gp, n0, t0.
load gp.'/common.gp'
set xlabel 'time (s)'
set ylabel 'latency (ms)'
set logscale y
set multiplot layout 2,1 title 'Latency per karma period' noenhanced
load dir.'/plots/faults_0.gp'
set title 'per mirror: '.t0.' (mean solid, p99 dashed)' noenhanced
fm = dir.'/plots/latency_mean_0.dat'
fp = dir.'/plots/latency_p99_0.dat'
plot for [i=0:n0-1] fm index i using 1:($2>0?$2:NaN) with steps lw 2 lc i+1 title columnheader(1), \
     for [i=0:n0-1] fp index i using 1:($2>0?$2:NaN) with steps lw 1 dt 2 lc i+1 notitle
set title 'all queries' noenhanced
set datafile separator ','
plot dir.'/latency.csv' using 2:($8>0?$8:NaN) with steps lw 2 title 'p50', \
     '' using 2:($9>0?$9:NaN) with steps lw 2 title 'p99'
unset multiplot
