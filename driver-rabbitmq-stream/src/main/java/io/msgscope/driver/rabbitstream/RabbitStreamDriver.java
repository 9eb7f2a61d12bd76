package io.msgscope.driver.rabbitstream;

import com.rabbitmq.stream.Environment;
import com.rabbitmq.stream.EnvironmentBuilder;
import com.rabbitmq.stream.StreamException;
import io.msgscope.core.SpecException;
import io.msgscope.core.driver.ClientContext;
import io.msgscope.core.driver.Driver;
import io.msgscope.core.driver.DriverSpec;
import io.msgscope.core.driver.Fault;
import io.msgscope.core.driver.Publisher;
import io.msgscope.core.driver.ScenarioSupport;
import io.msgscope.core.driver.Subscriber;
import io.msgscope.core.driver.TlsOptions;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;

import java.io.IOException;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

/**
 * RabbitMQ Streams over RabbitMQ's native stream protocol (issue 35 item 1), through RabbitMQ's {@code stream-client}
 * library: the broker's {@code rabbitmq_stream} plugin, port 5552. Not an option of the AMQP 0-9-1 driver (which
 * reaches stream queues through AMQP 0-9-1): a protocol, port, client and options of their own.
 *
 * <p>Set-up: the subscriber creates a stream per run ({@value #STREAM_PREFIX}UUID, or in scenario mode the topic
 * named after the run id), consumes it from {@code --opt offset} and deletes it when it closes; the publisher sends
 * to it with confirms ({@code messages_acked}). Options: {@link RabbitStreamOptions}; scenarios:
 * {@link RabbitStreamScenarios}.
 *
 * <p>Threads: the clients of a scenario role share an {@link Environment} ({@link StreamEnvironments}: its Netty event
 * loops and schedulers), each producer and consumer on a connection of its own; a trace run's side has its own.
 */
public final class RabbitStreamDriver implements Driver {
    public static final String NAME = "rabbitmq-stream";
    static final String DEFAULT_URI = "rabbitmq-stream://guest:guest@127.0.0.1:5552/%2f";
    /** Streams msgscope names (trace mode) start with this; scenario topics start with "msgscope-". */
    static final String STREAM_PREFIX = "msgscope-stream-";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public Set<String> optionKeys() {
        return RabbitStreamOptions.KEYS;
    }

    @Override
    public void checkOptions(DriverSpec spec) {
        RabbitStreamOptions.of(spec);
        tls(spec);
    }

    /** Heap and little-endian: the payload is copied into each message's byte[] body. */
    @Override
    public ByteBuffer allocatePayload(int capacity) {
        return ByteBuffer.allocate(capacity).order(ByteOrder.LITTLE_ENDIAN);
    }

    @Override
    public ScenarioSupport scenarios() {
        return RabbitStreamScenarios.INSTANCE;
    }

    /** The broker URI: {@code rabbitmq-stream://USER:PASS@HOST:PORT/VHOST} (or {@code rabbitmq-stream+tls}). */
    static String uri(DriverSpec spec) {
        String u = spec.uri().isEmpty() ? DEFAULT_URI : spec.uri();
        try {
            URI parsed = URI.create(u);
            String scheme = parsed.getScheme();
            boolean known = "rabbitmq-stream".equals(scheme) || "rabbitmq-stream+tls".equals(scheme);
            if (!known || parsed.getHost() == null) {
                throw new IllegalArgumentException("scheme");
            }
        } catch (IllegalArgumentException e) {
            throw new SpecException("--uri", "must be rabbitmq-stream://[USER:PASS@]HOST[:PORT][/VHOST], got '"
                    + u.replaceAll("//[^@/]*@", "//***@") + "'");
        }
        return u;
    }

    static Environment environment(DriverSpec spec) throws Fault {
        try {
            // one connection per producer and per consumer, also when an environment is shared (StreamEnvironments)
            EnvironmentBuilder b = Environment.builder().uri(uri(spec)).maxProducersByConnection(1)
                    .maxConsumersByConnection(1).maxTrackingConsumersByConnection(1);
            TlsOptions tls = tls(spec);
            if (tls != null) {
                b.tls().sslContext(nettyContext(tls)).hostnameVerification(tls.verify());
            }
            return b.build();
        } catch (StreamException | IllegalStateException e) {
            throw new Fault(Fault.Kind.REFUSED, NAME + ": connecting to " + display(spec) + " failed: "
                    + (tlsFailure(e) != null ? "TLS handshake: " + tlsFailure(e) : describe(e)), e);
        }
    }

    /**
     * {@code tls_ca}/{@code tls_verify} for a {@code rabbitmq-stream+tls://} URI (default: the JVM's trust store and
     * the host name checked, the client's own default), null for {@code rabbitmq-stream://}.
     */
    static TlsOptions tls(DriverSpec spec) {
        return TlsOptions.of(spec, uri(spec).startsWith("rabbitmq-stream+tls:"), "a rabbitmq-stream+tls://", true);
    }

    /** The client's Netty context, trusting what {@code tls} says. */
    private static SslContext nettyContext(TlsOptions tls) {
        javax.net.ssl.TrustManager[] trust = tls.trustManagers();
        try {
            SslContextBuilder b = SslContextBuilder.forClient();
            return (trust == null ? b : b.trustManager(trust[0])).build();
        } catch (javax.net.ssl.SSLException e) {
            throw new IllegalStateException("no TLS context: " + e.getMessage(), e);
        }
    }

    /** What the certificate check said when {@code e} comes from a failed TLS handshake, else null. */
    static String tlsFailure(Throwable e) {
        String why = null;
        boolean tls = false;
        for (Throwable t = e; t != null; t = t.getCause()) {
            tls |= t instanceof javax.net.ssl.SSLException;
            why = t.getMessage() != null ? t.getMessage() : why;
        }
        return tls ? why : null;
    }

    static String display(DriverSpec spec) {
        return uri(spec).replaceAll("//[^@/]*@", "//");
    }

    static String describe(Throwable e) {
        Throwable t = e;
        while (t.getCause() != null && t.getMessage() == null) {
            t = t.getCause();
        }
        return t.getClass().getSimpleName() + (t.getMessage() == null ? "" : ": " + t.getMessage());
    }

    /** Creates the stream unless it is there already (the client treats "already exists" as done). */
    static void create(Environment env, String stream) {
        env.streamCreator().stream(stream).create();
    }

    /** Deletes the stream; already gone (another subscriber of the scenario deleted it) is fine. */
    static void delete(Environment env, String stream) {
        try {
            env.deleteStream(stream);
        } catch (StreamException e) {
            // gone already, or the broker went away: clean removes what is left
        }
    }

    @Override
    public Subscriber openSubscriber(DriverSpec spec, ClientContext context) throws IOException {
        RabbitStreamOptions o = RabbitStreamOptions.of(spec);
        boolean own = o.stream().isEmpty();
        String stream = !own ? o.stream() : !spec.destination().isEmpty() ? spec.destination()
                : STREAM_PREFIX + UUID.randomUUID();
        StreamEnvironments.Lease env = StreamEnvironments.lease(spec, context);
        try {
            if (own) {
                create(env.env(), stream);
            }
            return new RabbitStreamSubscriber(o, env, stream, own, display(spec));
        } catch (StreamException | IllegalStateException e) {
            env.release();
            throw new Fault(Fault.Kind.REFUSED, NAME + ": the broker at " + display(spec) + " refused the subscriber "
                    + "on stream '" + stream + "': " + describe(e), e);
        }
    }

    @Override
    public Publisher openPublisher(DriverSpec spec, ClientContext context) throws IOException {
        RabbitStreamOptions o = RabbitStreamOptions.of(spec);
        String stream = !o.stream().isEmpty() ? o.stream() : spec.destination();
        if (stream.isEmpty()) {
            throw new SpecException("destination", "the " + NAME + " publisher needs the subscriber's stream (the "
                    + "receiver reports it) or --opt stream");
        }
        StreamEnvironments.Lease env = StreamEnvironments.lease(spec, context);
        try {
            if (o.stream().isEmpty()) { // scenario mode may open a publisher before a subscriber made its topic
                create(env.env(), stream);
            }
            return new RabbitStreamPublisher(o, env, stream, spec.messageSize(), display(spec));
        } catch (StreamException | IllegalStateException e) {
            env.release();
            throw new Fault(Fault.Kind.REFUSED, NAME + ": the broker at " + display(spec) + " refused the publisher on "
                    + "stream '" + stream + "': " + describe(e), e);
        }
    }

    /** Runs leave no stream while the broker is there; see docs/limits.md for a killed run's leftovers. */
    @Override
    public String failureNote(Map<String, String> options) {
        return "streams this run made (" + STREAM_PREFIX + "UUID, or msgscope-SCENARIO-RUNID.N) are deleted at its "
                + "end while the broker is there; if it went away, delete them with rabbitmqctl delete_queue";
    }
}
