package io.msgscope.driver.stomp;

import io.msgscope.core.driver.ClientContext;
import io.msgscope.core.driver.HandOver;
import io.msgscope.core.driver.MessageHandler;
import io.msgscope.core.driver.Subscriber;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.stomp.DefaultStompFrame;
import io.netty.handler.codec.stomp.StompCommand;
import io.netty.handler.codec.stomp.StompFrame;
import io.netty.handler.codec.stomp.StompHeaders;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * One subscriber connection: one SUBSCRIBE to its destination, confirmed by a RECEIPT before the publisher is told
 * where to send (a topic keeps nothing for a subscription that does not exist yet). Each MESSAGE is handed over on the
 * event loop first thing ({@link HandOver}, Q2), its body copied into one reused buffer, then acknowledged as the ack
 * mode says ({@link StompAcks}).
 */
final class StompSubscriber implements Subscriber {
    static final String SUBSCRIBED = "msgscope-subscribed";

    private final StompSettings settings;
    private final StompConnection connection;
    private final HandOver handOver = new HandOver();
    private final StompAcks acks;
    private final CompletableFuture<Void> subscribed = new CompletableFuture<>();
    private ByteBuffer receive;   // event loop only

    StompSubscriber(StompSettings s, int messageSize, ClientContext context) throws IOException {
        this.settings = s;
        this.acks = new StompAcks(s.ack());
        this.receive = ByteBuffer.allocate(Math.max(messageSize, 64)).order(ByteOrder.LITTLE_ENDIAN);
        this.connection = new StompConnection(s, new StompConnection.Frames() {
            @Override
            public void onMessage(ChannelHandlerContext ctx, StompFrame frame) {
                deliver(ctx, frame);
            }

            @Override
            public void onReceipt(String receiptId) {
                if (SUBSCRIBED.equals(receiptId)) {
                    subscribed.complete(null);
                }
            }

            @Override
            public void onReadComplete(ChannelHandlerContext ctx) {
                acks.readComplete(ctx);
            }

            @Override
            public void onLost() {
                subscribed.completeExceptionally(new IOException(connection.lostReason()));
                handOver.lost(connection.lostReason());
            }
        });
        connection.connect(context, messageSize);
        connection.channel().writeAndFlush(subscribeFrame(s));
        connection.await(subscribed, "the RECEIPT of its SUBSCRIBE to " + s.destination());
    }

    /** The SUBSCRIBE frame: id 0, the destination, the ack mode, RabbitMQ's queue and prefetch headers, a receipt. */
    static StompFrame subscribeFrame(StompSettings s) {
        StompFrame f = new DefaultStompFrame(StompCommand.SUBSCRIBE);
        StompHeaders h = f.headers();
        h.set(StompHeaders.ID, "0");
        h.set(StompHeaders.DESTINATION, s.destination());
        h.set(StompHeaders.ACK, s.ack());
        for (String line : s.queueHeaders().split("\n")) {
            int colon = line.indexOf(':');
            if (colon > 0) {
                h.set(line.substring(0, colon), line.substring(colon + 1));
            }
        }
        if (s.prefetch() > 0) {
            h.set("prefetch-count", Integer.toString(s.prefetch()));
        }
        h.set(StompHeaders.RECEIPT, SUBSCRIBED);
        return f;
    }

    /** Event loop: hands the body over, then acknowledges as the ack mode says. */
    private void deliver(ChannelHandlerContext ctx, StompFrame frame) {
        ByteBuf content = frame.content();
        int n = content.readableBytes();
        ByteBuffer b = receive;
        if (b.capacity() < n) {
            b = ByteBuffer.allocate(n).order(ByteOrder.LITTLE_ENDIAN);
            receive = b;
        }
        b.clear();
        content.getBytes(content.readerIndex(), b.array(), 0, n);
        b.limit(n);
        handOver.deliver(b);
        acks.delivered(ctx, frame);
    }

    @Override
    public int poll(MessageHandler handler, long timeoutMs) {
        return handOver.poll(handler, timeoutMs);
    }

    @Override
    public void start(MessageHandler handler, Consumer<String> ended) {
        handOver.start(handler, ended, connection.channel().eventLoop());
    }

    @Override
    public String destination() {
        return settings.destination();
    }

    @Override
    public Map<String, Long> counters() {
        Map<String, Long> m = new HashMap<>();
        m.put("short_payloads", handOver.shortPayloads());
        m.put("acks_sent", acks.sent());
        return Map.copyOf(m);
    }

    @Override
    public String closeReason() {
        return connection.lostReason();
    }

    @Override
    public java.net.InetAddress localAddress() {
        java.net.SocketAddress a = connection.channel().localAddress();
        return a instanceof java.net.InetSocketAddress i ? i.getAddress() : null;
    }

    @Override
    public Map<String, String> serverInfo() {
        Map<String, String> m = new HashMap<>(connection.serverInfo());
        m.put("ack", settings.ack());
        return Map.copyOf(m);
    }

    @Override
    public void close() {
        handOver.closing();
        connection.close();
    }
}
