package io.msgscope.analysis.output;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.msgscope.analysis.Trace;
import io.msgscope.analysis.TraceAnalysis;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** latency-histogram.dat with log-spaced bins (issue 29), against bins and counts worked out by hand. */
class LogHistogramTest {

    /** A trace whose message i was sent at i ms and took {@code latencies[i]} ns ({@link Trace#ABSENT}: lost). */
    private static Trace trace(long... latencies) {
        long[] send = new long[latencies.length];
        long[] recv = new long[latencies.length];
        for (int i = 0; i < latencies.length; i++) {
            send[i] = i * 1_000_000L;
            recv[i] = latencies[i] == Trace.ABSENT ? Trace.ABSENT : send[i] + latencies[i];
        }
        return new Trace(latencies.length, send, null, recv);
    }

    private static List<String> write(HistogramWriter writer, Trace trace) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        writer.write(out, trace, TraceAnalysis.analyse(trace, 1));
        return out.toString(StandardCharsets.US_ASCII).lines().toList();
    }

    @Test
    void twoDecadesInTwoBinsEachTenTimesWider() throws IOException {
        // min 1 µs, p99.9 = max (10 values, nearest rank) 100 µs: edges 1, 10, 100 µs; 1,000 ns is the first edge
        // itself, 100,000 ns the last (which the last bin includes); the lost message counts nowhere
        Trace t = trace(1_000, 1_500, 3_000, 9_000, Trace.ABSENT, 12_000, 50_000, 99_000, 100_000, 9_999);
        assertEquals(List.of(
                "# bin_low_us bin_high_us bin_center_us count",
                "# log-spaced bins: each edge is 10.000000 times the one before",
                "1.000 10.000 5.500 5",
                "10.000 100.000 55.000 4",
                "# overflow: 0 values above 100.000 us (of 9)"), write(HistogramWriter.withLogBins(2), t));
    }

    @Test
    void aZeroLatencyCountsInTheFirstBinThatStartsAtOneNanosecond() throws IOException {
        // a receive stamped before its send is clamped to 0 ns; the log bins start at 1 ns: 1, 10, 100, 1,000 ns (the
        // second edge is 1000^(1/3) = 9.999999999999998 ns in doubles, so the first midpoint 5.4999.. ns prints 0.005)
        Trace t = trace(-5, 50, 500, 1_000);
        assertEquals(List.of(
                "# bin_low_us bin_high_us bin_center_us count",
                "# log-spaced bins: each edge is 10.000000 times the one before",
                "0.001 0.010 0.005 1",
                "0.010 0.100 0.055 1",
                "0.100 1.000 0.550 2",
                "# overflow: 0 values above 1.000 us (of 4)"), write(HistogramWriter.withLogBins(3), t));
    }

    @Test
    void countsAndOverflowMatchANaiveCountOverTheSameEdges() throws IOException {
        // 3,000 latencies spread over ~3 decades; p99.9 is the 2,997th smallest, so the 3 largest overflow
        long[] lat = new long[3_000];
        for (int i = 0; i < lat.length; i++) {
            lat[i] = 2_000 + (long) (Math.pow((i * 7919L) % 3_000, 2) / 3.7);
        }
        long[] sorted = lat.clone();
        Arrays.sort(sorted);
        long min = sorted[0];
        long p999 = sorted[(int) Math.ceil(0.999 * lat.length) - 1];
        int bins = 7;
        double ratio = Math.pow((double) p999 / min, 1.0 / bins);
        long[] expected = new long[bins];
        long overflow = 0;
        for (long x : lat) {
            if (x > p999) {
                overflow++;
                continue;
            }
            int b = 0;
            while (b < bins - 1 && x >= min * Math.pow(ratio, b + 1)) {
                b++;
            }
            expected[b]++;
        }
        List<String> lines = write(HistogramWriter.withLogBins(bins), trace(lat));
        assertEquals(bins + 3, lines.size(), lines::toString);
        assertEquals(String.format(java.util.Locale.ROOT, "# log-spaced bins: each edge is %.6f times the one before",
                ratio), lines.get(1));
        long sum = 0;
        for (int b = 0; b < bins; b++) {
            String[] f = lines.get(2 + b).split(" ");
            assertEquals(min * Math.pow(ratio, b) / 1_000, Double.parseDouble(f[0]), 0.0011, lines.get(2 + b));
            assertEquals(expected[b], Long.parseLong(f[3]), "bin " + b + ": " + lines);
            sum += expected[b];
        }
        assertEquals(3, overflow);
        assertEquals(String.format(java.util.Locale.ROOT, "# overflow: 3 values above %.3f us (of 3000)", p999 / 1_000d),
                lines.get(bins + 2));
        assertEquals(lat.length - 3, sum);
        assertTrue(Arrays.stream(expected).allMatch(c -> c > 0), () -> "every bin holds some: " + Arrays.toString(expected));
    }

    @Test
    void theLogScriptDrawsTheBinsOnALogAxis() {
        String log = HistogramWriter.script(true);
        assertTrue(log.contains("set logscale x 10\n"), log);
        assertTrue(log.contains("using 3:4:($2-$1) with boxes"), log); // midpoint and full width: the box is [low, high]
        assertTrue(!HistogramWriter.script(false).contains("logscale"));
    }
}
