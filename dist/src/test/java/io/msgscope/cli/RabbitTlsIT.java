package io.msgscope.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.msgscope.core.test.Ci;
import io.msgscope.core.test.TestCertificates;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * TLS on the data path of the drivers that speak to RabbitMQ through a plugin (issue 35 item 6): stomp
 * ({@code stomps://}), amqp10 ({@code amqps://}) and rabbitmq-stream ({@code rabbitmq-stream+tls://}) through the real
 * jar, against a PRIVATE one-node RabbitMQ with TLS listeners ({@code deploy/rabbitmq-cluster.sh} with
 * {@code RABBITMQ_CLUSTER_TLS_DIR}, {@link PrivateRabbitNode#startTls}) whose certificate, made here by openssl
 * ({@link TestCertificates}: a test CA, a server certificate naming IP 127.0.0.1 only), no trust store knows. Per
 * driver: trusted through {@code tls_ca}, every message is delivered; a file of another CA with
 * {@code tls_verify=true} fails the run (exit 1) in one line that says what the certificate check found; the options
 * with a plain URI exit 2 naming the option. One node for all (up in ~9 s); it is stopped by PID. Skipped without
 * rabbitmq-server or openssl, failed under CI=true.
 */
class RabbitTlsIT {
    private static final int N = 500;
    @TempDir
    static Path dir;
    private static PrivateRabbitNode rabbit;

    @BeforeAll
    static void start() throws Exception {
        boolean openssl = TestCertificates.onPath("openssl");
        if (!openssl && Ci.on()) {
            fail("openssl must be on PATH under CI=true");
        }
        assumeTrue(openssl, "openssl is not on PATH: RabbitMQ TLS tests skipped");
        Path tls = Files.createDirectories(dir.resolve("tls"));
        TestCertificates.make(tls);
        Files.copy(tls.resolve("server.pem"), tls.resolve("cert.pem"), StandardCopyOption.REPLACE_EXISTING);
        Files.copy(tls.resolve("server.key"), tls.resolve("key.pem"), StandardCopyOption.REPLACE_EXISTING);
        for (String f : List.of("ca.pem", "cert.pem", "key.pem")) {
            tls.resolve(f).toFile().setReadable(true, false); // the node may run as another user
        }
        rabbit = PrivateRabbitNode.startTls(dir.resolve("rabbit"), tls, "rabbitmq_stomp", "rabbitmq_stream",
                "rabbitmq_amqp1_0");
    }

    @AfterAll
    static void stop() throws Exception {
        if (rabbit != null) {
            rabbit.close();
        }
    }

    /** The TLS and the plain URI of {@code driver} on the private node. */
    private static String uri(String driver, boolean tls) {
        int p = rabbit.port;
        return switch (driver) {
            case "stomp" -> tls ? "stomps://127.0.0.1:" + (p + PrivateRabbitNode.STOMP_TLS)
                    : "stomp://127.0.0.1:" + (p + 400);
            case "amqp10" -> tls ? "amqps://guest:guest@127.0.0.1:" + (p + PrivateRabbitNode.AMQPS)
                    : "amqp://guest:guest@127.0.0.1:" + p;
            default -> (tls ? "rabbitmq-stream+tls://guest:guest@127.0.0.1:" + (p + PrivateRabbitNode.STREAM_TLS)
                    : "rabbitmq-stream://guest:guest@127.0.0.1:" + (p + 100)) + "/%2f";
        };
    }

    private static MsgscopeProcess run(String name, String driver, String uri, String... opts) throws Exception {
        List<String> args = new java.util.ArrayList<>(List.of("run", "--driver", driver, "--uri", uri, "--count",
                "" + N, "--warmup", "100", "--rate", "500", "--out", dir.resolve(name).toString()));
        for (String o : opts) {
            args.addAll(List.of("--opt", o));
        }
        return MsgscopeProcess.start(dir.resolve(name + "-wd"), args.toArray(String[]::new));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({"stomp, certification path", "amqp10, certification path", "rabbitmq-stream, certification path"})
    void trustedThroughTlsCaDeliversAndAnotherCaFailsInOneLine(String driver, String why) throws Exception {
        String ca = dir.resolve("tls/ca.pem").toString();
        JsonNode s = run(driver + "-ok", driver, uri(driver, true), "tls_ca=" + ca)
                .awaitOkSummary(dir.resolve(driver + "-ok"), 120);
        JsonNode c = s.get("counters");
        assertEquals(N, c.get("messages_received").asLong(), c::toString);
        assertEquals(0, c.get("messages_lost").asLong(), c::toString);

        MsgscopeProcess bad = run(driver + "-bad", driver, uri(driver, true),
                "tls_ca=" + dir.resolve("tls/other.pem"), "tls_verify=true");
        int rc = bad.waitFor(120);
        String out = bad.out() + bad.err();
        assertEquals(1, rc, out);
        String failed = out.lines().filter(l -> l.startsWith("FAILED")).findFirst().orElse("");
        assertTrue(failed.contains(why), () -> "one line saying why: " + out);

        Usage.assertUsageError(run(driver + "-plain", driver, uri(driver, false), "tls_ca=" + ca), "--opt tls_ca");
    }
}
