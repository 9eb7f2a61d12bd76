# gnuplot timeseries.gp  ->  timeseries.png
set terminal pngcairo size 1000,600
set output 'timeseries.png'
set title 'fan-in (mqtt)'
set xlabel 'second of the measurement'
set ylabel 'msg/s'
set y2label 'latency (us)'
set ytics nomirror
set y2tics
set key outside
set yrange [0:*]
set y2range [0:*]
plot 'timeseries.dat' using 1:2 with lines title 'rate', \
     '' using 1:3 axes x1y2 with lines title 'p50', \
     '' using 1:4 axes x1y2 with lines title 'p99'
