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

/** The lean publisher ({@code --opt engine=netty}) against the real Mosquitto, received by the HiveMQ subscriber. */
class NettyEngineTest {
    private static final int N = 2000;

    private static MqttDriver driver() {
        return (MqttDriver) Drivers.load().get("mqtt");
    }

    @ParameterizedTest(name = "engine=netty QoS {0}, window {1}")
    @CsvSource({"0,20", "1,20", "1,1", "1,1000"})
    void nettyPublisherDeliversEveryMessageOnce(int qos, int window) throws Exception {
        MqttDriverTest.requireMosquitto();
        RoundTrip rt = RoundTrip.run(driver(), "tcp://127.0.0.1:1883", Map.of("engine", "netty", "qos", "" + qos,
                "max_inflight", "" + window), N, 64);
        rt.assertAllOnce(N, true);
        assertEquals(qos == 0 ? 0L : N, rt.publisherCounters.get("messages_acked"));
        assertEquals(0L, rt.publisherCounters.get("publish_errors"));
        System.out.println("mosquitto engine=netty qos " + qos + " window " + window + ": " + rt.rate());
    }

    @Test
    void nettyRefusesQos2Mqtt5AndTls() {
        MqttDriver d = driver();
        SpecException e = assertThrows(SpecException.class, () -> d.checkOptions(
                new DriverSpec("", 0, "", 64, 0, Map.of("engine", "netty", "qos", "2"), "")));
        assertEquals("--opt engine", e.option());
        assertFalse(e.getMessage().contains("\n"), e.getMessage());
        assertTrue(e.getMessage().contains("QoS"), e.getMessage());
        assertEquals("--opt engine", assertThrows(SpecException.class, () -> d.checkOptions(
                new DriverSpec("", 0, "", 64, 0, Map.of("engine", "netty", "version", "5"), ""))).option());
        assertEquals("--opt engine", assertThrows(SpecException.class, () -> d.checkOptions(
                new DriverSpec("", 0, "ssl://127.0.0.1", 64, 0, Map.of("engine", "netty"), ""))).option());
        assertEquals("--opt engine", assertThrows(SpecException.class, () -> d.checkOptions(
                new DriverSpec("", 0, "", 64, 0, Map.of("engine", "paho"), ""))).option());
    }
}
