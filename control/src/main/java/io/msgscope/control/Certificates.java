package io.msgscope.control;

import io.msgscope.core.SpecException;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x500.X500NameBuilder;
import org.bouncycastle.asn1.x500.style.BCStyle;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.X509CertificateHolder;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509ExtensionUtils;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.openssl.PEMKeyPair;
import org.bouncycastle.openssl.PEMParser;
import org.bouncycastle.openssl.jcajce.JcaPEMKeyConverter;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.openssl.jcajce.JcaPKCS8Generator;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

import java.io.IOException;
import java.io.Reader;
import java.io.StringWriter;
import java.math.BigInteger;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import java.util.Set;

/**
 * The control plane's certificates (issue 14): a private CA per test network and one key and
 * certificate per host, built with BouncyCastle's bcpkix (X.509 and PEM), signed with the JDK's
 * own ECDSA. Keys are EC P-256; host certificates carry the host's names and addresses as subject
 * alternative names and serve both TLS ends (an agent's server side, a coordinator's client side).
 *
 * <p>Files: a CA folder holds {@value #CA_CERT} and {@value #CA_KEY}; a host folder (what
 * {@code --tls-dir} names) holds {@value #CA_CERT}, {@value #CERT} and {@value #KEY}. Keys are
 * written 0600 and refused when group or others can read them.
 */
public final class Certificates {
    public static final String CA_CERT = "ca.pem";
    public static final String CA_KEY = "ca-key.pem";
    public static final String CERT = "cert.pem";
    public static final String KEY = "key.pem";

    private static final SecureRandom RANDOM = new SecureRandom();

    /** A certificate and its private key. */
    public record Issued(X509Certificate certificate, PrivateKey key) {
    }

    private Certificates() {
    }

    /** A new CA, valid from now (minus a minute of clock skew) for {@code validity}. */
    public static Issued newCa(String name, Duration validity) {
        Instant now = Instant.now();
        return newCa(name, now.minusSeconds(60), now.plus(validity));
    }

    public static Issued newCa(String name, Instant notBefore, Instant notAfter) {
        KeyPair kp = ecKeyPair();
        X500Name subject = name("msgscope control CA " + name);
        try {
            JcaX509ExtensionUtils ext = new JcaX509ExtensionUtils();
            X509v3CertificateBuilder b = new JcaX509v3CertificateBuilder(subject, serial(), Date.from(notBefore),
                    Date.from(notAfter), subject, kp.getPublic())
                    .addExtension(Extension.basicConstraints, true, new BasicConstraints(0))
                    .addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign))
                    .addExtension(Extension.subjectKeyIdentifier, false, ext.createSubjectKeyIdentifier(kp.getPublic()));
            return new Issued(sign(b, kp.getPrivate()), kp.getPrivate());
        } catch (IOException | GeneralSecurityException e) {
            throw new IllegalStateException("cannot build the CA certificate: " + e.getMessage(), e);
        }
    }

    /** A host certificate for {@code hosts} (names and/or IP addresses), valid from now for {@code validity}. */
    public static Issued issue(Issued ca, List<String> hosts, Duration validity) {
        Instant now = Instant.now();
        return issue(ca, hosts, now.minusSeconds(60), now.plus(validity));
    }

    public static Issued issue(Issued ca, List<String> hosts, Instant notBefore, Instant notAfter) {
        if (hosts.isEmpty()) {
            throw new IllegalArgumentException("a host certificate needs at least one host name or address");
        }
        KeyPair kp = ecKeyPair();
        List<GeneralName> sans = new ArrayList<>();
        for (String h : hosts) {
            sans.add(isIpLiteral(h) ? new GeneralName(GeneralName.iPAddress, h) : new GeneralName(GeneralName.dNSName, h));
        }
        try {
            JcaX509ExtensionUtils ext = new JcaX509ExtensionUtils();
            X509v3CertificateBuilder b = new JcaX509v3CertificateBuilder(ca.certificate(), serial(),
                    Date.from(notBefore), Date.from(notAfter), name(hosts.get(0)), kp.getPublic())
                    .addExtension(Extension.basicConstraints, true, new BasicConstraints(false))
                    .addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.digitalSignature))
                    .addExtension(Extension.extendedKeyUsage, false, new ExtendedKeyUsage(
                            new KeyPurposeId[]{KeyPurposeId.id_kp_serverAuth, KeyPurposeId.id_kp_clientAuth}))
                    .addExtension(Extension.subjectAlternativeName, false,
                            new GeneralNames(sans.toArray(new GeneralName[0])))
                    .addExtension(Extension.authorityKeyIdentifier, false,
                            ext.createAuthorityKeyIdentifier(ca.certificate()))
                    .addExtension(Extension.subjectKeyIdentifier, false, ext.createSubjectKeyIdentifier(kp.getPublic()));
            return new Issued(sign(b, ca.key()), kp.getPrivate());
        } catch (IOException | GeneralSecurityException e) {
            throw new IllegalStateException("cannot build the host certificate: " + e.getMessage(), e);
        }
    }

    /**
     * A throw-away self-signed certificate: the TLS server identity of an agent that has a shared
     * secret but no CA. Nobody trusts it; the shared-secret proofs are bound to it instead (so a man
     * in the middle, who must present a certificate of his own, cannot relay them).
     */
    public static Issued selfSigned(String name) {
        KeyPair kp = ecKeyPair();
        X500Name subject = name(name);
        Instant now = Instant.now();
        try {
            X509v3CertificateBuilder b = new JcaX509v3CertificateBuilder(subject, serial(),
                    Date.from(now.minusSeconds(60)), Date.from(now.plus(Duration.ofDays(3650))), subject, kp.getPublic())
                    .addExtension(Extension.basicConstraints, true, new BasicConstraints(false));
            return new Issued(sign(b, kp.getPrivate()), kp.getPrivate());
        } catch (IOException | GeneralSecurityException e) {
            throw new IllegalStateException("cannot build a certificate: " + e.getMessage(), e);
        }
    }

    /** Writes {@value #CA_CERT} and {@value #CA_KEY} (0600) into {@code dir}, refusing to overwrite a CA. */
    public static void writeCa(Path dir, Issued ca) throws IOException {
        folder(dir, "rwx------"); // it holds the CA's key
        if (Files.exists(dir.resolve(CA_KEY))) {
            throw new SpecException("DIR", dir.resolve(CA_KEY) + " exists: refusing to replace a CA (every "
                    + "certificate it issued would stop working); choose another folder or remove it first");
        }
        writeKey(dir.resolve(CA_KEY), ca.key());
        writePublic(dir.resolve(CA_CERT), pem(ca.certificate()));
    }

    /** Writes a host folder: {@value #CA_CERT} (the CA's certificate), {@value #CERT} and {@value #KEY} (0600). */
    public static void writeHost(Path dir, X509Certificate caCert, Issued host) throws IOException {
        folder(dir, "rwxr-xr-x"); // its key is 0600 itself
        writeKey(dir.resolve(KEY), host.key());
        writePublic(dir.resolve(CERT), pem(host.certificate()));
        writePublic(dir.resolve(CA_CERT), pem(caCert));
    }

    /**
     * Creates {@code dir} with the mode {@code mode} whatever the umask (issue 28: under umask 000 the folders were
     * 0777); a folder that exists is the user's and keeps its mode.
     */
    private static void folder(Path dir, String mode) throws IOException {
        if (!Files.isDirectory(dir)) {
            Files.createDirectories(dir);
            io.msgscope.core.SafeFiles.setMode(dir, PosixFilePermissions.fromString(mode));
        }
    }

    /** Reads a CA folder written by {@link #writeCa}; errors name {@code option}. */
    public static Issued readCa(Path dir, String option) {
        X509Certificate cert = readCertificate(dir.resolve(CA_CERT), option);
        PrivateKey key = readKey(dir.resolve(CA_KEY), option);
        if (cert.getBasicConstraints() < 0) {
            throw new SpecException(option, dir.resolve(CA_CERT) + " is not a CA certificate");
        }
        return new Issued(cert, key);
    }

    public static X509Certificate readCertificate(Path file, String option) {
        checkNotWritableByOthers(file, option);
        Object o = readPem(file, option);
        if (o instanceof X509CertificateHolder h) {
            try {
                return new JcaX509CertificateConverter().getCertificate(h);
            } catch (GeneralSecurityException e) {
                throw new SpecException(option, file + ": not a usable certificate (" + e.getMessage() + ")");
            }
        }
        throw new SpecException(option, file + " holds no PEM certificate");
    }

    /** Reads a PEM private key (PKCS#8 or OpenSSL's EC/RSA form), refusing one that group or others can read. */
    public static PrivateKey readKey(Path file, String option) {
        checkPrivate(file, option);
        Object o = readPem(file, option);
        try {
            JcaPEMKeyConverter c = new JcaPEMKeyConverter();
            if (o instanceof PrivateKeyInfo info) {
                return c.getPrivateKey(info);
            }
            if (o instanceof PEMKeyPair pair) {
                return c.getKeyPair(pair).getPrivate();
            }
        } catch (IOException e) {
            throw new SpecException(option, file + ": not a usable private key (" + e.getMessage() + ")");
        }
        throw new SpecException(option, file + " holds no unencrypted PEM private key");
    }

    /**
     * Refuses a key file that group or others may read (like ssh): the key is the host's identity; nor may they write
     * it (issue 28: modes 620 and 602 were taken).
     */
    static void checkPrivate(Path file, String option) {
        Set<PosixFilePermission> perms = permissions(file, option);
        if (perms.contains(PosixFilePermission.GROUP_READ) || perms.contains(PosixFilePermission.OTHERS_READ)) {
            throw new SpecException(option, file + " is readable by group or others; chmod 600 it");
        }
        if (perms.contains(PosixFilePermission.GROUP_WRITE) || perms.contains(PosixFilePermission.OTHERS_WRITE)) {
            throw new SpecException(option, file + " is writable by group or others; chmod 600 it");
        }
    }

    /** Refuses a certificate that others may write (issue 28): whoever can replace the CA's certificate is trusted. */
    static void checkNotWritableByOthers(Path file, String option) {
        Set<PosixFilePermission> perms = permissions(file, option);
        if (perms.contains(PosixFilePermission.GROUP_WRITE) || perms.contains(PosixFilePermission.OTHERS_WRITE)) {
            throw new SpecException(option, file + " is writable by group or others (they could replace it); "
                    + "chmod 644 it");
        }
    }

    /** The file's mode; empty on a file system without POSIX modes (nothing to check). */
    private static Set<PosixFilePermission> permissions(Path file, String option) {
        try {
            return Files.getPosixFilePermissions(file);
        } catch (UnsupportedOperationException e) {
            return Set.of();
        } catch (java.nio.file.NoSuchFileException e) {
            throw new SpecException(option, file + " does not exist");
        } catch (IOException e) {
            throw new SpecException(option, "cannot read " + file + " (" + e.getMessage() + ")");
        }
    }

    private static Object readPem(Path file, String option) {
        try (Reader r = Files.newBufferedReader(file, StandardCharsets.US_ASCII); PEMParser p = new PEMParser(r)) {
            Object o = p.readObject();
            if (o == null) {
                throw new SpecException(option, file + " holds no PEM object");
            }
            return o;
        } catch (java.nio.file.NoSuchFileException e) {
            throw new SpecException(option, file + " does not exist");
        } catch (IOException | IllegalArgumentException e) {
            throw new SpecException(option, "cannot read " + file + " (" + e.getMessage() + ")");
        }
    }

    public static String pem(Object o) {
        StringWriter s = new StringWriter();
        try (JcaPEMWriter w = new JcaPEMWriter(s)) {
            w.writeObject(o);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        return s.toString();
    }

    private static void writeKey(Path file, PrivateKey key) throws IOException {
        StringWriter s = new StringWriter();
        try (JcaPEMWriter w = new JcaPEMWriter(s)) {
            w.writeObject(new JcaPKCS8Generator(key, null)); // "PRIVATE KEY" (PKCS#8), unencrypted
        }
        // issue 28: never through a link planted at the key's path, 0600 from its creation on
        io.msgscope.core.SafeFiles.write(file, s.toString().getBytes(StandardCharsets.US_ASCII),
                io.msgscope.core.SafeFiles.PRIVATE);
    }

    private static void writePublic(Path file, String text) throws IOException {
        io.msgscope.core.SafeFiles.write(file, text.getBytes(StandardCharsets.US_ASCII),
                io.msgscope.core.SafeFiles.PUBLIC);
    }

    private static X509Certificate sign(X509v3CertificateBuilder b, PrivateKey signer) throws GeneralSecurityException {
        try {
            X509CertificateHolder h = b.build(new JcaContentSignerBuilder("SHA256withECDSA").build(signer));
            return new JcaX509CertificateConverter().getCertificate(h);
        } catch (OperatorCreationException e) {
            throw new GeneralSecurityException(e.getMessage(), e);
        }
    }

    private static KeyPair ecKeyPair() {
        try {
            KeyPairGenerator g = KeyPairGenerator.getInstance("EC");
            g.initialize(new ECGenParameterSpec("secp256r1"), RANDOM);
            return g.generateKeyPair();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("EC P-256 keys unavailable in this JVM", e);
        }
    }

    private static BigInteger serial() {
        return new BigInteger(127, RANDOM).add(BigInteger.ONE);
    }

    private static X500Name name(String cn) {
        return new X500NameBuilder(BCStyle.INSTANCE).addRDN(BCStyle.CN, cn).build();
    }

    /** True for an IPv4 or IPv6 literal (no name lookup). */
    public static boolean isIpLiteral(String host) {
        if (host.matches("[0-9]{1,3}(\\.[0-9]{1,3}){3}") || host.indexOf(':') >= 0) {
            try {
                InetAddress.getByName(host); // a literal: parsed, never resolved
                return true;
            } catch (java.net.UnknownHostException e) {
                return false;
            }
        }
        return false;
    }
}
