package io.msgscope.driver.mqtt.netty;

import io.msgscope.core.driver.DriverSpec;
import io.msgscope.core.driver.Drivers;
import io.msgscope.core.driver.Publisher;
import io.msgscope.core.driver.Reconnects;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static io.msgscope.driver.mqtt.netty.FakeMqtt.SIZE;
import static io.msgscope.driver.mqtt.netty.FakeMqtt.await;
import static io.msgscope.driver.mqtt.netty.FakeMqtt.send;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code --opt reconnect=true} on the netty engine (issue 32 item 3) against a simulated MQTT 5 broker
 * ({@link FakeMqtt}) on a local socket that acknowledges each publish unless told to drop that acknowledgement or to
 * close the connection when a given sequence arrives (a killed broker), and that answers a returning client's CONNECT
 * with Session Present. Every count is worked out by hand in the comments; the waits are for conditions, never for
 * time. What both engines do alike (a broker killed at QoS 1, the subscriber, what is never acknowledged) is
 * {@code MqttReconnectFakeBrokerTest}'s.
 */
class NettyMqttReconnectFakeBrokerTest {
    private static Publisher publisher(FakeMqtt fake, int qos) throws IOException {
        return Drivers.load().get("mqtt").openPublisher(new DriverSpec("", 0, fake.uri(), SIZE, 0,
                Map.of("qos", "" + qos, Reconnects.OPTION, "true"), "t"));
    }

    /**
     * QoS 2: 5's PUBREC came and its PUBCOMP did not (the broker died after the PUBREL), 6 was not answered: on the
     * kept session 5 gets its PUBREL again (not published again) and 6 is published again with DUP.
     */
    @Test
    void qos2ReleasesWhatTheBrokerHadReceivedAndRepublishesTheRest() throws Exception {
        try (FakeMqtt fake = new FakeMqtt()) {
            try (Publisher p = publisher(fake, 2)) {
                NettyMqttPublisher np = (NettyMqttPublisher) p;
                send(p, 0, 5);
                p.drain(60_000);
                fake.dropAckOnce.add(5L);
                send(p, 5, 6);
                await(() -> np.session.lostWhy() != null, "the lost connection");
                fake.closeOn = 6;
                send(p, 6, 7); // on connection 2, after 5's PUBREL again
                await(() -> fake.received.size() == 7 && np.session.lostWhy() != null, "the second lost connection");
                send(p, 7, 8);
                p.drain(60_000);
                Map<String, Long> c = p.counters();
                // connection 1 died after 5's PUBREC: 6 went to connection 2 (nothing was waiting but 5's release),
                // which died on 6; connection 3 then got 6 again and 7
                assertEquals(8L, c.get(Reconnects.CONFIRMED), c::toString);
                assertEquals(0L, c.get(Reconnects.UNCONFIRMED), c::toString);
                assertEquals(1L, c.get(Reconnects.REPUBLISHED), c::toString); // 6
                assertEquals(2L, c.get(Reconnects.PUBLISHER_RECONNECTS), c::toString);
                assertEquals(List.of("1:0", "1:1", "1:2", "1:3", "1:4", "1:5", "2:6", "3:6dup", "3:7"), fake.received);
                // PUBRELs: 0-5 on connection 1 (5's PUBCOMP never came), 5 again on connection 2, 6 and 7 on 3
                List<String> rel = new ArrayList<>(fake.releases);
                assertEquals(9, rel.size(), rel::toString);
                assertTrue(rel.get(5).startsWith("1:") && rel.get(6).startsWith("2:"), rel::toString);
                assertEquals(rel.get(5).substring(2), rel.get(6).substring(2), "5's packet id released again");
            }
        }
    }

    /** Without the option a lost connection ends the publisher's run, as before. */
    @Test
    void reconnectOffStillFailsOnALostConnection() throws Exception {
        try (FakeMqtt fake = new FakeMqtt()) {
            fake.closeOn = 1;
            try (Publisher p = Drivers.load().get("mqtt").openPublisher(new DriverSpec("", 0, fake.uri(), SIZE, 0,
                    Map.of("qos", "1"), "t"))) {
                send(p, 0, 2);
                NettyMqttPublisher np = (NettyMqttPublisher) p;
                await(() -> np.session.lostWhy() != null, "the lost connection");
                assertThrows(IOException.class, () -> send(p, 2, 3));
                assertEquals(null, p.counters().get(Reconnects.CONFIRMED));
                assertEquals(1, fake.connections.get());
            }
        }
    }
}
