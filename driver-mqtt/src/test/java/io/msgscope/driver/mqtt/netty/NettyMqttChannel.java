package io.msgscope.driver.mqtt.netty;

import io.netty.channel.Channel;

/** Test only: the channel of a netty-engine publisher or subscriber. */
public final class NettyMqttChannel {
    private NettyMqttChannel() {
    }

    public static Channel of(Object side) {
        NettyMqttSession session = side instanceof NettyMqttSubscriber s ? s.session : ((NettyMqttPublisher) side).session;
        return session.channel();
    }
}
