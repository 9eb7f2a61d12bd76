package io.msgscope.control;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.msgscope.proto.Envelope;
import io.msgscope.proto.Role;
import io.msgscope.proto.Series;
import io.msgscope.proto.TraceChunk;
import com.google.protobuf.ByteString;
import org.junit.jupiter.api.Test;

class FramesTest {
    private static final long A = Long.MIN_VALUE;

    @Test
    void chunkRoundTripsASliceAtAnOffset() {
        long[] values = {10, 20, Long.MIN_VALUE, -1, Long.MAX_VALUE, 60};
        Envelope env = Frames.chunk(Series.SEND_NS, 3, values, 1, 4);
        TraceChunk chunk = env.getChunk();
        assertEquals(Series.SEND_NS, chunk.getSeries());
        assertEquals(3, chunk.getOffset());
        assertEquals(4, chunk.getValueCount());
        assertEquals(32, chunk.getValuesLe().size());
        // little-endian: the first value (20) starts with its low byte
        assertEquals(20, chunk.getValuesLe().byteAt(0));
        assertEquals(0, chunk.getValuesLe().byteAt(7));

        long[] target = new long[8];
        java.util.Arrays.fill(target, 7);
        Frames.copyInto(chunk, target);
        assertArrayEquals(new long[] {7, 7, 7, 20, A, -1, Long.MAX_VALUE, 7}, target);
    }

    @Test
    void chunkEndingExactlyAtTheTargetEndFits() {
        long[] target = new long[4];
        Frames.copyInto(Frames.chunk(Series.RECV_NS, 2, new long[] {5, 6}, 0, 2).getChunk(), target);
        assertArrayEquals(new long[] {0, 0, 5, 6}, target);
    }

    @Test
    void chunkPastTheEndIsRejectedNamingTheSeries() {
        TraceChunk chunk = Frames.chunk(Series.RECV_NS, 3, new long[] {1, 2}, 0, 2).getChunk();
        long[] target = new long[4];
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Frames.copyInto(chunk, target));
        assertTrue(e.getMessage().contains("RECV_NS"), e.getMessage());
        assertTrue(e.getMessage().contains("4 messages"), e.getMessage());
        assertArrayEquals(new long[4], target, "nothing copied");
    }

    @Test
    void negativeOffsetIsRejected() {
        TraceChunk chunk = Frames.chunk(Series.INTENDED_NS, 0, new long[] {1}, 0, 1).getChunk().toBuilder()
                .setOffset(-1).build();
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Frames.copyInto(chunk, new long[4]));
        assertTrue(e.getMessage().contains("INTENDED_NS"), e.getMessage());
    }

    @Test
    void countNotMatchingTheBytesIsRejected() {
        TraceChunk chunk = TraceChunk.newBuilder().setSeries(Series.SEND_NS).setOffset(0).setValueCount(2)
                .setValuesLe(ByteString.copyFrom(new byte[15])).build();
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Frames.copyInto(chunk, new long[4]));
        assertTrue(e.getMessage().contains("SEND_NS"), e.getMessage());
    }

    @Test
    void errorFrames() {
        Envelope e = Frames.error(Role.SENDER, "boom", true);
        assertEquals(Role.SENDER, e.getError().getRole());
        assertEquals("boom", e.getError().getMessage());
        assertTrue(e.getError().getUsage());
        assertEquals("unknown error", Frames.error(Role.RELAY, null, false).getError().getMessage());
    }

    @Test
    void roleNames() {
        assertEquals("sender", Frames.name(Role.SENDER));
        assertEquals("receiver", Frames.name(Role.RECEIVER));
        assertEquals("relay", Frames.name(Role.RELAY));
        assertEquals("agent", Frames.name(Role.ROLE_UNSPECIFIED));
    }
}
