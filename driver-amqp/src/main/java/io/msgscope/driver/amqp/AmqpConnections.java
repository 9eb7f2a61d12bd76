package io.msgscope.driver.amqp;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.AuthenticationFailureException;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.Method;
import com.rabbitmq.client.PossibleAuthenticationFailureException;
import com.rabbitmq.client.ShutdownSignalException;
import io.msgscope.core.SpecException;
import io.msgscope.core.driver.DriverSpec;

import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLException;
import java.io.IOException;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.SocketTimeoutException;
import java.net.URISyntaxException;
import java.net.UnknownHostException;
import java.security.GeneralSecurityException;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Connection set-up shared by the publisher and the subscriber, and the translation of everything
 * amqp-client can throw into one line that names the broker's address (never the password).
 */
final class AmqpConnections {
    static final String DEFAULT_URI = "amqp://guest:guest@127.0.0.1:5672/%2f";
    static final int CONNECT_TIMEOUT_MS = 5_000;
    static final int HANDSHAKE_TIMEOUT_MS = 10_000;
    /** Bounds every synchronous AMQP method (queue.declare, tx.commit, ...): a silent broker fails, never hangs. */
    static final int RPC_TIMEOUT_MS = 30_000;
    static final int CLOSE_TIMEOUT_MS = 3_000;

    private AmqpConnections() {
    }

    /**
     * A factory for the spec's URI (default {@value #DEFAULT_URI}), the first of a comma-separated list of nodes
     * ({@link #nodes}); bad URIs are bad input naming --uri.
     */
    static ConnectionFactory factory(DriverSpec spec, AmqpOptions o) {
        nodes(spec, o); // every node of a list checked
        return factory(first(spec), o);
    }

    private static String first(DriverSpec spec) {
        String uri = spec.uri().isEmpty() ? DEFAULT_URI : spec.uri();
        return uri.split(",", -1)[0].trim();
    }

    /**
     * The nodes of {@code --uri}: one, or with {@code --opt reconnect=true} a comma-separated list
     * ({@code amqp://u:p@a:5672/%2f,amqp://u:p@b:5673/%2f}) of nodes that differ only in host and port, the first
     * connected first, the next one after each loss (issue 32 item 3).
     */
    static List<com.rabbitmq.client.Address> nodes(DriverSpec spec, AmqpOptions o) {
        String raw = spec.uri().isEmpty() ? DEFAULT_URI : spec.uri();
        String[] list = raw.split(",", -1);
        if (list.length > 1 && !o.reconnect()) {
            throw new SpecException("--uri", "a comma-separated list of nodes needs --opt " + AmqpOptions.RECONNECT
                    + "=true (without it the clients connect to one broker and stop when it goes)");
        }
        List<com.rabbitmq.client.Address> nodes = new java.util.ArrayList<>();
        ConnectionFactory head = null;
        for (String one : list) {
            ConnectionFactory f = factory(one.trim(), o);
            if (head == null) {
                head = f;
            } else if (f.isSSL() != head.isSSL() || !f.getUsername().equals(head.getUsername())
                    || !f.getPassword().equals(head.getPassword()) || !f.getVirtualHost().equals(head.getVirtualHost())) {
                throw new SpecException("--uri", "the nodes of a list must differ only in host and port (one scheme, "
                        + "user, password and vhost), got '" + redact(raw) + "'");
            }
            nodes.add(new com.rabbitmq.client.Address(f.getHost(), f.getPort()));
        }
        return List.copyOf(nodes);
    }

    /** "amqp://host:port/vhost" of node {@code a} reached with {@code f}'s scheme and vhost. */
    static String address(ConnectionFactory f, com.rabbitmq.client.Address a) {
        String vhost = f.getVirtualHost();
        return (f.isSSL() ? "amqps://" : "amqp://") + a.getHost() + ":" + a.getPort() + "/"
                + ("/".equals(vhost) ? "%2f" : vhost);
    }

    private static ConnectionFactory factory(String uri, AmqpOptions o) {
        if (uri.isEmpty()) {
            throw new SpecException("--uri", "has an empty entry in its comma-separated list of nodes");
        }
        // issue 14: amqp-client reads amqp://guest:p@ss@host as no host at all and falls back to localhost:5672
        // as guest; such a URI is refused here, its password masked
        io.msgscope.core.Secrets.requireStrictUri("--uri", uri);
        ConnectionFactory f = new ConnectionFactory();
        try {
            f.setUri(uri); // user, password, host, port, vhost; amqps:// switches TLS on (what it trusts: below)
        } catch (URISyntaxException | IllegalArgumentException e) {
            throw new SpecException("--uri", "is not an AMQP URI such as " + DEFAULT_URI + " or amqps://...: '"
                    + redact(uri) + "' (" + e.getMessage() + ")");
        } catch (GeneralSecurityException e) {
            throw new SpecException("--uri", "cannot set up TLS for '" + redact(uri) + "': " + e.getMessage());
        }
        if (f.isSSL()) {
            try {
                f.useSslProtocol(AmqpTls.context(o)); // what it trusts: AmqpTls, not amqp-client's default of the day
            } catch (GeneralSecurityException | java.io.IOException e) {
                throw new SpecException("--opt " + AmqpOptions.TLS_CA, "is not a usable PEM certificate file ('"
                        + o.tlsCa() + "'): " + e.getMessage());
            }
            if (o.tlsVerify()) {
                f.enableHostnameVerification();
            }
        } else if (o.tlsVerify() || o.tlsCa() != null) {
            throw new SpecException("--opt " + (o.tlsCa() != null ? AmqpOptions.TLS_CA : AmqpOptions.TLS_VERIFY),
                    "applies to amqps:// URIs only; got '" + redact(uri) + "'");
        }
        f.setAutomaticRecoveryEnabled(false); // a measurement must see a broken connection, not paper over it
        f.setTopologyRecoveryEnabled(false);
        f.setConnectionTimeout(CONNECT_TIMEOUT_MS);
        f.setHandshakeTimeout(HANDSHAKE_TIMEOUT_MS);
        f.setChannelRpcTimeout(RPC_TIMEOUT_MS);
        f.setShutdownTimeout(CLOSE_TIMEOUT_MS);
        return f;
    }

    /** "amqp://host:port/vhost" with neither user nor password. */
    static String address(ConnectionFactory f) {
        String vhost = f.getVirtualHost();
        return (f.isSSL() ? "amqps://" : "amqp://") + f.getHost() + ":" + f.getPort() + "/"
                + ("/".equals(vhost) ? "%2f" : vhost);
    }

    /** One named daemon thread, created lazily or by {@link ThreadPoolExecutor#prestartCoreThread()}. */
    static ThreadPoolExecutor singleThread(String name) {
        return new ThreadPoolExecutor(1, 1, 0, TimeUnit.MILLISECONDS, new LinkedBlockingQueue<>(), r -> {
            Thread t = new Thread(r, name);
            t.setDaemon(true);
            return t;
        });
    }

    /**
     * Opens a connection; every failure becomes one line naming the address: unreachable, no answer
     * within the connect/handshake timeout, login refused, virtual host refused, TLS. Where the broker's
     * socket limit is a likely cause (no answer, or the connection dropped during the handshake), the line
     * says so with {@code alreadyOpen}, this agent's connections open to that broker (see {@link #limitHint}).
     */
    static Connection open(ConnectionFactory f, ExecutorService executor, String name, int alreadyOpen)
            throws IOException {
        return open(f, null, executor, name, alreadyOpen);
    }

    /** {@link #open(ConnectionFactory, ExecutorService, String, int)} to node {@code node} (null: {@code f}'s own). */
    static Connection open(ConnectionFactory f, com.rabbitmq.client.Address node, ExecutorService executor,
                           String name, int alreadyOpen) throws IOException {
        String addr = node == null ? address(f) : address(f, node);
        try {
            return node == null ? f.newConnection(executor, name) : f.newConnection(executor, List.of(node), name);
        } catch (AuthenticationFailureException e) {
            throw new IOException("amqp: " + addr + " refused the login of user '" + f.getUsername() + "': "
                    + e.getMessage(), e);
        } catch (PossibleAuthenticationFailureException e) {
            throw new IOException("amqp: " + addr + " closed the connection during the login of user '"
                    + f.getUsername() + "' (wrong user name or password?)", e);
        } catch (java.net.BindException e) { // a source address (--source-addresses) this machine does not have
            throw new IOException("amqp: cannot connect to " + addr + ": " + e.getMessage(), e);
        } catch (ConnectException | NoRouteToHostException e) {
            throw new IOException("amqp: cannot connect to " + addr + ": " + e.getMessage(), e);
        } catch (SocketTimeoutException e) {
            throw new IOException("amqp: cannot connect to " + addr + ": no answer within " + CONNECT_TIMEOUT_MS
                    + " ms" + limitHint(alreadyOpen), e);
        } catch (UnknownHostException e) {
            throw new IOException("amqp: cannot connect to " + addr + ": unknown host " + e.getMessage(), e);
        } catch (SSLException e) {
            throw new IOException("amqp: TLS with " + addr + " failed: " + e.getMessage()
                    + (f.isSSL() ? "" : " (is this a TLS port? use amqps:// only for TLS listeners)"), e);
        } catch (TimeoutException e) {
            throw new IOException("amqp: " + addr + " did not complete the AMQP handshake within "
                    + HANDSHAKE_TIMEOUT_MS + " ms" + limitHint(alreadyOpen), e);
        } catch (IOException e) {
            ShutdownSignalException s = shutdownCause(e);
            if (s != null && s.getReason() instanceof AMQP.Connection.Close c && c.getReplyCode() == 530) {
                throw new IOException("amqp: " + addr + " refused virtual host '" + f.getVirtualHost() + "': "
                        + c.getReplyCode() + " " + c.getReplyText(), e);
            }
            if (s != null && s.getReason() instanceof AMQP.Connection.Close c && c.getReplyCode() == 403) {
                throw new IOException("amqp: " + addr + " refused user '" + f.getUsername() + "': "
                        + c.getReplyCode() + " " + c.getReplyText(), e);
            }
            // no close method from the broker: the connection dropped during the handshake
            boolean dropped = s == null || s.getReason() == null;
            throw new IOException("amqp: cannot connect to " + addr + ": " + (s != null ? closeReason(s) : describe(e))
                    + (dropped ? limitHint(alreadyOpen) : ""), e);
        }
    }

    /**
     * Why a broker may accept TCP and then never answer, or drop, a new connection: RabbitMQ limits its sockets to
     * about 90 % of its file descriptor limit and leaves the handshake of any connection past that unanswered
     * (seen with RabbitMQ 3.10: {@code ulimit -n} 256 gave 141 sockets; the Debian default 1,024 gives about 830).
     */
    static String limitHint(int alreadyOpen) {
        return " (this agent has " + alreadyOpen + " connections open to it; a broker past its socket limit, for "
                + "RabbitMQ about 0.9 x its file descriptor limit, leaves new connections unanswered: raise the "
                + "broker's ulimit -n, e.g. LimitNOFILE in its systemd unit)";
    }

    static ShutdownSignalException shutdownCause(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof ShutdownSignalException s) {
                return s;
            }
        }
        return null;
    }

    /**
     * "the broker closed the channel: 540 NOT_IMPLEMENTED - immediate=true", or how the connection was
     * lost when the broker sent no close method.
     */
    static String closeReason(ShutdownSignalException s) {
        Method m = s.getReason();
        if (m instanceof AMQP.Connection.Close c) {
            return "the broker closed the connection: " + c.getReplyCode() + " " + c.getReplyText();
        }
        if (m instanceof AMQP.Channel.Close c) {
            return "the broker closed the channel: " + c.getReplyCode() + " " + c.getReplyText();
        }
        Throwable cause = s.getCause();
        if (cause != null) {
            return "the connection was lost: " + describe(cause);
        }
        return "the " + (s.isHardError() ? "connection" : "channel") + " was closed";
    }

    /** The reply code of a broker-initiated close, or 0. */
    static int replyCode(ShutdownSignalException s) {
        Method m = s.getReason();
        if (m instanceof AMQP.Connection.Close c) {
            return c.getReplyCode();
        }
        if (m instanceof AMQP.Channel.Close c) {
            return c.getReplyCode();
        }
        return 0;
    }

    /** closeReason plus advice for the flags a broker is known to refuse. */
    static String explain(ShutdownSignalException s, AmqpOptions o) {
        String r = closeReason(s);
        if (replyCode(s) == 540 && o.immediate()) {
            return r + " (the broker does not implement the immediate flag, e.g. RabbitMQ >= 3.0; drop --opt "
                    + AmqpOptions.IMMEDIATE + ")";
        }
        return r;
    }

    static String describe(Throwable e) {
        String m = e.getMessage();
        return m == null || m.isBlank() ? e.getClass().getSimpleName() : m;
    }

    /** The URI with its password masked, as every message and result shows it. */
    static String redact(String uri) {
        return io.msgscope.core.Secrets.uri(uri);
    }
}
