package io.msgscope.core.scenario;

import io.msgscope.core.SpecException;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The four pub/sub shapes of seed 002 (Q6): who publishes to which topic, who subscribes, and how
 * many deliveries one sent message must produce.
 */
public enum Scenario {
    /** P publishers to one topic, one subscriber. */
    FAN_IN("fan-in"),
    /** One publisher to one topic, S subscribers, each gets every message. */
    FAN_OUT("fan-out"),
    /** P publisher/subscriber pairs, each pair on its own topic. */
    STRAIGHT_RUN("straight-run"),
    /** P publishers to one topic, S subscribers sharing one subscription: each message to exactly one. */
    ROUND_ROBIN("round-robin");

    private final String label;

    Scenario(String label) {
        this.label = label;
    }

    public String label() {
        return label;
    }

    public static Scenario parse(String s) {
        for (Scenario sc : values()) {
            if (sc.label.equals(s.toLowerCase(Locale.ROOT))) {
                return sc;
            }
        }
        throw new SpecException("--scenario", "must be fan-in, fan-out, straight-run or round-robin, got '" + s + "'");
    }

    /** Default publisher count when none is given. */
    public int defaultPublishers() {
        return this == FAN_OUT ? 1 : 4;
    }

    /** Default subscriber count for a publisher count when none is given. */
    public int defaultSubscribers(int publishers) {
        return switch (this) {
            case FAN_IN -> 1;
            case FAN_OUT, ROUND_ROBIN -> 4;
            case STRAIGHT_RUN -> publishers;
        };
    }

    /** Rejects counts the shape cannot have, naming the option. */
    public void check(int publishers, int subscribers) {
        if (publishers < 1 || publishers > 100_000) {
            throw new SpecException("--publishers", "must be between 1 and 100000, got " + publishers);
        }
        if (subscribers < 1 || subscribers > 100_000) {
            throw new SpecException("--subscribers", "must be between 1 and 100000, got " + subscribers);
        }
        switch (this) {
            case FAN_IN -> {
                if (subscribers != 1) {
                    throw new SpecException("--subscribers", "fan-in has exactly 1 subscriber, got " + subscribers
                            + " (for several subscribers sharing the load use --scenario round-robin)");
                }
            }
            case FAN_OUT -> {
                if (publishers != 1) {
                    throw new SpecException("--publishers", "fan-out has exactly 1 publisher, got " + publishers);
                }
            }
            case STRAIGHT_RUN -> {
                if (subscribers != publishers) {
                    throw new SpecException("--subscribers", "straight-run pairs each publisher with one subscriber: "
                            + "must equal --publishers (" + publishers + "), got " + subscribers);
                }
            }
            default -> {
            }
        }
    }

    /** Deliveries the subscribers must see for {@code sent} measured messages (Q6). */
    public long expected(long sent, int subscribers) {
        return this == FAN_OUT ? sent * subscribers : sent;
    }

    /** The seed's nominal figure: publishers × rate × duration (× subscribers for fan-out). */
    public long nominalExpected(int publishers, int subscribers, double rate, double seconds) {
        return expected(Math.round(rate * seconds) * publishers, subscribers);
    }

    /** Topic of each publisher connection. */
    public List<String> publisherTopics(String base, char sep, int publishers) {
        List<String> t = new ArrayList<>();
        for (int i = 0; i < publishers; i++) {
            t.add(this == STRAIGHT_RUN ? base + sep + i : base);
        }
        return t;
    }

    /** Topic of each subscriber connection. */
    public List<String> subscriberTopics(String base, char sep, int subscribers) {
        List<String> t = new ArrayList<>();
        for (int i = 0; i < subscribers; i++) {
            t.add(this == STRAIGHT_RUN ? base + sep + i : base);
        }
        return t;
    }
}
