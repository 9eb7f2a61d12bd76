package io.msgscope.driver.artemis;

import io.msgscope.core.SpecException;
import io.msgscope.core.driver.DriverSpec;
import io.msgscope.core.scenario.Scenario;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The artemis driver's URI and options (issue 35 item 4): defaults, addresses, scenarios, and every bad value named. */
class ArtemisSettingsTest {
    private static DriverSpec spec(String uri, Map<String, String> opts, String destination) {
        return new DriverSpec("", 0, uri, 64, 0, opts, destination);
    }

    @Test
    void defaultsAreABlockingAnycastQueueOfMsgscopesNamingOnTheLocalBroker() {
        ArtemisSettings s = ArtemisSettings.of(spec("", Map.of(), ""), false);
        assertEquals("tcp://127.0.0.1:61616", s.url());
        assertFalse(s.multicast());
        assertTrue(s.address().startsWith(ArtemisSettings.NAME_PREFIX), s.address());
        assertFalse(s.durable());
        assertTrue(s.block());
        assertEquals(1_048_576, s.consumerWindow());
        assertEquals("Artemis core confirm=block, non-durable, anycast", s.label());
    }

    @Test
    void theUriGivesHostPortAndCredentialsWhichOptionsOverride() {
        ArtemisSettings s = ArtemisSettings.of(spec("tcp://bob:s3cret@broker.example:16616", Map.of(), ""), false);
        assertEquals("tcp://broker.example:16616", s.url(), "no credentials in the client's URL");
        assertEquals("bob", s.uri().user());
        assertEquals("s3cret", s.uri().password());
        ArtemisSettings o = ArtemisSettings.of(spec("tcp://bob:x@h", Map.of("username", "ann", "password", "y"), ""),
                false);
        assertEquals("ann", o.uri().user());
        assertEquals("y", o.uri().password());
        assertEquals(61616, o.uri().port());
    }

    @Test
    void thePublisherTakesTheSubscribersAddressUnlessOneIsGiven() {
        assertEquals("from-sub", ArtemisSettings.of(spec("", Map.of(), "from-sub"), true).address());
        assertEquals("mine", ArtemisSettings.of(spec("", Map.of("address", "mine"), "from-sub"), true).address());
        assertTrue(ArtemisSettings.of(spec("", Map.of(), "from-sub"), false).address()
                .startsWith(ArtemisSettings.NAME_PREFIX), "the subscriber chooses its own");
        ArtemisSettings m = ArtemisSettings.of(spec("", Map.of("routing", "MULTICAST", "durable", "true",
                "confirm", "none", "consumer_window", "-1"), ""), false);
        assertTrue(m.multicast());
        assertTrue(m.durable());
        assertFalse(m.block());
        assertEquals(-1, m.consumerWindow());
        assertEquals("Artemis core confirm=none, durable, multicast", m.label());
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(delimiter = '|', value = {
            "routing=broadcast|--opt routing|must be anycast or multicast",
            "confirm=async|--opt confirm|must be block or none",
            "durable=maybe|--opt durable|true or false",
            "consumer_window=-2|--opt consumer_window|between -1 and 2147483647",
            "consumer_window=x|--opt consumer_window|whole number",
            "address=a b|--opt address|without white space",
            "address=a.*|--opt address|wildcards",
            "address=|--opt address|without white space",
            "colour=red|--opt colour|is not an option of the artemis driver"})
    void badOptionsAreNamed(String given, String option, String says) {
        String[] p = given.split("=", 2);
        Map<String, String> o = new HashMap<>();
        o.put(p[0], p[1]);
        SpecException e = assertThrows(SpecException.class, () -> new ArtemisDriver().checkOptions(spec("", o, "")));
        assertEquals(option, e.option(), e.getMessage());
        assertTrue(e.getMessage().contains(says), e.getMessage());
    }

    @Test
    void badUrisAreNamed() {
        for (String uri : new String[] {"amqp://127.0.0.1:5672", "tcp:///nohost", "not a uri"}) {
            SpecException e = assertThrows(SpecException.class,
                    () -> ArtemisSettings.of(spec(uri, Map.of(), ""), false));
            assertEquals("--uri", e.option(), e.getMessage());
        }
    }

    @Test
    void scenariosChooseMulticastSubscriptionsOrOneSharedAnycastQueue() {
        ArtemisScenarios sc = ArtemisScenarios.INSTANCE;
        assertEquals("multicast", sc.options(Scenario.FAN_OUT, Map.of()).get("routing"));
        assertEquals("anycast", sc.options(Scenario.ROUND_ROBIN, Map.of()).get("routing"));
        DriverSpec rr = spec("", sc.options(Scenario.ROUND_ROBIN, Map.of()), "");
        ArtemisSettings sub = ArtemisSettings.of(sc.subscriber(rr, "t.1", "g"), false);
        ArtemisSettings pub = ArtemisSettings.of(sc.publisher(rr, "t.1"), true);
        assertEquals("t.1", sub.address());
        assertEquals("t.1", pub.address());
        assertFalse(sub.multicast());
        assertEquals("--opt", assertThrows(SpecException.class,
                () -> sc.options(Scenario.FAN_IN, Map.of("routing", "anycast"))).option());
        assertEquals("--opt confirm", assertThrows(SpecException.class,
                () -> sc.options(Scenario.FAN_OUT, Map.of("confirm", "x"))).option());
        assertEquals("Artemis core confirm=none, non-durable, multicast",
                sc.qosLabel(Scenario.FAN_OUT, sc.options(Scenario.FAN_OUT, Map.of("confirm", "none"))));
        assertTrue(sc.reliable(Map.of()));
        assertFalse(sc.reliable(Map.of("confirm", "none")));
    }

    @Test
    void topicPrefixesAreAddressesWithoutWildcards() {
        ArtemisDriver d = new ArtemisDriver();
        d.checkTopicPrefix("perf.run-1");
        for (String bad : new String[] {"", "a b", "a.*", "a.#"}) {
            assertEquals("--topic-prefix", assertThrows(SpecException.class, () -> d.checkTopicPrefix(bad)).option());
        }
    }

    @Test
    void cleanFindsOnlyMsgscopesNames() {
        assertEquals(List.of("msgscope-artemis-1", "msgscope-stomp-2", "msgscope.fan-out-x"),
                ArtemisClean.msgscopeNames(new Object[] {"DLQ", "msgscope-stomp-2", "msgscope.fan-out-x",
                        "ExpiryQueue", "msgscope-artemis-1", "activemq.notifications"}));
        assertEquals(List.of(), ArtemisClean.msgscopeNames(null));
    }

    /** ssl:// (issue 35 item 6): the core client's TLS parameters from tls_ca and tls_verify; tcp:// refuses them. */
    @Test
    void sslUrisTakeTheTlsOptions(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
        ArtemisSettings d = ArtemisSettings.of(spec("ssl://127.0.0.1", Map.of(), ""), false);
        assertEquals("ssl://127.0.0.1:61617", d.url());
        assertEquals("tcp://127.0.0.1:61617?sslEnabled=true&verifyHost=true", d.locatorUrl());
        assertEquals("verified (the JVM's trust store)", d.tls().label());
        ArtemisSettings any = ArtemisSettings.of(spec("ssl://h:1", Map.of("tls_verify", "false"), ""), false);
        assertEquals("tcp://h:1?sslEnabled=true&trustAll=true&verifyHost=false", any.locatorUrl());
        java.nio.file.Path ca = dir.resolve("my ca.pem");
        java.nio.file.Files.writeString(ca, "not a certificate");
        assertEquals("--opt tls_ca", assertThrows(SpecException.class,
                () -> ArtemisSettings.of(spec("ssl://h:1", Map.of("tls_ca", ca.toString()), ""), false)).option());
        assertEquals("--opt tls_ca", assertThrows(SpecException.class,
                () -> ArtemisSettings.of(spec("ssl://h:1", Map.of("tls_ca", dir.resolve("none").toString()), ""),
                        false)).option());
        assertEquals("--opt tls_verify", assertThrows(SpecException.class,
                () -> ArtemisSettings.of(spec("tcp://h:1", Map.of("tls_verify", "true"), ""), false)).option());
        assertEquals("--opt tls_ca", assertThrows(SpecException.class,
                () -> ArtemisSettings.of(spec("tcp://h:1", Map.of("tls_ca", ca.toString()), ""), false)).option());
        assertEquals("tcp://127.0.0.1:61616", ArtemisSettings.of(spec("", Map.of(), ""), false).locatorUrl());
    }
}
