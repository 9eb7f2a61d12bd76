package io.msgscope.coordinator.trace;

import io.msgscope.core.RunSpec;
import io.msgscope.core.driver.ClientContext;
import io.msgscope.core.driver.Driver;
import io.msgscope.core.driver.DriverSpec;
import io.msgscope.core.driver.Publisher;
import io.msgscope.core.driver.Subscriber;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
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
        TraceResult r = TraceVerdict.judge(outcome(7).result(), 0, 1000, false);
        assertEquals("7 messages delivered more than once (the first arrival is measured; --allow-duplicates accepts "
                + "them, e.g. at MQTT QoS 1)", r.failureReason());
        assertEquals("measurement", r.failure().during());
    }

    @Test
    void allowedDuplicatesPass() {
        assertNull(TraceVerdict.judge(outcome(7).result(), 0, 1000, true).failure());
    }

    @Test
    void lossIsNamedBeforeDuplicatesAndAnEarlierFailureStays() {
        assertEquals("3 of 1000 messages lost", TraceVerdict.judge(outcome(7).result(), 3, 1000, false).failureReason());
        TraceCollector earlier = outcome(1);
        earlier.failure = "receiver agent died";
        assertEquals("receiver agent died", TraceVerdict.judge(earlier.result(), 0, 1000, false).failureReason());
    }

    /** A driver that knows why its broker drops messages (as AMQP's and MQTT's do, issue 18). */
    private static final Driver HINTING = new Driver() {
        @Override
        public String name() {
            return "hinting";
        }

        @Override
        public String lossHint(Map<String, String> options) {
            return "raise the broker's queue limit";
        }

        @Override
        public Subscriber openSubscriber(DriverSpec spec, ClientContext context) {
            throw new UnsupportedOperationException();
        }

        @Override
        public Publisher openPublisher(DriverSpec spec, ClientContext context) {
            throw new UnsupportedOperationException();
        }
    };

    /**
     * Issue 30: the driver's hint follows the verdict's kind, not its wording: a loss found in the traces gets it;
     * a failure of the run that merely reads like one, or another verdict, does not.
     */
    @Test
    void theDriversLossHintFollowsALossVerdictOnly() {
        TraceResult lost = TraceVerdict.judge(outcome(0).result(), 3, 1000, false, HINTING);
        assertEquals("3 of 1000 messages lost; raise the broker's queue limit", lost.failureReason());
        assertEquals(TraceResult.Kind.MESSAGES_LOST, lost.failure().kind());

        TraceCollector agentSaid = outcome(0);
        agentSaid.failure = "the receiver said: 5 messages lost";
        assertEquals("the receiver said: 5 messages lost",
                TraceVerdict.judge(agentSaid.result(), 5, 1000, false, HINTING).failureReason());
        TraceResult duplicated = TraceVerdict.judge(outcome(7).result(), 0, 1000, false, HINTING);
        assertEquals(TraceResult.Kind.DUPLICATES, duplicated.failure().kind());
        assertFalse(duplicated.failureReason().contains("queue limit"), duplicated.failureReason());
    }
}
