package io.msgscope.driver.artemis;

import io.msgscope.core.AcceptAnyCertificate;
import io.msgscope.core.driver.TlsOptions;

import java.net.InetSocketAddress;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManager;

/**
 * TLS of an {@code ssl://} URI (issue 35 item 6) as the core client's connector parameters: {@code sslEnabled}; with
 * {@code tls_ca} a PEM trust store ({@code trustStoreType=PEMCA}, read by the pem-keystore provider that comes with
 * artemis-core-client), else the JVM's; {@code verifyHost=true} (the client's own default is false) unless
 * {@code tls_verify=false}, which sets {@code trustAll} instead.
 *
 * <p>The core client says only "cannot connect" when a handshake fails (the JDK's reason goes to its log), so
 * {@link #whyHandshakeFails} repeats the handshake with the same trust to name it in the run's one line.
 */
final class ArtemisTls {
    private ArtemisTls() {
    }

    /** The connector parameters of {@code t}, as the query of a core client URL. */
    static String query(TlsOptions t) {
        StringBuilder q = new StringBuilder("?sslEnabled=true");
        if (!t.verify()) {
            return q.append("&trustAll=true&verifyHost=false").toString();
        }
        q.append("&verifyHost=true");
        if (t.ca() != null) {
            q.append("&trustStoreType=PEMCA&trustStorePath=").append(URLEncoder.encode(t.ca(), StandardCharsets.UTF_8));
        }
        return q.toString();
    }

    /** The JDK's reason a handshake with {@code host:port} fails under {@code t}, or null when it passes. */
    static String whyHandshakeFails(TlsOptions t, String host, int port) {
        try {
            TrustManager[] trust = !t.verify() ? new TrustManager[] {new AcceptAnyCertificate()}
                    : t.ca() != null ? TlsOptions.trusting(Path.of(t.ca())) : null;
            SSLContext c = SSLContext.getInstance("TLS");
            c.init(null, trust, null);
            try (SSLSocket s = (SSLSocket) c.getSocketFactory().createSocket()) {
                s.connect(new InetSocketAddress(host, port), 5_000);
                s.setSoTimeout(5_000);
                SSLParameters p = s.getSSLParameters();
                p.setEndpointIdentificationAlgorithm(t.verify() ? "HTTPS" : null);
                s.setSSLParameters(p);
                s.startHandshake();
            }
            return null;
        } catch (Exception e) {
            Throwable root = e;
            while (root.getCause() != null && root.getCause() != root) {
                root = root.getCause();
            }
            return "TLS handshake failed: " + String.valueOf(root.getMessage()).replace('\n', ' ');
        }
    }
}
