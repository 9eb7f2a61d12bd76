package io.msgscope.driver.nats.netty;

import io.msgscope.core.driver.AckCounts;
import io.msgscope.core.driver.ClientContext;
import io.msgscope.core.driver.Fault;
import io.msgscope.core.driver.Publisher;
import io.msgscope.driver.nats.NatsSettings;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.function.BooleanSupplier;

/**
 * The lean core-NATS publisher (the default engine): {@code PUB <subject> <size>} frames on a
 * {@link NettyNatsConnection}, without jnats' message objects, byte[] copies and writer thread. The sending thread writes
 * each frame (the line prepared once, the payload, CRLF) straight into a buffer that the event loop takes and
 * writes whole, flushed once: a frame that finds the loop idle goes out at once, frames that arrive while it is
 * writing share the next write (one wake-up and one system call for all of them).
 *
 * <p>Nothing is allocated per message or per write in steady state: the buffers are the publisher's own, reused
 * (a paced publisher writes nearly every message on its own, so a fresh buffer per write would be garbage per
 * message, and Netty's leak detector samples every 128th allocation with a stack trace on the sending thread). The
 * event loop writes a buffer with one extra reference; once Netty has written and released it, its reference count
 * is back to one and the sending thread takes it again. They start small and grow to what the traffic needs (a
 * few KiB for a paced publisher, {@link #BATCH_BOUND} and a frame at full speed), so ten thousand idle publishers
 * hold little memory. Unpooled direct buffers: their NIO view is reused on every write.
 *
 * <p>Back-pressure: the queue is full when the buffer waiting for the event loop holds {@link #BATCH_BOUND} bytes or
 * more, or when the channel is not writable (Netty's outbound buffer above its high-water mark because the socket
 * is full). {@link #offer} then returns false at once, so a pacer serving thousands of connections never waits for
 * one; {@link #send} (trace mode) parks until there is room. Core NATS acknowledges nothing, so {@link #drain} is a
 * PING/PONG round trip queued behind the frames: its PONG says the server has processed every PUB before it. The
 * counters are the jnats publisher's ({@code publish_errors}); a {@code -ERR} from the server ends the connection
 * and counts as a publish error.
 *
 * <p>{@code --opt reconnect=true} (issue 32 item 3): a lost connection is got back from the sending thread, in
 * {@link #send}, {@link #offer} (a pacer waits while it lasts) or {@link #drain}, from any server of the URI list
 * ({@link NatsReconnect#reconnect}; {@code publisher_reconnects}, as jnats counts its reconnects). What was queued for
 * or written into the dead connection is gone: core NATS confirms nothing, so nothing is republished and the trace
 * counts it lost; the publisher confirms nothing either (no {@code messages_confirmed}, guarantee figures unknown).
 */
public final class NettyNatsPublisher implements Publisher, NettyNatsConnection.Owner {
    /** Bytes queued for the event loop beyond which the queue counts as full. */
    static final int BATCH_BOUND = 64 * 1024;
    /** A {@link #send} that finds no room for this long fails: the server stopped reading. */
    static final long STALL_NS = 30_000_000_000L;

    private final NatsSettings s;
    private final int size;
    /** The connection and its channel; others after each reconnect (sending thread writes). */
    private volatile NettyNatsConnection conn;
    private volatile Channel channel;
    private final ClientContext context;
    private final java.util.concurrent.atomic.AtomicLong reconnects = new java.util.concurrent.atomic.AtomicLong();
    private volatile boolean closed;
    /** {@code PUB <subject> <size>\r\n}, the same for every message. */
    private final byte[] line;
    private final int frameBytes;
    private final AckCounts counts = new AckCounts();
    private final Runnable writeTask = this::writeQueued;
    private final BooleanSupplier room = this::hasRoom;
    private final Object lock = new Object();
    // guarded by lock: the frames queued for the event loop and whether a write task is on its way
    private ByteBuf batch;
    private boolean scheduled;
    /** The publisher's write buffers; sending thread only (a buffer with one reference is free). */
    private final java.util.ArrayList<ByteBuf> buffers = new java.util.ArrayList<>(4);

    // sending thread only
    private long sent;
    private long pings = 1; // the CONNECT's PING
    private long begun;     // the PONG count beginDrain's PING will reach on begunOn; 0: none pending
    private NettyNatsConnection begunOn;
    private ByteBuffer source;
    private ByteBuffer view;

    public NettyNatsPublisher(NatsSettings s, int size, ClientContext context) throws IOException {
        this.s = s;
        this.size = size;
        this.line = ("PUB " + s.subject() + " " + size + "\r\n").getBytes(StandardCharsets.UTF_8);
        this.frameBytes = line.length + size + 2;
        this.context = context;
        this.conn = NatsReconnect.connect(s, context, "pub", this);
        this.channel = conn.channel;
        try {
            s.checkMaxPayload(size, conn.info().maxPayload());
        } catch (RuntimeException e) {
            conn.close();
            throw e;
        }
        keepAlive(conn);
    }

    @Override
    public void send(ByteBuffer buffer, int offset, int length) throws IOException {
        final int end = offset + length;
        for (int off = offset; off < end; off += size) {
            while (!enqueue(buffer, off)) {
                awaitRoom();
            }
        }
    }

    @Override
    public boolean offer(ByteBuffer buffer, int offset, int length) throws IOException {
        return enqueue(buffer, offset);
    }

    /** Whether a frame may be queued now: the queue below its bound and the channel writable. */
    private boolean hasRoom() {
        if (!channel.isWritable()) {
            return false;
        }
        synchronized (lock) {
            return batch == null || batch.writerIndex() < BATCH_BOUND;
        }
    }

    private void awaitRoom() throws IOException {
        long since = System.nanoTime();
        NettyNatsConnection c;
        while (!(c = conn).await(room, 1_000_000_000L)) {
            checkAlive(); // otherwise a second went by without room: the socket is merely full, wait on
            if (conn != c) {
                since = System.nanoTime(); // got back (reconnect=true): the stall counts from now
            }
            if (System.nanoTime() - since > STALL_NS) {
                throw new Fault(Fault.Kind.PUBLISH_FAILED, "NATS at " + s.address() + " took nothing for "
                        + STALL_NS / 1_000_000_000L + " s after " + sent + " messages (the connection's socket stayed full)");
            }
        }
    }

    /**
     * Copies one message into the queue, behind its PUB line, and makes sure a write task is on its way; false
     * (nothing copied) when the queue is full.
     */
    private boolean enqueue(ByteBuffer buffer, int off) throws IOException {
        if (conn.lostWhy() != null) {
            checkAlive();
        }
        if (!channel.isWritable()) {
            return false;
        }
        boolean schedule;
        synchronized (lock) {
            ByteBuf b = batch;
            if (b == null) {
                b = batch = freeBuffer();
            } else if (b.writerIndex() >= BATCH_BOUND) {
                return false;
            }
            b.writeBytes(line);
            if (buffer.hasArray()) {
                b.writeBytes(buffer.array(), buffer.arrayOffset() + off, size);
            } else {
                b.writeBytes(slice(buffer, off));
            }
            b.writeByte('\r').writeByte('\n');
            schedule = !scheduled;
            scheduled = true;
        }
        if (schedule) {
            channel.eventLoop().execute(writeTask);
        }
        sent++;
        return true;
    }

    /** {@code [off, off + size)} of a direct buffer through one reused view (made again only for another buffer). */
    private ByteBuffer slice(ByteBuffer buffer, int off) {
        if (buffer != source) {
            source = buffer;
            view = buffer.duplicate();
        }
        view.clear();
        view.position(off).limit(off + size);
        return view;
    }

    /**
     * Sending thread, holding the lock: an empty buffer of the publisher's own that neither the event loop nor Netty
     * holds (one reference left), or a new one when all are out.
     */
    private ByteBuf freeBuffer() {
        for (int i = 0, n = buffers.size(); i < n; i++) {
            ByteBuf b = buffers.get(i);
            if (b.refCnt() == 1) {
                return b.clear();
            }
        }
        ByteBuf b = io.netty.buffer.Unpooled.directBuffer(Math.min(Math.max(frameBytes, 1024), BATCH_BOUND + frameBytes));
        buffers.add(b);
        return b;
    }

    /**
     * Event loop: writes what was queued since the last run in one buffer, flushed once. The write holds a
     * reference of its own, which Netty releases once the buffer is written (or the channel closed).
     */
    private void writeQueued() {
        final ByteBuf out;
        synchronized (lock) {
            out = batch;
            if (out != null) {
                out.retain(); // before the batch is let go: the sending thread must not see it free
            }
            batch = null;
            scheduled = false;
        }
        conn.wake();
        if (out == null) {
            return;
        }
        if (!channel.isActive()) {
            out.release();
            return;
        }
        channel.writeAndFlush(out, channel.voidPromise());
    }

    private void checkAlive() throws IOException {
        NettyNatsConnection c = conn;
        if (c.lostWhy() == null) {
            return;
        }
        countServerError(); // before the throw: the caller reads the counters next
        if (!closed && NatsReconnect.worthGettingBack(c)) {
            resume(c);
            return;
        }
        c.checkAlive("after " + sent + " messages");
    }

    /**
     * reconnect=true, sending thread: dials the servers again ({@link NatsReconnect#reconnect}) and drops what was
     * queued for the dead connection (core NATS: gone, counted lost by the trace); PINGs count from the new CONNECT's.
     */
    private void resume(NettyNatsConnection lost) throws IOException {
        NettyNatsConnection next = NatsReconnect.reconnect(lost, context, "pub", this, () -> closed);
        try {
            s.checkMaxPayload(size, next.info().maxPayload()); // another server of the list may take less
        } catch (RuntimeException e) {
            next.close();
            throw e;
        }
        synchronized (lock) {
            batch = null; // its buffer is free again (one reference): reused by the next frame
            pings = 1;
            channel = next.channel;
            conn = next;
        }
        reconnects.incrementAndGet();
        keepAlive(next);
    }

    /**
     * Event loop: a -ERR from the server (e.g. a permissions violation for the subject) counts as a publish error;
     * any end of the connection is thrown by the next {@link #send} or {@link #offer}.
     */
    @Override
    public void onLost() {
        countServerError();
    }

    /**
     * Counts the server's -ERR once, from whichever comes first: the event loop seeing the connection end, or
     * the sender finding it ended (the -ERR is parsed before the channel closes, so a sender can get there first).
     * Synchronized, not a flag alone: whichever comes second returns only once the first has counted, so the
     * caller that goes on to read the counters sees the error.
     */
    private synchronized void countServerError() {
        String why = conn.lostWhy();
        String prefix = "the server sent -ERR";
        if (!serverErrorCounted && !conn.closedByUs() && why != null && why.startsWith(prefix)) {
            serverErrorCounted = true;
            counts.error("NATS at " + s.address() + " sent -ERR" + why.substring(prefix.length()));
        }
    }

    private boolean serverErrorCounted; // guarded by this

    /** Sends the PING {@link #drain} waits for, so that thousands of publishers' round trips overlap. */
    @Override
    public void beginDrain() throws IOException {
        checkAlive();
        begunOn = conn;
        begun = ping();
    }

    /**
     * {@code --opt ping_interval}: the keep-alive PINGs go through {@link #ping}, behind the frames queued before them,
     * so the PONG counts {@link #drain} waits for stay in order; a tick of a connection since replaced sends nothing.
     */
    private void keepAlive(NettyNatsConnection c) {
        NatsKeepAlive.start(c, () -> {
            if (conn == c) {
                ping();
            }
        });
    }

    /** Queues a PING behind everything sent and schedules the write; the PONG count that will answer it. */
    private long ping() {
        final long want;
        boolean schedule;
        synchronized (lock) {
            if (batch == null) {
                batch = freeBuffer();
            }
            NettyNatsConnection.writePing(batch);
            want = ++pings;
            schedule = !scheduled;
            scheduled = true;
        }
        if (schedule) {
            channel.eventLoop().execute(writeTask);
        }
        return want;
    }

    /** A PING behind everything queued; returns when its PONG came, i.e. the server has processed every PUB. */
    @Override
    public void drain(long timeoutMs) throws IOException {
        final long deadline = System.nanoTime() + Math.max(1, timeoutMs) * 1_000_000L;
        while (true) {
            checkAlive();
            final NettyNatsConnection c = conn;
            // the PING beginDrain sent on this connection, or a new one
            final long want = begun > 0 && begunOn == c ? begun : ping();
            begun = 0;
            if (c.await(() -> c.pongs() >= want, Math.max(1, deadline - System.nanoTime()))) {
                return;
            }
            if (closed || !NatsReconnect.worthGettingBack(c) || System.nanoTime() >= deadline) {
                break;
            } // lost with reconnect=true: got back at the top of the loop, and the PING goes again
        }
        NettyNatsConnection c = conn;
        if (c.lostWhy() != null) {
            countServerError();
            c.checkAlive("after " + sent + " messages");
        }
        throw new IOException("NATS at " + s.address() + " did not answer a PING within " + timeoutMs + " ms after "
                + sent + " messages");
    }

    @Override
    public Map<String, Long> counters() {
        Map<String, Long> m = counts.counters(false, false); // core NATS has no acks
        if (!s.reconnect()) {
            return m;
        }
        m = new java.util.HashMap<>(m);
        m.put(io.msgscope.core.driver.Reconnects.PUBLISHER_RECONNECTS, reconnects.get());
        return Map.copyOf(m);
    }

    @Override
    public String firstError() {
        return counts.firstError();
    }

    /** The connection, for tests. */
    NettyNatsConnection connection() {
        return conn;
    }

    @Override
    public void close() {
        closed = true;
        conn.close(); // runs on the event loop after the write task already queued
        synchronized (lock) {
            batch = null;
            for (ByteBuf b : buffers) {
                b.release(); // ours; a write still holding one releases its own reference
            }
            buffers.clear();
        }
    }
}
