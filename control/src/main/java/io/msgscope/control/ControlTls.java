package io.msgscope.control;

import io.msgscope.core.SpecException;
import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.NotSslRecordException;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslProvider;

import javax.net.ssl.SSLException;
import javax.net.ssl.SSLSession;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.PrivateKey;
import java.security.Signature;
import java.security.cert.CertificateEncodingException;
import java.security.cert.CertificateExpiredException;
import java.security.cert.CertificateNotYetValidException;
import java.security.cert.X509Certificate;
import java.time.format.DateTimeFormatter;
import java.time.ZoneOffset;
import java.util.Date;

/**
 * Mutual TLS 1.3 on the control channel (issue 14) with Netty's {@link SslHandler} over the JDK's
 * TLS: a {@code --tls-dir} folder ({@link Certificates}: {@code ca.pem}, {@code cert.pem},
 * {@code key.pem}) gives an agent a server identity that requires a client certificate from the
 * same CA, and a coordinator a client identity that checks the agent's certificate names the host
 * it dialled. Certificate checks are done by {@link CertificateCheck}, not left to the JDK's defaults,
 * so that a refusal is one line that says what is wrong (expired when, issued by whom, which names).
 *
 * <p>Without a CA, an agent that has a shared secret still speaks TLS (for secrecy of the run spec)
 * with a throw-away certificate nobody verifies; the secret's proofs are then bound to that
 * certificate ({@link #binding}).
 */
public final class ControlTls {
    public static final String OPTION = "--tls-dir";
    static final String[] PROTOCOLS = {"TLSv1.3"};
    private static final DateTimeFormatter DAY = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss 'UTC'")
            .withZone(ZoneOffset.UTC);

    private final Path dir;
    private final X509Certificate ca;
    private final X509Certificate cert;
    private final PrivateKey key;
    private volatile SslContext agentContext;
    private volatile SslContext coordinatorContext;

    private ControlTls(Path dir, X509Certificate ca, X509Certificate cert, PrivateKey key) {
        this.dir = dir;
        this.ca = ca;
        this.cert = cert;
        this.key = key;
    }

    /** Loads a host folder; every problem is a {@link SpecException} naming {@value #OPTION} and the file. */
    public static ControlTls load(Path dir) {
        X509Certificate ca = Certificates.readCertificate(dir.resolve(Certificates.CA_CERT), OPTION);
        X509Certificate cert = Certificates.readCertificate(dir.resolve(Certificates.CERT), OPTION);
        PrivateKey key = Certificates.readKey(dir.resolve(Certificates.KEY), OPTION);
        try {
            cert.verify(ca.getPublicKey());
        } catch (GeneralSecurityException e) {
            throw new SpecException(OPTION, dir.resolve(Certificates.CERT) + " was not issued by the CA in "
                    + dir.resolve(Certificates.CA_CERT) + " (issuer " + cert.getIssuerX500Principal().getName() + ")");
        }
        try {
            cert.checkValidity();
        } catch (CertificateExpiredException e) {
            throw new SpecException(OPTION, dir.resolve(Certificates.CERT) + " expired on " + day(cert.getNotAfter())
                    + "; issue a new one (msgscope certs issue)");
        } catch (CertificateNotYetValidException e) {
            throw new SpecException(OPTION, dir.resolve(Certificates.CERT) + " is not valid before "
                    + day(cert.getNotBefore()) + " (is this host's clock right?)");
        }
        if (!keyMatches(key, cert)) {
            throw new SpecException(OPTION, dir.resolve(Certificates.KEY) + " is not the key of "
                    + dir.resolve(Certificates.CERT));
        }
        return new ControlTls(dir, ca, cert, key);
    }

    /** Without the checks of {@link #load} (tests: to put an expired certificate on the wire). */
    static ControlTls loadUnchecked(Path dir) {
        return new ControlTls(dir, Certificates.readCertificate(dir.resolve(Certificates.CA_CERT), OPTION),
                Certificates.readCertificate(dir.resolve(Certificates.CERT), OPTION),
                Certificates.readKey(dir.resolve(Certificates.KEY), OPTION));
    }

    public Path dir() {
        return dir;
    }

    public X509Certificate certificate() {
        return cert;
    }

    /** The agent's side: this host's certificate, a client certificate from the CA required. */
    public SslContext agentContext() {
        SslContext c = agentContext;
        if (c == null) {
            try {
                c = SslContextBuilder.forServer(key, cert).sslProvider(SslProvider.JDK).protocols(PROTOCOLS)
                        .clientAuth(ClientAuth.REQUIRE).trustManager(new CertificateCheck(ca, null)).build();
            } catch (SSLException e) {
                throw new SpecException(OPTION, "cannot use the certificate in " + dir + ": " + e.getMessage());
            }
            agentContext = c;
        }
        return c;
    }

    /** The coordinator's side: this host's certificate as client identity, the agent's checked against the CA and host. */
    public SslContext coordinatorContext() {
        SslContext c = coordinatorContext;
        if (c == null) {
            try {
                c = SslContextBuilder.forClient().sslProvider(SslProvider.JDK).protocols(PROTOCOLS)
                        .keyManager(key, cert).trustManager(new CertificateCheck(ca, "agent"))
                        .endpointIdentificationAlgorithm(null) // CertificateCheck compares the names itself, with a clear message
                        .build();
            } catch (SSLException e) {
                throw new SpecException(OPTION, "cannot use the certificate in " + dir + ": " + e.getMessage());
            }
            coordinatorContext = c;
        }
        return c;
    }

    /** The client handler for an agent at {@code host:port}: its certificate must name {@code host}. */
    public SslHandler coordinatorHandler(ByteBufAllocator alloc, String host, int port) {
        return coordinatorContext().newHandler(alloc, host, port);
    }

    /** An agent's TLS with a throw-away certificate (shared secret, no CA): no client certificate asked. */
    static SslContext ephemeralAgentContext(String name) {
        Certificates.Issued self = Certificates.selfSigned(name);
        try {
            return SslContextBuilder.forServer(self.key(), self.certificate()).sslProvider(SslProvider.JDK)
                    .protocols(PROTOCOLS).clientAuth(ClientAuth.NONE).build();
        } catch (SSLException e) {
            throw new IllegalStateException("cannot set up TLS: " + e.getMessage(), e);
        }
    }

    /** A coordinator's TLS towards an agent that has only the shared secret: any certificate, bound by the proofs. */
    static SslContext unverifiedClientContext() {
        try {
            return SslContextBuilder.forClient().sslProvider(SslProvider.JDK).protocols(PROTOCOLS)
                    .trustManager(new io.msgscope.core.AcceptAnyCertificate()).endpointIdentificationAlgorithm(null).build();
        } catch (SSLException e) {
            throw new IllegalStateException("cannot set up TLS: " + e.getMessage(), e);
        }
    }

    /**
     * The channel binding of a TLS session: SHA-256 of the agent's (server's) certificate as each side
     * sees it. A man in the middle must show the coordinator a certificate of his own, so the two sides'
     * bindings differ and the shared-secret proofs computed over them do not match.
     */
    static byte[] binding(SSLSession session, boolean agentSide) {
        try {
            java.security.cert.Certificate[] chain = agentSide ? session.getLocalCertificates()
                    : session.getPeerCertificates();
            if (chain == null || chain.length == 0) {
                throw new IllegalStateException("no server certificate in the TLS session");
            }
            return MessageDigest.getInstance("SHA-256").digest(chain[0].getEncoded());
        } catch (javax.net.ssl.SSLPeerUnverifiedException | CertificateEncodingException | NoSuchAlgorithmException e) {
            throw new IllegalStateException("no channel binding: " + e.getMessage(), e);
        }
    }

    /**
     * One line for a TLS failure, from the side that saw it: a certificate refused here says why;
     * a refusal by the peer names its alert.
     */
    /**
     * Whether a TLS failure is a refusal (a certificate check, a fatal alert from the peer, plain text, no client
     * certificate): the set-up's to fix, a usage error. A connection closed mid-handshake is not one (issue 28).
     */
    static boolean refusal(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            String m = t.getMessage();
            if (t instanceof CertificateCheck.Refused || t instanceof NotSslRecordException
                    || m != null && (m.startsWith("Received fatal alert: ")
                    || m.contains("Empty client certificate chain"))) {
                return true;
            }
        }
        return false;
    }

    public static String describe(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof CertificateCheck.Refused r) {
                return r.getMessage();
            }
        }
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof NotSslRecordException) {
                return "the peer does not speak TLS (plain text where a TLS record was expected)";
            }
            String m = t.getMessage();
            if (m != null && m.startsWith("Received fatal alert: ")) {
                String alert = m.substring("Received fatal alert: ".length());
                return "the peer refused the TLS handshake (alert " + alert + ")" + switch (alert) {
                    case "certificate_expired" -> ": it says our certificate has expired";
                    case "certificate_unknown", "bad_certificate", "unknown_ca" ->
                            ": it does not accept our certificate (another CA, expired, or wrong name; its log says which)";
                    case "certificate_required" -> ": it requires a client certificate (give --tls-dir)";
                    case "protocol_version" -> ": no common TLS version (TLS 1.3 is required)";
                    default -> "";
                };
            }
            if (m != null && m.contains("Empty client certificate chain")) {
                return "the peer presented no client certificate from this agent's CA (a coordinator without "
                        + "--tls-dir, or with a certificate of another CA)";
            }
            if (t instanceof SSLException && m != null) {
                return "TLS: " + m;
            }
            if (t instanceof java.nio.channels.ClosedChannelException) {
                return "the agent closed the connection without a word (too many connections waiting to "
                        + "authenticate there, or not a msgscope agent)";
            }
        }
        return e instanceof DecoderException && e.getCause() != null ? AgentSession.describe(e.getCause())
                : AgentSession.describe(e);
    }

    private static boolean keyMatches(PrivateKey key, X509Certificate cert) {
        try {
            String alg = switch (key.getAlgorithm()) {
                case "EC" -> "SHA256withECDSA";
                case "RSA" -> "SHA256withRSA";
                case "Ed25519", "EdDSA" -> "Ed25519";
                default -> null;
            };
            if (alg == null) {
                return true; // cannot check: the TLS handshake will
            }
            byte[] probe = "msgscope key check".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
            Signature s = Signature.getInstance(alg);
            s.initSign(key);
            s.update(probe);
            byte[] sig = s.sign();
            s.initVerify(cert.getPublicKey());
            s.update(probe);
            return s.verify(sig);
        } catch (GeneralSecurityException e) {
            return false;
        }
    }

    static String day(Date d) {
        return DAY.format(d.toInstant());
    }
}
