# strategies_p99.gp: per strategy/variant run, the answered queries' p50 and p99 (left) and the
# share of queries that failed or came back partial (right): a failure is never a fast latency.
# Reads strategies.csv. Variables: dir, out, term, gp.
load gp.'/common.gp'
set lmargin
set rmargin
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set boxwidth 0.9
set xtics rotate by -30 noenhanced
set yrange [0:*]
set xrange [-0.6:*]
set datafile separator ','
set key inside left top
set multiplot layout 1,2 title 'Strategy / variant runs side by side (same seed: common random numbers)' noenhanced
set title 'answered queries (ms)'
set ylabel 'latency (ms)'
plot dir.'/strategies.csv' every ::1 using 12:xtic(3) title 'p99' lc rgb pal[4], \
     '' every ::1 using 10 title 'p50' lc rgb pal[1]
set title 'failed or partial queries (%)'
set ylabel '% of queries'
stats dir.'/strategies.csv' every ::1 using ($8 * 100) nooutput
set yrange [0:(STATS_max > 0 ? STATS_max * 1.1 : 1)]  # no failures at all: zero bars on 0-1%
plot dir.'/strategies.csv' every ::1 using ($8 * 100):xtic(3) title 'failed + partial' lc rgb pal[5]
unset multiplot
