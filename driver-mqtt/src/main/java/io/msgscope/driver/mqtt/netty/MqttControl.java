package io.msgscope.driver.mqtt.netty;

import io.msgscope.core.driver.Fault;
import io.msgscope.driver.mqtt.MqttSettings;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.mqtt.MqttConnAckMessage;
import io.netty.handler.codec.mqtt.MqttMessage;
import io.netty.handler.codec.mqtt.MqttMessageType;
import io.netty.handler.codec.mqtt.MqttReasonCodeAndPropertiesVariableHeader;
import io.netty.handler.codec.mqtt.MqttSubAckMessage;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import io.netty.util.ReferenceCountUtil;

import javax.net.ssl.SSLException;
import java.io.IOException;
import java.util.concurrent.CompletableFuture;

/**
 * The last handler of a {@link NettyMqttSession}'s pipeline: the packets Netty's codec decoded (CONNACK,
 * SUBACK, PINGRESP, DISCONNECT; anything else breaks the protocol), a failed TLS handshake, errors and the
 * end of the connection, each completing the set-up future waiting for it and recording why it ended.
 */
final class MqttControl extends ChannelInboundHandlerAdapter {
    private final NettyMqttSession session;
    private final MqttFramer framer;

    MqttControl(NettyMqttSession session, MqttFramer framer) {
        this.session = session;
        this.framer = framer;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!(msg instanceof MqttMessage m)) {
            ReferenceCountUtil.release(msg);
            return;
        }
        framer.decodedOne();
        try {
            onMessage(ctx, m);
        } finally {
            ReferenceCountUtil.release(m);
        }
    }

    private void onMessage(ChannelHandlerContext ctx, MqttMessage m) {
        if (m.decoderResult().isFailure()) {
            Throwable c = m.decoderResult().cause();
            String what = m.fixedHeader() == null ? "packet" : m.fixedHeader().messageType().name();
            session.malformed("sent a malformed " + what + ": " + MqttSettings.oneLine(c));
            return;
        }
        MqttMessageType t = m.fixedHeader().messageType();
        switch (t) {
            case CONNACK -> {
                CompletableFuture<MqttConnAckMessage> connack = session.connack();
                if (connack.isDone()) {
                    session.unexpected("sent a second CONNACK");
                    return;
                }
                session.readConnack((MqttConnAckMessage) m);
                connack.complete((MqttConnAckMessage) m);
            }
            case SUBACK -> {
                CompletableFuture<MqttSubAckMessage> f = session.suback();
                if (f == null || f.isDone()) {
                    session.unexpected("sent a SUBACK for no SUBSCRIBE");
                    return;
                }
                f.complete((MqttSubAckMessage) m);
            }
            case PINGRESP -> {
            }
            case DISCONNECT -> onDisconnect(ctx, m);
            default -> session.unexpected("sent an unexpected " + t.name() + " packet");
        }
    }

    /** The broker's DISCONNECT (MQTT 5 only): its reason code and string end the connection. */
    private void onDisconnect(ChannelHandlerContext ctx, MqttMessage m) {
        if (session.version != 5) {
            session.unexpected("sent a DISCONNECT, which an MQTT 3.1.1 server never sends");
            return;
        }
        int code = 0;
        String reason = "";
        if (m.variableHeader() instanceof MqttReasonCodeAndPropertiesVariableHeader h) {
            code = h.reasonCode() & 0xff;
            reason = MqttWire.reasonString(h.properties());
        }
        session.disconnectedBy(code, "the broker sent DISCONNECT with reason code "
                + Fault.reasonCode(code, MqttWire.reasonName(MqttWire.DISCONNECT, code)) + reason);
        ctx.close();
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
        if (evt instanceof SslHandshakeCompletionEvent e && !e.isSuccess() && session.lostWhy() == null) {
            String why = session.lost("TLS handshake failed: " + MqttSettings.oneLine(e.cause()));
            session.connack().completeExceptionally(new SSLException(why)); // the one line, not the cause's own words
        }
        super.userEventTriggered(ctx, evt);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        boolean tls = MqttSettings.hasSsl(cause);
        String line = (tls ? "TLS: " : "") + MqttSettings.oneLine(cause);
        // an IOException here is the socket's own (reset, broken pipe); codec and TLS failures are not the broker closing
        String why = cause instanceof IOException && !tls ? session.socketFailed(line) : session.lost(line);
        session.connack().completeExceptionally(new IOException(why)); // the one line, not the cause's own words
        ctx.close();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        String why = session.lost(session.closing() ? "closed by msgscope" : NettyMqttSession.BROKER_CLOSED);
        boolean silent = session.brokerClosed();
        session.connack().completeExceptionally(new IOException(silent
                ? "the broker closed the connection before its CONNACK" + session.settings.noConnackHint() : why));
        CompletableFuture<MqttSubAckMessage> f = session.suback();
        if (f != null) {
            f.completeExceptionally(new IOException(silent
                    ? "the broker closed the connection before its SUBACK" : why));
        }
        session.packets.onLost();
        super.channelInactive(ctx);
    }
}
