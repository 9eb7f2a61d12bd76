package io.msgscope.driver.amqp;

import io.msgscope.core.AcceptAnyCertificate;
import io.msgscope.core.PemTrust;
import java.io.IOException;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManager;

/**
 * What an {@code amqps://} connection trusts (docs/drivers/amqp.md), set on the factory explicitly rather than left to
 * amqp-client: its {@code amqps://} default has moved between releases (5.37 checks the chain against the JVM's trust
 * store, earlier ones trusted anything), which made this driver's documented default untrue.
 * <ul>
 *   <li>neither option (the default): any certificate, any host name — a test broker's self-signed certificate
 *       works; the results record the URI's scheme, and the docs say it is no check at all;</li>
 *   <li>{@code tls_ca=FILE}: the broker's certificate must chain to one of the PEM certificates in FILE;</li>
 *   <li>{@code tls_verify=true}: the chain is checked (against FILE, or the JVM's trust store without one) and the
 *       certificate must name the host dialled ({@code enableHostnameVerification}).</li>
 * </ul>
 */
final class AmqpTls {
    private AmqpTls() {
    }

    /** The TLS context {@code o} asks for (only for amqps:// URIs). */
    static SSLContext context(AmqpOptions o) throws GeneralSecurityException, IOException {
        TrustManager[] trust;
        if (o.tlsCa() != null) {
            trust = PemTrust.trusting(Path.of(o.tlsCa()));
        } else if (o.tlsVerify()) {
            trust = null; // the JVM's default trust managers
        } else {
            trust = new TrustManager[] {new AcceptAnyCertificate()};
        }
        SSLContext c = SSLContext.getInstance("TLS");
        c.init(null, trust, null);
        return c;
    }
}
