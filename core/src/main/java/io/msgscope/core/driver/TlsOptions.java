package io.msgscope.core.driver;

import io.msgscope.core.SpecException;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;

/**
 * {@code --opt tls_ca} and {@code --opt tls_verify} as the kafka and artemis drivers read them, with the defaults of
 * the mqtt, nats and redis drivers: the JVM's trust store unless {@code tls_ca} names a PEM file, and the certificate
 * checked (chain and host name) unless {@code tls_verify=false}, which accepts any (a test broker only).
 *
 * @param ca     the PEM file to trust, or null for the JVM's trust store
 * @param verify false to accept any certificate and host name
 */
public record TlsOptions(String ca, boolean verify) {
    public static final String CA = "tls_ca";
    public static final String VERIFY = "tls_verify";

    /**
     * The options read strictly: null when {@code tls} is false (and then either option is a usage error that names
     * {@code tlsScheme}), else checked: a readable file holding at least one PEM certificate, a boolean.
     */
    public static TlsOptions of(DriverSpec spec, boolean tls, String tlsScheme) {
        String ca = spec.option(CA, null);
        if (!tls) {
            if (ca != null || spec.options().containsKey(VERIFY)) {
                throw new SpecException("--opt " + (ca != null ? CA : VERIFY), "applies to TLS only: give a "
                        + tlsScheme + " --uri");
            }
            return null;
        }
        if (ca != null) {
            checkCertificates(ca);
        }
        return new TlsOptions(ca, spec.boolOption(VERIFY, true));
    }

    private static void checkCertificates(String ca) {
        Path p = Path.of(ca);
        if (!Files.isReadable(p) || Files.isDirectory(p)) {
            throw new SpecException("--opt " + CA, "cannot read the CA file '" + ca + "'");
        }
        try (InputStream in = Files.newInputStream(p)) {
            if (CertificateFactory.getInstance("X.509").generateCertificates(in).isEmpty()) {
                throw new SpecException("--opt " + CA, "holds no PEM certificate: '" + ca + "'");
            }
        } catch (IOException | CertificateException e) {
            throw new SpecException("--opt " + CA, "is not a usable PEM certificate file ('" + ca + "'): "
                    + String.valueOf(e.getMessage()).replace('\n', ' '));
        }
    }

    /** The results' {@code tls} entry. */
    public String label() {
        return !verify ? "not verified (tls_verify=false)" : ca == null ? "verified (the JVM's trust store)"
                : "verified (tls_ca)";
    }
}
