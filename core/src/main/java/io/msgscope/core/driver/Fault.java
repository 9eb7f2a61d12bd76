package io.msgscope.core.driver;

import java.io.IOException;
import java.util.Locale;

/**
 * A failure of the system under test that a driver can name (issue 5, "Bad input and faults"): the
 * broker refused something, a connection could not be made or was lost, a payload was too short.
 * Results count errors by {@link Kind}, so a reader sees at once whether a run failed on a refusal
 * or on a lost connection.
 */
public final class Fault extends IOException {
    /** The kinds of error counted in a scenario's results, each as the field {@code errors_<kind>}. */
    public enum Kind {
        /** The broker refused: a CONNACK, SUBACK or PUBACK reason code, a lowered QoS, a stream refused. */
        REFUSED,
        /** No connection could be made (nothing listening, a timeout, TLS). */
        CONNECT_FAILED,
        /** An established connection or subscription ended. */
        CONNECTION_LOST,
        /** A publish that failed without a reason code from the broker (e.g. a missing ack). */
        PUBLISH_FAILED,
        /** A delivered payload shorter than the 32-byte header: counted, never handed on. */
        SHORT_PAYLOAD,
        /** The client dropped messages it could not take in time (NATS slow consumer). */
        SLOW_CONSUMER,
        /** An agent process died or fell silent. */
        AGENT_LOST,
        /** Anything else. */
        OTHER;

        /** The results field, e.g. {@code errors_connection_lost}. */
        public String field() {
            return "errors_" + name().toLowerCase(Locale.ROOT);
        }

        /** Parses {@link #name()} leniently; unknown or empty names are {@link #OTHER}. */
        public static Kind of(String name) {
            if (name == null || name.isEmpty()) {
                return OTHER;
            }
            try {
                return valueOf(name.toUpperCase(Locale.ROOT));
            } catch (IllegalArgumentException e) {
                return OTHER;
            }
        }
    }

    private final Kind kind;

    public Fault(Kind kind, String message) {
        super(message);
        this.kind = kind;
    }

    public Fault(Kind kind, String message, Throwable cause) {
        super(message, cause);
        this.kind = kind;
    }

    public Kind kind() {
        return kind;
    }

    /** The kind of the first {@link Fault} in {@code t}'s cause chain, {@link Kind#OTHER} when there is none. */
    public static Kind kindOf(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
            if (c instanceof Fault f) {
                return f.kind;
            }
        }
        return Kind.OTHER;
    }

    /** An MQTT-style reason code as {@code 0x87 NOT_AUTHORIZED}. */
    public static String reasonCode(int code, Object name) {
        return String.format(Locale.ROOT, "0x%02X %s", code, name);
    }
}
