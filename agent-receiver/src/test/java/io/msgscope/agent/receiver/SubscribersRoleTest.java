package io.msgscope.agent.receiver;

import io.msgscope.core.WireHeader;
import io.msgscope.core.driver.Driver;
import io.msgscope.core.driver.DriverSpec;
import io.msgscope.core.driver.Drivers;
import io.msgscope.core.driver.MessageHandler;
import io.msgscope.core.driver.Publisher;
import io.msgscope.core.driver.ScenarioSupport;
import io.msgscope.core.driver.Subscriber;
import io.msgscope.core.scenario.Scenario;
import io.msgscope.proto.RunSpec;
import io.msgscope.proto.ScenarioPlan;
import io.msgscope.proto.ScenarioQuery;
import io.msgscope.proto.ScenarioReport;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The subscribers role's fault accounting (issue 5) with a fake broker driver: lost subscriptions
 * counted as {@code errors_connection_lost} with the driver's reason, the driver's short payloads as
 * {@code errors_short_payload}, the server info passed on at SETUP, and nothing thrown.
 */
class SubscribersRoleTest {
    /** Registered as "mqtt" through META-INF/services (test class path only). */
    public static final class FakeMqtt implements Driver {
        static volatile boolean lose;

        @Override
        public String name() {
            return "mqtt";
        }

        @Override
        public Subscriber openSubscriber(DriverSpec spec, io.msgscope.core.driver.ClientContext context) {
            return new Subscriber() {
                private boolean delivered;

                @Override
                public int poll(MessageHandler handler, long timeoutMs) {
                    if (lose) {
                        return -1;
                    }
                    if (!delivered) { // one measured message, sent 1 ms ago
                        delivered = true;
                        ByteBuffer b = ByteBuffer.allocate(spec.messageSize()).order(ByteOrder.LITTLE_ENDIAN);
                        long epoch = System.currentTimeMillis() * 1_000_000L - 1_000_000L;
                        b.putLong(WireHeader.EPOCH_NS_OFFSET, epoch).putLong(WireHeader.SEQUENCE_OFFSET, 0)
                                .putLong(WireHeader.PROBE_CPU_OFFSET, epoch);
                        handler.onMessage(b, 0);
                        return 1;
                    }
                    return 0;
                }

                @Override
                public Map<String, Long> counters() {
                    return Map.of("errors", 2L, "short_payloads", 2L);
                }

                @Override
                public String closeReason() {
                    return "fake broker went away";
                }

                @Override
                public Map<String, String> serverInfo() {
                    return Map.of("broker", "fake " + spec.option("topic", "?"));
                }

                @Override
                public void close() {
                }
            };
        }

        @Override
        public Publisher openPublisher(DriverSpec spec, io.msgscope.core.driver.ClientContext context) {
            throw new UnsupportedOperationException();
        }

        @Override
        public ScenarioSupport scenarios() {
            return TOPICS;
        }
    }

    /** Topics as the "topic" option, as MQTT does. */
    static final ScenarioSupport TOPICS = new ScenarioSupport() {
        @Override
        public char separator() {
            return '/';
        }

        @Override
        public Map<String, String> options(Scenario scenario, Map<String, String> user) {
            return user;
        }

        @Override
        public String qosLabel(Scenario scenario, Map<String, String> options) {
            return "fake";
        }

        @Override
        public boolean reliable(Map<String, String> options) {
            return true;
        }

        @Override
        public DriverSpec subscriber(DriverSpec base, String topic, String group) {
            return new DriverSpec(base.host(), base.port(), base.uri(), base.messageSize(), base.socketBuffer(),
                    Map.of("topic", topic), "");
        }
    };

    /**
     * Registered as "fakepush" through META-INF/services (test class path only): push subscribers, all
     * served by one "fake-io" thread that delivers {@link #PER_SUBSCRIBER} measured messages to each
     * once they are started, as an event loop serving many connections would.
     */
    public static final class FakePush implements Driver {
        static final int PER_SUBSCRIBER = 3;
        static final java.util.concurrent.ExecutorService IO = java.util.concurrent.Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "fake-io");
            t.setDaemon(true);
            return t;
        });
        static final java.util.List<java.util.function.Consumer<String>> ENDS = new java.util.concurrent.CopyOnWriteArrayList<>();

        @Override
        public String name() {
            return "fakepush";
        }

        @Override
        public Subscriber openSubscriber(DriverSpec spec, io.msgscope.core.driver.ClientContext context) {
            return new Subscriber() {
                @Override
                public int poll(MessageHandler handler, long timeoutMs) {
                    throw new AssertionError("a push subscriber is never polled");
                }

                @Override
                public void start(MessageHandler handler, java.util.function.Consumer<String> ended) {
                    ENDS.add(ended);
                    IO.execute(() -> {
                        ByteBuffer b = ByteBuffer.allocate(spec.messageSize()).order(ByteOrder.LITTLE_ENDIAN);
                        for (int i = 0; i < PER_SUBSCRIBER; i++) {
                            long epoch = System.currentTimeMillis() * 1_000_000L - 2_000_000L;
                            b.putLong(WireHeader.EPOCH_NS_OFFSET, epoch).putLong(WireHeader.SEQUENCE_OFFSET, i)
                                    .putLong(WireHeader.PROBE_CPU_OFFSET, epoch - 1_000_000L);
                            handler.onMessage(b, 0);
                        }
                        b.putLong(WireHeader.SEQUENCE_OFFSET, -1); // one warm-up message: counted, not recorded
                        handler.onMessage(b, 0);
                    });
                }

                @Override
                public void close() {
                }
            };
        }

        @Override
        public Publisher openPublisher(DriverSpec spec, io.msgscope.core.driver.ClientContext context) {
            throw new UnsupportedOperationException();
        }

        @Override
        public ScenarioSupport scenarios() {
            return TOPICS;
        }
    }

    private static ScenarioReport ask(SubscribersRole r, ScenarioQuery.Kind k) throws Exception {
        return r.scenario(ScenarioQuery.newBuilder().setKind(k).build());
    }

    @Test
    void lostSubscriptionsAndShortPayloadsAreCountedByKind() throws Exception {
        FakeMqtt.lose = false;
        SubscribersRole role = new SubscribersRole(Drivers.load());
        role.prepare(RunSpec.newBuilder().setDriver("mqtt").setSize(64).build());
        role.scenario(ScenarioQuery.newBuilder().setKind(ScenarioQuery.Kind.SETUP)
                .setPlan(ScenarioPlan.newBuilder().addSubscriberTopics("t/a").addSubscriberTopics("t/b")).build());
        ScenarioReport setup = awaitSetup(role);
        assertEquals("fake t/a", setup.getInfoMap().get("broker"));
        assertEquals(2, setup.getCountersOrThrow("connections_opened"));
        try {
            ScenarioReport p = awaitCounter(role, "messages_received", 2);
            assertEquals(0, p.getCountersOrThrow("errors_connection_lost"));
            assertEquals(4, p.getCountersOrThrow("errors_short_payload"));
            assertEquals(4, p.getCountersOrThrow("subscriber_errors"));
            FakeMqtt.lose = true;
            p = awaitCounter(role, "subscriptions_lost", 2);
            assertEquals(2, p.getCountersOrThrow("subscriptions"));
            assertEquals(2, p.getCountersOrThrow("errors_connection_lost"));
            assertEquals(6, p.getCountersOrThrow("subscriber_errors"));
            assertEquals("fake broker went away", p.getFirstError());
            ScenarioReport fin = ask(role, ScenarioQuery.Kind.FINAL);
            assertEquals(2, fin.getMessages()); // what arrived before the loss is kept
        } finally {
            role.close();
        }
    }

    /**
     * Push delivery (issue 13): 200 subscriptions served by one I/O thread record into one slot, with no
     * thread of the role's own per subscription; warm-up messages are counted apart; the latencies are those
     * the fake stamped (2 ms from the actual, 3 ms from the intended send time); a subscription that ends is
     * counted as lost with its reason.
     */
    @Test
    void pushSubscribersRecordOnTheDriversThreadWithoutAThreadEach() throws Exception {
        int n = 200;
        SubscribersRole role = new SubscribersRole(Drivers.load());
        role.prepare(RunSpec.newBuilder().setDriver("fakepush").setSize(64).build());
        ScenarioPlan.Builder plan = ScenarioPlan.newBuilder().setIoThreads(1);
        for (int i = 0; i < n; i++) {
            plan.addSubscriberTopics("t/" + i);
        }
        int threadsBefore = Thread.activeCount();
        role.scenario(ScenarioQuery.newBuilder().setKind(ScenarioQuery.Kind.SETUP).setPlan(plan).build());
        try {
            ScenarioReport setup = awaitSetup(role);
            assertEquals(n, setup.getCountersOrThrow("connections_opened"));
            assertEquals(n, setup.getCountersOrThrow("connections_target"));
            ScenarioReport p = awaitCounter(role, "messages_received", (long) n * FakePush.PER_SUBSCRIBER);
            assertEquals((long) n * FakePush.PER_SUBSCRIBER, p.getCountersOrThrow("messages_received"));
            assertEquals(n, p.getCountersOrThrow("warmup_received"));
            assertEquals(1, p.getCountersOrThrow("io_threads_recording"));
            assertTrue(Thread.activeCount() < threadsBefore + 10, "threads grew with the subscriptions: "
                    + threadsBefore + " -> " + Thread.activeCount());
            org.HdrHistogram.Histogram h = org.HdrHistogram.Histogram.decodeFromCompressedByteBuffer(
                    ByteBuffer.wrap(ask(role, ScenarioQuery.Kind.FINAL).getLatencyHistogram().toByteArray()), 0);
            assertEquals((long) n * FakePush.PER_SUBSCRIBER, h.getTotalCount());
            assertTrue(h.getValueAtPercentile(50) >= 2_000_000 && h.getValueAtPercentile(50) < 1_000_000_000L,
                    "p50 " + h.getValueAtPercentile(50));
            FakePush.ENDS.get(0).accept("fake connection reset");
            p = ask(role, ScenarioQuery.Kind.PROGRESS);
            assertEquals(1, p.getCountersOrThrow("subscriptions_lost"));
            assertEquals("fake connection reset", p.getFirstError());
        } finally {
            role.close();
            FakePush.ENDS.clear();
        }
    }

    private static ScenarioReport awaitSetup(SubscribersRole role) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (true) {
            ScenarioReport p = ask(role, ScenarioQuery.Kind.PROGRESS);
            if (p.getSetupDone()) {
                return p;
            }
            assertTrue(System.nanoTime() < deadline, "set-up never finished: " + p.getCountersMap());
            Thread.sleep(20);
        }
    }

    private static ScenarioReport awaitCounter(SubscribersRole role, String key, long value) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (true) {
            ScenarioReport p = ask(role, ScenarioQuery.Kind.PROGRESS);
            if (p.getCountersOrDefault(key, 0) >= value) {
                return p;
            }
            assertTrue(System.nanoTime() < deadline, key + " never reached " + value + ": " + p.getCountersMap());
            Thread.sleep(20);
        }
    }
}
