package io.msgscope.driver.kafka;

import io.msgscope.core.driver.DriverSpec;
import io.msgscope.core.driver.TlsOptions;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.common.config.SslConfigs;

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
 * @param options {@code tls_ca} and {@code tls_verify}, checked
 */
record KafkaTls(TlsOptions options) {
    static final String CA = TlsOptions.CA;
    static final String VERIFY = TlsOptions.VERIFY;

    /** The options read strictly ({@link TlsOptions}): null for a plain URI, which refuses them. */
    static KafkaTls of(DriverSpec spec, boolean tls) {
        TlsOptions o = TlsOptions.of(spec, tls, "a kafka+ssl://");
        return o == null ? null : new KafkaTls(o);
    }

    /** Adds the client settings of this TLS to {@code p}. */
    void configure(Properties p) {
        p.put(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, "SSL");
        if (!options.verify()) {
            p.put(SslConfigs.SSL_ENDPOINT_IDENTIFICATION_ALGORITHM_CONFIG, "");
            p.put(SslConfigs.SSL_ENGINE_FACTORY_CLASS_CONFIG, AnyCertificateSslEngineFactory.class.getName());
            return;
        }
        p.put(SslConfigs.SSL_ENDPOINT_IDENTIFICATION_ALGORITHM_CONFIG, "https");
        if (options.ca() != null) {
            p.put(SslConfigs.SSL_TRUSTSTORE_TYPE_CONFIG, "PEM");
            p.put(SslConfigs.SSL_TRUSTSTORE_LOCATION_CONFIG, options.ca());
        }
    }

    /** The results' {@code tls} entry. */
    String label() {
        return options.label();
    }

    String ca() {
        return options.ca();
    }
}
