# report.gp - the plots of OUT/report.html (report.sh), as SVG for the page to hold inline:
#   gnuplot -e "plot='scores|lost|gflops'; data='FILE.tsv'; out='FILE.svg'; xt='...'" report.gp
# The data are report.jq's tab-separated parts; their labels hold only harmless characters.
# noenhanced: a label's _ or ^ is text, not a subscript
set terminal svg size 760,340 font "sans,11" noenhanced background rgb "white"
set output out
set datafile separator "\t"
set border 3
set tics nomirror
set grid ytics lc rgb "#dddddd"
set style fill solid 0.8 border -1
set key noautotitle

if (plot eq "scores") {
    set title "Students per range of the total score (percent of the maximum)"
    set boxwidth 0.8
    set xtics rotate by -30
    set yrange [0:*]
    set ylabel "students"
    plot data using 0:2:xtic(1) with boxes lc rgb "#4c78a8"
}

if (plot eq "lost") {
    # horizontal bars: the test costing the class most at the top
    set title "Points lost by the class, per test (the 15 costliest)"
    set terminal svg size 760,420 font "sans,11" noenhanced background rgb "white"
    set output out
    set lmargin 52
    set xlabel "points lost"
    set xrange [0:*]
    set yrange [*:*] reverse
    set ytics scale 0
    set border 1
    set grid xtics ytics lc rgb "#dddddd"
    set style fill solid 0.8 border -1
    plot data using (0.5 * $2):1:(0.5 * $2):(0.35):ytic(3) with boxxyerror lc rgb "#e45756"
}

if (plot eq "gflops") {
    # every student's kernel and the reference timed beside it; log scale: kernels differ
    # by orders of magnitude
    set title "GFLOP/s per exercise: students (dots) and the reference beside each (crosses)"
    set key top left
    set logscale y
    set ylabel "GFLOP/s"
    eval sprintf("set xtics (%s)", xt)
    set xrange [-0.5:*]
    set offsets 0, 0.5, 0, 0
    set xtics rotate by -30
    plot data using ($1 - 0.1):2 with points pt 7 ps 0.7 lc rgb "#4c78a8" title "student", \
         data using ($1 + 0.1):($3 > 0 ? $3 : NaN) with points pt 2 ps 0.9 lc rgb "#888888" \
             title "reference"
}
