# queries.gp: attempts per second sent to each mirror of the chosen lines, stacked, so the load
# itself shows (a closed loop slowing down, retries doubling it). Variables as shares.gp.
load gp.'/common.gp'
marklayer = 'front'
# the bars keep their legend's colours: a fault is a dashed frame over them, not a tint
markstyle = "fs empty border lc rgb '#d62728' dt 2 lw 2"
set xlabel 'time since the start (s)'
set ylabel 'attempts per second'
set yrange [0:*]
set xrange [0:xmax]
set multiplot layout nl,1 title runtitle."\nattempts per second per mirror (stacked)" noenhanced
do for [l=0:nl-1] {
    load sprintf('%s/plots/marks_%d.gp', dir, l)
    set title value(sprintf('t%d', l)) noenhanced
    f = sprintf('%s/plots/rate_%d.dat', dir, l)
    s = value(sprintf('s%d', l))
    plot for [i=s-1:0:-1] f using 1:(column(i+2)) with fillsteps fs solid 0.8 noborder \
         lc rgb col(i) title columnheader(i+2)
}
unset multiplot
