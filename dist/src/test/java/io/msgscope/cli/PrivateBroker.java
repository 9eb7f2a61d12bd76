package io.msgscope.cli;

import io.msgscope.core.test.Ci;
import java.io.File;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * A mosquitto or nats-server of a test's own, on a free loopback port with its config and data in the
 * test's temp folder: the shared brokers (1883, 4222) are never stopped or reconfigured. Stopped by
 * its own PID only. Without the binary the test is skipped with a message; under CI=true it fails.
 */
final class PrivateBroker implements AutoCloseable {
    final int port;
    private final String scheme;
    private final List<String> command;
    private final Path log;
    private Process process;

    private PrivateBroker(int port, String scheme, List<String> command, Path log) {
        this.port = port;
        this.scheme = scheme;
        this.command = command;
        this.log = log;
    }

    /** A nats-server on a free port; with JetStream, its store in {@code dir}. */
    static PrivateBroker nats(Path dir, boolean jetStream) throws Exception {
        requireBinary("nats-server");
        Files.createDirectories(dir);
        int port = freePort();
        List<String> cmd = new ArrayList<>(List.of("nats-server", "-a", "127.0.0.1", "-p", "" + port));
        if (jetStream) {
            cmd.addAll(List.of("-js", "-sd", dir.resolve("js").toString()));
        }
        PrivateBroker b = new PrivateBroker(port, "nats", cmd, dir.resolve("nats-server.log"));
        b.startProcess();
        return b;
    }

    /**
     * A redis-server on a free port, its append-only file in {@code dir} written and fsynced before each reply
     * ({@code appendfsync always}: what it confirmed survives a SIGKILL), no RDB snapshots.
     */
    static PrivateBroker redis(Path dir) throws Exception {
        requireBinary("redis-server");
        Files.createDirectories(dir);
        int port = freePort();
        PrivateBroker b = new PrivateBroker(port, "redis", redisCommand(dir, port), dir.resolve("redis-server.log"));
        b.startProcess();
        return b;
    }

    /** The command line of {@link #redis}. */
    static List<String> redisCommand(Path dir, int port) {
        return List.of("redis-server", "--bind", "127.0.0.1", "--port", "" + port, "--dir", dir.toString(), "--save", "",
                "--appendonly", "yes", "--appendfsync", "always");
    }

    /**
     * A fault plan's restart command for {@link #redis}: the same server on the same files, in the background
     * ({@code --daemonize}: the command returns once it is started), its pid in {@code pidFile}.
     */
    String redisRestartCommand(Path dir, Path pidFile) {
        return String.join(" ", redisCommand(dir, port)).replace("--save  ", "--save '' ") + " --daemonize yes"
                + " --pidfile " + pidFile + " --logfile " + dir.resolve("restarted.log");
    }

    /** Starts mosquitto with {@code extraConfig} lines (e.g. {@code max_qos 1}) after the listener. */
    static PrivateBroker start(Path dir, String... extraConfig) throws Exception {
        requireBinary("mosquitto");
        Files.createDirectories(dir);
        int port = freePort();
        StringBuilder c = new StringBuilder("listener " + port + " 127.0.0.1\nallow_anonymous true\n");
        for (String l : extraConfig) {
            c.append(l).append('\n');
        }
        Path conf = dir.resolve("mosquitto.conf");
        Files.writeString(conf, c.toString());
        PrivateBroker m = new PrivateBroker(port, "tcp", List.of("mosquitto", "-c", conf.toString()),
                dir.resolve("mosquitto.log"));
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

    /** The broker's process id (faults on the timeline act on it, issue 32). */
    long pid() {
        return process.pid();
    }

    String uri() {
        return scheme + "://127.0.0.1:" + port;
    }

    void startProcess() throws Exception {
        process = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (System.nanoTime() < deadline) {
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress("127.0.0.1", port), 200);
                String text = Files.readString(log);
                if (text.contains("Error loading")) { // a broken set-up must not pass as the fault under test
                    throw new AssertionError("private broker could not load its configuration: " + text);
                }
                return;
            } catch (IOException e) {
                if (!process.isAlive()) {
                    throw new AssertionError("private broker exited: " + Files.readString(log));
                }
                Thread.sleep(50);
            }
        }
        throw new AssertionError("private broker did not listen on " + port + ": " + Files.readString(log));
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
        if (Ci.on()) {
            fail(what + " is required under CI=true");
        }
        assumeTrue(false, what + " is missing: fault test skipped");
    }
}
