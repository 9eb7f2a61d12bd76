package io.msgscope.driver.mqtt;

import org.junit.jupiter.api.Test;

import static io.msgscope.core.driver.TopicPrefixChecks.assertAccepted;
import static io.msgscope.core.driver.TopicPrefixChecks.assertRefused;

/** {@code scenario --topic-prefix} on MQTT: a topic name the client or broker would reject is bad usage, before any connection. */
class MqttTopicPrefixTest {
    private final MqttDriver mqtt = new MqttDriver();

    @Test
    void wildcardsAndNulAreRefused() {
        for (String t : new String[] {"a/#/b", "a/+/b", "#", "a\0b"}) {
            assertRefused(mqtt, t, "must be an MQTT topic name without wildcards (+, #) or NUL, got '" + t + "'");
        }
    }

    @Test
    void dollarTopicsBelongToTheBroker() {
        assertRefused(mqtt, "$SYS/x", "must not start with '$' (topics such as $SYS belong to the broker), got '$SYS/x'");
    }

    @Test
    void atMost65000BytesOfUtf8() {
        assertAccepted(mqtt, "a".repeat(65_000));
        assertRefused(mqtt, "a".repeat(65_001),
                "must be at most 65000 bytes (MQTT topics are at most 65535), got 65001 characters");
        // counted in UTF-8 bytes, reported in characters: 32,501 two-byte characters are 65,002 bytes
        assertRefused(mqtt, "é".repeat(32_501),
                "must be at most 65000 bytes (MQTT topics are at most 65535), got 32501 characters");
    }

    @Test
    void topicNamesPass() {
        assertAccepted(mqtt, "msgscope/fan-in-1", "faults/short", "a.*.b", "a b", "/a/", "a$");
    }
}
