package io.msgscope.driver.tcp;

import io.msgscope.core.WireHeader;
import io.msgscope.core.driver.MiddleBox;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.WritableByteChannel;

/**
 * The raw-TCP relay's forwarding loop: one large buffer, each read takes whatever the socket holds, and
 * every whole message that read completed goes on in one write (a partial message waits at the front of
 * the buffer for the rest). The tap sees each read's whole messages at once ({@link MiddleBox.Tap#onMessages}),
 * so the per-message cost is only what the tap itself does; everything else is paid once per read:
 * the arithmetic, the forwarded count and the write system call. On channels, so that tests can hand
 * it partial reads and writes; single-threaded, no allocation after construction.
 */
final class RelayForwarder {
    private final ReadableByteChannel src;
    private final WritableByteChannel dst;
    private final int size;
    private final MiddleBox.Tap tap;
    private final ByteBuffer buf;
    private long index;
    private long reads;
    private long writes;
    private volatile long forwarded;

    /**
     * @param capacity bytes read at most per call; at least two messages, so a partial message at the front
     *                 never stops a read
     */
    RelayForwarder(ReadableByteChannel src, WritableByteChannel dst, int size, MiddleBox.Tap tap, int capacity) {
        if (capacity < 2 * size) {
            throw new IllegalArgumentException("capacity " + capacity + " is below two messages of " + size + " B");
        }
        this.src = src;
        this.dst = dst;
        this.size = size;
        this.tap = tap;
        this.buf = WireHeader.allocate(capacity);
    }

    /**
     * One read, and the whole messages it completed tapped and written on.
     *
     * @return false at the end of the source's stream
     * @throws EOFException when the stream ended inside a message
     */
    boolean forwardOnce() throws IOException {
        final ByteBuffer b = buf;
        final int r = src.read(b);
        if (r < 0) {
            if (b.position() > 0) {
                throw new EOFException("the sender's stream ended " + b.position() + " bytes into a message of "
                        + size + " B");
            }
            return false;
        }
        if (r > 0) {
            reads++;
        }
        final int end = b.position();
        final int whole = end - end % size;
        if (whole == 0) {
            return true;
        }
        final int k = whole / size;
        tap.onMessages(b, 0, k, size, index);
        index += k;
        b.limit(whole).position(0);
        do {
            dst.write(b);
            writes++;
        } while (b.hasRemaining());
        b.limit(end).position(whole);
        b.compact();
        forwarded = index;
        return true;
    }

    /** Messages forwarded so far; any thread. */
    long forwarded() {
        return forwarded;
    }

    /** Reads that returned data, and write calls: the system calls the relay paid (for tests and figures). */
    long reads() {
        return reads;
    }

    long writes() {
        return writes;
    }
}
