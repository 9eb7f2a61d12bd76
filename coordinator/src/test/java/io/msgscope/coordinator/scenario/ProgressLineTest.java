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

    @Test
    void theDrainLineSaysHowFarTheWaitGotAndHowCloseItIsToGivingUp() {
        assertEquals("rr draining 45,000 of 60,000 (75.0 %) 8.2 s  12,450 msg/s  last delivery 0.3 s ago (gives up "
                + "after 5.0 s)", ProgressLine.drainingLine("rr", 45_000, 60_000, 8.24, 12_450.4, 0.31, 5));
    }

    @Test
    void aWaitUnderASecondShowsNothing() {
        StringWriter sw = new StringWriter();
        ProgressLine p = new ProgressLine(new PrintWriter(sw), false, "rr");
        p.draining(10, 20, 0.1, 0, 5, false);
        p.draining(20, 20, 0.9, 0, 5, true);
        assertEquals("", sw.toString());
    }

    @Test
    void plainDrainLinesComeAfterASecondEveryFiveSecondsAndAtTheEnd() {
        StringWriter sw = new StringWriter();
        ProgressLine p = new ProgressLine(new PrintWriter(sw), false, "rr");
        p.draining(1_000, 10_000, 0.0, 0, 5, false); // the wait's first poll: 1,000 already there
        p.draining(1_500, 10_000, 0.5, 0, 5, false);
        p.draining(2_000, 10_000, 1.0, 0, 5, false); // shown: 1,000 in 1.0 s
        p.draining(3_000, 10_000, 3.0, 0, 5, false); // not shown: within 5 s of the last
        p.draining(7_000, 10_000, 6.0, 0.2, 5, false); // shown: 5,000 in 5.0 s
        p.draining(10_000, 10_000, 6.5, 0, 5, true); // the end: 3,000 in 0.5 s
        List<String> lines = sw.toString().lines().toList();
        assertEquals(List.of(
                "rr draining 2,000 of 10,000 (20.0 %) 1.0 s  1,000 msg/s  last delivery 0.0 s ago (gives up after 5.0 s)",
                "rr draining 7,000 of 10,000 (70.0 %) 6.0 s  1,000 msg/s  last delivery 0.2 s ago (gives up after 5.0 s)",
                "rr draining 10,000 of 10,000 (100.0 %) 6.5 s  6,000 msg/s  last delivery 0.0 s ago (gives up after "
                        + "5.0 s)"), lines);
    }

    @Test
    void onATerminalTheDrainLineIsRewrittenAtMostTwiceASecond() {
        StringWriter sw = new StringWriter();
        ProgressLine p = new ProgressLine(new PrintWriter(sw), true, "rr");
        for (int i = 0; i <= 30; i++) { // a poll every 100 ms for 3 s
            p.draining(i * 100L, 10_000, i / 10.0, 0, 5, false);
        }
        p.finish();
        String s = sw.toString();
        // at 1.0, 1.5, 2.0, 2.5 and 3.0 s
        assertEquals(5, s.chars().filter(c -> c == '\r').count(), s);
        assertTrue(s.substring(s.lastIndexOf('\r') + 1).startsWith("rr draining 3,000 of 10,000 (30.0 %) 3.0 s  "
                + "1,000 msg/s"), s);
    }
}
