package io.msgscope.driver.mqtt.hivemq;

import io.msgscope.core.driver.DriverSpec;
import io.msgscope.core.driver.Drivers;
import io.msgscope.core.driver.Fault;
import io.msgscope.core.driver.Publisher;
import io.msgscope.core.driver.Reconnects;
import io.msgscope.driver.mqtt.netty.FakeMqtt;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static io.msgscope.driver.mqtt.netty.FakeMqtt.SIZE;
import static io.msgscope.driver.mqtt.netty.FakeMqtt.await;
import static io.msgscope.driver.mqtt.netty.FakeMqtt.send;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * {@code --opt reconnect=true} on the hivemq engine (issue 32 item 3) against the simulated MQTT 5 broker
 * ({@link FakeMqtt}): the HiveMQ client reconnects on its own, and what it does then — which publishes it sends again,
 * whether it subscribes again — is read off the broker's side, while the driver's counters must account for every
 * measured message. Every count is worked out by hand in the comments; the waits are for conditions, never for time.
 * What both engines do alike (a broker killed at QoS 1, the subscriber, what is never acknowledged) is
 * {@code MqttReconnectFakeBrokerTest}'s.
 */
class HiveMqReconnectFakeBrokerTest {
    /**
     * QoS 2: the client's publish result comes with the PUBREC, so 5 is confirmed before the broker dies after its
     * PUBREL; on the kept session the client sends that PUBREL again by itself (5 is not published again).
     */
    @Test
    void qos2IsConfirmedAtThePubrecAndTheClientReleasesAgain() throws Exception {
        try (FakeMqtt fake = new FakeMqtt()) {
            try (Publisher p = Drivers.load().get("mqtt").openPublisher(new DriverSpec("", 0, fake.uri(), SIZE, 0,
                    Map.of("engine", "hivemq", "qos", "2", Reconnects.OPTION, "true"), "t"))) {
                send(p, 0, 5);
                p.drain(60_000);
                fake.dropAckOnce.add(5L); // PUBREC, then the PUBREL read and the connection closed: no PUBCOMP
                send(p, 5, 6);
                await(() -> p.counters().get(Reconnects.PUBLISHER_RECONNECTS) == 1 && fake.releases.size() == 7,
                        "the reconnect and 5's PUBREL again");
                send(p, 6, 8);
                p.drain(60_000);
                Map<String, Long> c = p.counters();
                assertEquals(8L, c.get(Reconnects.CONFIRMED), c::toString);
                assertEquals(0L, c.get(Reconnects.UNCONFIRMED), c::toString);
                assertEquals(List.of("1:0", "1:1", "1:2", "1:3", "1:4", "1:5", "2:6", "2:7"), fake.received);
                // PUBRELs: 0-5 on connection 1 (5's PUBCOMP never came), 5 again on connection 2, then 6 and 7 (the
                // drain ends at 7's PUBREC: its PUBREL may still be on its way)
                await(() -> fake.releases.size() == 9, "7's PUBREL");
                List<String> rel = List.copyOf(fake.releases);
                assertEquals("2:" + rel.get(5).substring(2), rel.get(6), "5's packet id released again " + rel);
            }
        }
    }

    /** The client's automatic reconnect does not hide a first connect that fails: it fails as without the option. */
    @Test
    void aFirstConnectThatFailsIsNotRetried() throws Exception {
        int port;
        try (java.net.ServerSocket s = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort(); // closed again: nothing listens there
        }
        DriverSpec spec = new DriverSpec("", 0, "tcp://127.0.0.1:" + port, SIZE, 0,
                Map.of("engine", "hivemq", Reconnects.OPTION, "true"), "t");
        Fault f = assertThrows(Fault.class, () -> Drivers.load().get("mqtt").openPublisher(spec).close());
        assertEquals(Fault.Kind.CONNECT_FAILED, f.kind(), f::getMessage);
    }
}
