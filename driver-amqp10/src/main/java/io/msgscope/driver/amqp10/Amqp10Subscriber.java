package io.msgscope.driver.amqp10;

import io.msgscope.core.WireHeader;
import io.msgscope.core.driver.MessageHandler;
import io.msgscope.core.driver.ReceiveBuffer;
import io.msgscope.core.driver.Subscriber;
import org.apache.qpid.protonj2.client.Delivery;
import org.apache.qpid.protonj2.client.Message;
import org.apache.qpid.protonj2.client.Receiver;
import org.apache.qpid.protonj2.client.exceptions.ClientException;

import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The receiving link (A1: a connection of its own, one session, one receiver link). By default its source is a
 * dynamic node: the broker creates a queue for this link, names it, and deletes it when the link closes (the AMQP 1.0
 * counterpart of seed 000's server-named, auto-delete queue, A2); the name is the {@link #destination()} the
 * publisher sends to. ProtonJ2 keeps {@code credit} credit on the link, topping it up as deliveries are taken.
 *
 * <p>ProtonJ2's client has no delivery callback: its I/O thread queues each delivery and {@code receive} hands it
 * over. So:
 * <ul>
 *   <li>{@link #poll} (run and throughput modes) receives on the caller's thread (the receiver's pinned thread) and
 *       hands every delivery it finds to the handler, then accepts it (unsettled mode);</li>
 *   <li>{@link #start} (scenario mode) does the same on a thread of this subscriber's own, which waits in
 *       {@code receive}; the end of the link or connection is reported once through {@code ended}.</li>
 * </ul>
 * The handler gets the message's single data section: copied into one reused little-endian buffer up to
 * {@value #COPY_LIMIT} bytes (nothing allocated in this code), wrapped beyond. ProtonJ2 decodes the message
 * (allocating) before the handler runs, so the receive time includes the decoding.
 *
 * <p>With {@code --opt reconnect=true} ProtonJ2 gets a lost connection back and attaches this link again to the same
 * node ({@link Amqp10Reconnect}; {@code subscriber_reconnects}); {@code receive} simply waits meanwhile. What the
 * lost link had delivered and this side had not accepted yet (its accept dies with the link, or never went out) the
 * broker delivers again: a duplicate in the trace when the handler had it. ProtonJ2 drops what it had received but
 * not handed over, which the broker delivers again too.
 */
final class Amqp10Subscriber implements Subscriber {
    static final int COPY_LIMIT = 1024;
    /** Deliveries one poll hands over at most, so the caller checks its own state between batches. */
    static final int BATCH = 4096;
    private static final long PUSH_WAIT_MS = 200;

    private final Amqp10Connections.Opened opened;
    private final Receiver receiver;
    private final String node;
    private final boolean settled;
    private final ReceiveBuffer reused;
    private final Map<String, String> serverInfo;
    /** Deletes the per-run queue after the connection closed (RabbitMQ), or null. */
    private final Runnable cleanup;
    private volatile String closeReason;
    private volatile boolean closing;
    private volatile Thread pushThread;
    private MessageHandler polled;
    // the delivering thread's own counts, read after the run
    private long shortPayloads;
    private long notData;
    private long errors;

    Amqp10Subscriber(Amqp10Options o, Amqp10Connections.Opened opened, Receiver receiver, String node, int messageSize,
                     Map<String, String> serverInfo, Runnable cleanup) {
        this.cleanup = cleanup;
        this.opened = opened;
        this.receiver = receiver;
        this.node = node;
        this.settled = o.settled();
        this.serverInfo = serverInfo;
        this.reused = ReceiveBuffer.copyingUpTo(messageSize, COPY_LIMIT);
    }

    @Override
    public String destination() {
        return node;
    }

    @Override
    public int poll(MessageHandler handler, long timeoutMs) throws IOException {
        if (pushThread != null) {
            throw new IllegalStateException("this subscriber delivers through start(); it cannot be polled too");
        }
        polled = handler;
        if (closeReason != null) {
            return -1;
        }
        int n = 0;
        try {
            Delivery d = receiver.receive(Math.max(0, timeoutMs), TimeUnit.MILLISECONDS);
            while (d != null) {
                n += deliver(d, handler);
                d = n < BATCH ? receiver.tryReceive() : null;
            }
        } catch (ClientException | RuntimeException e) {
            lost(e);
            return n > 0 ? n : -1;
        }
        return n;
    }

    /** Hands one delivery's payload to the handler, then accepts it (unsettled mode); 1 if it was a message. */
    private int deliver(Delivery d, MessageHandler handler) throws ClientException {
        Message<Object> m = d.message();
        Object body = m.body();
        int n = 0;
        if (body instanceof byte[] b) {
            if (b.length >= WireHeader.SIZE) {
                handler.onMessage(reused.of(b), 0);
                n = 1;
            } else {
                shortPayloads++;
            }
        } else {
            notData++; // not one data section: not a msgscope message
        }
        if (!settled) {
            d.accept();
        }
        return n;
    }

    private void lost(Exception e) {
        if (closeReason == null && !closing) {
            errors++;
            closeReason = "amqp10: the receiver on " + node + " at " + opened.address() + " ended: "
                    + Amqp10Connections.describe(e);
        }
    }

    /**
     * Push delivery (scenario mode): a thread of this subscriber's own waits in {@code receive} and hands each
     * delivery to {@code handler}, in order, one at a time. {@code ended} hears once why the link or connection ended
     * (not when {@link #close} ends it).
     */
    @Override
    public void start(MessageHandler handler, Consumer<String> ended) {
        if (pushThread != null || polled != null) {
            throw new IllegalStateException("this subscriber was already started or polled");
        }
        Thread t = new Thread(() -> pushLoop(handler, ended), "msgscope-amqp10-receiver");
        t.setDaemon(true);
        pushThread = t;
        t.start();
    }

    private void pushLoop(MessageHandler handler, Consumer<String> ended) {
        while (!closing) {
            try {
                Delivery d = receiver.receive(PUSH_WAIT_MS, TimeUnit.MILLISECONDS);
                if (d != null) {
                    deliver(d, handler);
                }
            } catch (ClientException | RuntimeException e) {
                lost(e);
                break;
            }
        }
        String why = closeReason;
        if (why != null && !closing) {
            ended.accept(why);
        }
    }

    /** Deliveries ProtonJ2 holds for this receiver, not yet handed over (the credit test). */
    long queued() {
        try {
            return receiver.queuedDeliveries();
        } catch (ClientException e) {
            return -1;
        }
    }

    @Override
    public String closeReason() {
        return closeReason;
    }

    @Override
    public Map<String, Long> counters() {
        Map<String, Long> c = new LinkedHashMap<>();
        c.put("errors", errors);
        c.put("short_payloads", shortPayloads);
        c.put("not_data_messages", notData);
        c.put("link_closed", closeReason != null ? 1L : 0L);
        if (opened.events() != null) {
            c.put(io.msgscope.core.driver.Reconnects.SUBSCRIBER_RECONNECTS, opened.events().reconnects());
        }
        return c;
    }

    @Override
    public Map<String, String> serverInfo() {
        return serverInfo;
    }

    @Override
    public void close() throws IOException {
        closing = true;
        Thread t = pushThread;
        try {
            receiver.close();
        } catch (RuntimeException e) {
            // closing anyway
        }
        opened.close();
        if (cleanup != null) {
            cleanup.run();
        }
        if (t != null && t != Thread.currentThread()) {
            try {
                t.join(TimeUnit.SECONDS.toMillis(5));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
