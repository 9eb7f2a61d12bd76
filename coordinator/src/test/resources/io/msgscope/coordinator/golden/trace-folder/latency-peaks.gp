# msgscope: latency per message with the top peaks marked (M11)
# Run from the run folder: gnuplot latency-peaks.gp
set encoding utf8
if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) {
    set terminal pngcairo size 1200,700 noenhanced font "sans,10"
} else {
    set terminal png size 1200,700 noenhanced
}
set output "latency-peaks.png"
set datafile missing NaN
set grid
set title "Latency per message and its peaks"
set xlabel "message number"
set ylabel "latency [µs]"
set key top left
set arrow 100 from graph 0, first 46.000 to graph 1, first 46.000 nohead dt 2 lc rgb "#7f7f7f" front
set label 100 "2 × median" at graph 0.995, first 46.000 right offset 0,0.6 tc rgb "#7f7f7f" front
set arrow 101 from graph 0, first 115.000 to graph 1, first 115.000 nohead dt 2 lc rgb "#7f7f7f" front
set label 101 "5 × median" at graph 0.995, first 115.000 right offset 0,0.6 tc rgb "#7f7f7f" front
set arrow 102 from graph 0, first 230.000 to graph 1, first 230.000 nohead dt 2 lc rgb "#7f7f7f" front
set label 102 "10 × median" at graph 0.995, first 230.000 right offset 0,0.6 tc rgb "#7f7f7f" front
plot "trace.dat" using 1:($4/1000.0) with points pt 7 ps 0.3 title "latency I_n - O_n", \
     "peaks.dat" using 1:2 with points pt 6 ps 2.5 lw 2 lc rgb "#d62728" title "top peaks", \
     "peaks.dat" using 1:2:(sprintf("#%d", $1)) with labels offset 0,1.2 tc rgb "#d62728" notitle
