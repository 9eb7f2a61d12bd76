# msgscope: latency histogram (from latency-histogram.dat)
# Run from the run folder: gnuplot latency-histogram.gp
set encoding utf8
if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) {
    set terminal pngcairo size 1200,700 noenhanced font "sans,10"
} else {
    set terminal png size 1200,700 noenhanced
}
set output "latency-histogram.png"
set datafile missing NaN
set grid
set title "Latency histogram (min to p99.9; overflow count in the data file)"
set xlabel "latency [µs]"
set ylabel "messages per bin"
set yrange [0:*]
set style fill solid 0.6 border -1
set key top right
plot "latency-histogram.dat" using 3:4:($2-$1) with boxes title "messages"
