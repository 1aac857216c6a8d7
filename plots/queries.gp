# queries.gp: queries routed to each mirror of the first agent line per karma period, stacked,
# so failover and re-admission show. Variables: dir, out, term, gp, n0, t0.
load gp.'/common.gp'
set title 'Queries per mirror per karma period (stacked): '.t0 noenhanced
set xlabel 'time (s)'
set ylabel 'queries per period'
set yrange [0:*]
load dir.'/plots/faults_0.gp'
f = dir.'/plots/queries_stacked.dat'
plot for [i=n0:1:-1] f using 1:(column(i+1)) with fillsteps fs solid 0.7 lc i \
    title columnheader(i+1)
