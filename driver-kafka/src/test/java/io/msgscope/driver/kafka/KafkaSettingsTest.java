package io.msgscope.driver.kafka;

import io.msgscope.core.SpecException;
import io.msgscope.core.driver.DriverSpec;
import io.msgscope.core.scenario.Scenario;
import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The URI and every option as {@code checkOptions} reads them: one line naming the option, before any agent starts. */
class KafkaSettingsTest {
    private final KafkaDriver driver = new KafkaDriver();

    private static DriverSpec spec(String uri, String... kv) {
        Map<String, String> o = new HashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            o.put(kv[i], kv[i + 1]);
        }
        return new DriverSpec("", 0, uri, 64, 0, o, "");
    }

    private SpecException refused(String uri, String... kv) {
        return assertThrows(SpecException.class, () -> driver.checkOptions(spec(uri, kv)));
    }

    @Test
    void defaultsAreTheLocalBrokerWithAcksAllAndIdempotence() {
        KafkaSettings s = KafkaSettings.of(spec(""), false);
        assertEquals("127.0.0.1:9092", s.bootstrap());
        assertEquals("all", s.acks());
        assertTrue(s.idempotence());
        assertEquals("none", s.compression());
        assertEquals(1, s.partitions());
        assertEquals(1, s.replication());
        assertTrue(s.ownTopic());
        assertTrue(s.topic().startsWith("msgscope-"), s.topic());
        assertEquals(-1, s.linger());
        assertEquals(-1, s.batchSize());
        assertFalse(s.classicGroups());
    }

    @Test
    void theUriListsBootstrapServersWithTheDefaultPort() {
        assertEquals(List.of("a:9092", "b.example:19092", "[::1]:9093"),
                KafkaSettings.servers("kafka://a,b.example:19092,[::1]:9093/"));
        assertEquals(List.of("127.0.0.1:9092"), KafkaSettings.servers("KAFKA://127.0.0.1"));
    }

    @Test
    void badUrisAreRefusedNamingUriAndMaskingThePassword() {
        SpecException e = refused("kafka://user:s3cret@127.0.0.1:9092");
        assertEquals("--uri", e.option());
        assertFalse(e.getMessage().contains("s3cret"), e.getMessage());
        assertTrue(e.getMessage().contains("PLAINTEXT"), e.getMessage());
        assertEquals("--uri", refused("amqp://127.0.0.1:9092").option());
        assertEquals("--uri", refused("kafka://").option());
        assertEquals("--uri", refused("kafka://127.0.0.1:0").option());
        assertEquals("--uri", refused("kafka://127.0.0.1:99999").option());
        assertEquals("--uri", refused("kafka://127.0.0.1:x").option());
        assertEquals("--uri", refused("kafka://a,,b").option());
        assertEquals("--uri", refused("kafka://127.0.0.1:9092/path").option());
        assertEquals("--uri", refused("kafka://[::1").option());
    }

    @Test
    void everyOptionValueIsChecked() {
        assertEquals("--opt acks", refused("", "acks", "2").option());
        assertEquals("--opt compression", refused("", "compression", "brotli").option());
        assertEquals("--opt linger_ms", refused("", "linger_ms", "-1").option());
        assertEquals("--opt batch_size", refused("", "batch_size", "lots").option());
        assertEquals("--opt partitions", refused("", "partitions", "0").option());
        assertEquals("--opt replication", refused("", "replication", "40000").option());
        assertEquals("--opt max_inflight", refused("", "max_inflight", "0").option());
        assertEquals("--opt fetch_min_bytes", refused("", "fetch_min_bytes", "0").option());
        assertEquals("--opt fetch_max_wait_ms", refused("", "fetch_max_wait_ms", "x").option());
        assertEquals("--opt group_protocol", refused("", "group_protocol", "share").option());
        assertEquals("--opt idempotence", refused("", "idempotence", "maybe").option());
        assertEquals("--opt topic", refused("", "topic", "has space").option());
        assertEquals("--opt topic", refused("", "topic", "..").option());
        assertEquals("--opt topic", refused("", "topic", "x".repeat(250)).option());
        assertEquals("--opt group", refused("", "group", "").option());
        assertEquals("--opt queue", refused("", "queue", "q").option());
    }

    @Test
    void idempotenceWithAcksOtherThanAllIsRefusedNamingBoth() {
        SpecException e = refused("", "acks", "1", "idempotence", "true");
        assertEquals("--opt idempotence", e.option());
        assertTrue(e.getMessage().contains("acks=all") && e.getMessage().contains("acks=1"), e.getMessage());
        // without idempotence given, acks 0 and 1 turn it off, as kafka-clients does
        assertFalse(KafkaSettings.of(spec("", "acks", "0"), false).idempotence());
        assertFalse(KafkaSettings.of(spec("", "acks", "all", "idempotence", "false"), false).idempotence());
        assertEquals("all", KafkaSettings.of(spec("", "acks", "-1"), false).acks());
    }

    @Test
    void thePublisherSendsToTheSubscribersTopic() {
        DriverSpec s = spec("").withDestination("msgscope-abc");
        assertEquals("msgscope-abc", KafkaSettings.of(s, true).topic());
        SpecException e = assertThrows(SpecException.class, () -> KafkaSettings.of(spec(""), true));
        assertEquals("--opt topic", e.option());
        KafkaSettings given = KafkaSettings.of(spec("", "topic", "mine"), false);
        assertEquals("mine", given.topic());
        assertFalse(given.ownTopic());
    }

    @Test
    void scenariosChooseTopicAndGroupAndRoundRobinGetsPartitions() {
        KafkaScenarios sc = KafkaScenarios.INSTANCE;
        assertEquals("--opt", assertThrows(SpecException.class,
                () -> sc.options(Scenario.FAN_OUT, Map.of("topic", "t"))).option());
        assertEquals("--opt acks", assertThrows(SpecException.class,
                () -> sc.options(Scenario.FAN_OUT, Map.of("acks", "x"))).option());
        assertEquals("16", sc.options(Scenario.ROUND_ROBIN, Map.of()).get("partitions"));
        assertEquals("4", sc.options(Scenario.ROUND_ROBIN, Map.of("partitions", "4")).get("partitions"));
        assertNull(sc.options(Scenario.FAN_IN, Map.of()).get("partitions"));
        assertTrue(sc.reliable(Map.of()));
        assertTrue(sc.reliable(Map.of("acks", "1")));
        assertFalse(sc.reliable(Map.of("acks", "0")));
        assertEquals("acks=all, idempotent", sc.qosLabel(Scenario.FAN_IN, Map.of()));
        DriverSpec sub = sc.subscriber(spec("kafka://h"), "msgscope.rr-1.0", "msgscope12");
        assertEquals("msgscope.rr-1.0", sub.options().get("topic"));
        assertEquals("msgscope12", sub.options().get("group"));
    }

    @Test
    void topicPrefixesFollowKafkasRules() {
        driver.checkTopicPrefix("bench.kafka-1_x");
        assertEquals("--topic-prefix", assertThrows(SpecException.class,
                () -> driver.checkTopicPrefix("a/b")).option());
        assertEquals("--topic-prefix", assertThrows(SpecException.class,
                () -> driver.checkTopicPrefix("x".repeat(243))).option());
    }

    @Test
    void brokerHostAndLossHint() {
        assertEquals("127.0.0.1", driver.brokerHost("", Map.of()));
        assertEquals("k1", driver.brokerHost("kafka://k1:9092,k2:9092", Map.of()));
        assertEquals("::1", driver.brokerHost("kafka://[::1]:9092", Map.of()));
        assertNull(driver.brokerHost("nats://x", Map.of()));
        assertNull(driver.lossHint(Map.of()));
        assertTrue(driver.lossHint(Map.of("acks", "0")).contains("acks=1"));
    }
}
