# msgscope: the throughput samples (A7) in order and as a histogram (from samples.dat)
# Run from the results folder: gnuplot samples.gp
set encoding utf8
if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) {
    set terminal pngcairo size 1200,700 noenhanced font "sans,10"
} else {
    set terminal png size 1200,700 noenhanced
}
set grid
set output "samples.png"
set title "Throughput samples in the order taken (median 45000 msg/s)"
set xlabel "sample"
set ylabel "throughput [msg/s]"
set format y "%.0f"
set yrange [0:*]
set key outside right top
set object 1 rectangle from graph 0, first 44775.000 to graph 1, first 45225.000 fillcolor rgb "#dddddd" fillstyle solid 0.5 noborder behind

plot "samples.dat" using 1:2 with linespoints pt 7 ps 0.6 title "sample", \
     45000.000 with lines lw 2 dt 2 title "median (band: its 95% interval)"
set output "samples-histogram.png"
set title "Distribution of the throughput samples (5 bins of 180 msg/s)"
set xlabel "throughput [msg/s]"
set ylabel "samples per bin"
set format x "%.0f"
set format y "%g"
unset object 1
unset arrow 1
set autoscale
set xrange [44370.000:45630.000]
set yrange [0:*]
set style fill solid 0.6 border -1
width = 180.000000
set boxwidth width
last = 4
k(x) = floor((x - 44550.000000) / width)
bin(x) = width * (k(x) < last ? k(x) : last) + 44550.000000 + width / 2
plot "samples.dat" using (bin($2)):(1.0) smooth frequency with boxes title "samples"
