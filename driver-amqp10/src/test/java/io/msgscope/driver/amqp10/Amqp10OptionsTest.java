package io.msgscope.driver.amqp10;

import io.msgscope.core.SpecException;
import io.msgscope.core.driver.DriverSpec;
import io.msgscope.core.scenario.Scenario;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The AMQP 1.0 driver's options, URI and addresses, read before anything connects (issue 19). */
class Amqp10OptionsTest {
    private final Amqp10Driver driver = new Amqp10Driver();

    private static DriverSpec spec(String uri, Map<String, String> opts) {
        return new DriverSpec("", 0, uri, 64, 0, opts, "");
    }

    @Test
    void theDefaultsAreUnsettledTransfersThroughADynamicNode() {
        Amqp10Options o = Amqp10Options.of(spec("", Map.of()));
        assertFalse(o.settled());
        assertEquals(Amqp10Options.DEFAULT_CREDIT, o.credit());
        assertEquals(Amqp10Options.DEFAULT_MAX_INFLIGHT, o.maxInflight());
        assertFalse(o.durable());
        assertTrue(o.dynamic());
        assertTrue(o.reliable());
        assertEquals("", o.sourceAddress());
    }

    @ParameterizedTest
    @CsvSource({
            "settled, maybe, --opt settled",
            "credit, 0, --opt credit",
            "credit, 1000001, --opt credit",
            "credit, lots, --opt credit",
            "max_inflight, 0, --opt max_inflight",
            "durable, 2, --opt durable",
            "idle_timeout_ms, -1, --opt idle_timeout_ms",
            "open_timeout_ms, 10, --opt open_timeout_ms",
            "tls_verify, sure, --opt tls_verify",
            "tls_ca, /etc/hostname, --opt tls_ca",
            "topic, a/b, --opt topic",
            "no_such_option, 1, --opt no_such_option",
    })
    void aBadValueNamesItsOption(String key, String value, String named) {
        SpecException e = assertThrows(SpecException.class, () -> driver.checkOptions(spec("", Map.of(key, value))));
        assertEquals(named, e.option(), e.getMessage());
        assertFalse(e.getMessage().contains("\n"));
    }

    @Test
    void combinationsThatCannotBeHonouredAreRefused() {
        assertEquals("--opt max_inflight", assertThrows(SpecException.class, () -> driver.checkOptions(
                spec("", Map.of("settled", "true", "max_inflight", "10")))).option());
        assertEquals("--opt topic", assertThrows(SpecException.class, () -> driver.checkOptions(
                spec("", Map.of("topic", "t", "address", "q")))).option());
        assertEquals("--opt shared", assertThrows(SpecException.class, () -> driver.checkOptions(
                spec("", Map.of("shared", "true", "address", "q")))).option());
        String longName = "x".repeat(256);
        assertEquals("--opt address", assertThrows(SpecException.class, () -> driver.checkOptions(
                spec("", Map.of("address", longName)))).option());
    }

    @Test
    void theUriIsReadStrictlyWithItsPasswordMasked() {
        SpecException scheme = assertThrows(SpecException.class,
                () -> driver.checkOptions(spec("mqtt://u:secret@h:1", Map.of())));
        assertEquals("--uri", scheme.option());
        assertFalse(scheme.getMessage().contains("secret"), scheme.getMessage());
        SpecException path = assertThrows(SpecException.class,
                () -> driver.checkOptions(spec("amqp://u:secret@h:1/a/b", Map.of())));
        assertEquals("--uri", path.option());
        assertFalse(path.getMessage().contains("secret"), path.getMessage());
        var u = Amqp10Connections.uri(spec("amqps://me:p%40ss@broker", Map.of()));
        assertTrue(u.tls());
        assertEquals(5671, u.port());
        assertEquals("p@ss", u.password());
        assertEquals("them", Amqp10Connections.uri(spec("amqp://me:x@h", Map.of("username", "them"))).user());
        assertEquals(5672, Amqp10Connections.uri(spec("", Map.of())).port());
        assertNull(Amqp10Connections.virtualHost(spec("amqp://h/%2f", Map.of())));
        assertEquals("vhost:test", Amqp10Connections.virtualHost(spec("amqp://h/vhost:test", Map.of())));
    }

    @Test
    void addressesFollowRabbitMqsForms() {
        assertEquals("/topic/a.b", Amqp10Options.of(spec("", Map.of("topic", "a.b"))).sourceAddress());
        assertEquals("/queue/a.b", Amqp10Options.of(spec("", Map.of("topic", "a.b", "shared", "true"))).sourceAddress());
        assertEquals("q1", Amqp10Options.of(spec("", Map.of("address", "q1"))).sourceAddress());
        assertTrue(Amqp10Driver.rabbitRunQueue().startsWith("/queue/" + RabbitQueues.PREFIX));
    }

    @Test
    void scenariosChooseTheAddressesAndRoundRobinSharesAQueue() {
        var s = driver.scenarios();
        assertEquals("--opt topic", assertThrows(SpecException.class,
                () -> s.options(Scenario.FAN_OUT, Map.of("topic", "x"))).option());
        assertEquals("--opt credit", assertThrows(SpecException.class,
                () -> s.options(Scenario.FAN_OUT, Map.of("credit", "0"))).option());
        Map<String, String> rr = s.options(Scenario.ROUND_ROBIN, Map.of());
        assertEquals("true", rr.get("shared"));
        DriverSpec sub = s.subscriber(spec("", rr), "t.1", "g");
        assertEquals("/queue/t.1", Amqp10Options.of(sub).sourceAddress());
        DriverSpec fan = s.subscriber(spec("", s.options(Scenario.FAN_OUT, Map.of())), "t.1", "");
        assertEquals("/topic/t.1", Amqp10Options.of(fan).sourceAddress());
        assertEquals("t.1", s.publisher(spec("", Map.of()), "t.1").destination());
        assertTrue(s.reliable(Map.of()));
        assertFalse(s.reliable(Map.of("settled", "true")));
        assertEquals("AMQP 1.0 unsettled, credit 1000", s.qosLabel(Scenario.FAN_OUT, Map.of()));
        assertThrows(SpecException.class, () -> driver.checkTopicPrefix("a/b"));
        assertThrows(SpecException.class, () -> driver.checkTopicPrefix("a.*"));
    }

    @Test
    void onArtemisATopicsLinksAskForItsRoutingType() {
        Map<String, String> artemis = Map.of("product", "apache-activemq-artemis");
        Amqp10Options fan = Amqp10Options.of(spec("", Map.of("topic", "t.1")));
        Amqp10Options rr = Amqp10Options.of(spec("", Map.of("topic", "t.1", "shared", "true")));
        assertEquals("topic", Amqp10Driver.routingCapability(fan, artemis));
        assertEquals("queue", Amqp10Driver.routingCapability(rr, artemis));
        assertNull(Amqp10Driver.routingCapability(Amqp10Options.of(spec("", Map.of())), artemis), "a dynamic node");
        assertNull(Amqp10Driver.routingCapability(rr, Map.of("product", "RabbitMQ")), "routes by the address's form");
        assertNull(Amqp10Driver.routingCapability(rr, Map.of()));
    }

    @Test
    void tlsTrustsAnythingUntilTlsCaOrTlsVerifyAsksForAChecksAndPlainAmqpTakesNeither(@org.junit.jupiter.api.io.TempDir
            java.nio.file.Path dir) throws Exception {
        assertNull(Amqp10Options.of(spec("", Map.of())).tls());
        assertFalse(Amqp10Options.of(spec("amqps://h", Map.of())).tls().verify(), "the earlier default kept");
        io.msgscope.core.test.TestCertificates.make(dir);
        String ca = dir.resolve("ca.pem").toString();
        assertTrue(Amqp10Options.of(spec("amqps://h", Map.of("tls_ca", ca))).tls().verify());
        assertTrue(Amqp10Options.of(spec("amqps://h", Map.of("tls_verify", "true"))).tls().verify());
        SpecException e = assertThrows(SpecException.class,
                () -> driver.checkOptions(spec("amqp://h", Map.of("tls_verify", "true"))));
        assertEquals("--opt tls_verify", e.option());
        assertTrue(e.getMessage().contains("amqps://"), e.getMessage());
        assertEquals("--opt tls_ca", assertThrows(SpecException.class, () -> driver.checkOptions(
                spec("amqps://h", Map.of("tls_ca", "/no/such.pem")))).option());
    }
}
