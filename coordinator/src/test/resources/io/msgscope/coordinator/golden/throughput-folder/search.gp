# msgscope: median throughput against the in-flight count F (A6), log x axis
if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) { set terminal pngcairo size 1200,700 } else { set terminal png size 1200,700 }
set output "search.png"
set title "Throughput against messages in flight (F search; grey band: the peak's 95% interval)"
set xlabel "F (messages in flight)"
set ylabel "median throughput [msg/s]"
set logscale x
set grid
set key top left
set yrange [0:*]
set offsets 0, 0, graph 0.12, 0
set label 1 "peak" at first 1000, first 49505.0 right point pt 6 ps 2 offset -1,1
set label 2 "knee" at first 90, first 45000.0 right point pt 8 ps 2 offset -1,-1
set object 1 rectangle from graph 0, first 49257.4 to graph 1, first 49752.5 fillcolor rgb "#dddddd" fillstyle solid 0.4 noborder behind
P = 50000.0; F0 = 10.0000; k = 1.00000
curve(x) = P * x / (x**k + F0**k)**(1.0/k)
plot "search.dat" using 1:2:7:8 with yerrorbars title "median per probe (bar: 95% interval)",      "search.dat" using 1:2 smooth unique with lines title "", \
     curve(x) with lines dashtype 2 title "fitted curve (the knee: where it reaches 90% of P)"
