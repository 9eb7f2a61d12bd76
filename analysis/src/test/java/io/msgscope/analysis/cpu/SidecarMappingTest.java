package io.msgscope.analysis.cpu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.msgscope.analysis.Trace;
import org.junit.jupiter.api.Test;

/**
 * Probe samples every 10 ms at probe times 0, 10, …, 100 ms. The broker uses 50 % of a core until
 * probe time 50 ms and 100 % after it: U(T) = T/2 for T ≤ 50 ms, 25 ms + (T − 50 ms) after.
 */
class SidecarMappingTest {

    private static final long A = Trace.ABSENT;
    private static final long MS = 1_000_000L;
    private static final double PCT = CpuWindows.PERCENT_OF_ONE_CORE;
    private static final double EPS = 1e-9;
    private static final int SAMPLES = 11;
    private static final long[] PROBE_NS = new long[SAMPLES + 3]; // preallocated, only 11 used
    private static final long[] PROBE_CPU = new long[SAMPLES + 3];

    static {
        for (int s = 0; s < SAMPLES; s++) {
            long t = 10 * MS * s;
            PROBE_NS[s] = t;
            PROBE_CPU[s] = t <= 50 * MS ? t / 2 : 25 * MS + (t - 50 * MS);
        }
    }

    private static double[] map(long offsetNs, long[] send, long[] recv, int every) {
        return SidecarMapping.map("broker_cpu_pct", PROBE_NS, PROBE_CPU, SAMPLES, offsetNs, send, recv,
                send.length, every, PCT).values();
    }

    private static long[] ms(double... values) {
        long[] ns = new long[values.length];
        for (int i = 0; i < values.length; i++) {
            ns[i] = Double.isNaN(values[i]) ? A : Math.round(values[i] * MS);
        }
        return ns;
    }

    @Test
    void windowsMapToTheEnclosingProbeSamples() {
        double x = Double.NaN;
        // every=2, 4 windows (ms, sender/receiver clock = probe clock):
        // w0: O 12, 14; I 30, 38 → [12, 38] → samples 10..40 ms: (20 − 5)/30 = 50 %.
        // w1: O 21, 22; I 22.5, 23 → [21, 23], shorter than a period → 20..30 ms: 5/10 = 50 %.
        // w2: O 45, (lost); I 50, 55 → [45, 55] → 40..60 ms: U 20 → 35, 15/20 = 75 %.
        // w3: O 95, 96; I 101, (lost) → ends at 101 ms, after the last sample (100 ms) → NaN.
        long[] send = ms(12, 14, 21, 22, 45, x, 95, 96);
        long[] recv = ms(30, 38, 22.5, 23, 50, 55, 101, x);
        double[] v = map(0, send, recv, 2);
        assertEquals(50, v[0], EPS);
        assertEquals(50, v[1], EPS);
        assertEquals(75, v[2], EPS);
        assertTrue(Double.isNaN(v[3]));
    }

    @Test
    void offsetShiftsWhichSamplesAreUsed() {
        // One message, O = 42 ms, I = 48 ms on the sender/receiver clock.
        long[] send = ms(42);
        long[] recv = ms(48);
        // offset 0: probe [42, 48] → samples 40..50 ms, before the step: 5/10 = 50 %.
        assertEquals(50, map(0, send, recv, 1)[0], EPS);
        // offset +10 ms: probe [52, 58] → 50..60 ms, after the step: 10/10 = 100 %.
        assertEquals(100, map(10 * MS, send, recv, 1)[0], EPS);
        // offset +5 ms: probe [47, 53] → 40..60 ms, across the step: (35 − 20)/20 = 75 %.
        assertEquals(75, map(5 * MS, send, recv, 1)[0], EPS);
        // offset −45 ms: probe [−3, 3] starts before the first sample → NaN.
        assertTrue(Double.isNaN(map(-45 * MS, send, recv, 1)[0]));
    }

    @Test
    void windowOnASampleInstantStillUsesAFullPeriod() {
        // O = I = 30 ms exactly on a sample: one full period after it, 30..40 ms → 50 %.
        assertEquals(50, map(0, ms(30), ms(30), 1)[0], EPS);
        // O = I = 100 ms, the last sample: the period before it, 90..100 ms → 100 %.
        assertEquals(100, map(0, ms(100), ms(100), 1)[0], EPS);
        // Received "before" sent (clock error): measured around the send time, 60..70 ms → 100 %.
        assertEquals(100, map(0, ms(61), ms(60.5), 1)[0], EPS);
    }

    @Test
    void windowsWithoutPresentTimesOrCounterAreUndefined() {
        double x = Double.NaN;
        // w0: nothing sent; w1: nothing received; w2: [20, 25] → 20..30 ms = 50 %.
        double[] v = map(0, ms(x, x, 10, 11, 20, 21), ms(15, 16, x, x, 24, 25), 2);
        assertTrue(Double.isNaN(v[0]));
        assertTrue(Double.isNaN(v[1]));
        assertEquals(50, v[2], EPS);
        // A probe sample whose counter could not be read.
        long[] cpu = PROBE_CPU.clone();
        cpu[3] = A;
        assertTrue(Double.isNaN(SidecarMapping.map("b", PROBE_NS, cpu, SAMPLES, 0, ms(31), ms(35), 1, 1, PCT)
                .window(0)));
        // No probe samples at all.
        assertTrue(Double.isNaN(SidecarMapping.map("b", PROBE_NS, PROBE_CPU, 0, 0, ms(31), ms(35), 1, 1, PCT)
                .window(0)));
    }

    @Test
    void probeClockMustNotGoBackwards() {
        long[] t = PROBE_NS.clone();
        t[5] = 3 * MS;
        assertThrows(IllegalArgumentException.class,
                () -> SidecarMapping.map("b", t, PROBE_CPU, SAMPLES, 0, ms(31), ms(35), 1, 1, PCT));
    }
}
