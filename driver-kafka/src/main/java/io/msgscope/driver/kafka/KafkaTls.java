package io.msgscope.driver.kafka;

import io.msgscope.core.SpecException;
import io.msgscope.core.driver.DriverSpec;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.common.config.SslConfigs;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.util.Properties;

/**
 * TLS of a {@code kafka+ssl://} URI (issue 35 item 6), the same options and defaults as the mqtt, nats and redis
 * drivers: every client the driver makes (producer, consumer, Admin, backlog probe, clean) speaks
 * {@code security.protocol=SSL} with it.
 * <ul>
 *   <li>neither option: the broker's certificate must chain to the JVM's trust store and name the host dialled
 *       ({@code ssl.endpoint.identification.algorithm=https}, kafka-clients' own default);</li>
 *   <li>{@code tls_ca=FILE}: the chain must end at one of the PEM certificates in FILE instead
 *       ({@code ssl.truststore.type=PEM}, {@code ssl.truststore.location=FILE}), the host name still checked;</li>
 *   <li>{@code tls_verify=false}: any certificate and host name ({@link AnyCertificateSslEngineFactory}; a test
 *       broker only, recorded in the results as {@code tls: not verified (tls_verify=false)}).</li>
 * </ul>
 *
 * @param ca     the PEM file to trust, or null for the JVM's trust store
 * @param verify false to accept any certificate and host name
 */
record KafkaTls(String ca, boolean verify) {
    static final String CA = "tls_ca";
    static final String VERIFY = "tls_verify";

    /** The options read strictly: null for a plain URI (which refuses them), else a readable CA file of certificates. */
    static KafkaTls of(DriverSpec spec, boolean tls) {
        String ca = spec.option(CA, null);
        if (!tls) {
            if (ca != null || spec.options().containsKey(VERIFY)) {
                throw new SpecException("--opt " + (ca != null ? CA : VERIFY), "applies to TLS only: use a "
                        + "kafka+ssl:// URI");
            }
            return null;
        }
        if (ca != null) {
            checkCertificates(ca);
        }
        return new KafkaTls(ca, spec.boolOption(VERIFY, true));
    }

    /** Reads the PEM file as kafka-clients will, so that a bad one is a usage error before any agent starts. */
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
                    + KafkaClients.oneLine(e));
        }
    }

    /** Adds the client settings of this TLS to {@code p}. */
    void configure(Properties p) {
        p.put(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, "SSL");
        if (!verify) {
            p.put(SslConfigs.SSL_ENDPOINT_IDENTIFICATION_ALGORITHM_CONFIG, "");
            p.put(SslConfigs.SSL_ENGINE_FACTORY_CLASS_CONFIG, AnyCertificateSslEngineFactory.class.getName());
            return;
        }
        p.put(SslConfigs.SSL_ENDPOINT_IDENTIFICATION_ALGORITHM_CONFIG, "https");
        if (ca != null) {
            p.put(SslConfigs.SSL_TRUSTSTORE_TYPE_CONFIG, "PEM");
            p.put(SslConfigs.SSL_TRUSTSTORE_LOCATION_CONFIG, ca);
        }
    }

    /** The results' {@code tls} entry. */
    String label() {
        return !verify ? "not verified (tls_verify=false)" : ca == null ? "verified (the JVM's trust store)"
                : "verified (tls_ca)";
    }
}
