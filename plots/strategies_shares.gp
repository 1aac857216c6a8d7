# strategies_shares.gp: where the runs of a comparison differ when their latencies may not —
# each mirror's share of its line per run (left: one bar per mirror, clustered by run) and, when
# the runs re-admit a faulted mirror differently (rd=1), the seconds until its share came back
# (right; a run that never re-admits it has no bar). The header row titles the bars. Reads strategies.csv: 16 fixed columns,
# then nr re-admission columns, then ns share columns. Variables: dir, out, term, gp, nr, ns, rd.
load gp.'/common.gp'
set lmargin
set rmargin
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set boxwidth 0.9
set xtics rotate by -30 noenhanced
set xrange [-0.6:*]
set datafile separator ','
set datafile missing ''
set key below horizontal noenhanced
set key autotitle columnhead
two = rd && nr > 0 && ns > 0
if (two) {
  set multiplot layout 1,2 title 'Strategy / variant runs side by side (same seed: common random numbers)' noenhanced
} else {
  set title 'Strategy / variant runs side by side (same seed: common random numbers)' noenhanced
}
s0 = 17 + nr
if (ns > 0) {
  if (two) { set title "each mirror's share of its line" }
  set ylabel "share of the line's attempts (%)"
  set yrange [0:100]
  plot for [i=0:ns-1] dir.'/strategies.csv' using (column(s0+i)*100):xtic(3) \
       title columnhead(s0+i) lc rgb col(i)
}
if (rd && nr > 0) {
  if (two) { set title 're-admission: seconds until the share came back (none: never)' }
  set ylabel 'seconds after the fault ended'
  set yrange [0:*]
  plot for [i=0:nr-1] dir.'/strategies.csv' using 17+i:xtic(3) \
       title columnhead(17+i) lc rgb col(i)
}
if (two) { unset multiplot }
