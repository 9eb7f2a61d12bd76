package io.msgscope.driver.mqtt;

import io.msgscope.core.test.Ci;
import io.msgscope.core.driver.DriverSpec;
import io.msgscope.core.driver.Fault;
import io.msgscope.core.driver.Publisher;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The publisher's side of a refused QoS (issue 5), against a private mosquitto with {@code max_qos 1}
 * on a free port (the shared broker is never reconfigured): MQTT 5 announces it in the CONNACK, so
 * the publisher refuses up front; an MQTT 3.1.1 broker closes the connection on the first QoS 2
 * publish, which the publisher reports as a probable refusal. Both engines. Skipped without the mosquitto
 * binary, failed under CI=true.
 */
class MqttRefusalTest {
    @TempDir
    static Path dir;
    private static Process broker;
    private static String uri;

    @BeforeAll
    static void start() throws Exception {
        boolean onPath = System.getenv("PATH") != null && java.util.Arrays.stream(System.getenv("PATH").split(":"))
                .anyMatch(d -> Files.isExecutable(Path.of(d, "mosquitto")));
        if (!onPath && Ci.on()) {
            fail("mosquitto must be on PATH under CI=true");
        }
        assumeTrue(onPath, "mosquitto is not on PATH: refusal tests skipped");
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        Path conf = dir.resolve("mosquitto.conf");
        Files.writeString(conf, "listener " + port + " 127.0.0.1\nallow_anonymous true\nmax_qos 1\n");
        broker = new ProcessBuilder("mosquitto", "-c", conf.toString()).redirectErrorStream(true)
                .redirectOutput(dir.resolve("mosquitto.log").toFile()).start();
        uri = "tcp://127.0.0.1:" + port;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (true) {
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress("127.0.0.1", port), 200);
                return;
            } catch (IOException e) {
                if (System.nanoTime() > deadline || !broker.isAlive()) {
                    throw new AssertionError("private mosquitto did not start: " + Files.readString(dir.resolve("mosquitto.log")));
                }
                Thread.sleep(50);
            }
        }
    }

    @AfterAll
    static void stop() throws InterruptedException {
        if (broker != null) {
            broker.destroy();
            broker.waitFor(5, TimeUnit.SECONDS);
        }
    }

    @ParameterizedTest(name = "engine={0}")
    @CsvSource({"netty", "hivemq"})
    void mqtt5PublisherRefusesAQosAboveTheConnacksMaximum(String engine) {
        DriverSpec spec = new DriverSpec("", 0, uri, 64, 0, Map.of("engine", engine, "qos", "2"), "msgscope/refused");
        Fault f = assertThrows(Fault.class, () -> new MqttDriver().openPublisher(spec));
        assertEquals(Fault.Kind.REFUSED, f.kind());
        assertTrue(f.getMessage().contains("accepts QoS 1 at most (CONNACK Maximum QoS), asked --opt qos=2"),
                f.getMessage());
    }

    @ParameterizedTest(name = "engine={0}")
    @CsvSource({"netty", "hivemq"})
    void mqtt311BrokerClosingOnQos2IsReportedAsARefusal(String engine) throws Exception {
        DriverSpec spec = new DriverSpec("", 0, uri, 64, 0, Map.of("engine", engine, "qos", "2", "version", "3"),
                "msgscope/refused");
        ByteBuffer buf = new MqttDriver().allocatePayload(64);
        try (Publisher p = new MqttDriver().openPublisher(spec)) {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            Fault f = null;
            while (f == null && System.nanoTime() < deadline) {
                try {
                    p.send(buf, 0, 64);
                    Thread.sleep(1);
                } catch (Fault e) {
                    f = e;
                }
            }
            assertTrue(f != null, "the publisher never noticed the closed connection");
            assertEquals(Fault.Kind.REFUSED, f.kind(), f.getMessage());
            assertTrue(f.getMessage().contains("none acknowledged") && f.getMessage().contains("QoS 2"), f.getMessage());
        }
    }
}
