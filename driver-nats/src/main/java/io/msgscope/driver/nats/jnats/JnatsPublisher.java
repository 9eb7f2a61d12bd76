package io.msgscope.driver.nats.jnats;

import io.msgscope.core.driver.AckCounts;
import io.msgscope.core.driver.Confirmations;
import io.msgscope.core.driver.Reconnects;
import io.msgscope.core.driver.RepublishPacing;
import io.msgscope.core.driver.DeliveryCount;
import io.msgscope.core.WireHeader;
import io.msgscope.core.driver.Publisher;
import io.nats.client.Connection;
import io.nats.client.ErrorListener;
import io.nats.client.JetStream;
import io.nats.client.api.PublishAck;
import io.nats.client.impl.Headers;

import io.msgscope.core.driver.Fault;
import io.msgscope.driver.nats.NatsSettings;
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
 * {@code publish_errors}; {@link #drain} waits for every ack. Each measured message's ack is also noted by sequence
 * ({@link Confirmations}: {@code messages_confirmed}, {@code messages_unconfirmed}), so the coordinator tells a lost
 * message the stream had acknowledged, a guarantee violation, from one it never had (issue 32 item 3).
 *
 * <p>With {@code --opt reconnect=true} jnats reconnects, and a JetStream publish that fails or is not acknowledged
 * within the request timeout (its ack died with the server) is published again from the sender's thread
 * ({@code messages_republished}; the copy is kept until the ack comes), so every measured message ends acknowledged
 * or counted unconfirmed. A republished message the first copy of which got through arrives twice: a duplicate in
 * the trace. Core NATS has nothing to republish (no acks): what a restart loses is counted lost.
 *
 * <p>So that the stream stores such a message once, each measured message carries a {@value #MSG_ID} header with
 * reconnect=true: this publisher's random id and the message's sequence ({@link #messageId}), the same on every copy.
 * The stream drops a copy whose id it stored within its duplicate window ({@link JnatsSubscriber#DUPLICATE_WINDOW})
 * and acknowledges it flagged as a duplicate, counted {@code messages_deduplicated}: what the republish cost is still
 * visible. Without reconnect nothing is published twice, so no id is sent (the server would keep every id for the
 * window, and jnats would build a header per message: {@code docs/drivers/nats.md}).
 */
public final class JnatsPublisher implements Publisher {
    private static final long STALL_NS = 30_000_000_000L;
    /** JetStream's de-duplication header. */
    static final String MSG_ID = "Nats-Msg-Id";

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
    private final BiConsumer<PublishAck, Throwable> onWarmupAck = new Completion(-1);
    private final Confirmations confirmations = new Confirmations();
    private final AtomicLong reconnects = new AtomicLong();
    private final boolean reconnect;
    /** reconnect=true: each measured message's copy until its ack, by sequence; its republish queue. */
    private final java.util.concurrent.ConcurrentHashMap<Long, byte[]> unacked;
    private final java.util.concurrent.ConcurrentLinkedQueue<Long> toRepublish;
    /** reconnect=true: this publisher's part of every message id, random (unique among the run's publishers). */
    private final String idPrefix;
    /** Republished copies the stream recognised by their id and dropped (reconnect=true). */
    private final AtomicLong deduplicated = new AtomicLong();
    /**
     * reconnect=true: when the failed publishes go out again, in rounds from one reconnect wait apart up to 16 waits
     * (1.6 s) while nothing is acknowledged, so a stream still electing its leader (every publish refused at once: no
     * responders) is not hit with the whole backlog every 100 ms (BENCHMARKS.md: 158,000 publishes sent again for
     * 5,000 messages that way).
     */
    private final RepublishPacing pacing = new RepublishPacing(NatsSettings.RECONNECT_WAIT.toNanos(),
            16 * NatsSettings.RECONNECT_WAIT.toNanos());

    /** One publish's outcome: {@code seq} the measured message's sequence, negative for the warm-up. */
    private final class Completion implements BiConsumer<PublishAck, Throwable> {
        private final long seq;

        Completion(long seq) {
            this.seq = seq;
        }

        @Override
        public void accept(PublishAck ack, Throwable failure) {
            boolean ok = failure == null && ack != null && !ack.hasError();
            if (!ok && reconnect && seq >= 0) {
                toRepublish.add(seq); // counted when it goes out again; the sender's thread sends it
            } else if (!ok) {
                counts.error(counts.firstError() != null ? null : "JetStream at " + settings.address()
                        + " did not acknowledge a publish to '" + subject + "': " + (failure != null
                        ? NatsSettings.oneLine(failure) : ack == null ? "no ack" : ack.getError()));
            } else {
                counts.acked(seq < 0);
                pacing.acked();
                if (seq >= 0) {
                    if (ack.isDuplicate()) {
                        deduplicated.incrementAndGet();
                    }
                    confirmations.confirm(seq);
                    if (reconnect) {
                        unacked.remove(seq);
                    }
                }
            }
            completed.incrementAndGet();
        }
    }

    private long sent; // sender thread only

    public JnatsPublisher(NatsSettings s, int size) throws IOException {
        this.settings = s;
        this.subject = s.subject();
        this.size = size;
        this.maxInflight = s.maxInflight();
        this.reconnect = s.reconnect();
        this.unacked = reconnect ? new java.util.concurrent.ConcurrentHashMap<>() : null;
        this.toRepublish = reconnect ? new java.util.concurrent.ConcurrentLinkedQueue<>() : null;
        this.idPrefix = reconnect ? Long.toHexString(java.util.concurrent.ThreadLocalRandom.current().nextLong()) + "-"
                : null;
        this.conn = s.connect("pub", lost::lost, reconnects::incrementAndGet, new ErrorListener() { });
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
                long seq = WireHeader.sequence(buffer, off);
                if (seq >= 0) {
                    confirmations.sent(seq);
                    if (reconnect) {
                        unacked.put(seq, copy);
                    }
                }
                publish(copy, seq);
            }
            sent++;
        }
        if (reconnect) {
            republish();
        }
    }

    /** One JetStream publish, its ack noted by sequence (a measured message's ack allocates its completion). */
    private void publish(byte[] copy, long seq) throws IOException {
        try {
            if (reconnect && seq >= 0) {
                js.publishAsync(subject, new Headers().put(MSG_ID, messageId(seq)), copy)
                        .whenComplete(new Completion(seq));
                return;
            }
            js.publishAsync(subject, copy).whenComplete(seq < 0 ? onWarmupAck : new Completion(seq));
        } catch (IllegalStateException e) { // jnats: closed, or its reconnect buffer is full
            throw new Fault(Fault.Kind.CONNECTION_LOST, "cannot publish to JetStream at " + settings.address()
                    + " after " + sent + " messages: " + e.getMessage());
        }
    }

    /** The {@value #MSG_ID} of measured message {@code seq} (reconnect=true): the same on every copy of it. */
    String messageId(long seq) {
        return idPrefix + seq;
    }

    /** reconnect=true, sender's thread: publishes again what failed or went unacknowledged, each counted, when due. */
    private void republish() throws IOException {
        if (toRepublish.isEmpty() || !pacing.due(System.nanoTime())) {
            return;
        }
        Long seq;
        while ((seq = toRepublish.poll()) != null) {
            byte[] copy = unacked.get(seq);
            if (copy != null && !confirmations.isConfirmed(seq)) {
                confirmations.republished();
                sent++; // one more publish awaiting its completion
                publish(copy, seq);
            }
        }
    }

    private void awaitWindow() throws IOException {
        long last = completed.get();
        long since = System.nanoTime();
        while (sent - completed.get() >= maxInflight) {
            checkAlive();
            if (reconnect) {
                republish();
            }
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
            while (completed.get() < sent || reconnect && !toRepublish.isEmpty()) {
                checkAlive();
                if (reconnect) {
                    republish();
                }
                if (System.nanoTime() > deadline && reconnect) {
                    return; // what is still unacknowledged is counted messages_unconfirmed, not hidden
                }
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
        Map<String, Long> m = new java.util.HashMap<>(counts.counters(js != null, false)); // core NATS has no acks
        if (js != null) {
            m.putAll(confirmations.counters());
        }
        if (reconnect) {
            m.put(Reconnects.PUBLISHER_RECONNECTS, reconnects.get());
            if (js != null) {
                m.put(Reconnects.DEDUPLICATED, deduplicated.get());
            }
        }
        return Map.copyOf(m);
    }

    /** JetStream confirms each message with its ack; core NATS confirms nothing. */
    @Override
    public boolean confirms() {
        return js != null;
    }

    @Override
    public long[] unconfirmed() {
        return js == null ? null : confirmations.unconfirmedRanges();
    }

    @Override
    public long confirmedSoFar() {
        return js == null ? -1 : confirmations.confirmed();
    }

    @Override
    public String firstError() {
        return counts.firstError();
    }

    @Override
    public void close() {
        JnatsSubscriber.close(conn);
    }
}
