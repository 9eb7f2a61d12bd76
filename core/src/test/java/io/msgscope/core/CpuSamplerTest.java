package io.msgscope.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Issue 27: a push driver samples on its delivery thread and takes the final sample on msgscope's receiver
 * thread; every sample of the series must still read one thread's CPU counter.
 */
class CpuSamplerTest {
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    @Test
    void theFinalSampleOnAnotherThreadReadsTheOwnersCounter() throws Exception {
        CpuSampler cpu = new CpuSampler(20, 10); // slots 0, 1 and the final one, 2
        CountDownLatch sampled = new CountDownLatch(1);
        CountDownLatch finished = new CountDownLatch(1);
        AtomicReference<Throwable> failed = new AtomicReference<>();
        Thread delivery = new Thread(() -> {
            try {
                cpu.sample(0);
                burn(THREADS.getCurrentThreadCpuTime() + 20_000_000L);
                cpu.sample(1);
                sampled.countDown();
                finished.await(); // alive and idle, as a client library's delivery thread after the last message
            } catch (Throwable t) {
                failed.set(t);
                sampled.countDown();
            }
        }, "delivery");
        delivery.start();
        sampled.await();
        // this thread (the receiver's) has used far more CPU than the delivery thread: mixing them shows
        long deliveryCpu = THREADS.getThreadCpuTime(delivery.getId());
        burn(deliveryCpu + 200_000_000L);
        cpu.sample(cpu.finalSlot());
        long deliveryAfter = THREADS.getThreadCpuTime(delivery.getId());
        finished.countDown();
        delivery.join();
        assertEquals(null, failed.get());

        long[] u = cpu.threadCpuNs();
        assertTrue(u[1] - u[0] >= 20_000_000L, "the delivery thread's 20 ms between its samples");
        assertTrue(u[2] >= u[1] && u[2] <= deliveryAfter,
                "the final sample is the delivery thread's counter (" + u[1] + " .. " + deliveryAfter
                        + "), not the receiver thread's: " + u[2]);
        assertEquals(3, cpu.samples());
    }

    @Test
    void aSampleOfAnEndedOwnerIsMissingNotAnotherThreadsCounter() throws Exception {
        CpuSampler cpu = new CpuSampler(10, 10);
        Thread delivery = new Thread(() -> cpu.sample(0), "delivery");
        delivery.start();
        delivery.join();
        cpu.sample(cpu.finalSlot());
        assertEquals(CpuSampler.ABSENT, cpu.threadCpuNs()[cpu.finalSlot()]);
    }

    private static void burn(long untilThreadCpuNs) {
        long x = 1;
        while (THREADS.getCurrentThreadCpuTime() < untilThreadCpuNs) {
            for (int i = 0; i < 10_000; i++) {
                x = x * 6364136223846793005L + 1442695040888963407L;
            }
        }
        if (x == 42) {
            System.out.print("");
        }
    }

    @Test
    void aRunThatTurnsOutShorterEndsItsSeriesAtItsOwnCount() {
        CpuSampler cpu = new CpuSampler(1_000, 100); // slots 0-9 and the final one, 10
        assertEquals(11, cpu.slots());
        cpu.sample(0);
        cpu.sample(1);
        cpu.sample(2);
        cpu.endAt(250); // the run held 250: windows 0, 1, 2 and the final sample in slot 3
        assertEquals(4, cpu.slots());
        assertEquals(3, cpu.finalSlot());
        cpu.sample(cpu.finalSlot());
        assertTrue(cpu.sampleNs()[3] != CpuSampler.ABSENT);
        assertTrue(cpu.processCpuNs()[3] != CpuSampler.ABSENT, "the final sample always reads the process's CPU");
        cpu.endAt(5_000);
        assertEquals(11, cpu.slots(), "never more than it was sized for");
    }
}
