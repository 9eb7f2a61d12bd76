package io.msgscope.cli;

import io.msgscope.control.Certificates;
import io.msgscope.control.ControlTls;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.cert.X509Certificate;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code msgscope certs} (issue 14): a CA, host folders that load as --tls-dir, and its usage errors. */
class CertsCommandTest {
    @TempDir
    Path tmp;

    private record Result(int code, String out, String err) {
    }

    private static Result run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = Main.execute(new PrintWriter(out), new PrintWriter(err), args);
        return new Result(code, out.toString(), err.toString());
    }

    @Test
    void initThenIssueMakesAFolderThatLoadsAsTlsDir() throws Exception {
        Path ca = tmp.resolve("ca");
        Result init = run("certs", "init", ca.toString());
        assertEquals(0, init.code(), init.err());
        assertTrue(init.out().startsWith("CA written: " + ca.resolve("ca.pem")), init.out());
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(ca.resolve("ca-key.pem"))));

        Result issue = run("certs", "issue", "--ca", ca.toString(), "--host", "Agent1.lab", "--host", "10.0.0.11",
                "--days", "30");
        assertEquals(0, issue.code(), issue.err());
        Path host = ca.resolve("agent1.lab");
        assertTrue(issue.out().startsWith("certificate for agent1.lab, 10.0.0.11 written to " + host), issue.out());
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(host.resolve("key.pem"))));
        ControlTls tls = ControlTls.load(host);
        X509Certificate cert = tls.certificate();
        assertEquals("CN=agent1.lab", cert.getSubjectX500Principal().getName());
        assertEquals(List.of(List.of(2, "agent1.lab"), List.of(7, "10.0.0.11")), List.copyOf(cert.getSubjectAlternativeNames()));
        assertEquals(List.of("1.3.6.1.5.5.7.3.1", "1.3.6.1.5.5.7.3.2"), cert.getExtendedKeyUsage());
        long days = (cert.getNotAfter().getTime() - cert.getNotBefore().getTime()) / 86_400_000L;
        assertEquals(30, days);

        Path out = tmp.resolve("elsewhere");
        assertEquals(0, run("certs", "issue", "--ca", ca.toString(), "--host", "::1", "--out", out.toString()).code());
        assertEquals(List.of(List.of(7, "0:0:0:0:0:0:0:1")),
                List.copyOf(Certificates.readCertificate(out.resolve("cert.pem"), "x").getSubjectAlternativeNames()));
    }

    @Test
    void usageErrors() throws Exception {
        Path ca = tmp.resolve("ca");
        assertEquals(0, run("certs", "init", ca.toString()).code());
        Result again = run("certs", "init", ca.toString());
        Usage.assertUsageError(again.code(), again.out(), again.err(), "refusing to replace a CA");
        Result noCa = run("certs", "issue", "--ca", tmp.resolve("none").toString(), "--host", "a");
        Usage.assertUsageError(noCa.code(), noCa.out(), noCa.err(), "--ca");
        Result badHost = run("certs", "issue", "--ca", ca.toString(), "--host", "a b");
        Usage.assertUsageError(badHost.code(), badHost.out(), badHost.err(), "--host");
        Result noHost = run("certs", "issue", "--ca", ca.toString());
        assertEquals(2, noHost.code());
        assertTrue(noHost.err().contains("--host"), noHost.err());
        Result days = run("certs", "init", tmp.resolve("ca2").toString(), "--days", "0");
        Usage.assertUsageError(days.code(), days.out(), days.err(), "--days");
        Result bare = run("certs");
        assertEquals(2, bare.code());
        assertTrue(bare.err().contains("init") && bare.err().contains("issue"), bare.err());
    }

    @Test
    void anAgentWithAnExpiredOrForeignTlsDirRefusesToStartNamingTheOption() throws Exception {
        Path ca = tmp.resolve("ca");
        assertEquals(0, run("certs", "init", ca.toString()).code());
        assertEquals(0, run("certs", "issue", "--ca", ca.toString(), "--host", "127.0.0.1").code());
        Path host = ca.resolve("127.0.0.1");
        Files.setPosixFilePermissions(host.resolve("key.pem"), PosixFilePermissions.fromString("rw-r--r--"));
        Result r = run("agent", "--role", "relay", "--listen", "127.0.0.1:0", "--tls-dir", host.toString());
        Usage.assertUsageError(r.code(), r.out(), r.err(), "--tls-dir");
        assertTrue(r.err().contains("readable by group or others"), r.err());

        Path other = tmp.resolve("other");
        assertEquals(0, run("certs", "init", other.toString()).code());
        Files.setPosixFilePermissions(host.resolve("key.pem"), PosixFilePermissions.fromString("rw-------"));
        Files.copy(other.resolve("ca.pem"), host.resolve("ca.pem"), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        Result foreign = run("run", "--agent", "relay=127.0.0.1:7", "--tls-dir", host.toString(), "--driver", "tcp",
                "--out", tmp.resolve("out").toString());
        Usage.assertUsageError(foreign.code(), foreign.out(), foreign.err(), "--tls-dir");
        assertTrue(foreign.err().contains("was not issued by the CA in"), foreign.err());
    }

    @Test
    void anAgentOffLoopbackNeedsCredentialsAndTheMessageNamesBoth() {
        Result r = run("agent", "--role", "relay", "--listen", "10.1.2.3:7600");
        String line = Usage.assertUsageError(r.code(), r.out(), r.err(), "--listen");
        assertTrue(line.contains("--tls-dir") && line.contains("--secret-file"), line);
    }
}
