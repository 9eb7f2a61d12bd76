package io.msgscope.driver.kafka;

import io.msgscope.core.WireHeader;
import io.msgscope.core.driver.Fault;
import io.msgscope.core.driver.MessageHandler;
import io.msgscope.core.driver.ReceiveBuffer;
import io.msgscope.core.driver.Subscriber;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;

import java.io.IOException;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

/**
 * One KafkaConsumer (its own connections, A1) in a consumer group: a group of its own (trace, throughput, fan-out:
 * every subscriber gets every message) or the scenario's shared group (round-robin: each partition, and so each
 * message, goes to one member). The subscriber creates the topic first when msgscope names it or it is missing
 * (deleting it on close when it created it), subscribes, and polls until the group has assigned it partitions and
 * each is positioned at its end ({@code seekToEnd}, then {@code position}): only then does the constructor return and
 * the receiver report ready, so nothing the publisher sends afterwards is missed. A member of a shared group that the
 * group leaves without partitions (more members than partitions) is ready once it has joined.
 *
 * <p>Polled mode ({@link #poll}): {@code KafkaConsumer.poll} on the caller's thread. Push mode ({@link #start}): a
 * thread of its own per subscriber ({@code msgscope-kafka-consumer}) polls and calls the handler first thing for each
 * record; kafka-clients allows one thread per consumer at a time, and its poll blocks, so one thread cannot serve
 * many consumers without waking up in turn for each (see the driver page's limits). Each record's value (a byte[]
 * kafka-clients allocates) is copied into one preallocated little-endian buffer for the handler.
 */
final class KafkaSubscriber implements Subscriber {
    /** How long the constructor waits for the group to assign partitions. */
    private static final long ASSIGN_TIMEOUT_NS = 60_000_000_000L;
    private static final Duration PUSH_POLL = Duration.ofSeconds(1);
    /** While a backlog probe watches: the most time between commits of what was consumed (half its 100 ms period). */
    static final long PROBE_COMMIT_MS = 50;
    /** Open subscribers by topic, for the backlog probe of the same agent to find the consumer group. */
    private static final Map<String, KafkaSubscriber> OPEN_BY_TOPIC = new java.util.concurrent.ConcurrentHashMap<>();

    private final KafkaSettings settings;
    private final KafkaConsumer<byte[], byte[]> consumer;
    private final Admin admin;
    private final String group;
    private final boolean sharedGroup;
    private final boolean created;
    private ConsumerRecords<byte[], byte[]> pending; // records polled while waiting for the assignment
    private final ReceiveBuffer rx; // polling (or push) thread only
    private long shortPayloads; // polling (or push) thread only
    private volatile long shortSeen;
    private volatile boolean closed;
    private volatile String failure;
    private volatile Thread pusher;
    private final AtomicBoolean endedOnce = new AtomicBoolean();
    private volatile boolean joined;
    private volatile boolean probed;
    private long lastCommitNs; // polling (or push) thread only
    private boolean uncommitted; // polling (or push) thread only: records delivered since the last commit
    private boolean startCommitted; // the group's offsets hold this member's starting positions
    private volatile boolean startCommitAsked; // a backlog probe asked the push thread to commit the start
    private final ConsumedPositions positions; // kept while probed (issue 31 item 3)

    KafkaSubscriber(KafkaSettings s, int size, Admin admin) throws IOException {
        this.settings = s;
        this.admin = admin;
        this.rx = ReceiveBuffer.growing(size);
        this.sharedGroup = !s.group().isEmpty();
        this.group = sharedGroup ? s.group() : KafkaSettings.PREFIX + "-" + s.topic() + "-"
                + Long.toHexString(java.util.concurrent.ThreadLocalRandom.current().nextLong());
        this.positions = new ConsumedPositions(group);
        this.created = KafkaClients.createTopic(admin, s);
        if (created) {
            TopicsAtExit.add(this);
            if (sharedGroup) {
                // every partition starts at the beginning for the group, committed before any member joins: a member
                // that takes a partition later (partitions come one rebalance at a time) starts there instead of at
                // the end the partition has by then, which would skip what was sent in between
                KafkaClients.startGroupAtBeginning(admin, s, group);
            }
        }
        KafkaConsumer<byte[], byte[]> c = null;
        try {
            c = new KafkaConsumer<>(KafkaClients.consumer(s, group, s.keepsPositions(), size));
            this.consumer = c;
            c.subscribe(List.of(s.topic()), new ConsumerRebalanceListener() {
                @Override
                public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
                    // their next owner starts at the committed offset: this member's position there no longer counts
                    positions.revoked(partitions);
                }

                @Override
                public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
                    joined = true;
                }
            });
            awaitAssignment(c);
        } catch (IOException | RuntimeException e) {
            if (c != null) {
                c.close(org.apache.kafka.clients.consumer.CloseOptions.timeout(Duration.ZERO));
            }
            dropTopic();
            if (e instanceof IOException io) {
                throw io;
            }
            if (e instanceof io.msgscope.core.SpecException se) {
                throw se;
            }
            throw new Fault(Fault.Kind.CONNECT_FAILED, "cannot subscribe to topic '" + s.topic() + "' at "
                    + s.address() + ": " + KafkaClients.oneLine(e), e);
        }
    }

    /** Polls until partitions are assigned and positioned at their end (see the class comment). */
    private void awaitAssignment(KafkaConsumer<byte[], byte[]> c) throws IOException {
        final long deadline = System.nanoTime() + ASSIGN_TIMEOUT_NS;
        while (true) {
            ConsumerRecords<byte[], byte[]> r = c.poll(Duration.ofMillis(100));
            if (!r.isEmpty()) {
                pending = r; // nothing is sent before ready; kept in order all the same
            }
            Set<TopicPartition> assigned = c.assignment();
            if (!assigned.isEmpty()) {
                // this member's starting point: the end of each partition, resolved now rather than on the first fetch
                if (pending == null) {
                    c.seekToEnd(assigned);
                }
                for (TopicPartition tp : assigned) {
                    c.position(tp, Duration.ofMillis(KafkaClients.ADMIN_TIMEOUT_MS));
                }
                // a later owner of a partition starts here too (KafkaSettings.keepsPositions); a private group commits
                // its start otherwise only for a backlog probe (commitForProbe): nothing else reads its offsets
                if (settings.keepsPositions()) {
                    c.commitSync(Duration.ofMillis(KafkaClients.ADMIN_TIMEOUT_MS));
                    startCommitted = true;
                }
                lastCommitNs = System.nanoTime();
                OPEN_BY_TOPIC.put(settings.topic(), this);
                positions.join();
                return;
            }
            if (sharedGroup && joined) {
                positions.join(); // more members than partitions: this one waits in the group for a partition
                return;
            }
            if (System.nanoTime() > deadline) {
                throw new Fault(Fault.Kind.CONNECT_FAILED, "Kafka at " + settings.address() + " assigned no partition "
                        + "of topic '" + settings.topic() + "' to consumer group '" + group + "' within "
                        + ASSIGN_TIMEOUT_NS / 1_000_000_000L + " s");
            }
        }
    }

    @Override
    public int poll(MessageHandler handler, long timeoutMs) throws IOException {
        if (closed) {
            return -1;
        }
        ConsumerRecords<byte[], byte[]> r = pending;
        if (r != null) {
            pending = null;
            return committed(deliver(handler, r));
        }
        try {
            r = consumer.poll(Duration.ofMillis(Math.max(0, timeoutMs)));
        } catch (WakeupException e) {
            return closed ? -1 : 0;
        } catch (KafkaException | IllegalStateException e) {
            failure = "consuming topic '" + settings.topic() + "' at " + settings.address() + " failed: "
                    + KafkaClients.oneLine(e);
            return -1;
        }
        return committed(deliver(handler, r));
    }

    /**
     * While a backlog probe watches ({@link #commitForProbe}): commits the positions of what was delivered, at most
     * every {@value #PROBE_COMMIT_MS} ms, asynchronously (a poll does not wait for the broker's answer); returns n.
     */
    private int committed(int n) {
        if (n > 0) {
            uncommitted = true;
        }
        if (probed && uncommitted) {
            long now = System.nanoTime();
            if (now - lastCommitNs >= PROBE_COMMIT_MS * 1_000_000L) {
                try {
                    consumer.commitAsync();
                } catch (KafkaException e) {
                    return n; // the next poll reports a consumer that failed; the probe keeps the last commit
                }
                lastCommitNs = now;
                uncommitted = false;
            }
        }
        return n;
    }

    /** Commits what was delivered and waits for the broker (a backlog probe's last read follows, issue 31). */
    @Override
    public void settleConsumed() throws IOException {
        if (!probed) {
            return;
        }
        try {
            // even with nothing uncommitted: a commitAsync of the last poll may still be on its way, and commitSync
            // returns only once it has reached the broker too (the probe's last read must see it)
            consumer.commitSync(Duration.ofMillis(KafkaClients.ADMIN_TIMEOUT_MS));
            uncommitted = false;
        } catch (KafkaException e) {
            throw new IOException("committing the offsets of group '" + group + "' failed: " + KafkaClients.oneLine(e), e);
        }
    }

    /**
     * The open subscriber of {@code topic} in this JVM, told to commit what it consumes for a backlog probe (issue 31
     * item 3: Kafka's lag counts committed offsets); null when there is none. A private group's starting positions
     * are committed here, so the lag is known from the probe's first read: the receiver opens the probe right after
     * the subscriber and before its first poll, so this thread is the only one using the consumer.
     */
    static KafkaSubscriber commitForProbe(String topic) throws IOException {
        KafkaSubscriber s = OPEN_BY_TOPIC.get(topic);
        if (s != null) {
            s.probed = true;
            Thread t = s.pusher;
            if (t != null && Thread.currentThread() != t) {
                // push mode (a scenario's subscribers): kafka-clients allows no other thread, so the consumer's own
                // commits the start, woken from its poll; the probe's first reads may come a poll's wake-up before it
                s.startCommitAsked = true;
                s.consumer.wakeup();
            } else {
                s.commitStart();
            }
        }
        return s;
    }

    private void commitStart() throws IOException {
        if (startCommitted) {
            return;
        }
        for (int attempt = 1; !startCommitted; attempt++) {
            try {
                consumer.commitSync(Duration.ofMillis(KafkaClients.ADMIN_TIMEOUT_MS));
                startCommitted = true;
            } catch (KafkaException e) {
                // a wake-up meant for the poll (commitForProbe's own, or a pause's) can land in this commit: again
                if (!(e instanceof WakeupException) || closed || attempt == 3) {
                    throw new IOException("committing the starting offsets of group '" + group + "' for the backlog "
                            + "probe failed: " + KafkaClients.oneLine(e), e);
                }
            }
        }
        lastCommitNs = System.nanoTime();
    }

    String group() {
        return group;
    }

    /** The Admin client the subscriber shares (for {@link TopicsAtExit}). */
    Admin admin() {
        return admin;
    }

    /** Hands every record over, partition by partition (the order the records come in); returns how many. */
    private int deliver(MessageHandler h, ConsumerRecords<byte[], byte[]> records) {
        int n = 0;
        final boolean track = probed;
        for (TopicPartition tp : records.partitions()) {
            long next = -1;
            for (ConsumerRecord<byte[], byte[]> rec : records.records(tp)) {
                next = rec.offset() + 1;
                final byte[] data = rec.value();
                final int len = data == null ? 0 : data.length;
                if (len < WireHeader.SIZE) {
                    shortSeen = ++shortPayloads;
                    continue;
                }
                h.onMessage(rx.of(data), 0);
                n++;
            }
            if (track && next >= 0) {
                positions.handedOver(tp, next);
            }
        }
        return n;
    }

    /**
     * Push delivery (scenario mode) on a thread of its own that polls up to a second at a time (see the class
     * comment); {@code ended} is called once if a poll fails.
     */
    @Override
    public void start(MessageHandler h, Consumer<String> ended) {
        if (pusher != null) {
            throw new IllegalStateException("this subscriber was started already");
        }
        Thread t = new Thread(() -> {
            while (!closed) {
                int n;
                try {
                    applySwitch();
                    n = poll(h, PUSH_POLL.toMillis());
                } catch (IOException | RuntimeException e) {
                    failure = "consuming topic '" + settings.topic() + "' failed: " + KafkaClients.oneLine(e);
                    n = -1;
                }
                if (n < 0) {
                    if (!closed && endedOnce.compareAndSet(false, true)) {
                        ended.accept(closeReason());
                    }
                    return;
                }
            }
        }, "msgscope-kafka-consumer");
        t.setDaemon(true);
        pusher = t;
        t.start();
    }

    /**
     * A phase with paused consumers (issue 31): {@code KafkaConsumer.pause} on every assigned partition, on the
     * polling thread (kafka-clients allows no other); its polls go on, keeping the member in its group, and return
     * nothing while the records stay in the log and the group's lag grows.
     */
    @Override
    public void pause() {
        if (!handOver(Boolean.TRUE)) {
            consumer.pause(consumer.assignment());
        }
    }

    @Override
    public void resume() {
        if (!handOver(Boolean.FALSE)) {
            consumer.resume(consumer.paused());
        }
    }

    /**
     * In push mode (scenario mode's subscribers, issue 31 item 3) a pause or resume asked from another thread is handed
     * to the consumer's own thread, woken from its poll, which applies it before the next one; true when handed over.
     */
    private boolean handOver(Boolean pause) {
        Thread t = pusher;
        if (t == null || Thread.currentThread() == t) {
            return false;
        }
        switchTo.set(pause);
        consumer.wakeup();
        return true;
    }

    /** The consumer's thread: a start commit a probe asked for, and the last pause or resume handed over, if any. */
    private void applySwitch() throws IOException {
        if (startCommitAsked) {
            startCommitAsked = false;
            commitStart();
        }
        Boolean s = switchTo.getAndSet(null);
        if (s != null) {
            if (s) {
                consumer.pause(consumer.assignment());
            } else {
                consumer.resume(consumer.paused());
            }
        }
    }

    private final java.util.concurrent.atomic.AtomicReference<Boolean> switchTo =
            new java.util.concurrent.atomic.AtomicReference<>();

    @Override
    public String closeReason() {
        String f = failure;
        return f != null ? f : "consumer of topic '" + settings.topic() + "' at " + settings.address() + " closed";
    }

    @Override
    public String destination() {
        return settings.topic();
    }

    @Override
    public Map<String, Long> counters() {
        long shorts = shortSeen;
        return Map.of("errors", shorts, "short_payloads", shorts);
    }

    @Override
    public Map<String, String> serverInfo() {
        Map<String, String> m = settings.serverInfo();
        m.put("partitions", Integer.toString(settings.partitions()));
        m.put("consumer_group", group);
        return m;
    }

    @Override
    public void close() {
        closed = true;
        OPEN_BY_TOPIC.remove(settings.topic(), this);
        positions.leave();
        Thread t = pusher;
        if (t != null) {
            consumer.wakeup();
            try {
                t.join(5_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        try {
            consumer.close(org.apache.kafka.clients.consumer.CloseOptions.timeout(Duration.ofSeconds(5)));
        } catch (RuntimeException e) { // KafkaException, or a push thread that did not end in time
            // the broker may be gone: nothing more to close from here
        }
        try {
            // a shared group is left while other members remain: the last one to close deletes it
            KafkaClients.deleteGroups(admin, Set.of(group));
        } catch (IOException e) {
            // the broker may be gone: msgscope clean removes the group later
        }
        dropTopic();
    }

    private void dropTopic() {
        if (created && TopicsAtExit.remove(this)) {
            try {
                KafkaClients.deleteTopics(admin, Set.of(settings.topic()));
            } catch (IOException e) {
                // the broker may be gone: msgscope clean removes the topic later
            }
        }
    }
}
