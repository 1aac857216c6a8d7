# strategies_p99.gp: per strategy/variant run, the answered queries' p50 and p99 (lat=1) and the
# share of queries that failed or came back partial (fail=1): a failure is never a fast latency.
# hakarma draws a panel only where the runs differ. Reads strategies.csv.
# Variables: dir, out, term, gp, lat, fail.
load gp.'/common.gp'
set lmargin
set rmargin
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set boxwidth 0.9
set xtics rotate by -30 noenhanced
set yrange [0:*]
set offsets 0, 0, graph 0.08, 0  # headroom: the tallest bar stays below the frame's top
set xrange [-0.6:*]
set datafile separator ','
set key below horizontal
if (lat && fail) {
  set multiplot layout 1,2 title 'Strategy / variant runs side by side (same seed: common random numbers)' noenhanced
} else {
  set title 'Strategy / variant runs side by side (same seed: common random numbers)' noenhanced
}
if (lat) {
  if (lat && fail) { set title 'answered queries (ms)' }
  set ylabel 'latency (ms)'
  plot dir.'/strategies.csv' every ::1 using 12:xtic(3) title 'p99' lc rgb pal[4], \
       '' every ::1 using 10 title 'p50' lc rgb pal[1]
}
if (fail) {
  if (lat && fail) { set title 'failed or partial queries (%)' }
  set ylabel 'failed or partial queries (%)'
  stats dir.'/strategies.csv' every ::1 using ($8 * 100) nooutput
  set yrange [0:(STATS_max > 0 ? STATS_max * 1.1 : 1)]
  plot dir.'/strategies.csv' every ::1 using ($8 * 100):xtic(3) title 'failed + partial' lc rgb pal[5]
}
if (lat && fail) { unset multiplot }
