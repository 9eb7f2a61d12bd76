package io.msgscope.core.test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/** Turns on a plugin of the machine's RabbitMQ for the tests that need it (AMQP 1.0, streams) and waits until it serves. */
public final class RabbitPlugins {
    private RabbitPlugins() {
    }

    /**
     * Runs {@code rabbitmq-plugins enable NAME}, then polls {@code serves} every 200 ms up to {@code tries} times;
     * returns what the command said in one line (for a test's failure message).
     */
    public static String enable(String name, int tries, BooleanSupplier serves) {
        try {
            Process p = new ProcessBuilder("rabbitmq-plugins", "enable", name).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(120, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return "rabbitmq-plugins did not finish in 120 s";
            }
            for (int i = 0; i < tries && !serves.getAsBoolean(); i++) {
                Thread.sleep(200);
            }
            return "exit " + p.exitValue() + ": " + out.replace('\n', ' ').trim();
        } catch (IOException e) {
            return "cannot run rabbitmq-plugins: " + e.getMessage();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "interrupted";
        }
    }
}
