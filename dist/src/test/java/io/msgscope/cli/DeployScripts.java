package io.msgscope.cli;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The private clusters' scripts of {@code deploy/} ({@code rabbitmq-cluster.sh}, {@code rabbitmq-mqtt.sh}) as the
 * tests run them — the very commands the docs give users — and the free port range they need.
 */
final class DeployScripts {
    private static final Path DEPLOY = Path.of(System.getProperty("user.dir")).getParent().resolve("deploy");

    private DeployScripts() {
    }

    /** Runs {@code deploy/SCRIPT ARGS} under bash; it must exit 0 within {@code timeoutS}. Returns its output. */
    static String run(String script, int timeoutS, String... args) throws Exception {
        return run(script, timeoutS, Map.of(), args);
    }

    /** The same, with {@code env} added to the script's environment. */
    static String run(String script, int timeoutS, Map<String, String> env, String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of("bash", path(script).toString()));
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        pb.environment().putAll(env);
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(timeoutS, TimeUnit.SECONDS), script + " " + args[0] + " timed out: " + out);
        assertEquals(0, p.exitValue(), script + " " + String.join(" ", args) + ": " + out);
        return out;
    }

    /** {@code deploy/SCRIPT}, absolute. */
    static Path path(String script) {
        return DEPLOY.resolve(script).toAbsolutePath();
    }

    /**
     * The first port from {@code from} (in steps of 997, below 40,000) for which every {@code base + offset} is free
     * on loopback; {@code what} names the ports in the error when there is none.
     */
    static int freeBase(int from, String what, int... offsets) {
        for (int base = from; base < 40_000; base += 997) {
            if (allFree(base, offsets)) {
                return base;
            }
        }
        throw new AssertionError("no free ports for " + what);
    }

    private static boolean allFree(int base, int... offsets) {
        for (int off : offsets) {
            try (ServerSocket s = new ServerSocket(base + off, 1, java.net.InetAddress.getLoopbackAddress())) {
                s.setReuseAddress(true);
            } catch (IOException e) {
                return false;
            }
        }
        return true;
    }
}
