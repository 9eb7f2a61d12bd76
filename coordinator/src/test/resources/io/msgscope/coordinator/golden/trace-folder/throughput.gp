# msgscope: sender and receiver throughput per message (from trace.dat)
# Run from the run folder: gnuplot throughput.gp
set encoding utf8
if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) {
    set terminal pngcairo size 1200,700 noenhanced font "sans,10"
} else {
    set terminal png size 1200,700 noenhanced
}
set output "throughput.png"
set datafile missing NaN
set grid
set title "Sender throughput ST and receiver throughput RT per message over windows of M = 10 messages"
set xlabel "message number"
set ylabel "throughput [msg/s]"
set format y "%.0f"
set key top right
plot "trace.dat" using 1:6 with lines lw 4 lc rgb "#60d94801" title "RT (received)", \
     "trace.dat" using 1:5 with lines lw 1 lc rgb "#006d2c" title "ST (sent)"
