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
 */
final class RabbitStreams {
    static final String URI = "rabbitmq-stream://guest:guest@127.0.0.1:5552/%2f";

    private RabbitStreams() {
    }

    static synchronized String require() {
        boolean ci = Ci.on();
        if (!listening(5672)) {
            if (ci) {
                Assertions.fail("RabbitMQ must listen on 127.0.0.1:5672 (guest/guest) under CI=true");
            }
            Assumptions.assumeTrue(false, "RabbitMQ is not listening on 127.0.0.1:5672: stream tests skipped (they "
                    + "fail instead under CI=true)");
        }
        if (!listening(5552)) {
            String why = enablePlugin();
            if (!listening(5552)) {
                String m = "RabbitMQ's stream port 127.0.0.1:5552 is closed and rabbitmq-plugins enable "
                        + "rabbitmq_stream did not help: " + why;
                if (ci) {
                    Assertions.fail(m);
                }
                Assumptions.assumeTrue(false, m);
            }
        }
        return URI;
    }

    static boolean listening(int port) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", port), 1_000);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    private static String enablePlugin() {
        return io.msgscope.core.test.RabbitPlugins.enable("rabbitmq_stream", 100, () -> listening(5552));
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
