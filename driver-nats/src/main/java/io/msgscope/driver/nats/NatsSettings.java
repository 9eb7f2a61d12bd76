package io.msgscope.driver.nats;

import io.msgscope.core.SpecException;
import io.msgscope.core.driver.DriverSpec;
import io.msgscope.core.driver.Fault;
import io.nats.client.Connection;
import io.nats.client.ConnectionListener;
import io.nats.client.ErrorListener;
import io.nats.client.Nats;
import io.nats.client.Options;
import io.msgscope.netty.TlsClient;
import io.netty.handler.ssl.JdkSslContext;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;

import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The NATS options of one side, checked once, each error naming its option.
 *
 * @param netty   the lean core-NATS engine on Netty ({@code --opt engine=netty}, the default for core NATS); false
 *                for jnats (JetStream, or {@code --opt engine=jnats})
 * @param tlsOpts {@code tls_ca} and {@code tls_verify} as given (defaults: the JVM's trust store, verify)
 * @param servers every server of the URI list ({@code nats://a:4222,nats://b:4223}), the first being {@code url}
 * @param reconnect {@code --opt reconnect=true} (issue 32 item 3): either engine reconnects to any server of the list,
 *                  subscribes again, and the JetStream publisher (jnats) republishes what was not acknowledged
 * @param spread  {@code --opt spread=true} (a list of servers): an agent's connections start at the servers of the
 *                list in turn (netty) or at random (jnats' shuffle) instead of all at the first, to spread them over a
 *                cluster (issue 32: more connections than one server's file limit)
 * @param pingInterval {@code --opt ping_interval} (both engines): how often the client pings the server, two
 *                unanswered declaring it stale; null: jnats' default (2 minutes), no pings of its own on netty
 */
public record NatsSettings(String url, String host, int port, String address, boolean tls, TlsClient.Settings tlsOpts,
                    boolean netty, String subject, boolean jetStream, boolean memory, int maxInflight, String username,
                    String password, String token, String group, boolean pull, int socketBuffer, int replicas,
                    java.util.List<String> servers, boolean reconnect, boolean spread, Duration pingInterval) {
    /** The option naming how often the client pings the server. */
    public static final String PING_INTERVAL = "ping_interval";
    static final String DEFAULT_URI = "nats://127.0.0.1:4222";
    static final io.msgscope.core.driver.BrokerUri.Schemes SCHEMES = new io.msgscope.core.driver.BrokerUri.Schemes(
            java.util.List.of("nats"), java.util.List.of("tls"), 4222, 4222);
    public static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(5);
    /** With {@code reconnect=true}: the wait between two attempts on one server. */
    public static final Duration RECONNECT_WAIT = Duration.ofMillis(100);

    public static NatsSettings of(DriverSpec spec, boolean publisher) {
        spec.requireKnownOptions("nats", NatsDriver.OPTIONS);
        String raw = spec.uri().isEmpty() ? DEFAULT_URI : spec.uri();
        // a comma list of servers (a cluster): the first one's credentials and scheme are the connection's
        String[] list = raw.split(",");
        // issue 14: a URI the client would read otherwise than written is refused, its password masked
        io.msgscope.core.driver.BrokerUri uri = io.msgscope.core.driver.BrokerUri.parse(list[0].trim(), SCHEMES, spec);
        java.util.List<String> servers = new java.util.ArrayList<>();
        for (String one : list) {
            io.msgscope.core.driver.BrokerUri u = io.msgscope.core.driver.BrokerUri.parse(one.trim(), SCHEMES, spec);
            if (u.tls() != uri.tls()) {
                throw new SpecException("--uri", "mixes tls:// and nats:// servers in one list");
            }
            servers.add((u.tls() ? "tls://" : "nats://") + u.address());
        }
        boolean reconnect = io.msgscope.core.driver.Reconnects.on(spec);
        boolean tls = uri.tls();
        int port = uri.port();
        String user = uri.user();
        String pass = uri.password();
        String token = spec.option("token", null);
        if (token != null && user != null) {
            throw new SpecException("--opt token", "cannot be combined with a username");
        }
        if (pass != null && user == null) {
            throw new SpecException("--opt password", "needs --opt username as well");
        }
        boolean js = spec.boolOption("jetstream", false);
        String storage = spec.option("storage", "file").toLowerCase(Locale.ROOT);
        if (!storage.equals("file") && !storage.equals("memory")) {
            throw new SpecException("--opt storage", "must be file or memory, got '" + storage + "'");
        }
        if (!js && spec.options().containsKey("storage")) {
            throw new SpecException("--opt storage", "applies to JetStream only: add --opt jetstream=true");
        }
        if (!js && spec.options().containsKey("max_inflight")) {
            throw new SpecException("--opt max_inflight", "applies to JetStream only (core NATS has no acks)");
        }
        int maxInflight = (int) spec.longOption("max_inflight", 1000, 1, 1_000_000);
        if (!js && spec.options().containsKey("replicas")) {
            throw new SpecException("--opt replicas", "applies to JetStream only: add --opt jetstream=true");
        }
        // the stream's copies on a cluster (issue 32); JetStream allows at most 5
        int replicas = (int) spec.longOption("replicas", 1, 1, 5);
        String consumer = spec.option("consumer", "push").toLowerCase(Locale.ROOT);
        if (!consumer.equals("push") && !consumer.equals("pull")) {
            throw new SpecException("--opt consumer", "must be push or pull, got '" + consumer + "'");
        }
        if (!js && spec.options().containsKey("consumer")) {
            throw new SpecException("--opt consumer", "applies to JetStream only: add --opt jetstream=true");
        }
        String subject = publisher && !spec.destination().isEmpty() ? spec.destination()
                : spec.option("subject", publisher ? "" : "msgscope." + Long.toHexString(ThreadLocalRandom.current().nextLong()));
        if (subject.isEmpty()) {
            throw new SpecException("--opt subject", "the publisher has no subject: give --opt subject or let the subscriber choose one");
        }
        if (subject.indexOf('*') >= 0 || subject.indexOf('>') >= 0 || subject.indexOf(' ') >= 0) {
            throw new SpecException("--opt subject", "must be a subject without wildcards (*, >) or spaces, got '" + subject + "'");
        }
        if (!tls && TlsClient.Settings.given(spec)) {
            String opt = spec.options().containsKey("tls_ca") ? "tls_ca" : "tls_verify";
            throw new SpecException("--opt " + opt, "applies to TLS only: use a tls:// URI (a nats:// URI to a server "
                    + "that requires TLS is upgraded with the defaults: the JVM's trust store, verified)");
        }
        TlsClient.Settings tlsOpts = TlsClient.Settings.of(spec);
        boolean netty = netty(spec);
        boolean spread = spec.boolOption("spread", false);
        if (spread && servers.size() < 2) {
            throw new SpecException("--opt spread", "spreads the connections over the servers of a URI list: give "
                    + "more than one, e.g. --uri nats://127.0.0.1:4222,nats://127.0.0.1:4223");
        }
        Duration ping = pingInterval(spec);
        String address = uri.address();
        return new NatsSettings((tls ? "tls://" : "nats://") + address, uri.host(), port, address, tls, tlsOpts,
                netty, subject, js, storage.equals("memory"), maxInflight, user, pass, token, queueGroup(spec),
                consumer.equals("pull"), spec.socketBuffer(), replicas, java.util.List.copyOf(servers), reconnect, spread,
                ping);
    }

    /** {@code --opt ping_interval} as given (500ms, 1s, 2.5s, 1m; 100 ms to 10 min), or null when not given. */
    static Duration pingInterval(DriverSpec spec) {
        String v = spec.option(PING_INTERVAL, null);
        if (v == null) {
            return null;
        }
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("([0-9]+(?:\\.[0-9]+)?)(ms|s|m)").matcher(v.trim());
        if (!m.matches()) {
            throw new SpecException("--opt " + PING_INTERVAL, "'" + v + "' is not a time such as 500ms, 2s or 1m");
        }
        double ms = Double.parseDouble(m.group(1)) * switch (m.group(2)) {
            case "ms" -> 1;
            case "s" -> 1_000;
            default -> 60_000;
        };
        if (ms < 100 || ms > 600_000) {
            throw new SpecException("--opt " + PING_INTERVAL, "must be between 100ms and 10m, got '" + v + "'");
        }
        return Duration.ofMillis(Math.round(ms));
    }

    /**
     * Which engine these options run: {@code --opt engine=netty|jnats}; by default netty for core NATS and jnats
     * for JetStream, which the lean engine does not speak.
     */
    static boolean netty(DriverSpec spec) {
        boolean js = spec.boolOption("jetstream", false);
        String engine = spec.option("engine", js ? "jnats" : "netty").toLowerCase(Locale.ROOT);
        if (!engine.equals("netty") && !engine.equals("jnats")) {
            throw new SpecException("--opt engine", "must be netty or jnats, got '" + engine + "'");
        }
        if (js && engine.equals("netty")) {
            throw new SpecException("--opt engine", "netty speaks core NATS only; JetStream (--opt jetstream=true) runs "
                    + "on jnats: drop --opt engine or give --opt engine=jnats");
        }
        return engine.equals("netty");
    }

    /**
     * These settings aimed at server {@code i} of the list: its URL, host, port and address, everything else the same.
     * The netty engine dials one server at a time (the first that answers, and after a loss the next in turn), and
     * each of its messages names the server it was talking to.
     */
    public NatsSettings onServer(int i) {
        URI u = URI.create(servers.get(i)); // "nats://" + host:port, as read above
        return new NatsSettings(servers.get(i), u.getHost(), u.getPort(), u.getHost() + ":" + u.getPort(), tls, tlsOpts,
                netty, subject, jetStream, memory, maxInflight, username, password, token, group, pull, socketBuffer,
                replicas, servers, reconnect, spread, pingInterval);
    }

    /** Refuses a message size above the server's announced max_payload before anything is sent. */
    public void checkMaxPayload(int size, long maxPayload) {
        if (maxPayload > 0 && size > maxPayload) {
            throw new SpecException("--size", "must be at most " + maxPayload + " bytes with NATS at " + address
                    + " (its max_payload), got " + size);
        }
    }

    private static String queueGroup(DriverSpec spec) {
        String g = spec.option("group", "");
        // also a JetStream durable consumer's name: no '.', spaces or wildcards
        if (g.indexOf(' ') >= 0 || g.indexOf('*') >= 0 || g.indexOf('>') >= 0 || g.indexOf('.') >= 0) {
            throw new SpecException("--opt group", "must be a queue group name without spaces, '.' or wildcards, got '"
                    + g + "'");
        }
        return g;
    }

    /** Connects without reconnecting (a lost connection is reported, not hidden); one line on failure. */
    public Connection connect(String role, Runnable lost, ErrorListener errors) throws IOException {
        return connect(role, lost, () -> { }, errors);
    }

    /**
     * Connects; without {@code reconnect} a lost connection is reported ({@code lost}), not hidden. With it jnats
     * reconnects to any server of the list for as long as the run goes on, every 100 ms, keeping what is published
     * meanwhile in its reconnect buffer; {@code reconnected} runs each time it is back, {@code lost} only once it
     * gives up (closed). One line on failure.
     */
    public Connection connect(String role, Runnable lost, Runnable reconnected, ErrorListener errors)
            throws IOException {
        Options.Builder b = new Options.Builder().servers(servers.toArray(new String[0]))
                .connectionName("msgscope-" + role).connectionTimeout(CONNECT_TIMEOUT).errorListener(errors)
                .connectionListener((conn, event) -> {
                    if (event == ConnectionListener.Events.CLOSED
                            || event == ConnectionListener.Events.DISCONNECTED && !reconnect) {
                        lost.run();
                    } else if (event == ConnectionListener.Events.RECONNECTED) {
                        reconnected.run();
                    }
                });
        if (!spread) {
            // the list in its order, as on the netty engine: the first server that answers, after a loss the next one
            // (jnats shuffles it by default, which would put a run's clients on a node nobody chose)
            b.noRandomize();
        }
        if (pingInterval != null) {
            b.pingInterval(pingInterval).maxPingsOut(2); // two unanswered: stale (and with reconnect, the next server)
        }
        if (reconnect) {
            // unanswered requests (JetStream publishes whose ack died with the server) time out within a second
            b.maxReconnects(-1).reconnectWait(RECONNECT_WAIT).requestCleanupInterval(Duration.ofSeconds(1));
        } else {
            b.noReconnect();
        }
        if (tls) {
            jnatsTls(b);
        }
        if (username != null) {
            b.userInfo(username, password == null ? "" : password);
        }
        if (token != null) {
            b.token(token.toCharArray());
        }
        try {
            return Nats.connect(b.build());
        } catch (IOException e) {
            boolean auth = String.valueOf(e.getMessage()).toLowerCase(Locale.ROOT).contains("authorization");
            throw new Fault(auth ? Fault.Kind.REFUSED : Fault.Kind.CONNECT_FAILED, "cannot connect to NATS at " + address
                    + ": " + oneLine(e), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while connecting to NATS at " + address);
        }
    }

    /**
     * jnats with {@code tls_verify=false} (trust anything) or {@code tls_ca} (trust that PEM file); without either,
     * jnats' default for a tls:// URL (the JVM's trust store).
     */
    private void jnatsTls(Options.Builder b) throws IOException {
        try {
            if (!tlsOpts.verify()) {
                b.opentls();
            } else if (tlsOpts.caFile() != null) {
                SslContext ctx = SslContextBuilder.forClient().sslProvider(SslProvider.JDK)
                        .trustManager(new java.io.File(tlsOpts.caFile())).build();
                b.sslContext(((JdkSslContext) ctx).context());
            }
        } catch (javax.net.ssl.SSLException | java.security.GeneralSecurityException | IllegalArgumentException e) {
            throw new SpecException("--opt tls_ca", "is not a usable PEM certificate file ('" + tlsOpts.caFile() + "'): "
                    + oneLine(e));
        }
    }

    public static String oneLine(Throwable t) {
        String m = t.getMessage() == null ? t.getClass().getSimpleName() : t.getMessage();
        Throwable c = t.getCause();
        if (c != null && c.getMessage() != null && !m.contains(c.getMessage())) {
            m = m + " (" + c.getMessage() + ")";
        }
        return m.replace('\n', ' ');
    }
}
