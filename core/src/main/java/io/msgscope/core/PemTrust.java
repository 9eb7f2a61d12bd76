package io.msgscope.core;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;

/** The {@code tls_ca} option of the drivers whose client takes trust managers: a PEM file of certificates to trust. */
public final class PemTrust {
    private PemTrust() {
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
