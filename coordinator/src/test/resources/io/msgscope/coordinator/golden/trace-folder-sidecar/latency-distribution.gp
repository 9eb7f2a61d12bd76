# msgscope: Latency distribution up to p99 (2 modes; see summary.json distribution) (from latency-distribution.dat)
# Run from the folder of the data file: gnuplot latency-distribution.gp
set encoding utf8
if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) {
    set terminal pngcairo size 1200,700 noenhanced font "sans,10"
} else {
    set terminal png size 1200,700 noenhanced
}
set output "latency-distribution.png"
set datafile missing NaN
set grid
set title "Latency distribution up to p99 (2 modes; see summary.json distribution)"
set xlabel "latency [us]"
set ylabel "messages per bin"
set yrange [0:*]
set style fill solid 0.6 border -1
set key outside right top
# box width = the step between bin centres (the bin width unless bins overlap)
stats "latency-distribution.dat" using 3 nooutput
step = (STATS_records > 1) ? (STATS_max - STATS_min) / (STATS_records - 1) : 0
set arrow 1 from first 24.608379114864093, graph 0.87 to first 24.608379114864093, graph 0 head filled lw 2 lc rgb "#d62728" front
set label 1 "1" at first 24.608379114864093, graph 0.985 center tc rgb "#d62728" front
set arrow 2 from first 66.22366803343567, graph 0.87 to first 66.22366803343567, graph 0 head filled lw 2 lc rgb "#d62728" front
set label 2 "2" at first 66.22366803343567, graph 0.94 center tc rgb "#d62728" front
plot "latency-distribution.dat" using 3:4:(step > 0 ? step : $2 - $1) with boxes lc rgb "#4c72b0" title "count", \
     NaN with lines lw 2 lc rgb "#d62728" title "modes (humpiness):", \
     NaN with lines lc rgb "#ffffff" title "1: 24.6 us", \
     NaN with lines lc rgb "#ffffff" title "2: 66.2 us"
