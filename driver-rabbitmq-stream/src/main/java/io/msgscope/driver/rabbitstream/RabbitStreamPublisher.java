package io.msgscope.driver.rabbitstream;

import com.rabbitmq.stream.ConfirmationStatus;
import com.rabbitmq.stream.Constants;
import com.rabbitmq.stream.Producer;
import com.rabbitmq.stream.ProducerBuilder;
import com.rabbitmq.stream.StreamException;
import io.msgscope.core.WireHeader;
import io.msgscope.core.driver.AckCounts;
import io.msgscope.core.driver.Fault;
import io.msgscope.core.driver.Publisher;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The producer: every message is published with a confirmation handler; confirmed ones count as
 * {@code messages_acked} (warm-up ones as {@code warmup_acked}), negative confirms as {@code publish_errors}. The
 * client blocks {@code send} while {@code max_unconfirmed} messages wait for their confirm. Each message gets a body
 * of its own (the client keeps it until its batch is written).
 */
final class RabbitStreamPublisher implements Publisher {
    private static final long WAIT_SLICE_MS = 50;

    private final StreamEnvironments.Lease env;
    private final Producer producer;
    private final String stream;
    private final String address;
    private final int size;
    private final AckCounts acks = new AckCounts();
    private final AtomicLong settled = new AtomicLong();
    private final AtomicLong nacked = new AtomicLong();
    private long sent;

    RabbitStreamPublisher(RabbitStreamOptions o, StreamEnvironments.Lease env, String stream, int size, String address) {
        this.env = env;
        this.stream = stream;
        this.size = size;
        this.address = address;
        ProducerBuilder b = env.env().producerBuilder().stream(stream).batchSize(o.batchSize()).dynamicBatch(o.dynamicBatch())
                .maxUnconfirmedMessages(o.maxUnconfirmed());
        if (o.subEntrySize() > 1) {
            b = b.subEntrySize(o.subEntrySize());
        }
        this.producer = b.build();
    }

    @Override
    public void send(ByteBuffer buffer, int offset, int length) throws IOException {
        final int end = offset + length;
        for (int off = offset; off < end; off += size) {
            byte[] body = new byte[size];
            buffer.get(off, body, 0, size);
            boolean warm = size >= WireHeader.SIZE && WireHeader.sequence(buffer, off) < 0;
            try {
                producer.send(producer.messageBuilder().addData(body).build(), s -> confirmed(s, warm));
            } catch (StreamException | IllegalStateException e) {
                acks.error(null);
                throw new Fault(Fault.Kind.CONNECTION_LOST, RabbitStreamDriver.NAME + ": sending to stream '" + stream
                        + "' at " + address + " failed: " + RabbitStreamDriver.describe(e), e);
            }
            sent++;
        }
    }

    private void confirmed(ConfirmationStatus s, boolean warm) {
        if (s.isConfirmed()) {
            acks.acked(warm);
        } else {
            nacked.incrementAndGet();
            acks.error(RabbitStreamDriver.NAME + ": stream '" + stream + "' did not confirm a message (code "
                    + s.getCode() + (s.getCode() == Constants.CODE_PUBLISH_CONFIRM_TIMEOUT ? ", confirm timeout" : "")
                    + ")");
        }
        settled.incrementAndGet();
    }

    @Override
    public void drain(long timeoutMs) throws IOException {
        final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        while (settled.get() < sent) {
            if (System.nanoTime() - deadline > 0) {
                long left = sent - settled.get();
                acks.error(RabbitStreamDriver.NAME + ": " + left + " messages to '" + stream + "' unconfirmed after "
                        + timeoutMs + " ms");
                throw new IOException(RabbitStreamDriver.NAME + ": " + left + " of " + sent + " messages to stream '"
                        + stream + "' at " + address + " still without a confirm after " + timeoutMs + " ms");
            }
            try {
                Thread.sleep(WAIT_SLICE_MS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted while waiting for confirms", e);
            }
        }
    }

    @Override
    public Map<String, Long> counters() {
        Map<String, Long> c = new LinkedHashMap<>(acks.counters(true, false));
        c.put("messages_nacked", nacked.get());
        return c;
    }

    @Override
    public String firstError() {
        return acks.firstError();
    }

    @Override
    public void close() {
        try {
            producer.close();
        } catch (RuntimeException e) {
            // closing anyway
        }
        env.release();
    }
}
