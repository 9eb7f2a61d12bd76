package io.msgscope.driver.zmq;

import io.msgscope.core.SpecException;
import io.msgscope.core.driver.ClientContext;
import io.msgscope.core.driver.Driver;
import io.msgscope.core.driver.DriverSpec;
import io.msgscope.core.driver.MiddleBox;
import io.msgscope.core.driver.Publisher;
import io.msgscope.core.driver.Subscriber;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Set;

/**
 * ZeroMQ through JeroMQ (pure Java), brokerless by default or through a middle box (M1, M10).
 * {@code --uri} is not used. Options ({@code --opt key=value}, see {@link ZmqOptions}):
 * <ul>
 *   <li>{@code via} {@code direct} (default): the subscriber binds a PULL socket on a free port and
 *       reports {@code tcp://host:port} as its destination; the publisher connects a PUSH socket to it.
 *       {@code proxy}: the broker-probe agent runs {@link ZmqProxy}; the publisher connects to its
 *       frontend (the relay's ingress port), the subscriber to its backend (egress port).</li>
 *   <li>{@code pattern} {@code pushpull} (default) or, with {@code via=proxy}, {@code pubsub}: PUB/SUB
 *       through an XSUB/XPUB proxy, with {@code topic} (default {@code msgscope}) as the subscription.</li>
 *   <li>{@code bind}, {@code advertise}, {@code port}: where the direct subscriber binds (default
 *       127.0.0.1, any free port) and which host it puts into its destination.</li>
 *   <li>{@code hwm} SNDHWM/RCVHWM of every socket in messages, 0 = unlimited (default 0). JeroMQ's
 *       default of 1000 would block PUSH and make PUB and ROUTER drop silently; unlimited never drops and
 *       never blocks, the queues grow instead. With a limit, senders block (PUB sockets are set
 *       XPUB_NODROP): backpressure, never silent loss.</li>
 * </ul>
 * TCP_NODELAY is set by JeroMQ on every TCP socket.
 *
 * <p>Threads (issue 13): every socket of an agent is made in its one ZeroMQ context ({@link ZmqShared}, kept with
 * the {@link ClientContext}, {@code ioThreads} JeroMQ I/O threads), and push-mode subscribers are received by the
 * context's shared {@link ZmqPoller}s instead of a thread each.
 */
public final class ZmqDriver implements Driver {
    static final Set<String> OPTIONS = ZmqOptions.KEYS;

    @Override
    public String name() {
        return "zmq";
    }

    @Override
    public Set<String> optionKeys() {
        return OPTIONS;
    }

    /** Keys, then every value as {@link ZmqOptions} reads it (via, pattern, topic, hwm, port, ...). */
    @Override
    public void checkOptions(DriverSpec spec) {
        spec.requireKnownOptions(name(), OPTIONS);
        ZmqOptions.of(spec);
    }

    /** Through the broker-probe agent's proxy with {@code via=proxy}; the bad values are refused here first. */
    @Override
    public boolean usesRelay(Map<String, String> options) {
        return ZmqOptions.of(options).proxy();
    }

    /** No broker: direct PUSH/PULL or PUB/SUB, or the broker-probe agent's own proxy. */
    @Override
    public String brokerHost(String uri, Map<String, String> options) {
        return null;
    }

    /** Heap: JeroMQ sends from byte arrays. */
    @Override
    public ByteBuffer allocatePayload(int capacity) {
        return ByteBuffer.allocate(capacity).order(ByteOrder.LITTLE_ENDIAN);
    }

    @Override
    public Subscriber openSubscriber(DriverSpec spec, ClientContext context) throws IOException {
        ZmqOptions o = ZmqOptions.of(spec);
        ZmqShared shared = ZmqShared.of(context);
        if (!o.proxy()) {
            return ZmqSubscriber.bindPull(shared, o, spec.messageSize());
        }
        return ZmqEndpoints.withRetries(() -> ZmqSubscriber.connect(shared, o, spec.host(), spec.port(), o.topic(),
                spec.messageSize()));
    }

    @Override
    public Publisher openPublisher(DriverSpec spec, ClientContext context) throws IOException {
        ZmqOptions o = ZmqOptions.of(spec);
        ZmqShared shared = ZmqShared.of(context);
        String dest = spec.destination();
        if (!o.proxy()) {
            if (dest.isEmpty()) {
                throw new SpecException("--opt port", "the publisher has no destination: the subscriber reports its "
                        + "tcp://host:port");
            }
            return new ZmqPublisher(shared, dest, null, o.hwm(), spec.messageSize());
        }
        if (spec.host().isEmpty() || spec.port() <= 0) {
            throw new SpecException("--opt via", "proxy needs the broker-probe agent's ZeroMQ proxy, and no proxy "
                    + "address was given");
        }
        String topic = o.pubsub() ? (dest.isEmpty() ? o.topic() : dest) : null;
        return ZmqEndpoints.withRetries(() -> new ZmqPublisher(shared, ZmqEndpoints.tcp(spec.host(), spec.port()),
                topic, o.hwm(), spec.messageSize()));
    }

    @Override
    public MiddleBox openMiddleBox(DriverSpec spec, String bindHost, int ingressPort, int egressPort)
            throws IOException {
        ZmqOptions o = ZmqOptions.of(spec);
        if (!o.proxy()) {
            throw new SpecException("--opt via", "the ZeroMQ proxy runs only with via=proxy");
        }
        return new ZmqProxy(o.pubsub(), bindHost, ingressPort, egressPort, o.hwm(), spec.messageSize());
    }

    /**
     * The scenario's topics are PUB/SUB subscription prefixes through the proxy: at most 200 bytes, no NUL
     * (scenario {@code --topic-prefix}, Q6).
     */
    @Override
    public void checkTopicPrefix(String prefix) {
        Driver.super.checkTopicPrefix(prefix);
        if (prefix.indexOf('\0') >= 0 || prefix.getBytes(StandardCharsets.UTF_8).length > 200) {
            throw new SpecException("--topic-prefix", "must be a ZeroMQ subscription prefix of at most 200 bytes "
                    + "without NUL, got '" + prefix + "'");
        }
    }

    /** Scenario mode (seed 002): see {@link ZmqScenarios}. */
    @Override
    public io.msgscope.core.driver.ScenarioSupport scenarios() {
        return ZmqScenarios.INSTANCE;
    }
}
