# msgscope: latency per message (from trace.dat)
# Run from the run folder: gnuplot latency.gp
set encoding utf8
if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) {
    set terminal pngcairo size 1200,700 noenhanced font "sans,10"
} else {
    set terminal png size 1200,700 noenhanced
}
set output "latency.png"
set datafile missing NaN
set grid
set title "Latency per message"
set xlabel "message number"
set ylabel "latency [µs]"
set key top left
plot "trace.dat" using 1:($4/1000.0) with points pt 7 ps 0.3 title "latency I_n - O_n"
