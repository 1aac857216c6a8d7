# compare.gp: hareal live --compare-sim — simulated and real shares and latencies per mirror on
# the same axes. Reads compare.csv. Variables: dir, out, term, gp.
load gp.'/common.gp'
# common.gp's fixed screen margins would put both panels of the 1x2 layout in one place: the
# layout sets each panel's own
set lmargin
set rmargin
set key below horizontal
set bmargin 7  # room for the rotated mirror names above the key
set datafile separator ','
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set boxwidth 0.9
set xtics rotate by -30 noenhanced
set yrange [0:*]
set xrange [-0.6:*]
set multiplot layout 1,2 title 'Real cluster vs simulation of the same scenario' noenhanced
set title 'share of queries'
set ylabel 'share'
plot dir.'/compare.csv' every ::1 using 4:xtic(3) title 'real', '' every ::1 using 5 title 'simulated'
set title 'latency per mirror (ms)'
set ylabel 'latency (ms)'
plot dir.'/compare.csv' every ::1 using 6:xtic(3) title 'p50 real', '' every ::1 using 7 title 'p50 sim', \
     '' every ::1 using 8 title 'p99 real', '' every ::1 using 9 title 'p99 sim'
unset multiplot
