package io.msgscope.driver.amqp10;

import io.msgscope.core.WireHeader;
import io.msgscope.core.driver.AckCounts;
import io.msgscope.core.driver.Fault;
import io.msgscope.core.driver.Publisher;
import org.apache.qpid.protonj2.client.DeliveryState;
import org.apache.qpid.protonj2.client.Message;
import org.apache.qpid.protonj2.client.Sender;
import org.apache.qpid.protonj2.client.Tracker;
import org.apache.qpid.protonj2.client.exceptions.ClientException;
import org.apache.qpid.protonj2.client.exceptions.ClientOperationTimedOutException;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The sending link (A1: a connection of its own, one session, one sender link to the subscriber's node). Each
 * message is one AMQP 1.0 transfer whose body is a single data section holding the payload (the 32-byte measurement
 * header padded to {@code --size}); the header section carries only the {@code durable} flag.
 *
 * <p>No payload byte is lost or shared: the payload is copied into one body array, which one reused ProtonJ2
 * {@link Message} wraps; ProtonJ2 encodes the message on the calling thread before {@code send} returns, so the
 * sender may overwrite its buffer at once and this code allocates nothing per message (ProtonJ2 allocates the
 * encoded buffer and the tracker).
 *
 * <p>Unsettled transfers ({@code settled=false}, the default): the trackers sit in a ring of {@code max_inflight}
 * slots, filled in order; before a slot is reused the sender waits for its transfer's disposition, so at most
 * {@code max_inflight} transfers are unsettled. Each disposition is counted: accepted (also as
 * {@code messages_acked}), rejected (a refusal, kept with its error for {@link #firstError}), released and modified
 * (failures): measured messages only in the named counters, warm-up ones (negative sequence) in
 * {@code warmup_acked}. {@link #drain} waits for every disposition. Pre-settled transfers have none.
 *
 * <p>{@link #offer} never waits for the broker: false when the oldest slot's disposition has not come, or when the
 * link has no credit (ProtonJ2's {@code trySend}); it still hands the encoded message to the connection's I/O thread
 * and waits for that thread to take it, as {@link #send} does.
 */
final class Amqp10Publisher implements Publisher {
    private static final long WAIT_SLICE_MS = 200;

    private final Amqp10Connections.Opened opened;
    private final Sender sender;
    private final String node;
    private final int size;
    private final byte[] body;
    private final Message<byte[]> message;
    private final boolean settled;
    private final Tracker[] window;
    private final boolean[] warmup;
    private int slot;
    private final AckCounts acks = new AckCounts();
    private long accepted;
    private long rejected;
    private long released;
    private long modified;
    private long sent;

    Amqp10Publisher(Amqp10Options o, Amqp10Connections.Opened opened, Sender sender, String node, int size)
            throws ClientException {
        this.opened = opened;
        this.sender = sender;
        this.node = node;
        this.size = size;
        this.body = new byte[size];
        this.message = Message.create(body);
        this.message.durable(o.durable());
        this.settled = o.settled();
        this.window = settled ? new Tracker[0] : new Tracker[o.maxInflight()];
        this.warmup = new boolean[window.length];
    }

    @Override
    public void send(ByteBuffer buffer, int offset, int length) throws IOException {
        final int end = offset + length;
        for (int off = offset; off < end; off += size) {
            copy(buffer, off);
            if (!settled && window[slot] != null) {
                retire(slot, Long.MAX_VALUE);
            }
            try {
                track(sender.send(message), buffer, off);
            } catch (ClientException | RuntimeException e) {
                throw failed(e);
            }
        }
    }

    @Override
    public boolean offer(ByteBuffer buffer, int offset, int length) throws IOException {
        if (!settled && window[slot] != null) {
            if (!window[slot].remoteSettled()) {
                return false;
            }
            retire(slot, Long.MAX_VALUE);
        }
        copy(buffer, offset);
        Tracker t;
        try {
            t = sender.trySend(message);
        } catch (ClientException | RuntimeException e) {
            throw failed(e);
        }
        if (t == null) {
            return false; // no link credit now
        }
        track(t, buffer, offset);
        return true;
    }

    private void copy(ByteBuffer buffer, int off) {
        if (buffer.hasArray()) {
            System.arraycopy(buffer.array(), buffer.arrayOffset() + off, body, 0, size);
        } else {
            buffer.get(off, body, 0, size);
        }
    }

    private void track(Tracker t, ByteBuffer buffer, int off) {
        sent++;
        if (settled) {
            return;
        }
        window[slot] = t;
        warmup[slot] = size >= WireHeader.SIZE && WireHeader.sequence(buffer, off) < 0;
        slot = slot + 1 == window.length ? 0 : slot + 1;
    }

    /** Waits (until {@code deadlineNs}) for slot {@code k}'s disposition and counts it; false at the deadline. */
    private boolean retire(int k, long deadlineNs) throws IOException {
        Tracker t = window[k];
        while (!t.settled()) {
            long left = deadlineNs == Long.MAX_VALUE ? WAIT_SLICE_MS
                    : TimeUnit.NANOSECONDS.toMillis(deadlineNs - System.nanoTime());
            if (left <= 0) {
                return false;
            }
            try {
                t.awaitSettlement(Math.min(left, WAIT_SLICE_MS), TimeUnit.MILLISECONDS);
            } catch (ClientOperationTimedOutException e) {
                // not yet: wait again
            } catch (ClientException | RuntimeException e) {
                window[k] = null;
                throw failed(e);
            }
        }
        count(t.remoteState(), warmup[k]);
        window[k] = null;
        return true;
    }

    private void count(DeliveryState state, boolean warm) {
        DeliveryState.Type type = state == null ? null : state.getType();
        if (type == DeliveryState.Type.ACCEPTED) {
            acks.acked(warm);
            if (!warm) {
                accepted++;
            }
            return;
        }
        String what = "amqp10: " + node + " answered a transfer with " + (type == null ? "no outcome" : type.name().toLowerCase(
                java.util.Locale.ROOT));
        if (type == DeliveryState.Type.REJECTED) {
            acks.refused(what);
        } else {
            acks.error(what);
        }
        if (warm) {
            return;
        }
        if (type == DeliveryState.Type.REJECTED) {
            rejected++;
        } else if (type == DeliveryState.Type.RELEASED) {
            released++;
        } else if (type == DeliveryState.Type.MODIFIED) {
            modified++;
        }
    }

    private IOException failed(Exception e) {
        acks.error(null);
        return new Fault(Fault.Kind.CONNECTION_LOST, "amqp10: sending to " + node + " at " + opened.address() + " failed: "
                + Amqp10Connections.describe(e), e);
    }

    /** Waits for the disposition of every unsettled transfer, oldest first. */
    @Override
    public void drain(long timeoutMs) throws IOException {
        if (settled) {
            return;
        }
        final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        for (int i = 0, k = slot; i < window.length; i++, k = k + 1 == window.length ? 0 : k + 1) {
            if (window[k] != null && !retire(k, deadline)) {
                long left = 0;
                for (Tracker t : window) {
                    left += t != null ? 1 : 0;
                }
                acks.error("amqp10: " + left + " transfers to " + node + " still unsettled after " + timeoutMs + " ms");
                throw new IOException("amqp10: " + left + " of " + sent + " transfers to " + node + " at "
                        + opened.address() + " still without a disposition after " + timeoutMs + " ms");
            }
        }
    }

    @Override
    public Map<String, Long> counters() {
        Map<String, Long> c = new LinkedHashMap<>(acks.counters(!settled, !settled));
        if (!settled) {
            c.put("accepted", accepted);
            c.put("rejected", rejected);
            c.put("released", released);
            c.put("modified", modified);
        }
        return c;
    }

    @Override
    public String firstError() {
        return acks.firstError();
    }

    @Override
    public void close() {
        try {
            sender.close();
        } catch (RuntimeException e) {
            // closing anyway
        }
        opened.close();
    }
}
