package io.msgscope.driver.nats;

import org.junit.jupiter.api.Test;

import static io.msgscope.core.driver.TopicPrefixChecks.assertAccepted;
import static io.msgscope.core.driver.TopicPrefixChecks.assertRefused;

/** {@code scenario --topic-prefix} on NATS: a subject the server would reject is bad usage, before any connection. */
class NatsTopicPrefixTest {
    private final NatsDriver nats = new NatsDriver();

    @Test
    void wildcardsAndWhiteSpaceAreRefused() {
        for (String t : new String[] {"a.*", "a.>", "a b", "a\tb", "a\nb"}) {
            assertRefused(nats, t, "must be a NATS subject without wildcards (*, >) or white space, got '" + t + "'");
        }
    }

    @Test
    void emptyTokensAreRefused() {
        for (String t : new String[] {"a..b", ".a", "a."}) {
            assertRefused(nats, t, "must be a NATS subject without empty tokens (leading, trailing or double '.'), "
                    + "got '" + t + "'");
        }
    }

    @Test
    void subjectsPass() {
        assertAccepted(nats, "msgscope.fan-in-1", "a", "a/b/#", "$JS.x", "a+b");
    }
}
