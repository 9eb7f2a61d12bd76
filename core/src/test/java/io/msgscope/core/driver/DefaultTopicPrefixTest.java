package io.msgscope.core.driver;

import org.junit.jupiter.api.Test;

import static io.msgscope.core.driver.TopicPrefixChecks.assertAccepted;
import static io.msgscope.core.driver.TopicPrefixChecks.assertRefused;

/** {@link Driver#checkTopicPrefix}'s default: only an empty prefix is refused; a driver without topics has no syntax. */
class DefaultTopicPrefixTest {
    /** A driver that overrides nothing but what it must. */
    private static final Driver PLAIN = new Driver() {
        @Override
        public String name() {
            return "plain";
        }

        @Override
        public Subscriber openSubscriber(DriverSpec spec, io.msgscope.core.driver.ClientContext context) {
            throw new UnsupportedOperationException();
        }

        @Override
        public Publisher openPublisher(DriverSpec spec, io.msgscope.core.driver.ClientContext context) {
            throw new UnsupportedOperationException();
        }
    };

    @Test
    void anEmptyPrefixIsRefused() {
        assertRefused(PLAIN, "", "must not be empty");
    }

    @Test
    void anythingElsePasses() {
        assertAccepted(PLAIN, "msgscope/fan-in", "a/#/b", "$SYS/x", "a.*", "a..b", " ");
    }
}
