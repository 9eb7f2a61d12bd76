package io.msgscope.agent.sender;

import io.msgscope.core.driver.Publisher;

import java.util.Arrays;
import java.util.concurrent.locks.LockSupport;

/**
 * Reads the publisher's count of confirmed measured messages ({@link Publisher#confirmedSoFar}) every
 * {@link #PERIOD_NS} on a thread of its own, in a run whose consumers pause and whose settings confirm (issue 31): the
 * broker counts what it has accepted, so its backlog is compared with confirmed − received, not sent − received. Each
 * read is stamped on the sender's monotonic clock (the trace's send times). Stopped once sending has drained.
 */
final class ConfirmSampler {
    /** 100 reads a second: at 50,000 msg/s a read trails the count by at most 500 messages. */
    static final long PERIOD_NS = 10_000_000L;

    private final Publisher publisher;
    private long[] timeNs = new long[1024];
    private long[] confirmed = new long[1024];
    private int n;
    private volatile boolean stopped;
    private Thread thread;

    ConfirmSampler(Publisher publisher) {
        this.publisher = publisher;
    }

    /** A sampler for {@code publisher}, started, or null when its settings confirm nothing. */
    static ConfirmSampler startFor(Publisher publisher) {
        if (publisher.confirmedSoFar() < 0) {
            return null;
        }
        ConfirmSampler s = new ConfirmSampler(publisher);
        Thread t = new Thread(s::run, "msgscope-confirm-sampler");
        t.setDaemon(true);
        s.thread = t;
        t.start();
        return s;
    }

    private void run() {
        long next = System.nanoTime();
        while (!stopped) {
            read();
            next += PERIOD_NS;
            long wait = next - System.nanoTime();
            if (wait > 0) {
                LockSupport.parkNanos(wait);
            }
        }
    }

    private void read() {
        long c = publisher.confirmedSoFar();
        long t = System.nanoTime();
        if (n == timeNs.length) {
            timeNs = Arrays.copyOf(timeNs, n * 2);
            confirmed = Arrays.copyOf(confirmed, n * 2);
        }
        timeNs[n] = t;
        confirmed[n] = c;
        n++;
    }

    /** Uploads the reads ({@code CONFIRM_SAMPLE_NS}, {@code CONFIRMED}) of {@code s}, stopped first; none when null. */
    static void upload(ConfirmSampler s, io.msgscope.control.TraceSink sink) throws Exception {
        stop(s); // already, unless sending failed
        if (s != null && s.n > 0) {
            sink.series(io.msgscope.proto.Series.CONFIRM_SAMPLE_NS, s.timeNs, s.n);
            sink.series(io.msgscope.proto.Series.CONFIRMED, s.confirmed, s.n);
        }
    }

    /** Stops the reads, waits for the thread and takes one last read; the samples are then final. Null: nothing. */
    static void stop(ConfirmSampler s) {
        if (s == null || s.stopped) {
            return;
        }
        s.stopNow();
    }

    private synchronized void stopNow() {
        if (stopped) {
            return;
        }
        stopped = true;
        try {
            thread.join(5_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (!thread.isAlive()) {
            read();
        }
    }

}
