package io.msgscope.driver.redis;

import io.lettuce.core.RedisCommandExecutionException;

import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * What both sides share to get a lost connection back with {@code --opt reconnect=true} (issue 32 item 3), done by
 * msgscope rather than by Lettuce's own automatic reconnect: Lettuce would replay the commands it had in flight
 * without saying how many, so a republished message could not be counted. The connection is dialled again (the same
 * server: the driver takes one URI) every {@link #WAIT_MS} until it answers, or given up after {@link #GIVE_UP_MS}
 * without one; the run then fails as it would have without the option.
 */
final class RedisReconnect {
    /** The wait between two attempts to connect. */
    static final long WAIT_MS = 100;
    /** A side gives up after this long without a connection. */
    static final long GIVE_UP_MS = 120_000;

    private RedisReconnect() {
    }

    /**
     * Whether a command's failure is the connection's (closed, rejected while disconnected, cancelled by the close)
     * rather than the server's answer ({@link RedisCommandExecutionException}: an error reply, which would come again).
     */
    static boolean connectionLost(Throwable error) {
        Throwable e = error instanceof java.util.concurrent.CompletionException && error.getCause() != null
                ? error.getCause() : error;
        return !(e instanceof RedisCommandExecutionException) && !(e instanceof io.lettuce.core.RedisCommandTimeoutException);
    }

    /**
     * Whether a command failed because the client refused it, the connection being already lost (Lettuce's
     * {@code DisconnectedBehavior.REJECT_COMMANDS}, one message, no type of its own): it never reached the server.
     */
    static boolean refusedUnsent(Throwable error) {
        Throwable e = error instanceof java.util.concurrent.CompletionException && error.getCause() != null
                ? error.getCause() : error;
        return e.getMessage() != null && e.getMessage().startsWith("Currently not connected");
    }

    /** One subscriber's way back: dial again and subscribe again; an IOException when this attempt failed. */
    interface Attempt {
        void run() throws java.io.IOException;
    }

    /**
     * Tries {@code attempt} on the agent's retry thread now and every {@link #WAIT_MS} after a failure, until it
     * succeeds ({@code back} runs), {@code stop} says the subscriber closed, or {@link #GIVE_UP_MS} passed since
     * {@code lostAtMs} ({@code gaveUp} gets the last failure's message).
     */
    static void retry(ScheduledExecutorService on, long lostAtMs, Attempt attempt, java.util.function.BooleanSupplier stop,
            Runnable back, java.util.function.Consumer<String> gaveUp, long delayMs) {
        on.schedule(() -> {
            if (stop.getAsBoolean()) {
                return;
            }
            try {
                attempt.run();
                back.run();
            } catch (java.io.IOException | RuntimeException e) {
                if (System.currentTimeMillis() - lostAtMs > GIVE_UP_MS) {
                    gaveUp.accept("could not reconnect within " + GIVE_UP_MS / 1000 + " s: " + e.getMessage());
                } else {
                    retry(on, lostAtMs, attempt, stop, back, gaveUp, WAIT_MS);
                }
            }
        }, delayMs, TimeUnit.MILLISECONDS);
    }
}
