package io.msgscope.analysis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.msgscope.analysis.output.TraceDatWriter;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The self-check on trace.dat as written holds on what the writer wrote and fails on corrupted data. */
class TraceFileCheckTest {

    private static String written(Trace t, int m, long minSpan) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        TraceDatWriter.write(out, t, m, minSpan, List.of());
        return out.toString(StandardCharsets.US_ASCII);
    }

    private static TraceFileCheck check(String text, Trace t, int m, long minSpan) throws IOException {
        AnalysisResult a = TraceAnalysis.analyse(t, m, minSpan);
        return TraceFileCheck.check(new ByteArrayInputStream(text.getBytes(StandardCharsets.US_ASCII)), t.count(), a, m,
                minSpan);
    }

    /** Replaces one field (0-based column) of one data row (0-based). */
    private static String corrupt(String text, int row, int column, String value) {
        String[] lines = text.split("\n", -1);
        int data = -1;
        for (int i = 0; i < lines.length; i++) {
            if (lines[i].startsWith("#") || lines[i].isEmpty()) {
                continue;
            }
            if (++data == row) {
                String[] f = lines[i].split(" ");
                f[column] = value;
                lines[i] = String.join(" ", f);
            }
        }
        return String.join("\n", lines);
    }

    @Test
    void holdsOnWhatTheWriterWrote() throws IOException {
        for (long span : new long[] {0, 500}) {
            Trace t = HandTraces.plain();
            TraceFileCheck c = check(written(t, 2, span), t, 2, span);
            assertTrue(c.holds(), span + ": " + c);
            assertEquals(10, c.rows());
            assertEquals(10, c.latencyChecked());
            assertTrue(c.identityChecked() > 0, "identity rows " + c.identityChecked());
        }
        // loss and a clamped negative latency: the clamped row is left out of the identity, not failed
        Trace lossy = HandTraces.withLossAndNegative();
        TraceFileCheck c = check(written(lossy, 2, 0), lossy, 2, 0);
        assertTrue(c.holds(), c.toString());
        assertEquals(9, c.latencyChecked());
        // M = 1, the seed's form of the identity: RO_n - SO_n = L_n - L_(n-1) on every row from 1
        Trace plain = HandTraces.plain();
        TraceFileCheck m1 = check(written(plain, 1, 0), plain, 1, 0);
        assertTrue(m1.holds(), m1.toString());
        assertEquals(9, m1.identityChecked());
    }

    @Test
    void aCorruptedLatencyFails() throws IOException {
        Trace t = HandTraces.plain();
        TraceFileCheck c = check(corrupt(written(t, 1, 0), 3, 3, "601"), t, 1, 0);
        assertFalse(c.holds());
        assertTrue(c.firstProblem().startsWith("row 3: latency 601 but recv - send = 700")
                || c.firstProblem().startsWith("the summary disagrees"), c.firstProblem());
    }

    /** A rate that drifted by more than its rounding breaks the rate check and the M12 identity. */
    @Test
    void aCorruptedRateFailsTheIdentity() throws IOException {
        Trace t = HandTraces.plain();
        String text = written(t, 1, 0);
        // row 3: RT over 1 message = 1e9/300 = 3333333.3; 3333333.5 is off by 0.2, more than the rounding
        assertTrue(text.contains("\n3 400 1100 700 10000000.0 3333333.3\n"), text);
        TraceFileCheck c = check(corrupt(text, 3, 5, "3333333.5"), t, 1, 0);
        assertFalse(c.holds());
        assertEquals(2, c.violations(), c.toString()); // the rate against the times, and the identity
        assertTrue(c.firstProblem().startsWith("row 3: RT 3333333.5 but 1 messages over 300 ns"), c.firstProblem());
        // within the rounding (0.04) it holds
        assertTrue(check(corrupt(text, 3, 5, "3333333.29"), t, 1, 0).holds());
    }

    @Test
    void aCorruptedTimeADroppedRowOrAMalformedFieldFails() throws IOException {
        Trace t = HandTraces.plain();
        String text = written(t, 2, 0);
        assertFalse(check(corrupt(text, 5, 2, "1501"), t, 2, 0).holds());
        String dropped = text.replace("\n7 ", "\nX ").replaceAll("\nX [^\n]*", "");
        TraceFileCheck d = check(dropped, t, 2, 0);
        assertFalse(d.holds());
        assertFalse(d.summaryAgrees());
        TraceFileCheck bad = check(corrupt(text, 4, 1, "6O0"), t, 2, 0);
        assertFalse(bad.holds());
        assertTrue(bad.firstProblem().startsWith("row 4: seq NaN"), bad.firstProblem());
        // a rate blanked to NaN where M2 defines one
        assertFalse(check(corrupt(text, 6, 4, "NaN"), t, 2, 0).holds());
    }

    /** With a minimum span: a window column that is not the shortest spanning window is caught. */
    @Test
    void aWindowLongerThanNeededFails() throws IOException {
        Trace t = HandTraces.plain();
        String text = written(t, 2, 500);
        assertTrue(check(text, t, 2, 500).holds());
        // row 4: ST spans 3 messages over 500 ns (6,000,000.0); claiming 4 messages over 600 ns
        // (6,666,666.7) is arithmetic the file agrees with, but not the shortest window
        String longer = corrupt(corrupt(text, 4, 4, "6666666.7"), 4, 6, "4");
        TraceFileCheck c = check(longer, t, 2, 500);
        assertFalse(c.holds());
        assertTrue(c.firstProblem().contains("not the shortest"), c.firstProblem());
    }

    /** The analysis disagreeing with its own file (here: the analysis of another trace). */
    @Test
    void aSummaryThatDisagreesWithTheFileFails() throws IOException {
        Trace t = HandTraces.plain();
        AnalysisResult other = TraceAnalysis.analyse(HandTraces.withLossAndNegative(), 2);
        TraceFileCheck c = TraceFileCheck.check(new ByteArrayInputStream(written(t, 2, 0)
                .getBytes(StandardCharsets.US_ASCII)), 10, other, 2, 0);
        assertFalse(c.holds());
        assertTrue(c.firstProblem().startsWith("the summary disagrees with trace.dat: received 9 in the summary, 10 in "
                + "the file"), c.firstProblem());
    }
}
