package io.msgscope.driver.mqtt;

import io.msgscope.core.WireHeader;
import io.msgscope.core.driver.DriverSpec;
import io.msgscope.core.driver.Drivers;
import io.msgscope.core.driver.Publisher;
import io.msgscope.core.driver.Reconnects;
import io.msgscope.core.driver.Subscriber;
import io.msgscope.driver.mqtt.netty.FakeMqtt;
import io.msgscope.driver.mqtt.netty.NettyMqttChannel;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import static io.msgscope.driver.mqtt.netty.FakeMqtt.SIZE;
import static io.msgscope.driver.mqtt.netty.FakeMqtt.await;
import static io.msgscope.driver.mqtt.netty.FakeMqtt.send;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code --opt reconnect=true} as both engines must behave alike (issue 32 item 3), against the simulated MQTT 5 broker
 * ({@link FakeMqtt}); what each engine does apart is {@code NettyMqttReconnectFakeBrokerTest}'s and
 * {@code HiveMqReconnectFakeBrokerTest}'s. The waits are for conditions, never for time.
 */
class MqttReconnectFakeBrokerTest {
    private static DriverSpec spec(FakeMqtt fake, String engine, String key, String value, String destination) {
        return new DriverSpec("", 0, fake.uri(), SIZE, 0,
                Map.of("engine", engine, key, value, Reconnects.OPTION, "true"), destination);
    }

    @ParameterizedTest(name = "engine={0}")
    @ValueSource(strings = {"netty", "hivemq"})
    void qos1BrokerThatDiesMidRunLosesNothingAndHidesNothing(String engine) throws Exception {
        try (FakeMqtt fake = new FakeMqtt()) {
            try (Publisher p = Drivers.load().get("mqtt").openPublisher(spec(fake, engine, "qos", "1", "t"))) {
                // 0-4 acknowledged on connection 1
                send(p, 0, 5);
                p.drain(60_000);
                // 5's PUBACK is lost; the broker dies when 6 arrives: neither is acknowledged on connection 1
                fake.dropAckOnce.add(5L);
                fake.closeOn = 6;
                send(p, 5, 7);
                // the netty engine gets the connection back at the next send once it has seen it lost; the HiveMQ
                // client by itself. Either publishes 5 and 6 again with DUP, then 7-9 go
                await(() -> engine.equals("netty") ? NettyMqttChannel.lost(p)
                        : p.counters().get(Reconnects.PUBLISHER_RECONNECTS) == 1, "the lost connection");
                send(p, 7, 10);
                p.drain(60_000);
                Map<String, Long> c = p.counters();
                assertEquals(10L, c.get(Reconnects.CONFIRMED), c::toString);
                assertEquals(0L, c.get(Reconnects.UNCONFIRMED), c::toString);
                // 5 and 6, once each; the HiveMQ client sent them again too (2:5dup, 2:6dup below) and does not tell
                assertEquals(engine.equals("netty") ? 2L : null, c.get(Reconnects.REPUBLISHED), c::toString);
                assertEquals(1L, c.get(Reconnects.PUBLISHER_RECONNECTS), c::toString);
                assertEquals(10L, c.get("messages_acked"), c::toString);
                assertEquals(0L, c.get("publish_errors"), c::toString);
                assertArrayEquals(new long[0], p.unconfirmed());
                assertTrue(p.confirms());
                assertEquals(List.of("1:0", "1:1", "1:2", "1:3", "1:4", "1:5", "1:6", "2:5dup", "2:6dup", "2:7", "2:8",
                        "2:9"), fake.received);
                // the same client id twice, the session kept (clean start off) both times
                assertEquals(2, fake.connects.size(), fake.connects::toString);
                assertEquals(fake.connects.get(0), fake.connects.get(1));
                assertTrue(fake.connects.get(0).endsWith(" resume"), fake.connects::toString);
            }
        }
    }

    @ParameterizedTest(name = "engine={0}")
    @ValueSource(strings = {"netty", "hivemq"})
    void whatIsNeverAcknowledgedIsCountedUnconfirmedByRange(String engine) throws Exception {
        try (FakeMqtt fake = new FakeMqtt()) {
            fake.neverAck.addAll(List.of(3L, 4L, 8L));
            try (Publisher p = Drivers.load().get("mqtt").openPublisher(spec(fake, engine, "qos", "1", "t"))) {
                send(p, 0, 10);
                await(() -> p.counters().get(Reconnects.CONFIRMED) == 7, "the seven acknowledgements");
                p.drain(200); // gives up on the three without failing: counted, not hidden
                Map<String, Long> c = p.counters();
                assertEquals(3L, c.get(Reconnects.UNCONFIRMED), c::toString);
                assertEquals(0L, c.get(Reconnects.PUBLISHER_RECONNECTS), c::toString);
                // nothing sent again: the netty engine counts 0; the HiveMQ client never tells, so unknown, never 0
                assertEquals(engine.equals("netty") ? 0L : null, c.get(Reconnects.REPUBLISHED), c::toString);
                assertArrayEquals(new long[] {3, 5, 8, 9}, p.unconfirmed());
            }
        }
    }

    /**
     * The subscriber gets 0 and 1, the broker dies; back on the kept session the broker sends 1 again (DUP: its PUBACK
     * was lost) and 2 before any SUBSCRIBE, and 3 only after one, so 3 arrives only if the client subscribes again
     * though the session was present: 0, 1, 1, 2, 3 delivered, one reconnect.
     */
    @ParameterizedTest(name = "engine={0}")
    @ValueSource(strings = {"netty", "hivemq"})
    void subscriberResumesItsSessionAndSubscribesAgain(String engine) throws Exception {
        try (FakeMqtt fake = new FakeMqtt()) {
            fake.afterSubscribe = n -> n == 1 ? List.of(FakeMqtt.publish(0, false), FakeMqtt.publish(1, false))
                    : List.of(FakeMqtt.publish(3, false));
            fake.closeAfterSubscribe = n -> n == 1;
            fake.toSubscriber = n -> n == 2 ? List.of(FakeMqtt.publish(1, true), FakeMqtt.publish(2, false))
                    : List.of();
            try (Subscriber sub = Drivers.load().get("mqtt").openSubscriber(spec(fake, engine, "topic", "t", ""))) {
                List<Long> got = new CopyOnWriteArrayList<>();
                await(() -> {
                    try {
                        sub.poll((buf, off) -> got.add(WireHeader.sequence(buf, off)), 10);
                    } catch (IOException e) {
                        throw new AssertionError(e);
                    }
                    return got.size() >= 5 && sub.counters().get(Reconnects.SUBSCRIBER_RECONNECTS) == 1;
                }, "five deliveries and the subscription renewed");
                assertEquals(List.of(0L, 1L, 1L, 2L, 3L), got);
                assertEquals(1L, sub.counters().get(Reconnects.SUBSCRIBER_RECONNECTS));
                assertNull(sub.closeReason());
                assertEquals(2, fake.connects.size(), fake.connects::toString);
                assertEquals(fake.connects.get(0), fake.connects.get(1));
                assertTrue(fake.connects.get(0).endsWith(" resume"), fake.connects::toString);
            }
        }
    }
}
