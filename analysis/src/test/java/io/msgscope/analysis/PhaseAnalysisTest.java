package io.msgscope.analysis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

import java.util.List;

class PhaseAnalysisTest {
    static final long ORIGIN = 1_000_000;
    static final long MS = 1_000_000;

    /**
     * Phase a: messages 0-9, one per ms from the origin, each sent 100 ns late and received 5 µs after its send,
     * message 3 lost. A pause of 5 ms. Phase b: messages 10-19 every 0.5 ms from 15 ms, received 20 µs after their
     * send; message 10 sent 2 ms late (the rate moved late), message 12 never sent.
     */
    static Trace trace() {
        long[] intended = new long[20];
        long[] send = new long[20];
        long[] recv = new long[20];
        for (int i = 0; i < 20; i++) {
            boolean a = i < 10;
            intended[i] = ORIGIN + (a ? i * MS : 15 * MS + (i - 10) * MS / 2);
            send[i] = intended[i] + (i == 10 ? 2 * MS : 100);
            recv[i] = send[i] + (a ? 5_000 : 20_000);
        }
        recv[3] = Trace.ABSENT;
        send[12] = Trace.ABSENT;
        recv[12] = Trace.ABSENT;
        return new Trace(20, send, intended, recv);
    }

    static final List<PhaseAnalysis.Frame> FRAMES = List.of(
            new PhaseAnalysis.Frame("a", 0, 10 * MS, 0, 10, 0),
            new PhaseAnalysis.Frame("pause", 10 * MS, 15 * MS, 10, 10, 10 * MS),
            new PhaseAnalysis.Frame("b", 15 * MS, 20 * MS, 10, 20, 15 * MS));

    @Test
    void eachPhaseCountsItsOwnMessagesAndTheSendsInItsSpan() {
        List<PhaseAnalysis.Figures> f = PhaseAnalysis.analyse(trace(), FRAMES);
        PhaseAnalysis.Figures a = f.get(0);
        assertEquals(10, a.scheduled());
        assertEquals(10, a.sent());
        assertEquals(9, a.received());
        assertEquals(1, a.lost());
        assertEquals(10, a.sentInSpan());
        assertEquals(9, a.receivedInSpan());
        assertEquals(1_000.0, a.sentMsgPerSec(), 1e-9);       // 10 sends in 10 ms
        assertEquals(900.0, a.receivedMsgPerSec(), 1e-9);
        assertEquals(1_000.0, a.frame().askedMsgPerSec(), 1e-9);
        assertEquals(100L, a.firstSendLagNs());
        assertEquals(5_000.0, a.latencyNs().p50());
        assertEquals(5_100.0, a.latencyIntendedNs().max());   // 100 ns late + 5 µs

        PhaseAnalysis.Figures pause = f.get(1);
        assertEquals(0, pause.scheduled());
        assertEquals(0, pause.sentInSpan());
        assertNull(pause.firstSendLagNs());
        assertEquals(0, pause.latencyNs().n());

        PhaseAnalysis.Figures b = f.get(2);
        assertEquals(10, b.scheduled());
        assertEquals(9, b.sent());                             // message 12 never sent
        assertEquals(9, b.received());
        assertEquals(9, b.sentInSpan());
        assertEquals(1_800.0, b.sentMsgPerSec(), 1e-9);       // 9 sends in 5 ms
        assertEquals(2_000_000L, b.firstSendLagNs());          // message 10: 2 ms late
        assertEquals(20_000.0, b.latencyNs().max());
        assertEquals(2_020_000.0, b.latencyIntendedNs().max()); // the late send counts from its due time
        assertEquals(20_100.0, b.latencyIntendedNs().p50());
    }

    /**
     * 200 phases (issue 31's review: the in-span counts are taken in one pass, not one scan per phase): phase k lasts
     * {@code 1 + k % 7} ms and schedules {@code k % 5 == 4 ? 0 : 10 + k % 13} messages spread evenly over it (every
     * fifth phase a pause). Each message is sent {@code (i % 11) * 37} µs late, so some sends fall into the next span;
     * every 17th is never sent, every 23rd sent but lost, the others received {@code 150 + (i % 29) * 90} µs after their
     * send, up to several spans later, the last three 10 ms later still: after the last span (a 4 ms pause) ends. Each phase's sends and arrivals in its
     * span are checked against the naive count: every message's time against the span's two ends.
     */
    @Test
    void manyPhasesCountTheirSpansAsANaiveScanDoes() {
        int phases = 200;
        List<PhaseAnalysis.Frame> frames = new java.util.ArrayList<>();
        List<Long> intended = new java.util.ArrayList<>();
        long start = 0;
        for (int k = 0; k < phases; k++) {
            long length = (1 + k % 7) * MS;
            int messages = k % 5 == 4 ? 0 : 10 + k % 13;
            long first = intended.size();
            for (int j = 0; j < messages; j++) {
                intended.add(ORIGIN + start + j * length / messages);
            }
            frames.add(new PhaseAnalysis.Frame("p" + k, start, start + length, first, intended.size(), start));
            start += length;
        }
        int n = intended.size();
        long[] want = new long[n];
        long[] send = new long[n];
        long[] recv = new long[n];
        for (int i = 0; i < n; i++) {
            want[i] = intended.get(i);
            send[i] = i % 17 == 0 ? Trace.ABSENT : want[i] + (i % 11) * 37_000;
            recv[i] = send[i] == Trace.ABSENT || i % 23 == 0 ? Trace.ABSENT : send[i] + 150_000 + (i % 29) * 90_000
                    + (i >= n - 3 ? 10 * MS : 0);
        }
        List<PhaseAnalysis.Figures> got = PhaseAnalysis.analyse(new Trace(n, send, want, recv), frames);
        long sentTotal = 0;
        long receivedTotal = 0;
        for (int k = 0; k < phases; k++) {
            long lo = ORIGIN + frames.get(k).startNs();
            long hi = ORIGIN + frames.get(k).endNs();
            long sends = 0;
            long arrivals = 0;
            for (int i = 0; i < n; i++) {
                sends += send[i] != Trace.ABSENT && send[i] >= lo && send[i] < hi ? 1 : 0;
                arrivals += recv[i] != Trace.ABSENT && recv[i] >= lo && recv[i] < hi ? 1 : 0;
            }
            assertEquals(sends, got.get(k).sentInSpan(), "sends in phase " + k + "'s span");
            assertEquals(arrivals, got.get(k).receivedInSpan(), "arrivals in phase " + k + "'s span");
            sentTotal += sends;
            receivedTotal += arrivals;
        }
        assertEquals(2_542, n, "messages scheduled: 160 phases with messages, 10 + k % 13 each");
        assertEquals(n - 150, sentTotal, "every send lands in a span: 150 of the messages are never sent");
        assertEquals(n - 150 - 104 - 3, receivedTotal, "104 sent but lost, the last 3 arrive after the last span");
        assertThrows(IllegalArgumentException.class, () -> PhaseAnalysis.analyse(new Trace(n, send, want, recv),
                List.of(frames.get(1), frames.get(0))), "spans out of order are refused");
    }

    @Test
    void theOriginComesFromTheFirstPhaseWithAMessage() {
        Trace t = trace();
        assertEquals(ORIGIN, PhaseAnalysis.origin(t.intendedNs(), FRAMES, 20));
        assertEquals(ORIGIN, PhaseAnalysis.origin(t.intendedNs(), FRAMES.subList(1, 3), 20));
    }

    @Test
    void aTraceWithoutIntendedTimesIsRefused() {
        Trace t = trace();
        assertThrows(IllegalArgumentException.class,
                () -> PhaseAnalysis.analyse(new Trace(20, t.sendNs(), null, t.recvNs()), FRAMES));
        assertThrows(IllegalArgumentException.class, () -> new PhaseAnalysis.Frame("x", 5, 5, 0, 1, 5));
    }
}
