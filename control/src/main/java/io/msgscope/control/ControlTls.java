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

import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLSession;
import javax.net.ssl.X509ExtendedTrustManager;
import java.net.InetAddress;
import java.net.Socket;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.InvalidAlgorithmParameterException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.PrivateKey;
import java.security.Signature;
import java.security.cert.CertPathValidator;
import java.security.cert.CertPathValidatorException;
import java.security.cert.CertificateEncodingException;
import java.security.cert.CertificateException;
import java.security.cert.CertificateExpiredException;
import java.security.cert.CertificateFactory;
import java.security.cert.CertificateNotYetValidException;
import java.security.cert.CertificateParsingException;
import java.security.cert.PKIXParameters;
import java.security.cert.TrustAnchor;
import java.security.cert.X509Certificate;
import java.time.format.DateTimeFormatter;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Date;
import java.util.List;
import java.util.Set;

/**
 * Mutual TLS 1.3 on the control channel (issue 14) with Netty's {@link SslHandler} over the JDK's
 * TLS: a {@code --tls-dir} folder ({@link Certificates}: {@code ca.pem}, {@code cert.pem},
 * {@code key.pem}) gives an agent a server identity that requires a client certificate from the
 * same CA, and a coordinator a client identity that checks the agent's certificate names the host
 * it dialled. Certificate checks are done here, not left to the JDK's defaults, so that a refusal
 * is one line that says what is wrong (expired when, issued by whom, which names).
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
                        .clientAuth(ClientAuth.REQUIRE).trustManager(new Checker(ca, null)).build();
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
                        .keyManager(key, cert).trustManager(new Checker(ca, "agent"))
                        .endpointIdentificationAlgorithm(null) // the Checker compares names itself, with a clear message
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
                    .trustManager(new AcceptAny()).endpointIdentificationAlgorithm(null).build();
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
    public static String describe(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof Refused r) {
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

    private static String who(X509Certificate c) {
        return c.getSubjectX500Principal().getName();
    }

    /** A certificate refused by {@link Checker}, with the one-line reason. */
    static final class Refused extends CertificateException {
        Refused(String message, Throwable cause) {
            super(message, cause);
        }
    }

    /**
     * Checks a peer's certificate against the CA (PKIX, no revocation: a private test-network CA) and,
     * on the coordinator's side, that it names the host dialled.
     */
    static final class Checker extends X509ExtendedTrustManager {
        private final X509Certificate ca;
        /** "agent" when checking an agent's (server) certificate on the coordinator, null on the agent. */
        private final String peer;

        Checker(X509Certificate ca, String peer) {
            this.ca = ca;
            this.peer = peer;
        }

        private void check(X509Certificate[] chain, String host) throws CertificateException {
            String whose = peer == null ? "the coordinator's certificate" : "the agent's certificate";
            if (chain == null || chain.length == 0) {
                throw new Refused(whose.replace("'s certificate", "") + " presented no certificate", null);
            }
            X509Certificate leaf = chain[0];
            try {
                CertificateFactory f = CertificateFactory.getInstance("X.509");
                PKIXParameters p = new PKIXParameters(Set.of(new TrustAnchor(ca, null)));
                p.setRevocationEnabled(false);
                List<X509Certificate> path = new ArrayList<>(List.of(chain));
                path.removeIf(c -> c.equals(ca));
                CertPathValidator.getInstance("PKIX").validate(f.generateCertPath(path), p);
            } catch (CertPathValidatorException e) {
                CertPathValidatorException.Reason r = e.getReason();
                String why;
                if (r == CertPathValidatorException.BasicReason.EXPIRED) {
                    why = whose + " (" + who(leaf) + ") expired on " + day(leaf.getNotAfter());
                } else if (r == CertPathValidatorException.BasicReason.NOT_YET_VALID) {
                    why = whose + " (" + who(leaf) + ") is not valid before " + day(leaf.getNotBefore());
                } else if (!leaf.getIssuerX500Principal().equals(ca.getSubjectX500Principal())
                        || r == CertPathValidatorException.BasicReason.INVALID_SIGNATURE
                        || r == java.security.cert.PKIXReason.NO_TRUST_ANCHOR) {
                    why = whose + " (" + who(leaf) + ") was not issued by this side's CA ("
                            + who(ca) + "; it names " + leaf.getIssuerX500Principal().getName() + ")";
                } else {
                    why = whose + " (" + who(leaf) + ") is not acceptable: " + e.getMessage();
                }
                throw new Refused(why, e);
            } catch (InvalidAlgorithmParameterException | NoSuchAlgorithmException e) {
                throw new CertificateException("cannot check certificates: " + e.getMessage(), e);
            }
            if (host != null) {
                List<String> names = names(leaf);
                if (!matches(names, host)) {
                    throw new Refused(whose + " (" + who(leaf) + ") names " + (names.isEmpty() ? "no host"
                            : String.join(", ", names)) + ", not " + host
                            + " (issue it with --host " + host + ", or dial a name it has)", null);
                }
            }
        }

        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
                throws CertificateException {
            check(chain, null);
        }

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
                throws CertificateException {
            String host = engine == null ? null : engine.getPeerHost();
            if (host == null) {
                throw new Refused("no host to check the agent's certificate against", null);
            }
            check(chain, host);
        }

        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket)
                throws CertificateException {
            check(chain, null);
        }

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket)
                throws CertificateException {
            throw new Refused("the agent's certificate cannot be checked without the host dialled", null);
        }

        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType) throws CertificateException {
            check(chain, null);
        }

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType) throws CertificateException {
            throw new Refused("the agent's certificate cannot be checked without the host dialled", null);
        }

        @Override
        public X509Certificate[] getAcceptedIssuers() {
            return new X509Certificate[]{ca};
        }
    }

    /** The subject alternative names (DNS names and IP addresses) of a certificate. */
    static List<String> names(X509Certificate c) {
        List<String> out = new ArrayList<>();
        try {
            Collection<List<?>> sans = c.getSubjectAlternativeNames();
            if (sans != null) {
                for (List<?> san : sans) {
                    int type = (Integer) san.get(0);
                    if (type == 2 || type == 7) { // dNSName, iPAddress
                        out.add(String.valueOf(san.get(1)));
                    }
                }
            }
        } catch (CertificateParsingException e) {
            // no usable names
        }
        return out;
    }

    /** Exact match, case-insensitive for names; IP literals compared as addresses (IPv6 forms differ). */
    static boolean matches(List<String> names, String host) {
        boolean ip = Certificates.isIpLiteral(host);
        for (String n : names) {
            if (ip && Certificates.isIpLiteral(n)) {
                try {
                    if (InetAddress.getByName(n).equals(InetAddress.getByName(host))) {
                        return true;
                    }
                } catch (UnknownHostException e) {
                    // not comparable
                }
            } else if (!ip && n.equalsIgnoreCase(host)) {
                return true;
            }
        }
        return false;
    }

    /** Trusts any server certificate: for the shared-secret mode, whose proofs are bound to it. */
    static final class AcceptAny extends X509ExtendedTrustManager {
        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket) {
        }

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket) {
        }

        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine) {
        }

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine) {
        }

        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType) {
        }

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType) {
        }

        @Override
        public X509Certificate[] getAcceptedIssuers() {
            return new X509Certificate[0];
        }
    }
}
