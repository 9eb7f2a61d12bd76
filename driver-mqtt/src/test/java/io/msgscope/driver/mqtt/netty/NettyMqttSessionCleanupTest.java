package io.msgscope.driver.mqtt.netty;

import io.msgscope.core.driver.ClientContext;
import io.msgscope.core.driver.DriverSpec;
import io.msgscope.core.driver.Drivers;
import io.msgscope.core.driver.Publisher;
import io.msgscope.core.driver.Subscriber;
import io.msgscope.driver.mqtt.MqttDriverTest;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A run on persistent sessions leaves nothing on the broker once it ends cleanly: after a subscriber and a publisher
 * on {@code clean_session=false} (or {@code reconnect=true}) carried a message and closed, a new connection with
 * either's client id and clean session off finds no session (CONNACK session present = 0). Against the real
 * Mosquitto on 127.0.0.1:1883, which keeps persistent sessions; skipped without it, failed under CI=true.
 */
class NettyMqttSessionCleanupTest {
    private static final String MOSQUITTO = "tcp://127.0.0.1:1883";

    @ParameterizedTest(name = "MQTT {0}, --opt {1}=true/false")
    @CsvSource({"5,clean_session,false", "3,clean_session,false", "5,reconnect,true", "3,reconnect,true"})
    void aCleanEndLeavesNoSessionOnTheBroker(String version, String option, String value) throws Exception {
        MqttDriverTest.requireMosquitto();
        DriverSpec spec = new DriverSpec("", 0, MOSQUITTO, 64, 0, Map.of("engine", "netty", "version", version,
                "qos", "1", option, value), "");
        try (ClientContext context = new ClientContext(1, List.of())) {
            NettyMqttSession subSession;
            NettyMqttSession pubSession;
            Subscriber sub = Drivers.load().get("mqtt").openSubscriber(spec, context);
            try (sub) {
                CountDownLatch got = new CountDownLatch(1);
                sub.start((b, o) -> got.countDown(), why -> { });
                try (Publisher pub = Drivers.load().get("mqtt").openPublisher(spec.withDestination(sub.destination()),
                        context)) {
                    pubSession = ((NettyMqttPublisher) pub).session;
                    assertTrue(pub.offer(ByteBuffer.allocateDirect(64), 0, 64));
                    assertTrue(got.await(10, TimeUnit.SECONDS), "the message never arrived");
                }
                subSession = ((NettyMqttSubscriber) sub).session;
            }
            List<String> left = new java.util.ArrayList<>();
            for (NettyMqttSession closed : List.of(subSession, pubSession)) {
                NettyMqttSession again = closed.successor(); // same client id, clean session off
                again.connect(context);
                if (again.sessionPresent()) {
                    left.add(closed.clientId);
                }
                again.close(); // clears what this connection found or made, before any assertion
            }
            assertEquals(List.of(), left, "client ids whose session the broker still had");
        }
    }
}
