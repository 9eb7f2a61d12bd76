package io.msgscope.driver.kafka;

import io.msgscope.core.WireHeader;
import io.msgscope.core.driver.AckCounts;
import io.msgscope.core.driver.Confirmations;
import io.msgscope.core.driver.Fault;
import io.msgscope.core.driver.Publisher;
import io.msgscope.core.driver.Reconnects;
import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.RetriableException;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * One KafkaProducer (its own connections and network thread, A1) sending to the run's topic without a key, so the
 * producer's partitioner spreads batches over the partitions. Each message is copied from the sender's buffer into
 * one byte[] of the message size, preallocated, and handed to {@code send}: kafka-clients serializes and appends the
 * value to its batch inside {@code send} (the value bytes are copied into the batch before it returns), so the array
 * is free again for the next message and the sender may overwrite its buffer at once. {@code KafkaDriverTest}
 * holds this to account: every payload arrives as written. kafka-clients allocates a ProducerRecord and its batch
 * bookkeeping per message (the library's, not hidden).
 *
 * <p>Acknowledgements arrive on the producer's network thread: each success counts as {@code messages_acked}
 * (with acks=0 the producer completes a send once it is written to the socket), each failure as
 * {@code publish_errors} ({@code publish_refused} when the broker refused it for good, e.g. a message too large).
 * At most {@code max_inflight} sends are unacknowledged: {@link #send} then waits, {@link #offer} returns false.
 * Once a send has failed, the next {@code send} or {@code offer} throws it: kafka-clients retries a broker that is
 * gone until the delivery timeout and says nothing else, so a failed send is how a lost broker shows.
 * {@link #drain} flushes the producer and waits for every acknowledgement.
 *
 * <p>With {@code --opt reconnect=true} (issue 32 item 3) a failed send does not end the run. kafka-clients already
 * finds a partition's new leader and retries within the delivery timeout on its own; a send it gives up on with a
 * retriable error (the timeout itself: a broker down longer than that) is sent again by the sending thread before
 * its next message, with the same bytes, so the same sequence and intended time ({@code messages_republished}). To
 * send it again the publisher keeps each record's bytes until its acknowledgement: one array of the message size per
 * message, the option's cost. Each measured record's acknowledgement is noted by sequence ({@link Confirmations}):
 * {@code messages_confirmed} + {@code messages_unconfirmed} = sent, and with acks=all a confirmed record the
 * subscriber never received is a guarantee violation ({@link KafkaSettings#promises}). A send refused for good is
 * still the end of the run, and so is a broker that acknowledged nothing for {@value #GIVE_UP_S} s. kafka-clients
 * keeps a connection per broker and moves between them itself, so there is no reconnect to count: the
 * {@code publisher_reconnects} counter is absent (unknown), not 0.
 */
final class KafkaPublisher implements Publisher {
    /** A send waiting this long for any acknowledgement gives up: the broker is gone or stuck. */
    private static final long STALL_NS = (KafkaClients.DELIVERY_TIMEOUT_MS + 5_000) * 1_000_000L;
    /** reconnect=true: how long sends may fail without any acknowledgement before the run fails as without it. */
    static final long GIVE_UP_S = 120;

    private final KafkaSettings settings;
    private final Producer<byte[], byte[]> producer;
    private final String topic;
    private final int size;
    private final byte[] value;
    private final int maxInflight;
    private final AckCounts counts = new AckCounts();
    private final AtomicLong completed = new AtomicLong();
    private final Callback onAck = new Completion(false);
    private final Callback onWarmupAck = new Completion(true);
    /** reconnect=true: the measured sequences acknowledged, else null. */
    private final Confirmations confirmations;
    /** reconnect=true: records that failed with a retriable error, oldest first, to send again; else null. */
    private final Queue<Kept> failed;
    /**
     * reconnect=true: how many records {@link #failed} holds, kept beside it because the queue's own {@code size()}
     * walks it (a ConcurrentLinkedQueue's), and the sending thread asks before every message.
     */
    private final AtomicInteger failedCount = new AtomicInteger();
    private final long giveUpNs;
    private volatile long lastAckNs = System.nanoTime();
    private long sent; // sender thread only: sends made, a record sent again counted again

    private final class Completion implements Callback {
        private final boolean warmup;

        Completion(boolean warmup) {
            this.warmup = warmup;
        }

        @Override
        public void onCompletion(RecordMetadata metadata, Exception failure) {
            if (failure == null) {
                counts.acked(warmup);
            } else {
                failed(failure);
            }
            completed.incrementAndGet();
        }
    }

    /** reconnect=true: one record's bytes, kept until the broker acknowledges it, and its completion. */
    private final class Kept implements Callback {
        private final long seq;
        private final byte[] bytes;

        Kept(long seq, byte[] bytes) {
            this.seq = seq;
            this.bytes = bytes;
        }

        @Override
        public void onCompletion(RecordMetadata metadata, Exception failure) {
            if (failure == null) {
                counts.acked(seq < 0);
                confirmations.confirm(seq);
                lastAckNs = System.nanoTime();
            } else if (failure instanceof RetriableException) {
                failed.add(this);
                failedCount.incrementAndGet();
            } else {
                failed(failure);
            }
            completed.incrementAndGet();
        }
    }

    /** Counts a send that failed for good; the first one's words end the run at the next send. */
    private void failed(Exception failure) {
        String first = counts.firstError() != null ? null : "Kafka at " + settings.address()
                + " did not acknowledge a send to '" + topic + "': " + KafkaClients.oneLine(failure);
        if (failure instanceof RetriableException) {
            counts.error(first);
        } else {
            counts.refused(first);
        }
    }

    /** Opens the producer and reads the topic's metadata now, so that the first send does not wait for it. */
    static KafkaPublisher open(KafkaSettings s, int size) throws IOException {
        KafkaProducer<byte[], byte[]> producer;
        try {
            producer = new KafkaProducer<>(KafkaClients.producer(s, size));
        } catch (KafkaException e) {
            throw new IOException("cannot create a Kafka producer for " + s.address() + ": "
                    + KafkaClients.oneLine(e), e);
        }
        try {
            producer.partitionsFor(s.topic()); // and a missing topic is said here
        } catch (KafkaException e) {
            producer.close(Duration.ZERO);
            if (e instanceof org.apache.kafka.common.errors.SslAuthenticationException) {
                throw KafkaClients.tlsFailed(s, e);
            }
            throw new Fault(Fault.Kind.CONNECT_FAILED, "Kafka at " + s.address() + " gave no metadata for topic '"
                    + s.topic() + "' within " + KafkaClients.MAX_BLOCK_MS / 1000 + " s: " + KafkaClients.oneLine(e), e);
        }
        return new KafkaPublisher(s, size, producer, GIVE_UP_S * 1_000_000_000L);
    }

    /** Over a producer opened already (a {@code MockProducer} in the tests), giving up as {@link #GIVE_UP_S} says. */
    KafkaPublisher(KafkaSettings s, int size, Producer<byte[], byte[]> producer, long giveUpNs) {
        this.giveUpNs = giveUpNs;
        this.settings = s;
        this.topic = s.topic();
        this.size = size;
        this.value = new byte[size];
        this.maxInflight = s.maxInflight();
        this.producer = producer;
        this.confirmations = s.reconnect() ? new Confirmations() : null;
        this.failed = s.reconnect() ? new ConcurrentLinkedQueue<>() : null;
    }

    @Override
    public void send(ByteBuffer buffer, int offset, int length) throws IOException {
        final int end = offset + length;
        for (int off = offset; off < end; off += size) {
            if (sent - completed.get() >= maxInflight) {
                awaitWindow();
            }
            sendOne(buffer, off);
        }
    }

    @Override
    public boolean offer(ByteBuffer buffer, int offset, int length) throws IOException {
        if (sent - completed.get() >= maxInflight) {
            return false;
        }
        sendOne(buffer, offset);
        return true;
    }

    private void sendOne(ByteBuffer buffer, int off) throws IOException {
        final String failedFirst = counts.firstError();
        if (failedFirst != null) {
            // without reconnect=true kafka-clients reports a broker that is gone only as sends that time out: the first
            // one ends the run
            throw new Fault(Fault.Kind.PUBLISH_FAILED, failedFirst);
        }
        final long seq = WireHeader.sequence(buffer, off);
        if (failed == null) {
            final byte[] v = value;
            buffer.get(off, v, 0, size);
            submit(v, seq < 0 ? onWarmupAck : onAck);
        } else {
            sendAgain();
            byte[] copy = new byte[size];
            buffer.get(off, copy, 0, size);
            confirmations.sent(seq);
            submit(copy, new Kept(seq, copy));
        }
    }

    /**
     * reconnect=true: sends again, oldest first, the records that failed so far (one failing again waits for the next
     * look), as far as the window allows; fails the run once nothing was acknowledged for {@value #GIVE_UP_S} s.
     */
    private void sendAgain() throws IOException {
        if (failed.isEmpty()) {
            return;
        }
        int n = failedCount.get(); // those failed by now: one failing again meanwhile waits for the next look
        long quiet = System.nanoTime() - lastAckNs;
        if (quiet > giveUpNs) {
            throw new Fault(Fault.Kind.PUBLISH_FAILED, "Kafka at " + settings.address() + " acknowledged nothing for "
                    + quiet / 1_000_000_000L + " s with --opt " + Reconnects.OPTION + "=true; " + n + " failed sends were "
                    + "waiting to be sent again");
        }
        Kept k;
        while (n-- > 0 && sent - completed.get() < maxInflight && (k = failed.poll()) != null) {
            failedCount.decrementAndGet();
            if (k.seq >= 0) {
                confirmations.republished();
            }
            submit(k.bytes, k);
        }
    }

    /** Hands one record to kafka-clients, which copies the bytes into its batch before it returns. */
    private void submit(byte[] bytes, Callback onDone) throws IOException {
        try {
            // a failure the broker or the client's own wait reports (a timeout, a refusal) comes to the callback
            producer.send(new ProducerRecord<>(topic, bytes), onDone);
        } catch (KafkaException | IllegalStateException e) {
            throw new Fault(Fault.Kind.PUBLISH_FAILED, "cannot send to topic '" + topic + "' at " + settings.address()
                    + " after " + sent + " messages: " + KafkaClients.oneLine(e), e);
        }
        sent++;
    }

    private void awaitWindow() throws IOException {
        long last = completed.get();
        long since = System.nanoTime();
        while (sent - completed.get() >= maxInflight) {
            long c = completed.get();
            if (c != last) {
                last = c;
                since = System.nanoTime();
            } else if (System.nanoTime() - since > STALL_NS) {
                throw new Fault(Fault.Kind.PUBLISH_FAILED, "Kafka at " + settings.address() + " acknowledged nothing for "
                        + STALL_NS / 1_000_000_000L + " s (" + (sent - c) + " sends outstanding)");
            }
            LockSupport.parkNanos(20_000);
        }
    }

    /**
     * Flushes the producer and waits for every acknowledgement; with reconnect=true sends again what failed meanwhile,
     * and what the deadline leaves unacknowledged is counted unconfirmed rather than failing the run.
     */
    @Override
    public void drain(long timeoutMs) throws IOException {
        final long deadline = System.nanoTime() + timeoutMs * 1_000_000L;
        producer.flush(); // sends everything lingering in batches now; returns when every send completed or failed
        while (completed.get() < sent || failed != null && !failed.isEmpty()) {
            if (failed != null) {
                sendAgain();
            }
            if (System.nanoTime() > deadline) {
                if (failed != null) {
                    return;
                }
                throw new IOException((sent - completed.get()) + " of " + sent + " sends to Kafka at "
                        + settings.address() + " not acknowledged after " + timeoutMs + " ms");
            }
            LockSupport.parkNanos(100_000);
        }
    }

    @Override
    public Map<String, Long> counters() {
        Map<String, Long> c = counts.counters(true, true);
        if (confirmations == null) {
            return c;
        }
        Map<String, Long> all = new HashMap<>(c);
        all.putAll(confirmations.counters());
        return all;
    }

    /**
     * Measured records the broker acknowledged so far ({@code messages_acked}, counted by the send callbacks on the
     * producer's network thread, so any thread may read it), or -1 with acks=0: the producer then completes a send once
     * it is written to the socket, which says nothing about what the broker appended (issue 31: a backlog run compares
     * the group's lag with confirmed − received). A failed send is not counted: the broker did not append it.
     */
    @Override
    public long confirmedSoFar() {
        return settings.acks().equals("0") ? -1 : counts.measuredAcked();
    }

    /** reconnect=true with acks=all: an acknowledged record is a promise (issue 32 item 3). */
    @Override
    public boolean confirms() {
        return confirmations != null && settings.promises();
    }

    @Override
    public long[] unconfirmed() {
        return confirms() ? confirmations.unconfirmedRanges() : null;
    }

    @Override
    public String firstError() {
        return counts.firstError();
    }

    @Override
    public void close() {
        producer.close(Duration.ofSeconds(5));
    }
}
