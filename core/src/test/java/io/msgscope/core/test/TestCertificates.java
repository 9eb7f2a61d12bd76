package io.msgscope.core.test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;

/**
 * A test CA and a server certificate naming IP 127.0.0.1 only, made by openssl in a test's folder, for the TLS tests of
 * the drivers that start a private broker with them (MQTT, AMQP 0-9-1, Redis): {@code ca.pem}, {@code ca.key},
 * {@code server.pem}, {@code server.key}, and {@code other.pem} (a second CA, which signed nothing). No trust store
 * knows the CA, so a client that trusts only the JVM's must refuse the server.
 */
public final class TestCertificates {
    private TestCertificates() {
    }

    /** Whether {@code tool} is an executable on PATH. */
    public static boolean onPath(String tool) {
        String path = System.getenv("PATH");
        return path != null && Arrays.stream(path.split(":")).anyMatch(d -> Files.isExecutable(Path.of(d, tool)));
    }

    /** Makes the certificates in {@code dir}; the tools' output goes to {@code dir/openssl.log}. */
    public static void make(Path dir) throws Exception {
        run(dir, "openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                "-keyout", "ca.key", "-out", "ca.pem", "-days", "2", "-subj", "/CN=msgscope test CA");
        run(dir, "openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                "-keyout", "other.key", "-out", "other.pem", "-days", "2", "-subj", "/CN=another CA");
        run(dir, "openssl", "req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout",
                "server.key", "-out", "server.csr", "-subj", "/CN=msgscope test server");
        Files.writeString(dir.resolve("san.cnf"), "subjectAltName=IP:127.0.0.1\n");
        run(dir, "openssl", "x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key",
                "-CAcreateserial", "-out", "server.pem", "-days", "2", "-extfile", "san.cnf");
    }

    /** Runs a command in {@code dir}; fails naming it and its output when it does not end with 0 within a minute. */
    public static void run(Path dir, String... cmd) throws Exception {
        Process p = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true)
                .redirectOutput(dir.resolve("openssl.log").toFile()).start();
        if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new AssertionError(String.join(" ", cmd) + " failed: " + Files.readString(dir.resolve("openssl.log")));
        }
    }
}
