package io.msgscope.core.driver;

import io.msgscope.core.WireHeader;

import java.nio.ByteBuffer;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Sends N messages through a driver as the agents do and checks each arrived once (and in order):
 * the shared harness of the driver modules' tests (published in core's test jar).
 */
public final class RoundTrip {
    public final long[] arrivals;
    public long received;
    public long outOfOrder;
    public long duplicates;
    public long lastSeq = -1;
    public Map<String, Long> publisherCounters;
    public Map<String, Long> subscriberCounters;
    public String destination;
    public double seconds;

    private RoundTrip(int n) {
        arrivals = new long[n];
    }

    public static RoundTrip run(Driver driver, String uri, Map<String, String> opts, int n, int size) throws Exception {
        RoundTrip rt = new RoundTrip(n);
        DriverSpec spec = new DriverSpec("", 0, uri, size, 0, opts, "");
        try (Subscriber sub = driver.openSubscriber(spec)) {
            rt.destination = sub.destination();
            MessageHandler h = (buf, off) -> {
                long seq = WireHeader.sequence(buf, off);
                if (seq < 0 || seq >= n) {
                    throw new AssertionError("sequence out of range: " + seq);
                }
                if (rt.arrivals[(int) seq]++ > 0) {
                    rt.duplicates++;
                }
                if (seq != rt.lastSeq + 1) {
                    rt.outOfOrder++;
                }
                rt.lastSeq = seq;
                rt.received++;
            };
            AtomicReference<Throwable> failure = new AtomicReference<>();
            long[] polled = new long[1];
            Thread receiver = new Thread(() -> {
                try {
                    long deadline = System.nanoTime() + 60_000_000_000L;
                    while (polled[0] < n && System.nanoTime() < deadline) {
                        int k = sub.poll(h, 50);
                        if (k < 0) {
                            break;
                        }
                        polled[0] += k;
                    }
                } catch (Throwable t) {
                    failure.set(t);
                }
            }, "test-receiver");
            receiver.start();
            long t0 = System.nanoTime();
            try (Publisher pub = driver.openPublisher(spec.withDestination(rt.destination))) {
                ByteBuffer buf = driver.allocatePayload(size);
                for (int i = 0; i < n; i++) {
                    WireHeader.writeSendTime(buf, 0, System.currentTimeMillis() * 1_000_000L);
                    WireHeader.writeSequence(buf, 0, i);
                    pub.send(buf, 0, size);
                }
                pub.drain(30_000);
                rt.publisherCounters = pub.counters();
                receiver.join(60_000);
                rt.seconds = (System.nanoTime() - t0) / 1e9;
            }
            if (failure.get() != null) {
                throw new AssertionError("receiver failed", failure.get());
            }
            assertEquals(rt.received, polled[0], "poll's counts add up to the handler calls");
            rt.subscriberCounters = sub.counters();
        }
        return rt;
    }

    /** Every message exactly once; in order when asked. */
    public void assertAllOnce(int n, boolean inOrder) {
        assertEquals(n, received, "messages received");
        assertEquals(0, duplicates, "duplicates");
        for (int i = 0; i < n; i++) {
            assertEquals(1, arrivals[i], "arrivals of message " + i);
        }
        if (inOrder) {
            assertEquals(0, outOfOrder, "messages out of order");
        }
        assertTrue(subscriberCounters.getOrDefault("errors", 0L) == 0, subscriberCounters::toString);
    }

    public String rate() {
        return String.format(java.util.Locale.ROOT, "%.0f msg/s", received / seconds);
    }
}
