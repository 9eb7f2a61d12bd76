package io.msgscope.coordinator.capacity;

import io.msgscope.core.SpecException;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ObjectiveTest {
    @Test
    void parsesPercentilesAndUnits() {
        Objective o = Objective.parse("--objective", "p99=5ms, p99.9=20ms,p50=800us");
        assertEquals(3, o.bounds().size());
        assertEquals("p999", o.bounds().get(1).name());
        assertEquals("p99_9", o.bounds().get(1).seriesKey());
        assertEquals(5000, o.bounds().get(0).boundUs());
        assertEquals(800, o.tightestUs());
        assertEquals("p99 ≤ 5 ms, p999 ≤ 20 ms, p50 ≤ 800 µs", o.text());
        assertEquals(1.5e6, Objective.parse("--objective", "p95=1.5s").bounds().get(0).boundUs());
        assertEquals(0.5, Objective.parse("--objective", "p90=500ns").bounds().get(0).boundUs());
    }

    @Test
    void refusesWhatIsNoObjective() {
        for (String bad : new String[]{"5ms", "p99=5", "p97=5ms", "p99=5xs", "p99=0ms", "p99=5ms,p99=6ms", " ",
                "latency=5ms"}) {
            SpecException e = assertThrows(SpecException.class, () -> Objective.parse("--objective", bad), bad);
            assertEquals("--objective", e.option());
            assertTrue(!e.getMessage().contains("\n"), bad);
        }
    }
}
