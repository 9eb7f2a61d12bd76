package io.msgscope.driver.nats.netty;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;

import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * Reads the server side of the NATS client protocol in place (docs.nats.io, "Client Protocol"): INFO, MSG, HMSG,
 * PING, PONG, +OK and -ERR, operation names in any case, arguments separated by spaces or tabs, lines ending in
 * CRLF (a bare LF is taken too). A MSG is cut out of Netty's read buffer where it lies and its payload handed on as
 * an offset and a length: no object, string or array per message. The decoder's cumulation holds a line or a
 * payload split across reads until it is whole.
 *
 * <p>Anything malformed (an unknown operation, a MSG line without its arguments, a size that is not a number or
 * above the announced {@code max_payload}, a payload not followed by CRLF, a line longer than {@link #MAX_LINE}
 * bytes, an INFO that is not JSON) is a protocol error: the listener gets one line saying what the server sent,
 * the rest of the input is dropped and the connection closed.
 */
final class NatsFramer extends ByteToMessageDecoder {
    /** The longest protocol line taken (an INFO of a large cluster stays far below). */
    static final int MAX_LINE = 64 * 1024;
    /** The payload limit until the INFO says otherwise: nats-server's own ceiling for max_payload. */
    static final long DEFAULT_MAX_PAYLOAD = 64L << 20;

    private static final byte[] MSG = bytes("msg");
    private static final byte[] HMSG = bytes("hmsg");
    private static final byte[] PING = bytes("ping");
    private static final byte[] PONG = bytes("pong");
    private static final byte[] OK = bytes("+ok");
    private static final byte[] ERR = bytes("-err");
    private static final byte[] INFO = bytes("info");

    /** What the framer found, called on the event loop in the order of the stream. */
    interface Listener {
        void onInfo(ChannelHandlerContext ctx, NatsInfo info);

        /** One message: its payload is {@code in[at, at + length)} (headers of an HMSG skipped). */
        void onMsg(ByteBuf in, long sid, int at, int length);

        void onPing(ChannelHandlerContext ctx);

        void onPong();

        default void onOk() {
        }

        /** A {@code -ERR}, its text without the quotes, e.g. {@code Authorization Violation}. */
        void onErr(ChannelHandlerContext ctx, String message);

        /** The server broke the protocol; the framer closes the connection right after. Called at most once. */
        void onProtocolError(String why);

        /** True once the listener has ended the connection (e.g. on a -ERR): the rest of the input is dropped. */
        default boolean ended() {
            return false;
        }
    }

    private final Listener listener;
    private final int[] tokens = new int[12]; // start and end of up to 6 arguments, event loop only
    private long maxPayload = DEFAULT_MAX_PAYLOAD;
    private boolean failed;

    NatsFramer(Listener listener) {
        this.listener = listener;
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        while (in.isReadable() && !failed && !listener.ended()) {
            final int start = in.readerIndex();
            final int limit = in.writerIndex();
            final int lf = in.indexOf(start, Math.min(limit, start + MAX_LINE + 2), (byte) '\n');
            if (lf < 0) {
                if (limit - start > MAX_LINE + 1) {
                    fail(ctx, in, "sent a protocol line of more than " + MAX_LINE + " bytes without a line end");
                }
                return; // the rest of the line is on its way
            }
            int end = lf > start && in.getByte(lf - 1) == '\r' ? lf - 1 : lf;
            while (end > start && (in.getByte(end - 1) == ' ' || in.getByte(end - 1) == '\t')) {
                end--; // trailing blanks (nats-server ends its INFO line with one)
            }
            if (is(in, start, end, MSG)) {
                if (!message(ctx, in, start, end, lf, false)) {
                    return;
                }
            } else if (is(in, start, end, PING) && end - start == PING.length) {
                in.readerIndex(lf + 1);
                listener.onPing(ctx);
            } else if (is(in, start, end, PONG) && end - start == PONG.length) {
                in.readerIndex(lf + 1);
                listener.onPong();
            } else if (is(in, start, end, HMSG)) {
                if (!message(ctx, in, start, end, lf, true)) {
                    return;
                }
            } else if (is(in, start, end, OK) && end - start == OK.length) {
                in.readerIndex(lf + 1);
                listener.onOk();
            } else if (is(in, start, end, ERR)) {
                String text = in.toString(start + ERR.length, end - start - ERR.length, StandardCharsets.UTF_8).trim();
                if (text.length() >= 2 && text.startsWith("'") && text.endsWith("'")) {
                    text = text.substring(1, text.length() - 1);
                }
                in.readerIndex(lf + 1);
                listener.onErr(ctx, text);
            } else if (is(in, start, end, INFO)) {
                String json = in.toString(start + INFO.length, end - start - INFO.length, StandardCharsets.UTF_8);
                NatsInfo info;
                try {
                    info = NatsInfo.parse(json.trim());
                } catch (IllegalArgumentException e) {
                    fail(ctx, in, "sent an INFO that is not a JSON object (" + e.getMessage() + ")");
                    return;
                }
                if (info.maxPayload() > 0) {
                    maxPayload = info.maxPayload();
                }
                in.readerIndex(lf + 1);
                listener.onInfo(ctx, info);
            } else {
                fail(ctx, in, "sent an unknown protocol line '" + excerpt(in, start, end) + "'");
                return;
            }
        }
        if (failed || listener.ended()) {
            in.skipBytes(in.readableBytes());
        }
    }

    /**
     * {@code MSG <subject> <sid> [reply-to] <#bytes>} or {@code HMSG <subject> <sid> [reply-to] <#header bytes>
     * <#total bytes>}, then the payload and CRLF. False when the payload is not all here yet or the line failed.
     */
    private boolean message(ChannelHandlerContext ctx, ByteBuf in, int start, int end, int lf, boolean headers) {
        final int n = split(in, start + (headers ? HMSG.length : MSG.length), end);
        final int min = headers ? 4 : 3;
        if (n < min || n > min + 1) {
            fail(ctx, in, "sent a malformed " + (headers ? "HMSG" : "MSG") + " line '" + excerpt(in, start, end) + "'");
            return false;
        }
        final long sid = number(in, 1);
        final long total = number(in, n - 1);
        final long hdr = headers ? number(in, n - 2) : 0;
        if (sid < 0 || total < 0 || hdr < 0 || hdr > total) {
            fail(ctx, in, "sent a malformed " + (headers ? "HMSG" : "MSG") + " line '" + excerpt(in, start, end) + "'");
            return false;
        }
        if (total > maxPayload) {
            fail(ctx, in, "sent a message of " + total + " bytes, above the max_payload of " + maxPayload + " bytes");
            return false;
        }
        final int at = lf + 1;
        final int size = (int) total;
        if (in.writerIndex() - at < size + 2L) {
            return false; // wait for the rest of the payload
        }
        if (in.getByte(at + size) != '\r' || in.getByte(at + size + 1) != '\n') {
            fail(ctx, in, "sent a message whose " + size + "-byte payload is not followed by CRLF");
            return false;
        }
        in.readerIndex(at + size + 2);
        listener.onMsg(in, sid, at + (int) hdr, size - (int) hdr);
        return true;
    }

    /** The arguments of {@code in[from, end)} into {@link #tokens}; returns how many (7 = too many). */
    private int split(ByteBuf in, int from, int end) {
        int n = 0;
        int i = from;
        while (i < end) {
            byte b = in.getByte(i);
            if (b == ' ' || b == '\t') {
                i++;
                continue;
            }
            if (n == tokens.length / 2) {
                return n + 1;
            }
            tokens[2 * n] = i;
            while (i < end && (b = in.getByte(i)) != ' ' && b != '\t') {
                i++;
            }
            tokens[2 * n + 1] = i;
            n++;
        }
        return n;
    }

    /** Argument {@code k} as a non-negative decimal number, or -1 when it is not one (or has over 18 digits). */
    private long number(ByteBuf in, int k) {
        final int from = tokens[2 * k];
        final int to = tokens[2 * k + 1];
        if (to - from > 18) {
            return -1;
        }
        long v = 0;
        for (int i = from; i < to; i++) {
            int d = in.getByte(i) - '0';
            if (d < 0 || d > 9) {
                return -1;
            }
            v = v * 10 + d;
        }
        return v;
    }

    /** Whether the line {@code in[start, end)} starts with the operation {@code op} (any case) and a separator or its end. */
    private static boolean is(ByteBuf in, int start, int end, byte[] op) {
        if (end - start < op.length) {
            return false;
        }
        for (int k = 0; k < op.length; k++) {
            if ((in.getByte(start + k) | 0x20) != op[k]) {
                return false;
            }
        }
        if (end - start == op.length) {
            return true;
        }
        byte after = in.getByte(start + op.length);
        return after == ' ' || after == '\t';
    }

    /** The first 60 characters of a line, non-printable bytes as {@code \xNN}, for an error message. */
    private static String excerpt(ByteBuf in, int start, int end) {
        StringBuilder b = new StringBuilder();
        for (int i = start; i < end && i < start + 60; i++) {
            int c = in.getUnsignedByte(i);
            if (c >= 0x20 && c < 0x7f) {
                b.append((char) c);
            } else {
                b.append(String.format("\\x%02x", c));
            }
        }
        if (end - start > 60) {
            b.append("...");
        }
        return b.toString();
    }

    private void fail(ChannelHandlerContext ctx, ByteBuf in, String why) {
        failed = true;
        in.skipBytes(in.readableBytes());
        listener.onProtocolError(why);
        ctx.close();
    }
}
