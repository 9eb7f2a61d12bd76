package io.msgscope.cli;

import java.io.File;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * A mosquitto of a test's own, on a free loopback port with a config in the test's temp folder: the
 * shared broker on 1883 is never stopped or reconfigured. Stopped by its own PID only. Without the
 * binary the test is skipped with a message; under CI=true it fails.
 */
final class PrivateMosquitto implements AutoCloseable {
    final int port;
    private final Path conf;
    private final Path log;
    private Process process;

    private PrivateMosquitto(int port, Path conf, Path log) {
        this.port = port;
        this.conf = conf;
        this.log = log;
    }

    /** Starts mosquitto with {@code extraConfig} lines (e.g. {@code max_qos 1}) after the listener. */
    static PrivateMosquitto start(Path dir, String... extraConfig) throws Exception {
        requireBinary("mosquitto");
        Files.createDirectories(dir);
        int port = freePort();
        StringBuilder c = new StringBuilder("listener " + port + " 127.0.0.1\nallow_anonymous true\n");
        for (String l : extraConfig) {
            c.append(l).append('\n');
        }
        Path conf = dir.resolve("mosquitto.conf");
        Files.writeString(conf, c.toString());
        PrivateMosquitto m = new PrivateMosquitto(port, conf, dir.resolve("mosquitto.log"));
        m.startProcess();
        return m;
    }

    /** A dynamic-security config denying what is false here (Debian 12's mosquitto 2.0.x has the plugin). */
    static String[] dynsec(Path dir, boolean subscribe, boolean publish) throws IOException {
        Path so = Path.of("/usr/lib/x86_64-linux-gnu/mosquitto_dynamic_security.so");
        if (!Files.exists(so)) {
            missing("mosquitto's dynamic security plugin " + so);
        }
        Files.createDirectories(dir);
        Path json = dir.resolve("dynsec.json");
        Files.writeString(json, "{\"defaultACLAccess\":{\"publishClientSend\":" + publish + ",\"publishClientReceive\":true,"
                + "\"subscribe\":" + subscribe + ",\"unsubscribe\":true},\"clients\":[],\"groups\":[],\"roles\":[]}\n");
        // mosquitto started as root drops to the mosquitto user: the plugin must be able to read its file
        // (without it the plugin denies everything, and a test would pass for the wrong reason)
        for (Path p = dir; p != null && p.startsWith(dir.getParent()); p = p.getParent()) {
            Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rwxr-xr-x"));
        }
        Files.setPosixFilePermissions(json, PosixFilePermissions.fromString("rw-r--r--"));
        return new String[] {"plugin " + so, "plugin_opt_config_file " + json};
    }

    String uri() {
        return "tcp://127.0.0.1:" + port;
    }

    void startProcess() throws Exception {
        process = new ProcessBuilder("mosquitto", "-c", conf.toString()).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (System.nanoTime() < deadline) {
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress("127.0.0.1", port), 200);
                String text = Files.readString(log);
                if (text.contains("Error loading")) { // a broken set-up must not pass as the fault under test
                    throw new AssertionError("private mosquitto could not load its configuration: " + text);
                }
                return;
            } catch (IOException e) {
                if (!process.isAlive()) {
                    throw new AssertionError("private mosquitto exited: " + Files.readString(log));
                }
                Thread.sleep(50);
            }
        }
        throw new AssertionError("private mosquitto did not listen on " + port + ": " + Files.readString(log));
    }

    /** Kills this broker (SIGKILL: no DISCONNECT to the clients) and waits for it to be gone. */
    void kill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor(10, TimeUnit.SECONDS);
    }

    @Override
    public void close() throws InterruptedException {
        if (process != null && process.isAlive()) {
            process.destroy();
            if (!process.waitFor(5, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        }
    }

    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    static void requireBinary(String name) {
        String path = System.getenv("PATH");
        boolean found = path != null && java.util.Arrays.stream(path.split(File.pathSeparator))
                .anyMatch(d -> Files.isExecutable(Path.of(d, name)));
        if (!found) {
            missing(name + " on PATH");
        }
    }

    private static void missing(String what) {
        if ("true".equals(System.getenv("CI"))) {
            fail(what + " is required under CI=true");
        }
        assumeTrue(false, what + " is missing: fault test skipped");
    }
}
