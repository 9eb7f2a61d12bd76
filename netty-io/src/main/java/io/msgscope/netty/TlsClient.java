package io.msgscope.netty;

import io.msgscope.core.SpecException;
import io.msgscope.core.driver.ClientContext;
import io.msgscope.core.driver.DriverSpec;
import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.util.InsecureTrustManagerFactory;

import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLParameters;
import java.io.File;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;

/**
 * TLS for the lean engines' client connections (issue 13), read from the same options by every engine:
 * <ul>
 *   <li>{@code tls_ca} a PEM file of the certificates to trust (default: the JVM's trust store)</li>
 *   <li>{@code tls_verify} true/false (default true): false accepts any certificate and host name, for
 *       a test broker with a self-signed certificate only; the results record it</li>
 * </ul>
 * The server's certificate must name the host of the URI unless {@code tls_verify=false}. One
 * {@link SslContext} per distinct setting and agent, shared by its connections.
 */
public final class TlsClient implements AutoCloseable {
    public static final Set<String> OPTIONS = Set.of("tls_ca", "tls_verify");

    private final Map<String, SslContext> contexts = new HashMap<>();

    /** What the options ask for, checked: the CA file readable, tls_verify a boolean. */
    public record Settings(String caFile, boolean verify) {
        public static Settings of(DriverSpec spec) {
            String ca = spec.option("tls_ca", null);
            if (ca != null && !new File(ca).canRead()) {
                throw new SpecException("--opt tls_ca", "cannot read the CA file '" + ca + "'");
            }
            return new Settings(ca, spec.boolOption("tls_verify", true));
        }

        /** True when the options mention TLS at all (so a plain-TCP URI with them is a usage error). */
        public static boolean given(DriverSpec spec) {
            return spec.options().containsKey("tls_ca") || spec.options().containsKey("tls_verify");
        }
    }

    /** A TLS handler for one connection to {@code host:port}, from the context's shared {@link SslContext}. */
    public static SslHandler handler(ClientContext context, Settings s, ByteBufAllocator alloc, String host, int port)
            throws SSLException {
        SslContext ssl = context.resource(TlsClient.class, TlsClient::new).context(s);
        SslHandler h = ssl.newHandler(alloc, host, port);
        if (s.verify()) {
            SSLEngine engine = h.engine();
            SSLParameters p = engine.getSSLParameters();
            p.setEndpointIdentificationAlgorithm("HTTPS"); // the certificate must name the host dialled
            engine.setSSLParameters(p);
        }
        return h;
    }

    private synchronized SslContext context(Settings s) throws SSLException {
        String key = s.caFile() + "|" + s.verify();
        SslContext c = contexts.get(key);
        if (c == null) {
            SslContextBuilder b = SslContextBuilder.forClient();
            try {
                if (!s.verify()) {
                    b.trustManager(InsecureTrustManagerFactory.INSTANCE);
                } else if (s.caFile() != null) {
                    b.trustManager(new File(s.caFile())); // parses the PEM: a bad file fails here
                }
                c = b.build();
            } catch (SSLException | IllegalArgumentException e) {
                throw new SpecException("--opt tls_ca", "is not a usable PEM certificate file ('" + s.caFile() + "'): "
                        + e.getMessage());
            }
            contexts.put(key, c);
        }
        return c;
    }

    @Override
    public void close() {
        // SslContexts of the JDK provider hold nothing to release
    }
}
