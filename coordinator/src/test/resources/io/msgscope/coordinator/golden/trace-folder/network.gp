# msgscope: Network utilisation per message (lo: all loopback traffic: every hop of the run and its acknowledgements) (from trace.dat)
# Run from the run folder: gnuplot network.gp
set encoding utf8
if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) {
    set terminal pngcairo size 1200,700 noenhanced font "sans,10"
} else {
    set terminal png size 1200,700 noenhanced
}
set output "network.png"
# NaN = unmeasured window: the line breaks there
set grid
set title "Network utilisation per message (lo: all loopback traffic: every hop of the run and its acknowledgements)"
set xlabel "message number"
set ylabel "bytes/s"
set yrange [0:*]
set key top right
plot "trace.dat" using 1:10 with steps lw 1 title "received bytes/s on lo"
