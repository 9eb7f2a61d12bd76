package io.msgscope.agent.sender;

import io.msgscope.core.driver.Publisher;
import io.msgscope.proto.PhaseDone;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The sender's report of what the system confirmed (issue 32 item 3), as the coordinator's guarantee check reads it. */
class SenderConfirmationsTest {
    private static Publisher publisher(boolean confirms, long[] unconfirmed) {
        return new Publisher() {
            @Override
            public void send(ByteBuffer buffer, int offset, int length) {
            }

            @Override
            public boolean confirms() {
                return confirms;
            }

            @Override
            public long[] unconfirmed() {
                return unconfirmed;
            }

            @Override
            public void close() {
            }
        };
    }

    private static PhaseDone report(Publisher p) {
        PhaseDone.Builder b = PhaseDone.newBuilder();
        SenderRole.confirmations(b, p);
        return b.build();
    }

    @Test
    void rangesTravelAsTheyAre() {
        PhaseDone d = report(publisher(true, new long[] {3, 5, 9, 10}));
        assertTrue(d.getConfirms());
        assertTrue(d.getUnconfirmedKnown());
        assertEquals(List.of(3L, 5L, 9L, 10L), d.getUnconfirmedList());
    }

    @Test
    void tooManyRangesAreUnknownAndNoGuaranteeIsNothing() {
        PhaseDone unknown = report(publisher(true, null));
        assertTrue(unknown.getConfirms());
        assertFalse(unknown.getUnconfirmedKnown());
        PhaseDone none = report(publisher(false, null));
        assertFalse(none.getConfirms());
        assertEquals(0, none.getUnconfirmedCount());
    }
}
