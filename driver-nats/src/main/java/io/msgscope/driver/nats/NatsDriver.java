package io.msgscope.driver.nats;

import io.msgscope.core.SpecException;
import io.msgscope.core.driver.ClientContext;
import io.msgscope.core.driver.Driver;
import io.msgscope.core.driver.DriverSpec;
import io.msgscope.core.driver.Publisher;
import io.msgscope.core.driver.Subscriber;

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
 * </ul>
 */
public final class NatsDriver implements Driver {
    static final Set<String> OPTIONS = Set.of("subject", "jetstream", "storage", "max_inflight", "username",
            "password", "token", "group", "consumer", "engine", "tls_ca", "tls_verify");

    @Override
    public String name() {
        return "nats";
    }

    @Override
    public Set<String> optionKeys() {
        return OPTIONS;
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
                : new NatsSubscriber(s, spec.messageSize());
    }

    @Override
    public Publisher openPublisher(DriverSpec spec, ClientContext context) throws IOException {
        NatsSettings s = NatsSettings.of(spec, true);
        return s.netty() ? new NettyNatsPublisher(s, spec.messageSize(), context)
                : new NatsPublisher(s, spec.messageSize());
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
                if (name.startsWith(NatsSubscriber.STREAM_PREFIX)) {
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
}
