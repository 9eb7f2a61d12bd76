package io.msgscope.driver.amqp;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.ShutdownSignalException;
import io.msgscope.core.driver.Driver;
import io.msgscope.core.driver.DriverSpec;
import io.msgscope.core.driver.Publisher;
import io.msgscope.core.driver.Subscriber;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ThreadPoolExecutor;

/**
 * AMQP 0-9-1 (RabbitMQ, Qpid Broker-J and other AMQP brokers) with amqp-client, set up exactly as
 * seed 000 describes (A1-A4): the subscriber and the publisher each open their own connection with
 * one channel; the subscriber declares a server-named, auto-delete, non-durable queue with only the
 * default binding and consumes it with basic.consume; the publisher basic.publishes to the default
 * exchange with the queue name as routing key; the payload is the 32-byte measurement header padded
 * to {@code --size}; the basic properties are all unset except the delivery mode.
 *
 * <p>Address: {@code --uri amqp://user:password@host:port/vhost} (vhost "/" is written {@code %2f}),
 * default {@value AmqpConnections#DEFAULT_URI}; {@code amqps://} for TLS, which trusts any certificate
 * unless {@code --opt tls_verify=true}. Options: see {@link AmqpOptions}.
 */
public final class AmqpDriver implements Driver {
    @Override
    public String name() {
        return "amqp";
    }

    @Override
    public Set<String> optionKeys() {
        return AmqpOptions.KEYS;
    }

    /** Every option and combination as {@link AmqpOptions#of} reads them (A4), and the URI. */
    @Override
    public void checkOptions(DriverSpec spec) {
        AmqpConnections.factory(spec, AmqpOptions.of(spec));
    }

    /** Heap and little-endian: amqp-client publishes a byte[], so the array goes out without a copy. */
    @Override
    public ByteBuffer allocatePayload(int capacity) {
        return ByteBuffer.allocate(capacity).order(ByteOrder.LITTLE_ENDIAN);
    }

    @Override
    public Subscriber openSubscriber(DriverSpec spec, io.msgscope.core.driver.ClientContext context) throws IOException {
        AmqpOptions o = AmqpOptions.of(spec);
        ConnectionFactory f = AmqpConnections.factory(spec, o);
        String address = AmqpConnections.address(f);
        ThreadPoolExecutor executor = AmqpConnections.singleThread("msgscope-amqp-consumer");
        Connection c = null;
        try {
            c = AmqpConnections.open(f, executor, "msgscope-subscriber");
            Channel ch = c.createChannel();
            if (o.txSize() > 0) {
                ch.txSelect();
            }
            int prefetch = o.effectivePrefetch();
            if (prefetch > 0) {
                ch.basicQos(prefetch);
            }
            // server-named, non-durable, non-exclusive, auto-delete; only the default exchange's binding
            AMQP.Queue.DeclareOk ok = ch.queueDeclare("", false, false, true, null);
            return new AmqpSubscriber(o, address, c, ch, executor, ok.getQueue(), spec.messageSize());
        } catch (IOException | ShutdownSignalException e) {
            abort(c, executor);
            if (e instanceof IOException io && io.getMessage() != null && io.getMessage().startsWith("amqp: ")) {
                throw io;
            }
            throw setUpFailed("subscriber", address, o, e);
        } catch (RuntimeException e) {
            abort(c, executor);
            throw e;
        }
    }

    @Override
    public Publisher openPublisher(DriverSpec spec, io.msgscope.core.driver.ClientContext context) throws IOException {
        AmqpOptions o = AmqpOptions.of(spec);
        if (spec.destination().isEmpty()) {
            throw new io.msgscope.core.SpecException("destination", "the amqp publisher needs the subscriber's "
                    + "queue name (the receiver reports it)");
        }
        ConnectionFactory f = AmqpConnections.factory(spec, o);
        String address = AmqpConnections.address(f);
        // confirms and returns arrive on the connection thread; this executor only serves
        // amqp-client's consumer dispatch, which the publisher never uses
        ExecutorService executor = AmqpConnections.singleThread("msgscope-amqp-publisher-events");
        Connection c = null;
        try {
            c = AmqpConnections.open(f, executor, "msgscope-publisher");
            Channel ch = c.createChannel();
            return new AmqpPublisher(o, address, c, ch, executor, spec.destination(), spec.messageSize());
        } catch (IOException | ShutdownSignalException e) {
            abort(c, executor);
            if (e instanceof IOException io && io.getMessage() != null && io.getMessage().startsWith("amqp: ")) {
                throw io;
            }
            throw setUpFailed("publisher", address, o, e);
        } catch (RuntimeException e) {
            abort(c, executor);
            throw e;
        }
    }

    private static IOException setUpFailed(String side, String address, AmqpOptions o, Exception e) {
        ShutdownSignalException s = AmqpConnections.shutdownCause(e);
        return new IOException("amqp: setting up the " + side + " at " + address + " failed: "
                + (s != null ? AmqpConnections.explain(s, o) : AmqpConnections.describe(e)), e);
    }

    private static void abort(Connection c, ExecutorService executor) {
        if (c != null) {
            c.abort(AmqpConnections.CLOSE_TIMEOUT_MS);
        }
        executor.shutdownNow();
    }
}
