package io.msgscope.driver.mqtt;

import io.msgscope.core.test.Ci;
import io.msgscope.core.test.TestCertificates;
import io.msgscope.core.driver.DriverSpec;
import io.msgscope.core.driver.Drivers;
import io.msgscope.core.driver.Fault;
import io.msgscope.core.driver.RoundTrip;
import io.msgscope.core.driver.Subscriber;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * TLS ({@code ssl://}, {@code mqtts://}) for both engines against a PRIVATE mosquitto started on a free port
 * with a certificate made here by openssl: a test CA and a server certificate for IP 127.0.0.1 only. Trusted
 * through {@code tls_ca}, or anything through {@code tls_verify=false}; the JVM's trust store (which does not
 * know the test CA) and a host name the certificate does not name fail to connect, in one line naming the
 * broker. Skipped without mosquitto or openssl on PATH, failed under CI=true. The broker is stopped by its PID.
 */
class MqttTlsTest {
    @TempDir
    static Path dir;
    private static Process broker;
    private static int port;
    private static String ca;



    @BeforeAll
    static void start() throws Exception {
        boolean tools = TestCertificates.onPath("mosquitto") && TestCertificates.onPath("openssl");
        if (!tools && Ci.on()) {
            fail("mosquitto and openssl must be on PATH under CI=true");
        }
        assumeTrue(tools, "mosquitto or openssl is not on PATH: TLS tests skipped");
        TestCertificates.make(dir);
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        Path conf = dir.resolve("mosquitto.conf");
        Files.writeString(conf, "listener " + port + " 127.0.0.1\nallow_anonymous true\n"
                + "user " + System.getProperty("user.name") + "\n"
                + "cafile " + dir.resolve("ca.pem") + "\ncertfile " + dir.resolve("server.pem") + "\nkeyfile "
                + dir.resolve("server.key") + "\n");
        broker = new ProcessBuilder("mosquitto", "-c", conf.toString()).redirectErrorStream(true)
                .redirectOutput(dir.resolve("mosquitto.log").toFile()).start();
        ca = dir.resolve("ca.pem").toString();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (true) {
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress("127.0.0.1", port), 200);
                return;
            } catch (IOException e) {
                if (System.nanoTime() > deadline || !broker.isAlive()) {
                    throw new AssertionError("private mosquitto did not start: "
                            + Files.readString(dir.resolve("mosquitto.log")));
                }
                Thread.sleep(50);
            }
        }
    }

    @AfterAll
    static void stop() throws InterruptedException {
        if (broker != null) {
            broker.destroy();
            if (!broker.waitFor(5, TimeUnit.SECONDS)) {
                broker.destroyForcibly();
            }
        }
    }

    private static MqttDriver driver() {
        return (MqttDriver) Drivers.load().get("mqtt");
    }

    /** Every message once over TLS, the test CA trusted through tls_ca (or no check with tls_verify=false). */
    @ParameterizedTest(name = "{0} engine={1} MQTT {2} QoS {3} {4}")
    @CsvSource({"ssl,netty,5,1,tls_ca", "mqtts,netty,3,2,tls_ca", "ssl,netty,5,0,no_verify",
            "ssl,hivemq,5,1,tls_ca", "ssl,hivemq,3,1,no_verify"})
    void everyMessageOnceOverTls(String scheme, String engine, int version, int qos, String trust) throws Exception {
        Map<String, String> o = new HashMap<>(Map.of("engine", engine, "version", "" + version, "qos", "" + qos,
                "max_inflight", "20"));
        if (trust.equals("tls_ca")) {
            o.put("tls_ca", ca);
        } else {
            o.put("tls_verify", "false");
        }
        RoundTrip rt = RoundTrip.run(driver(), scheme + "://127.0.0.1:" + port, o, 500, 64);
        rt.assertAllOnce(500, true);
        assertEquals(qos == 0 ? 0L : 500L, rt.publisherCounters.get("messages_acked"));
        try (Subscriber sub = driver().openSubscriber(new DriverSpec("", 0, scheme + "://127.0.0.1:" + port, 64, 0,
                o, ""))) {
            assertEquals(trust.equals("tls_ca") ? "verified" : "not verified (tls_verify=false)",
                    sub.serverInfo().get("tls"));
            assertEquals(engine, sub.serverInfo().get("engine"));
        }
    }

    /**
     * Without the test CA (the JVM's trust store), or dialling a host name the certificate does not name, the
     * connection is refused by TLS itself: CONNECT_FAILED, one line naming the broker's address.
     */
    @ParameterizedTest(name = "engine={0}, host {1}, {2}")
    @CsvSource({"netty,127.0.0.1,jvm", "netty,localhost,tls_ca", "hivemq,127.0.0.1,jvm", "hivemq,localhost,tls_ca"})
    void anUntrustedCertificateOrHostFailsToConnect(String engine, String host, String trust) {
        Map<String, String> o = new HashMap<>(Map.of("engine", engine));
        if (trust.equals("tls_ca")) {
            o.put("tls_ca", ca);
        }
        DriverSpec spec = new DriverSpec("", 0, "ssl://" + host + ":" + port, 64, 0, o, "msgscope/tls");
        IOException e = assertThrows(IOException.class, () -> driver().openPublisher(spec));
        assertEquals(Fault.Kind.CONNECT_FAILED, Fault.kindOf(e), e.getMessage());
        assertTrue(e.getMessage().contains(host + ":" + port), e.getMessage());
        assertFalse(e.getMessage().contains("\n"), e.getMessage());
        System.out.println("TLS refused, engine=" + engine + ", host " + host + ": " + e.getMessage());
    }

    /** A CA file that is not PEM is the user's error, named: --opt tls_ca. */
    @ParameterizedTest(name = "engine={0}")
    @CsvSource({"netty", "hivemq"})
    void aBadCaFileIsAUsageError(String engine) throws IOException {
        Path bad = dir.resolve("not-a-cert.pem");
        Files.writeString(bad, "hello\n");
        DriverSpec spec = new DriverSpec("", 0, "ssl://127.0.0.1:" + port, 64, 0,
                Map.of("engine", engine, "tls_ca", bad.toString()), "msgscope/tls");
        io.msgscope.core.SpecException e = assertThrows(io.msgscope.core.SpecException.class,
                () -> driver().openPublisher(spec));
        assertEquals("--opt tls_ca", e.option());
        assertTrue(List.of(e.getMessage().split("\n")).size() == 1, e.getMessage());
    }
}
