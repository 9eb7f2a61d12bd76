package io.msgscope.driver.amqp;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.ConfirmListener;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ReturnListener;
import com.rabbitmq.client.ShutdownListener;
import com.rabbitmq.client.ShutdownSignalException;
import io.msgscope.core.WireHeader;
import io.msgscope.core.driver.Publisher;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * basic.publish to the default exchange with the subscriber's queue as routing key, on its own
 * connection with one channel (A1-A3). The basic properties are built once (only the delivery
 * mode set); the sender's payload array is published as it is when it holds exactly one message,
 * otherwise each message is copied into one preallocated array. amqp-client (blocking socket I/O)
 * has written the body into its output buffer when basicPublish returns, so the sender may
 * overwrite the payload in place at once.
 *
 * <p>Publisher confirms: delivery tags are consecutive from 1; the confirm listener (amqp-client's
 * connection thread) marks them in a ring of {@code confirm} slots and advances the lowest
 * unconfirmed tag, and the sending thread waits (parking, woken by the listener) while the span of
 * unconfirmed tags fills the window. No locks and no allocation in this code per message.
 *
 * <p>Counters: messages_acked / messages_nacked (publisher confirms) and returned (basic.return)
 * count measured messages only: those from the first one whose header sequence is >= 0, so the
 * warm-up (negative sequences) does not inflate them.
 */
final class AmqpPublisher implements Publisher, ConfirmListener, ReturnListener, ShutdownListener {
    private static final long WAIT_SLICE_NS = 1_000_000;

    private final AmqpOptions options;
    private final String address;
    private final Connection connection;
    private final Channel channel;
    private final ExecutorService events;
    private final String routingKey;
    private final AMQP.BasicProperties properties;
    private final boolean mandatory;
    private final boolean immediate;
    private final int size;
    private final int txSize;
    private final byte[] scratch;

    // confirm window (confirm > 0): written by the listener thread only, except waiter
    private final boolean[] confirmed;
    private final int window;
    private volatile long lowestUnconfirmed = 1;
    private volatile Thread waiter;
    private volatile long acked;
    private volatile long nacked;
    private volatile long returned;
    /** Tag of the first message with a sequence >= 0 (the first measured one); 0 while still warming up. */
    private volatile long firstMeasuredTag;

    // the sending thread's own state
    private long nextTag = 1;
    private int inTx;
    private long txCommits;
    private long errors;

    private volatile ShutdownSignalException closedBy;
    private volatile boolean closing;

    AmqpPublisher(AmqpOptions options, String address, Connection connection, Channel channel,
                  ExecutorService events, String routingKey, int size) throws IOException {
        this.options = options;
        this.address = address;
        this.connection = connection;
        this.channel = channel;
        this.events = events;
        this.routingKey = routingKey;
        this.size = size;
        this.mandatory = options.mandatory();
        this.immediate = options.immediate();
        this.txSize = options.txSize();
        this.scratch = new byte[size];
        this.properties = new AMQP.BasicProperties.Builder().deliveryMode(options.persistent() ? 2 : 1).build();
        this.window = options.confirm();
        this.confirmed = window > 0 ? new boolean[window] : null;
        channel.addShutdownListener(this);
        connection.addShutdownListener(this);
        channel.addReturnListener(this);
        if (window > 0) {
            channel.addConfirmListener(this);
            channel.confirmSelect();
        }
        if (txSize > 0) {
            channel.txSelect();
        }
    }

    @Override
    public void send(ByteBuffer buffer, int offset, int length) throws IOException {
        final int sz = size;
        final boolean heap = buffer.hasArray();
        final byte[] array = heap ? buffer.array() : null;
        final int base = heap ? buffer.arrayOffset() : 0;
        final int end = offset + length;
        for (int off = offset; off < end; off += sz) {
            final byte[] body;
            if (heap && base + off == 0 && array.length == sz) {
                body = array; // one message per buffer: published as is, no copy
            } else if (heap) {
                System.arraycopy(array, base + off, scratch, 0, sz);
                body = scratch;
            } else {
                buffer.get(off, scratch, 0, sz);
                body = scratch;
            }
            if (firstMeasuredTag == 0 && body.length >= WireHeader.SIZE
                    && WireHeader.sequence(buffer, off) >= 0) {
                firstMeasuredTag = nextTag; // from here on confirms and returns are counted
            }
            publish(body);
        }
    }

    private void publish(byte[] body) throws IOException {
        if (window > 0 && nextTag - lowestUnconfirmed >= window) {
            awaitWindow(nextTag - window + 1, Long.MAX_VALUE);
        }
        try {
            channel.basicPublish("", routingKey, mandatory, immediate, properties, body);
            nextTag++;
            if (txSize > 0 && ++inTx == txSize) {
                channel.txCommit();
                inTx = 0;
                txCommits++;
            }
        } catch (ShutdownSignalException e) {
            throw failed(e);
        } catch (IOException e) {
            throw failed(e);
        }
    }

    /** Waits until the lowest unconfirmed tag reaches {@code low}; false at the deadline. */
    private boolean awaitWindow(long low, long deadlineNs) throws IOException {
        if (lowestUnconfirmed >= low) {
            return true;
        }
        waiter = Thread.currentThread();
        try {
            while (lowestUnconfirmed < low) {
                ShutdownSignalException s = closedBy;
                if (s != null) {
                    throw failed(s);
                }
                long left = deadlineNs - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                LockSupport.parkNanos(this, Math.min(left, WAIT_SLICE_NS));
            }
            return true;
        } finally {
            waiter = null;
        }
    }

    private IOException failed(Exception e) {
        errors++;
        ShutdownSignalException s = e instanceof ShutdownSignalException sse ? sse : AmqpConnections.shutdownCause(e);
        if (s == null) {
            s = closedBy;
        }
        if (s != null) {
            return new IOException("amqp: publishing to " + address + " failed: " + AmqpConnections.explain(s, options), e);
        }
        return new IOException("amqp: publishing to " + address + " failed: " + AmqpConnections.describe(e), e);
    }

    /**
     * Commits an open transaction, waits for every publisher confirm, then makes one round trip to the
     * broker (basic.qos), so every basic.return and channel close the broker sent for the messages
     * published is in before the counters are read.
     */
    @Override
    public void drain(long timeoutMs) throws IOException {
        final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        try {
            if (txSize > 0 && inTx > 0) {
                channel.txCommit();
                inTx = 0;
                txCommits++;
            }
            if (window > 0 && !awaitWindow(nextTag, deadline)) {
                errors++;
                throw new IOException("amqp: " + (nextTag - lowestUnconfirmed) + " of " + (nextTag - 1)
                        + " publisher confirms still outstanding from " + address + " after " + timeoutMs + " ms");
            }
            channel.basicQos(0);
        } catch (ShutdownSignalException e) {
            throw failed(e);
        } catch (IOException e) {
            if (e.getMessage() != null && e.getMessage().startsWith("amqp: ")) {
                throw e;
            }
            throw failed(e);
        }
    }

    // ---- amqp-client callbacks (its connection thread) ----

    @Override
    public void handleAck(long tag, boolean multiple) {
        confirm(tag, multiple, true);
    }

    @Override
    public void handleNack(long tag, boolean multiple) {
        confirm(tag, multiple, false);
    }

    private void confirm(long tag, boolean multiple, boolean ack) {
        final boolean[] ring = confirmed;
        final int w = window;
        final long first = firstMeasuredTag;
        long low = lowestUnconfirmed;
        long n = 0;
        if (multiple) {
            for (long t = low; t <= tag; t++) {
                int i = (int) (t % w);
                if (!ring[i]) {
                    ring[i] = true;
                    if (first != 0 && t >= first) {
                        n++;
                    }
                }
            }
        } else if (tag >= low) {
            int i = (int) (tag % w);
            if (!ring[i]) {
                ring[i] = true;
                if (first != 0 && tag >= first) {
                    n = 1;
                }
            }
        }
        if (ack) {
            acked += n; // single writer: this thread
        } else {
            nacked += n;
        }
        while (ring[(int) (low % w)]) {
            ring[(int) (low % w)] = false;
            low++;
        }
        lowestUnconfirmed = low;
        Thread t = waiter;
        if (t != null) {
            LockSupport.unpark(t);
        }
    }

    @Override
    public void handleReturn(int replyCode, String replyText, String exchange, String key,
                             AMQP.BasicProperties props, byte[] body) {
        // the sequence is little-endian at bytes 8-15: its sign bit is the top bit of byte 15
        if (body.length < WireHeader.SIZE || (body[WireHeader.SEQUENCE_OFFSET + 7] & 0x80) == 0) {
            returned++; // single writer: the connection thread; warm-up messages are not counted
        }
    }

    @Override
    public void shutdownCompleted(ShutdownSignalException cause) {
        if (!cause.isInitiatedByApplication() && !closing) {
            if (closedBy == null) {
                closedBy = cause;
            }
            Thread t = waiter;
            if (t != null) {
                LockSupport.unpark(t);
            }
        }
    }

    /** The broker's reason when it closed the channel or connection, else null. */
    String closeReason() {
        ShutdownSignalException s = closedBy;
        return s == null ? null : AmqpConnections.explain(s, options);
    }

    @Override
    public Map<String, Long> counters() {
        Map<String, Long> c = new LinkedHashMap<>();
        c.put("messages_acked", acked);
        c.put("messages_nacked", nacked);
        c.put("returned", returned);
        c.put("producer_tx_commits", txCommits);
        c.put("errors", errors + nacked); // failed operations and nacked messages
        return c;
    }

    @Override
    public void close() throws IOException {
        closing = true;
        try {
            if (connection.isOpen()) {
                connection.close(AmqpConnections.CLOSE_TIMEOUT_MS);
            }
        } catch (ShutdownSignalException | IOException e) {
            // closing anyway
        } finally {
            connection.abort(AmqpConnections.CLOSE_TIMEOUT_MS);
            events.shutdownNow();
        }
    }
}
