package io.msgscope.driver.artemis;

import io.msgscope.core.SpecException;
import io.msgscope.core.driver.BrokerUri;
import io.msgscope.core.driver.DriverSpec;
import io.msgscope.core.driver.TlsOptions;

import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The artemis driver's reading of {@code --uri} and {@code --opt} (issue 35 item 4), the same on both sides and in
 * {@link ArtemisDriver#checkOptions}: every bad value is a {@link SpecException} naming the option.
 *
 * @param uri            the broker: host, port, user and password ({@code tcp://user:password@host:port})
 * @param multicast      {@code routing=multicast}: each subscriber a subscription queue of its own on the address
 *                       (fan-out); otherwise one anycast queue named as the address, each message to one consumer
 * @param address        the address (and, anycast, its queue); the subscriber's choice when none is given
 * @param durable        durable messages and queues: the messages go through the broker's journal
 * @param block          {@code confirm=block}: each send waits for the broker's answer (blockOnDurableSend and
 *                       blockOnNonDurableSend), so a send that returned is confirmed; {@code none}: neither waits
 * @param consumerWindow the consumer's window in bytes: what the broker may push ahead of the consumer (-1 = no limit)
 * @param tls            over {@code ssl://}: {@code tls_ca} and {@code tls_verify} ({@link ArtemisTls}); null over
 *                       {@code tcp://}
 */
record ArtemisSettings(BrokerUri uri, boolean multicast, String address, boolean durable, boolean block,
                       int consumerWindow, TlsOptions tls) {
    static final String ROUTING = "routing";
    static final String ADDRESS = "address";
    static final Set<String> OPTIONS = Set.of(ROUTING, ADDRESS, "durable", "confirm", "consumer_window", "username",
            "password", TlsOptions.CA, TlsOptions.VERIFY);
    static final String DEFAULT_URI = "tcp://127.0.0.1:61616";
    /** Every address msgscope names itself begins with this; {@code msgscope clean} looks for it. */
    static final String NAME_PREFIX = "msgscope-artemis-";
    static final List<String> ROUTINGS = List.of("anycast", "multicast");
    static final List<String> CONFIRMS = List.of("block", "none");
    /** Artemis' own default consumer window, 1 MiB. */
    static final int DEFAULT_CONSUMER_WINDOW = 1024 * 1024;
    private static final BrokerUri.Schemes SCHEMES = new BrokerUri.Schemes(List.of("tcp"), List.of("ssl"), 61616, 61617);

    /** The settings of {@code spec}; a publisher takes the subscriber's address when it reported one. */
    static ArtemisSettings of(DriverSpec spec, boolean publisher) {
        spec.requireKnownOptions("artemis", OPTIONS);
        BrokerUri uri = BrokerUri.parse(spec.uri().isEmpty() ? DEFAULT_URI : spec.uri(), SCHEMES, spec);
        boolean multicast = oneOf(spec, ROUTING, "anycast", ROUTINGS).equals("multicast");
        boolean block = oneOf(spec, "confirm", "block", CONFIRMS).equals("block");
        boolean durable = spec.boolOption("durable", false);
        int window = (int) spec.longOption("consumer_window", DEFAULT_CONSUMER_WINDOW, -1, Integer.MAX_VALUE);
        String given = spec.option(ADDRESS, null);
        if (given != null && (given.isBlank() || given.chars().anyMatch(c -> c <= ' ' || c == '*' || c == '#'))) {
            throw new SpecException("--opt " + ADDRESS, "must be an address name without white space, '*' or '#' "
                    + "(Artemis' wildcards), got '" + given + "'");
        }
        String address = given != null ? given : publisher && !spec.destination().isEmpty() ? spec.destination()
                : NAME_PREFIX + Long.toHexString(ThreadLocalRandom.current().nextLong());
        return new ArtemisSettings(uri, multicast, address, durable, block, window,
                TlsOptions.of(spec, uri.tls(), "an ssl://"));
    }

    private static String oneOf(DriverSpec spec, String key, String dflt, List<String> allowed) {
        String v = spec.option(key, dflt).trim().toLowerCase(Locale.ROOT);
        if (!allowed.contains(v)) {
            throw new SpecException("--opt " + key, "must be " + String.join(" or ", allowed) + ", got '"
                    + spec.option(key, "") + "'");
        }
        return v;
    }

    /** The broker as the results and messages name it, without credentials: {@code tcp://host:port} or ssl://. */
    String url() {
        return (tls != null ? "ssl://" : "tcp://") + uri.address();
    }

    /** The core client's URL (credentials go in the session): tcp://host:port, and the TLS parameters over ssl://. */
    String locatorUrl() {
        return "tcp://" + uri.address() + (tls != null ? ArtemisTls.query(tls) : "");
    }

    /** {@code ANYCAST} or {@code MULTICAST}, for the results. */
    String routingName() {
        return multicast ? "MULTICAST" : "ANYCAST";
    }

    /** The delivery guarantee in words: "Artemis core confirm=block, non-durable, anycast". */
    String label() {
        return "Artemis core confirm=" + (block ? "block" : "none") + ", " + (durable ? "durable" : "non-durable")
                + ", " + routingName().toLowerCase(Locale.ROOT);
    }
}
