# strategies_cdf.gp: overall query latency CDF of every strategy/variant run on one chart
# (log x). Reads strategies.csv and each run's cdf.csv. Variables: dir, out, term, gp.
load gp.'/common.gp'
set title 'Query latency CDF per strategy / variant' noenhanced
set xlabel 'latency (ms)'
set ylabel 'fraction of queries'
set logscale x
set yrange [0:1]
set datafile separator ','
runs = system(sprintf("tail -n +2 '%s/strategies.csv' | cut -d, -f3", dir))
plot for [r in runs] dir.'/'.r.'/cdf.csv' using ($2>0?$2:NaN):1 with lines lw 2 title r
