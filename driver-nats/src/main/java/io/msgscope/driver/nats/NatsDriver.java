package io.msgscope.driver.nats;

import io.msgscope.core.SpecException;
import io.msgscope.core.driver.ClientContext;
import io.msgscope.core.driver.Driver;
import io.msgscope.core.driver.DriverSpec;
import io.msgscope.core.driver.Publisher;
import io.msgscope.core.driver.Subscriber;
import io.msgscope.driver.nats.jnats.JnatsPublisher;
import io.msgscope.driver.nats.jnats.JnatsSubscriber;
import io.msgscope.driver.nats.netty.NettyNatsPublisher;
import io.msgscope.driver.nats.netty.NettyNatsSubscriber;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Map;
import java.util.Set;

/**
 * NATS: core pub/sub through msgscope's own lean engine on Netty (the default), or through jnats, which also
 * speaks JetStream. The subscriber connects first, subscribes to its subject (by default
 * {@code msgscope.<random>}), makes sure the server has the subscription (a PING/PONG round trip, jnats' flush),
 * and reports the subject as its destination.
 *
 * <p>{@code --uri}: {@code nats://host:port} (default {@code nats://127.0.0.1:4222}; {@code tls://} for
 * TLS; user info in the URI as credentials). Options ({@code --opt key=value}):
 * <ul>
 *   <li>{@code subject} the subject (default chosen by the subscriber); no wildcards</li>
 *   <li>{@code jetstream} true/false (default false): the subscriber creates a stream for the subject
 *       (interest retention; subscribers of one subject share it; deleted on close) and consumes it;
 *       the publisher publishes asynchronously with JetStream and counts the stream's acks as
 *       {@code messages_acked}</li>
 *   <li>{@code consumer} push or pull, JetStream only (default push): push without a group is an
 *       ordered ephemeral consumer; pull is a durable consumer fetched in batches inside
 *       {@code poll} (or, after {@code start}, on a thread of its own), acked one by one</li>
 *   <li>{@code storage} file or memory, the stream's storage with JetStream (default file)</li>
 *   <li>{@code max_inflight} JetStream publishes not yet acknowledged before {@code send} waits,
 *       1-1000000 (default 1000)</li>
 *   <li>{@code username}, {@code password}, or {@code token} credentials</li>
 *   <li>{@code engine} netty or jnats (default netty for core NATS, jnats with JetStream): netty is the lean
 *       core-NATS engine ({@link NettyNatsPublisher}, {@link NettyNatsSubscriber}) on the agent's shared event
 *       loops, binding source addresses; jnats runs a client library connection (and its threads) per
 *       connection; {@code engine=netty} with {@code jetstream=true} is refused</li>
 *   <li>{@code tls_ca}, {@code tls_verify} with a {@code tls://} URI: the PEM file of certificates to trust
 *       (default the JVM's trust store) and whether to check the certificate at all (default true)</li>
 *   <li>{@code group} subscriber only: core NATS, join this queue group; JetStream, share the durable
 *       consumer of that name (push: with this deliver group) — either way each message goes to one
 *       member of the group (round-robin)</li>
 *   <li>{@code reconnect} true/false (default false; issue 32 item 3): reconnect to any server of the URI list (a
 *       comma list), subscribe again (JetStream: through a durable consumer that outlives a server restart) and
 *       republish JetStream publishes not acknowledged; counted, never hidden
 *       ({@link io.msgscope.core.driver.Reconnects}); both engines (netty: {@code netty.NatsReconnect})</li>
 *   <li>{@code spread} true/false (default false; a URI list): each new connection of an agent starts at the next
 *       server of the list in turn (netty; jnats: at a random one, its shuffle), so a scenario's connections spread
 *       over a cluster; without it every connection starts at the first server that answers, on both engines</li>
 *   <li>{@code ping_interval} a time (100ms to 10m; both engines; default jnats' own, 2 minutes, and none on netty,
 *       which then only answers the server's pings; netty: {@code netty.NatsKeepAlive}): how often the
 *       client pings the server; two unanswered pings declare the connection stale, and with {@code reconnect=true}
 *       it dials another server. A server cut off by a partition sends nothing and resets nothing, so only a ping
 *       tells (issue 32: jnats' default let a 10 s partition pass unnoticed)</li>
 * </ul>
 */
public final class NatsDriver implements Driver {
    static final Set<String> OPTIONS = Set.of("subject", "jetstream", "storage", "max_inflight", "username",
            "password", "token", "group", "consumer", "engine", "tls_ca", "tls_verify", "replicas", "spread",
            NatsSettings.PING_INTERVAL,
            io.msgscope.core.driver.Reconnects.OPTION);
    /** The longest a pull consumer's fetch waits for its batch to fill: the agents poll for at most 1 s. */
    static final double PULL_WAIT_S = 1.0;

    @Override
    public String name() {
        return "nats";
    }

    @Override
    public Set<String> optionKeys() {
        return OPTIONS;
    }

    /** Kill and restart need {@code --opt reconnect=true}, on either engine (issue 32 item 3). */
    @Override
    public String whyClientsCannotReconnect(Map<String, String> options) {
        if (io.msgscope.core.driver.Reconnects.on(options)) {
            return null;
        }
        return "the nats clients do not reconnect without --opt reconnect=true";
    }

    /** The URI and every option as both sides read them. */
    @Override
    public void checkOptions(DriverSpec spec) {
        NatsSettings.of(spec, false);
    }

    /**
     * Heap for both engines: jnats takes byte arrays, and the netty engine copies each message into its write
     * buffer straight from the array.
     */
    @Override
    public ByteBuffer allocatePayload(int capacity) {
        return ByteBuffer.allocate(capacity).order(ByteOrder.LITTLE_ENDIAN);
    }

    @Override
    public Subscriber openSubscriber(DriverSpec spec, ClientContext context) throws IOException {
        NatsSettings s = NatsSettings.of(spec, false);
        return s.netty() ? new NettyNatsSubscriber(s, spec.messageSize(), context)
                : new JnatsSubscriber(s, spec.messageSize());
    }

    @Override
    public Publisher openPublisher(DriverSpec spec, ClientContext context) throws IOException {
        NatsSettings s = NatsSettings.of(spec, true);
        return s.netty() ? new NettyNatsPublisher(s, spec.messageSize(), context)
                : new JnatsPublisher(s, spec.messageSize());
    }

    /**
     * A JetStream pull consumer pauses by not fetching: the stream keeps every message and the consumer's pending
     * count grows (issue 31). Core NATS keeps nothing for a subscriber, and a push consumer is sent the backlog anyway.
     */
    @Override
    public String whyConsumersCannotPause(Map<String, String> options) {
        NatsSettings s = NatsSettings.of(new DriverSpec("", 0, "", 0, 0, options, ""), false);
        if (!s.jetStream()) {
            return "core NATS keeps no message for a subscriber that stops reading (it would drop them as a slow "
                    + "consumer): use --opt jetstream=true --opt consumer=pull";
        }
        if (!s.pull()) {
            return "a JetStream push consumer is sent the backlog whether it reads or not: use --opt consumer=pull";
        }
        return null;
    }

    /** Issue 31 item 3: with JetStream, the stream's message count ({@link JnatsBacklogProbe}); core NATS keeps none. */
    @Override
    public io.msgscope.core.driver.BacklogProbe openBacklogProbe(DriverSpec spec, String destination)
            throws IOException {
        NatsSettings s = NatsSettings.of(spec.withDestination(destination), true); // the subscriber's subject
        return s.jetStream() ? new io.msgscope.driver.nats.jnats.JnatsBacklogProbe(s) : null;
    }

    /** Issue 31: JetStream's stream info counts what a consumer has yet to take; core NATS keeps nothing to count. */
    @Override
    public String whyBacklogCannotBeRead(Map<String, String> options) {
        return NatsSettings.of(new DriverSpec("", 0, "", 0, 0, options, ""), false).jetStream() ? null
                : "core NATS keeps no backlog to count: use --opt jetstream=true --opt consumer=pull";
    }

    /** The netty engine binds its sockets to the context's source addresses; jnats opens its own sockets. */
    @Override
    public boolean bindsSourceAddresses(Map<String, String> options) {
        return NatsSettings.netty(new DriverSpec("", 0, "", 0, 0, options, ""));
    }

    /**
     * NATS subjects take no wildcards (*, >), no white space and no empty tokens (scenario
     * {@code --topic-prefix}, Q6).
     */
    @Override
    public void checkTopicPrefix(String prefix) {
        Driver.super.checkTopicPrefix(prefix);
        if (prefix.chars().anyMatch(c -> c == '*' || c == '>' || Character.isWhitespace(c))) {
            throw new SpecException("--topic-prefix", "must be a NATS subject without wildcards (*, >) or white "
                    + "space, got '" + prefix + "'");
        }
        if (prefix.startsWith(".") || prefix.endsWith(".") || prefix.contains("..")) {
            throw new SpecException("--topic-prefix", "must be a NATS subject without empty tokens (leading, "
                    + "trailing or double '.'), got '" + prefix + "'");
        }
    }

    /** Scenario mode (seed 002): see {@link NatsScenarios}. */
    @Override
    public io.msgscope.core.driver.ScenarioSupport scenarios() {
        return NatsScenarios.INSTANCE;
    }

    /**
     * JetStream streams msgscope made ({@code MSGSCOPE_<subject>}) and a run left behind, e.g. when the server
     * was killed before the subscribers deleted them; deleted unless {@code dryRun}.
     */
    @Override
    public java.util.List<String> clean(DriverSpec spec, boolean dryRun) throws IOException {
        NatsSettings s = NatsSettings.of(spec.withDestination("msgscope.clean"), true);
        io.nats.client.Connection c = s.connect("clean", () -> { }, new io.nats.client.ErrorListener() { });
        try {
            io.nats.client.JetStreamManagement jsm = c.jetStreamManagement();
            java.util.List<String> out = new java.util.ArrayList<>();
            for (String name : jsm.getStreamNames()) {
                if (name.startsWith(JnatsSubscriber.STREAM_PREFIX)) {
                    if (!dryRun) {
                        jsm.deleteStream(name);
                    }
                    out.add((dryRun ? "would delete" : "deleted") + " JetStream stream " + name + " at " + s.address());
                }
            }
            return out;
        } catch (io.nats.client.JetStreamApiException e) {
            throw new java.io.IOException("JetStream at " + s.address() + " refused to list or delete streams: "
                    + e.getMessage(), e);
        } finally {
            try {
                c.close();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** JetStream: the streams a failed run made may outlive it when the server went away; clean removes them. */
    @Override
    public String failureNote(Map<String, String> options) {
        if (!jetStream(options)) {
            return null;
        }
        return "JetStream streams this run made (" + JnatsSubscriber.STREAM_PREFIX + "<subject>) are deleted at its end "
                + "while the server is there; if it went away, `msgscope clean --driver " + name() + " --uri URI` "
                + "removes what is left";
    }

    /**
     * A JetStream pull consumer fetches up to {@link JnatsSubscriber#PULL_BATCH} messages per request and a request
     * waits up to {@link #PULL_WAIT_S} s for its batch to fill, so at a low rate per subscriber a message waits in the
     * stream for its batch (issue 27).
     */
    @Override
    public String latencyCaveat(Map<String, String> options, double perSubscriberRate) {
        if (!jetStream(options) || !"pull".equalsIgnoreCase(options.get("consumer"))) {
            return null;
        }
        double fillS = perSubscriberRate <= 0 ? PULL_WAIT_S
                : Math.min(PULL_WAIT_S, JnatsSubscriber.PULL_BATCH / perSubscriberRate);
        return String.format(java.util.Locale.ROOT, "JetStream pull consumer: each subscriber fetches up to %d "
                + "messages per request and a request waits up to %.0f s for its batch to fill; at %.0f msg/s per "
                + "subscriber a batch takes %.0f ms, so a message waits up to that long in the stream before it is "
                + "fetched (about half of it at p50): the latency shows the fetch batching, not JetStream's delivery",
                JnatsSubscriber.PULL_BATCH, PULL_WAIT_S, perSubscriberRate, fillS * 1e3);
    }

    private static boolean jetStream(Map<String, String> options) {
        return "true".equalsIgnoreCase(options.get("jetstream"));
    }
}
