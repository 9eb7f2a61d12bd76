package io.msgscope.core.test;

import org.apache.qpid.server.SystemLauncher;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * An Apache Qpid Broker-J in this JVM, the embedded broker of the AMQP drivers' tests (driver-amqp's
 * {@code EmbeddedQpid}, AMQP 0-9-1; driver-amqp10's {@code EmbeddedBrokerJ}, AMQP 1.0): one port on a free loopback
 * port speaking one protocol, whose plugin the caller's test class path brings, one user guest/guest (PLAIN allowed
 * without TLS), one Memory virtual host "default" (also the default one), nothing written but the work folder,
 * which {@link #close} removes. Its logging goes nowhere. {@link #stop} stops it while clients are connected.
 */
public final class BrokerJ implements AutoCloseable {
    private final int port;
    private final SystemLauncher launcher;
    private final Path work;
    private boolean stopped;

    private BrokerJ(int port, SystemLauncher launcher, Path work) {
        this.port = port;
        this.launcher = launcher;
        this.work = work;
    }

    /**
     * Starts a broker.
     *
     * @param name the broker's name
     * @param workPrefix the prefix of its temporary work folder
     * @param protocol the port's protocol, e.g. {@code AMQP_0_9_1} or {@code AMQP_1_0}
     * @param virtualHost the virtual host's initial configuration, JSON
     * @param aliases the port's virtual host aliases by type, e.g. {@code nameAlias}, {@code defaultAlias}
     */
    public static BrokerJ start(String name, String workPrefix, String protocol, String virtualHost,
                                String... aliases) throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        Path work = Files.createTempDirectory(workPrefix);
        String aliasList = Stream.of(aliases)
                .map(a -> "      { \"name\": \"" + a + "\", \"type\": \"" + a + "\" }")
                .collect(Collectors.joining(",\n"));
        String config = """
                {
                  "name": "%s",
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
                    "protocols": [ "%s" ],
                    "authenticationProvider": "plain",
                    "virtualhostaliases": [
                %s
                    ]
                  } ],
                  "virtualhostnodes": [ {
                    "name": "default",
                    "type": "Memory",
                    "defaultVirtualHostNode": "true",
                    "virtualHostInitialConfiguration": "%s"
                  } ]
                }
                """.formatted(name, port, protocol, aliasList, virtualHost.replace("\"", "\\\""));
        Path file = work.resolve("config.json");
        Files.writeString(file, config, StandardCharsets.UTF_8);
        System.setProperty("qpid.work_dir", work.toString());
        Map<String, Object> attrs = new HashMap<>();
        attrs.put("type", "Memory"); // the broker's own configuration store: nothing written to disk
        attrs.put("initialConfigurationLocation", file.toUri().toString());
        attrs.put("startupLoggedToSystemOut", false);
        attrs.put("qpid.work_dir", work.toString());
        SystemLauncher launcher = new SystemLauncher();
        launcher.startup(attrs);
        return new BrokerJ(port, launcher, work);
    }

    public int port() {
        return port;
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
}
