package io.msgscope.driver.nats.jnats;

import io.msgscope.core.driver.DeliveryCount;
import io.msgscope.core.WireHeader;
import io.msgscope.core.driver.MessageHandler;
import io.msgscope.core.driver.ReceiveBuffer;
import io.msgscope.core.driver.Subscriber;
import io.nats.client.Connection;
import io.nats.client.Consumer;
import io.nats.client.Dispatcher;
import io.nats.client.ErrorListener;
import io.nats.client.JetStreamApiException;
import io.nats.client.JetStreamManagement;
import io.nats.client.Message;
import io.nats.client.PushSubscribeOptions;
import io.nats.client.PullSubscribeOptions;
import io.nats.client.JetStream;
import io.nats.client.JetStreamSubscription;
import io.nats.client.api.AckPolicy;
import io.nats.client.api.ConsumerConfiguration;
import io.nats.client.api.RetentionPolicy;
import io.nats.client.api.ServerInfo;
import io.nats.client.api.StreamInfo;
import io.msgscope.core.driver.Fault;
import io.msgscope.driver.nats.NatsDriver;
import io.msgscope.driver.nats.NatsSettings;
import io.nats.client.api.StorageType;
import io.nats.client.api.StreamConfiguration;

import java.io.IOException;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * The jnats engine's subscriber (JetStream, or {@code --opt engine=jnats}).
 * Receives through a jnats Dispatcher, whose thread runs the handler first thing: jnats hands over a
 * byte[] per message (its allocation), which is copied into one preallocated little-endian buffer so
 * the handler gets the usual ByteBuffer view without a wrapper object per message. Core NATS: the
 * subscription is flushed to the server before the subject is reported. JetStream: a stream named
 * after the subject is created (shared by the run's subscribers of that subject, deleted on close)
 * and read with an ordered push consumer, a durable push consumer shared by a deliver group, or a
 * durable pull consumer fetched inside {@link #poll}, or on a thread of its own after {@link #start}
 * (see {@link NatsDriver}).
 * Payloads shorter than the header: {@code errors} and {@code short_payloads}; slow-consumer events
 * (messages the client dropped): {@code errors} and {@code slow_consumer_events}.
 */
public final class JnatsSubscriber implements Subscriber {
    private final NatsSettings settings;
    private final Connection conn;
    private final DeliveryCount count = new DeliveryCount();
    private final AtomicLong slowConsumer = new AtomicLong();
    private final AtomicLong asyncErrors = new AtomicLong();
    private static final int MAX_ACK_PENDING = 65_536;
    /** A pull consumer's messages per fetch request (the driver's latency caveat names it). */
    public static final int PULL_BATCH = 256;

    private final String stream;
    private final JetStreamSubscription pull; // pull consumer: fetched inside poll, on the caller's thread
    private final ReceiveBuffer rx; // delivery thread only
    private volatile MessageHandler handler;
    private volatile boolean closed;
    private long shortPayloads; // delivery thread only
    private volatile String lostReason;
    /** Connections jnats got back (reconnect=true, issue 32 item 3). */
    private final java.util.concurrent.atomic.AtomicLong reconnects = new java.util.concurrent.atomic.AtomicLong();
    private volatile java.util.function.Consumer<String> ended;
    private final java.util.concurrent.atomic.AtomicBoolean endedOnce = new java.util.concurrent.atomic.AtomicBoolean();
    private volatile Thread puller;
    /** A phase with paused consumers (issue 31): the pull consumer fetches nothing, the stream keeps the backlog. */
    private volatile boolean paused; // JetStream pull consumer in push mode: fetches on its own thread

    public JnatsSubscriber(NatsSettings s, int size) throws IOException {
        this.settings = s;
        this.rx = ReceiveBuffer.growing(size);
        this.conn = s.connect("sub", this::connectionLost, reconnects::incrementAndGet, new ErrorListener() {
            @Override
            public void slowConsumerDetected(Connection conn, Consumer consumer) {
                slowConsumer.incrementAndGet();
            }

            @Override
            public void errorOccurred(Connection conn, String error) {
                asyncErrors.incrementAndGet();
            }
        });
        String streamName = null;
        JetStreamSubscription pullSub = null;
        try {
            s.checkMaxPayload(size, conn.getServerInfo() == null ? 0 : conn.getServerInfo().getMaxPayload());
            Dispatcher d = s.jetStream() && s.pull() ? null : conn.createDispatcher(); // a pull consumer fetches in poll
            io.nats.client.MessageHandler mh = this::onMessage;
            if (s.jetStream()) {
                streamName = streamName(s.subject());
                ensureStream(conn.jetStreamManagement(), streamName, s);
                JetStream js = conn.jetStream();
                pullSub = subscribeJetStream(js, d, mh, streamName, s);
            } else {
                if (s.group().isEmpty()) {
                    d.subscribe(s.subject(), mh);
                } else {
                    d.subscribe(s.subject(), s.group(), mh);
                }
            }
            conn.flush(NatsSettings.CONNECT_TIMEOUT);
        } catch (JetStreamApiException e) {
            closeQuietly();
            throw new Fault(Fault.Kind.REFUSED, "JetStream at " + s.address() + " refused the stream or consumer for '"
                    + s.subject() + "': " + e.getMessage(), e);
        } catch (TimeoutException e) {
            closeQuietly();
            throw new Fault(Fault.Kind.CONNECT_FAILED, "NATS at " + s.address() + " did not confirm the subscription to '"
                    + s.subject() + "' within " + NatsSettings.CONNECT_TIMEOUT.toSeconds() + " s");
        } catch (InterruptedException e) {
            closeQuietly();
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while subscribing at " + s.address());
        } catch (io.msgscope.core.SpecException e) {
            closeQuietly();
            throw e;
        } catch (IOException | RuntimeException e) {
            closeQuietly();
            throw new IOException("cannot subscribe to '" + s.subject() + "' at " + s.address() + ": "
                    + NatsSettings.oneLine(e), e);
        }
        this.pull = pullSub;
        this.stream = streamName;
    }

    /** Every stream msgscope makes is named this and its subject: {@code msgscope clean} finds leftovers by it. */
    public static final String STREAM_PREFIX = "MSGSCOPE_";

    /** The stream msgscope makes for {@code subject}. */
    static String streamName(String subject) {
        return STREAM_PREFIX + subject.replaceAll("[^A-Za-z0-9_-]", "_");
    }

    /** The JetStream error a consumer create gets when another subscriber created the same durable just before. */
    private static final int CONSUMER_NAME_IN_USE = 10013;

    /**
     * Subscribes through the stream's consumer (see the class comment); returns the pull subscription, or null for
     * push. The members of a group share one durable consumer: when they open at the same time, all but one find
     * it created between jnats' look-up and its create (JetStream error 10013, "consumer name already in use"), and
     * a later attempt binds to it (up to 10, backing off 20 ms more each time: on a loaded server the create can
     * take a while to become visible).
     */
    private JetStreamSubscription subscribeJetStream(JetStream js, Dispatcher d, io.nats.client.MessageHandler mh,
                                                     String streamName, NatsSettings s)
            throws IOException, JetStreamApiException {
        for (int attempt = 1; ; attempt++) {
            try {
                if (s.pull()) {
                    String durable = s.group().isEmpty() ? "msgscope_" + Long.toHexString(
                            java.util.concurrent.ThreadLocalRandom.current().nextLong()) : s.group();
                    return js.subscribe(s.subject(), PullSubscribeOptions.builder().stream(streamName)
                            .durable(durable).configuration(durableConfig(durable).build()).build());
                } else if (s.group().isEmpty() && s.reconnect()) {
                    // an ordered consumer is ephemeral: a restarted server forgets it, and with interest retention
                    // the stream with it what waits; a durable of its own outlives the restart (deleted with the stream)
                    String durable = "msgscope_" + Long.toHexString(
                            java.util.concurrent.ThreadLocalRandom.current().nextLong());
                    js.subscribe(s.subject(), d, mh, true, PushSubscribeOptions.builder().stream(streamName)
                            .durable(durable).configuration(durableConfig(durable).build()).build());
                } else if (s.group().isEmpty()) {
                    js.subscribe(s.subject(), d, mh, false,
                            PushSubscribeOptions.builder().stream(streamName).ordered(true).build());
                } else {
                    // one durable consumer with a deliver group: the members of the queue group share it
                    js.subscribe(s.subject(), s.group(), d, mh, true, PushSubscribeOptions.builder().stream(streamName)
                            .durable(s.group()).configuration(durableConfig(s.group()).deliverGroup(s.group())
                                    .build()).build());
                }
                return null;
            } catch (JetStreamApiException e) {
                if (e.getApiErrorCode() != CONSUMER_NAME_IN_USE || s.group().isEmpty() || attempt == 10) {
                    throw e;
                }
                // the other member's create may still be under way on a busy server: back off before looking again
                java.util.concurrent.locks.LockSupport.parkNanos(attempt * 20_000_000L);
            }
        }
    }

    /**
     * A durable push consumer: explicit acks, at most {@code MAX_ACK_PENDING} unacknowledged; with reconnect=true
     * what was delivered into a dead connection comes again after {@value #RECONNECT_ACK_WAIT_S} s (the server's
     * default is 30 s, longer than many runs).
     */
    private ConsumerConfiguration.Builder durableConfig(String name) {
        ConsumerConfiguration.Builder b = ConsumerConfiguration.builder().durable(name).ackPolicy(AckPolicy.Explicit)
                .maxAckPending(MAX_ACK_PENDING);
        return settings.reconnect() ? b.ackWait(java.time.Duration.ofSeconds(RECONNECT_ACK_WAIT_S)) : b;
    }

    static final int RECONNECT_ACK_WAIT_S = 2;

    /**
     * How long the stream remembers a {@code Nats-Msg-Id} (the server's default, given explicitly): a copy republished
     * within it after its first one was stored is dropped ({@link JnatsPublisher}). A republish comes about a second
     * after the ack is missed (jnats' request clean-up) once the server is back, so an outage up to about two minutes
     * is covered; a copy republished later is stored again and arrives as a duplicate, counted.
     */
    public static final java.time.Duration DUPLICATE_WINDOW = java.time.Duration.ofMinutes(2);

    /**
     * Creates the subject's stream, or joins it when another subscriber of the run made it already
     * (fan-out: several consumers on one stream). Interest retention: a message stays only until every
     * consumer has it, so a long run does not fill the server. The duplicate window is {@link #DUPLICATE_WINDOW}.
     */
    private static void ensureStream(JetStreamManagement jsm, String name, NatsSettings s)
            throws IOException, JetStreamApiException {
        StreamConfiguration sc = StreamConfiguration.builder().name(name).subjects(s.subject())
                .retentionPolicy(RetentionPolicy.Interest).replicas(s.replicas()).duplicateWindow(DUPLICATE_WINDOW)
                .storageType(s.memory() ? StorageType.Memory : StorageType.File).build();
        try {
            jsm.addStream(sc);
        } catch (JetStreamApiException e) {
            StreamInfo existing;
            try {
                existing = jsm.getStreamInfo(name);
            } catch (JetStreamApiException notThere) {
                throw e;
            }
            if (!existing.getConfiguration().getSubjects().contains(s.subject())) {
                throw e;
            }
        }
    }

    /** jnats' connection listener: the connection is gone (disconnected or closed). */
    private void connectionLost() {
        count.lost();
        fireEnded(closeReason());
    }

    private void fireEnded(String reason) {
        java.util.function.Consumer<String> e = ended;
        if (e != null && !closed && endedOnce.compareAndSet(false, true)) {
            e.accept(reason);
        }
    }

    /**
     * Push delivery (scenario mode): jnats' dispatcher thread calls the handler first thing in its callback (Q2);
     * what arrived before waits in the dispatcher until now. A JetStream pull consumer has nothing to call back: its
     * batches are fetched on a thread of its own ({@code msgscope-nats-pull}), which wakes once a second while
     * nothing arrives. {@code ended} is called once when the connection is lost or a fetch fails.
     */
    @Override
    public void start(MessageHandler h, java.util.function.Consumer<String> ended) {
        if (handler != null || puller != null) {
            throw new IllegalStateException("this subscriber is being polled or was started already");
        }
        this.ended = ended;
        if (pull == null) {
            handler = h;
        } else {
            Thread t = new Thread(() -> {
                while (!closed) {
                    if (fetch(h, 1000) < 0) {
                        fireEnded(closeReason());
                        return;
                    }
                }
            }, "msgscope-nats-pull");
            t.setDaemon(true);
            puller = t;
            t.start();
        }
        if (count.isLost()) {
            fireEnded(closeReason());
        }
    }

    private void onMessage(Message m) {
        MessageHandler h = handler;
        if (h == null) {
            h = awaitHandler();
            if (h == null) {
                return;
            }
        }
        deliver(h, m);
        count.delivered();
    }

    private void deliver(MessageHandler h, Message m) {
        final byte[] data = m.getData();
        final int len = data == null ? 0 : data.length;
        if (len < WireHeader.SIZE) {
            shortPayloads++;
        } else {
            h.onMessage(rx.of(data), 0);
        }
    }

    private MessageHandler awaitHandler() {
        MessageHandler h;
        while ((h = handler) == null && !closed) {
            LockSupport.parkNanos(100_000);
        }
        return h;
    }

    @Override
    public int poll(MessageHandler handler, long timeoutMs) {
        if (pull != null) {
            return fetch(handler, timeoutMs);
        }
        if (this.handler != handler) {
            this.handler = handler;
        }
        return count.await(timeoutMs);
    }

    /** Pull consumer: one batch, delivered and acked here; -1 once the connection is gone; paused, none. */
    private int fetch(MessageHandler h, long timeoutMs) {
        if (count.isLost() || closed) {
            return -1;
        }
        if (paused) {
            LockSupport.parkNanos(Math.max(1, timeoutMs) * 1_000_000L);
            return 0;
        }
        java.util.List<Message> batch;
        try {
            batch = pull.fetch(PULL_BATCH, Duration.ofMillis(Math.max(1, timeoutMs)));
        } catch (RuntimeException e) { // jnats: IllegalStateException once the connection is closed
            if (settings.reconnect() && conn.getStatus() != Connection.Status.CLOSED) {
                LockSupport.parkNanos(NatsSettings.RECONNECT_WAIT.toNanos()); // jnats is getting the connection back
                return 0;
            }
            if (lostReason == null) {
                lostReason = "JetStream pull from NATS at " + settings.address() + " failed: " + NatsSettings.oneLine(e);
            }
            return -1;
        }
        for (Message m : batch) {
            deliver(h, m);
            m.ack();
        }
        return batch.size();
    }

    /** Only a pull consumer pauses ({@link NatsDriver#whyConsumersCannotPause}): it stops fetching. */
    @Override
    public void pause() {
        if (pull == null) {
            throw new UnsupportedOperationException("a JetStream push or core NATS subscriber cannot pause");
        }
        paused = true;
    }

    @Override
    public void resume() {
        paused = false;
    }

    @Override
    public String closeReason() {
        String r = lostReason;
        return r != null ? r : "connection to NATS at " + settings.address() + " lost";
    }

    @Override
    public Map<String, String> serverInfo() {
        Map<String, String> m = new java.util.LinkedHashMap<>();
        m.put("broker", "nats " + settings.address());
        ServerInfo i = conn.getServerInfo();
        if (i != null) {
            m.put("server_name", String.valueOf(i.getServerName()));
            m.put("server_id", String.valueOf(i.getServerId()));
            m.put("version", String.valueOf(i.getVersion()));
            m.put("jetstream_available", "" + i.isJetStreamAvailable());
        }
        m.put("protocol", settings.jetStream() ? "NATS JetStream (" + (pull != null ? "pull" : "push") + " consumer)"
                : "core NATS");
        m.put("engine", "jnats");
        return m;
    }

    @Override
    public String destination() {
        return settings.subject();
    }

    @Override
    public Map<String, Long> counters() {
        long shorts = shortPayloads;
        long slow = slowConsumer.get();
        Map<String, Long> m = new java.util.HashMap<>(Map.of("errors", shorts + slow + asyncErrors.get(),
                "short_payloads", shorts, "slow_consumer_events", slow));
        if (settings.reconnect()) {
            m.put(io.msgscope.core.driver.Reconnects.SUBSCRIBER_RECONNECTS, reconnects.get());
        }
        return Map.copyOf(m);
    }

    private void closeQuietly() {
        close(conn);
    }

    /** Closes a jnats connection, keeping an interrupt (the publisher and the backlog probe close theirs so too). */
    static void close(Connection c) {
        try {
            c.close();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() {
        closed = true;
        Thread t = puller;
        if (t != null) {
            try {
                t.join(2_000); // its fetch returns within a second
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        if (stream != null) {
            try {
                conn.jetStreamManagement().deleteStream(stream);
            } catch (Exception e) {
                // the server may be gone already: nothing more to clean up from here
            }
        }
        closeQuietly();
    }
}
