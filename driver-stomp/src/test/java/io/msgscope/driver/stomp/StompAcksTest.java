package io.msgscope.driver.stomp;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.stomp.DefaultStompFrame;
import io.netty.handler.codec.stomp.StompCommand;
import io.netty.handler.codec.stomp.StompFrame;
import io.netty.handler.codec.stomp.StompHeaders;
import io.netty.handler.codec.stomp.StompSubframeAggregator;
import io.netty.handler.codec.stomp.StompSubframeDecoder;
import io.netty.handler.codec.stomp.StompSubframeEncoder;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The subscriber's ACKs per ack mode (issue 35 item 3), on an {@code EmbeddedChannel} whose reads hand MESSAGEs over
 * as the connection does: two reads, of three MESSAGEs and of one; the ACK frames that leave, read back with Netty's
 * decoder, and {@code acks_sent}.
 */
class StompAcksTest {
    private static StompFrame message(String ackId) {
        StompFrame f = new DefaultStompFrame(StompCommand.MESSAGE);
        f.headers().set(StompHeaders.ACK, ackId);
        return f;
    }

    @ParameterizedTest(name = "ack={0}")
    @CsvSource(delimiter = '|', value = {
            "auto||0",
            "client|m3 m4|2",
            "client-individual|m1 m2 m3 m4|4"})
    void eachModeAcknowledgesAsStompSays(String mode, String ackedIds, int sent) {
        StompAcks acks = new StompAcks(mode);
        EmbeddedChannel ch = new EmbeddedChannel(new StompSubframeEncoder(), new ChannelInboundHandlerAdapter() {
            @Override
            public void channelRead(ChannelHandlerContext ctx, Object msg) {
                acks.delivered(ctx, (StompFrame) msg);
            }

            @Override
            public void channelReadComplete(ChannelHandlerContext ctx) {
                acks.readComplete(ctx);
            }
        });
        ch.writeInbound(message("m1"), message("m2"), message("m3")); // one read: three MESSAGEs, then read complete
        ch.writeInbound(message("m4"));
        assertEquals(ackedIds == null ? List.of() : Arrays.asList(ackedIds.split(" ")), ackIds(ch));
        assertEquals(sent, acks.sent());
    }

    /** The ids of the ACK frames the channel wrote, decoded by Netty's STOMP decoder. */
    private static List<String> ackIds(EmbeddedChannel ch) {
        ByteBuf all = Unpooled.buffer();
        for (Object o; (o = ch.readOutbound()) != null; ) {
            ByteBuf b = (ByteBuf) o;
            all.writeBytes(b);
            b.release();
        }
        EmbeddedChannel in = new EmbeddedChannel(new StompSubframeDecoder(), new StompSubframeAggregator(1024));
        in.writeInbound(all);
        List<String> ids = new ArrayList<>();
        for (StompFrame f; (f = in.readInbound()) != null; ) {
            assertEquals(StompCommand.ACK, f.command());
            ids.add(f.headers().getAsString(StompHeaders.ID));
            f.release();
        }
        return ids;
    }
}
