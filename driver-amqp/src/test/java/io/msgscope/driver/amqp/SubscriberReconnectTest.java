package io.msgscope.driver.amqp;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The subscriber's reconnect states (issue 32 item 3), with times given by hand (ns; WAIT_NS = 100 ms). */
class SubscriberReconnectTest {
    private static final long MS = 1_000_000L;

    @Test
    void oneLossOneRoundOfAttemptsPacedByTheWaitThenBack() {
        SubscriberReconnect r = new SubscriberReconnect();
        assertEquals(SubscriberReconnect.State.UP, r.state());
        assertFalse(r.due(0), "nothing to do while up");
        assertTrue(r.lost(1_000 * MS), "the channel's listener: the loss starts");
        assertFalse(r.lost(1_000 * MS), "the connection's listener, the same loss: no second round");
        assertTrue(r.reconnecting());
        assertTrue(r.due(1_000 * MS), "the first attempt at once");
        r.attempting(1_000 * MS);
        assertFalse(r.failed(1_000 * MS));
        assertFalse(r.due(1_099 * MS), "99 ms later: not yet");
        assertTrue(r.due(1_100 * MS), "100 ms later");
        r.attempting(1_100 * MS);
        r.back();
        assertEquals(SubscriberReconnect.State.UP, r.state());
        assertEquals(1, r.reconnects());
        r.back();
        assertEquals(1, r.reconnects(), "back twice is one reconnect");
        assertTrue(r.lost(5_000 * MS), "a second loss");
        r.attempting(5_000 * MS);
        r.back();
        assertEquals(2, r.reconnects());
    }

    @Test
    void itGivesUpOnceAnAttemptFailsMoreThanTheGiveUpTimeAfterTheLoss() {
        SubscriberReconnect r = new SubscriberReconnect();
        long lost = 7 * MS;
        r.lost(lost);
        r.attempting(lost + AmqpReconnect.GIVE_UP_NS);
        assertFalse(r.failed(lost + AmqpReconnect.GIVE_UP_NS), "exactly 120 s: one more try");
        r.attempting(lost + AmqpReconnect.GIVE_UP_NS + 1);
        assertTrue(r.failed(lost + AmqpReconnect.GIVE_UP_NS + 1));
        assertEquals(SubscriberReconnect.State.GAVE_UP, r.state());
        assertFalse(r.reconnecting());
        assertFalse(r.due(lost + AmqpReconnect.GIVE_UP_NS + 500 * MS), "no attempt after giving up");
        assertFalse(r.lost(lost + AmqpReconnect.GIVE_UP_NS + 600 * MS), "nor a new loss");
        r.back();
        assertEquals(0, r.reconnects());
    }
}
