package io.msgscope.cli;

import io.msgscope.core.test.Ci;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;

/**
 * The local RabbitMQ's stream plugin on 127.0.0.1:5552 (issue 35 item 1). {@link #require} skips the calling test
 * when RabbitMQ is absent (fails under CI=true) and enables {@code rabbitmq_stream} when nothing listens on 5552
 * (enabling is online, no restart), as the AMQP 1.0 tests enable theirs; under CI=true it fails when it cannot.
 * {@link #requirePlugin} does the same for another plugin's port (STOMP's 61613).
 */
final class RabbitStreams {
    static final String URI = "rabbitmq-stream://guest:guest@127.0.0.1:5552/%2f";

    private RabbitStreams() {
    }

    static String require() {
        requirePlugin("rabbitmq_stream", 5552, "stream");
        return URI;
    }

    /**
     * RabbitMQ listens on 5672 and its plugin {@code plugin} on {@code port}, enabled here when nothing listens there
     * yet (online, no restart); otherwise the calling test is skipped, or fails under CI=true. {@code what} names the
     * port in messages ("stream", "STOMP").
     */
    static synchronized void requirePlugin(String plugin, int port, String what) {
        boolean ci = Ci.on();
        if (!listening(5672)) {
            if (ci) {
                Assertions.fail("RabbitMQ must listen on 127.0.0.1:5672 (guest/guest) under CI=true");
            }
            Assumptions.assumeTrue(false, "RabbitMQ is not listening on 127.0.0.1:5672: " + what + " tests skipped "
                    + "(they fail instead under CI=true)");
        }
        if (!listening(port)) {
            String why = io.msgscope.core.test.RabbitPlugins.enable(plugin, 100, () -> listening(port));
            if (!listening(port)) {
                String m = "RabbitMQ's " + what + " port 127.0.0.1:" + port + " is closed and rabbitmq-plugins enable "
                        + plugin + " did not help: " + why;
                if (ci) {
                    Assertions.fail(m);
                }
                Assumptions.assumeTrue(false, m);
            }
        }
    }

    static boolean listening(int port) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", port), 1_000);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /** The names of RabbitMQ's queues (streams among them), from rabbitmqctl. */
    static String queueNames() throws Exception {
        Process list = new ProcessBuilder("rabbitmqctl", "list_queues", "-q", "name").redirectErrorStream(true).start();
        String names = new String(list.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        list.waitFor();
        return names;
    }

    /** The trace runs' streams on the broker now ({@code msgscope-stream-UUID}). */
    static java.util.Set<String> runStreams() throws Exception {
        java.util.Set<String> s = new java.util.TreeSet<>();
        for (String line : queueNames().split("\\R")) {
            if (line.strip().startsWith("msgscope-stream-")) {
                s.add(line.strip());
            }
        }
        return s;
    }
}
