# convergence.gp: each mirror's selection probability in force, per second (the fine timeline),
# one panel per agent line chosen (those with a fault, a finding or a deviant mirror), fault
# windows shaded, findings marked where they start. Variables: dir, out, term, gp, nl, xmax,
# runtitle, n0..n3 (mirrors drawn), t0..t3 (panel titles).
load gp.'/common.gp'
set xlabel 'time since the start (s)'
set ylabel 'selection probability'
set yrange [-0.02:1.05]
set xrange [0:xmax]
set multiplot layout nl,1 title runtitle."\nselection probability in force, per second" noenhanced
do for [l=0:nl-1] {
    load sprintf('%s/plots/marks_%d.gp', dir, l)
    set title value(sprintf('t%d', l)) noenhanced
    f = sprintf('%s/plots/prob_%d.dat', dir, l)
    n = value(sprintf('n%d', l))
    plot for [i=0:n-1] f index i using 1:2 with steps lw 2 lc rgb col(i) dt dashof(i) notitle, \
         for [i=0:n-1] f index i using 1:2 every 12 with points pt ptof(i) ps 0.7 lc rgb col(i) notitle, \
         for [i=0:n-1] f index i using (NaN):(NaN) with linespoints lw 2 lc rgb col(i) dt dashof(i) \
             pt ptof(i) title columnheader(1)
}
unset multiplot
