package io.msgscope.driver.redis;

import io.msgscope.core.SpecException;
import io.msgscope.core.driver.DriverSpec;
import io.msgscope.core.scenario.Scenario;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The Redis driver's options (issue 35 item 2): defaults, and every bad value named. */
class RedisSettingsTest {
    private static DriverSpec spec(String uri, Map<String, String> opts, String destination) {
        return new DriverSpec("", 0, uri, 64, 0, opts, destination);
    }

    private static String refused(String uri, Map<String, String> opts, boolean publisher) {
        return assertThrows(SpecException.class, () -> RedisSettings.of(spec(uri, opts, ""), publisher)).getMessage();
    }

    @Test
    void defaultsAreStreamsOnTheLocalServerWithAKeyOfItsOwn() {
        RedisSettings s = RedisSettings.of(spec("", Map.of(), ""), false);
        assertTrue(s.streams());
        assertEquals("redis://127.0.0.1:6379", s.uri());
        assertTrue(s.key().startsWith(RedisSettings.KEY_PREFIX), s.key());
        assertEquals("", s.group());
        assertEquals(0, s.maxlen());
        assertEquals(100, s.count());
        assertEquals(1000, s.maxInflight());
    }

    @Test
    void thePublisherSendsToTheSubscribersDestination() {
        RedisSettings s = RedisSettings.of(spec("redis://localhost:7000", Map.of("mode", "pubsub"), "msgscope:x"), true);
        assertFalse(s.streams());
        assertEquals("msgscope:x", s.key());
        assertEquals("redis://localhost:7000", s.address());
    }

    @Test
    void optionsAreRead() {
        RedisSettings s = RedisSettings.of(spec("", Map.of("key", "k", "group", "g", "maxlen", "5000", "count", "10",
                "max_inflight", "7"), ""), false);
        assertEquals("k", s.key());
        assertEquals("g", s.group());
        assertEquals(5000, s.maxlen());
        assertEquals(10, s.count());
        assertEquals(7, s.maxInflight());
    }

    @Test
    void badValuesNameTheirOption() {
        assertTrue(refused("", Map.of("mode", "queue"), false).startsWith("--opt mode"));
        assertTrue(refused("", Map.of("colour", "red"), false).startsWith("--opt colour"));
        assertTrue(refused("", Map.of("maxlen", "-1"), false).startsWith("--opt maxlen"));
        assertTrue(refused("", Map.of("count", "0"), false).startsWith("--opt count"));
        assertTrue(refused("", Map.of("max_inflight", "x"), false).startsWith("--opt max_inflight"));
        assertTrue(refused("", Map.of("key", ""), false).startsWith("--opt key"));
        assertTrue(refused("", Map.of("group", ""), false).startsWith("--opt group"));
        assertTrue(refused("", Map.of("mode", "pubsub", "group", "g"), false).startsWith("--opt group"));
        assertTrue(refused("", Map.of("mode", "pubsub", "maxlen", "10"), false).startsWith("--opt maxlen"));
        assertTrue(refused("", Map.of("mode", "pubsub", "key", "a*"), false).startsWith("--opt key"));
        assertTrue(refused("", Map.of(), true).startsWith("--opt key"), "a publisher needs a key");
        assertTrue(refused("http://h:1", Map.of(), false).startsWith("--uri"));
        assertTrue(refused("redis://", Map.of(), false).startsWith("--uri"));
    }

    @Test
    void scenariosGiveGroupsToStreamsAndRefuseRoundRobinOnPubSub() {
        RedisScenarios sc = RedisScenarios.INSTANCE;
        assertTrue(sc.reliable(Map.of()));
        assertFalse(sc.reliable(Map.of("mode", "pubsub")));
        DriverSpec base = spec("", Map.of(), "");
        assertEquals(Map.of("key", "t", "group", "g"), sc.subscriber(base, "t", "g").options());
        assertEquals(Map.of("key", "t"), sc.subscriber(base, "t", "").options());
        assertTrue(assertThrows(SpecException.class, () -> sc.options(Scenario.ROUND_ROBIN, Map.of("mode", "pubsub")))
                .getMessage().startsWith("--opt mode"));
        assertThrows(SpecException.class, () -> sc.options(Scenario.FAN_OUT, Map.of("group", "g")));
        assertTrue(sc.defaultBase(Scenario.FAN_OUT, "abc").startsWith(RedisSettings.KEY_PREFIX));
    }
}
