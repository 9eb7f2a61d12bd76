package io.msgscope.driver.amqp;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** Declares of one key never overlap, of two keys do, and nothing is left held afterwards, even after a failure. */
class GroupDeclaresTest {
    @Test
    void declaresOfOneQueueRunOneAtATime() throws Exception {
        assertEquals(1, mostAtOnce("amqp://a q", "amqp://a q", 8));
        assertEquals(0, GroupDeclares.held());
    }

    @Test
    void declaresOfTwoQueuesMayOverlap() throws Exception {
        assertEquals(2, mostAtOnce("amqp://a q1", "amqp://a q2", 2));
        assertEquals(0, GroupDeclares.held());
    }

    @Test
    void aFailedDeclareReleasesItsKey() {
        IOException e = assertThrows(IOException.class, () -> GroupDeclares.oneAtATime("k", () -> {
            throw new IOException("refused");
        }));
        assertEquals("refused", e.getMessage());
        assertEquals(0, GroupDeclares.held());
    }

    /**
     * Runs {@code n} declares, alternately of key {@code a} and {@code b}, all started together; each waits inside
     * until every one has started or 300 ms passed. Returns how many were ever inside at the same time.
     */
    private static int mostAtOnce(String a, String b, int n) throws Exception {
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger most = new AtomicInteger();
        CountDownLatch all = new CountDownLatch(n);
        ExecutorService pool = Executors.newFixedThreadPool(n);
        try {
            List<Future<String>> done = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                String key = i % 2 == 0 ? a : b;
                done.add(pool.submit(() -> GroupDeclares.oneAtATime(key, () -> {
                    most.accumulateAndGet(inside.incrementAndGet(), Math::max);
                    all.countDown();
                    try {
                        all.await(300, TimeUnit.MILLISECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    inside.decrementAndGet();
                    return key;
                })));
            }
            for (int i = 0; i < n; i++) {
                assertEquals(i % 2 == 0 ? a : b, done.get(i).get(30, TimeUnit.SECONDS));
            }
        } finally {
            pool.shutdownNow();
        }
        return most.get();
    }
}
