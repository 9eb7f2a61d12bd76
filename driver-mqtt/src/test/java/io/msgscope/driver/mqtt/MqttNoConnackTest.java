package io.msgscope.driver.mqtt;

import io.msgscope.core.driver.DriverSpec;
import io.msgscope.core.driver.Drivers;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A broker that closes the connection on the CONNECT, without a CONNACK, as RabbitMQ 3.10's MQTT plugin does with an
 * MQTT 5 CONNECT (it speaks 3.1.1 only): at {@code version=5} both engines' one-line reason says that brokers without
 * MQTT 5 do this and names {@code --opt version=3}; at {@code version=3} it does not (the hint would be wrong there).
 */
class MqttNoConnackTest {

    @ParameterizedTest(name = "{0}, version {1}")
    @CsvSource({"netty, 5, true", "netty, 3, false", "hivemq, 5, true", "hivemq, 3, false"})
    void aConnectionClosedBeforeItsConnackSuggestsVersion3OnlyAtMqtt5(String engine, String version, boolean hint)
            throws Exception {
        try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            Thread broker = new Thread(() -> closeOnConnect(server), "no-connack-broker");
            broker.start();
            IOException e = assertThrows(IOException.class, () -> Drivers.load().get("mqtt").openSubscriber(
                    new DriverSpec("", 0, "tcp://127.0.0.1:" + server.getLocalPort(), 64, 0,
                            Map.of("engine", engine, "version", version, "qos", "1", "topic", "t"), "")));
            broker.join(10_000);
            String m = e.getMessage();
            assertTrue(m.startsWith("cannot connect to MQTT broker at 127.0.0.1:" + server.getLocalPort()), m);
            assertEquals(hint, m.endsWith("(a broker without MQTT 5 does that, RabbitMQ's MQTT plugin before 3.13"
                    + " among them: try --opt version=3)"), m);
            assertTrue(!m.contains("\n"), m);
        }
    }

    /** Accepts one client, reads its CONNECT's first byte and closes the socket. */
    private static void closeOnConnect(ServerSocket server) {
        try (Socket c = server.accept()) {
            InputStream in = c.getInputStream();
            in.read();
        } catch (IOException ignored) {
            // the client went first
        }
    }
}
