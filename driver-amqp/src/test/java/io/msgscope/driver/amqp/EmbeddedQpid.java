package io.msgscope.driver.amqp;

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
 * An Apache Qpid Broker-J (AMQP 0-9-1, Memory virtual host) in this JVM, on a free loopback port,
 * with one user guest/guest (PLAIN allowed without TLS) and one virtual host "default", which is also
 * the default one (so "/" works). Its logging goes nowhere (slf4j-nop, no broker loggers).
 */
public final class EmbeddedQpid implements AutoCloseable {
    final int port;
    private final SystemLauncher launcher;
    private final Path work;

    private EmbeddedQpid(int port, SystemLauncher launcher, Path work) {
        this.port = port;
        this.launcher = launcher;
        this.work = work;
    }

    public static EmbeddedQpid start() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        Path work = Files.createTempDirectory("msgscope-qpid");
        String config = """
                {
                  "name": "msgscope-test-broker",
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
                    "protocols": [ "AMQP_0_9_1" ],
                    "authenticationProvider": "plain",
                    "virtualhostaliases": [
                      { "name": "nameAlias", "type": "nameAlias" },
                      { "name": "defaultAlias", "type": "defaultAlias" }
                    ]
                  } ],
                  "virtualhostnodes": [ {
                    "name": "default",
                    "type": "Memory",
                    "defaultVirtualHostNode": "true",
                    "virtualHostInitialConfiguration": "{\\"type\\": \\"Memory\\"}"
                  } ]
                }
                """.formatted(port);
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
        return new EmbeddedQpid(port, launcher, work);
    }

    public String uri() {
        return "amqp://guest:guest@127.0.0.1:" + port + "/%2f";
    }

    @Override
    public void close() throws IOException {
        launcher.shutdown();
        try (var s = Files.walk(work)) {
            s.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }
}
