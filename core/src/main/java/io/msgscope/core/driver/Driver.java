package io.msgscope.core.driver;

import io.msgscope.core.SpecException;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Set;

/**
 * One messaging system behind one interface (M10): raw TCP, AMQP 0-9-1, AMQP 1.0, MQTT, NATS, ZeroMQ,
 * Kafka, Redis, RabbitMQ streams, STOMP and ActiveMQ Artemis core. Drivers register through {@link java.util.ServiceLoader} and never depend on each other or on the
 * agents.
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

    /**
     * True when, with these {@code --opt} options, the messages go through a middle box run by the
     * broker-probe agent: the raw-TCP relay, or the driver's own {@link #openMiddleBox} (e.g. ZeroMQ's
     * {@code via=proxy}). The coordinator then starts the relay agent and points the sender at its
     * ingress port and the receiver at its egress port.
     */
    default boolean usesRelay(java.util.Map<String, String> options) {
        return false;
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
     * Who talks to whom in a trace run with these {@code --opt} options, one line for summary.json's
     * {@code topology}: {@code uriForDisplay} is the URI with its secrets masked, {@code destination} what the
     * receiver reported (empty when it reported none). The default is a broker between sender and receiver.
     */
    default String topology(String uriForDisplay, java.util.Map<String, String> options, String destination) {
        return "sender -> broker " + uriForDisplay + " -> receiver"
                + (destination.isEmpty() ? "" : " (destination " + destination + ")");
    }

    /**
     * What the CPU time that the middle box (see {@link #usesRelay(java.util.Map)}) stamps into every Nth message
     * counts, as summary.json's {@code cpu.broker.source} begins in relay mode. The default: the relay's
     * forwarding thread and this driver's own middle box's I/O threads.
     */
    default String middleBoxCpuSource() {
        return "relay forwarding-thread CPU (ns, plus the " + name() + " middle box's I/O threads)";
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
    /**
     * Why this driver's subscriber cannot pause consuming while the system under test keeps the messages (a phase with
     * {@code /paused}, issue 31), or null when it can ({@link Subscriber#pause}). Checked before a run starts.
     */
    default String whyConsumersCannotPause(java.util.Map<String, String> options) {
        return "it has no way to stop consuming while the system under test keeps the messages";
    }

    /**
     * Why this driver cannot read the broker's own count of a paused consumer's backlog with these options
     * ({@link #openBacklogProbe}), so that a phase cannot end on it ({@code /backlog=N}, issue 31), or null when it can.
     * Checked before a run starts.
     */
    default String whyBacklogCannotBeRead(java.util.Map<String, String> options) {
        return "the " + name() + " driver does not read the broker's count of a backlog (docs/limits.md)";
    }

    /**
     * Why clients with these options cannot survive a fault that ends their connections (a broker killed or
     * restarted, issue 32), one clause naming what to give, or null when they reconnect
     * ({@link Reconnects#OPTION}). Checked before a run with such a fault starts.
     */
    default String whyClientsCannotReconnect(java.util.Map<String, String> options) {
        return "the " + name() + " driver does not reconnect yet (docs/limits.md); --opt " + Reconnects.OPTION
                + "=true is for the nats, mqtt, amqp, amqp10, kafka and redis drivers";
    }

    /**
     * A probe of the broker's own count of what waits for the subscriber at {@code destination} (its
     * {@link Subscriber#destination}), or null when the protocol does not tell (issue 31 item 3).
     */
    default BacklogProbe openBacklogProbe(DriverSpec spec, String destination) throws IOException {
        return null;
    }

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

    /**
     * What to tell a user whose run with these {@code --opt} options failed, beyond the failure itself: what the run
     * may have left on the broker and how to remove it (e.g. {@code msgscope clean}). Scenario mode adds it to the
     * notes of a failed run (issue 30). Null, the default, when the driver leaves nothing behind.
     */
    default String failureNote(java.util.Map<String, String> options) {
        return null;
    }

    /**
     * What a scenario run's latency with these {@code --opt} options shows besides the broker's delivery, given each
     * subscriber's mean receive rate (msg/s): e.g. a consumer that fetches in batches holds a message until its
     * batch fills. Scenario mode adds it to its notes (issue 27, issue 30). Null, the default, when nothing.
     */
    default String latencyCaveat(java.util.Map<String, String> options, double perSubscriberRate) {
        return null;
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
