package io.msgscope.coordinator.sweep;

import static org.junit.jupiter.api.Assertions.assertEquals;
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
}
