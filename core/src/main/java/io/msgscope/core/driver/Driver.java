package io.msgscope.core.driver;

import io.msgscope.core.SpecException;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Set;

/**
 * One messaging system behind one interface (M10): raw TCP, AMQP 0-9-1, MQTT, NATS, ZeroMQ. Drivers
 * register through {@link java.util.ServiceLoader} and never depend on each other or on the agents.
 * The receiver opens its subscriber first (it may create the destination, e.g. a server-named AMQP
 * queue, and reports {@link Subscriber#destination()}); the sender then opens its publisher to that
 * destination on its own connection (M5.6).
 *
 * <p>Hot-path contract: {@link Publisher#send} and the {@link MessageHandler} calls must not allocate
 * in the driver's own code per message; a client library that allocates per message (most broker
 * clients do) is reported by the agents' hot-thread allocation figures, not hidden.
 */
public interface Driver {
    /** Short name used in results and on the command line, e.g. "tcp". */
    String name();

    /** The {@code --opt} keys this driver understands (documented in its javadoc and the README). */
    default Set<String> optionKeys() {
        return Set.of();
    }

    /**
     * Checks the {@code --opt} keys and values of {@code spec} (and the driver's reading of {@code --uri})
     * before any agent starts or any sweep point runs, the way the driver itself will read them when it
     * opens a side. Throws {@link io.msgscope.core.SpecException} naming the option and what it allows.
     * The default only refuses unknown keys; drivers with option values override it (AMQP, MQTT, NATS,
     * ZeroMQ). Never connects.
     */
    default void checkOptions(DriverSpec spec) {
        spec.requireKnownOptions(name(), optionKeys());
    }

    /**
     * Checks {@code msgscope scenario --topic-prefix} (seed 002, Q6) the way this driver's client and
     * broker would read it, before any agent starts or any connection is made: a topic they would
     * reject is bad usage (exit 2), not a failed run. Throws {@link SpecException} for
     * {@code --topic-prefix}. The default refuses only an empty prefix; drivers with a topic syntax
     * (MQTT, NATS, ZeroMQ) override it and call this first (M10: the syntax lives in the driver).
     */
    default void checkTopicPrefix(String prefix) {
        if (prefix.isEmpty()) {
            throw new SpecException("--topic-prefix", "must not be empty");
        }
    }

    /** True when the driver talks to its peer through the built-in relay rather than a broker. */
    default boolean usesRelay() {
        return false;
    }

    /**
     * True when, with these {@code --opt} options, the messages go through a middle box run by the
     * broker-probe agent: the raw-TCP relay, or the driver's own {@link #openMiddleBox} (e.g. ZeroMQ's
     * {@code via=proxy}). The coordinator then starts the relay agent and points the sender at its
     * ingress port and the receiver at its egress port.
     */
    default boolean usesRelay(java.util.Map<String, String> options) {
        return usesRelay();
    }

    /**
     * Why a broker with its default configuration may drop messages under these options, naming the broker
     * setting to change, or null when the driver knows no such cause. The coordinator appends it to the reason of
     * a run that failed on missing messages (issue 18), so the user learns which setting to look at.
     */
    default String lossHint(java.util.Map<String, String> options) {
        return null;
    }

    /**
     * The host of the broker that {@code uri} and {@code options} point at, or null when the messages
     * go through no broker (the raw-TCP relay, a driver's own middle box, brokerless ZeroMQ) or the URI
     * names none. An empty URI is the driver's default, the broker on 127.0.0.1 for every broker
     * driver. The coordinator uses it to tell whether the broker shares this machine's cores (M5).
     */
    default String brokerHost(String uri, java.util.Map<String, String> options) {
        if (usesRelay(options)) {
            return null;
        }
        if (uri.isEmpty()) {
            return "127.0.0.1";
        }
        try {
            return java.net.URI.create(uri).getHost();
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    /**
     * The driver's own middle box, bound on {@code bindHost} (ports 0 = any free), for the broker-probe
     * agent to run; only for drivers whose {@link #usesRelay(java.util.Map)} is true and that are not the
     * raw-TCP relay itself.
     */
    default MiddleBox openMiddleBox(DriverSpec spec, String bindHost, int ingressPort, int egressPort)
            throws IOException {
        throw new UnsupportedOperationException("the " + name() + " driver has no middle box of its own");
    }

    /** The payload buffer the sender writes headers into: direct for socket drivers, heap for byte[] clients. */
    default ByteBuffer allocatePayload(int capacity) {
        return io.msgscope.core.WireHeader.allocate(capacity);
    }

    /**
     * How this driver takes part in scenario mode (seed 002), or null when it cannot (it has no topics,
     * e.g. raw TCP); {@code msgscope scenario} then refuses it as bad usage.
     */
    default ScenarioSupport scenarios() {
        return null;
    }

    /**
     * True when the connections these options open bind their client sockets to
     * {@link ClientContext#nextSourceAddress()} ({@code --source-addresses}); a driver or engine that cannot
     * keeps false and the agents refuse the option naming it.
     */
    default boolean bindsSourceAddresses(java.util.Map<String, String> options) {
        return false;
    }

    /**
     * Opens one subscriber connection on the context's shared I/O threads (its event loops, executor or
     * ZeroMQ context), binding its socket to the context's next source address when the driver
     * {@link #bindsSourceAddresses can}.
     */
    Subscriber openSubscriber(DriverSpec spec, ClientContext context) throws IOException;

    /** Opens one publisher connection on the context's shared I/O threads, as {@link #openSubscriber(DriverSpec, ClientContext)}. */
    Publisher openPublisher(DriverSpec spec, ClientContext context) throws IOException;

    /**
     * What msgscope made on the broker and a run could not remove (issue 16: a broker killed mid-run keeps
     * its JetStream streams), found by msgscope's own naming, one line each; removed unless {@code dryRun}.
     * {@code msgscope clean} calls it. The default finds nothing: the driver makes nothing that outlives a
     * run's connections.
     */
    default java.util.List<String> clean(DriverSpec spec, boolean dryRun) throws IOException {
        return java.util.List.of();
    }

    /** One subscriber on the process-wide {@link ClientContext#shared()} (tests, tools). */
    default Subscriber openSubscriber(DriverSpec spec) throws IOException {
        return openSubscriber(spec, ClientContext.shared());
    }

    /** One publisher on the process-wide {@link ClientContext#shared()} (tests, tools). */
    default Publisher openPublisher(DriverSpec spec) throws IOException {
        return openPublisher(spec, ClientContext.shared());
    }
}
