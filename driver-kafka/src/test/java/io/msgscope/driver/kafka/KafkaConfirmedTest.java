package io.msgscope.driver.kafka;

import io.msgscope.core.WireHeader;
import io.msgscope.core.driver.DriverSpec;
import io.msgscope.core.driver.Publisher;
import io.msgscope.core.driver.Subscriber;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The Kafka publisher's confirmed count (issue 31 item 3), against a KRaft broker this test starts: the measured records
 * the broker acknowledged, warm-up ones apart, read from another thread while sending goes on; -1 (unknown) with
 * acks=0, whose completions say nothing about the broker.
 */
class KafkaConfirmedTest {
    private static EmbeddedKafka broker;
    private final KafkaDriver driver = new KafkaDriver();

    @BeforeAll
    static void startBroker() throws Exception {
        broker = EmbeddedKafka.start();
    }

    @AfterAll
    static void stopBroker() throws Exception {
        if (broker != null) {
            broker.close();
        }
    }

    private static DriverSpec spec(String... kv) {
        Map<String, String> o = new HashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            o.put(kv[i], kv[i + 1]);
        }
        return new DriverSpec("", 0, broker.uri(), 64, 0, o, "");
    }

    /** Sends messages {@code from .. to-1} one by one (a negative sequence is a warm-up message). */
    private void send(Publisher p, long from, long to) throws Exception {
        ByteBuffer buf = driver.allocatePayload(64);
        for (long i = from; i < to; i++) {
            WireHeader.writeSendTime(buf, 0, System.nanoTime());
            WireHeader.writeSequence(buf, 0, i);
            p.send(buf, 0, 64);
        }
    }

    @Test
    void countsTheMeasuredRecordsTheBrokerAcknowledgedAndNotTheWarmup() throws Exception {
        try (Subscriber sub = driver.openSubscriber(spec());
             Publisher pub = driver.openPublisher(spec("acks", "all").withDestination(sub.destination()))) {
            assertEquals(0, pub.confirmedSoFar(), "known before the first send: nothing confirmed yet");
            send(pub, -300, 0); // 300 warm-up messages
            pub.drain(30_000);
            assertEquals(0, pub.confirmedSoFar(), "warm-up acks are not measured ones");
            // 5,000 measured messages while another thread reads the count, as the ConfirmSampler does
            AtomicLong reads = new AtomicLong();
            AtomicLong wrong = new AtomicLong(-1);
            Thread reader = new Thread(() -> {
                long last = 0;
                while (!Thread.currentThread().isInterrupted()) {
                    long c = pub.confirmedSoFar();
                    if (c < last || c > 5_000) {
                        wrong.compareAndSet(-1, c);
                    }
                    last = c;
                    reads.incrementAndGet();
                }
            });
            reader.start();
            send(pub, 0, 5_000);
            pub.drain(30_000);
            reader.interrupt();
            reader.join();
            assertEquals(-1, wrong.get(), "a read went back or past what was sent");
            assertTrue(reads.get() > 0);
            // by hand: 5,000 measured records sent, all acknowledged after the drain; 300 warm-up ones apart
            assertEquals(5_000, pub.confirmedSoFar());
            assertEquals(5_000L, pub.counters().get("messages_acked"), "counted exactly as counters() counts");
            assertEquals(300L, pub.counters().get("warmup_acked"));
        }
    }

    @Test
    void acksZeroConfirmsNothingSoTheCountIsUnknown() throws Exception {
        try (Subscriber sub = driver.openSubscriber(spec());
             Publisher pub = driver.openPublisher(spec("acks", "0", "idempotence", "false")
                     .withDestination(sub.destination()))) {
            send(pub, 0, 100);
            pub.drain(30_000);
            assertEquals(-1, pub.confirmedSoFar(), "unknown, never 0");
        }
    }
}
