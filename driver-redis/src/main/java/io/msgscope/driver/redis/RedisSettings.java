package io.msgscope.driver.redis;

import io.msgscope.core.SpecException;
import io.msgscope.core.driver.DriverSpec;

import java.net.URI;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The Redis driver's reading of {@code --uri} and {@code --opt} (issue 35 item 2), the same on both sides and in
 * {@link RedisDriver#checkOptions}: every bad value is a {@link SpecException} naming the option.
 *
 * @param uri         {@code redis://[user:password@]host:port[/db]}; {@code rediss://} for TLS
 * @param streams     true for Redis Streams (XADD / XREADGROUP / XACK), false for pub/sub (PUBLISH / SUBSCRIBE)
 * @param key         the stream key or channel; the subscriber's own choice ({@link #KEY_PREFIX} and a random part)
 *                    when neither {@code --opt key} nor the publisher's destination names one
 * @param group       streams subscriber: the consumer group to join (round-robin); empty = a group of its own
 *                    (fan-out: every subscriber sees every message)
 * @param maxlen      streams publisher: XADD's approximate MAXLEN trimming, 0 = none
 * @param count       streams subscriber: XREADGROUP COUNT, the most entries one read returns
 * @param maxInflight publisher: commands sent and not yet answered before {@code send} waits
 * @param tlsCa       rediss:// only: {@code --opt tls_ca}, a PEM file of the certificates to trust; null: the JVM's
 *                    trust store
 * @param tlsVerify   rediss:// only: {@code --opt tls_verify} (default true): check the server's certificate and that
 *                    it names the host; false accepts any (a test server only), as on the other drivers
 * @param reconnect   {@code --opt reconnect=true} (issue 32 item 3): a lost connection is dialled again, the
 *                    subscription resumed and what had no reply sent again, counted; false: a loss ends the run
 */
record RedisSettings(String uri, boolean streams, String key, String group, long maxlen, int count,
                     int maxInflight, String tlsCa, boolean tlsVerify, boolean reconnect) {
    static final Set<String> OPTIONS = Set.of("mode", "key", "group", "maxlen", "count", "max_inflight", "tls_ca",
            "tls_verify", io.msgscope.core.driver.Reconnects.OPTION);
    /** Every key and channel msgscope chooses begins with this; {@code msgscope clean} looks for it. */
    static final String KEY_PREFIX = "msgscope:";
    static final String DEFAULT_URI = "redis://127.0.0.1:6379";

    static RedisSettings of(DriverSpec spec, boolean publisher) {
        spec.requireKnownOptions("redis", OPTIONS);
        String uri = uri(spec);
        String mode = spec.option("mode", "streams").toLowerCase(Locale.ROOT);
        if (!mode.equals("streams") && !mode.equals("pubsub")) {
            throw new SpecException("--opt mode", "must be streams or pubsub, got '" + spec.option("mode", "") + "'");
        }
        boolean streams = mode.equals("streams");
        String key = publisher && !spec.destination().isEmpty() ? spec.destination() : spec.option("key", "");
        if (key.isEmpty() && spec.options().containsKey("key")) {
            throw new SpecException("--opt key", "must not be empty");
        }
        if (key.isEmpty() && !publisher) {
            key = KEY_PREFIX + Long.toHexString(ThreadLocalRandom.current().nextLong());
        }
        if (key.isEmpty()) {
            throw new SpecException("--opt key", "the publisher has no key: give --opt key or let the subscriber choose one");
        }
        if (!streams && (key.indexOf('*') >= 0 || key.indexOf('?') >= 0 || key.indexOf('[') >= 0)) {
            throw new SpecException("--opt key", "a pub/sub channel takes no pattern characters (*, ?, [), got '" + key + "'");
        }
        String group = spec.option("group", "");
        if (spec.options().containsKey("group") && (group.isEmpty() || !streams)) {
            throw new SpecException("--opt group", group.isEmpty() ? "must not be empty"
                    : "is for mode=streams only: Redis pub/sub has no consumer groups");
        }
        if (spec.options().containsKey("maxlen") && !streams) {
            throw new SpecException("--opt maxlen", "is for mode=streams only: pub/sub keeps no messages to trim");
        }
        if (spec.options().containsKey("count") && !streams) {
            throw new SpecException("--opt count", "is for mode=streams only: pub/sub pushes every message");
        }
        long maxlen = spec.longOption("maxlen", 0, 0, Long.MAX_VALUE);
        int count = (int) spec.longOption("count", 100, 1, 100_000);
        int maxInflight = (int) spec.longOption("max_inflight", 1000, 1, 1_000_000);
        boolean tls = uri.startsWith("rediss:");
        String tlsCa = spec.option("tls_ca", null);
        if (!tls && (tlsCa != null || spec.options().containsKey("tls_verify"))) {
            throw new SpecException("--opt " + (tlsCa != null ? "tls_ca" : "tls_verify"), "applies to TLS only: use a "
                    + "rediss:// URI");
        }
        if (tlsCa != null && !java.nio.file.Files.isReadable(java.nio.file.Path.of(tlsCa))) {
            throw new SpecException("--opt tls_ca", "cannot read the CA file '" + tlsCa + "'");
        }
        return new RedisSettings(uri, streams, key, group, maxlen, count, maxInflight, tlsCa,
                spec.boolOption("tls_verify", true), io.msgscope.core.driver.Reconnects.on(spec));
    }

    /** The URI with a redis or rediss scheme and a host; empty = {@link #DEFAULT_URI}. */
    static String uri(DriverSpec spec) {
        if (spec.uri().isEmpty()) {
            return DEFAULT_URI;
        }
        URI u;
        try {
            u = URI.create(spec.uri());
        } catch (IllegalArgumentException e) {
            throw new SpecException("--uri", "is not a URI: " + e.getMessage());
        }
        if (!"redis".equals(u.getScheme()) && !"rediss".equals(u.getScheme())) {
            throw new SpecException("--uri", "must be redis://host:port or rediss://host:port for the redis driver, got '"
                    + spec.uri() + "'");
        }
        if (u.getHost() == null) {
            throw new SpecException("--uri", "names no host: '" + spec.uri() + "'");
        }
        return spec.uri();
    }

    String mode() {
        return streams ? "streams" : "pubsub";
    }

    /** The address without credentials, for messages. */
    String address() {
        URI u = URI.create(uri);
        return u.getScheme() + "://" + u.getHost() + ":" + (u.getPort() > 0 ? u.getPort() : 6379);
    }
}
