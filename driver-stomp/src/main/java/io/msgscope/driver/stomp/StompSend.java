package io.msgscope.driver.stomp;

import io.netty.buffer.ByteBuf;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * The per-message SEND frame, framed by hand into one buffer (no frame or header objects per message, which Netty's
 * STOMP encoder would need): the command and the headers that never change are encoded once, then per message an
 * optional {@code receipt} header with the SEND's number, the blank line, the body and the NUL that ends the frame.
 * The body's length is fixed ({@code content-length}), so the NUL bytes of msgscope's binary header are body, not
 * the end of the frame (STOMP 1.2: a body with NUL octets needs content-length).
 */
final class StompSend {
    private static final byte[] RECEIPT = "receipt:".getBytes(StandardCharsets.US_ASCII);
    /** Room for the receipt header: its name, a long's 20 characters, a newline. */
    private static final int RECEIPT_ROOM = 8 + 20 + 1;

    private final byte[] fixed;
    private final int bodySize;

    StompSend(StompSettings s, int bodySize) {
        this.bodySize = bodySize;
        this.fixed = ("SEND\ndestination:" + StompSettings.publishDestination(s.destination(), s.artemis())
                + "\ncontent-length:" + bodySize + "\n" + s.sendHeaders())
                .getBytes(StandardCharsets.UTF_8);
    }

    /** The most bytes one frame takes. */
    int maxFrameSize() {
        return fixed.length + RECEIPT_ROOM + 1 + bodySize + 1;
    }

    /**
     * Appends one SEND of {@code body[offset, offset + bodySize)} to {@code out}, with {@code receipt:ID} when
     * {@code receiptId >= 0}. {@code body}'s position and limit are left as they were.
     */
    void write(ByteBuf out, ByteBuffer body, int offset, long receiptId) {
        out.writeBytes(fixed);
        if (receiptId >= 0) {
            out.writeBytes(RECEIPT);
            writeDecimal(out, receiptId);
            out.writeByte('\n');
        }
        out.writeByte('\n');
        int pos = body.position();
        int lim = body.limit();
        body.limit(offset + bodySize).position(offset);
        out.writeBytes(body);
        body.limit(lim).position(pos);
        out.writeByte(0);
    }

    /** Writes {@code v >= 0} in decimal ASCII without allocating. */
    static void writeDecimal(ByteBuf out, long v) {
        long div = 1;
        while (v / div >= 10) {
            div *= 10;
        }
        for (; div > 0; div /= 10) {
            out.writeByte((int) ('0' + (v / div) % 10));
        }
    }
}
