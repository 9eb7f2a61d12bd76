package io.msgscope.driver.amqp10;

import io.msgscope.core.SpecException;
import io.msgscope.core.driver.ClientContext;
import io.msgscope.core.driver.Driver;
import io.msgscope.core.driver.DriverSpec;
import io.msgscope.core.driver.Fault;
import io.msgscope.core.driver.Publisher;
import io.msgscope.core.driver.ScenarioSupport;
import io.msgscope.core.driver.Subscriber;
import org.apache.qpid.protonj2.client.Connection;
import org.apache.qpid.protonj2.client.DeliveryMode;
import org.apache.qpid.protonj2.client.DurabilityMode;
import org.apache.qpid.protonj2.client.Receiver;
import org.apache.qpid.protonj2.client.ReceiverOptions;
import org.apache.qpid.protonj2.client.Sender;
import org.apache.qpid.protonj2.client.SenderOptions;
import org.apache.qpid.protonj2.client.exceptions.ClientException;
import org.apache.qpid.protonj2.engine.impl.ProtonDeliveryTagGenerator;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * AMQP 1.0 (issue 19, M10) through Apache Qpid ProtonJ2's client: RabbitMQ with its {@code rabbitmq_amqp1_0} plugin,
 * Qpid Broker-J, and other AMQP 1.0 brokers. A driver of its own rather than an option of the AMQP 0-9-1 driver:
 * the two protocols share a name and a port, not a model (links, credit and dispositions against channels, prefetch
 * and publisher confirms), a client, or an option.
 *
 * <p>Set-up (A1-A3 in AMQP 1.0 terms): the subscriber and the publisher each open their own connection with one
 * session and one link. The subscriber's receiver link has a dynamic source: the broker creates a queue for it and
 * deletes it when the link closes (the counterpart of A2's server-named, auto-delete queue); the publisher's sender
 * link targets that node. {@code --opt address} uses a node of the user's instead, {@code --opt topic} RabbitMQ's
 * topic routing (scenarios). Options: {@link Amqp10Options}; the connection and URI: {@link Amqp10Connections};
 * scenarios: {@link Amqp10Scenarios}; {@code --opt reconnect=true} (issue 32 item 3): {@link Amqp10Reconnect}.
 *
 * <p>Threads: ProtonJ2 runs one I/O thread per connection (not the agent's shared ones, issue 13: a scenario's
 * thread count grows with its connections), plus, in scenario mode, one delivery thread per subscriber.
 */
public final class Amqp10Driver implements Driver {
    @Override
    public String name() {
        return "amqp10";
    }

    @Override
    public Set<String> optionKeys() {
        return Amqp10Options.KEYS;
    }

    /** Every option as {@link Amqp10Options#of} reads it, and the URI (scheme, host, credentials, virtual host). */
    @Override
    public void checkOptions(DriverSpec spec) {
        Amqp10Options o = Amqp10Options.of(spec);
        Amqp10Connections.uri(spec);
        Amqp10Connections.nodes(spec, o.reconnect());
        Amqp10Connections.virtualHost(spec);
    }

    /** Kill and restart need {@code --opt reconnect=true} (issue 32 item 3). */
    @Override
    public String whyClientsCannotReconnect(Map<String, String> options) {
        if (io.msgscope.core.driver.Reconnects.on(options)) {
            return null;
        }
        return "the amqp10 clients do not reconnect without --opt " + Amqp10Options.RECONNECT + "=true (with unsettled "
                + "transfers, the default, and --opt " + Amqp10Options.DURABLE + "=true nothing the broker accepted may "
                + "be lost)";
    }

    /** Heap and little-endian: the payload is copied into a byte[] body, straight from the array. */
    @Override
    public ByteBuffer allocatePayload(int capacity) {
        return ByteBuffer.allocate(capacity).order(ByteOrder.LITTLE_ENDIAN);
    }

    /** Topics become the last part of RabbitMQ's {@code /topic/TOPIC} address: no '/', and no '*' or '#'. */
    @Override
    public void checkTopicPrefix(String prefix) {
        Driver.super.checkTopicPrefix(prefix);
        if (prefix.indexOf('/') >= 0 || prefix.indexOf('*') >= 0 || prefix.indexOf('#') >= 0
                || prefix.getBytes(java.nio.charset.StandardCharsets.UTF_8).length > MAX_TOPIC_PREFIX_BYTES) {
            throw new SpecException("--topic-prefix", "must be at most " + MAX_TOPIC_PREFIX_BYTES + " bytes without '/', "
                    + "'*' or '#' (it becomes the routing key of /topic/TOPIC), got '" + prefix + "'");
        }
    }

    static final int MAX_TOPIC_PREFIX_BYTES = 240;

    @Override
    public ScenarioSupport scenarios() {
        return Amqp10Scenarios.INSTANCE;
    }

    @Override
    public Subscriber openSubscriber(DriverSpec spec, ClientContext context) throws IOException {
        Amqp10Options o = Amqp10Options.of(spec);
        Amqp10Connections.Opened op = Amqp10Connections.open(spec, o, "subscriber");
        try {
            ReceiverOptions ro = new ReceiverOptions().creditWindow(o.credit()).autoAccept(false)
                    .deliveryMode(o.settled() ? DeliveryMode.AT_MOST_ONCE : DeliveryMode.AT_LEAST_ONCE);
            ro.autoSettle(true);
            ro.openTimeout(o.openTimeoutMs());
            if (o.durableRunQueue()) {
                ro.sourceOptions().durabilityMode(DurabilityMode.CONFIGURATION); // RabbitMQ declares it durable
            }
            Connection c = op.connection();
            Map<String, String> info = serverInfo(c);
            // RabbitMQ 3.x refuses dynamic sources (amqp:not-implemented): a private queue bound to amq.direct instead
            String source = !o.dynamic() ? o.sourceAddress() : rabbitMq(info) ? rabbitRunQueue() : "";
            boolean dynamic = source.isEmpty();
            if (dynamic && o.reconnect()) {
                throw new Fault(Fault.Kind.REFUSED, "amqp10: --opt " + Amqp10Options.RECONNECT + "=true needs a node "
                        + "that outlives the link (a dynamic node would be another one after a reconnect): give --opt "
                        + Amqp10Options.ADDRESS + "=NAME of a queue at " + op.address());
            }
            String capability = routingCapability(o, info);
            if (capability != null) {
                ro.sourceOptions().capabilities(capability);
            }
            Receiver r = dynamic ? c.openDynamicReceiver(ro) : c.openReceiver(source, ro);
            String what = dynamic ? "a dynamic node" : "'" + source + "'";
            await(r.openFuture(), o, "subscriber", what, op.address());
            String node = dynamic ? r.address() : source;
            Runnable cleanup = null;
            if (o.dynamic() && !dynamic) { // the per-run queue on RabbitMQ
                cleanup = () -> RabbitQueues.delete(spec, node.substring("/queue/".length()));
            } else if (o.shared() && !o.topic().isEmpty() && rabbitMq(info)) { // round-robin: the last one deletes it
                cleanup = () -> RabbitQueues.delete(spec, o.topic(), true);
            }
            return new Amqp10Subscriber(o, op, r, node, spec.messageSize(), info, cleanup);
        } catch (ClientException | IOException | RuntimeException e) {
            throw setUpFailed("subscriber", op, e);
        }
    }

    @Override
    public Publisher openPublisher(DriverSpec spec, ClientContext context) throws IOException {
        Amqp10Options o = Amqp10Options.of(spec);
        String node = !o.topic().isEmpty() ? o.sourceAddress() : !o.address().isEmpty() ? o.address() : spec.destination();
        if (node.isEmpty()) {
            throw new SpecException("destination", "the amqp10 publisher needs the subscriber's node (the receiver "
                    + "reports it) or --opt address");
        }
        Amqp10Connections.Opened op = Amqp10Connections.open(spec, o, "publisher");
        try {
            SenderOptions so = new SenderOptions()
                    .deliveryMode(o.settled() ? DeliveryMode.AT_MOST_ONCE : DeliveryMode.AT_LEAST_ONCE);
            so.autoSettle(true);
            // unique tags: ProtonJ2's default pool reuses a tag once settled here, which Qpid Broker-J refused as still
            // unsettled on its side (amqp:illegal-state) under a full window
            so.deliveryTagGeneratorSupplier(ProtonDeliveryTagGenerator.BUILTIN.SEQUENTIAL::createGenerator);
            so.openTimeout(o.openTimeoutMs());
            if (o.durableRunQueue()) {
                so.targetOptions().durabilityMode(DurabilityMode.CONFIGURATION); // as the subscriber declared it
            }
            // the broker's open frame is read only for a scenario's topic: other publishers are set up as before
            String capability = o.topic().isEmpty() ? null : routingCapability(o, serverInfo(op.connection()));
            if (capability != null) {
                so.targetOptions().capabilities(capability);
            }
            Sender s = op.connection().openSender(node, so);
            await(s.openFuture(), o, "publisher", "'" + node + "'", op.address());
            return new Amqp10Publisher(o, op, s, node, spec.messageSize());
        } catch (ClientException | IOException | RuntimeException e) {
            throw setUpFailed("publisher", op, e);
        }
    }

    /** Closes the half-made side's connection; a {@link Fault} already saying why stays as it is. */
    private static IOException setUpFailed(String side, Amqp10Connections.Opened op, Exception e) {
        op.close();
        if (e instanceof IOException io) {
            return io;
        }
        if (e instanceof SpecException spec) {
            throw spec;
        }
        return new Fault(Fault.Kind.REFUSED, "amqp10: setting up the " + side + " at " + op.address() + " failed: "
                + Amqp10Connections.describe(e), e);
    }

    /** Waits for the broker's attach; a refusal (no such node, not allowed) is a one-line {@link Fault}. */
    private static void await(Future<?> open, Amqp10Options o, String side, String what, String address) throws Fault {
        try {
            open.get(o.openTimeoutMs(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException | TimeoutException e) {
            throw new Fault(Fault.Kind.REFUSED, "amqp10: the broker at " + address + " refused the " + side + "'s link to "
                    + what + ": " + Amqp10Connections.describe(e), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new Fault(Fault.Kind.OTHER, "amqp10: interrupted while opening the " + side + "'s link", e);
        }
    }

    /**
     * The terminus capability that gives a topic's address its routing type on ActiveMQ Artemis, or null: Artemis
     * makes an address it does not know multicast unless the link asks for {@code queue} (anycast), so round-robin's
     * shared {@code /queue/TOPIC} would hand every message to every receiver. {@code topic} (multicast: a
     * subscription queue per receiver) for the other scenarios. Other brokers route by the address's form.
     */
    static String routingCapability(Amqp10Options o, Map<String, String> info) {
        if (o.topic().isEmpty() || !artemis(info)) {
            return null;
        }
        return o.shared() ? "queue" : "topic";
    }

    /** True when the broker announced itself as ActiveMQ Artemis in its open frame ("apache-activemq-artemis"). */
    static boolean artemis(Map<String, String> info) {
        return info.getOrDefault("product", "").toLowerCase(java.util.Locale.ROOT).contains("activemq-artemis");
    }

    /** True when the broker announced itself as RabbitMQ in its open frame. */
    static boolean rabbitMq(Map<String, String> info) {
        return info.getOrDefault("product", "").toLowerCase(java.util.Locale.ROOT).contains("rabbitmq");
    }

    /**
     * RabbitMQ's AMQP 1.0 plugin (3.x) has no dynamic nodes (amqp:not-implemented), and the queues it declares for a
     * {@code /queue/NAME} or {@code /exchange/X/KEY} source are neither exclusive nor auto-delete: they outlive the
     * link. So on RabbitMQ the subscriber uses {@code /queue/msgscope-amqp10-UUID}, a queue of msgscope's naming that
     * the plugin declares, and deletes it when it closes ({@link RabbitQueues}, over AMQP 0-9-1, since AMQP 1.0 there
     * cannot delete).
     */
    static String rabbitRunQueue() {
        return "/queue/" + RabbitQueues.PREFIX + java.util.UUID.randomUUID();
    }

    /** The broker's product and version from its open frame's properties, and the protocol. */
    private static Map<String, String> serverInfo(Connection c) {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("protocol", "AMQP 1.0");
        try {
            Map<String, Object> p = c.properties();
            if (p != null) {
                for (String k : new String[] {"product", "version", "platform"}) {
                    Object v = p.get(k);
                    if (v != null) {
                        m.put(k, String.valueOf(v));
                    }
                }
            }
        } catch (ClientException | RuntimeException e) {
            // nothing to tell
        }
        return Map.copyOf(m);
    }
}
