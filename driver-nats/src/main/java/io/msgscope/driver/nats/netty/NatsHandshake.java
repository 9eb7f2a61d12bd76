package io.msgscope.driver.nats.netty;

import io.msgscope.core.driver.ClientContext;
import io.msgscope.core.driver.Fault;
import io.msgscope.netty.TlsClient;
import io.msgscope.driver.nats.NatsSettings;
import io.netty.channel.Channel;
import io.netty.handler.ssl.SslHandler;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The set-up steps of a {@link NettyNatsConnection}, on the owner's thread before the first message: the TLS upgrade
 * after the plain-text INFO, the CONNECT line, and the wait for each step with its deadline, each failure one line
 * naming the server's address.
 */
final class NatsHandshake {
    private static final int TIMEOUT_MS = NettyNatsConnection.CONNECT_TIMEOUT_MS;

    private NatsHandshake() {
    }

    /**
     * TLS on {@code channel} after the plain-text INFO, with the context's shared SslContext ({@code tls_ca},
     * {@code tls_verify}).
     */
    static void upgrade(Channel channel, ClientContext context, NatsSettings settings) throws IOException {
        SslHandler tls = TlsClient.handler(context, settings.tlsOpts(), channel.alloc(), settings.host(),
                settings.port());
        tls.setHandshakeTimeoutMillis(TIMEOUT_MS);
        channel.pipeline().addFirst("tls", tls);
        var hs = tls.handshakeFuture();
        if (!hs.awaitUninterruptibly(2L * TIMEOUT_MS) || !hs.isSuccess()) {
            String why = hs.cause() == null ? "no answer within " + 2 * TIMEOUT_MS / 1000 + " s"
                    : NatsSettings.oneLine(hs.cause());
            throw new Fault(Fault.Kind.CONNECT_FAILED, "TLS handshake with NATS at " + settings.address() + " failed: "
                    + why, hs.cause());
        }
    }

    /** The CONNECT line: verbose and pedantic off, protocol 1, no echo, credentials when given. */
    static byte[] connect(NatsSettings settings, String role, NatsInfo i) {
        StringBuilder j = new StringBuilder("CONNECT {\"verbose\":false,\"pedantic\":false");
        j.append(",\"tls_required\":").append(settings.tls() || i.tlsRequired());
        j.append(",\"name\":").append(quote("msgscope-" + role));
        j.append(",\"lang\":\"java\",\"version\":").append(quote(version()));
        j.append(",\"protocol\":1");
        if (i.proto() >= 1) {
            j.append(",\"echo\":false"); // our publishers and subscribers are separate connections anyway
        }
        j.append(",\"headers\":false,\"no_responders\":false");
        if (settings.username() != null) {
            j.append(",\"user\":").append(quote(settings.username()));
            j.append(",\"pass\":").append(quote(settings.password() == null ? "" : settings.password()));
        }
        if (settings.token() != null) {
            j.append(",\"auth_token\":").append(quote(settings.token()));
        }
        j.append("}\r\n");
        return j.toString().getBytes(StandardCharsets.UTF_8);
    }

    private static String version() {
        String v = NatsHandshake.class.getPackage().getImplementationVersion();
        return v == null ? "msgscope" : "msgscope-" + v;
    }

    /** A JSON string literal. */
    static String quote(String s) {
        StringBuilder b = new StringBuilder(s.length() + 2).append('"');
        for (int k = 0; k < s.length(); k++) {
            char c = s.charAt(k);
            switch (c) {
                case '"' -> b.append("\\\"");
                case '\\' -> b.append("\\\\");
                case '\n' -> b.append("\\n");
                case '\r' -> b.append("\\r");
                case '\t' -> b.append("\\t");
                default -> {
                    if (c < 0x20) {
                        b.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
                    } else {
                        b.append(c);
                    }
                }
            }
        }
        return b.append('"').toString();
    }

    /** Waits for a set-up step; a Fault from the event loop is thrown as it is, anything else names the step. */
    static <T> T await(CompletableFuture<T> f, NatsSettings settings, String missing) throws IOException {
        try {
            return f.get(2L * TIMEOUT_MS, TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof Fault fault) {
                throw new Fault(fault.kind(), fault.getMessage(), fault);
            }
            throw new Fault(Fault.Kind.CONNECT_FAILED, "cannot connect to NATS at " + settings.address() + ": "
                    + NatsSettings.oneLine(e.getCause()), e.getCause());
        } catch (TimeoutException e) {
            throw new Fault(Fault.Kind.CONNECT_FAILED, "cannot connect to NATS at " + settings.address() + ": "
                    + missing + " within " + 2 * TIMEOUT_MS / 1000 + " s");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while connecting to NATS at " + settings.address());
        }
    }
}
