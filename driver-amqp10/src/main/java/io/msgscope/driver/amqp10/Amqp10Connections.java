package io.msgscope.driver.amqp10;

import io.msgscope.core.Secrets;
import io.msgscope.core.SpecException;
import io.msgscope.core.driver.BrokerUri;
import io.msgscope.core.driver.DriverSpec;
import io.msgscope.core.driver.Fault;
import org.apache.qpid.protonj2.client.Client;
import org.apache.qpid.protonj2.client.ClientOptions;
import org.apache.qpid.protonj2.client.Connection;
import org.apache.qpid.protonj2.client.ConnectionOptions;
import org.apache.qpid.protonj2.client.ErrorCondition;
import org.apache.qpid.protonj2.client.exceptions.ClientConnectionRemotelyClosedException;
import org.apache.qpid.protonj2.client.exceptions.ClientConnectionSecuritySaslException;
import org.apache.qpid.protonj2.client.exceptions.ClientException;
import org.apache.qpid.protonj2.client.exceptions.ClientResourceRemotelyClosedException;
import org.apache.qpid.protonj2.client.exceptions.ClientOperationTimedOutException;

import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * How the AMQP 1.0 driver reads {@code --uri} and opens a connection with ProtonJ2. The URI is
 * {@code amqp://user:password@host:port/vhost} ({@code amqps://} for TLS; port 5672 or 5671 by default; user and
 * password percent-encoded, overridden by {@code --opt username} and {@code --opt password}); the path, when not
 * empty or "/", is sent as the open frame's hostname, which brokers read as the virtual host (RabbitMQ 3.x as
 * {@code vhost:NAME}). Every message shows the URI with its password masked.
 *
 * <p>Each connection has a ProtonJ2 {@link Client} of its own (which holds no thread; the connection runs one I/O
 * thread of ProtonJ2's own) and is opened synchronously, so a refusal (no AMQP 1.0 on that port, bad credentials,
 * an unknown virtual host) is a one-line {@link Fault} before the run starts.
 */
final class Amqp10Connections {
    static final String DEFAULT_URI = "amqp://guest:guest@127.0.0.1:5672";
    static final BrokerUri.Schemes SCHEMES = new BrokerUri.Schemes(List.of("amqp"), List.of("amqps"), 5672, 5671);

    private Amqp10Connections() {
    }

    /** The URI as the driver reads it: {@code --uri} (its first node), or {@link #DEFAULT_URI} when empty. */
    static BrokerUri uri(DriverSpec spec) {
        return BrokerUri.parse(raw(spec), SCHEMES, spec);
    }

    /** {@code --uri}'s first node, or {@link #DEFAULT_URI}. */
    static String raw(DriverSpec spec) {
        return spec.uri().isEmpty() ? DEFAULT_URI : spec.uri().split(",", -1)[0].trim();
    }

    /** One node of {@code --uri}'s list: where ProtonJ2 may connect. */
    record Node(String host, int port) {
    }

    /**
     * The nodes of {@code --uri}: one, or with {@code --opt reconnect=true} a comma-separated list
     * ({@code amqp://u:p@a:5672,amqp://u:p@b:5673}) of nodes that differ only in host and port, the first connected
     * first, the others tried in turn after a loss (issue 32 item 3).
     */
    static List<Node> nodes(DriverSpec spec, boolean reconnect) {
        String all = spec.uri().isEmpty() ? DEFAULT_URI : spec.uri();
        String[] list = all.split(",", -1);
        if (list.length > 1 && !reconnect) {
            throw new SpecException("--uri", "a comma-separated list of nodes needs --opt " + Amqp10Options.RECONNECT
                    + "=true (without it the clients connect to one broker and stop when it goes)");
        }
        BrokerUri head = uri(spec);
        String headPath = String.valueOf(URI.create(raw(spec)).getRawPath());
        List<Node> nodes = new java.util.ArrayList<>();
        for (String one : list) {
            String u = one.trim();
            if (u.isEmpty()) {
                throw new SpecException("--uri", "has an empty entry in its comma-separated list of nodes");
            }
            BrokerUri b = BrokerUri.parse(u, SCHEMES, spec);
            if (b.tls() != head.tls() || !java.util.Objects.equals(b.user(), head.user())
                    || !java.util.Objects.equals(b.password(), head.password())
                    || !String.valueOf(URI.create(u).getRawPath()).equals(headPath)) {
                throw new SpecException("--uri", "the nodes of a list must differ only in host and port (one scheme, "
                        + "user, password and virtual host), got '" + Secrets.uri(all) + "'");
            }
            nodes.add(new Node(b.host(), b.port()));
        }
        return List.copyOf(nodes);
    }

    /** The virtual host the URI's path names, or null for the broker's default ("" or "/"). */
    static String virtualHost(DriverSpec spec) {
        String path = URI.create(raw(spec)).getRawPath();
        if (path == null || path.isEmpty() || path.equals("/")) {
            return null;
        }
        String v = URLDecoder.decode(path.substring(1), StandardCharsets.UTF_8);
        if (v.equals("/")) {
            return null;
        }
        if (v.isEmpty() || v.indexOf('/') >= 0) {
            throw new SpecException("--uri", "the path names the virtual host: one segment, got '" + Secrets.uri(raw(spec))
                    + "'");
        }
        return v;
    }

    /** The connection options the driver's options and URI make. */
    static ConnectionOptions options(DriverSpec spec, Amqp10Options o, BrokerUri uri) {
        ConnectionOptions c = new ConnectionOptions();
        if (uri.user() != null && !uri.user().isEmpty()) {
            c.user(uri.user());
        }
        if (uri.password() != null) {
            c.password(uri.password());
        }
        String vhost = virtualHost(spec);
        if (vhost != null) {
            c.virtualHost(vhost);
        }
        c.idleTimeout(o.idleTimeoutMs());
        c.openTimeout(o.openTimeoutMs());
        c.closeTimeout(o.openTimeoutMs());
        c.requestTimeout(o.openTimeoutMs());
        c.transportOptions().tcpNoDelay(true);
        c.transportOptions().connectTimeout((int) Math.min(Integer.MAX_VALUE, o.openTimeoutMs()));
        if (spec.socketBuffer() > 0) {
            c.transportOptions().sendBufferSize(spec.socketBuffer());
            c.transportOptions().receiveBufferSize(spec.socketBuffer());
        }
        if (o.tls() != null) {
            c.sslEnabled(true);
            c.sslOptions().sslContextOverride(o.tls().sslContext()); // trusts what tls_ca/tls_verify say
            c.sslOptions().verifyHost(o.tls().verify());
        }
        return c;
    }

    /**
     * An open connection and the client it belongs to; closing it closes both. {@code events}: its reconnects with
     * {@code --opt reconnect=true}, else null.
     */
    record Opened(Client client, Connection connection, String address, Amqp10Reconnect.Events events)
            implements AutoCloseable {
        @Override
        public void close() {
            try {
                connection.close();
            } catch (RuntimeException e) {
                // closing anyway
            }
            client.close();
        }
    }

    /**
     * Connects and waits for the broker's open frame.
     *
     * @param role "publisher" or "subscriber", in the container id when none is given
     * @throws Fault naming the address and the cause in one line
     */
    static Opened open(DriverSpec spec, Amqp10Options o, String role) throws Fault {
        BrokerUri uri = uri(spec);
        ClientOptions co = new ClientOptions();
        if (!o.containerId().isEmpty()) {
            co.id(o.containerId());
        }
        Client client = Client.create(co);
        String address = uri.address();
        Connection c = null;
        ConnectionOptions options = options(spec, o, uri);
        Amqp10Reconnect.Events events = o.reconnect() ? new Amqp10Reconnect.Events() : null;
        if (events != null) {
            Amqp10Reconnect.configure(options, nodes(spec, true), events);
        }
        try {
            c = client.connect(uri.host(), uri.port(), options);
            c.openFuture().get(o.openTimeoutMs(), TimeUnit.MILLISECONDS);
            return new Opened(client, c, address, events);
        } catch (ClientException | ExecutionException | TimeoutException | RuntimeException e) {
            if (c != null) {
                try {
                    c.close();
                } catch (RuntimeException x) {
                    // the connection never opened
                }
            }
            client.close();
            throw connectFailed(role, address, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            client.close();
            throw new Fault(Fault.Kind.CONNECT_FAILED, "amqp10: interrupted while connecting to " + address, e);
        }
    }

    static Fault connectFailed(String role, String address, Throwable e) {
        Throwable c = unwrap(e);
        Fault.Kind kind = c instanceof ClientConnectionSecuritySaslException ? Fault.Kind.REFUSED : Fault.Kind.CONNECT_FAILED;
        return new Fault(kind, "amqp10: cannot connect the " + role + " to " + address + ": " + describe(c)
                + hint(c), c);
    }

    /**
     * What a connection refused for want of AMQP 1.0 looks like: the broker answers the AMQP 1.0 protocol header with
     * its own (RabbitMQ without rabbitmq_amqp1_0 sends AMQP 0-9-1's) and closes; ProtonJ2 reports a bad header or a
     * connection closed before open.
     */
    private static String hint(Throwable c) {
        String m = String.valueOf(c.getMessage()).toLowerCase(java.util.Locale.ROOT);
        if (m.contains("header") || m.contains("closed before") || m.contains("remotely closed")
                || m.contains("transport closed") || m.contains("connection closed")) {
            return " (the broker does not speak AMQP 1.0 on this port? RabbitMQ needs its plugin: "
                    + "rabbitmq-plugins enable rabbitmq_amqp1_0)";
        }
        return "";
    }

    static Throwable unwrap(Throwable e) {
        Throwable c = e;
        while ((c instanceof ExecutionException || c instanceof java.util.concurrent.CompletionException)
                && c.getCause() != null) {
            c = c.getCause();
        }
        return c;
    }

    /** One line: the broker's error condition when it sent one, else the message, else the class. */
    static String describe(Throwable e) {
        Throwable c = unwrap(e);
        ErrorCondition ec = null;
        if (c instanceof ClientConnectionRemotelyClosedException r) {
            ec = r.getErrorCondition();
        } else if (c instanceof ClientResourceRemotelyClosedException r) {
            ec = r.getErrorCondition();
        }
        if (ec != null && ec.condition() != null) {
            return ec.condition() + (ec.description() == null ? "" : " " + ec.description().replace('\n', ' '));
        }
        if (c instanceof ClientOperationTimedOutException || c instanceof TimeoutException) {
            return "no answer in time" + (c.getMessage() == null ? "" : " (" + c.getMessage().replace('\n', ' ') + ")");
        }
        String m = c.getMessage();
        if (m == null || m.isBlank()) {
            return c.getClass().getSimpleName();
        }
        return m.replace('\n', ' ').replace('\r', ' ');
    }
}
