package io.msgscope.driver.amqp;

import io.msgscope.core.SpecException;
import io.msgscope.core.driver.Driver;
import io.msgscope.core.driver.DriverSpec;
import io.msgscope.core.driver.Drivers;
import io.msgscope.core.driver.ScenarioSupport;
import io.msgscope.core.scenario.Scenario;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static io.msgscope.core.driver.TopicPrefixChecks.assertAccepted;
import static io.msgscope.core.driver.TopicPrefixChecks.assertRefused;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** AMQP in scenario mode without a broker: topics, groups, what makes delivery a promise, the topic prefix. */
class AmqpScenariosTest {
    private final Driver amqp = Drivers.load().get("amqp");
    private final ScenarioSupport s = amqp.scenarios();
    private final DriverSpec base = new DriverSpec("", 0, "amqp://guest:guest@127.0.0.1:5672/%2f", 64, 0,
            Map.of("confirm", "100"), "");

    @Test
    void amqpTakesPartInScenariosWithDotSeparatedTopics() {
        assertNotNull(s);
        assertEquals('.', s.separator());
        assertEquals("msgscope.fan-in-1a2b", s.defaultBase(Scenario.FAN_IN, "1a2b"));
        assertTrue(amqp.bindsSourceAddresses(Map.of()));
    }

    @Test
    void eachSubscriberBindsItsTopicAndRoundRobinSharesTheGroupsQueue() {
        DriverSpec own = s.subscriber(base, "t.1", "");
        assertEquals(Map.of("confirm", "100", "topic", "t.1"), own.options());
        assertEquals("", own.destination());
        DriverSpec shared = s.subscriber(base, "t", "g-1");
        assertEquals(Map.of("confirm", "100", "topic", "t", "group", "g-1"), shared.options());
        AmqpOptions o = AmqpOptions.of(shared);
        assertTrue(o.routed());
        assertEquals("amq.topic", o.exchange());
        assertEquals("g-1", o.group());
    }

    @Test
    void publishersPublishToTheExchangeWithTheTopicAsRoutingKey() {
        DriverSpec p = s.publisher(base, "t.7");
        assertEquals("t.7", p.options().get("topic"));
        assertEquals("t.7", p.destination());
        assertEquals("prices", AmqpOptions.of(s.publisher(new DriverSpec("", 0, "", 64, 0,
                Map.of("exchange", "prices"), ""), "t")).exchange());
    }

    @Test
    void theScenarioChoosesTopicAndGroup() {
        for (String k : new String[] {"topic", "group"}) {
            SpecException e = assertThrows(SpecException.class,
                    () -> s.options(Scenario.FAN_OUT, Map.of(k, "x")));
            assertEquals("--opt " + k, e.option());
            assertFalse(e.getMessage().contains("\n"));
        }
        assertEquals(Map.of("exchange", "prices", "confirm", "10", "io", "nio"),
                s.options(Scenario.ROUND_ROBIN, Map.of("exchange", "prices", "confirm", "10")),
                "the exchange is the user's; scenarios share threads (nio) unless io is given");
        assertEquals(Map.of("io", "blocking"), s.options(Scenario.FAN_IN, Map.of("io", "blocking")));
    }

    /** Issue 19: a stream is read whole by every consumer, so it serves fan-out but never round-robin. */
    @Test
    void aStreamCannotBeSharedRoundRobin() {
        SpecException e = assertThrows(SpecException.class,
                () -> s.options(Scenario.ROUND_ROBIN, Map.of("queue_type", "stream")));
        assertEquals("--opt queue_type", e.option());
        assertTrue(e.getMessage().contains("round-robin"), e.getMessage());
        assertEquals("stream", s.options(Scenario.FAN_OUT, Map.of("queue_type", "stream")).get("queue_type"));
        assertEquals("quorum", s.options(Scenario.ROUND_ROBIN, Map.of("queue_type", "quorum")).get("queue_type"));
    }

    /** Q6: losses fail the run with confirms (or transactions) and manual acks, not otherwise. */
    @Test
    void reliableWithConfirmsOrTransactionsAndManualAcks() {
        assertTrue(s.reliable(Map.of("confirm", "100")));
        assertTrue(s.reliable(Map.of("tx_size", "1")));
        assertFalse(s.reliable(Map.of()));
        assertFalse(s.reliable(Map.of("confirm", "100", "auto_ack", "true")));
        assertEquals("AMQP confirms, acks", s.qosLabel(Scenario.FAN_IN, Map.of("confirm", "100")));
        assertEquals("AMQP transactions, acks", s.qosLabel(Scenario.FAN_IN, Map.of("tx_size", "10")));
        assertEquals("AMQP no confirms, auto-ack", s.qosLabel(Scenario.FAN_IN, Map.of("auto_ack", "true")));
    }

    @Test
    void topicPrefixesWithWildcardsOrTooLongAreRefused() {
        String msg = "must be an AMQP routing key of at most 249 bytes without '*' or '#' (wildcards in a binding), got '";
        for (String p : new String[] {"a.*", "a.#", "x".repeat(250), "é".repeat(125)}) {
            assertRefused(amqp, p, msg + p + "'");
        }
        assertRefused(amqp, "", "must not be empty");
        assertAccepted(amqp, "x".repeat(249), "msgscope.fan-in-1", "a..b", "a/b", "$SYS");
    }
}
