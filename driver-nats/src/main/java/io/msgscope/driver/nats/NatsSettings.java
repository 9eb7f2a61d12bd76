package io.msgscope.driver.nats;

import io.msgscope.core.driver.DeliveryCount;
import io.msgscope.core.SpecException;
import io.msgscope.core.driver.DriverSpec;
import io.msgscope.core.driver.Fault;
import io.nats.client.Connection;
import io.nats.client.ConnectionListener;
import io.nats.client.ErrorListener;
import io.nats.client.Nats;
import io.nats.client.Options;

import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.ThreadLocalRandom;

/** The NATS options of one side, checked once, each error naming its option. */
record NatsSettings(String url, String address, boolean tls, String subject, boolean jetStream, boolean memory,
                    int maxInflight, String username, String password, String token, String group, boolean pull) {
    static final String DEFAULT_URI = "nats://127.0.0.1:4222";
    static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(5);

    static NatsSettings of(DriverSpec spec, boolean publisher) {
        spec.requireKnownOptions("nats", NatsDriver.OPTIONS);
        String raw = spec.uri().isEmpty() ? DEFAULT_URI : spec.uri();
        URI uri;
        try {
            uri = new URI(raw);
        } catch (URISyntaxException e) {
            throw new SpecException("--uri", "is not a URI: " + e.getMessage());
        }
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
        boolean tls = switch (scheme) {
            case "nats" -> false;
            case "tls" -> true;
            default -> throw new SpecException("--uri", "must start with nats:// or tls://, got '" + raw + "'");
        };
        if (uri.getHost() == null) {
            throw new SpecException("--uri", "names no host: '" + raw + "'");
        }
        int port = uri.getPort() < 0 ? 4222 : uri.getPort();
        String user = spec.option("username", null);
        String pass = spec.option("password", null);
        if (uri.getRawUserInfo() != null) {
            String[] up = uri.getRawUserInfo().split(":", 2);
            if (user == null) {
                user = URLDecoder.decode(up[0], StandardCharsets.UTF_8);
            }
            if (pass == null && up.length > 1) {
                pass = URLDecoder.decode(up[1], StandardCharsets.UTF_8);
            }
        }
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
        String address = uri.getHost() + ":" + port;
        return new NatsSettings((tls ? "tls://" : "nats://") + address, address, tls, subject, js,
                storage.equals("memory"), maxInflight, user, pass, token, queueGroup(spec), consumer.equals("pull"));
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
    Connection connect(String role, DeliveryCount lostFlag, ErrorListener errors) throws IOException {
        Options.Builder b = new Options.Builder().server(url).connectionName("msgscope-" + role)
                .connectionTimeout(CONNECT_TIMEOUT).noReconnect().errorListener(errors)
                .connectionListener((conn, event) -> {
                    if (event == ConnectionListener.Events.DISCONNECTED || event == ConnectionListener.Events.CLOSED) {
                        lostFlag.lost();
                    }
                });
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

    static String oneLine(Throwable t) {
        String m = t.getMessage() == null ? t.getClass().getSimpleName() : t.getMessage();
        Throwable c = t.getCause();
        if (c != null && c.getMessage() != null && !m.contains(c.getMessage())) {
            m = m + " (" + c.getMessage() + ")";
        }
        return m.replace('\n', ' ');
    }
}
