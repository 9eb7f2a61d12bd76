# msgscope: sender and receiver throughput per message, envelope of buckets (from trace-envelope.dat)
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
set title "Sender throughput ST and receiver throughput RT: min, median and max per bucket over windows of >= 10 messages and >= 100 us"
set xlabel "message number"
set ylabel "throughput [msg/s]"
set format y "%.0f"
set key below
plot "trace-envelope.dat" using 4:11:13 with filledcurves fc rgb "#fdd0a2" fs transparent solid 0.35 noborder title "RT (received) min-max per bucket", \
     "trace-envelope.dat" using 4:12 with lines lw 4 lc rgb "#d94801" title "RT (received) median per bucket", \
     "trace-envelope.dat" using 4:8:10 with filledcurves fc rgb "#a1d99b" fs transparent solid 0.35 noborder title "ST (sent) min-max per bucket", \
     "trace-envelope.dat" using 4:9 with lines lw 1 lc rgb "#006d2c" title "ST (sent) median per bucket"
