package io.msgscope.driver.amqp;

import io.msgscope.core.driver.ClientContext;
import io.msgscope.core.driver.DriverSpec;
import io.msgscope.core.driver.Publisher;
import io.msgscope.core.driver.ScenarioSupport;
import io.msgscope.core.driver.Subscriber;
import io.msgscope.core.scenario.Scenario;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

import static io.msgscope.driver.amqp.AmqpTestSupport.Recording;
import static io.msgscope.driver.amqp.AmqpTestSupport.await;
import static io.msgscope.driver.amqp.AmqpTestSupport.gone;
import static io.msgscope.driver.amqp.AmqpTestSupport.send;
import static io.msgscope.driver.amqp.AmqpTestSupport.spec;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The scenario shapes at the driver level (seed 002, Q6), set up as the scenario runtime does through
 * {@link ScenarioSupport} and pushed through {@link Subscriber#start}: fan-out gives every subscriber every
 * message, round-robin each message to exactly one subscriber, straight-run's topics do not cross, and the queues
 * (and an exchange of the run's own) are gone afterwards.
 */
class AmqpScenariosIT {
    private final AmqpDriver driver = new AmqpDriver();
    private final ScenarioSupport scenarios = driver.scenarios();

    private static String topic(String name) {
        return "msgscope.it-" + name + "-" + UUID.randomUUID();
    }

    private DriverSpec base(String uri, Scenario scenario, Map<String, String> user) {
        return spec(uri, scenarios.options(scenario, user));
    }

    @ParameterizedTest
    @EnumSource(Broker.class)
    void fanOutEverySubscriberGetsEveryMessageAndItsQueueIsGoneAfterwards(Broker broker) throws Exception {
        String uri = broker.uri();
        String t = topic("fan-out");
        DriverSpec base = base(uri, Scenario.FAN_OUT, Map.of("confirm", "100"));
        List<String> queues = new ArrayList<>();
        List<Recording> got = new ArrayList<>();
        try (ClientContext ctx = new ClientContext(2, List.of())) {
            List<Subscriber> subs = new ArrayList<>();
            try {
                for (int i = 0; i < 3; i++) {
                    Subscriber s = driver.openSubscriber(scenarios.subscriber(base, t, ""), ctx);
                    subs.add(s);
                    queues.add(((AmqpSubscriber) s).queue());
                    Recording r = new Recording(500);
                    got.add(r);
                    s.start(r, reason -> { });
                }
                try (Publisher p = driver.openPublisher(scenarios.publisher(base, t), ctx)) {
                    send(p, 0, 500);
                    p.drain(30_000);
                    assertEquals(500L, p.counters().get("messages_acked"));
                }
                for (Recording r : got) {
                    r.await(30);
                    List<Long> seq = r.sequences();
                    assertEquals(500, seq.size());
                    for (int i = 0; i < 500; i++) {
                        assertEquals(i, seq.get(i), "every subscriber gets every message, in order");
                    }
                }
                assertEquals(3, new HashSet<>(queues).size(), "a server-named queue each: " + queues);
            } finally {
                for (Subscriber s : subs) {
                    s.close();
                }
            }
        }
        for (String q : queues) {
            await(() -> gone(uri, q, false), 10, "queue " + q + " deleted after the run");
        }
    }

    /**
     * Issue 32 item 3: with reconnect=true a scenario subscriber's queue is msgscope's (its own
     * {@code msgscope-quorum-RANDOM}, the group's for round-robin), not exclusive (another connection can look it up:
     * a reconnected subscriber must declare it again), delivers, and is deleted when the run closes. RabbitMQ only
     * (quorum queues).
     */
    @org.junit.jupiter.api.Test
    void withReconnectEachQueueIsNamedByMsgscopeSharedWithLaterConnectionsAndDeletedAtTheEnd() throws Exception {
        String uri = Broker.RABBITMQ.uri();
        String t = topic("reconnect");
        String group = "msgscope-it-group-" + UUID.randomUUID();
        Map<String, String> user = Map.of("confirm", "100", "reconnect", "true", "queue_type", "quorum");
        DriverSpec fanOut = base(uri, Scenario.FAN_OUT, user);
        DriverSpec roundRobin = base(uri, Scenario.ROUND_ROBIN, user);
        List<String> queues = new ArrayList<>();
        try (ClientContext ctx = new ClientContext(2, List.of())) {
            List<Subscriber> subs = new ArrayList<>();
            try {
                subs.add(driver.openSubscriber(scenarios.subscriber(fanOut, t, ""), ctx));
                subs.add(driver.openSubscriber(scenarios.subscriber(roundRobin, t, group), ctx));
                List<Recording> got = new ArrayList<>();
                for (Subscriber s : subs) {
                    queues.add(((AmqpSubscriber) s).queue());
                    Recording r = new Recording(100);
                    got.add(r);
                    s.start(r, reason -> { });
                }
                assertTrue(queues.get(0).startsWith(QueueTypes.PREFIX + "quorum-"), queues::toString);
                assertEquals(group, queues.get(1));
                for (String q : queues) {
                    assertTrue(!gone(uri, q, false), q + " is there for another connection (not exclusive)");
                }
                try (Publisher p = driver.openPublisher(scenarios.publisher(fanOut, t), ctx)) {
                    send(p, 0, 100);
                    p.drain(30_000);
                }
                for (Recording r : got) {
                    r.await(30);
                    assertEquals(100, r.sequences().size());
                }
            } finally {
                for (Subscriber s : subs) {
                    s.close();
                }
            }
        }
        for (String q : queues) {
            await(() -> gone(uri, q, false), 10, "queue " + q + " deleted after the run");
        }
    }

    @ParameterizedTest
    @EnumSource(Broker.class)
    void roundRobinGivesEachMessageToExactlyOneSubscriberAndDeletesTheSharedQueue(Broker broker) throws Exception {
        String uri = broker.uri();
        String t = topic("round-robin");
        String group = "msgscope-it-group-" + UUID.randomUUID();
        DriverSpec base = base(uri, Scenario.ROUND_ROBIN, Map.of("confirm", "100"));
        List<Recording> got = new ArrayList<>();
        try (ClientContext ctx = new ClientContext(2, List.of())) {
            List<Subscriber> subs = new ArrayList<>();
            try {
                for (int i = 0; i < 3; i++) {
                    Subscriber s = driver.openSubscriber(scenarios.subscriber(base, t, group), ctx);
                    subs.add(s);
                    assertEquals(group, ((AmqpSubscriber) s).queue(), "the group's shared queue");
                    Recording r = new Recording(0);
                    got.add(r);
                    s.start(r, reason -> { });
                }
                try (Publisher p1 = driver.openPublisher(scenarios.publisher(base, t), ctx);
                     Publisher p2 = driver.openPublisher(scenarios.publisher(base, t), ctx)) {
                    send(p1, 0, 300);
                    send(p2, 1_000, 300);
                    p1.drain(30_000);
                    p2.drain(30_000);
                }
                await(() -> got.stream().mapToInt(r -> r.sequences().size()).sum() >= 600, 30, "600 deliveries");
                Set<Long> all = new HashSet<>();
                int total = 0;
                for (Recording r : got) {
                    List<Long> seq = r.sequences();
                    total += seq.size();
                    all.addAll(seq);
                    assertTrue(seq.size() > 0, "every subscriber takes a share");
                }
                assertEquals(600, total, "no message twice");
                assertEquals(600, all.size(), "every message once");
                for (long i = 0; i < 300; i++) {
                    assertTrue(all.contains(i) && all.contains(1_000 + i), "message " + i);
                }
                assertTrue(!gone(uri, group, false), "the shared queue lives while its subscribers do");
            } finally {
                for (Subscriber s : subs) {
                    s.close();
                }
            }
        }
        await(() -> gone(uri, group, false), 10, "the group's queue deleted after the run");
    }

    /**
     * Round-robin on a quorum queue, every subscriber opened and started at once as the scenario runtime does: the
     * ones that find the queue being created must not consume before its Raft members run (RabbitMQ would close
     * their connections with 541 INTERNAL_ERROR; CI saw it once in 396 tests). Eight subscribers, five groups.
     */
    @org.junit.jupiter.api.Test
    void quorumSubscribersOpenedAtOnceAllConsume() throws Exception {
        String uri = Broker.RABBITMQ.uri();
        DriverSpec base = base(uri, Scenario.ROUND_ROBIN, Map.of("confirm", "100", "queue_type", "quorum"));
        for (int round = 0; round < 5; round++) {
            String group = "msgscope-it-qq-" + UUID.randomUUID();
            try (ClientContext ctx = new ClientContext(2, List.of())) {
                eightAtOnce(base, topic("qq-round-robin"), group, ctx, round);
            }
            await(() -> gone(uri, group, false), 10, "the group's quorum queue deleted after the run");
        }
    }

    /** One round: eight subscribers opened and started together, 400 messages, each delivered once, none ended. */
    private void eightAtOnce(DriverSpec base, String t, String group, ClientContext ctx, int round) throws Exception {
        List<String> ended = java.util.Collections.synchronizedList(new ArrayList<>());
        List<Recording> got = new ArrayList<>();
        List<Subscriber> subs = java.util.Collections.synchronizedList(new ArrayList<>());
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(8);
        try {
            java.util.concurrent.CountDownLatch go = new java.util.concurrent.CountDownLatch(1);
            List<java.util.concurrent.Future<?>> opened = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                Recording r = new Recording(0);
                got.add(r);
                opened.add(pool.submit(() -> {
                    go.await();
                    Subscriber s = driver.openSubscriber(scenarios.subscriber(base, t, group), ctx);
                    subs.add(s);
                    s.start(r, ended::add);
                    return null;
                }));
            }
            go.countDown();
            for (java.util.concurrent.Future<?> f : opened) {
                f.get(60, java.util.concurrent.TimeUnit.SECONDS);
            }
            assertEquals(0, GroupDeclares.held(), "no declare lock left behind");
            try (Publisher p = driver.openPublisher(scenarios.publisher(base, t), ctx)) {
                send(p, 0, 400);
                p.drain(30_000);
            }
            await(() -> got.stream().mapToInt(r -> r.sequences().size()).sum() >= 400, 30, "400 deliveries");
            assertEquals(List.of(), ended, "round " + round + ": no subscription ended");
            assertEquals(400, got.stream().mapToInt(r -> r.sequences().size()).sum(), "each message once");
        } finally {
            pool.shutdownNow();
            for (Subscriber s : subs) {
                s.close();
            }
        }
    }

    /** Never consumed (the run failed before start): the last subscriber to leave still deletes the shared queue. */
    @ParameterizedTest
    @EnumSource(Broker.class)
    void aSharedQueueNeverConsumedIsDeletedToo(Broker broker) throws Exception {
        String uri = broker.uri();
        String group = "msgscope-it-group-" + UUID.randomUUID();
        DriverSpec base = base(uri, Scenario.ROUND_ROBIN, Map.of());
        try (ClientContext ctx = ClientContext.single();
             Subscriber a = driver.openSubscriber(scenarios.subscriber(base, topic("unused"), group), ctx);
             Subscriber b = driver.openSubscriber(scenarios.subscriber(base, topic("unused"), group), ctx)) {
            assertTrue(!gone(uri, group, false));
        }
        await(() -> gone(uri, group, false), 10, "the unused shared queue deleted");
    }

    /**
     * Straight-run's topics are exact routing keys: "T.1" does not get "T.10", nor "T.1.x". The publishers wait for
     * their confirms (the broker has routed every message into every matching queue by then), then one marker per
     * topic follows on one channel: a subscriber that has its marker has everything wrongly routed to it too.
     */
    @ParameterizedTest
    @EnumSource(Broker.class)
    void straightRunTopicsDoNotCross(Broker broker) throws Exception {
        String uri = broker.uri();
        String t = topic("straight-run");
        DriverSpec base = base(uri, Scenario.STRAIGHT_RUN, Map.of("confirm", "100"));
        List<String> topics = Scenario.STRAIGHT_RUN.publisherTopics(t, scenarios.separator(), 11);
        try (ClientContext ctx = ClientContext.single();
             Subscriber s1 = driver.openSubscriber(scenarios.subscriber(base, topics.get(1), ""), ctx);
             Subscriber s10 = driver.openSubscriber(scenarios.subscriber(base, topics.get(10), ""), ctx);
             Publisher p1 = driver.openPublisher(scenarios.publisher(base, topics.get(1)), ctx);
             Publisher p10 = driver.openPublisher(scenarios.publisher(base, topics.get(10)), ctx);
             Publisher deeper = driver.openPublisher(scenarios.publisher(base, topics.get(1) + ".x"), ctx)) {
            Recording r1 = new Recording(101);
            Recording r10 = new Recording(101);
            s1.start(r1, reason -> { });
            s10.start(r10, reason -> { });
            send(deeper, 5_000, 100);
            send(p1, 0, 100);
            send(p10, 1_000, 100);
            for (Publisher p : List.of(deeper, p1, p10)) {
                p.drain(30_000);
                assertEquals(100L, p.counters().get("messages_acked"));
            }
            com.rabbitmq.client.ConnectionFactory f = new com.rabbitmq.client.ConnectionFactory();
            f.setUri(uri);
            try (com.rabbitmq.client.Connection c = f.newConnection()) {
                com.rabbitmq.client.Channel ch = c.createChannel();
                java.nio.ByteBuffer b = driver.allocatePayload(AmqpTestSupport.SIZE);
                io.msgscope.core.WireHeader.writeSequence(b, 0, 9_001);
                ch.basicPublish("amq.topic", topics.get(1), null, b.array().clone());
                io.msgscope.core.WireHeader.writeSequence(b, 0, 9_010);
                ch.basicPublish("amq.topic", topics.get(10), null, b.array().clone());
                r1.await(10);
                r10.await(10);
            }
            List<Long> own1 = new ArrayList<>();
            List<Long> own10 = new ArrayList<>();
            for (long i = 0; i < 100; i++) {
                own1.add(i);
                own10.add(1_000 + i);
            }
            own1.add(9_001L);
            own10.add(9_010L);
            assertEquals(own1, r1.sequences(), "'T.1' gets its own messages only, then its marker");
            assertEquals(own10, r10.sequences(), "'T.10' gets its own messages only, then its marker");
        }
    }

    /** An exchange of the run's own (--opt exchange) is declared on first use and goes with the last binding. */
    @ParameterizedTest
    @EnumSource(Broker.class)
    void anExchangeOfItsOwnIsDeclaredAndGoesWithTheRun(Broker broker) throws Exception {
        String uri = broker.uri();
        String x = "msgscope-it-x-" + UUID.randomUUID();
        String t = topic("exchange");
        DriverSpec base = base(uri, Scenario.FAN_IN, Map.of("exchange", x));
        try (ClientContext ctx = ClientContext.single();
             Subscriber s = driver.openSubscriber(scenarios.subscriber(base, t, ""), ctx);
             Publisher p = driver.openPublisher(scenarios.publisher(base, t), ctx)) {
            Recording r = new Recording(50);
            s.start(r, reason -> { });
            send(p, 0, 50);
            r.await(10);
            assertTrue(!gone(uri, x, true), "declared");
        }
        await(() -> gone(uri, x, true), 10, "exchange " + x + " deleted with its last binding");
    }
}
