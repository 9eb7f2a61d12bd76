package io.msgscope.analysis.cpu;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.msgscope.analysis.SeriesStats;
import org.junit.jupiter.api.Test;

class StepSeriesTest {

    private static final double NAN = Double.NaN;

    @Test
    void statsOverDefinedWindowsOnly() {
        // Defined values 10, 30, 20 → sorted 10, 20, 30: mean 20, lower median 20,
        // robust deviation (10 + 0 + 10)/3 = 6.667, min 10, max 30, p99 = sorted[ceil(2.97) − 1] = 30.
        StepSeries s = new StepSeries("cpu", 10, 50, new double[] {10, NAN, 30, 20, NAN});
        SeriesStats stats = s.stats();
        assertEquals(3, stats.n());
        assertEquals(20, stats.mean(), 1e-12);
        assertEquals(20, stats.median());
        assertEquals(20.0 / 3, stats.robustDeviation(), 1e-12);
        assertEquals(10, stats.min());
        assertEquals(30, stats.max());
        assertEquals(30, stats.p99());
        assertEquals(3, s.definedWindows());
        assertTrue(new StepSeries("cpu", 10, 20, new double[] {NAN, NAN}).stats().isEmpty());
    }

    @Test
    void immutableStepsAndScaling() {
        double[] values = {1, NAN, 3};
        StepSeries s = new StepSeries("cpu", 4, 10, values);
        values[0] = 99;
        assertEquals(1, s.valueAt(3));
        assertTrue(Double.isNaN(s.valueAt(4)));
        assertEquals(3, s.valueAt(9)); // partial last window: messages 8, 9
        s.values()[2] = 99;
        assertEquals(3, s.window(2));
        StepSeries cores = s.scaled("cpu_cores", 0.01);
        assertEquals("cpu_cores", cores.name());
        assertEquals(4, cores.every());
        assertArrayEquals(new double[] {0.01, NAN, 0.03}, cores.values(), 1e-15);
    }

    @Test
    void checksShapeAndName() {
        assertThrows(IllegalArgumentException.class, () -> new StepSeries("cpu", 4, 10, new double[2]));
        assertThrows(IllegalArgumentException.class, () -> new StepSeries("cpu", 0, 10, new double[0]));
        assertThrows(IllegalArgumentException.class, () -> new StepSeries("broker cpu", 4, 10, new double[3]));
        assertThrows(IllegalArgumentException.class, () -> new StepSeries("", 4, 10, new double[3]));
        assertEquals(0, new StepSeries("cpu", 4, 0, new double[0]).windows());
        assertEquals(3, StepSeries.windowCount(25, 10));
        assertEquals(2, StepSeries.windowCount(20, 10));
    }
}
