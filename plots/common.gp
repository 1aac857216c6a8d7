# common.gp: shared look of every hakarma chart. Called with dir, out, term set.
set terminal @term
set output out
set encoding utf8
set grid ytics lc rgb '#dddddd'
set key outside right top vertical Left reverse noenhanced
set border 3
set xtics nomirror
set ytics nomirror
set datafile missing 'nan'
set style line 1 lw 2
