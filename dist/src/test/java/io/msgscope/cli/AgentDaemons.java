package io.msgscope.cli;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Agent daemons on loopback for the clock ITs (issue 33): each {@code msgscope agent --role R} with the shared secret,
 * its clock shifted by the test hook ({@code MSGSCOPE_TEST_CLOCK_SHIFT}) when asked — which also marks its boot id, so
 * the coordinator takes it for another box. Registered as a JUnit extension, it stops every daemon it started after
 * each test.
 */
final class AgentDaemons implements org.junit.jupiter.api.extension.AfterEachCallback {
    private final List<Process> agents = new ArrayList<>();

    /** A fresh shared secret in {@code dir}, readable by its owner only (as the agents require). */
    static Path secret(Path dir) throws java.io.IOException {
        Path secret = dir.resolve("secret");
        java.nio.file.Files.writeString(secret, "clock-secret-" + System.nanoTime() + "-0123456789abcdef");
        java.nio.file.Files.setPosixFilePermissions(secret,
                java.nio.file.attribute.PosixFilePermissions.fromString("rw-------"));
        return secret;
    }

    /** A daemon for {@code role}; returns its port. */
    int start(String role, Path secret, String shift) throws Exception {
        ProcessBuilder pb = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-jar", MsgscopeProcess.jar().toString(), "agent", "--role", role, "--listen", "127.0.0.1:0",
                "--secret-file", secret.toString()).redirectErrorStream(true);
        if (shift != null) {
            pb.environment().put("MSGSCOPE_TEST_CLOCK_SHIFT", shift);
        }
        Process agent = pb.start();
        agents.add(agent);
        BufferedReader r = new BufferedReader(new InputStreamReader(agent.getInputStream(), StandardCharsets.UTF_8));
        String first = r.readLine();
        assertTrue(first != null && first.contains("listening on 127.0.0.1:"), first);
        Thread pump = new Thread(() -> {
            try {
                while (r.readLine() != null) {
                    // the agent's log is not needed
                }
            } catch (java.io.IOException e) {
                // gone
            }
        });
        pump.setDaemon(true);
        pump.start();
        return Integer.parseInt(first.replaceAll(".*listening on 127\\.0\\.0\\.1:(\\d+).*", "$1"));
    }

    @Override
    public void afterEach(org.junit.jupiter.api.extension.ExtensionContext context) throws InterruptedException {
        for (Process a : agents) {
            a.destroy();
            if (!a.waitFor(10, TimeUnit.SECONDS)) {
                a.destroyForcibly();
            }
        }
        agents.clear();
    }
}
