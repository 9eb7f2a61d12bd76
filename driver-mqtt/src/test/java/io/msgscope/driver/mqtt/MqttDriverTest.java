package io.msgscope.driver.mqtt;

import io.msgscope.core.test.Ci;
import io.msgscope.core.driver.RoundTrip;
import io.moquette.broker.Server;
import io.moquette.broker.config.MemoryConfig;
import io.msgscope.core.SpecException;
import io.msgscope.core.driver.DriverSpec;
import io.msgscope.core.driver.Drivers;
import io.msgscope.driver.mqtt.hivemq.HiveMqChannel;
import io.msgscope.driver.mqtt.hivemq.HiveMqPublisher;
import io.msgscope.driver.mqtt.netty.NettyMqttChannel;
import io.msgscope.driver.mqtt.netty.NettyMqttPublisher;
import io.msgscope.driver.mqtt.netty.NettyMqttSubscriber;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The MQTT driver, both engines (the lean netty engine, the default, and the HiveMQ client given as
 * {@code engine=hivemq}), against an embedded Moquette (MQTT 3.1.1 only) on every machine, and against the
 * real Mosquitto on 127.0.0.1:1883 when it runs (required under CI=true).
 */
public class MqttDriverTest {
    private static final int N = 2000;
    private static final String MOSQUITTO = "tcp://127.0.0.1:1883";

    @TempDir
    static Path data;
    private static Server moquette;
    private static String moquetteUri;

    @BeforeAll
    static void startMoquette() throws IOException {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        Properties p = new Properties();
        p.setProperty("host", "127.0.0.1");
        p.setProperty("port", Integer.toString(port));
        p.setProperty("websocket_port", "disabled");
        p.setProperty("allow_anonymous", "true");
        p.setProperty("persistence_enabled", "false");
        p.setProperty("data_path", data.toString());
        p.setProperty("session_queue_size", "65536");
        p.setProperty("telemetry_enabled", "false");
        moquette = new Server();
        moquette.startServer(new MemoryConfig(p));
        moquetteUri = "tcp://127.0.0.1:" + port;
    }

    @AfterAll
    static void stopMoquette() {
        if (moquette != null) {
            moquette.stopServer();
        }
    }

    /**
     * Moquette 0.17 sometimes closes a connection whose SUBSCRIBE follows its CONNACK at once: it sends the
     * CONNACK before it marks the connection connected and logs "SUBSCRIBE received on already closed
     * connection" (both engines, ~1 in 15 connections under load here; seen with slf4j-simple). Its tests retry
     * once on exactly that; the driver itself reports a broker closing the connection, as it must.
     */
    static <T> T moquetteRetry(java.util.concurrent.Callable<T> run) throws Exception {
        try {
            return run.call();
        } catch (IOException e) {
            String m = String.valueOf(e.getMessage());
            if (!m.contains("closed the connection before its SUBACK") && !m.contains("Server closed connection")) {
                throw e;
            }
            System.out.println("Moquette closed a fresh connection (its CONNACK/SUBSCRIBE race), once more: " + m);
            return run.call();
        }
    }

    public static void requireMosquitto() {
        boolean up;
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", 1883), 1000);
            up = true;
        } catch (IOException e) {
            up = false;
        }
        if (!up && Ci.on()) {
            fail("Mosquitto must listen on 127.0.0.1:1883 under CI=true");
        }
        Assumptions.assumeTrue(up, "Mosquitto is not listening on 127.0.0.1:1883: real-broker test skipped");
    }

    private static MqttDriver driver() {
        return (MqttDriver) Drivers.load().get("mqtt");
    }

    @ParameterizedTest(name = "Moquette MQTT 3.1.1 engine={0} QoS {1}")
    @CsvSource({"netty,1", "netty,2", "hivemq,1", "hivemq,2"})
    void moquetteDeliversEveryMessageOnce(String engine, int qos) throws Exception {
        RoundTrip rt = moquetteRetry(() -> RoundTrip.run(driver(), moquetteUri, Map.of("engine", engine, "version", "3",
                "qos", "" + qos), N, 64));
        rt.assertAllOnce(N, true);
        assertEquals((long) N, rt.publisherCounters.get("messages_acked"));
        assertEquals(0L, rt.publisherCounters.get("publish_errors"));
        assertEquals((long) qos, rt.subscriberCounters.get("qos_granted"));
        assertTrue(rt.destination.startsWith("msgscope/"), rt.destination);
        System.out.println("moquette v3 engine=" + engine + " qos " + qos + ": " + rt.rate());
    }

    /**
     * At most once: Moquette drops QoS 0 messages when its subscriber queue overflows at full speed (1772 of
     * 2000 arrived in one run here); never duplicates, and most arrive. Waits until arrivals stop for 2 s
     * rather than for all of them.
     */
    @ParameterizedTest(name = "Moquette MQTT 3.1.1 engine={0} QoS 0")
    @CsvSource({"netty", "hivemq"})
    void moquetteQos0DeliversMostAndNeverTwice(String engine) throws Exception {
        DriverSpec spec = new DriverSpec("", 0, moquetteUri, 64, 0, Map.of("engine", engine, "version", "3", "qos", "0"),
                "");
        int[] arrivals = new int[N];
        java.util.concurrent.atomic.AtomicLong received = new java.util.concurrent.atomic.AtomicLong();
        try (io.msgscope.core.driver.Subscriber sub = moquetteRetry(() -> driver().openSubscriber(spec))) {
            sub.start((b, off) -> {
                arrivals[(int) io.msgscope.core.WireHeader.sequence(b, off)]++;
                received.incrementAndGet();
            }, why -> { });
            try (io.msgscope.core.driver.Publisher pub = driver().openPublisher(spec.withDestination(sub.destination()))) {
                java.nio.ByteBuffer buf = driver().allocatePayload(64);
                for (int i = 0; i < N; i++) {
                    io.msgscope.core.WireHeader.writeSequence(buf, 0, i);
                    pub.send(buf, 0, 64);
                }
                pub.drain(30_000);
                assertEquals(0L, pub.counters().get("messages_acked"));
            }
            long last = -1;
            long deadline = System.nanoTime() + 30_000_000_000L;
            while (received.get() < N && received.get() != last && System.nanoTime() < deadline) {
                last = received.get();
                Thread.sleep(2000); // a quiet period: QoS 0 gives no other sign that nothing more will come
            }
            assertEquals(0L, sub.counters().get("qos_granted"));
        }
        for (int i = 0; i < N; i++) {
            assertTrue(arrivals[i] <= 1, "message " + i + " arrived " + arrivals[i] + " times");
        }
        assertTrue(received.get() >= N / 2, "QoS 0 received " + received.get() + " of " + N);
        System.out.println("moquette v3 engine=" + engine + " qos 0: " + received.get() + " of " + N);
    }

    /** The HiveMQ engine, the reference (the netty engine's rows are in {@code netty.NettyEngineTest}). */
    @ParameterizedTest(name = "Mosquitto engine=hivemq MQTT {0} QoS {1}")
    @CsvSource({"5,0", "5,1", "5,2", "3,0", "3,1", "3,2"})
    void mosquittoDeliversEveryMessageOnce(int version, int qos) throws Exception {
        requireMosquitto();
        RoundTrip rt = RoundTrip.run(driver(), MOSQUITTO, Map.of("engine", "hivemq", "version", "" + version,
                "qos", "" + qos), N, 64);
        rt.assertAllOnce(N, true);
        assertEquals(qos == 0 ? 0L : N, rt.publisherCounters.get("messages_acked"));
        assertEquals(0L, rt.publisherCounters.get("publish_errors"));
        System.out.println("mosquitto engine=hivemq v" + version + " qos " + qos + ": " + rt.rate());
    }

    /**
     * The publisher's window (max_inflight) with the streamed publishes: windows of 1 (every send waits
     * for the previous completion), 7 (wake-ups after 1 completion) and 64 (after 8) keep every count
     * exact — each message received once, every PUBACK/PUBCOMP counted as messages_acked (Q5).
     */
    @ParameterizedTest(name = "window {0}, QoS {1}, MQTT {2}, engine={3}")
    @CsvSource({"1,1,3,hivemq", "7,2,3,hivemq", "64,1,3,hivemq", "1,2,5,hivemq", "7,1,5,hivemq", "64,2,5,hivemq",
            "1,1,3,netty", "7,2,3,netty", "64,1,3,netty", "1,2,5,netty", "7,1,5,netty", "64,2,5,netty"})
    void windowedPublishKeepsCountsExact(int window, int qos, int version, String engine) throws Exception {
        String uri = moquetteUri;
        if (version == 5) {
            requireMosquitto();
            uri = MOSQUITTO;
        }
        Map<String, String> o = Map.of("engine", engine, "version", "" + version, "qos", "" + qos,
                "max_inflight", "" + window);
        String u = uri;
        RoundTrip rt = moquetteRetry(() -> RoundTrip.run(driver(), u, o, 500, 64));
        rt.assertAllOnce(500, true);
        assertEquals(500L, rt.publisherCounters.get("messages_acked"));
        assertEquals(0L, rt.publisherCounters.get("publish_errors"));
    }

    /**
     * Several messages per send call (--send-batch) go to the client in one hand-over; warm-up messages
     * (negative sequence) and measured ones are acknowledged into separate counters, exactly.
     */
    @Test
    void batchedSendsCountWarmupAndMeasuredAcksApart() throws Exception {
        DriverSpec spec = new DriverSpec("", 0, moquetteUri, 64, 0,
                Map.of("engine", "hivemq", "version", "3", "qos", "1", "max_inflight", "7"), "");
        moquetteRetry(() -> {
            assertWarmupAndMeasuredAcksApart(driver(), spec, HiveMqPublisher.class);
            return null;
        });
    }

    /**
     * 100 warm-up and 500 measured messages, 10 per send call, through {@code spec}'s publisher (of
     * {@code publisherClass}): each arrives once and each ack lands in its own counter.
     */
    public static void assertWarmupAndMeasuredAcksApart(MqttDriver driver, DriverSpec spec, Class<?> publisherClass)
            throws Exception {
        final int batch = 10;
        final int warm = 100;
        final int measured = 500;
        try (io.msgscope.core.driver.Subscriber sub = driver.openSubscriber(spec)) {
            long[] got = new long[2]; // warm-up, measured
            io.msgscope.core.driver.MessageHandler h = (b, off) ->
                    got[io.msgscope.core.WireHeader.sequence(b, off) < 0 ? 0 : 1]++;
            Thread receiver = new Thread(() -> {
                long n = 0;
                long deadline = System.nanoTime() + 60_000_000_000L;
                while (n < warm + measured && System.nanoTime() < deadline) {
                    try {
                        n += Math.max(0, sub.poll(h, 50));
                    } catch (IOException e) {
                        return;
                    }
                }
            }, "test-receiver");
            receiver.start();
            try (io.msgscope.core.driver.Publisher pub = driver.openPublisher(spec.withDestination(sub.destination()))) {
                assertEquals(publisherClass, pub.getClass());
                java.nio.ByteBuffer buf = driver.allocatePayload(64 * batch);
                for (int seq = -warm; seq < measured; seq += batch) {
                    for (int j = 0; j < batch; j++) {
                        io.msgscope.core.WireHeader.writeSequence(buf, 64 * j, seq < 0 ? seq + j - 1 : seq + j);
                    }
                    pub.send(buf, 0, 64 * batch);
                }
                pub.drain(30_000);
                receiver.join(60_000);
                assertEquals((long) warm, pub.counters().get("warmup_acked"));
                assertEquals((long) measured, pub.counters().get("messages_acked"));
                assertEquals(0L, pub.counters().get("publish_errors"));
            }
            assertEquals(warm, got[0], "warm-up messages received");
            assertEquals(measured, got[1], "measured messages received");
        }
    }

    @ParameterizedTest(name = "engine={0} MQTT {1}")
    @CsvSource({"netty,5", "netty,3", "hivemq,5", "hivemq,3"})
    void largerMessagesAndAChosenTopicOnMosquitto(String engine, int version) throws Exception {
        requireMosquitto();
        // the subscriber and publisher the round trip opens, to clean their persistent sessions up afterwards
        java.util.List<Object> opened = new java.util.ArrayList<>();
        MqttDriver real = driver();
        io.msgscope.core.driver.Driver recording = (io.msgscope.core.driver.Driver) java.lang.reflect.Proxy.newProxyInstance(
                getClass().getClassLoader(), new Class<?>[] {io.msgscope.core.driver.Driver.class}, (proxy, m, args) -> {
                    try {
                        Object r = m.invoke(real, args);
                        if (m.getName().startsWith("open")) {
                            opened.add(r);
                        }
                        return r;
                    } catch (java.lang.reflect.InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
        RoundTrip rt = RoundTrip.run(recording, "mqtt://127.0.0.1:1883", Map.of("engine", engine, "version", "" + version,
                "topic", "msgscope/test/large", "clean_session", "false", "keep_alive", "10"), 500, 16_384);
        rt.assertAllOnce(500, true);
        assertEquals("msgscope/test/large", rt.destination);
        // clean_session=false: each client clears its persistent session when it closes cleanly, so the shared
        // Mosquitto keeps none. Probed by taking each over with session expiry 0 (not found; were it there, gone on
        // DISCONNECT); every client first, the checks after, so a failure leaves nothing behind either. The client
        // ids are random, read from the clients (issue 36).
        assertEquals(2, opened.size(), "a subscriber and a publisher");
        java.util.List<String> wrong = new java.util.ArrayList<>();
        for (Object client : opened) {
            String id = null;
            for (Class<?> c = client.getClass(); c != null && id == null; c = c.getSuperclass()) {
                for (java.lang.reflect.Field f : c.getDeclaredFields()) {
                    f.setAccessible(true);
                    Object v = f.get(client);
                    if (f.getName().equals("session")) { // the netty engine's NettyMqttSession
                        java.lang.reflect.Field idField = v.getClass().getDeclaredField("clientId");
                        idField.setAccessible(true);
                        id = (String) idField.get(v);
                    } else if (f.getName().equals("conn")) { // the hivemq engine's MqttConnection
                        java.lang.reflect.Field cf = v.getClass().getDeclaredField(version == 5 ? "v5" : "v3");
                        cf.setAccessible(true);
                        id = ((com.hivemq.client.mqtt.MqttClient) cf.get(v)).getConfig().getClientIdentifier()
                                .orElseThrow().toString();
                    }
                }
            }
            assertTrue(id != null && id.startsWith("msgscope-"), "no client id found in " + client.getClass());
            var probe = com.hivemq.client.mqtt.mqtt5.Mqtt5Client.builder().identifier(id).serverHost("127.0.0.1")
                    .serverPort(1883).buildBlocking();
            boolean present = probe.connectWith().cleanStart(false).sessionExpiryInterval(0).send().isSessionPresent();
            probe.disconnect();
            if (present) {
                wrong.add("the session of " + id + " is still on Mosquitto after the client closed");
            }
        }
        assertEquals(java.util.List.of(), wrong);
    }

    @ParameterizedTest(name = "engine={0}")
    @CsvSource({"netty", "hivemq"})
    void bothEnginesHaveTcpNoDelayOn(String engine) throws Exception {
        DriverSpec spec = new DriverSpec("", 0, moquetteUri, 64, 0, Map.of("engine", engine, "version", "3"), "");
        try (io.msgscope.core.driver.Subscriber sub = moquetteRetry(() -> driver().openSubscriber(spec))) {
            assertTrue(channelOf(sub).config().getOption(io.netty.channel.ChannelOption.TCP_NODELAY), "TCP_NODELAY");
        }
    }

    /** The Netty channel under a publisher or subscriber of either engine (internal, test only). */
    public static io.netty.channel.Channel channelOf(Object side) throws ReflectiveOperationException {
        return side instanceof NettyMqttSubscriber || side instanceof NettyMqttPublisher ? NettyMqttChannel.of(side)
                : HiveMqChannel.of(side);
    }

    @ParameterizedTest(name = "engine={0}")
    @CsvSource({"netty", "hivemq"})
    void connectionRefusedIsOneLineNamingTheAddress(String engine) throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        long t0 = System.nanoTime();
        DriverSpec spec = new DriverSpec("", 0, "tcp://127.0.0.1:" + port, 64, 0, Map.of("engine", engine), "msgscope/x");
        IOException e = assertThrows(IOException.class, () -> driver().openPublisher(spec));
        assertTrue((System.nanoTime() - t0) / 1e9 < 12, "took too long");
        assertTrue(e.getMessage().contains("127.0.0.1:" + port), e.getMessage());
        assertFalse(e.getMessage().contains("\n"), e.getMessage());
        // counted by kind in scenario results (issue 5)
        assertEquals(io.msgscope.core.driver.Fault.Kind.CONNECT_FAILED, io.msgscope.core.driver.Fault.kindOf(e));
        assertThrows(IOException.class, () -> driver().openSubscriber(spec));
    }

    @ParameterizedTest(name = "engine={0}")
    @CsvSource({"netty", "hivemq"})
    void mqtt5AgainstMoquetteFailsClearly(String engine) {
        DriverSpec spec = new DriverSpec("", 0, moquetteUri, 64, 0, Map.of("engine", engine, "version", "5"), "");
        IOException e = assertThrows(IOException.class, () -> driver().openSubscriber(spec));
        assertTrue(e.getMessage().contains(moquetteUri.substring(6)), e.getMessage());
        assertFalse(e.getMessage().contains("\n"), e.getMessage());
        System.out.println("MQTT 5 on Moquette, engine=" + engine + ": " + e.getMessage());
    }

    @Test
    void badOptionsNameTheOption() {
        MqttDriver d = driver();
        assertEquals("--opt qos", assertThrows(SpecException.class, () -> d.openSubscriber(
                new DriverSpec("", 0, "", 64, 0, Map.of("qos", "3"), ""))).option());
        assertEquals("--opt version", assertThrows(SpecException.class, () -> d.openSubscriber(
                new DriverSpec("", 0, "", 64, 0, Map.of("version", "4"), ""))).option());
        assertEquals("--opt topic", assertThrows(SpecException.class, () -> d.openSubscriber(
                new DriverSpec("", 0, "", 64, 0, Map.of("topic", "a/#"), ""))).option());
        assertEquals("--opt durable", assertThrows(SpecException.class, () -> d.openSubscriber(
                new DriverSpec("", 0, "", 64, 0, Map.of("durable", "true"), ""))).option());
        assertEquals("--uri", assertThrows(SpecException.class, () -> d.openSubscriber(
                new DriverSpec("", 0, "amqp://127.0.0.1", 64, 0, Map.of(), ""))).option());
        assertEquals("--opt clean_session", assertThrows(SpecException.class, () -> d.openSubscriber(
                new DriverSpec("", 0, "", 64, 0, Map.of("clean_session", "maybe"), ""))).option());
        assertEquals("--opt engine", assertThrows(SpecException.class, () -> d.checkOptions(
                new DriverSpec("", 0, "", 64, 0, Map.of("engine", "paho"), ""))).option());
        assertEquals("--opt tls_ca", assertThrows(SpecException.class, () -> d.checkOptions(
                new DriverSpec("", 0, "tcp://127.0.0.1", 64, 0, Map.of("tls_ca", "/etc/hostname"), ""))).option());
        assertEquals("--opt tls_verify", assertThrows(SpecException.class, () -> d.checkOptions(
                new DriverSpec("", 0, "", 64, 0, Map.of("tls_verify", "false"), ""))).option());
        assertEquals("--opt tls_ca", assertThrows(SpecException.class, () -> d.checkOptions(
                new DriverSpec("", 0, "ssl://127.0.0.1", 64, 0, Map.of("tls_ca", "/no/such/ca.pem"), ""))).option());
        assertEquals("--opt group", assertThrows(SpecException.class, () -> d.checkOptions(
                new DriverSpec("", 0, "", 64, 0, Map.of("version", "3", "group", "g"), ""))).option());
        assertEquals("--opt max_inflight", assertThrows(SpecException.class, () -> d.checkOptions(
                new DriverSpec("", 0, "", 64, 0, Map.of("max_inflight", "70000"), ""))).option());
        SpecException uri = assertThrows(SpecException.class, () -> d.checkOptions(
                new DriverSpec("", 0, "http://u:s3cret@127.0.0.1", 64, 0, Map.of(), "")));
        assertFalse(uri.getMessage().contains("s3cret"), uri.getMessage());
    }

    /** The netty engine and MQTT 5 are the defaults; both engines take every option of both versions. */
    @Test
    void defaultsAndWhatBothEnginesTake() {
        MqttSettings s = MqttSettings.of(new DriverSpec("", 0, "", 64, 0, Map.of(), ""), false);
        assertTrue(s.netty());
        assertEquals(5, s.version());
        assertEquals(10_000, s.maxInflight());
        assertEquals(1000, MqttSettings.of(new DriverSpec("", 0, "", 64, 0, Map.of("qos", "0"), ""), false).maxInflight());
        assertEquals(20, MqttSettings.of(new DriverSpec("", 0, "", 64, 0, Map.of("version", "3"), ""), false).maxInflight());
        assertEquals(10_000, MqttSettings.of(new DriverSpec("", 0, "", 64, 0, Map.of("engine", "hivemq", "qos", "0"), ""),
                false).maxInflight());
        for (String engine : new String[] {"netty", "hivemq"}) {
            MqttSettings t = MqttSettings.of(new DriverSpec("", 0, "mqtts://h", 64, 0, Map.of("engine", engine,
                    "group", "g", "tls_verify", "false"), ""), false);
            assertEquals(8883, t.port());
            assertFalse(t.tlsSettings().verify());
            assertEquals("$share/g/" + t.topic(), t.filter());
        }
        assertTrue(driver().bindsSourceAddresses(Map.of()));
        assertTrue(driver().bindsSourceAddresses(Map.of("engine", "hivemq")));
    }
}
