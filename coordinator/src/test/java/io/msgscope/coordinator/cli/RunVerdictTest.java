package io.msgscope.coordinator.cli;

import io.msgscope.coordinator.RunOutcome;
import io.msgscope.core.RunSpec;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/** What fails a trace run (issue 16: duplicates fail it, as they fail a scenario, unless --allow-duplicates). */
class RunVerdictTest {
    private static RunOutcome outcome() {
        return new RunOutcome(RunSpec.builder().count(1000).build(), "r1");
    }

    @Test
    void duplicatesFailTheRunNamingTheOptionThatAcceptsThem() {
        RunOutcome o = outcome();
        o.duplicates = 7;
        io.msgscope.coordinator.TraceResults.judge(o, 0, 1000, false);
        assertEquals("7 messages delivered more than once (the first arrival is measured; --allow-duplicates accepts "
                + "them, e.g. at MQTT QoS 1)", o.failure);
        assertEquals("measurement", o.failedDuring);
    }

    @Test
    void allowedDuplicatesPass() {
        RunOutcome o = outcome();
        o.duplicates = 7;
        io.msgscope.coordinator.TraceResults.judge(o, 0, 1000, true);
        assertNull(o.failure);
    }

    @Test
    void lossIsNamedBeforeDuplicatesAndAnEarlierFailureStays() {
        RunOutcome o = outcome();
        o.duplicates = 7;
        io.msgscope.coordinator.TraceResults.judge(o, 3, 1000, false);
        assertEquals("3 of 1000 messages lost", o.failure);
        RunOutcome earlier = outcome();
        earlier.failure = "receiver agent died";
        earlier.duplicates = 1;
        io.msgscope.coordinator.TraceResults.judge(earlier, 0, 1000, false);
        assertEquals("receiver agent died", earlier.failure);
    }
}
