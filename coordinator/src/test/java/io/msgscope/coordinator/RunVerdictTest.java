package io.msgscope.coordinator;

import io.msgscope.core.RunSpec;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/** What fails a trace run (issue 16: duplicates fail it, as they fail a scenario, unless --allow-duplicates). */
class RunVerdictTest {
    private static TraceCollector outcome(long duplicates) {
        TraceCollector o = new TraceCollector(RunSpec.builder().count(1000).build(), "r1");
        o.duplicates = duplicates;
        return o;
    }

    @Test
    void duplicatesFailTheRunNamingTheOptionThatAcceptsThem() {
        TraceResult r = TraceResults.judge(outcome(7).result(), 0, 1000, false);
        assertEquals("7 messages delivered more than once (the first arrival is measured; --allow-duplicates accepts "
                + "them, e.g. at MQTT QoS 1)", r.failureReason());
        assertEquals("measurement", r.failure().during());
    }

    @Test
    void allowedDuplicatesPass() {
        assertNull(TraceResults.judge(outcome(7).result(), 0, 1000, true).failure());
    }

    @Test
    void lossIsNamedBeforeDuplicatesAndAnEarlierFailureStays() {
        assertEquals("3 of 1000 messages lost", TraceResults.judge(outcome(7).result(), 3, 1000, false).failureReason());
        TraceCollector earlier = outcome(1);
        earlier.failure = "receiver agent died";
        assertEquals("receiver agent died", TraceResults.judge(earlier.result(), 0, 1000, false).failureReason());
    }
}
