package io.msgscope.agent.receiver;

import io.msgscope.core.WireHeader;
import io.msgscope.core.driver.Driver;
import io.msgscope.core.driver.DriverSpec;
import io.msgscope.core.driver.Drivers;
import io.msgscope.core.driver.MessageHandler;
import io.msgscope.core.driver.Publisher;
import io.msgscope.core.driver.Subscriber;
import io.msgscope.proto.RunSpec;
import io.msgscope.proto.ScenarioPlan;
import io.msgscope.proto.ScenarioQuery;
import io.msgscope.proto.ScenarioReport;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The subscribers role's fault accounting (issue 5) with a fake broker driver: lost subscriptions
 * counted as {@code errors_connection_lost} with the driver's reason, the driver's short payloads as
 * {@code errors_short_payload}, the server info passed on at SETUP, and nothing thrown.
 */
class SubscribersRoleTest {
    /** Registered as "mqtt" through META-INF/services (test class path only). */
    public static final class FakeMqtt implements Driver {
        static volatile boolean lose;

        @Override
        public String name() {
            return "mqtt";
        }

        @Override
        public Subscriber openSubscriber(DriverSpec spec, io.msgscope.core.driver.ClientContext context) {
            return new Subscriber() {
                private boolean delivered;

                @Override
                public int poll(MessageHandler handler, long timeoutMs) {
                    if (lose) {
                        return -1;
                    }
                    if (!delivered) { // one measured message, sent 1 ms ago
                        delivered = true;
                        ByteBuffer b = ByteBuffer.allocate(spec.messageSize()).order(ByteOrder.LITTLE_ENDIAN);
                        long epoch = System.currentTimeMillis() * 1_000_000L - 1_000_000L;
                        b.putLong(WireHeader.EPOCH_NS_OFFSET, epoch).putLong(WireHeader.SEQUENCE_OFFSET, 0)
                                .putLong(WireHeader.PROBE_CPU_OFFSET, epoch);
                        handler.onMessage(b, 0);
                        return 1;
                    }
                    return 0;
                }

                @Override
                public Map<String, Long> counters() {
                    return Map.of("errors", 2L, "short_payloads", 2L);
                }

                @Override
                public String closeReason() {
                    return "fake broker went away";
                }

                @Override
                public Map<String, String> serverInfo() {
                    return Map.of("broker", "fake " + spec.option("topic", "?"));
                }

                @Override
                public void close() {
                }
            };
        }

        @Override
        public Publisher openPublisher(DriverSpec spec, io.msgscope.core.driver.ClientContext context) {
            throw new UnsupportedOperationException();
        }
    }

    private static ScenarioReport ask(SubscribersRole r, ScenarioQuery.Kind k) throws Exception {
        return r.scenario(ScenarioQuery.newBuilder().setKind(k).build());
    }

    @Test
    void lostSubscriptionsAndShortPayloadsAreCountedByKind() throws Exception {
        FakeMqtt.lose = false;
        SubscribersRole role = new SubscribersRole(Drivers.load());
        role.prepare(RunSpec.newBuilder().setDriver("mqtt").setSize(64).build());
        ScenarioReport setup = role.scenario(ScenarioQuery.newBuilder().setKind(ScenarioQuery.Kind.SETUP)
                .setPlan(ScenarioPlan.newBuilder().addSubscriberTopics("t/a").addSubscriberTopics("t/b")).build());
        assertEquals("fake t/a", setup.getInfoMap().get("broker"));
        try {
            ScenarioReport p = awaitCounter(role, "messages_received", 2);
            assertEquals(0, p.getCountersOrThrow("errors_connection_lost"));
            assertEquals(4, p.getCountersOrThrow("errors_short_payload"));
            assertEquals(4, p.getCountersOrThrow("subscriber_errors"));
            FakeMqtt.lose = true;
            p = awaitCounter(role, "subscriptions_lost", 2);
            assertEquals(2, p.getCountersOrThrow("subscriptions"));
            assertEquals(2, p.getCountersOrThrow("errors_connection_lost"));
            assertEquals(6, p.getCountersOrThrow("subscriber_errors"));
            assertEquals("fake broker went away", p.getFirstError());
            ScenarioReport fin = ask(role, ScenarioQuery.Kind.FINAL);
            assertEquals(2, fin.getMessages()); // what arrived before the loss is kept
        } finally {
            role.close();
        }
    }

    private static ScenarioReport awaitCounter(SubscribersRole role, String key, long value) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (true) {
            ScenarioReport p = ask(role, ScenarioQuery.Kind.PROGRESS);
            if (p.getCountersOrDefault(key, 0) >= value) {
                return p;
            }
            assertTrue(System.nanoTime() < deadline, key + " never reached " + value + ": " + p.getCountersMap());
            Thread.sleep(20);
        }
    }
}
