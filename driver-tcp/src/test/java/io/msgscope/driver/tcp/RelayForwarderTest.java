package io.msgscope.driver.tcp;

import io.msgscope.core.WireHeader;
import io.msgscope.core.driver.MiddleBox;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.WritableByteChannel;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The relay's forwarding loop against channels that return partial reads of every length and take
 * partial writes: every byte arrives in order, only whole messages are written, each read's whole
 * messages go out in one pass and reach the tap in one call with the right relay index.
 */
class RelayForwarderTest {
    private static final int SIZE = 48;

    static byte[] stream(int messages) {
        ByteBuffer b = ByteBuffer.allocate(messages * SIZE).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < b.capacity(); i++) {
            b.put(i, (byte) (i * 13 + 5));
        }
        for (int m = 0; m < messages; m++) {
            b.putLong(m * SIZE + WireHeader.SEQUENCE_OFFSET, m);
        }
        return b.array();
    }

    /** Returns the stream in reads of the given lengths, in turn, then the end of the stream. */
    static final class Source implements ReadableByteChannel {
        final byte[] data;
        final int[] lengths;
        int at;
        int turn;

        Source(byte[] data, int... lengths) {
            this.data = data;
            this.lengths = lengths;
        }

        @Override
        public int read(ByteBuffer dst) {
            if (at == data.length) {
                return -1;
            }
            int n = Math.min(Math.min(lengths[turn++ % lengths.length], data.length - at), dst.remaining());
            dst.put(data, at, n);
            at += n;
            return n;
        }

        @Override
        public boolean isOpen() {
            return true;
        }

        @Override
        public void close() {
        }
    }

    /** Takes at most {@code max} bytes per write; records what each forwarding pass wrote. */
    static final class Sink implements WritableByteChannel {
        final ByteArrayOutputStream all = new ByteArrayOutputStream();
        final int max;
        int calls;

        Sink(int max) {
            this.max = max;
        }

        @Override
        public int write(ByteBuffer src) {
            calls++;
            int n = Math.min(max, src.remaining());
            byte[] b = new byte[n];
            src.get(b);
            all.write(b, 0, n);
            return n;
        }

        @Override
        public boolean isOpen() {
            return true;
        }

        @Override
        public void close() {
        }
    }

    /** Records the tap's calls: (first index, count) and the first message's sequence. */
    /** A tap that does nothing. */
    static final MiddleBox.Tap NONE = (buffer, offset, index) -> { };

    static final class Calls implements MiddleBox.Tap {
        final List<long[]> batches = new ArrayList<>();

        @Override
        public void onMessage(ByteBuffer buffer, int offset, long index) {
            throw new AssertionError("the relay hands the tap whole reads, not single messages");
        }

        @Override
        public void onMessages(ByteBuffer buffer, int offset, int count, int size, long firstIndex) {
            assertEquals(SIZE, size);
            batches.add(new long[] {firstIndex, count, WireHeader.sequence(buffer, offset)});
        }
    }

    @Test
    void partialReadsOfEveryLengthAndPartialWritesForwardEveryByteInOrder() throws Exception {
        final int messages = 50;
        byte[] data = stream(messages);
        for (int read = 1; read <= 2 * SIZE + 1; read++) {
            for (int write : new int[] {1, 7, SIZE, 1 << 20}) {
                Source src = new Source(data, read, read + 3); // two lengths in turn: splits drift
                Sink dst = new Sink(write);
                Calls tap = new Calls();
                RelayForwarder f = new RelayForwarder(src, dst, SIZE, tap, 4 * SIZE);
                long passes = 0;
                long writtenBefore = 0;
                while (f.forwardOnce()) {
                    passes++;
                    int written = dst.all.size();
                    assertEquals(0, written % SIZE, "only whole messages are written");
                    assertEquals(written / SIZE, f.forwarded());
                    writtenBefore = written;
                }
                assertArrayEquals(data, dst.all.toByteArray(), "read " + read + ", write " + write);
                assertEquals(messages, f.forwarded());
                assertEquals(messages * SIZE, writtenBefore);
                long next = 0;
                for (long[] b : tap.batches) {
                    assertEquals(next, b[0], "the tap's index follows the relay's count");
                    assertEquals(next, b[2], "the batch starts at the message with that index");
                    next += b[1];
                }
                assertEquals(messages, next);
                assertTrue(f.reads() <= passes);
            }
        }
    }

    @Test
    void eachReadsWholeMessagesGoOutInOneWriteWhenTheSinkTakesThem() throws Exception {
        byte[] data = stream(100);
        Source src = new Source(data, 10 * SIZE + 5); // 10 whole messages and a bit per read
        Sink dst = new Sink(1 << 20);
        Calls tap = new Calls();
        RelayForwarder f = new RelayForwarder(src, dst, SIZE, tap, 1 << 16);
        while (f.forwardOnce()) {
            // forward all
        }
        assertEquals(f.writes(), dst.calls);
        assertEquals(f.reads(), dst.calls, "one write per read that completed messages");
        assertTrue(tap.batches.size() <= 10, "batches: " + tap.batches.size());
        assertArrayEquals(data, dst.all.toByteArray());
    }

    @Test
    void aStreamEndingInsideAMessageIsAnErrorSayingWhere() throws Exception {
        byte[] data = java.util.Arrays.copyOf(stream(3), 3 * SIZE - 5);
        RelayForwarder f = new RelayForwarder(new Source(data, 1000), new Sink(1 << 20), SIZE, NONE,
                4 * SIZE);
        EOFException e = assertThrows(EOFException.class, () -> {
            while (f.forwardOnce()) {
                // forward until the end
            }
        });
        assertTrue(e.getMessage().contains((SIZE - 5) + " bytes into a message of " + SIZE + " B"), e.getMessage());
        assertEquals(2, f.forwarded());
    }

    @Test
    void aBufferBelowTwoMessagesIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> new RelayForwarder(new Source(new byte[0], 1),
                new Sink(1), SIZE, NONE, 2 * SIZE - 1));
    }
}
