package io.msgscope.core.driver;

import org.HdrHistogram.Histogram;

import java.util.EnumMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * Connections of one agent (issue 13): how long each took to become usable, from the start of its TCP
 * connect to the broker's answer (CONNACK, INFO, connection.open-ok; a subscriber's also to its SUBACK
 * or confirmed subscription), as an HdrHistogram in ns (1 µs to 60 s, 3 significant figures, as Q3),
 * and the connections that could not be made, counted by {@link Fault.Kind} with the first reason of
 * each kind. Safe from several opening threads.
 */
public final class ConnectStats {
    public static final long LOWEST_NS = 1_000;
    public static final long HIGHEST_NS = 60_000_000_000L;

    private final Histogram times = new Histogram(LOWEST_NS, HIGHEST_NS, 3);
    private final EnumMap<Fault.Kind, Long> failed = new EnumMap<>(Fault.Kind.class);
    private final EnumMap<Fault.Kind, String> firstReason = new EnumMap<>(Fault.Kind.class);
    private long opened;

    /** A connection became usable {@code nanos} after its connect began. */
    public synchronized void opened(long nanos) {
        times.recordValue(Math.max(LOWEST_NS, Math.min(HIGHEST_NS, nanos)));
        opened++;
    }

    /** A connection could not be made; {@code e}'s {@link Fault} kind and message say why. */
    public synchronized void failed(Throwable e) {
        Fault.Kind k = Fault.kindOf(e);
        if (k == Fault.Kind.OTHER) {
            k = Fault.Kind.CONNECT_FAILED;
        }
        failed.merge(k, 1L, Long::sum);
        String m = e.getMessage();
        firstReason.putIfAbsent(k, m == null || m.isBlank() ? e.getClass().getSimpleName() : m.replace('\n', ' '));
    }

    public synchronized long opened() {
        return opened;
    }

    public synchronized long failed() {
        long n = 0;
        for (long v : failed.values()) {
            n += v;
        }
        return n;
    }

    /** A copy of the connect-time histogram (ns). */
    public synchronized Histogram times() {
        return times.copy();
    }

    /** {@code connections_opened} and {@code connect_failed_<kind>} for every kind that occurred. */
    public synchronized Map<String, Long> counters() {
        Map<String, Long> m = new TreeMap<>();
        m.put("connections_opened", opened);
        for (Map.Entry<Fault.Kind, Long> e : failed.entrySet()) {
            m.put("connect_failed_" + e.getKey().field().substring("errors_".length()), e.getValue());
        }
        return m;
    }

    /** Connections that could not be made, by kind (a copy). */
    public synchronized Map<Fault.Kind, Long> failedByKind() {
        return new EnumMap<>(failed);
    }

    /** One line per failure kind: {@code "refused x3: <first reason>"}; empty when every connection opened. */
    public synchronized String failureSummary() {
        StringBuilder b = new StringBuilder();
        for (Map.Entry<Fault.Kind, Long> e : failed.entrySet()) {
            if (b.length() > 0) {
                b.append("; ");
            }
            b.append(e.getKey().field().substring("errors_".length())).append(" x").append(e.getValue()).append(": ")
                    .append(firstReason.get(e.getKey()));
        }
        return b.toString();
    }
}
