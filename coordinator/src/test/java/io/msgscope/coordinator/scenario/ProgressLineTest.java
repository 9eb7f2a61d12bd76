package io.msgscope.coordinator.scenario;

import org.junit.jupiter.api.Test;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import java.util.Locale;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Q8's progress line, rendered through fake streams. */
class ProgressLineTest {
    @Test
    void formatsLikeTheSeed() {
        Locale saved = Locale.getDefault();
        Locale.setDefault(Locale.GERMANY);
        try {
            assertEquals("fan-in @ QoS 2 ━━━━━━━━━━━━━━━───── 45s/60s  12,450 msg/s  P99: 23ms",
                    ProgressLine.format("fan-in @ QoS 2", 45, 60, 12_450.2, 23_400_000));
            assertEquals("x ━━━━━━━━━━━━━━━━━━━━ 60s/60s  0 msg/s  P99: -", ProgressLine.format("x", 60, 60, 0, -1));
        } finally {
            Locale.setDefault(saved);
        }
        assertEquals("850µs", ProgressLine.duration(850_400));
        assertEquals("1.5ms", ProgressLine.duration(1_500_000));
        assertEquals("2.1s", ProgressLine.duration(2_100_000_000L));
    }

    @Test
    void plainLinesWhenNotATerminal() {
        StringWriter sw = new StringWriter();
        ProgressLine p = new ProgressLine(new PrintWriter(sw), false, "fan-out @ QoS 1");
        p.update("", 1, 2, 100, 1_000_000);
        p.update("", 2, 2, 200, 2_000_000);
        p.finish();
        String s = sw.toString();
        assertFalse(s.contains("\r"), s);
        assertEquals(2, s.lines().count(), s);
        assertTrue(s.lines().toList().get(1).startsWith("fan-out @ QoS 1 ━━━━━━━━━━━━━━━━━━━━ 2s/2s  200 msg/s"), s);
    }

    @Test
    void rewritesInPlaceOnATerminal() {
        StringWriter sw = new StringWriter();
        ProgressLine p = new ProgressLine(new PrintWriter(sw), true, "rr");
        p.update("", 1, 2, 1_000, 5_000);
        p.update("", 2, 2, 10, 5_000);
        p.finish();
        String s = sw.toString();
        assertEquals(2, s.chars().filter(c -> c == '\r').count(), s);
        assertTrue(s.endsWith(System.lineSeparator()), s);
        // the shorter second line blanks out what the first left behind
        String second = s.substring(s.lastIndexOf('\r') + 1).stripTrailing();
        assertEquals("rr ━━━━━━━━━━━━━━━━━━━━ 2s/2s  10 msg/s  P99: 5µs", second);
    }

    @Test
    void errorsAppearOnceThereAreAny() {
        StringWriter sw = new StringWriter();
        ProgressLine p = new ProgressLine(new PrintWriter(sw), false, "fan-in @ QoS 1");
        p.update("", 1, 2, 100, 1_000_000, 0);
        p.update("", 2, 2, 0, -1, 3);
        List<String> lines = sw.toString().lines().toList();
        assertFalse(lines.get(0).contains("errors"), lines.get(0));
        assertEquals("fan-in @ QoS 1 ━━━━━━━━━━━━━━━━━━━━ 2s/2s  0 msg/s  P99: -  errors: 3", lines.get(1));
    }
}
