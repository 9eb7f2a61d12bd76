package io.msgscope.driver.amqp;

/**
 * An {@link AmqpPublisher}'s message bodies in turn. amqp-client's NIO frames refer to the body array until the
 * I/O loop has written them (no copy of its own), so an array is reused only once the connection's write queue
 * has written past the frames of the message it last held. A publisher starts with two, so ten thousand mostly
 * idle publishers hold little, and doubles them (up to {@link #bodyArrays}) only as far as its message rate and
 * the I/O loop's pace need. Used by the sending thread only.
 */
final class BodyArrays {
    /** The most bytes of body arrays one publisher holds. */
    static final int BODY_BYTES = 1 << 20;

    private final int size;
    private final int max;
    private byte[][] bodies;
    /** The write-queue count each array's frames end at. */
    private long[] ends;
    private int slot;

    /** @param max the most arrays: {@link #bodyArrays}, or 1 without a write queue to tell when one is free */
    BodyArrays(int size, int max) {
        this.size = size;
        this.max = max;
        this.bodies = new byte[Math.min(2, max)][size];
        this.ends = new long[bodies.length];
    }

    /**
     * Body arrays a publisher cycles through: enough for every message its write queue can hold plus the one the
     * loop is writing, so that a full queue, not the arrays, is what holds a sender back; at most
     * {@value #BODY_BYTES} bytes of them, at least 2.
     */
    static int bodyArrays(int size, int frames, int queueCapacity) {
        long byQueue = queueCapacity / Math.max(1, frames) + 2L;
        long byMemory = BODY_BYTES / Math.max(1, size);
        return (int) Math.max(2, Math.min(byQueue, byMemory));
    }

    /**
     * The index of the array the next message goes in, once the write queue has written {@code written} frames: the
     * next in turn if written, else the first of twice as many; -1 when all are still being written, at the limit.
     */
    int next(long written) {
        int k = slot;
        return ends[k] > written ? grow(k) : k;
    }

    /** The next array in turn (the oldest), whose frames end at {@link #end}. */
    int oldest() {
        return slot;
    }

    /** The write-queue count array {@code k}'s frames end at. */
    long end(int k) {
        return ends[k];
    }

    byte[] body(int k) {
        return bodies[k];
    }

    /** Array {@code k} was published, its frames ending at write-queue count {@code end}; the next one's turn. */
    void published(int k, long end) {
        ends[k] = end;
        slot = k + 1 == bodies.length ? 0 : k + 1;
    }

    /**
     * Doubles the arrays (up to {@link #max}) when the next one is still being written. The in-flight arrays keep
     * their order (oldest first); returns the first new array's index, or -1 at the limit.
     */
    private int grow(int k) {
        final int n = bodies.length;
        if (n >= max) {
            return -1;
        }
        int m = Math.min(max, 2 * n);
        byte[][] b = new byte[m][];
        long[] e = new long[m];
        for (int i = 0; i < n; i++) {
            b[i] = bodies[(k + i) % n];
            e[i] = ends[(k + i) % n];
        }
        for (int i = n; i < m; i++) {
            b[i] = new byte[size];
        }
        bodies = b;
        ends = e;
        slot = n;
        return n;
    }

    /**
     * Frames amqp-client writes for one message of {@code size} bytes: basic.publish, the content header, and the
     * body cut into frames of at most frameMax - 8 bytes (frameMax 0 = no limit).
     */
    static int frames(int size, int frameMax) {
        int bodyFrame = frameMax > 8 ? frameMax - 8 : Integer.MAX_VALUE;
        return 2 + (size == 0 ? 0 : (int) ((size + (long) bodyFrame - 1) / bodyFrame));
    }
}
