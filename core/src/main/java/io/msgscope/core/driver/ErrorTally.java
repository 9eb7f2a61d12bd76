package io.msgscope.core.driver;

import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

/**
 * Errors of one agent counted by {@link Fault.Kind}, safe from any thread, with the first error's
 * one-line description kept for the results (issue 5: errors reported by kind).
 */
public final class ErrorTally {
    private final EnumMap<Fault.Kind, LongAdder> counts = new EnumMap<>(Fault.Kind.class);
    private volatile String first;

    public ErrorTally() {
        for (Fault.Kind k : Fault.Kind.values()) {
            counts.put(k, new LongAdder());
        }
    }

    public void add(Fault.Kind kind, String description) {
        add(kind, 1, description);
    }

    public void add(Fault.Kind kind, long n, String description) {
        if (n <= 0) {
            return;
        }
        counts.get(kind).add(n);
        if (first == null && description != null) {
            synchronized (this) {
                if (first == null) {
                    first = description;
                }
            }
        }
    }

    /** Counts {@code e} under its {@link Fault#kindOf kind}, described by its message (or class). */
    public void add(Throwable e) {
        String m = e.getMessage();
        add(Fault.kindOf(e), m == null || m.isBlank() ? e.getClass().getSimpleName() : m.replace('\n', ' '));
    }

    public long total() {
        long t = 0;
        for (LongAdder a : counts.values()) {
            t += a.sum();
        }
        return t;
    }

    /** The first error seen, or null. */
    public String first() {
        return first;
    }

    /** Puts {@code errors_<kind>} for every kind (zeros included, so every result has the same fields). */
    public void putInto(Map<String, Long> m) {
        for (Map.Entry<Fault.Kind, LongAdder> e : counts.entrySet()) {
            m.put(e.getKey().field(), e.getValue().sum());
        }
    }
}
