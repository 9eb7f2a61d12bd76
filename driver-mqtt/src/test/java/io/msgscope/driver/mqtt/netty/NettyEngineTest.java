package io.msgscope.driver.mqtt.netty;

import io.msgscope.core.WireHeader;
import io.msgscope.core.driver.ClientContext;
import io.msgscope.core.driver.DriverSpec;
import io.msgscope.core.driver.Drivers;
import io.msgscope.core.driver.Fault;
import io.msgscope.core.driver.Publisher;
import io.msgscope.core.driver.RoundTrip;
import io.msgscope.core.driver.Subscriber;
import io.msgscope.driver.mqtt.MqttDriver;
import io.msgscope.driver.mqtt.MqttDriverTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The lean engine (the default; publisher and subscriber) against the real Mosquitto 2.0 on 127.0.0.1:1883,
 * which speaks MQTT 5 and 3.1.1: every QoS at both versions, a shared-subscription round trip, push delivery
 * ({@code start}) and {@code offer} for both engines, source addresses, and thousands-of-connections plumbing
 * (every connection of a context on its shared event loops). Skipped without Mosquitto, failed under CI=true.
 */
class NettyEngineTest {
    private static final int N = 2000;
    private static final String MOSQUITTO = "tcp://127.0.0.1:1883";

    private static MqttDriver driver() {
        return (MqttDriver) Drivers.load().get("mqtt");
    }

    @ParameterizedTest(name = "engine=netty MQTT {0} QoS {1}, window {2}")
    // windows below Mosquitto's max_queued_messages (1000): it drops what overflows a subscriber's queue even at QoS 1
    @CsvSource({"5,0,20", "5,1,20", "5,1,1", "5,1,256", "5,2,20", "5,2,1",
            "3,0,20", "3,1,20", "3,1,1", "3,1,256", "3,2,20", "3,2,1"})
    void nettyEngineDeliversEveryMessageOnce(int version, int qos, int window) throws Exception {
        MqttDriverTest.requireMosquitto();
        RoundTrip rt = RoundTrip.run(driver(), MOSQUITTO, Map.of("version", "" + version, "qos", "" + qos,
                "max_inflight", "" + window), N, 64);
        rt.assertAllOnce(N, true);
        assertEquals(qos == 0 ? 0L : N, rt.publisherCounters.get("messages_acked"));
        assertEquals(0L, rt.publisherCounters.get("publish_errors"));
        assertEquals((long) qos, rt.subscriberCounters.get("qos_granted"));
        assertEquals(0L, rt.subscriberCounters.get("qos2_redelivered"));
        System.out.println("mosquitto engine=netty v" + version + " qos " + qos + " window " + window + ": " + rt.rate());
    }

    /** What Mosquitto's CONNACK announces reaches the results (MQTT 5), and its Receive Maximum bounds the window. */
    @Test
    void connackLimitsOfMosquitto() throws Exception {
        MqttDriverTest.requireMosquitto();
        DriverSpec spec = new DriverSpec("", 0, MOSQUITTO, 64, 0, Map.of(), "");
        try (Subscriber sub = driver().openSubscriber(spec);
             Publisher pub = driver().openPublisher(spec.withDestination(sub.destination()))) {
            Map<String, String> info = sub.serverInfo();
            assertEquals("MQTT 5", info.get("protocol"));
            assertEquals("netty", info.get("engine"));
            assertEquals("1", info.get("granted_qos"));
            assertTrue(info.containsKey("receive_maximum"), info.toString());
            int receiveMax = Integer.parseInt(info.get("receive_maximum"));
            assertEquals(Math.min(10_000, receiveMax), ((NettyMqttPublisher) pub).windowSize());
            System.out.println("mosquitto CONNACK: " + info);
        }
    }

    /** An MQTT 3.1.1 CONNACK refusal and an MQTT 5 one, from a fake broker: REFUSED naming the code and address. */
    @ParameterizedTest(name = "MQTT {0}")
    @CsvSource({"3, '32,2,0,5', return code 0x05 NOT_AUTHORIZED", "5, '32,3,0,134,0', reason code 0x86 BAD_USERNAME_OR_PASSWORD"})
    void refusedConnackIsARefusedFault(int version, String connack, String named) throws Exception {
        String[] parts = connack.split(",");
        byte[] answer = new byte[parts.length];
        for (int i = 0; i < parts.length; i++) {
            answer[i] = (byte) Integer.parseInt(parts[i]);
        }
        try (java.net.ServerSocket server = new java.net.ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            Thread fake = new Thread(() -> {
                try (java.net.Socket c = server.accept()) {
                    c.getInputStream().read(new byte[256]); // the CONNECT
                    c.getOutputStream().write(answer);
                    c.getOutputStream().flush();
                    c.getInputStream().read(); // until the client closes
                } catch (IOException ignored) {
                    // the client went
                }
            }, "fake-broker");
            fake.start();
            String addr = "127.0.0.1:" + server.getLocalPort();
            IOException e = org.junit.jupiter.api.Assertions.assertThrows(IOException.class, () -> driver().openPublisher(
                    new DriverSpec("", 0, "tcp://" + addr, 64, 0, Map.of("version", "" + version), "msgscope/x")));
            assertEquals(Fault.Kind.REFUSED, Fault.kindOf(e));
            assertEquals("MQTT broker at " + addr + " refused the connection: CONNACK " + named, e.getMessage());
            fake.join(5000);
        }
    }

    /**
     * Warm-up messages (negative sequence) and measured ones are acknowledged into separate counters;
     * at QoS 2 the acknowledgement is the PUBCOMP after the PUBREC/PUBREL exchange.
     */
    @ParameterizedTest(name = "MQTT {0} QoS {1}")
    @CsvSource({"5,1", "5,2", "3,1", "3,2"})
    void warmupAndMeasuredAcksCountApart(int version, String qos) throws Exception {
        MqttDriverTest.requireMosquitto();
        DriverSpec spec = new DriverSpec("", 0, MOSQUITTO, 64, 0,
                Map.of("version", "" + version, "qos", qos, "max_inflight", "7"), "");
        MqttDriverTest.assertWarmupAndMeasuredAcksApart(driver(), spec, NettyMqttPublisher.class);
    }

    /**
     * Round-robin (seed 002): two subscribers share {@code $share/GROUP/topic}; every message reaches exactly one
     * of them, and each gets some.
     */
    @ParameterizedTest(name = "engine={0} QoS {1}")
    @CsvSource({"netty,1", "netty,2", "hivemq,1"})
    void sharedSubscriptionDeliversEachMessageToOneMember(String engine, int qos) throws Exception {
        MqttDriverTest.requireMosquitto();
        final int n = 1000;
        String topic = "msgscope/test/share-" + Long.toHexString(System.nanoTime());
        Map<String, String> o = Map.of("engine", engine, "qos", "" + qos, "topic", topic, "group", "g1",
                "max_inflight", "20");
        DriverSpec spec = new DriverSpec("", 0, MOSQUITTO, 64, 0, o, "");
        int[] arrivals = new int[n];
        long[] perMember = new long[2];
        CountDownLatch all = new CountDownLatch(n);
        List<String> ended = new java.util.concurrent.CopyOnWriteArrayList<>();
        try (Subscriber a = driver().openSubscriber(spec); Subscriber b = driver().openSubscriber(spec)) {
            Subscriber[] members = {a, b};
            for (int m = 0; m < 2; m++) {
                final int member = m;
                members[m].start((buf, off) -> {
                    synchronized (arrivals) {
                        arrivals[(int) WireHeader.sequence(buf, off)]++;
                        perMember[member]++;
                    }
                    all.countDown();
                }, ended::add);
            }
            Map<String, String> po = new HashMap<>(o);
            po.remove("group");
            try (Publisher pub = driver().openPublisher(new DriverSpec("", 0, MOSQUITTO, 64, 0, po, topic))) {
                ByteBuffer buf = driver().allocatePayload(64);
                for (int i = 0; i < n; i++) {
                    WireHeader.writeSequence(buf, 0, i);
                    pub.send(buf, 0, 64);
                }
                pub.drain(30_000);
            }
            assertTrue(all.await(30, TimeUnit.SECONDS), "all messages arrived");
        }
        synchronized (arrivals) {
            for (int i = 0; i < n; i++) {
                assertEquals(1, arrivals[i], "arrivals of message " + i);
            }
            assertTrue(perMember[0] > 0 && perMember[1] > 0, "both members got some: " + perMember[0] + " / "
                    + perMember[1]);
        }
        assertEquals(List.of(), ended, "closing the subscribers is not reported as an end");
    }

    /**
     * The scenario runtime's way for both engines (issue 13): the publisher offered messages without ever
     * waiting (a full window says no), the subscriber delivering on the client's I/O thread; every message once.
     */
    @ParameterizedTest(name = "engine={0} MQTT {1} QoS {2}")
    @CsvSource({"netty,5,1", "netty,3,2", "netty,5,0", "hivemq,5,1", "hivemq,3,1"})
    void pushDeliveryAndOffer(String engine, int version, int qos) throws Exception {
        MqttDriverTest.requireMosquitto();
        final int n = 2000;
        DriverSpec spec = new DriverSpec("", 0, MOSQUITTO, 64, 0, Map.of("engine", engine, "version", "" + version,
                "qos", "" + qos, "max_inflight", "20"), "");
        AtomicLong received = new AtomicLong();
        ConcurrentLinkedQueue<String> threads = new ConcurrentLinkedQueue<>();
        long[] seen = new long[n];
        CountDownLatch done = new CountDownLatch(n);
        long refusals = 0;
        try (Subscriber sub = driver().openSubscriber(spec)) {
            sub.start((buf, off) -> {
                long seq = WireHeader.sequence(buf, off);
                seen[(int) seq]++;
                if (received.incrementAndGet() == 1) {
                    threads.add(Thread.currentThread().getName());
                }
                done.countDown();
            }, why -> threads.add("ended: " + why));
            try (Publisher pub = driver().openPublisher(spec.withDestination(sub.destination()))) {
                ByteBuffer buf = driver().allocatePayload(64);
                for (int i = 0; i < n; i++) {
                    WireHeader.writeSequence(buf, 0, i);
                    while (!pub.offer(buf, 0, 64)) {
                        refusals++;
                        Thread.onSpinWait();
                    }
                }
                pub.drain(30_000);
            }
            assertTrue(done.await(30, TimeUnit.SECONDS), received.get() + " of " + n + " arrived");
        }
        for (int i = 0; i < n; i++) {
            assertEquals(1, seen[i], "arrivals of message " + i);
        }
        String thread = threads.peek();
        assertTrue(thread != null && !thread.startsWith("ended"), threads.toString());
        assertTrue(!thread.equals(Thread.currentThread().getName()), "delivered on the client's thread: " + thread);
        System.out.println("engine=" + engine + " v" + version + " qos " + qos + ": offer said no " + refusals
                + " times; delivered on " + thread);
    }

    /** Both engines bind to the context's source addresses (127.0.0.2 reaches the broker on 127.0.0.1 over lo). */
    @ParameterizedTest(name = "engine={0}")
    @CsvSource({"netty", "hivemq"})
    void connectionsBindTheContextsSourceAddress(String engine) throws Exception {
        MqttDriverTest.requireMosquitto();
        InetAddress source = InetAddress.getByName("127.0.0.2");
        try (ClientContext context = new ClientContext(1, List.of(source))) {
            DriverSpec spec = new DriverSpec("", 0, MOSQUITTO, 64, 0, Map.of("engine", engine), "");
            try (Subscriber sub = driver().openSubscriber(spec, context);
                 Publisher pub = driver().openPublisher(spec.withDestination(sub.destination()), context)) {
                assertEquals(source, localAddressOf(sub), "the subscriber's socket");
                assertEquals(source, localAddressOf(pub), "the publisher's socket");
                ByteBuffer buf = driver().allocatePayload(64);
                pub.send(buf, 0, 64);
                pub.drain(10_000);
                assertEquals(1, sub.poll((b, o) -> { }, 10_000));
            }
        }
    }

    /** The client socket's local address; the HiveMQ client's through its (internal) connection config. */
    private static InetAddress localAddressOf(Object side) throws Exception {
        return ((InetSocketAddress) MqttDriverTest.channelOf(side).localAddress()).getAddress();
    }

    /**
     * Issue 13: 200 connections (100 subscribers, 100 publishers) of one context run on its 2 event loops; no
     * thread per connection. Each pair carries a message.
     */
    @Test
    void manyConnectionsShareTheContextsEventLoops() throws Exception {
        MqttDriverTest.requireMosquitto();
        final int pairs = 100;
        long before = ioThreads();
        List<AutoCloseable> open = new ArrayList<>();
        try (ClientContext context = new ClientContext(2, List.of())) {
            CountDownLatch got = new CountDownLatch(pairs);
            List<Publisher> pubs = new ArrayList<>();
            try {
                for (int i = 0; i < pairs; i++) {
                    DriverSpec spec = new DriverSpec("", 0, MOSQUITTO, 64, 0, Map.of("qos", "1"), "");
                    Subscriber sub = driver().openSubscriber(spec, context);
                    open.add(sub);
                    sub.start((b, o) -> got.countDown(), why -> { });
                    Publisher pub = driver().openPublisher(spec.withDestination(sub.destination()), context);
                    open.add(pub);
                    pubs.add(pub);
                }
                assertEquals(2, ioThreads() - before, "event loop threads for " + 2 * pairs + " connections");
                ByteBuffer buf = driver().allocatePayload(64);
                for (Publisher p : pubs) {
                    assertTrue(p.offer(buf, 0, 64));
                }
                assertTrue(got.await(30, TimeUnit.SECONDS), got.getCount() + " pairs still waiting");
            } finally {
                for (int i = open.size() - 1; i >= 0; i--) {
                    open.get(i).close();
                }
            }
        }
    }

    private static long ioThreads() {
        return Thread.getAllStackTraces().keySet().stream().filter(t -> t.getName().startsWith("msgscope-io")
                && t.isAlive()).count();
    }

    /** The broker's host for the core plan (M5): the default URI's 127.0.0.1, or the URI's host. */
    @Test
    void brokerHostIsTheUrisHost() {
        assertEquals("127.0.0.1", driver().brokerHost("", Map.of()));
        assertEquals("10.1.2.3", driver().brokerHost("tcp://10.1.2.3:1883", Map.of("engine", "netty")));
    }
}
