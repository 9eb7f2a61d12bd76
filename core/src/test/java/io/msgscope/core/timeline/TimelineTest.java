package io.msgscope.core.timeline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.msgscope.core.SpecException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class TimelineTest {
    @Test
    void aConstantPhaseSchedulesAsARateRunDoes() {
        Timeline t = Timeline.parse("--phases", "steady:2s@1k");
        assertEquals(2_000, t.messages());
        assertEquals(0, t.dueNs(0));
        assertEquals(1_000_000, t.dueNs(1));           // 1 / 1,000 msg/s
        assertEquals(1_999_000_000L, t.dueNs(1_999));
        assertEquals(2_000_000_000L, t.durationNs());
    }

    /**
     * To the ns (issue 31's review): for 1,000,000 messages a one-phase timeline at {@code r} schedules message i at
     * {@code (long) (i * (1e9 / r))}, the arithmetic of {@code --rate r} ({@code SenderRole.rateDueNs}), also at rates
     * whose period is not a whole number of ns; {@code i / (r / 1e9)} would put half the messages 1 ns early at
     * 5,000 msg/s. A constant phase after another runs the same arithmetic from its first message.
     */
    @Test
    void aConstantPhaseDuesEveryMessageAtTheNsOfARateRun() {
        for (double r : new double[] {3, 3_000, 5_000, 10_000, 123_456.7, 3_000_000, 100_000_000}) {
            long ns = (long) Math.ceil(1e6 / r * 1e9) + 1_000_000;
            Timeline t = new Timeline(java.util.List.of(new LoadPhase("steady", ns, r, r)));
            assertTrue(t.messages() >= 1_000_000);
            double periodNs = 1e9 / r;
            for (int i = 0; i < 1_000_000; i++) {
                if (t.dueNs(i) != (long) (i * periodNs)) {
                    throw new AssertionError(r + " msg/s, message " + i + ": " + t.dueNs(i) + " != " + (long) (i * periodNs));
                }
            }
        }
        Timeline two = Timeline.parse("--phases", "a:1s@1k, b:1s@3k");
        assertEquals(1_000_000_000L + 333_333L, two.dueNs(1_001));            // one period of b: 333,333.3 ns
        assertEquals(1_000_000_000L + (long) (2_999 * (1e9 / 3_000)), two.dueNs(3_999));
    }

    @Test
    void aRampFromZeroDuesMessageIAtTheSquareRootOfITimesTwoOverTheSlope() {
        // 0 -> 1,000 msg/s over 10 s: slope 100 msg/s², N(t) = 50 t², so message i is due at sqrt(i / 50) s
        Timeline t = Timeline.parse("--phases", "ramp:10s@0..1k");
        assertEquals(5_000, t.messages());              // (0 + 1,000) / 2 x 10 s
        assertEquals(1_000_000_000L, t.dueNs(50), 1);   // sqrt(50 / 50) = 1 s
        assertEquals(2_000_000_000L, t.dueNs(200), 1);  // sqrt(200 / 50) = 2 s
        assertEquals(9_998_999_950L, t.dueNs(4_999), 2); // sqrt(4,999 / 50) = 9.99899995 s
        assertEquals(500.0, t.rateAt(5_000_000_000L), 1e-9);
    }

    @Test
    void aRampDownSolvesTheQuadraticOnTheFallingSide() {
        // 2,000 -> 1,000 msg/s over 1 s: N(t) = 2,000 t - 500 t²; N(0.5) = 875
        Timeline t = Timeline.parse("--phases", "down:1s@2k..1k");
        assertEquals(1_500, t.messages());
        assertEquals(500_000_000L, t.dueNs(875), 1);
    }

    @Test
    void aPauseLeavesAGapAndOwnsNoMessage() {
        Timeline t = Timeline.parse("--phases", "a:1s@1k, pause:500ms@0, b:1s@2k");
        assertEquals(3_000, t.messages());
        assertEquals(999_000_000L, t.dueNs(999));
        assertEquals(1_500_000_000L, t.dueNs(1_000));   // b starts after the pause
        assertEquals(1_500_500_000L, t.dueNs(1_001));   // then every 0.5 ms
        assertEquals(0, t.phaseOf(999));
        assertEquals(2, t.phaseOf(1_000));
        assertEquals(1_000, t.firstMessage(1));
        assertEquals(1_000, t.firstMessage(2));
        assertEquals(LoadPhase.Kind.PAUSE, t.phases().get(1).kind());
        assertEquals(0.0, t.rateAt(1_200_000_000L));
    }

    @Test
    void theLongestGapIsAPauseWithItsNeighboursOrTheSlowestPhasesPeriod() {
        // message 999 at 0.999 s, message 1,000 at 1.5 s: 501 ms
        assertEquals(501_000_000L, Timeline.parse("--phases", "a:1s@1k, pause:500ms@0, b:1s@2k").longestGapNs());
        // 10 msg/s then 1,000: 100 ms between the slow phase's messages
        assertEquals(100_000_000L, Timeline.parse("--phases", "1s@10, 1s@1k").longestGapNs());
        // a ramp from 0: N(t) = 50 t², the first gap is the widest, sqrt(1 / 50) s = 141.42 ms
        assertEquals(141_421_356L, Timeline.parse("--phases", "10s@0..1k").longestGapNs(), 1);
    }

    @Test
    void messagesAreDueInOrderAndEachInsideItsOwnPhase() {
        Timeline t = Timeline.parse("--phases", "300ms@1k, 700ms@1k..3k, pause:100ms@0, 200ms@3k..500, 1s@750");
        long last = -1;
        for (long i = 0; i < t.messages(); i++) {
            long due = t.dueNs(i);
            int k = t.phaseOf(i);
            assertTrue(due >= last, "message " + i + " due before its predecessor");
            assertTrue(due >= t.startNs(k) && due < t.endNs(k), "message " + i + " outside phase " + k);
            last = due;
        }
        // 300 + 1,400 + 0 + 350 + 750
        assertEquals(2_800, t.messages());
        assertEquals("phase1", t.phases().get(0).name());
    }

    @Test
    void theShorthandParsesBackToTheSameTimeline() {
        Timeline t = Timeline.parse("--phases", "steady:30s@5k, ramp:60s@5k..50k, hold:1.5s@1.5k, p:250ms@0, x:2m@7");
        assertEquals("steady:30s@5000, ramp:60s@5000..50000, hold:1500ms@1500, p:250ms@0, x:120s@7", t.shorthand());
        assertEquals(t.phases(), Timeline.parse("--phases", t.shorthand()).phases());
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "ramp:10s@5k..0|ramps to 0 msg/s",
        "steady:30s@5k, pause:10s@0|a pause at the end",
        "steady:30x@5k|is not a phase",
        "steady:30s|is not a phase",
        "a:0.5ms@1k|at least 1 ms",
        "a:1s@200m|between 0 and 100000000",
        "steady:1s@1k..|is not a phase",
        "a:8d@1|is not a phase",
        "a:200h@1|at most a week",
    })
    void badPhasesGetOneLineNamingTheOptionAndThePhase(String text, String says) {
        SpecException e = assertThrows(SpecException.class, () -> Timeline.parse("--phases", text));
        assertEquals("--phases", e.option());
        assertTrue(e.getMessage().contains(says), e.getMessage());
        assertTrue(!e.getMessage().contains("\n"), e.getMessage());
    }

    @Test
    void pausedConsumersAreAPhaseAttributeThatRoundTrips() {
        Timeline t = Timeline.parse("--phases", "a:1s@1k, fill:2s@1k/paused, drain:1s@0");
        assertTrue(t.phases().get(1).consumersPaused());
        assertTrue(!t.phases().get(0).consumersPaused() && !t.phases().get(2).consumersPaused());
        assertTrue(t.pausesConsumers());
        assertEquals(3_000, t.messages());
        assertTrue(!t.consumersPausedAt(999_999_999L));
        assertTrue(t.consumersPausedAt(1_000_000_000L));
        assertTrue(t.consumersPausedAt(2_999_999_999L));
        assertTrue(!t.consumersPausedAt(3_000_000_000L));
        assertEquals("a:1s@1000, fill:2s@1000/paused, drain:1s@0", t.shorthand());
        assertEquals(t.shorthand(), Timeline.parse("--phases", t.shorthand()).shorthand());
        // the receiver hears nothing from message 999 (0.999 s) until the consumers resume at 3 s: 2.001 s
        assertEquals(2_001_000_000L, t.longestGapNs());
    }

    @Test
    void aBacklogTargetIsExactlyThatManyMessagesSentInThePhase() {
        // 20,000 messages at 5,000 msg/s: 4 s; message 1,000 (the first of fill) at 1 s, the last (20,999) at 4.9998 s
        Timeline t = Timeline.parse("--phases", "warm:1s@1k, fill:20kmsg@5k/paused, drain:1s@1k");
        LoadPhase fill = t.phases().get(1);
        assertEquals(20_000, fill.targetMessages());
        assertEquals(4_000_000_000L, fill.durationNs());
        assertEquals(1_000, t.firstMessage(1));
        assertEquals(21_000, t.firstMessage(2));   // exactly 20,000 in fill
        assertEquals(22_000, t.messages());
        assertEquals(1_000_000_000L, t.dueNs(1_000));
        assertEquals(4_999_800_000L, t.dueNs(20_999), 1);
        assertEquals(5_000_000_000L, t.dueNs(21_000));
        assertEquals("warm:1s@1000, fill:20000msg@5000/paused, drain:1s@1000", t.shorthand());
        // 3 messages at 7 msg/s after a ramp that ends on a fraction of a message: still exactly 3 in the phase
        Timeline odd = Timeline.parse("--phases", "r:1s@1..2, f:3msg@7/paused, d:1s@1");
        assertEquals(3, odd.firstMessage(2) - odd.firstMessage(1));
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "a:20kmsg@5k, b:1s@1k|ends on a backlog of 20000 messages, which builds only while the consumers are paused",
        "a:20kmsg@1k..5k/paused, b:1s@1k|give it one constant rate above 0",
        "a:20kmsg@0/paused, b:1s@1k|give it one constant rate above 0",
        "a:1.5msg@1k/paused, b:1s@1k|must be a whole number from 1 to 1000000000",
        "a:1s@1k, b:1s@1k/paused|pauses the consumers at the end: nothing would drain the backlog",
        "a:1s@1k, b:1s@1k/stopped|is not a phase",
        "a:1s@1k, b:1s@0|after a /paused phase it drains the backlog",
    })
    void backlogPhasesRefuseWhatCannotEnd(String text, String message) {
        SpecException e = assertThrows(SpecException.class, () -> Timeline.parse("--phases", text));
        assertTrue(e.getMessage().contains(message), e.getMessage());
        assertTrue(e.getMessage().contains("--phases"), e.getMessage());
    }

    @Test
    void aDrainLastsItsCapBeforeTheRunAndWhatItTookAfterIt() {
        // 1 s at 1k, 5,000 paused at 5k (1 s), a drain of at most 60 s, then 2 s at 1k: 8,000 messages either way
        Timeline asked = Timeline.parse("--phases", "a:1s@1k, fill:5kmsg@5k/paused, drain:60s@0/drained, b:2s@1k");
        LoadPhase drain = asked.phases().get(2);
        assertTrue(drain.untilDrained());
        assertEquals(LoadPhase.Kind.PAUSE, drain.kind());
        assertEquals(60_000_000_000L, drain.durationNs());
        assertEquals(java.util.List.of(2), asked.wordPhases());
        assertEquals(8_000, asked.messages());
        assertEquals(6_000, asked.firstMessage(3));
        assertEquals(62_000_000_000L, asked.startNs(3));                    // before the run: the cap
        assertEquals(62_000_000_000L, asked.dueNs(6_000));
        assertTrue(!asked.consumersPausedAt(30_000_000_000L));              // the drain consumes
        assertEquals(null, asked.wordEnd(2));
        // it drained in 3.25 s: b starts at 2 + 3.25 s, message 6,000 is due then and message 7,999 1.999 s later
        Timeline run = asked.asRun(java.util.List.of(new Timeline.WordEnd(2, 3_250_000_000L, "drained", 0L)));
        assertEquals(5_250_000_000L, run.startNs(3));
        assertEquals(5_250_000_000L, run.dueNs(6_000));
        assertEquals(5_250_000_000L + 1_999_000_000L, run.dueNs(7_999));
        assertEquals(7_250_000_000L, run.durationNs());
        assertEquals(2_000_000_000L, run.endNs(1));                         // before the drain nothing moves
        assertEquals(asked.dueNs(5_999), run.dueNs(5_999));
        assertEquals(8_000, run.messages());
        assertEquals("drained", run.wordEnd(2).endedBy());
        assertEquals(3, run.phaseAt(5_250_000_000L));
        // from any guess, right or wrong or out of range, the same phase as the scan from phase 0
        for (long t : new long[] {-1, 0, 999_999_999L, 1_000_000_000L, 1_999_999_999L, 2_000_000_000L,
                5_249_999_999L, 5_250_000_000L, 7_249_999_999L, 7_250_000_000L, Long.MAX_VALUE}) {
            for (int guess = -1; guess <= 4; guess++) {
                assertEquals(run.phaseAt(t), run.phaseAt(t, guess), "t " + t + ", guess " + guess);
            }
        }
        // the shorthand says what was asked, so a replay asks the same cap
        assertEquals("a:1s@1000, fill:5000msg@5000/paused, drain:60s@0/drained, b:2s@1000", run.shorthand());
        assertEquals(asked.phases(), Timeline.parse("--phases", run.shorthand()).phases());
    }

    @Test
    void aDrainsLengthAsRunIsRefusedOutsideOneMsToItsCap() {
        Timeline t = Timeline.parse("--phases", "fill:1s@1k/paused, drain:10s@0/drained, b:1s@1k");
        assertThrows(IllegalArgumentException.class,
                () -> t.asRun(java.util.List.of(new Timeline.WordEnd(1, 10_000_000_001L, "drained", 0L))));
        assertThrows(IllegalArgumentException.class,
                () -> t.asRun(java.util.List.of(new Timeline.WordEnd(1, 999_999, "drained", 0L))));
        assertThrows(IllegalArgumentException.class,
                () -> t.asRun(java.util.List.of(new Timeline.WordEnd(0, 5_000_000_000L, "drained", 0L))));
        assertEquals(11_000_000_000L, t.asRun(java.util.List.of(new Timeline.WordEnd(1, 10_000_000_000L, "cap",
                null))).endNs(1)); // fill's 1 s and the whole cap
    }

    @Test
    void aDrainThatPublishesHoldsItsCapsMessagesBeforeTheRunAndWhatItSentAfterIt() {
        // 1 s at 1k (0-999), 5,000 paused at 5k (1,000-5,999), a drain at 2k of at most 10 s, then 1 s at 1k
        Timeline asked = Timeline.parse("--phases", "a:1s@1k, fill:5kmsg@5k/paused, drain:10s@2k/drained, b:1s@1k");
        assertEquals(LoadPhase.Kind.CONSTANT, asked.phases().get(2).kind());
        assertTrue(asked.messagesUnknown());
        assertEquals(6_000 + 20_000 + 1_000, asked.messages(), "the cap's 20,000: the most the run can send");
        assertEquals(26_000, asked.firstMessage(3));
        // the consumers caught up 1.2495 s in, after the drain sent 2,499 messages (6,000-8,498, one every 0.5 ms)
        Timeline run = asked.asRun(java.util.List.of(new Timeline.WordEnd(2, 1_249_500_000L, "drained", 0L, 8_499)));
        assertTrue(!run.messagesUnknown());
        assertEquals(8_499 + 1_000, run.messages());
        assertEquals(8_499, run.firstMessage(3));
        assertEquals(2, run.phaseOf(8_498));
        assertEquals(3, run.phaseOf(8_499));
        assertEquals(2_000_000_000L + 2_498 * 500_000L, run.dueNs(8_498), "the drain's messages keep their times");
        assertEquals(asked.dueNs(8_498), run.dueNs(8_498));
        assertEquals(3_249_500_000L, run.dueNs(8_499), "b's first message at b's start");
        assertEquals(3_249_500_000L + 999_000_000L, run.dueNs(9_498));
        assertEquals(4_249_500_000L, run.durationNs());
        assertEquals("a:1s@1000, fill:5000msg@5000/paused, drain:10s@2000/drained, b:1s@1000", run.shorthand());
        // the drain's end is refused before its first message, past its cap's last, or before its last message's time
        assertThrows(IllegalArgumentException.class, () -> asked.asRun(java.util.List.of(
                new Timeline.WordEnd(2, 1_000_000_000L, "drained", 0L, 5_999))));
        assertThrows(IllegalArgumentException.class, () -> asked.asRun(java.util.List.of(
                new Timeline.WordEnd(2, 10_000_000_000L, "cap", null, 26_001))));
        assertThrows(IllegalArgumentException.class, () -> asked.asRun(java.util.List.of(
                new Timeline.WordEnd(2, 1_000_000_000L, "drained", 0L, 8_499)))); // 8,498 is due at 1.249 s
        // one that sent nothing (the backlog was gone before its first message): b's first message is 6,000
        Timeline none = asked.asRun(java.util.List.of(new Timeline.WordEnd(2, 1_000_000L, "drained", 0L, 6_000)));
        assertEquals(7_000, none.messages());
        assertEquals(3, none.phaseOf(6_000));
    }

    @Test
    void aPhaseThatEndsOnTheBrokersBacklogIsSizedForItsCapAndHoldsWhatItSentOnceRun() {
        // 1 s at 1k (0-999), then paused at 10k until the broker holds 20,000, at most 60 s; then 2 s at 2k
        Timeline asked = Timeline.parse("--phases", "a:1s@1k, fill:60s@10k/paused/backlog=20k, b:2s@2k");
        LoadPhase fill = asked.phases().get(1);
        assertTrue(fill.untilBacklog() && fill.endsOnWord() && !fill.untilDrained() && fill.consumersPaused());
        assertEquals(20_000, fill.backlogTarget());
        assertEquals(60_000_000_000L, fill.wordCapNs());
        assertEquals(java.util.List.of(1), asked.wordPhases());
        assertTrue(asked.messagesUnknown());
        assertEquals(1_000 + 600_000 + 4_000, asked.messages(), "the cap's 600,000");
        assertEquals("a:1s@1000, fill:60s@10000/paused/backlog=20000, b:2s@2000", asked.shorthand());
        assertEquals(asked.phases(), Timeline.parse("--phases", asked.shorthand()).phases());
        // the broker said 20,140 after 2.0141 s, when the phase had sent 20,141 (1,000-21,140)
        Timeline run = asked.asRun(java.util.List.of(new Timeline.WordEnd(1, 2_014_100_000L, "backlog", null, 21_141,
                20_140L)));
        assertEquals(21_141 + 4_000, run.messages());
        assertEquals(3_014_100_000L, run.dueNs(21_141), "b's first message at the phase's end");
        assertEquals(1_000_000_000L + 20_140 * 100_000L, run.dueNs(21_140));
        assertTrue(run.consumersPausedAt(3_014_000_000L));
        assertTrue(!run.consumersPausedAt(3_014_100_000L), "the consumers resume at the phase's end as run");
        assertEquals(20_140L, run.wordEnd(1).brokerMessages());
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "f:1s@1k/paused, d:10s@1k..2k/drained, b:1s@1k|lasts until drained: give it one rate",
        "f:1s@1k/paused, d:10s@0/paused/drained, b:1s@1k|cannot both pause the consumers and wait for them to drain",
        "a:1s@1k, d:10s@0/drained, b:1s@1k|no phase before it pauses the consumers",
        "f:1s@1k/paused, d:10s@0/drained|the run itself ends when every message has arrived",
        "f:1s@1k/paused, d:5kmsg@0/drained, b:1s@1k|give it a duration, the most it may last",
        "f:1s@1k/paused, d:10s@0/drained/paused, b:1s@1k|is not a phase",
        "a:1s@1k, f:60s@10k/backlog=20k, b:1s@1k|which builds only while the consumers are paused",
        "a:1s@1k, f:60s@1k..10k/paused/backlog=20k, b:1s@1k|one constant rate above 0",
        "a:1s@1k, f:60s@0/paused/backlog=20k, b:1s@1k|one constant rate above 0",
        "a:1s@1k, f:20kmsg@10k/paused/backlog=20k, b:1s@1k|give it a duration, the most it may last",
        "a:1s@1k, f:60s@10k/paused/backlog=20k/drained, b:1s@1k|no message count or /drained",
        "a:1s@1k, f:60s@10k/paused/backlog=0, b:1s@1k|a whole number from 1",
        "a:1s@1k, f:60s@10k/paused/backlog=20k|nothing would drain the backlog",
    })
    void phasesThatEndOnAWordRefuseWhatCannotBeFollowed(String text, String message) {
        SpecException e = assertThrows(SpecException.class, () -> Timeline.parse("--phases", text));
        assertTrue(e.getMessage().contains(message), e.getMessage());
        assertTrue(e.getMessage().startsWith("--phases") || e.getMessage().contains("--phases"), e.getMessage());
        assertTrue(!e.getMessage().contains("\n"), e.getMessage());
    }
}
