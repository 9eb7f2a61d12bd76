package io.msgscope.driver.nats.netty;

import java.time.Duration;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * The lean engine's own PINGs ({@code --opt ping_interval}; issue 32): a server that is paused or cut off by a
 * partition sends nothing and resets nothing, so without them a client waits for TCP to give up (minutes) while the
 * server's cluster has moved on. Every interval, on the connection's event loop, a PING is sent through the owner
 * (so it travels in order with the owner's own PINGs and their PONG counts stay right); once
 * {@value #MAX_UNANSWERED} PINGs in a row went without any PONG, the connection is closed as lost, with a one-line
 * reason naming the option, and with {@code reconnect=true} the owner dials the next server as after any loss.
 *
 * <p>Any PONG counts as an answer (PONGs answer PINGs in order, so one arriving says the server is processing this
 * connection), as jnats counts them; the first tick comes one interval after the owner started it.
 */
final class NatsKeepAlive implements Runnable {
    /** PINGs in a row without a PONG that make the connection stale (jnats' {@code maxPingsOut} here). */
    static final int MAX_UNANSWERED = 2;

    private final NettyNatsConnection conn;
    private final Runnable ping;
    private final Duration interval;
    private long pongsSeen;
    private int unanswered;

    private NatsKeepAlive(NettyNatsConnection conn, Runnable ping, Duration interval) {
        this.conn = conn;
        this.ping = ping;
        this.interval = interval;
        this.pongsSeen = conn.pongs();
    }

    /**
     * Starts pinging {@code c} every {@code --opt ping_interval} through {@code ping}, which must queue one PING behind
     * what the owner has queued; nothing when the option is not given. Stops with the channel.
     */
    static void start(NettyNatsConnection c, Runnable ping) {
        Duration every = c.settings.pingInterval();
        if (every == null || c.channel == null) {
            return;
        }
        long ns = every.toNanos();
        ScheduledFuture<?> task = c.channel.eventLoop().scheduleAtFixedRate(new NatsKeepAlive(c, ping, every), ns, ns,
                TimeUnit.NANOSECONDS);
        c.channel.closeFuture().addListener(f -> task.cancel(false));
    }

    /** One tick, on the event loop. */
    @Override
    public void run() {
        if (conn.lostWhy() != null) {
            return;
        }
        long p = conn.pongs();
        if (p != pongsSeen) {
            pongsSeen = p;
            unanswered = 0;
        }
        if (unanswered >= MAX_UNANSWERED) {
            conn.drop("answered none of the last " + MAX_UNANSWERED + " PINGs sent " + interval.toMillis()
                    + " ms apart (--opt ping_interval)");
            return;
        }
        unanswered++;
        ping.run();
    }
}
