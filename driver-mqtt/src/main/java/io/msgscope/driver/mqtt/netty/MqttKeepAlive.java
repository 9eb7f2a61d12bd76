package io.msgscope.driver.mqtt.netty;

import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.mqtt.MqttMessage;
import io.netty.util.concurrent.ScheduledFuture;

import java.util.concurrent.TimeUnit;

/**
 * MQTT keep-alive (§3.1.2.10): a control packet at least every {@code keep_alive} seconds, PINGREQ when
 * nothing else went out. Not Netty's IdleStateHandler: to see writes complete it turns every void promise
 * into a real one with a listener, an allocation per write on the per-message path. Here every write only
 * sets a flag, and a check every half interval sends PINGREQ when the flag stayed down, so no two packets
 * are more than one interval apart. Sits after Netty's MQTT encoder, so its PINGREQ is encoded and every
 * write passes it.
 */
final class MqttKeepAlive extends ChannelDuplexHandler implements Runnable {
    private long periodNanos;
    private boolean wrote; // event loop only
    private ChannelHandlerContext ctx;
    private ScheduledFuture<?> next;

    MqttKeepAlive(int seconds) {
        this.periodNanos = TimeUnit.SECONDS.toNanos(seconds) / 2;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
        schedule();
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        wrote = true;
        ctx.write(msg, promise);
    }

    /** Event loop: the broker's Server Keep Alive replaces ours (MQTT 5 §3.2.2.3.14); 0 turns it off. */
    void change(int seconds) {
        periodNanos = TimeUnit.SECONDS.toNanos(seconds) / 2;
        if (next != null) {
            next.cancel(false);
            next = null;
        }
        schedule();
    }

    private void schedule() {
        if (periodNanos > 0 && ctx != null) {
            next = ctx.executor().schedule(this, periodNanos, TimeUnit.NANOSECONDS);
        }
    }

    @Override
    public void run() {
        if (!ctx.channel().isOpen()) {
            return;
        }
        boolean ping = !wrote && ctx.channel().isActive();
        wrote = ping; // the PINGREQ counts as this half interval's write
        if (ping) {
            ctx.writeAndFlush(MqttMessage.PINGREQ, ctx.voidPromise());
        }
        schedule();
    }
}
