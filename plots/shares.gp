# shares.gp: each mirror's share of its line's queries, per second, stacked (they add up to 1):
# failover, re-admission and floods show where and when they happen. Fault windows shaded,
# findings marked. Variables: dir, out, term, gp, nl, xmax, runtitle, s0..s3 (series, 'others'
# included), t0..t3.
load gp.'/common.gp'
marklayer = 'front'
# the bars keep their legend's colours: a fault is a dashed frame over them, not a tint
markstyle = "fs empty border lc rgb '#d62728' dt 2 lw 2"
set xlabel 'time since the start (s)'
set ylabel 'share of the line''s queries'
set yrange [0:1.0]
set xrange [0:xmax]
set multiplot layout nl,1 title runtitle."\nshare of each line's queries per mirror, per second (stacked)" noenhanced
do for [l=0:nl-1] {
    load sprintf('%s/plots/marks_%d.gp', dir, l)
    set title value(sprintf('t%d', l)) noenhanced
    f = sprintf('%s/plots/share_%d.dat', dir, l)
    s = value(sprintf('s%d', l))
    plot for [i=s-1:0:-1] f using 1:(column(i+2)) with fillsteps fs solid 0.8 noborder \
         lc rgb col(i) title columnheader(i+2)
}
unset multiplot
