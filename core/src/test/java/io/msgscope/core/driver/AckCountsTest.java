package io.msgscope.core.driver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;

class AckCountsTest {

    @Test
    void nothingCountedIsZerosAndNoError() {
        AckCounts c = new AckCounts();
        assertEquals(Map.of("messages_acked", 0L, "warmup_acked", 0L, "publish_errors", 0L, "publish_refused", 0L),
                c.counters(true, true));
        assertEquals(0, c.totalAcked());
        assertNull(c.firstError());
    }

    @Test
    void countsByHand() {
        AckCounts c = new AckCounts();
        c.acked(false);
        c.acked(false);
        c.acked(false);
        c.acked(true);
        c.acked(true);
        c.error("first");
        c.refused("second");
        c.error(null);
        c.refused("third");
        // 3 measured, 2 warm-up acks; 4 failures, 2 of them refusals
        assertEquals(Map.of("messages_acked", 3L, "warmup_acked", 2L, "publish_errors", 4L, "publish_refused", 2L),
                c.counters(true, true));
        assertEquals(5, c.totalAcked());
        assertEquals("first", c.firstError());
    }

    @Test
    void theKeySetIsThePublishersOwn() {
        AckCounts c = new AckCounts();
        c.acked(false);
        c.error("x");
        // JetStream: acks, no refusals
        assertEquals(Map.of("messages_acked", 1L, "warmup_acked", 0L, "publish_errors", 1L), c.counters(true, false));
        // core NATS: no acks, only errors
        assertEquals(Map.of("publish_errors", 1L), c.counters(false, false));
        assertThrows(UnsupportedOperationException.class, () -> c.counters(true, true).put("x", 1L));
    }

    @Test
    void aNullMessageCountsButIsNotKept() {
        AckCounts c = new AckCounts();
        c.error(null);
        assertNull(c.firstError());
        c.refused("refused: reason code 135");
        c.error("later");
        assertEquals("refused: reason code 135", c.firstError());
        assertEquals(Map.of("publish_errors", 3L, "publish_refused", 1L), c.counters(false, true));
    }

    @Test
    void manyThreadsLoseNothingAndKeepOneOfTheirMessages() throws Exception {
        AckCounts c = new AckCounts();
        int threads = 4;
        int each = 100_000;
        CountDownLatch go = new CountDownLatch(1);
        List<Thread> ts = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            String name = "thread " + t;
            Thread th = new Thread(() -> {
                try {
                    go.await();
                } catch (InterruptedException e) {
                    return;
                }
                for (int i = 0; i < each; i++) {
                    c.acked(i % 4 == 0);
                    if (i % 10 == 0) {
                        c.error(name);
                    }
                    if (i % 100 == 0) {
                        c.refused(name);
                    }
                }
            });
            th.start();
            ts.add(th);
        }
        go.countDown();
        for (Thread th : ts) {
            th.join();
        }
        // per thread: 25,000 warm-up acks (i % 4 == 0), 75,000 measured; 10,000 errors + 1,000 refusals
        assertEquals(Map.of("messages_acked", 300_000L, "warmup_acked", 100_000L, "publish_errors", 44_000L,
                "publish_refused", 4_000L), c.counters(true, true));
        assertEquals(400_000, c.totalAcked());
        assertTrue(c.firstError().startsWith("thread "), c.firstError());
    }
}
