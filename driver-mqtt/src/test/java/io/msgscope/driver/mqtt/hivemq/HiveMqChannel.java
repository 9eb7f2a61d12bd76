package io.msgscope.driver.mqtt.hivemq;

import io.netty.channel.Channel;

/** Test only: the Netty channel the HiveMQ client opened for a publisher or subscriber (its internal API). */
public final class HiveMqChannel {
    private HiveMqChannel() {
    }

    public static Channel of(Object side) throws ReflectiveOperationException {
        java.lang.reflect.Field f = side.getClass().getDeclaredField("conn");
        f.setAccessible(true);
        HiveMqConnection c = (HiveMqConnection) f.get(side);
        Object cfg = (c.v5 != null ? c.v5.getConfig() : c.v3.getConfig()).getConnectionConfig().orElseThrow();
        return (Channel) cfg.getClass().getMethod("getChannel").invoke(cfg);
    }
}
