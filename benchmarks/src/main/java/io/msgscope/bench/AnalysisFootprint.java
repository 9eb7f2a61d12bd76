package io.msgscope.bench;

import com.sun.management.GarbageCollectionNotificationInfo;
import io.msgscope.analysis.AnalysisResult;
import io.msgscope.analysis.Trace;
import io.msgscope.analysis.TraceAnalysis;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.management.MemoryUsage;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;
import javax.management.NotificationEmitter;
import javax.management.NotificationListener;
import javax.management.openmbean.CompositeData;

/**
 * Proof of the analysis budget: builds a synthetic trace (default 10,000,000 messages), analyses
 * it once and prints the time and the heap per message, input arrays included. Run it with
 * {@code java -Xmx480m} (48 B × 10M): finishing at all proves the peak fits.
 *
 * <p>Usage: {@code AnalysisFootprint [count] [window]}.
 */
public final class AnalysisFootprint {

    private AnalysisFootprint() {
    }

    /**
     * A deterministic synthetic run of {@code count} messages: sends about every µs with jitter,
     * receives through a single-server queue (so latency drifts and peaks like a real one), one
     * message in 100,000 lost and one in 10,000 delayed by 2 ms.
     */
    public static Trace syntheticTrace(int count, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        long[] send = new long[count];
        long[] recv = new long[count];
        long t = 1_000_000_000L;
        long serverFree = 0;
        for (int i = 0; i < count; i++) {
            t += 800 + random.nextInt(400);
            send[i] = t;
            long arrival = t + 15_000 + random.nextInt(3_000);
            long done = Math.max(arrival, serverFree) + 700 + random.nextInt(400);
            serverFree = done;
            long r = done;
            if (random.nextInt(10_000) == 0) {
                r += 2_000_000;
            }
            recv[i] = random.nextInt(100_000) == 0 ? Trace.ABSENT : r;
        }
        return new Trace(count, send, null, recv);
    }

    public static void main(String[] args) throws Exception {
        int count = args.length > 0 ? Integer.parseInt(args[0].replace("_", "")) : 10_000_000;
        int window = args.length > 1 ? Integer.parseInt(args[1]) : TraceAnalysis.DEFAULT_WINDOW;

        AtomicLong peakAtGc = new AtomicLong();
        installGcListener(peakAtGc);

        Trace trace = syntheticTrace(count, 42L);
        MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
        System.gc();
        long base = memory.getHeapMemoryUsage().getUsed();
        for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
            if (pool.getType() == MemoryType.HEAP) {
                pool.resetPeakUsage();
            }
        }
        peakAtGc.set(0);

        long start = System.nanoTime();
        AnalysisResult result = TraceAnalysis.analyse(trace, window);
        double seconds = (System.nanoTime() - start) / 1e9;

        long poolPeaks = 0;
        for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
            if (pool.getType() == MemoryType.HEAP) {
                poolPeaks += pool.getPeakUsage().getUsed();
            }
        }
        System.gc();
        long retained = memory.getHeapMemoryUsage().getUsed();
        long peak = Math.max(poolPeaks, peakAtGc.get());
        long maxHeap = Runtime.getRuntime().maxMemory();

        System.out.println(result);
        System.out.printf(Locale.ROOT, "heap before analyse (trace only): %,d bytes = %.2f bytes/message%n",
                base, (double) base / count);
        System.out.printf(Locale.ROOT, "heap after analyse (trace + result): %,d bytes = %.2f bytes/message%n",
                retained, (double) retained / count);
        System.out.printf(Locale.ROOT, "peak heap during analyse (sum of pool peaks, upper bound): %,d bytes%n", poolPeaks);
        System.out.printf(Locale.ROOT, "max heap (-Xmx): %,d bytes = %.2f bytes/message%n",
                maxHeap, (double) maxHeap / count);
        System.out.printf(Locale.ROOT, "analysis of %,d messages: %.2f s, %.2f bytes/message of heap%n",
                count, seconds, (double) peak / count);
        if (result.count() != count) {
            throw new AssertionError("result count " + result.count());
        }
    }

    /** Records the largest heap occupancy seen just before any collection. */
    private static void installGcListener(AtomicLong peak) {
        NotificationListener listener = (notification, handback) -> {
            if (!GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION.equals(notification.getType())) {
                return;
            }
            GarbageCollectionNotificationInfo info =
                    GarbageCollectionNotificationInfo.from((CompositeData) notification.getUserData());
            long used = 0;
            for (Map.Entry<String, MemoryUsage> e : info.getGcInfo().getMemoryUsageBeforeGc().entrySet()) {
                used += e.getValue().getUsed();
            }
            peak.accumulateAndGet(used, Math::max);
        };
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            if (gc instanceof NotificationEmitter emitter) {
                emitter.addNotificationListener(listener, null, null);
            }
        }
    }
}
