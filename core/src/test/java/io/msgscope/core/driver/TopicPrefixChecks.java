package io.msgscope.core.driver;

import io.msgscope.core.SpecException;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * Assertions on {@link Driver#checkTopicPrefix}: the shared harness of the driver modules' tests of
 * {@code msgscope scenario --topic-prefix} (published in core's test jar).
 */
public final class TopicPrefixChecks {
    private TopicPrefixChecks() {
    }

    /** {@code prefix} is refused as bad usage of {@code --topic-prefix}, with exactly {@code message}. */
    public static void assertRefused(Driver driver, String prefix, String message) {
        SpecException e = assertThrows(SpecException.class, () -> driver.checkTopicPrefix(prefix),
                () -> driver.name() + " should refuse --topic-prefix '" + prefix + "'");
        assertEquals("--topic-prefix", e.option());
        assertEquals("--topic-prefix: " + message, e.getMessage());
    }

    /** Every one of {@code prefixes} passes the driver's check. */
    public static void assertAccepted(Driver driver, String... prefixes) {
        for (String p : prefixes) {
            assertDoesNotThrow(() -> driver.checkTopicPrefix(p), () -> driver.name() + " should accept '" + p + "'");
        }
    }
}
