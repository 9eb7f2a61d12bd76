package io.msgscope.driver.amqp;

import io.msgscope.core.test.Ci;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;

/**
 * The brokers the driver is tested against: the real RabbitMQ on 127.0.0.1:5672 (guest/guest) —
 * skipped with a message when absent, a failure under CI=true — and an embedded Qpid Broker-J,
 * started once per JVM.
 */
enum Broker {
    RABBITMQ {
        @Override
        String uri() {
            requireRabbit();
            return "amqp://guest:guest@127.0.0.1:5672/%2f";
        }
    },
    QPID {
        @Override
        String uri() throws Exception {
            return qpid().uri();
        }
    };

    abstract String uri() throws Exception;

    /** The URI with another password, or another virtual host. */
    String uriWith(String password, String vhost) throws Exception {
        String u = uri();
        String hostPort = u.substring(u.indexOf('@') + 1, u.lastIndexOf('/'));
        return "amqp://guest:" + password + "@" + hostPort + "/" + vhost;
    }

    private static EmbeddedQpid qpid;

    static synchronized EmbeddedQpid qpid() throws Exception {
        if (qpid == null) {
            qpid = EmbeddedQpid.start();
            EmbeddedQpid q = qpid;
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                try {
                    q.close();
                } catch (Exception e) {
                    // the JVM is going away
                }
            }));
        }
        return qpid;
    }

    static void requireRabbit() {
        boolean up;
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", 5672), 1_000);
            up = true;
        } catch (IOException e) {
            up = false;
        }
        if (!up && Ci.on()) {
            Assertions.fail("RabbitMQ must listen on 127.0.0.1:5672 (guest/guest) under CI=true");
        }
        Assumptions.assumeTrue(up, "RabbitMQ is not listening on 127.0.0.1:5672: RabbitMQ tests skipped "
                + "(they fail instead under CI=true)");
    }
}
