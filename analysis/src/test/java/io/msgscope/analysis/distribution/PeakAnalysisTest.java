package io.msgscope.analysis.distribution;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.msgscope.analysis.HandTraces;
import io.msgscope.analysis.Trace;
import io.msgscope.analysis.output.Plotter;
import io.msgscope.analysis.output.TraceDatWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PeakAnalysisTest {

    @TempDir
    Path dir;

    /**
     * 40 messages of 100 ns except: #0 1000 and #1 250 (first 5 % = #0, #1), #5 lost, #10 −50
     * (clamped to 0), #20 600 and #21 201 (middle), #38 150 and #39 450 (last 5 % = #38, #39).
     * 39 present; sorted: 0, 32 × 100, 150, 201, 250, 450, 600, 1000 → lower median (index 19) 100.
     */
    static long[] hand() {
        long[] ns = new long[40];
        Arrays.fill(ns, 100);
        ns[0] = 1000;
        ns[1] = 250;
        ns[5] = Trace.ABSENT;
        ns[10] = -50;
        ns[20] = 600;
        ns[21] = 201;
        ns[38] = 150;
        ns[39] = 450;
        return ns;
    }

    @Test
    void handMadePeaksAreCountedWhereTheyOccur() {
        PeakAnalysis.Result r = PeakAnalysis.analyse(hand(), 40);
        assertEquals(40, r.length());
        assertEquals(39, r.present());
        assertEquals(100, r.medianNs());
        assertEquals(1000, r.maxNs());
        assertEquals(0, r.maxIndex());
        assertEquals(2, r.firstEnd());
        assertEquals(38, r.lastStart());

        // k = 2: > 200 → 1000 (#0), 250 (#1), 600 (#20), 201 (#21), 450 (#39)
        assertEquals(new PeakAnalysis.Exceedance(2.0, 200, 5, 1000, 2, 2, 1, 0, 39), r.exceedances().get(0));
        // k = 5: > 500 → 1000 (#0), 600 (#20)
        assertEquals(new PeakAnalysis.Exceedance(5.0, 500, 2, 1000, 1, 1, 0, 0, 20), r.exceedances().get(1));
        // k = 10: > 1000 → none (strictly greater)
        assertEquals(new PeakAnalysis.Exceedance(10.0, 1000, 0, Trace.ABSENT, 0, 0, 0, -1, -1),
                r.exceedances().get(2));

        assertEquals(List.of(new PeakAnalysis.Peak(0, 1000), new PeakAnalysis.Peak(20, 600),
                new PeakAnalysis.Peak(39, 450), new PeakAnalysis.Peak(1, 250), new PeakAnalysis.Peak(21, 201),
                new PeakAnalysis.Peak(38, 150), new PeakAnalysis.Peak(2, 100), new PeakAnalysis.Peak(3, 100),
                new PeakAnalysis.Peak(4, 100), new PeakAnalysis.Peak(6, 100)), r.topPeaks());
    }

    @Test
    void separationKeepsOnlyLocalPeaks() {
        List<PeakAnalysis.Peak> peaks = PeakAnalysis.topPeaks(hand(), 40, 4, 1);
        // #1 (250) is next to #0 (1000), #21 next to #20, #38 next to #39; #6 is the first 100
        // with no message ≥ it just before (#5 is lost, #4 is two away) and none higher after
        assertEquals(List.of(new PeakAnalysis.Peak(0, 1000), new PeakAnalysis.Peak(20, 600),
                new PeakAnalysis.Peak(39, 450), new PeakAnalysis.Peak(6, 100)), peaks);
        assertEquals(List.of(new PeakAnalysis.Peak(0, 1000), new PeakAnalysis.Peak(20, 600)),
                PeakAnalysis.topPeaks(hand(), 40, 5, 19));
    }

    @Test
    void knownMedianAndCustomFactors() {
        PeakAnalysis.Result r = PeakAnalysis.analyse(hand(), 40, 200, List.of(1.5), 2, 0);
        assertEquals(new PeakAnalysis.Exceedance(1.5, 300, 3, 1000, 1, 1, 1, 0, 39), r.exceedances().get(0));
        assertEquals(2, r.topPeaks().size());
    }

    @Test
    void latenciesFromATrace() {
        long[] l = PeakAnalysis.latencies(HandTraces.withLossAndNegative());
        assertArrayEquals(new long[] {0, 600, 500, 700, Trace.ABSENT, 800, 700, 900, 800, 1100}, l);
    }

    @Test
    void selectionMatchesSorting() {
        Random random = new Random(5);
        for (int round = 0; round < 300; round++) {
            int n = 1 + random.nextInt(round < 100 ? 20 : 5000);
            long[] a = new long[n];
            int distinct = 1 + random.nextInt(round % 3 == 0 ? 3 : 1_000_000);
            for (int i = 0; i < n; i++) {
                a[i] = random.nextInt(distinct);
            }
            long[] sorted = a.clone();
            Arrays.sort(sorted);
            long[] before = a.clone();
            assertEquals(sorted[(n - 1) / 2], LowerMedian.of(a, n), "round " + round);
            assertArrayEquals(before, a, "the input is not modified");
        }
        assertEquals(Trace.ABSENT, LowerMedian.of(new long[] {Trace.ABSENT}, 1));
    }

    @Test
    void emptyRun() {
        PeakAnalysis.Result r = PeakAnalysis.analyse(new long[] {Trace.ABSENT, Trace.ABSENT}, 2);
        assertEquals(0, r.present());
        assertEquals(Trace.ABSENT, r.medianNs());
        assertEquals(-1, r.maxIndex());
        assertTrue(r.topPeaks().isEmpty());
    }

    @Test
    void marksFileAndPlot() throws IOException {
        PeakAnalysis.Result r = PeakAnalysis.analyse(hand(), 40, PeakAnalysis.DEFAULT_FACTORS, 3, 0);
        PeakPlots.writeMarks(dir.resolve("latency-peaks.dat"), r.topPeaks());
        assertEquals("# seq latency_us\n0 1.000\n20 0.600\n39 0.450\n",
                Files.readString(dir.resolve("latency-peaks.dat"), StandardCharsets.UTF_8));
        String fragment = PeakPlots.plotFragment("latency-peaks.dat");
        assertTrue(fragment.startsWith(", \\\n     \"latency-peaks.dat\" using 1:2 with points"), fragment);
        assertTrue(PeakPlots.thresholdLines(r).contains("set arrow 100 from graph 0, first 0.200 to graph 1, first 0.200"));

        DistributionWriterTest.requireGnuplot();
        long[] send = new long[40];
        long[] recv = new long[40];
        long[] lat = hand();
        for (int i = 0; i < 40; i++) {
            send[i] = 1_000L * i;
            recv[i] = lat[i] == Trace.ABSENT ? Trace.ABSENT : send[i] + lat[i];
        }
        TraceDatWriter.write(dir.resolve("trace.dat"), new Trace(40, send, null, recv), 2);
        PeakPlots.gnuplot(dir, "latency-peaks.gp", "trace.dat", "latency-peaks.dat", "latency-peaks.png", r);
        List<Path> pngs = Plotter.render(dir);
        assertEquals(List.of(dir.resolve("latency-peaks.png")), pngs);
        assertTrue(Files.size(pngs.get(0)) > 1000);
    }

    @Test
    void millionMessages() {
        Random random = new Random(12);
        long[] ns = new long[1_000_000];
        for (int i = 0; i < ns.length; i++) {
            ns[i] = Math.round(150_000 * Math.exp(0.3 * random.nextGaussian()));
        }
        ns[10] = 5_000_000;
        ns[999_990] = 4_000_000;
        PeakAnalysis.analyse(ns, ns.length); // warm up
        long t0 = System.nanoTime();
        PeakAnalysis.Result r = PeakAnalysis.analyse(ns, ns.length);
        long t1 = System.nanoTime();
        PeakAnalysis.analyse(ns, ns.length, PeakAnalysis.DEFAULT_FACTORS, 10, 100);
        long t2 = System.nanoTime();
        System.out.printf("PeakAnalysis: 1,000,000 messages in %.1f ms (separation 100: %.1f ms)%n",
                (t1 - t0) / 1e6, (t2 - t1) / 1e6);
        assertEquals(new PeakAnalysis.Peak(10, 5_000_000), r.topPeaks().get(0));
        assertEquals(new PeakAnalysis.Peak(999_990, 4_000_000), r.topPeaks().get(1));
        PeakAnalysis.Exceedance ten = r.exceedances().get(2);
        assertEquals(2, ten.count(), "only the two planted peaks exceed 10 × median");
        assertEquals(1, ten.inFirst());
        assertEquals(1, ten.inLast());
        assertEquals(0, ten.inMiddle());
    }
}
