package io.msgscope.core.driver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;

import io.msgscope.core.WireHeader;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.junit.jupiter.api.Test;

class ReceiveBufferTest {

    private static byte[] payload(int size, int first) {
        byte[] p = new byte[size];
        ByteBuffer.wrap(p).order(ByteOrder.LITTLE_ENDIAN).putLong(0, first);
        return p;
    }

    @Test
    void aPayloadThatFitsIsCopiedIntoTheOneBuffer() {
        ReceiveBuffer r = ReceiveBuffer.copyingUpTo(64, 1024);
        ByteBuffer a = r.of(payload(64, 7));
        ByteBuffer b = r.of(payload(40, 8));
        assertSame(a, b);
        assertEquals(ByteOrder.LITTLE_ENDIAN, b.order());
        assertEquals(8, b.getLong(0));
        assertEquals(64, r.capacity());
    }

    @Test
    void theBufferHoldsAtLeastAHeaderAndAtMostTheCopyLimit() {
        assertEquals(WireHeader.SIZE, ReceiveBuffer.copyingUpTo(1, 1024).capacity());
        assertEquals(1024, ReceiveBuffer.copyingUpTo(65_536, 1024).capacity());
        assertEquals(WireHeader.SIZE, ReceiveBuffer.growing(0).capacity());
        assertEquals(65_536, ReceiveBuffer.growing(65_536).capacity());
    }

    @Test
    void beyondTheCopyLimitThePayloadIsWrapped() {
        ReceiveBuffer r = ReceiveBuffer.copyingUpTo(4096, 1024);
        byte[] big = payload(4096, 9);
        ByteBuffer b = r.of(big);
        assertSame(big, b.array());
        assertEquals(ByteOrder.LITTLE_ENDIAN, b.order());
        assertEquals(9, b.getLong(0));
        assertEquals(1024, r.capacity());
    }

    @Test
    void aGrowingBufferGrowsOnceForALargerPayloadAndKeepsIt() {
        ReceiveBuffer r = ReceiveBuffer.growing(64);
        ByteBuffer small = r.of(payload(64, 1));
        ByteBuffer grown = r.of(payload(100, 2));
        assertNotSame(small, grown);
        assertEquals(100, grown.capacity());
        assertEquals(ByteOrder.LITTLE_ENDIAN, grown.order());
        assertEquals(2, grown.getLong(0));
        assertSame(grown, r.of(payload(64, 3)));
        assertEquals(3, grown.getLong(0));
    }
}
