package io.msgscope.driver.mqtt;

import io.msgscope.core.driver.RoundTrip;
import io.moquette.broker.Server;
import io.moquette.broker.config.MemoryConfig;
import io.msgscope.core.SpecException;
import io.msgscope.core.driver.DriverSpec;
import io.msgscope.core.driver.Drivers;
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
 * The MQTT driver against an embedded Moquette (MQTT 3.1.1 only) on every machine, and against the
 * real Mosquitto on 127.0.0.1:1883 when it runs (required under CI=true).
 */
class MqttDriverTest {
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

    static void requireMosquitto() {
        boolean up;
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", 1883), 1000);
            up = true;
        } catch (IOException e) {
            up = false;
        }
        if (!up && "true".equals(System.getenv("CI"))) {
            fail("Mosquitto must listen on 127.0.0.1:1883 under CI=true");
        }
        Assumptions.assumeTrue(up, "Mosquitto is not listening on 127.0.0.1:1883: real-broker test skipped");
    }

    private static MqttDriver driver() {
        return (MqttDriver) Drivers.load().get("mqtt");
    }

    @ParameterizedTest(name = "Moquette MQTT 3.1.1 QoS {0}")
    @CsvSource({"0", "1", "2"})
    void moquetteDeliversEveryMessageOnce(int qos) throws Exception {
        RoundTrip rt = RoundTrip.run(driver(), moquetteUri, Map.of("version", "3", "qos", "" + qos), N, 64);
        if (qos == 0) {
            // at most once: Moquette drops QoS 0 messages when its subscriber queue overflows at full
            // speed (1772 of 2000 arrived in one run here); never duplicates, and most arrive
            assertEquals(0, rt.duplicates, "duplicates");
            assertTrue(rt.received >= N / 2, "QoS 0 received " + rt.received + " of " + N);
        } else {
            rt.assertAllOnce(N, true);
        }
        assertEquals(qos == 0 ? 0L : N, rt.publisherCounters.get("messages_acked"));
        assertEquals(0L, rt.publisherCounters.get("publish_errors"));
        assertEquals((long) qos, rt.subscriberCounters.get("qos_granted"));
        assertTrue(rt.destination.startsWith("msgscope/"), rt.destination);
        System.out.println("moquette v3 qos " + qos + ": " + rt.rate());
    }

    @ParameterizedTest(name = "Mosquitto MQTT {0} QoS {1}")
    @CsvSource({"5,0", "5,1", "5,2", "3,0", "3,1", "3,2"})
    void mosquittoDeliversEveryMessageOnce(int version, int qos) throws Exception {
        requireMosquitto();
        RoundTrip rt = RoundTrip.run(driver(), MOSQUITTO, Map.of("version", "" + version, "qos", "" + qos), N, 64);
        rt.assertAllOnce(N, true);
        assertEquals(qos == 0 ? 0L : N, rt.publisherCounters.get("messages_acked"));
        assertEquals(0L, rt.publisherCounters.get("publish_errors"));
        System.out.println("mosquitto v" + version + " qos " + qos + ": " + rt.rate());
    }

    @Test
    void largerMessagesAndAChosenTopicOnMosquitto() throws Exception {
        requireMosquitto();
        RoundTrip rt = RoundTrip.run(driver(), "mqtt://127.0.0.1:1883",
                Map.of("topic", "msgscope/test/large", "clean_session", "false", "keep_alive", "10"), 500, 16_384);
        rt.assertAllOnce(500, true);
        assertEquals("msgscope/test/large", rt.destination);
    }

    @Test
    void nettyHasTcpNoDelayOn() throws Exception {
        MqttSettings s = MqttSettings.of(new DriverSpec("", 0, moquetteUri, 64, 0, Map.of("version", "3"), ""), false);
        MqttConnection c = MqttConnection.open(s, "probe", null);
        try {
            // internal API, test only: the client's Netty channel
            Object cfg = c.v3.getConfig().getConnectionConfig().orElseThrow();
            io.netty.channel.Channel ch = (io.netty.channel.Channel) cfg.getClass().getMethod("getChannel").invoke(cfg);
            assertTrue(ch.config().getOption(io.netty.channel.ChannelOption.TCP_NODELAY), "TCP_NODELAY");
        } finally {
            c.close();
        }
    }

    @Test
    void connectionRefusedIsOneLineNamingTheAddress() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        long t0 = System.nanoTime();
        DriverSpec spec = new DriverSpec("", 0, "tcp://127.0.0.1:" + port, 64, 0, Map.of(), "msgscope/x");
        IOException e = assertThrows(IOException.class, () -> driver().openPublisher(spec));
        assertTrue((System.nanoTime() - t0) / 1e9 < 12, "took too long");
        assertTrue(e.getMessage().contains("127.0.0.1:" + port), e.getMessage());
        assertFalse(e.getMessage().contains("\n"), e.getMessage());
        // counted by kind in scenario results (issue 5)
        assertEquals(io.msgscope.core.driver.Fault.Kind.CONNECT_FAILED, io.msgscope.core.driver.Fault.kindOf(e));
        assertThrows(IOException.class, () -> driver().openSubscriber(spec));
    }

    @Test
    void mqtt5AgainstMoquetteFailsClearly() {
        DriverSpec spec = new DriverSpec("", 0, moquetteUri, 64, 0, Map.of("version", "5"), "");
        IOException e = assertThrows(IOException.class, () -> driver().openSubscriber(spec));
        assertTrue(e.getMessage().contains(moquetteUri.substring(6)), e.getMessage());
        System.out.println("MQTT 5 on Moquette: " + e.getMessage());
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
    }
}
