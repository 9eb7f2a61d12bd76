package io.msgscope.control;

import io.msgscope.proto.Envelope;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;

import java.util.function.Supplier;

/**
 * The agent's frames to the hub (on the event loop), all but heartbeats: a heartbeat answers one of ours (its
 * progress is noted here) and never reaches the hub; more than {@link ControlHub#EARLY_MAX_FRAMES} heartbeats
 * nobody asked for, before or after authentication, close the link (issue 28: 56 M of them held a run 70 s).
 */
final class AgentLinkInbound extends SimpleChannelInboundHandler<Envelope> {
    private final ControlHub hub;
    private final Supplier<AgentLink> link;

    AgentLinkInbound(ControlHub hub, Supplier<AgentLink> link) {
        this.hub = hub;
        this.link = link;
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, Envelope msg) {
        AgentLink l = link.get();
        if (msg.getBodyCase() == Envelope.BodyCase.HEARTBEAT) {
            if (l.beatsHeard < l.beatsSent) {
                l.beatsHeard++;
                l.heard(msg.getHeartbeat().getProgress());
            } else if (++l.unaskedBeats > ControlHub.EARLY_MAX_FRAMES) {
                l.fail(ControlHub.flooded(Envelope.BodyCase.HEARTBEAT));
            }
            return;
        }
        if (msg.getBodyCase() == Envelope.BodyCase.HELLO_ACK) {
            l.authenticated = true; // after the proofs, if any: the agent is the one dialled
            // the handshake is done: run-sized frames from the next one on
            ControlCodec.maxFrame(ctx.pipeline(), hub.maxFrame());
        }
        hub.deliver(l, msg);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        hub.deliver(link.get(), null);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        AgentLink l = link.get();
        if (l.closeCause == null) {
            l.closeCause = AgentLink.describeFailure(cause);
            l.tlsRefused = ControlTls.refusal(cause);
            l.malformed = cause instanceof io.netty.handler.codec.DecoderException && !AgentLink.isTls(cause);
        }
        ctx.close();
    }
}
