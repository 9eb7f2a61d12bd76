package io.msgscope.driver.mqtt.netty;

import io.netty.channel.Channel;

/** Test only: the channel of a netty-engine publisher or subscriber, and whether it was lost. */
public final class NettyMqttChannel {
    private NettyMqttChannel() {
    }

    public static Channel of(Object side) {
        NettyMqttSession session = side instanceof NettyMqttSubscriber s ? s.session : ((NettyMqttPublisher) side).session;
        return session.channel();
    }

    /** Whether a netty-engine publisher's connection has been seen lost (and not yet got back). */
    public static boolean lost(Object publisher) {
        return ((NettyMqttPublisher) publisher).session.lostWhy() != null;
    }
}
