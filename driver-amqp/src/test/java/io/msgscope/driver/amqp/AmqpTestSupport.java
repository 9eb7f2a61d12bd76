package io.msgscope.driver.amqp;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import io.msgscope.core.WireHeader;
import io.msgscope.core.driver.DriverSpec;
import io.msgscope.core.driver.MessageHandler;
import io.msgscope.core.driver.Publisher;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/** What the AMQP integration tests share: specs, a recording handler, sending, broker-side look-ups. */
final class AmqpTestSupport {
    static final int SIZE = 64;

    private AmqpTestSupport() {
    }

    /** The shared-thread tests' spec: amqp-client's NIO mode unless the options say {@code io} (scenarios' default). */
    static DriverSpec spec(String uri, Map<String, String> opts) {
        Map<String, String> o = new java.util.HashMap<>(opts);
        o.putIfAbsent(AmqpOptions.IO, "nio");
        return new DriverSpec("", 0, uri, SIZE, 0, o, "");
    }

    /** Records every sequence delivered, the threads it ran on, and counts down a latch per message. */
    static final class Recording implements MessageHandler {
        final List<Long> sequences = new ArrayList<>();
        final java.util.Set<String> threads = new java.util.HashSet<>();
        final CountDownLatch latch;

        Recording(int expected) {
            latch = new CountDownLatch(expected);
        }

        @Override
        public synchronized void onMessage(ByteBuffer buffer, int offset) {
            sequences.add(WireHeader.sequence(buffer, offset));
            threads.add(Thread.currentThread().getName());
            latch.countDown();
        }

        synchronized List<Long> sequences() {
            return new ArrayList<>(sequences);
        }

        synchronized java.util.Set<String> threads() {
            return new java.util.HashSet<>(threads);
        }

        void await(long seconds) throws InterruptedException {
            if (!latch.await(seconds, TimeUnit.SECONDS)) {
                fail("only " + sequences().size() + " messages arrived, " + latch.getCount() + " missing");
            }
        }
    }

    /** Sends sequences [first, first + n) one by one. */
    static void send(Publisher pub, long first, int n) throws IOException {
        ByteBuffer b = new AmqpDriver().allocatePayload(SIZE);
        for (long i = first; i < first + n; i++) {
            WireHeader.writeSequence(b, 0, i);
            pub.send(b, 0, SIZE);
        }
    }

    /** Waits up to {@code seconds} for {@code condition}, checking every 10 ms; fails with {@code what}. */
    static void await(BooleanSupplier condition, long seconds, String what) throws InterruptedException {
        io.msgscope.core.test.Await.until(condition, seconds, what);
    }

    /** True when the broker at {@code uri} no longer has queue (or, {@code exchange} true, exchange) {@code name}. */
    static boolean gone(String uri, String name, boolean exchange) {
        try {
            ConnectionFactory f = new ConnectionFactory();
            f.setUri(uri);
            try (Connection c = f.newConnection()) {
                Channel ch = c.createChannel();
                try {
                    if (exchange) {
                        ch.exchangeDeclarePassive(name);
                    } else {
                        ch.queueDeclarePassive(name);
                    }
                    return false;
                } catch (IOException e) {
                    com.rabbitmq.client.ShutdownSignalException s = AmqpConnections.shutdownCause(e);
                    assertTrue(s != null && AmqpConnections.replyCode(s) == 404, () -> "unexpected: " + e);
                    return true;
                }
            }
        } catch (Exception e) {
            throw new AssertionError("cannot ask the broker about '" + name + "': " + e, e);
        }
    }

    static void assertOneLine(String m) {
        assertTrue(m != null && !m.contains("\n") && !m.contains("\r") && m.length() < 400
                && !m.contains("Exception"), () -> "not one clear line: " + m);
    }
}
