package io.msgscope.driver.amqp10;

import org.apache.qpid.server.SystemLauncher;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/**
 * An Apache Qpid Broker-J speaking AMQP 1.0 in this JVM (its AMQP 1.0 protocol plugin, the Memory store), on a free
 * loopback port, with one user guest/guest (PLAIN allowed without TLS) and one virtual host "default". Nodes named
 * {@code msgscope...} are created on first use (node auto-creation policies, as queues), so a named address works as
 * well as the dynamic nodes the driver uses by default. Its logging goes nowhere. {@link #stop} stops it while
 * clients are connected (the fault tests).
 */
public final class EmbeddedBrokerJ implements AutoCloseable {
    private final int port;
    private final SystemLauncher launcher;
    private final Path work;
    private boolean stopped;

    private EmbeddedBrokerJ(int port, SystemLauncher launcher, Path work) {
        this.port = port;
        this.launcher = launcher;
        this.work = work;
    }

    public static EmbeddedBrokerJ start() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        Path work = Files.createTempDirectory("msgscope-brokerj");
        String vhost = "{\\\"type\\\": \\\"Memory\\\", \\\"nodeAutoCreationPolicies\\\": [ {"
                + "\\\"pattern\\\": \\\"msgscope.*\\\", \\\"createdOnPublish\\\": true, \\\"createdOnConsume\\\": true, "
                + "\\\"nodeType\\\": \\\"Queue\\\", \\\"attributes\\\": {} } ]}";
        String config = """
                {
                  "name": "msgscope-test-broker-amqp10",
                  "modelVersion": "9.0",
                  "authenticationproviders": [ {
                    "name": "plain",
                    "type": "Plain",
                    "secureOnlyMechanisms": [],
                    "users": [ { "name": "guest", "type": "managed", "password": "guest" } ]
                  } ],
                  "ports": [ {
                    "name": "AMQP",
                    "port": %d,
                    "bindingAddress": "127.0.0.1",
                    "protocols": [ "AMQP_1_0" ],
                    "authenticationProvider": "plain",
                    "virtualhostaliases": [
                      { "name": "nameAlias", "type": "nameAlias" },
                      { "name": "defaultAlias", "type": "defaultAlias" },
                      { "name": "hostnameAlias", "type": "hostnameAlias" }
                    ]
                  } ],
                  "virtualhostnodes": [ {
                    "name": "default",
                    "type": "Memory",
                    "defaultVirtualHostNode": "true",
                    "virtualHostInitialConfiguration": "%s"
                  } ]
                }
                """.formatted(port, vhost);
        Path file = work.resolve("config.json");
        Files.writeString(file, config, StandardCharsets.UTF_8);
        System.setProperty("qpid.work_dir", work.toString());
        Map<String, Object> attrs = new HashMap<>();
        attrs.put("type", "Memory");
        attrs.put("initialConfigurationLocation", file.toUri().toString());
        attrs.put("startupLoggedToSystemOut", false);
        attrs.put("qpid.work_dir", work.toString());
        SystemLauncher launcher = new SystemLauncher();
        launcher.startup(attrs);
        return new EmbeddedBrokerJ(port, launcher, work);
    }

    public int port() {
        return port;
    }

    public String uri() {
        return "amqp://guest:guest@127.0.0.1:" + port;
    }

    /** Stops the broker (its connections end); idempotent. */
    public synchronized void stop() {
        if (!stopped) {
            stopped = true;
            launcher.shutdown();
        }
    }

    @Override
    public void close() throws IOException {
        stop();
        try (var s = Files.walk(work)) {
            s.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    /** Runs a broker until the process is killed (the dist fault tests start it as a process of its own). */
    public static void main(String[] args) throws Exception {
        EmbeddedBrokerJ b = start();
        System.out.println("port " + b.port());
        System.out.flush();
        Thread.currentThread().join();
    }
}
