# strategies_cdf.gp: the answered queries' latency CDF of every strategy/variant run on one chart
# (log x; failed queries are not latencies: see strategies_p99's right panel). Reads
# strategies.csv and each run's cdf.csv. Variables: dir, out, term, gp.
load gp.'/common.gp'
set title 'Latency of answered queries, CDF per strategy / variant' noenhanced
set xlabel 'latency (ms)'
set ylabel 'fraction of answered queries'
set logscale x
set yrange [0:1]
set datafile separator ','
runs = system(sprintf("tail -n +2 '%s/strategies.csv' | awk -F, '{print $3}'", dir))
plot for [i=1:words(runs)] dir.'/'.word(runs, i).'/cdf.csv' using ($2 > 0 ? $2 : NaN):1 \
     with lines lw 2 lc rgb col(i - 1) dt dashof(i - 1) title word(runs, i)
