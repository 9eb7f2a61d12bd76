package io.msgscope.driver.amqp10;

import io.msgscope.core.test.Ci;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.Arrays;

/**
 * The local RabbitMQ on 127.0.0.1:5672 with its AMQP 1.0 plugin. {@link #require} skips the calling test with a
 * message when RabbitMQ is absent (fails under CI=true), and enables {@code rabbitmq_amqp1_0} when the broker does not
 * answer the AMQP 1.0 protocol header with its own (enabling is online, no restart); under CI=true it fails when it
 * cannot.
 */
public final class RabbitAmqp10 {
    public static final String URI = "amqp://guest:guest@127.0.0.1:5672";
    private static final byte[] SASL_HEADER = {'A', 'M', 'Q', 'P', 3, 1, 0, 0};
    private static final byte[] PLAIN_HEADER = {'A', 'M', 'Q', 'P', 0, 1, 0, 0};

    private RabbitAmqp10() {
    }

    /** RabbitMQ listens and speaks AMQP 1.0 (enabled here if needed), or the test is skipped (failed under CI). */
    public static synchronized String require() {
        boolean ci = Ci.on();
        if (!listening()) {
            if (ci) {
                Assertions.fail("RabbitMQ must listen on 127.0.0.1:5672 (guest/guest) under CI=true");
            }
            Assumptions.assumeTrue(false, "RabbitMQ is not listening on 127.0.0.1:5672: AMQP 1.0 tests against it "
                    + "skipped (they fail instead under CI=true)");
        }
        if (!speaksAmqp10()) {
            String why = enablePlugin();
            if (!speaksAmqp10()) {
                String m = "RabbitMQ on 127.0.0.1:5672 does not speak AMQP 1.0 and rabbitmq-plugins enable "
                        + "rabbitmq_amqp1_0 did not help: " + why;
                if (ci) {
                    Assertions.fail(m);
                }
                Assumptions.assumeTrue(false, m);
            }
        }
        return URI;
    }

    static boolean listening() {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", 5672), 1_000);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /** True when RabbitMQ answers the AMQP 1.0 SASL header with the same (the plugin is on). */
    public static boolean speaksAmqp10() {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", 5672), 1_000);
            s.setSoTimeout(3_000);
            OutputStream out = s.getOutputStream();
            out.write(SASL_HEADER);
            out.flush();
            InputStream in = s.getInputStream();
            byte[] reply = in.readNBytes(8);
            return Arrays.equals(reply, SASL_HEADER) || Arrays.equals(reply, PLAIN_HEADER);
        } catch (IOException e) {
            return false;
        }
    }

    private static String enablePlugin() {
        return io.msgscope.core.test.RabbitPlugins.enable("rabbitmq_amqp1_0", 50, RabbitAmqp10::speaksAmqp10);
    }
}
