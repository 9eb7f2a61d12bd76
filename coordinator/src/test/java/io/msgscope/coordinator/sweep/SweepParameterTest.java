package io.msgscope.coordinator.sweep;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.msgscope.core.SpecException;
import org.junit.jupiter.api.Test;

import java.util.List;

class SweepParameterTest {
    @Test
    void sizesTakeBinarySuffixes() {
        SweepParameter p = SweepParameter.parse(SweepParameter.Kind.SIZE, "64, 256,1k,4K,1m");
        assertEquals(List.of(64.0, 256.0, 1024.0, 4096.0, 1048576.0), p.values());
        assertEquals("1048576", SweepParameter.argument(p.values().get(4)));
    }

    @Test
    void ratesTakeDecimalSuffixesAndWindowsPlainIntegers() {
        assertEquals(List.of(0.0, 20000.0, 1.5e6, 2500.5),
                SweepParameter.parse(SweepParameter.Kind.RATE, "0,20k,1.5m,2500.5").values());
        assertEquals(List.of(10.0, 100.0), SweepParameter.parse(SweepParameter.Kind.WINDOW, "10,100").values());
        assertEquals("2500.5", SweepParameter.format(2500.5));
    }

    @Test
    void badValuesNameTheOption() {
        for (String bad : new String[] {"64,abc", "1x", "0", "-5", "64,,128", "", "3m,3m", "4096m"}) {
            SpecException e = assertThrows(SpecException.class,
                    () -> SweepParameter.parse(SweepParameter.Kind.SIZE, bad), bad);
            assertEquals("--sizes", e.option(), bad);
            assertTrue(e.getMessage().startsWith("--sizes: "), e.getMessage());
        }
        assertEquals("--rates", assertThrows(SpecException.class,
                () -> SweepParameter.parse(SweepParameter.Kind.RATE, "-1")).option());
        assertEquals("--rates", assertThrows(SpecException.class,
                () -> SweepParameter.parse(SweepParameter.Kind.RATE, "fast")).option());
        assertEquals("--windows", assertThrows(SpecException.class,
                () -> SweepParameter.parse(SweepParameter.Kind.WINDOW, "1k")).option());
        assertEquals("--windows", assertThrows(SpecException.class,
                () -> SweepParameter.parse(SweepParameter.Kind.WINDOW, "0")).option());
    }

    @Test
    void inFlightsAreWholeNumbersWithDecimalSuffixesAndALogAxisWhenTheySpanDecades() {
        SweepParameter p = SweepParameter.parse(SweepParameter.Kind.IN_FLIGHT, "1,10,100,1k");
        assertEquals(List.of(1.0, 10.0, 100.0, 1000.0), p.values());
        assertEquals(List.of("--in-flight", "1000"), p.arguments(3));
        assertTrue(p.logAxis());
        assertEquals("in_flight", p.column());
        assertFalse(SweepParameter.parse(SweepParameter.Kind.IN_FLIGHT, "10,20,30").logAxis());
        for (String bad : new String[] {"0", "1.5", "auto", "2m0", "-1"}) {
            assertEquals("--in-flights", assertThrows(SpecException.class,
                    () -> SweepParameter.parse(SweepParameter.Kind.IN_FLIGHT, bad), bad).option());
        }
    }

    @Test
    void optionValuesAreNumericOrCategories() {
        SweepParameter tx = SweepParameter.parse(SweepParameter.Kind.OPT, "tx_size=0,1,10,100");
        assertEquals("tx_size", tx.column());
        assertTrue(tx.numeric());
        assertEquals(List.of(0.0, 1.0, 10.0, 100.0), tx.values());
        assertFalse(tx.logAxis(), "0 cannot sit on a log axis");
        assertEquals(List.of("--opt", "tx_size=10"), tx.arguments(2));
        assertEquals("driver option tx_size", tx.axisLabel());

        SweepParameter storage = SweepParameter.parse(SweepParameter.Kind.OPT, "storage=file,memory");
        assertFalse(storage.numeric());
        assertEquals(List.of(0.0, 1.0), storage.values(), "categories sit at their index");
        assertEquals(List.of("file", "memory"), storage.labels());
        assertEquals("memory", storage.dirName(1));

        for (String bad : new String[] {"qos", "=1,2", "qos=1,,2", "qos=1,1", "topic=a b", "k y=1"}) {
            SpecException e = assertThrows(SpecException.class,
                    () -> SweepParameter.parse(SweepParameter.Kind.OPT, bad), bad);
            assertEquals("--opt-values", e.option(), bad);
        }
    }
}
