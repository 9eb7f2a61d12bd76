package io.msgscope.driver.kafka;

import io.msgscope.core.AcceptAnyCertificate;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.security.auth.SslEngineFactory;

import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.util.Map;
import java.util.Set;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.TrustManager;

/**
 * The client TLS of {@code tls_verify=false} ({@link KafkaTls}): kafka-clients' own engine factory checks the chain
 * against some trust store in every setting, so this one, named by {@code ssl.engine.factory.class}, trusts any
 * certificate and checks no host name. Clients only: a broker never gets it.
 */
public final class AnyCertificateSslEngineFactory implements SslEngineFactory {
    private SSLContext context;

    @Override
    public void configure(Map<String, ?> configs) {
        try {
            context = SSLContext.getInstance("TLS");
            context.init(null, new TrustManager[] {new AcceptAnyCertificate()}, null);
        } catch (GeneralSecurityException e) {
            throw new KafkaException("cannot set up TLS: " + e.getMessage(), e);
        }
    }

    @Override
    public SSLEngine createClientSslEngine(String peerHost, int peerPort, String endpointIdentification) {
        SSLEngine e = context.createSSLEngine(peerHost, peerPort);
        e.setUseClientMode(true);
        return e;
    }

    @Override
    public SSLEngine createServerSslEngine(String peerHost, int peerPort) {
        throw new UnsupportedOperationException("a client-side engine factory");
    }

    @Override
    public boolean shouldBeRebuilt(Map<String, Object> nextConfigs) {
        return false;
    }

    @Override
    public Set<String> reconfigurableConfigs() {
        return Set.of();
    }

    @Override
    public KeyStore keystore() {
        return null;
    }

    @Override
    public KeyStore truststore() {
        return null;
    }

    @Override
    public void close() {
        // an SSLContext holds nothing to release
    }
}
