# msgscope: latency per message, envelope of buckets (from trace-envelope.dat)
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
set title "Latency per message: min, median and max of each bucket of consecutive messages"
set xlabel "message number"
set ylabel "latency [µs]"
set key below
plot "trace-envelope.dat" using 4:5:7 with filledcurves fc rgb "#6baed6" fs transparent solid 0.35 noborder title "latency I_n - O_n min-max per bucket", \
     "trace-envelope.dat" using 4:6 with lines lw 1 lc rgb "#08519c" title "latency I_n - O_n median per bucket"
