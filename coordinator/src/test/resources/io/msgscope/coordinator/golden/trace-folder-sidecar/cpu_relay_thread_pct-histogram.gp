# msgscope: Histogram of cpu_relay_thread_pct per window of 100 messages up to p99 (from cpu_relay_thread_pct-histogram.dat)
# Run from the folder of the data file: gnuplot cpu_relay_thread_pct-histogram.gp
set encoding utf8
if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) {
    set terminal pngcairo size 1200,700 noenhanced font "sans,10"
} else {
    set terminal png size 1200,700 noenhanced
}
set output "cpu_relay_thread_pct-histogram.png"
set datafile missing NaN
set grid
set title "Histogram of cpu_relay_thread_pct per window of 100 messages up to p99"
set xlabel "%"
set ylabel "windows per bin (one value per window of messages)"
set yrange [0:*]
set style fill solid 0.6 border -1
set key top right
# box width = the step between bin centres (the bin width unless bins overlap)
stats "cpu_relay_thread_pct-histogram.dat" using 3 nooutput
step = (STATS_records > 1) ? (STATS_max - STATS_min) / (STATS_records - 1) : 0
plot "cpu_relay_thread_pct-histogram.dat" using 3:4:(step > 0 ? step : $2 - $1) with boxes lc rgb "#4c72b0" title "count"
