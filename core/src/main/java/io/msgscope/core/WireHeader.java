package io.msgscope.core;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The measurement header at the start of every payload (R1, Q1, D4).
 *
 * <pre>
 * bytes  0-7   send time, u64 little-endian nanoseconds since the Unix epoch (Q1)
 * bytes  8-15  sequence number, i64 little-endian (negative = warm-up message)
 * bytes 16-23  probe slot: broker CPU ticks (written in place by the relay/probe, M3); in scenario mode,
 *              where no probe runs, the intended send time in epoch ns (Q1: latency from the schedule)
 * bytes 24-31  probe slot: broker timestamp (written in place by the relay/probe); in scenario mode the
 *              publisher's index over the run (issue 32: sequences per publisher)
 * bytes 32-    padding (zeros or random, R2)
 * </pre>
 *
 * All accessors take an absolute offset of the message start in the buffer and never
 * move the buffer's position, so one buffer can be rewritten in place message after message.
 */
public final class WireHeader {
    public static final int EPOCH_NS_OFFSET = 0;
    public static final int SEQUENCE_OFFSET = 8;
    public static final int PROBE_CPU_OFFSET = 16;
    public static final int PROBE_TIME_OFFSET = 24;
    /** Scenario mode's intended send time (epoch ns), in the probe's CPU slot, which no probe uses there. */
    public static final int INTENDED_NS_OFFSET = PROBE_CPU_OFFSET;
    /** Scenario mode's publisher index over the run (0 ..), in the probe's time slot, which no probe uses there. */
    public static final int PUBLISHER_OFFSET = PROBE_TIME_OFFSET;
    /** Smallest message that carries the whole header. */
    public static final int SIZE = 32;

    private WireHeader() {
    }

    /** Buffers carrying headers must be little-endian (Q1). */
    public static ByteBuffer allocate(int capacity) {
        return ByteBuffer.allocateDirect(capacity).order(ByteOrder.LITTLE_ENDIAN);
    }

    public static void writeSendTime(ByteBuffer buf, int msgStart, long epochNs) {
        buf.putLong(msgStart + EPOCH_NS_OFFSET, epochNs);
    }

    public static long sendTime(ByteBuffer buf, int msgStart) {
        return buf.getLong(msgStart + EPOCH_NS_OFFSET);
    }

    public static void writeSequence(ByteBuffer buf, int msgStart, long seq) {
        buf.putLong(msgStart + SEQUENCE_OFFSET, seq);
    }

    public static long sequence(ByteBuffer buf, int msgStart) {
        return buf.getLong(msgStart + SEQUENCE_OFFSET);
    }

    public static void writeIntendedTime(ByteBuffer buf, int msgStart, long epochNs) {
        buf.putLong(msgStart + INTENDED_NS_OFFSET, epochNs);
    }

    public static long intendedTime(ByteBuffer buf, int msgStart) {
        return buf.getLong(msgStart + INTENDED_NS_OFFSET);
    }

    public static void writeProbe(ByteBuffer buf, int msgStart, long cpu, long timeNs) {
        buf.putLong(msgStart + PROBE_CPU_OFFSET, cpu);
        buf.putLong(msgStart + PROBE_TIME_OFFSET, timeNs);
    }

    public static long probeCpu(ByteBuffer buf, int msgStart) {
        return buf.getLong(msgStart + PROBE_CPU_OFFSET);
    }

    public static long probeTime(ByteBuffer buf, int msgStart) {
        return buf.getLong(msgStart + PROBE_TIME_OFFSET);
    }
}
