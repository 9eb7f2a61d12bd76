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

    private long cpuNs() {
        return helpers == null ? CpuClock.threadCpuNs() : CpuClock.threadCpuNs() + helpers.helperCpuNs();
    }

    @Override
    public void onMessage(ByteBuffer buffer, int offset, long index) {
        if (burnNs > 0) {
            // burn CPU time, not wall time: a preempted spin would add less CPU than asked
            final long until = CpuClock.threadCpuNs() + burnNs;
            while (CpuClock.threadCpuNs() < until) {
                Thread.onSpinWait();
            }
        }
        if (every > 0) {
            final long seq = WireHeader.sequence(buffer, offset);
            if (seq >= nextStamp) { // one compare per message; the division only every Nth
                if (seq % every == 0) {
                    WireHeader.writeProbe(buffer, offset, cpuNs(), System.nanoTime());
                }
                nextStamp = (seq / every + 1) * every;
            }
            if (seq == last) {
                WireHeader.writeProbe(buffer, offset, cpuNs(), System.nanoTime());
            }
        }
    }
}
