package io.msgscope.driver.kafka;

import io.msgscope.core.WireHeader;
import io.msgscope.core.driver.AckCounts;
import io.msgscope.core.driver.Fault;
import io.msgscope.core.driver.Publisher;
import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.RetriableException;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Map;
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
 */
final class KafkaPublisher implements Publisher {
    /** A send waiting this long for any acknowledgement gives up: the broker is gone or stuck. */
    private static final long STALL_NS = (KafkaClients.DELIVERY_TIMEOUT_MS + 5_000) * 1_000_000L;

    private final KafkaSettings settings;
    private final KafkaProducer<byte[], byte[]> producer;
    private final String topic;
    private final int size;
    private final byte[] value;
    private final int maxInflight;
    private final AckCounts counts = new AckCounts();
    private final AtomicLong completed = new AtomicLong();
    private final Callback onAck = new Completion(false);
    private final Callback onWarmupAck = new Completion(true);
    private long sent; // sender thread only

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
                String first = counts.firstError() != null ? null : "Kafka at " + settings.address()
                        + " did not acknowledge a send to '" + topic + "': " + KafkaClients.oneLine(failure);
                if (failure instanceof RetriableException) {
                    counts.error(first);
                } else {
                    counts.refused(first);
                }
            }
            completed.incrementAndGet();
        }
    }

    KafkaPublisher(KafkaSettings s, int size) throws IOException {
        this.settings = s;
        this.topic = s.topic();
        this.size = size;
        this.value = new byte[size];
        this.maxInflight = s.maxInflight();
        try {
            this.producer = new KafkaProducer<>(KafkaClients.producer(s, size));
        } catch (KafkaException e) {
            throw new IOException("cannot create a Kafka producer for " + s.address() + ": "
                    + KafkaClients.oneLine(e), e);
        }
        try {
            // the topic's metadata now, so that the first send does not wait for it (and a missing topic is said here)
            producer.partitionsFor(topic);
        } catch (KafkaException e) {
            producer.close(Duration.ZERO);
            throw new Fault(Fault.Kind.CONNECT_FAILED, "Kafka at " + s.address() + " gave no metadata for topic '"
                    + topic + "' within " + KafkaClients.MAX_BLOCK_MS / 1000 + " s: " + KafkaClients.oneLine(e), e);
        }
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
        final String failed = counts.firstError();
        if (failed != null) {
            // kafka-clients reports a broker that is gone only as sends that time out: the first one ends the run
            throw new Fault(Fault.Kind.PUBLISH_FAILED, failed);
        }
        final byte[] v = value;
        buffer.get(off, v, 0, size);
        try {
            producer.send(new ProducerRecord<>(topic, v), WireHeader.sequence(buffer, off) < 0 ? onWarmupAck : onAck);
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

    @Override
    public void drain(long timeoutMs) throws IOException {
        final long deadline = System.nanoTime() + timeoutMs * 1_000_000L;
        producer.flush(); // sends everything lingering in batches now; returns when every send completed or failed
        while (completed.get() < sent) {
            if (System.nanoTime() > deadline) {
                throw new IOException((sent - completed.get()) + " of " + sent + " sends to Kafka at "
                        + settings.address() + " not acknowledged after " + timeoutMs + " ms");
            }
            LockSupport.parkNanos(100_000);
        }
    }

    @Override
    public Map<String, Long> counters() {
        return counts.counters(true, true);
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

    @Override
    public String firstError() {
        return counts.firstError();
    }

    @Override
    public void close() {
        producer.close(Duration.ofSeconds(5));
    }
}
