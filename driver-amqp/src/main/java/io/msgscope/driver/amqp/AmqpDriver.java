package io.msgscope.driver.amqp;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.ShutdownSignalException;
import io.msgscope.core.driver.ClientContext;
import io.msgscope.core.driver.Driver;
import io.msgscope.core.driver.DriverSpec;
import io.msgscope.core.driver.Publisher;
import io.msgscope.core.driver.ScenarioSupport;
import io.msgscope.core.driver.Subscriber;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;

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
 * unless {@code --opt tls_ca} or {@code --opt tls_verify=true} ({@link AmqpTls}). Options: see {@link AmqpOptions}.
 *
 * <p>Threads (issue 13): amqp-client runs in NIO mode on the pools of {@link AmqpShared}, kept once per
 * {@link ClientContext}: the context's I/O threads read and write every connection, a shared dispatch pool
 * runs the consumer callbacks, one thread sends the heartbeats; an agent's thread count does not grow with its
 * connections. Scenario mode: {@link AmqpScenarios}.
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

    /**
     * A paused consumer holds its delivery thread before the handler, so it stops acknowledging: with a prefetch the
     * broker then sends no more and keeps the rest in the queue (issue 31). Without acks or without a prefetch the
     * broker would push the whole backlog into the client, so those are refused.
     */
    @Override
    public String whyConsumersCannotPause(Map<String, String> options) {
        AmqpOptions o = AmqpOptions.of(new DriverSpec("", 0, "", io.msgscope.core.WireHeader.SIZE, 0, options, ""));
        if (o.autoAck()) {
            return "with --opt " + AmqpOptions.AUTO_ACK + "=true the broker forgets each message as it sends it, so a "
                    + "paused consumer's backlog would pile up in the client: drop it";
        }
        if (o.effectivePrefetch() == 0) {
            return "without a prefetch the broker pushes the whole backlog into the paused client: give --opt "
                    + AmqpOptions.PREFETCH + "=N (e.g. 100), and the broker keeps all but N";
        }
        return null;
    }

    /** Issue 31 item 3: the queue's message_count by passive declare, see {@link AmqpBacklogProbe}. */
    @Override
    public io.msgscope.core.driver.BacklogProbe openBacklogProbe(DriverSpec spec, String destination)
            throws IOException {
        return new AmqpBacklogProbe(spec, destination);
    }

    /** Issue 31: a passive queue.declare reads any queue's message count. */
    @Override
    public String whyBacklogCannotBeRead(Map<String, String> options) {
        return null;
    }

    /**
     * Kill and restart need {@code --opt reconnect=true} (issue 32 item 3), in run and scenario mode alike; AmqpOptions
     * refuses what it cannot resume (tx_size), AmqpScenarios what cannot be read across a reconnect (streams).
     */
    @Override
    public String whyClientsCannotReconnect(Map<String, String> options) {
        if (io.msgscope.core.driver.Reconnects.on(options)) {
            return null;
        }
        return "the amqp clients do not reconnect without --opt " + AmqpOptions.RECONNECT + "=true (with --opt "
                + AmqpOptions.CONFIRM + "=N, --opt " + AmqpOptions.PERSISTENT + "=true and manual acks nothing the "
                + "broker confirmed may be lost)";
    }

    /** The named queues runs left (issue 16, issue 32 item 3), through RabbitMQ's management API: {@link AmqpClean}. */
    @Override
    public java.util.List<String> clean(DriverSpec spec, boolean dryRun) throws IOException {
        return AmqpClean.clean(spec, dryRun);
    }

    /** Heap and little-endian: amqp-client publishes a byte[], so the array goes out without a copy. */
    @Override
    public ByteBuffer allocatePayload(int capacity) {
        return ByteBuffer.allocate(capacity).order(ByteOrder.LITTLE_ENDIAN);
    }

    /**
     * True: every connection's socket is bound to the context's next source address before it connects (the
     * NIO factory's socket-channel configurator, see {@link AmqpShared}).
     */
    @Override
    public boolean bindsSourceAddresses(Map<String, String> options) {
        return true;
    }

    /**
     * The scenario's topics are routing keys and binding keys on a topic exchange: at most 249 bytes (straight-run
     * appends ".N", and AMQP short strings end at 255), and no '*' or '#', which a binding would read as wildcards.
     */
    @Override
    public void checkTopicPrefix(String prefix) {
        Driver.super.checkTopicPrefix(prefix);
        if (prefix.indexOf('*') >= 0 || prefix.indexOf('#') >= 0
                || prefix.getBytes(java.nio.charset.StandardCharsets.UTF_8).length > MAX_TOPIC_PREFIX_BYTES) {
            throw new io.msgscope.core.SpecException("--topic-prefix", "must be an AMQP routing key of at most "
                    + MAX_TOPIC_PREFIX_BYTES + " bytes without '*' or '#' (wildcards in a binding), got '" + prefix + "'");
        }
    }

    static final int MAX_TOPIC_PREFIX_BYTES = 249;

    /** Scenario mode (seed 002): topics as routing keys on a topic exchange, see {@link AmqpScenarios}. */
    @Override
    public ScenarioSupport scenarios() {
        return AmqpScenarios.INSTANCE;
    }

    @Override
    public Subscriber openSubscriber(DriverSpec spec, ClientContext context) throws IOException {
        AmqpOptions o = AmqpOptions.of(spec);
        AmqpShared shared = AmqpShared.of(context);
        ConnectionFactory f = shared.factory(spec, o, false);
        String address = AmqpConnections.address(f);
        AmqpDispatch dispatch = new AmqpDispatch(shared.dispatch());
        Connection c = null;
        // reconnect=true: a queue of msgscope's naming (routed and shared: the group's), declared (and bound) again
        // under that name after each reconnect (issue 32 item 3)
        String named = !o.reconnect() ? null : o.group().isEmpty() ? QueueTypes.ownName(o.queueType()) : o.group();
        AmqpReconnect.Nodes nodes = new AmqpReconnect.Nodes(AmqpConnections.nodes(spec, o));
        AmqpReconnect.Opener opener = () -> {
            Connection oc = shared.open(f, nodes.next(), dispatch, "msgscope-subscriber", false).connection();
            try {
                Channel ch = oc.createChannel();
                if (o.txSize() > 0) {
                    ch.txSelect();
                }
                int prefetch = o.effectivePrefetch();
                if (prefetch > 0) {
                    ch.basicQos(prefetch);
                }
                QueueTypes.require(o.queueType(), oc, address);
                if (named != null && o.routed()) {
                    ensureExchange(oc, o, address); // msgscope's own exchange does not outlive a broker restart
                    if (o.group().isEmpty()) {
                        QueueTypes.declare(ch, named, o.queueType(), o.persistent());
                    } else {
                        declareGroupQueue(ch, o, address);
                    }
                    ch.queueBind(named, o.exchange(), o.topic());
                } else if (named != null) {
                    QueueTypes.declare(ch, named, o.queueType(), o.persistent());
                }
                return new AmqpReconnect.Link(oc, ch, null);
            } catch (IOException | RuntimeException e) {
                abort(oc, null);
                throw e;
            }
        };
        try {
            AmqpReconnect.Link link = opener.open();
            c = link.connection();
            Channel ch = link.channel();
            String queue;
            if (named != null) {
                queue = named;
            } else if (!o.routed()) {
                queue = o.queueType() == AmqpOptions.QueueType.CLASSIC
                        // server-named, non-durable, non-exclusive, auto-delete; only the default exchange's binding (A1)
                        ? ch.queueDeclare("", false, false, true, null).getQueue()
                        : QueueTypes.declareOwn(ch, o.queueType());
            } else {
                ensureExchange(c, o, address);
                queue = !o.group().isEmpty()
                        // shared by the group: named, non-exclusive, auto-delete once its last consumer leaves
                        ? declareGroupQueue(ch, o, address)
                        : o.queueType() == AmqpOptions.QueueType.CLASSIC
                        // its own: server-named, exclusive (gone with the connection), auto-delete
                        ? SubscriberQueues.exclusive(ch.queueDeclare("", false, true, true, null).getQueue(), c)
                        : QueueTypes.declareOwn(ch, o.queueType());
                ch.queueBind(queue, o.exchange(), o.topic());
            }
            return new AmqpSubscriber(o, address, c, ch, dispatch, queue, spec.messageSize(), opener, shared.retries());
        } catch (IOException | ShutdownSignalException e) {
            abort(c, dispatch);
            if (e instanceof IOException io && io.getMessage() != null && io.getMessage().startsWith("amqp: ")) {
                throw io;
            }
            throw setUpFailed("subscriber", address, o, e);
        } catch (RuntimeException e) {
            abort(c, dispatch);
            throw e;
        }
    }

    /**
     * The exchange a routed subscriber binds to: the brokers predeclare {@code amq.*}; any other is looked up
     * (passively, on a channel of its own, which a 404 closes) and declared when missing: a topic exchange,
     * non-durable, auto-delete (gone with the last binding, i.e. with the run's queues).
     */
    private static void ensureExchange(Connection c, AmqpOptions o, String address) throws IOException {
        if (o.exchange().startsWith("amq.")) {
            return;
        }
        Channel probe = c.createChannel();
        try {
            probe.exchangeDeclarePassive(o.exchange());
            probe.close();
        } catch (IOException | ShutdownSignalException | java.util.concurrent.TimeoutException e) {
            ShutdownSignalException s = AmqpConnections.shutdownCause(e);
            if (s == null || AmqpConnections.replyCode(s) != 404) {
                throw new IOException("amqp: cannot look up exchange '" + o.exchange() + "' at " + address + ": "
                        + (s != null ? AmqpConnections.closeReason(s) : AmqpConnections.describe(e)), e);
            }
            Channel ch = c.createChannel();
            try {
                ch.exchangeDeclare(o.exchange(), "topic", false, true, null);
                ch.close();
            } catch (IOException | ShutdownSignalException | java.util.concurrent.TimeoutException d) {
                ShutdownSignalException ds = AmqpConnections.shutdownCause(d);
                throw new IOException("amqp: cannot declare topic exchange '" + o.exchange() + "' at " + address
                        + ": " + (ds != null ? AmqpConnections.closeReason(ds) : AmqpConnections.describe(d)), d);
            }
        }
    }

    /**
     * The group's shared queue, named by the scenario. With reconnect=true it is not auto-delete (a lost connection
     * would leave it without consumers, and delete it), durable as a subscriber's own named queue, and expires once
     * unused ({@link QueueTypes#declare}); the last subscriber to leave deletes it either way.
     */
    private static String declareGroupQueue(Channel ch, AmqpOptions o, String address) throws IOException {
        try {
            return o.reconnect() ? GroupDeclares.oneAtATime(address + " " + o.group(),
                    () -> QueueTypes.declare(ch, o.group(), o.queueType(), o.persistent()))
                    : o.queueType() == AmqpOptions.QueueType.CLASSIC
                    ? ch.queueDeclare(o.group(), false, false, true, null).getQueue()
                    : GroupDeclares.oneAtATime(address + " " + o.group(), () -> ch.queueDeclare(o.group(), true,
                            false, false, QueueTypes.arguments(o.queueType())).getQueue());
        } catch (IOException | ShutdownSignalException e) {
            ShutdownSignalException s = AmqpConnections.shutdownCause(e);
            throw new IOException("amqp: cannot declare the shared queue '" + o.group() + "' at " + address + ": "
                    + (s != null ? AmqpConnections.closeReason(s) : AmqpConnections.describe(e))
                    + (s != null && AmqpConnections.replyCode(s) == 406
                    ? " (a queue of that name exists with other properties: delete it, or choose another group)" : ""),
                    e);
        }
    }

    @Override
    public Publisher openPublisher(DriverSpec spec, ClientContext context) throws IOException {
        AmqpOptions o = AmqpOptions.of(spec);
        if (spec.destination().isEmpty() && !o.routed()) {
            throw new io.msgscope.core.SpecException("destination", "the amqp publisher needs the subscriber's "
                    + "queue name (the receiver reports it)");
        }
        AmqpShared shared = AmqpShared.of(context);
        ConnectionFactory f = shared.factory(spec, o, true);
        String address = AmqpConnections.address(f);
        // confirms and returns arrive on the NIO loop; the shared dispatch executor only serves amqp-client's
        // consumer dispatch, which the publisher never uses
        Connection c = null;
        AmqpReconnect.Nodes nodes = new AmqpReconnect.Nodes(AmqpConnections.nodes(spec, o));
        AmqpReconnect.Opener opener = () -> {
            AmqpShared.Opened opened = shared.open(f, nodes.next(), shared.dispatch(), "msgscope-publisher", true);
            try {
                if (o.reconnect() && o.routed()) {
                    ensureExchange(opened.connection(), o, address); // a restart drops an exchange msgscope declared
                }
                return new AmqpReconnect.Link(opened.connection(), opened.connection().createChannel(),
                        opened.writeQueue());
            } catch (IOException | RuntimeException e) {
                abort(opened.connection(), null);
                throw e;
            }
        };
        try {
            AmqpReconnect.Link link = opener.open();
            c = link.connection();
            String exchange = o.routed() ? o.exchange() : "";
            String routingKey = o.routed() ? o.topic() : spec.destination();
            return new AmqpPublisher(o, address, link, opener, exchange, routingKey, spec.messageSize());
        } catch (IOException | ShutdownSignalException e) {
            abort(c, null);
            if (e instanceof IOException io && io.getMessage() != null && io.getMessage().startsWith("amqp: ")) {
                throw io;
            }
            throw setUpFailed("publisher", address, o, e);
        } catch (RuntimeException e) {
            abort(c, null);
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
        if (executor != null) {
            executor.shutdownNow();
        }
    }
}
