package io.msgscope.driver.amqp;

import io.msgscope.core.test.BrokerJ;

import java.io.IOException;

/**
 * An Apache Qpid Broker-J (AMQP 0-9-1, Memory virtual host) in this JVM, on a free loopback port,
 * with one user guest/guest (PLAIN allowed without TLS) and one virtual host "default", which is also
 * the default one (so "/" works). Its logging goes nowhere (slf4j-nop, no broker loggers). The broker
 * itself is core's {@link BrokerJ}.
 */
public final class EmbeddedQpid implements AutoCloseable {
    final int port;
    private final BrokerJ broker;

    private EmbeddedQpid(BrokerJ broker) {
        this.port = broker.port();
        this.broker = broker;
    }

    public static EmbeddedQpid start() throws Exception {
        return new EmbeddedQpid(BrokerJ.start("msgscope-test-broker", "msgscope-qpid", "AMQP_0_9_1",
                "{\"type\": \"Memory\"}", "nameAlias", "defaultAlias"));
    }

    public String uri() {
        return "amqp://guest:guest@127.0.0.1:" + port + "/%2f";
    }

    @Override
    public void close() throws IOException {
        broker.close();
    }
}
