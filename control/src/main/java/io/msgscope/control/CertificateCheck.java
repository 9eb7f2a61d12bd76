package io.msgscope.control;

import javax.net.ssl.SSLEngine;
import javax.net.ssl.X509ExtendedTrustManager;
import java.net.InetAddress;
import java.net.Socket;
import java.net.UnknownHostException;
import java.security.InvalidAlgorithmParameterException;
import java.security.NoSuchAlgorithmException;
import java.security.cert.CertPathValidator;
import java.security.cert.CertPathValidatorException;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.CertificateParsingException;
import java.security.cert.PKIXParameters;
import java.security.cert.TrustAnchor;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Set;

/**
 * Checks a peer's certificate against the CA (PKIX, no revocation: a private test-network CA) and,
 * on the coordinator's side, that it names the host dialled; each refusal is one line that says what
 * is wrong (expired when, issued by whom, which names). {@link ControlTls} puts it in its TLS contexts.
 */
final class CertificateCheck extends X509ExtendedTrustManager {
    private final X509Certificate ca;
    /** "agent" when checking an agent's (server) certificate on the coordinator, null on the agent. */
    private final String peer;

    CertificateCheck(X509Certificate ca, String peer) {
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
                why = whose + " (" + who(leaf) + ") expired on " + ControlTls.day(leaf.getNotAfter());
            } else if (r == CertPathValidatorException.BasicReason.NOT_YET_VALID) {
                why = whose + " (" + who(leaf) + ") is not valid before " + ControlTls.day(leaf.getNotBefore());
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

    private static String who(X509Certificate c) {
        return c.getSubjectX500Principal().getName();
    }

    /** A certificate refused by this check, with the one-line reason. */
    static final class Refused extends CertificateException {
        Refused(String message, Throwable cause) {
            super(message, cause);
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
}
