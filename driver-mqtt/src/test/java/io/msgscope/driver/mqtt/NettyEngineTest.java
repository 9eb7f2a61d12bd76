package io.msgscope.driver.mqtt;

import io.msgscope.core.SpecException;
import io.msgscope.core.driver.DriverSpec;
import io.msgscope.core.driver.Drivers;
import io.msgscope.core.driver.RoundTrip;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The lean engine ({@code --opt engine=netty}, publisher and subscriber) against the real Mosquitto. */
class NettyEngineTest {
    private static final int N = 2000;

    private static MqttDriver driver() {
        return (MqttDriver) Drivers.load().get("mqtt");
    }

    @ParameterizedTest(name = "engine=netty QoS {0}, window {1}")
    // windows below Mosquitto's max_queued_messages (1000): it drops what overflows a subscriber's queue even at QoS 1
    @CsvSource({"0,20", "1,20", "1,1", "1,256", "2,20", "2,1"})
    void nettyEngineDeliversEveryMessageOnce(int qos, int window) throws Exception {
        MqttDriverTest.requireMosquitto();
        RoundTrip rt = RoundTrip.run(driver(), "tcp://127.0.0.1:1883", Map.of("engine", "netty", "qos", "" + qos,
                "max_inflight", "" + window), N, 64);
        rt.assertAllOnce(N, true);
        assertEquals(qos == 0 ? 0L : N, rt.publisherCounters.get("messages_acked"));
        assertEquals(0L, rt.publisherCounters.get("publish_errors"));
        assertEquals((long) qos, rt.subscriberCounters.get("qos_granted"));
        assertEquals(0L, rt.subscriberCounters.get("duplicates"));
        System.out.println("mosquitto engine=netty qos " + qos + " window " + window + ": " + rt.rate());
    }

    @Test
    void nettyRefusesMqtt5AndTls() {
        MqttDriver d = driver();
        SpecException e = assertThrows(SpecException.class, () -> d.checkOptions(
                new DriverSpec("", 0, "", 64, 0, Map.of("engine", "netty", "version", "5"), "")));
        assertEquals("--opt engine", e.option());
        assertFalse(e.getMessage().contains("\n"), e.getMessage());
        assertTrue(e.getMessage().contains("MQTT 3.1.1"), e.getMessage());
        assertEquals("--opt engine", assertThrows(SpecException.class, () -> d.checkOptions(
                new DriverSpec("", 0, "ssl://127.0.0.1", 64, 0, Map.of("engine", "netty"), ""))).option());
        assertEquals("--opt engine", assertThrows(SpecException.class, () -> d.checkOptions(
                new DriverSpec("", 0, "", 64, 0, Map.of("engine", "paho"), ""))).option());
        SpecException g = assertThrows(SpecException.class, () -> d.checkOptions(
                new DriverSpec("", 0, "", 64, 0, Map.of("engine", "netty", "group", "g"), "")));
        assertEquals("--opt engine", g.option());
        assertTrue(g.getMessage().contains("shared subscriptions"), g.getMessage());
    }

    /** A CONNACK with a non-zero return code (here 5, not authorized) is a REFUSED fault naming the code and address. */
    @Test
    void refusedConnackIsARefusedFault() throws Exception {
        try (java.net.ServerSocket server = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            Thread fake = new Thread(() -> {
                try (java.net.Socket c = server.accept()) {
                    c.getInputStream().read(new byte[256]); // the CONNECT
                    c.getOutputStream().write(new byte[] {0x20, 0x02, 0x00, 0x05});
                    c.getOutputStream().flush();
                    c.getInputStream().read(); // until the client closes
                } catch (java.io.IOException ignored) {
                    // the client went
                }
            }, "fake-broker");
            fake.start();
            String addr = "127.0.0.1:" + server.getLocalPort();
            java.io.IOException e = assertThrows(java.io.IOException.class, () -> driver().openPublisher(
                    new DriverSpec("", 0, "tcp://" + addr, 64, 0, Map.of("engine", "netty"), "msgscope/x")));
            assertEquals(io.msgscope.core.driver.Fault.Kind.REFUSED, io.msgscope.core.driver.Fault.kindOf(e));
            assertTrue(e.getMessage().contains(addr) && e.getMessage().contains("return code"), e.getMessage());
            fake.join(5000);
        }
    }

    /**
     * Warm-up messages (negative sequence) and measured ones are acknowledged into separate counters;
     * at QoS 2 the acknowledgement is the PUBCOMP after the PUBREC/PUBREL exchange.
     */
    @ParameterizedTest(name = "QoS {0}")
    @CsvSource({"1", "2"})
    void warmupAndMeasuredAcksCountApart(String qos) throws Exception {
        MqttDriverTest.requireMosquitto();
        DriverSpec spec = new DriverSpec("", 0, "tcp://127.0.0.1:1883", 64, 0,
                Map.of("engine", "netty", "qos", qos, "max_inflight", "7"), "");
        MqttDriverTest.assertWarmupAndMeasuredAcksApart(driver(), spec, NettyMqttPublisher.class);
    }

    /** The broker's host for the core plan (M5): the default URI's 127.0.0.1, or the URI's host. */
    @Test
    void brokerHostIsTheUrisHost() {
        assertEquals("127.0.0.1", driver().brokerHost("", Map.of()));
        assertEquals("10.1.2.3", driver().brokerHost("tcp://10.1.2.3:1883", Map.of("engine", "netty")));
    }
}
