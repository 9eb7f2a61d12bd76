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

    /** The most characters of a peer's text (an ERROR frame's message) that are kept (issue 28). */
    public static final int PEER_TEXT_MAX = 300;

    /**
     * A peer's text made safe to print and to store (issue 28): control characters (terminal escapes, line breaks)
     * and invisible format characters (bidirectional overrides) become '?', and only the first {@link #PEER_TEXT_MAX}
     * characters are kept, saying how many more there were.
     */
    public static String peerText(String text) {
        int n = Math.min(text.length(), PEER_TEXT_MAX);
        StringBuilder b = new StringBuilder(n + 32);
        for (int i = 0; i < n; i++) {
            char c = text.charAt(i);
            boolean hidden = Character.isISOControl(c) || Character.getType(c) == Character.FORMAT
                    || Character.isSurrogate(c);
            b.append(hidden ? '?' : c);
        }
        if (text.length() > n) {
            b.append("... (").append(text.length() - n).append(" more characters)");
        }
        return b.toString();
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
