package io.msgscope.driver.stomp;

import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.stomp.DefaultStompFrame;
import io.netty.handler.codec.stomp.StompCommand;
import io.netty.handler.codec.stomp.StompFrame;
import io.netty.handler.codec.stomp.StompHeaders;

/**
 * A subscriber's acknowledgements, on its event loop only, as the ack mode says: {@code auto} sends nothing;
 * {@code client-individual} one ACK per MESSAGE; {@code client} one ACK, which covers every earlier MESSAGE too, for
 * the last MESSAGE of each read. The ACKs of a read leave in one flush, when the read completes.
 */
final class StompAcks {
    private final boolean individual;
    private final boolean cumulative;
    private String lastAckId; // ack=client's latest MESSAGE not acknowledged yet
    private long sent;        // read after the run

    StompAcks(String ackMode) {
        this.individual = ackMode.equals("client-individual");
        this.cumulative = ackMode.equals("client");
    }

    /** A MESSAGE was handed over: acknowledge it now (client-individual) or at the end of the read (client). */
    void delivered(ChannelHandlerContext ctx, StompFrame message) {
        if (individual) {
            ctx.write(ack(StompConnection.header(message, StompHeaders.ACK)));
            sent++;
        } else if (cumulative) {
            lastAckId = StompConnection.header(message, StompHeaders.ACK);
        }
    }

    /** The read completed: the cumulative ACK, if any, and one flush for the read's ACKs. */
    void readComplete(ChannelHandlerContext ctx) {
        if (lastAckId != null) {
            ctx.write(ack(lastAckId));
            sent++;
            lastAckId = null;
        }
        ctx.flush();
    }

    static StompFrame ack(String id) {
        StompFrame f = new DefaultStompFrame(StompCommand.ACK);
        f.headers().set(StompHeaders.ID, id);
        return f;
    }

    /** ACK frames written so far ({@code acks_sent}). */
    long sent() {
        return sent;
    }
}
