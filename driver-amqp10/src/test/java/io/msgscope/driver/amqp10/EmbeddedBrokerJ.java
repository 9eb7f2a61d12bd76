package io.msgscope.driver.amqp10;

import io.msgscope.core.test.BrokerJ;

import java.io.IOException;

/**
 * An Apache Qpid Broker-J speaking AMQP 1.0 in this JVM (its AMQP 1.0 protocol plugin, the Memory store), on a free
 * loopback port, with one user guest/guest (PLAIN allowed without TLS) and one virtual host "default". Nodes named
 * {@code msgscope...} are created on first use (node auto-creation policies, as queues), so a named address works as
 * well as the dynamic nodes the driver uses by default. Its logging goes nowhere. {@link #stop} stops it while
 * clients are connected (the fault tests). The broker itself is core's {@link BrokerJ}.
 */
public final class EmbeddedBrokerJ implements AutoCloseable {
    private final BrokerJ broker;

    private EmbeddedBrokerJ(BrokerJ broker) {
        this.broker = broker;
    }

    public static EmbeddedBrokerJ start() throws Exception {
        String vhost = "{\"type\": \"Memory\", \"nodeAutoCreationPolicies\": [ {"
                + "\"pattern\": \"msgscope.*\", \"createdOnPublish\": true, \"createdOnConsume\": true, "
                + "\"nodeType\": \"Queue\", \"attributes\": {} } ]}";
        return new EmbeddedBrokerJ(BrokerJ.start("msgscope-test-broker-amqp10", "msgscope-brokerj", "AMQP_1_0", vhost,
                "nameAlias", "defaultAlias", "hostnameAlias"));
    }

    public int port() {
        return broker.port();
    }

    public String uri() {
        return "amqp://guest:guest@127.0.0.1:" + port();
    }

    /** Stops the broker (its connections end); idempotent. */
    public void stop() {
        broker.stop();
    }

    @Override
    public void close() throws IOException {
        broker.close();
    }

    /** Runs a broker until the process is killed (the dist fault tests start it as a process of its own). */
    public static void main(String[] args) throws Exception {
        EmbeddedBrokerJ b = start();
        System.out.println("port " + b.port());
        System.out.flush();
        Thread.currentThread().join();
    }
}
