package io.msgscope.control;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.AttributeKey;

/**
 * Which connection waiting to authenticate an agent pushes out for a new one (issue 28: the oldest was pushed out
 * even in the middle of a coordinator's handshake, and a churn of idle sockets locked every coordinator out).
 */
final class CandidateProgress {
    /** When a candidate last sent something; none yet: it has been idle since it connected. */
    private static final AttributeKey<Long> LAST_READ = AttributeKey.valueOf("lastRead");

    private CandidateProgress() {
    }

    /** The first handler of a candidate's pipeline: it notes each read (a peer going through its handshake). */
    static final class Marker extends ChannelInboundHandlerAdapter {
        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ctx.channel().attr(LAST_READ).set(System.nanoTime());
            ctx.fireChannelRead(msg);
        }
    }

    /**
     * The candidate to push out: the oldest that never sent a byte, else the one whose last byte is the oldest, so a
     * crowd of idle sockets never pushes out a coordinator going through its handshake.
     *
     * @param candidates oldest first
     */
    static Channel stalest(Iterable<Channel> candidates) {
        Channel pick = null;
        long pickRead = Long.MAX_VALUE;
        for (Channel c : candidates) {
            Long read = c.attr(LAST_READ).get();
            long r = read == null ? Long.MIN_VALUE : read;
            if (pick == null || r < pickRead) {
                pick = c;
                pickRead = r;
            }
        }
        return pick;
    }
}
