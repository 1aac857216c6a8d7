# convergence.gp: each mirror's selection probability against time, stepped per karma period,
# one line per mirror (host:port), one panel per agent line (first 4), fault windows shaded.
# Variables: dir, out, term, gp (this folder), nlines, lines_total, n0..n3, t0..t3.
load gp.'/common.gp'
set xlabel 'time (s)'
set ylabel 'selection probability'
set yrange [0:1.05]
set multiplot layout nlines,1 title sprintf('Selection probability per mirror%s', \
    lines_total > nlines ? sprintf(' (first %d of %d agent lines)', nlines, lines_total) : '') noenhanced
do for [l=0:nlines-1] {
    load sprintf('%s/plots/faults_%d.gp', dir, l)
    set title value(sprintf('t%d', l)) noenhanced
    f = sprintf('%s/plots/convergence_%d.dat', dir, l)
    plot for [i=0:value(sprintf('n%d', l))-1] f index i using 1:2 with steps lw 2 title columnheader(1)
}
unset multiplot
