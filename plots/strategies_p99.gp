# strategies_p99.gp: p99 (and p50) query latency per strategy/variant, as bars.
# Reads strategies.csv. Variables: dir, out, term, gp.
load gp.'/common.gp'
set title 'Query latency per strategy / variant' noenhanced
set ylabel 'latency (ms)'
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set boxwidth 0.9
set xtics rotate by -30 noenhanced
set yrange [0:*]
set xrange [-0.6:*]
set datafile separator ','
plot dir.'/strategies.csv' every ::1 using 10:xtic(3) title 'p99', '' every ::1 using 8 title 'p50'
