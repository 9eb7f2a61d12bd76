package io.msgscope.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Bad input to the run store and {@code msgscope history} (issue 34): one line naming the option, exit 2, and for a
 * store that does not answer, before anything runs (no results folder is made).
 */
class HistoryUsageTest {
    @TempDir
    Path tmp;

    private static CliUsageTest.Result run(String... args) {
        return CliUsageTest.run(args); // in process, as CliUsageTest
    }

    /** A loopback port nobody listens on. */
    private static int closedPort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    @Test
    void aStoreThatDoesNotAnswerStopsTheRunBeforeItStarts() throws IOException {
        Path out = tmp.resolve("never");
        CliUsageTest.Result r = run("run", "--count", "2000", "--store", "postgresql://postgres@127.0.0.1:" + closedPort() + "/test",
                "--out", out.toString());
        assertEquals(2, r.code(), r.err());
        assertEquals(1, r.errLines().size(), r.err());
        assertTrue(r.err().startsWith("msgscope run: --store: postgresql://postgres@127.0.0.1:"), r.err());
        assertTrue(r.err().contains("does not answer"), r.err());
        assertFalse(Files.exists(out), "nothing ran: no results folder");
    }

    @Test
    void aStoreFileThatCannotBeMadeStopsTheRunToo() throws IOException {
        Path blocker = Files.writeString(tmp.resolve("a-file"), "x");
        CliUsageTest.Result r = run("throughput", "--store", blocker.resolve("history.db").toString(), "--out",
                tmp.resolve("t").toString());
        assertEquals(2, r.code(), r.err());
        assertTrue(r.err().startsWith("msgscope throughput: --store: " + blocker.resolve("history.db")
                + " does not answer (cannot make the folder " + blocker), r.err());
        assertFalse(Files.exists(tmp.resolve("t")));
    }

    @Test
    void aBadLabelIsBadUsage() {
        CliUsageTest.Result r = run("run", "--count", "2000", "--store", "none", "--label", "no-equals-sign", "--out",
                tmp.resolve("l").toString());
        assertEquals(2, r.code(), r.err());
        assertEquals(1, r.errLines().size(), r.err());
        assertTrue(r.err().startsWith("msgscope run: --label: expected KEY=VALUE"), r.err());
        CliUsageTest.Result h = run("history", "--store", tmp.resolve("h.db").toString(), "--label", "a b=c");
        assertEquals(2, h.code(), h.err());
        assertTrue(h.err().startsWith("msgscope history: --label: expected KEY=VALUE"), h.err());
    }

    @Test
    void anUnknownFigureIsBadUsageAndNamesTheKnownOnes() {
        CliUsageTest.Result r = run("history", "--store", tmp.resolve("h.db").toString(), "--figure", "p99");
        assertEquals(2, r.code(), r.err());
        assertEquals(1, r.errLines().size(), r.err());
        assertTrue(r.err().startsWith("msgscope history: --figure: unknown figure 'p99'; known: latency_min_us"), r.err());
    }

    @Test
    void badDatesAndGnuplotWithoutAFigure() {
        CliUsageTest.Result d = run("history", "--store", tmp.resolve("h.db").toString(), "--since", "yesterday");
        assertEquals(2, d.code(), d.err());
        assertTrue(d.err().startsWith("msgscope history: --since: expected a date"), d.err());
        CliUsageTest.Result g = run("history", "--store", tmp.resolve("h.db").toString(), "--gnuplot", tmp.toString());
        assertEquals(2, g.code(), g.err());
        assertTrue(g.err().startsWith("msgscope history: --gnuplot: needs --figure"), g.err());
    }

    @Test
    void changePointsNeedAFigureAndASignificanceBetweenZeroAndOne() {
        CliUsageTest.Result f = run("history", "--store", tmp.resolve("h.db").toString(), "--change-points");
        assertEquals(2, f.code(), f.err());
        assertTrue(f.err().startsWith("msgscope history: --change-points: needs --figure"), f.err());
        CliUsageTest.Result a = run("history", "--store", tmp.resolve("h.db").toString(), "--figure", "latency_p99_us",
                "--change-points=1.5");
        assertEquals(2, a.code(), a.err());
        assertTrue(a.err().startsWith("msgscope history: --change-points: the significance must be between 0 and 1"),
                a.err());
        CliUsageTest.Result ok = run("history", "--store", tmp.resolve("h.db").toString(), "--figure", "latency_p99_us",
                "--change-points");
        assertEquals(0, ok.code(), ok.err());
        assertTrue(ok.out().contains("change points of latency_p99_us: too few runs to tell (0 with the figure"), ok.out());
    }

    @Test
    void anEmptyStoreListsNoRuns() {
        CliUsageTest.Result r = run("history", "--store", tmp.resolve("fresh/h.db").toString());
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().contains("0 runs"), r.out());
    }
}
