package io.msgscope.coordinator.scenario;

import io.msgscope.core.scenario.Scenario;
import io.msgscope.core.timeline.Timeline;
import io.msgscope.proto.ScenarioReport;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * When a scenario's word phase ends (issue 31), judged by hand from the subscribers agents' answers: a drain when the
 * deliveries of the messages scheduled before it reach those expected (fan-out: each one per subscriber), quiet when
 * none of them came for the drain timeout, its cap when that ran out; a backlog target when every agent's latest read
 * inside the phase sums to it; and where the phase's own messages end.
 */
class ScenarioWordsTest {
    private static final long S = 1_000_000_000L;

    private static ScenarioReport subs(long... byPhase) {
        ScenarioReport.Builder b = ScenarioReport.newBuilder();
        for (long n : byPhase) {
            b.addPhaseReceived(n);
        }
        return b.build();
    }

    private static ScenarioReport read(long epochNs, long depth) {
        return ScenarioReport.newBuilder().setBacklogLatestEpochNs(epochNs).setBacklogLatestDepth(depth).build();
    }

    @Test
    void aDrainEndsWhenEveryDeliveryExpectedOfTheMessagesBeforeItArrivedOrWhenNoneCameForTheTimeout() {
        Timeline t = Timeline.parse("--phases", "fill:10kmsg@5k/paused, drain:60s@0/drained, after:1s@1k");
        ScenarioWords w = new ScenarioWords(t, Scenario.FAN_OUT, 3, 500);
        long in = t.startNs(1) + S; // a second into the drain
        // 10,000 messages before the drain, 3 subscribers each: 30,000 deliveries expected; later phases' do not count
        assertNull(w.judge(1, in, List.of(subs(10_000, 0, 7), subs(19_999, 5)), 0));
        ScenarioWords.Verdict v = w.judge(1, in, List.of(subs(10_000, 0), subs(20_000, 0)), 100_000_000L);
        assertEquals(new ScenarioWords.Verdict("drained", 0L, null), v);

        ScenarioWords quiet = new ScenarioWords(t, Scenario.FAN_OUT, 3, 500);
        assertNull(quiet.judge(1, in, List.of(subs(29_000)), t.startNs(1) + 200_000_000L));
        assertNull(quiet.judge(1, in, List.of(subs(29_990)), t.startNs(1) + 600_000_000L)); // 10 more came
        assertNull(quiet.judge(1, in, List.of(subs(29_990)), t.startNs(1) + 1_099_000_000L));
        assertEquals(new ScenarioWords.Verdict("quiet", 10L, null),
                quiet.judge(1, in, List.of(subs(29_990)), t.startNs(1) + 1_100_000_000L)); // 500 ms since the last

        ScenarioWords capped = new ScenarioWords(t, Scenario.FAN_OUT, 3, 120_000);
        assertEquals(new ScenarioWords.Verdict("cap", 1L, null),
                capped.judge(1, t.endNs(1), List.of(subs(29_999)), 0));
    }

    @Test
    void aBacklogTargetEndsOnReadsTakenInsideThePhaseSummedOverTheAgents() {
        Timeline t = Timeline.parse("--phases", "base:1s@1k, fill:60s@10k/paused/backlog=20k, drain:10s@0");
        ScenarioWords w = new ScenarioWords(t, Scenario.STRAIGHT_RUN, 2, 5_000);
        long in = 3 * S;
        assertNull(w.judge(1, in, List.of(read(t.startNs(1) - 1, 30_000), read(2 * S, 8_500)), 0),
                "a read from before the phase does not count");
        assertNull(w.judge(1, in, List.of(read(2 * S, 12_000), read(2 * S, -1)), 0), "an agent with no read yet");
        assertNull(w.judge(1, in, List.of(read(2 * S, 12_000), read(2 * S, 7_999)), 0));
        assertEquals(new ScenarioWords.Verdict("backlog", null, 20_500L),
                w.judge(1, in, List.of(read(2 * S, 12_000), read(2_100_000_000L, 8_500)), 0));
        assertEquals(new ScenarioWords.Verdict("cap", null, null), w.judge(1, t.endNs(1), List.of(read(2 * S, 1)), 0));
    }

    @Test
    void aPhaseThatPublishedHoldsTheMessagesDueBeforeItsEnd() {
        Timeline t = Timeline.parse("--phases", "base:1s@1k, fill:60s@10k/paused/backlog=20k, drain:10s@0/drained, "
                + "after:1s@1k");
        ScenarioWords w = new ScenarioWords(t, Scenario.STRAIGHT_RUN, 2, 5_000);
        ScenarioWords.Verdict v = new ScenarioWords.Verdict("backlog", null, 20_500L);
        // 10,000 msg/s from 1 s: its messages due before 1 s + 2.05 s are its first 20,500, after base's 1,000
        Timeline.WordEnd e = w.endOf(1, 2_050_000_000L, "backlog", v);
        assertEquals(new Timeline.WordEnd(1, 2_050_000_000L, "backlog", null, 21_500L, 20_500L), e);
        Timeline asRun = t.asRun(List.of(e));
        assertEquals(21_500, asRun.firstMessage(2));
        assertEquals(3_050_000_000L, asRun.startNs(2));
        assertEquals(-1, w.endOf(1, 60 * S, "cap", new ScenarioWords.Verdict("cap", null, null)).nextMessage(),
                "its cap changes nothing");
        assertEquals(-1, w.endOf(2, S, "drained", new ScenarioWords.Verdict("drained", 0L, null)).nextMessage(),
                "a pause sends none");
    }
}
