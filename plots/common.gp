# common.gp: shared look of every hakarma chart. Called with dir, out, term set.
# Within a panel no colour repeats (12 colours, then an 'others' grey), and every mirror also has
# its own dash type and point marker, so equal values stay distinguishable.
set terminal @term
set output out
set encoding utf8
set grid ytics lc rgb '#dddddd'
set key outside right top vertical Left reverse noenhanced
set border 3
set xtics nomirror
set ytics nomirror
set datafile missing 'nan'
# fixed margins: every panel of a figure has the same plotting width, so their x axes line up
set lmargin at screen 0.08
set rmargin at screen 0.84
array pal[13] = ['#1f77b4', '#ff7f0e', '#2ca02c', '#d62728', '#9467bd', '#8c564b', \
                 '#e377c2', '#17becf', '#bcbd22', '#393b79', '#637939', '#843c39', '#9a9a9a']
col(i) = pal[(i < 12 ? i : 12) + 1]
dashof(i) = (i % 5) + 1
ptof(i) = (i % 12) + 1
# fault windows: shaded behind line charts; a dashed frame in front of stacked ones (a tint
# over their fills would change the colours their legend names)
marklayer = 'behind'
markstyle = 'fs transparent solid 0.12 noborder'
