package io.msgscope.control;

import io.msgscope.proto.Envelope;
import io.msgscope.proto.ErrorReport;
import io.msgscope.proto.Role;
import io.msgscope.proto.Series;
import io.msgscope.proto.TraceChunk;
import com.google.protobuf.ByteString;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/** Small constructors for envelopes, and the trace chunk encoding. */
public final class Frames {
    /** Longs per trace chunk: 65,536 × 8 B = 512 KiB, well under the frame cap. */
    public static final int CHUNK_VALUES = 65_536;

    private Frames() {
    }

    public static Envelope error(Role role, String message, boolean usage) {
        return error(role, message, usage, "");
    }

    /** An error with its kind ({@link io.msgscope.core.driver.Fault.Kind} name), so results can count it by kind. */
    public static Envelope error(Role role, String message, boolean usage, String kind) {
        return Envelope.newBuilder().setError(ErrorReport.newBuilder().setRole(role)
                .setMessage(message == null ? "unknown error" : message).setUsage(usage).setKind(kind)).build();
    }

    public static Envelope chunk(Series series, long offset, long[] values, int from, int count) {
        ByteBuffer bb = ByteBuffer.allocate(count * 8).order(ByteOrder.LITTLE_ENDIAN);
        bb.asLongBuffer().put(values, from, count);
        return Envelope.newBuilder().setChunk(TraceChunk.newBuilder().setSeries(series).setOffset(offset)
                .setValueCount(count).setValuesLe(ByteString.copyFrom(bb.array()))).build();
    }

    /** Copies a chunk's values into a growing array: returns the array to keep (the same or a larger one). */
    public static long[] copyGrowing(TraceChunk chunk, long[] target, long maxValues) {
        long end = chunk.getOffset() + chunk.getValueCount();
        if (chunk.getOffset() < 0 || chunk.getValueCount() < 0 || end > maxValues) {
            throw new IllegalArgumentException("trace chunk " + chunk.getSeries() + " [" + chunk.getOffset() + ", +"
                    + chunk.getValueCount() + ") exceeds the limit of " + maxValues + " values");
        }
        if (target == null || end > target.length) {
            long[] bigger = new long[(int) Math.max(end, target == null ? 0 : Math.min(maxValues, 2L * target.length))];
            java.util.Arrays.fill(bigger, Long.MIN_VALUE);
            if (target != null) {
                System.arraycopy(target, 0, bigger, 0, target.length);
            }
            target = bigger;
        }
        copyInto(chunk, target);
        return target;
    }

    /** Copies a chunk's values into {@code target} at the chunk's offset; rejects chunks that do not fit. */
    public static void copyInto(TraceChunk chunk, long[] target) {
        long offset = chunk.getOffset();
        int n = chunk.getValueCount();
        if (offset < 0 || n < 0 || offset + n > target.length || chunk.getValuesLe().size() != n * 8) {
            throw new IllegalArgumentException("trace chunk " + chunk.getSeries() + " [" + offset + ", +" + n
                    + ") does not fit a trace of " + target.length + " messages");
        }
        chunk.getValuesLe().asReadOnlyByteBuffer().order(ByteOrder.LITTLE_ENDIAN).asLongBuffer()
                .get(target, (int) offset, n);
    }

    /** Human name of an agent role. */
    public static String name(Role role) {
        return switch (role) {
            case SENDER -> "sender";
            case RECEIVER -> "receiver";
            case RELAY -> "relay";
            case PROBE -> "probe";
            case FLOW -> "flow";
            case PUBLISHERS -> "publishers";
            case SUBSCRIBERS -> "subscribers";
            default -> "agent";
        };
    }
}
