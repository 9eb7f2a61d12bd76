package io.msgscope.core.driver;

import io.msgscope.core.AcceptAnyCertificate;
import io.msgscope.core.SpecException;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.util.Collection;
import java.util.Set;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;

/**
 * The data path's TLS options (issue 35 item 6), read the same way by every driver that takes them through it
 * (amqp, amqp10, artemis, kafka, rabbitmq-stream, stomp):
 * <ul>
 *   <li>{@code tls_ca}: a PEM file of the certificates the broker's must chain to (default: the JVM's trust store);
 *       checked when read: a readable file holding at least one certificate;</li>
 *   <li>{@code tls_verify}: true checks the chain and that the certificate names the host dialled; false accepts any
 *       certificate and host name (a test broker only). Its default is the driver's (true but for amqp and
 *       amqp10), and true whenever {@code tls_ca} is given (a CA file nobody checks against would mislead).</li>
 * </ul>
 * Given with a plain URI, either option is a usage error naming it.
 *
 * @param ca     the {@code tls_ca} file, readable and holding certificates; null when not given
 * @param verify whether the chain and the host name are checked
 */
public record TlsOptions(String ca, boolean verify) {
    public static final String CA = "tls_ca";
    public static final String VERIFY = "tls_verify";
    public static final Set<String> KEYS = Set.of(CA, VERIFY);

    /** As {@link #of(DriverSpec, boolean, String, boolean)} with the certificate checked by default. */
    public static TlsOptions of(DriverSpec spec, boolean tls, String tlsSchemes) {
        return of(spec, tls, tlsSchemes, true);
    }

    /**
     * The options of {@code spec} for a URI with ({@code tls}) or without TLS: null without (after refusing the
     * options, naming {@code tlsSchemes}, e.g. "an amqps://"), else what they ask for.
     */
    public static TlsOptions of(DriverSpec spec, boolean tls, String tlsSchemes, boolean verifyByDefault) {
        String ca = spec.option(CA, null);
        if (!tls) {
            for (String k : new String[] {CA, VERIFY}) {
                if (spec.options().containsKey(k)) {
                    throw new SpecException("--opt " + k, "applies to TLS only: use " + tlsSchemes + " --uri");
                }
            }
            return null;
        }
        if (ca != null) {
            certificates(ca);
        }
        return new TlsOptions(ca, spec.boolOption(VERIFY, ca != null || verifyByDefault));
    }

    /** The certificates of the {@code tls_ca} file; unreadable, or none in it, is a SpecException naming it. */
    private static Collection<? extends Certificate> certificates(String ca) {
        Path p = Path.of(ca);
        if (!Files.isReadable(p) || Files.isDirectory(p)) {
            throw new SpecException("--opt " + CA, "cannot read the CA file '" + ca + "'");
        }
        try (InputStream in = Files.newInputStream(p)) {
            Collection<? extends Certificate> certs = CertificateFactory.getInstance("X.509").generateCertificates(in);
            if (certs.isEmpty()) {
                throw new SpecException("--opt " + CA, "holds no PEM certificate: '" + ca + "'");
            }
            return certs;
        } catch (IOException | GeneralSecurityException e) {
            throw new SpecException("--opt " + CA, "is not a usable PEM certificate file ('" + ca + "'): "
                    + String.valueOf(e.getMessage()).replace('\n', ' '));
        }
    }

    /**
     * What to trust: any certificate without {@code verify}; the {@code tls_ca} file's certificates; or null, the
     * JVM's default trust managers. An unusable file is a SpecException naming {@code tls_ca}.
     */
    public TrustManager[] trustManagers() {
        if (!verify) {
            return new TrustManager[] {new AcceptAnyCertificate()};
        }
        if (ca == null) {
            return null;
        }
        try {
            return trusting(Path.of(ca));
        } catch (GeneralSecurityException | IOException e) {
            throw new SpecException("--opt " + CA, "is not a usable PEM certificate file ('" + ca + "'): "
                    + e.getMessage());
        }
    }

    /** A TLS context with {@link #trustManagers}; the host name is the client's to check ({@link #verify}). */
    public SSLContext sslContext() {
        try {
            SSLContext c = SSLContext.getInstance("TLS");
            c.init(null, trustManagers(), null);
            return c;
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("the JVM has no TLS context: " + e.getMessage(), e);
        }
    }

    /** The results' {@code tls} entry. */
    public String label() {
        return !verify ? "not verified (tls_verify=false)" : ca == null ? "verified (the JVM's trust store)"
                : "verified (tls_ca)";
    }

    /** Trust managers that accept chains ending at one of the PEM certificates in {@code pem}. */
    public static TrustManager[] trusting(Path pem) throws GeneralSecurityException, IOException {
        KeyStore ks = KeyStore.getInstance(KeyStore.getDefaultType());
        ks.load(null, null);
        int n = 0;
        try (InputStream in = Files.newInputStream(pem)) {
            for (Certificate c : CertificateFactory.getInstance("X.509").generateCertificates(in)) {
                ks.setCertificateEntry("ca-" + n++, c);
            }
        }
        if (n == 0) {
            throw new GeneralSecurityException("no certificate in it");
        }
        TrustManagerFactory f = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        f.init(ks);
        return f.getTrustManagers();
    }
}
