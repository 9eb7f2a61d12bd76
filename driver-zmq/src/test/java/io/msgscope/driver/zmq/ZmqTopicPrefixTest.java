package io.msgscope.driver.zmq;

import org.junit.jupiter.api.Test;

import static io.msgscope.core.driver.TopicPrefixChecks.assertAccepted;
import static io.msgscope.core.driver.TopicPrefixChecks.assertRefused;

/** {@code scenario --topic-prefix} on ZeroMQ: the topics are PUB/SUB subscription prefixes through the proxy. */
class ZmqTopicPrefixTest {
    private final ZmqDriver zmq = new ZmqDriver();

    @Test
    void nulAndMoreThan200BytesAreRefused() {
        String tooLong = "x".repeat(201);
        String tooManyBytes = "é".repeat(101); // 202 bytes of UTF-8
        for (String t : new String[] {"a\0b", tooLong, tooManyBytes}) {
            assertRefused(zmq, t, "must be a ZeroMQ subscription prefix of at most 200 bytes without NUL, got '"
                    + t + "'");
        }
    }

    @Test
    void prefixesPass() {
        assertAccepted(zmq, "x".repeat(200), "msgscope/fan-in-1", "a.*", "a/#", "$SYS", "a..b");
    }
}
