package io.msgscope.driver.amqp10;

import io.msgscope.core.WireHeader;
import io.msgscope.core.driver.AckCounts;
import io.msgscope.core.driver.Fault;
import io.msgscope.core.driver.Publisher;
import io.msgscope.core.driver.Reconnects;
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
import java.util.concurrent.locks.LockSupport;

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
 *
 * <p>With {@code --opt reconnect=true} ProtonJ2 gets a lost connection and this link back ({@link Amqp10Reconnect};
 * {@code publisher_reconnects}). A send that failed with the connection (it was not written: ProtonJ2 aborts it) is
 * made again; the transfers the lost link left unsettled, whose settlement ProtonJ2 fails, are sent again from their
 * slots' copies ({@link Amqp10Resend}; {@code messages_republished}), all at once and oldest first, as soon as the
 * connection is back (a new message waits for it: {@link #sendFresh}) or when a slot finds its transfer failed; each
 * may then arrive twice. An accepted measured message is confirmed ({@code messages_confirmed}); what the drain's
 * deadline leaves without an outcome is counted {@code messages_unconfirmed}, not thrown. A rejected, released or
 * modified transfer is not sent again.
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
    /** reconnect=true: the connection's events, else null. */
    private final Amqp10Reconnect.Events events;
    /** reconnect=true with unsettled transfers: the slots' copies and the confirmed sequences, else null. */
    private final Amqp10Resend resend;
    private long seenReconnects; // as the last look for transfers a lost link left saw them (resendLost)

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
        this.events = opened.events();
        this.resend = events != null && !settled ? new Amqp10Resend(window.length, size, o.durable()) : null;
    }

    @Override
    public void send(ByteBuffer buffer, int offset, int length) throws IOException {
        final int end = offset + length;
        for (int off = offset; off < end; off += size) {
            if (resend != null) {
                sendKept(buffer, off);
                continue;
            }
            copy(buffer, off);
            if (!settled && window[slot] != null) {
                retire(slot, Long.MAX_VALUE);
            }
            track(sendAgainIfLost(message), buffer, off);
        }
    }

    /** reconnect=true: the message into the next slot's copy and out, after what a reconnect left to send again. */
    private void sendKept(ByteBuffer buffer, int off) throws IOException {
        catchUp();
        if (window[slot] != null) {
            retire(slot, Long.MAX_VALUE);
        }
        long seq = size >= WireHeader.SIZE ? WireHeader.sequence(buffer, off) : -1;
        track(sendFresh(resend.keep(slot, buffer, off, seq)), buffer, off);
    }

    /**
     * reconnect=true: sends a new message without ever letting it wait on a link that is being got back, where it
     * would go out ahead of the transfers the loss left. So it is offered ({@code trySend}, which takes it only while
     * the link has credit: a link re-attached after a loss has none until the broker answers), and after a refusal
     * or a failure the publisher catches up first ({@link #catchUp}: the reconnect, then those transfers sent
     * again). A send that failed with the connection was not written: made again, not counted.
     */
    private Tracker sendFresh(Message<byte[]> m) throws IOException {
        long giveUpAt = 0;
        while (true) {
            try {
                Tracker t = sender.trySend(m);
                if (t != null) {
                    return t;
                }
                LockSupport.parkNanos(Amqp10Reconnect.NO_CREDIT_NS);
            } catch (ClientException | RuntimeException e) {
                giveUpAt = survive(e, giveUpAt);
                while (events.reconnects() == seenReconnects) { // the reconnect this loss leads to
                    if (events.gaveUp() != null || System.nanoTime() - giveUpAt > 0) {
                        throw failed(e);
                    }
                    LockSupport.parkNanos(Amqp10Reconnect.LOOK_AGAIN_NS);
                }
            }
            catchUp();
        }
    }

    /**
     * After a loss: waits until the connection is back (ProtonJ2's reconnected event) and sends again what the lost
     * link left, before anything new. The loss is seen in the events, which come on ProtonJ2's notification thread
     * a little later, or at once in the newest transfer, failed by the connection's own thread.
     */
    private void catchUp() throws IOException {
        long giveUpAt = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(Amqp10Reconnect.GIVE_UP_MS);
        Tracker newest = window[slot == 0 ? window.length - 1 : slot - 1];
        boolean lostNow = newest != null && events.reconnects() == seenReconnects && Amqp10Reconnect.lost(newest, events);
        while (events.down() || lostNow && events.reconnects() == seenReconnects) {
            if (events.gaveUp() != null || System.nanoTime() - giveUpAt > 0) {
                acks.error(null);
                throw Amqp10Reconnect.notBack("publisher to " + node, opened.address(), events);
            }
            LockSupport.parkNanos(Amqp10Reconnect.LOOK_AGAIN_NS);
            lostNow = lostNow && events.gaveUp() == null;
        }
        if (events.reconnects() != seenReconnects) {
            resendLost();
        }
    }

    /**
     * A failed send with reconnect=true: thrown (as without the option) unless it is a lost connection ProtonJ2 is
     * getting back and {@link Amqp10Reconnect#GIVE_UP_MS} have not passed since the first failure
     * ({@code giveUpAt}, 0 before it); returns the deadline.
     */
    private long survive(Exception e, long giveUpAt) throws IOException {
        long now = System.nanoTime();
        long until = giveUpAt == 0 ? now + TimeUnit.MILLISECONDS.toNanos(Amqp10Reconnect.GIVE_UP_MS) : giveUpAt;
        if (!Amqp10Reconnect.survivable(e, events) || now - until > 0 || Thread.currentThread().isInterrupted()) {
            throw failed(e);
        }
        return until;
    }

    /**
     * Sends {@code m}; with reconnect=true a send that failed with the connection (not written) is made again, every
     * {@link Amqp10Reconnect#WAIT_MS} ms, until it goes or ProtonJ2 gives up (at most
     * {@link Amqp10Reconnect#GIVE_UP_MS} ms after its first failure here; then it fails as without the option).
     */
    private Tracker sendAgainIfLost(Message<byte[]> m) throws IOException {
        long giveUpAt = 0;
        while (true) {
            try {
                return sender.send(m);
            } catch (ClientException | RuntimeException e) {
                giveUpAt = survive(e, giveUpAt);
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(Amqp10Reconnect.WAIT_MS));
            }
        }
    }

    /**
     * Sends again, oldest first, every transfer of the window that the lost link left without an outcome (ProtonJ2
     * failed its settlement), each from its slot's copy, its new tracker in the same slot.
     */
    private void resendLost() throws IOException {
        seenReconnects = events.reconnects();
        for (int i = 0, k = slot; i < window.length; i++, k = k + 1 == window.length ? 0 : k + 1) {
            if (window[k] != null && Amqp10Reconnect.lost(window[k], events)) {
                window[k] = sendAgainIfLost(resend.again(k));
            }
        }
    }

    @Override
    public boolean offer(ByteBuffer buffer, int offset, int length) throws IOException {
        if (events != null) { // scenarios refuse reconnect=true; anything else waits as send does
            send(buffer, offset, length);
            return true;
        }
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
                if (resend == null || !Amqp10Reconnect.survivable(e, events)) {
                    window[k] = null;
                    throw failed(e);
                }
                resendLost(); // this slot's transfer among the others the lost link left
                if (window[k] == t) {
                    window[k] = null;
                    throw failed(e);
                }
                t = window[k];
            }
        }
        count(t.remoteState(), warmup[k]);
        if (resend != null && t.remoteState() != null && t.remoteState().getType() == DeliveryState.Type.ACCEPTED) {
            resend.accepted(k);
        }
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

    /**
     * Waits for the disposition of every unsettled transfer, oldest first; with reconnect=true sending again what a
     * lost connection left, and what is still without an outcome at the deadline is counted unconfirmed, not thrown.
     */
    @Override
    public void drain(long timeoutMs) throws IOException {
        if (settled) {
            return;
        }
        final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        if (resend != null) {
            catchUp();
        }
        for (int i = 0, k = slot; i < window.length; i++, k = k + 1 == window.length ? 0 : k + 1) {
            if (window[k] != null && !retire(k, deadline)) {
                if (resend != null) {
                    return; // messages_unconfirmed says how many
                }
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
        if (resend != null) {
            c.putAll(resend.confirmations().counters());
        }
        if (events != null) {
            c.put(Reconnects.PUBLISHER_RECONNECTS, events.reconnects());
        }
        return c;
    }

    /** reconnect=true with unsettled transfers: an accepted message is a promise (issue 32 item 3). */
    @Override
    public boolean confirms() {
        return resend != null;
    }

    @Override
    public long[] unconfirmed() {
        return resend == null ? null : resend.confirmations().unconfirmedRanges();
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
