package io.msgscope.driver.nats;

import io.msgscope.core.driver.AckCounts;
import io.msgscope.core.driver.DeliveryCount;
import io.msgscope.core.WireHeader;
import io.msgscope.core.driver.Publisher;
import io.nats.client.Connection;
import io.nats.client.ErrorListener;
import io.nats.client.JetStream;
import io.nats.client.api.PublishAck;

import io.msgscope.core.driver.Fault;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BiConsumer;

/**
 * Publishes from the sender's thread with the subject string built once. jnats queues the byte[] it
 * is given (no copy) for its writer thread while the sender rewrites its buffer in place: so each
 * message is copied into a fresh byte[] of the message size, the one allocation per message in this
 * driver's own code (jnats adds its message object). Core NATS: {@link #drain} is a flush (PING/PONG:
 * the server has everything). JetStream: asynchronous publishes, at most {@code max_inflight}
 * outstanding; each ack from the stream counts as {@code messages_acked}, each failure as
 * {@code publish_errors}; {@link #drain} waits for every ack.
 */
final class NatsPublisher implements Publisher {
    private static final long STALL_NS = 30_000_000_000L;

    private final NatsSettings settings;
    private final Connection conn;
    private final JetStream js;
    private final String subject;
    private final int size;
    private final int maxInflight;
    private final DeliveryCount lost = new DeliveryCount();
    private final AtomicLong completed = new AtomicLong();
    private final AckCounts counts = new AckCounts();
    /** Warm-up messages (negative sequence) and measured ones are acknowledged into separate counts. */
    private final BiConsumer<PublishAck, Throwable> onAck = new Completion(false);
    private final BiConsumer<PublishAck, Throwable> onWarmupAck = new Completion(true);

    private final class Completion implements BiConsumer<PublishAck, Throwable> {
        private final boolean warmup;

        Completion(boolean warmup) {
            this.warmup = warmup;
        }

        @Override
        public void accept(PublishAck ack, Throwable failure) {
            if (failure != null || ack == null || ack.hasError()) {
                counts.error(counts.firstError() != null ? null : "JetStream at " + settings.address()
                        + " did not acknowledge a publish to '" + subject + "': " + (failure != null
                        ? NatsSettings.oneLine(failure) : ack == null ? "no ack" : ack.getError()));
            } else {
                counts.acked(warmup);
            }
            completed.incrementAndGet();
        }
    }

    private long sent; // sender thread only

    NatsPublisher(NatsSettings s, int size) throws IOException {
        this.settings = s;
        this.subject = s.subject();
        this.size = size;
        this.maxInflight = s.maxInflight();
        this.conn = s.connect("pub", lost::lost, new ErrorListener() { });
        try {
            s.checkMaxPayload(size, conn.getServerInfo() == null ? 0 : conn.getServerInfo().getMaxPayload());
        } catch (RuntimeException e) {
            close();
            throw e;
        }
        this.js = s.jetStream() ? conn.jetStream() : null;
    }

    @Override
    public void send(ByteBuffer buffer, int offset, int length) throws IOException {
        final int size = this.size;
        final int end = offset + length;
        for (int off = offset; off < end; off += size) {
            final byte[] copy = new byte[size];
            buffer.get(off, copy, 0, size);
            if (js == null) {
                try {
                    conn.publish(subject, copy);
                } catch (IllegalStateException e) { // jnats: "Connection is Closed"
                    throw new Fault(Fault.Kind.CONNECTION_LOST, "cannot publish to NATS at " + settings.address()
                            + " after " + sent + " messages: " + e.getMessage());
                }
            } else {
                if (sent - completed.get() >= maxInflight) {
                    awaitWindow();
                }
                js.publishAsync(subject, copy).whenComplete(WireHeader.sequence(buffer, off) < 0 ? onWarmupAck : onAck);
            }
            sent++;
        }
    }

    private void awaitWindow() throws IOException {
        long last = completed.get();
        long since = System.nanoTime();
        while (sent - completed.get() >= maxInflight) {
            checkAlive();
            long c = completed.get();
            if (c != last) {
                last = c;
                since = System.nanoTime();
            } else if (System.nanoTime() - since > STALL_NS) {
                throw new IOException("JetStream at " + settings.address() + " acknowledged nothing for "
                        + STALL_NS / 1_000_000_000L + " s (" + (sent - c) + " outstanding)");
            }
            LockSupport.parkNanos(20_000);
        }
    }

    private void checkAlive() throws IOException {
        if (lost.isLost()) {
            throw new Fault(Fault.Kind.CONNECTION_LOST, "connection to NATS at " + settings.address() + " lost after "
                    + sent + " messages");
        }
    }

    @Override
    public void drain(long timeoutMs) throws IOException {
        final long deadline = System.nanoTime() + timeoutMs * 1_000_000L;
        if (js != null) {
            while (completed.get() < sent) {
                checkAlive();
                if (System.nanoTime() > deadline) {
                    throw new IOException((sent - completed.get()) + " of " + sent + " JetStream publishes to "
                            + settings.address() + " not acknowledged after " + timeoutMs + " ms");
                }
                LockSupport.parkNanos(100_000);
            }
            return;
        }
        checkAlive();
        try {
            conn.flush(Duration.ofMillis(Math.max(1, timeoutMs)));
        } catch (TimeoutException e) {
            throw new IOException("NATS at " + settings.address() + " did not answer a flush within " + timeoutMs + " ms");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while flushing to NATS at " + settings.address());
        }
    }

    @Override
    public Map<String, Long> counters() {
        return counts.counters(js != null, false); // core NATS has no acks
    }

    @Override
    public String firstError() {
        return counts.firstError();
    }

    @Override
    public void close() {
        try {
            conn.close();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
