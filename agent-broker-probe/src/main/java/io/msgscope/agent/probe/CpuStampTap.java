package io.msgscope.agent.probe;

import io.msgscope.core.CpuClock;
import io.msgscope.core.WireHeader;
import io.msgscope.proto.RunSpec;

import java.nio.ByteBuffer;

/**
 * The relay-mode probe (D4, M3): every Nth measured message (sequence k·N) and the last one get the
 * relay forwarding thread's CPU time (ns) and the relay's own monotonic timestamp written into the
 * probe slot in place, so the broker's CPU reaches the receiver inside the message and nothing else
 * travels. With {@code relay_burn_ns} (a test-only option) it also burns that much of its thread's CPU
 * time per message: a known CPU burner to check the broker CPU series against.
 */
final class CpuStampTap implements RelayTap {
    private final int every;
    private final long last;
    private final long burnNs;
    private long nextStamp;

    CpuStampTap(int every, long count, long burnNs) {
        this.every = every;
        this.last = count - 1;
        this.burnNs = burnNs;
    }

    static RelayTap forSpec(RunSpec spec) {
        if (spec.getCpuEvery() <= 0 && spec.getRelayBurnNs() <= 0) {
            return RelayTap.NONE;
        }
        return new CpuStampTap(spec.getCpuEvery(), spec.getCount(), spec.getRelayBurnNs());
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
                    WireHeader.writeProbe(buffer, offset, CpuClock.threadCpuNs(), System.nanoTime());
                }
                nextStamp = (seq / every + 1) * every;
            }
            if (seq == last) {
                WireHeader.writeProbe(buffer, offset, CpuClock.threadCpuNs(), System.nanoTime());
            }
        }
    }
}
