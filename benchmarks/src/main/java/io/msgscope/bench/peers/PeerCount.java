package io.msgscope.bench.peers;

import java.util.Locale;

/**
 * The receiving side shared by the plain peer loops (issue 5's peer comparison): byte 0 of every
 * payload says warm-up (1) or measured (0); measured arrivals are counted with the first and last
 * arrival time, so the receive rate is (n − 1) / (last − first) — the definition msgscope's
 * {@code summary.json} uses for {@code receive_msg_s}. One delivery thread writes; others read
 * {@link #measured()} and {@link #lastArrivalNs()}.
 */
final class PeerCount {
    private volatile long warmup;
    private volatile long measured;
    private volatile long firstNs;
    private volatile long lastNs;

    /** Delivery thread: one message arrived. */
    void arrived(byte marker) {
        final long t = System.nanoTime();
        if (marker != 0) {
            warmup = warmup + 1;
        } else {
            if (measured == 0) {
                firstNs = t;
            }
            measured = measured + 1;
        }
        lastNs = t;
    }

    long warmup() {
        return warmup;
    }

    long measured() {
        return measured;
    }

    long lastArrivalNs() {
        return lastNs;
    }

    /**
     * Waits until {@code target} messages of the kind arrived, or nothing arrived for {@code quietMs}
     * after the sender finished (the rest count as lost).
     */
    void await(boolean ofWarmup, long target, long quietMs) throws InterruptedException {
        long seen = -1;
        long quietSince = System.nanoTime();
        while ((ofWarmup ? warmup : measured) < target) {
            long n = ofWarmup ? warmup : measured;
            long now = System.nanoTime();
            if (n != seen) {
                seen = n;
                quietSince = now;
            } else if (now - quietSince > quietMs * 1_000_000L) {
                return;
            }
            Thread.sleep(1);
        }
    }

    /**
     * One line of key=value pairs the peer script parses: the receive rate over the arrivals, and the
     * delivered rate, received / (last arrival − first send at {@code sendStartNs}).
     */
    String report(long sent, long sendStartNs, long sendNs) {
        long n = measured;
        double recv = n > 1 ? (n - 1) * 1e9 / (lastNs - firstNs) : Double.NaN;
        double delivered = n > 0 ? n * 1e9 / (lastNs - sendStartNs) : Double.NaN;
        return String.format(Locale.ROOT,
                "sent=%d received=%d lost=%d send_msg_s=%.0f receive_msg_s=%.0f delivered_msg_s=%.0f",
                sent, n, sent - n, sent * 1e9 / sendNs, recv, delivered);
    }

    /** count, warm-up and size from {@code args[from..]}, defaults 200000, 50000, 64. */
    static long[] sizes(String[] args, int from) {
        long count = args.length > from ? Long.parseLong(args[from]) : 200_000;
        long warmup = args.length > from + 1 ? Long.parseLong(args[from + 1]) : 50_000;
        long size = args.length > from + 2 ? Long.parseLong(args[from + 2]) : 64;
        if (count < 2 || warmup < 0 || size < 1) {
            throw new IllegalArgumentException("count must be >= 2, warm-up >= 0 and size >= 1");
        }
        return new long[] {count, warmup, size};
    }
}
