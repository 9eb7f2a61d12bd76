package io.msgscope.agent.probe;

import io.msgscope.core.CpuClock;
import io.msgscope.core.WireHeader;
import io.msgscope.core.driver.MiddleBox;
import io.msgscope.proto.RunSpec;

import java.nio.ByteBuffer;

/**
 * The relay-mode probe (D4, M3): every Nth measured message (sequence k·N) and the last one get the
 * relay forwarding thread's CPU time (ns; for a driver's middle box plus its helper threads, e.g. JeroMQ's
 * I/O thread) and the relay's own monotonic timestamp written into the
 * probe slot in place, so the broker's CPU reaches the receiver inside the message and nothing else
 * travels. With {@code relay_burn_ns} (a test-only option) it also burns that much of its thread's CPU
 * time per message: a known CPU burner to check the broker CPU series against.
 */
final class CpuStampTap implements RelayTap {
    private final int every;
    private final long last;
    private final long burnNs;
    private final MiddleBox helpers;
    private long nextStamp;

    CpuStampTap(int every, long count, long burnNs) {
        this(every, count, burnNs, null);
    }

    /** @param helpers a middle box whose helper threads' CPU is added to the stamps (null: none) */
    CpuStampTap(int every, long count, long burnNs, MiddleBox helpers) {
        this.every = every;
        this.last = count - 1;
        this.burnNs = burnNs;
        this.helpers = helpers;
    }

    static RelayTap forSpec(RunSpec spec) {
        return forSpec(spec, null);
    }

    /** The standard tap; for a driver's middle box the stamps add its helper threads' CPU (its I/O thread). */
    static RelayTap forSpec(RunSpec spec, MiddleBox helpers) {
        if (spec.getCpuEvery() <= 0 && spec.getRelayBurnNs() <= 0) {
            return RelayTap.NONE;
        }
        return new CpuStampTap(spec.getCpuEvery(), spec.getCount(), spec.getRelayBurnNs(), helpers);
    }

    /**
     * Reads the CPU clock a few thousand times on the calling thread (the forwarding thread) before the run:
     * the first reads load and initialise the management beans (~280 kB of heap, once), which would
     * otherwise show up as the relay's hot-thread allocation while measuring.
     */
    void warmUp() {
        long sink = 0;
        for (int i = 0; i < 20_000; i++) {
            sink += cpuNs();
        }
        if (sink == 42) {
            System.out.print("");
        }
    }

    private long cpuNs() {
        return helpers == null ? CpuClock.threadCpuNs() : CpuClock.threadCpuNs() + helpers.helperCpuNs();
    }

    @Override
    public void onMessage(ByteBuffer buffer, int offset, long index) {
        if (burnNs > 0) {
            burn(burnNs);
        }
        if (every > 0) {
            stampIfDue(buffer, offset);
        }
    }

    /**
     * A read's whole messages at once. In a trace run they carry consecutive sequence numbers once the
     * warm-up is over (TCP loses and reorders nothing), so the two ends tell where the stamped messages are:
     * the multiples of N between them, and the last message of the run. Only those are read and written;
     * the others cost nothing. Anything else (the warm-up's falling sequences, the batch where the
     * measurement starts, a throughput probe starting over at 0) is checked message by message.
     */
    @Override
    public void onMessages(ByteBuffer buffer, int offset, int count, int size, long firstIndex) {
        if (burnNs > 0) {
            burn(burnNs * count);
        }
        if (every <= 0 || count <= 0) {
            return;
        }
        final long first = WireHeader.sequence(buffer, offset);
        final long end = WireHeader.sequence(buffer, offset + (count - 1) * size);
        if (end - first != count - 1 || !stampRun(buffer, offset, size, first, end)) {
            if (first < 0 && end < 0 && first > end) {
                return; // warm-up (sequences -1, -2, ...): never stamped
            }
            for (int i = 0, off = offset; i < count; i++, off += size) {
                stampIfDue(buffer, off);
            }
        }
    }

    /**
     * Stamps the due messages of the run of sequences {@code first..end} at {@code offset}; false (nothing
     * written) when a message is not where the arithmetic puts it, so the caller checks them one by one.
     */
    private boolean stampRun(ByteBuffer buffer, int offset, int size, long first, long end) {
        long s = first <= 0 ? 0 : (first + every - 1) / every * every;
        final boolean lastHere = last >= first && last <= end && last >= 0;
        // verify before writing anything
        for (long t = s; t <= end; t += every) {
            if (WireHeader.sequence(buffer, offset + (int) (t - first) * size) != t) {
                return false;
            }
        }
        if (lastHere && WireHeader.sequence(buffer, offset + (int) (last - first) * size) != last) {
            return false;
        }
        for (; s <= end; s += every) {
            stamp(buffer, offset + (int) (s - first) * size);
        }
        if (lastHere && last % every != 0) {
            stamp(buffer, offset + (int) (last - first) * size);
        }
        if (end >= nextStamp) {
            nextStamp = (end / every + 1) * every;
        }
        return true;
    }

    /** One message: stamped when it is the first at or past the next multiple of N, or the run's last. */
    private void stampIfDue(ByteBuffer buffer, int offset) {
        final long seq = WireHeader.sequence(buffer, offset);
        if (seq >= nextStamp) { // one compare per message; the division only every Nth
            if (seq % every == 0) {
                stamp(buffer, offset);
            }
            nextStamp = (seq / every + 1) * every;
        }
        if (seq == last && seq % every != 0) {
            stamp(buffer, offset);
        }
    }

    private void stamp(ByteBuffer buffer, int offset) {
        WireHeader.writeProbe(buffer, offset, cpuNs(), System.nanoTime());
    }

    /** Burns CPU time, not wall time: a preempted spin would add less CPU than asked. */
    private static void burn(long ns) {
        final long until = CpuClock.threadCpuNs() + ns;
        while (CpuClock.threadCpuNs() < until) {
            Thread.onSpinWait();
        }
    }
}
