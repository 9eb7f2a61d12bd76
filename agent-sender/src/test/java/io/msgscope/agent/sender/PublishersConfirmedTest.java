package io.msgscope.agent.sender;

import io.msgscope.core.driver.Publisher;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * The publishers agent's {@code messages_confirmed_so_far} (issue 31 item 3): the sum of its publishers' confirmed
 * counts, the floor of a scenario's backlog; unknown (absent) as soon as one publisher confirms nothing, never 0.
 */
class PublishersConfirmedTest {
    private static Publisher confirming(long confirmed) {
        return new Publisher() {
            @Override
            public void send(ByteBuffer buffer, int offset, int length) {
            }

            @Override
            public long confirmedSoFar() {
                return confirmed;
            }

            @Override
            public void close() {
            }
        };
    }

    @Test
    void theSumOverThePublishers() {
        assertEquals(1_200 + 0 + 35, PublishersRole.confirmedSoFar(List.of(confirming(1_200), confirming(0),
                confirming(35))));
        assertEquals(0, PublishersRole.confirmedSoFar(List.of(confirming(0)))); // known: nothing confirmed yet
    }

    @Test
    void oneThatConfirmsNothingMakesItUnknown() {
        assertNull(PublishersRole.confirmedSoFar(List.of(confirming(1_200), confirming(-1))));
        assertNull(PublishersRole.confirmedSoFar(List.of())); // no publisher opened: nothing to tell
        assertEquals("messages_confirmed_so_far", PublishersRole.CONFIRMED_SO_FAR);
    }
}
