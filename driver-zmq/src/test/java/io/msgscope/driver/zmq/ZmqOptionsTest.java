package io.msgscope.driver.zmq;

import io.msgscope.core.SpecException;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The ZeroMQ driver's options: defaults, and every refusal names its option in one line. */
class ZmqOptionsTest {
    private static SpecException refused(Map<String, String> options) {
        SpecException e = assertThrows(SpecException.class, () -> ZmqOptions.of(options));
        assertFalse(e.getMessage().contains("\n"), e.getMessage());
        return e;
    }

    @Test
    void defaultsAreBrokerlessPushPullWithUnlimitedHighWaterMarks() {
        ZmqOptions o = ZmqOptions.of(Map.of());
        assertFalse(o.proxy());
        assertFalse(o.pubsub());
        assertEquals(0, o.hwm());
        assertEquals("127.0.0.1", o.bind());
        assertFalse(new ZmqDriver().usesRelay(Map.of()));
        assertTrue(new ZmqDriver().usesRelay(Map.of("via", "proxy")));
    }

    @Test
    void pubSubThroughTheProxyWithATopic() {
        ZmqOptions o = ZmqOptions.of(Map.of("via", "PROXY", "pattern", "pubsub", "topic", "a.b", "hwm", "500"));
        assertTrue(o.proxy());
        assertTrue(o.pubsub());
        assertEquals("a.b", o.topic());
        assertEquals(500, o.hwm());
        assertEquals("msgscope", ZmqOptions.of(Map.of("via", "proxy", "pattern", "pubsub")).topic());
    }

    @Test
    void theTopicFrameEndsInNulSoPrefixesDoNotMatch() {
        assertArrayEquals(new byte[] {'t', '.', '1', 0}, ZmqOptions.topicFrame("t.1"));
    }

    @Test
    void badValuesAndImpossibleCombinationsNameTheOption() {
        assertEquals("--opt via", refused(Map.of("via", "broker")).option());
        assertTrue(refused(Map.of("via", "broker")).getMessage().contains("'broker'"));
        assertEquals("--opt pattern", refused(Map.of("via", "proxy", "pattern", "req-rep")).option());
        assertEquals("--opt pattern", refused(Map.of("pattern", "pubsub")).option());
        assertEquals("--opt topic", refused(Map.of("via", "proxy", "topic", "x")).option());
        assertEquals("--opt topic", refused(Map.of("via", "proxy", "pattern", "pubsub", "topic", "a\0b")).option());
        assertEquals("--opt port", refused(Map.of("via", "proxy", "port", "5555")).option());
        assertEquals("--opt bind", refused(Map.of("via", "proxy", "bind", "*")).option());
        assertEquals("--opt hwm", refused(Map.of("hwm", "lots")).option());
        SpecException unknown = refused(Map.of("qos", "1"));
        assertEquals("--opt qos", unknown.option());
        assertTrue(unknown.getMessage().contains("via"), unknown.getMessage());
    }

    /** ZeroMQ has no broker, direct or through the proxy: nothing to leave a core for (M5). */
    @Test
    void noBrokerHost() {
        assertEquals(null, new ZmqDriver().brokerHost("", Map.of()));
        assertEquals(null, new ZmqDriver().brokerHost("", Map.of("via", "proxy")));
    }
}
