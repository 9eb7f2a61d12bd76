# msgscope: CPU per message: sender, broker, receiver (every 100th message) (from trace-envelope.dat)
# Run from the run folder: gnuplot cpu.gp
set encoding utf8
if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) {
    set terminal pngcairo size 1200,700 noenhanced font "sans,10"
} else {
    set terminal png size 1200,700 noenhanced
}
set output "cpu.png"
# NaN = unmeasured window: the line breaks there
set grid
set title "CPU per message: sender, broker, receiver (every 100th message)"
set xlabel "message number"
set ylabel "CPU [% of one core]"
set yrange [0:*]
set key top right
plot "trace-envelope.dat" using 4:14 with steps lw 1 title "sender thread", \
     "trace-envelope.dat" using 4:15 with steps lw 1 title "broker (sidecar mode)", \
     "trace-envelope.dat" using 4:16 with steps lw 1 title "receiver thread", \
     "trace-envelope.dat" using 4:17 with steps lw 1 title "relay thread (stamps)"
