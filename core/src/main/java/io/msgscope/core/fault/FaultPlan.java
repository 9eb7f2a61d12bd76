package io.msgscope.core.fault;

import io.msgscope.core.SpecException;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A run's faults in time order (issue 32), kept apart from its load phases: each a {@link FaultStep} on the run's clock.
 *
 * <p>The shorthand ({@code --faults}) is a comma-separated list of {@code TIME:ACTION:TARGET}: a time with its unit
 * ({@code 500ms}, {@code 10s}, {@code 1.5s}, {@code 2m}) from the measurement's start, an action ({@code kill},
 * {@code pause}, {@code resume}, {@code restart}, {@code partition}, {@code heal}, {@code degrade}) and the name of a
 * target the broker-probe agent was given; degrade takes a fourth field, its rate ({@code 3s:degrade:node2:rate=1mbit}).
 */
public final class FaultPlan {
    private static final Pattern STEP = Pattern.compile(
            "\\s*([0-9]+(?:\\.[0-9]+)?)(ms|s|m)\\s*:\\s*([a-zA-Z]+)\\s*:\\s*([A-Za-z0-9_.-]{1,64})\\s*"
            + "(?::\\s*([A-Za-z0-9_.=]{1,64})\\s*)?");
    /** A degrade's rate as tc reads it: a number and bit, kbit, mbit or gbit (per second). */
    private static final Pattern RATE = Pattern.compile("rate=([0-9]+(?:\\.[0-9]+)?)(bit|kbit|mbit|gbit)");

    private final List<FaultStep> steps;

    public FaultPlan(List<FaultStep> steps) {
        List<FaultStep> sorted = new ArrayList<>(steps);
        sorted.sort(Comparator.comparingLong(FaultStep::atNs));
        this.steps = List.copyOf(sorted);
    }

    public List<FaultStep> steps() {
        return steps;
    }

    public boolean isEmpty() {
        return steps.isEmpty();
    }

    /** The targets named, in order of first use. */
    public List<String> targets() {
        return steps.stream().map(FaultStep::target).distinct().toList();
    }

    /** Parses the shorthand given to {@code option}; an empty text is no fault. */
    public static FaultPlan parse(String option, String text) {
        List<FaultStep> out = new ArrayList<>();
        if (text == null || text.isBlank()) {
            return new FaultPlan(out);
        }
        for (String part : text.split(",")) {
            Matcher m = STEP.matcher(part);
            if (!m.matches()) {
                throw new SpecException(option, "'" + part.trim() + "' is not TIME:ACTION:TARGET, e.g. 10s:pause:node1");
            }
            out.add(step(option, m.group(1) + m.group(2), m.group(3), m.group(4), m.group(5)));
        }
        return new FaultPlan(out);
    }

    /** One step from its three fields (the spec file's {@code at}, {@code action}, {@code target}). */
    public static FaultStep step(String option, String at, String action, String target) {
        return step(option, at, action, target, null);
    }

    /** One step from its fields; {@code arg} (null or empty: none) is degrade's {@code rate=...}. */
    public static FaultStep step(String option, String at, String action, String target, String arg) {
        FaultAction a = action == null ? null : FaultAction.of(action);
        if (a == null) {
            throw new SpecException(option, "'" + action + "' is not a fault action: kill, pause, resume, restart, "
                    + "partition, heal or degrade");
        }
        if (target == null || !target.matches("[A-Za-z0-9_.-]{1,64}")) {
            throw new SpecException(option, "'" + target + "' is not a target name (letters, digits, _ . -)");
        }
        return new FaultStep(durationNs(option, at), a, target, arg(option, a, target, arg));
    }

    /** {@code arg} checked for {@code a}: degrade's {@code rate=NUMBER(bit|kbit|mbit|gbit)}, nothing for the others. */
    public static String arg(String option, FaultAction a, String target, String arg) {
        String given = arg == null ? "" : arg.trim();
        if (a == FaultAction.DEGRADE) {
            Matcher r = RATE.matcher(given);
            if (!r.matches() || new BigDecimal(r.group(1)).signum() <= 0) {
                throw new SpecException(option, "degrade of " + target + " needs its rate as a fourth field, e.g. "
                        + "3s:degrade:" + target + ":rate=1mbit (bit, kbit, mbit or gbit per second), got '" + given + "'");
            }
        } else if (!given.isEmpty()) {
            throw new SpecException(option, "'" + given + "': only degrade takes a fourth field (its rate)");
        }
        return given;
    }

    static long durationNs(String option, String text) {
        Matcher m = Pattern.compile("([0-9]+(?:\\.[0-9]+)?)(ms|s|m)").matcher(text == null ? "" : text.trim());
        if (!m.matches()) {
            throw new SpecException(option, "'" + text + "' is not a time such as 500ms, 10s or 2m");
        }
        long unit = switch (m.group(2)) {
            case "ms" -> 1_000_000L;
            case "s" -> 1_000_000_000L;
            default -> 60_000_000_000L;
        };
        BigDecimal ns = new BigDecimal(m.group(1)).multiply(BigDecimal.valueOf(unit));
        if (ns.compareTo(BigDecimal.valueOf(7L * 24 * 3600 * 1_000_000_000L)) > 0) {
            throw new SpecException(option, "'" + text + "': a fault comes at most a week into the run");
        }
        return ns.longValue();
    }

    /** {@code 10s}, {@code 1.5s}, {@code 0.25s}; below a whole ms {@code 0.5ms}: what the shorthand reads back. */
    static String duration(long ns) {
        if (ns % 1_000_000L == 0) {
            return BigDecimal.valueOf(ns, 9).stripTrailingZeros().toPlainString() + "s";
        }
        return BigDecimal.valueOf(ns, 6).stripTrailingZeros().toPlainString() + "ms";
    }

    /**
     * Checks the plan against a run of {@code runNs} (null: not paced, so its end is unknown) and whether the clients
     * reconnect: every fault within the run, a resume only of a paused target, no pause of a paused one, no kill or
     * restart without reconnecting clients.
     */
    public void check(String option, Long runNs, boolean clientsReconnect) {
        check(option, runNs, clientsReconnect ? null : "no driver reconnects yet (a later reconnect option, "
                + "docs/limits.md)");
    }

    /**
     * The same, with the driver's reason its clients cannot survive a lost connection ({@code null}: they reconnect),
     * named in the refusal of a kill or restart.
     */
    public void check(String option, Long runNs, String whyNoReconnect) {
        if (steps.isEmpty()) {
            return;
        }
        if (runNs == null) {
            throw new SpecException(option, "faults are placed on a paced run's clock: give --rate or --phases");
        }
        Map<String, Boolean> paused = new HashMap<>();
        Map<String, String> cut = new HashMap<>(); // partitioned or degraded, not healed yet: the step that did it
        for (FaultStep s : steps) {
            if (s.atNs() >= runNs) {
                throw new SpecException(option, "'" + s.label() + "' comes after the run's end at " + duration(runNs));
            }
            if (s.action().endsConnections() && whyNoReconnect != null) {
                throw new SpecException(option, "'" + s.label() + "' ends the clients' connections and "
                        + whyNoReconnect + "; or use pause/resume");
            }
            if (s.action().network()) {
                checkNetwork(option, s, cut);
                continue;
            }
            boolean p = paused.getOrDefault(s.target(), false);
            switch (s.action()) {
                case PAUSE -> {
                    if (p) {
                        throw new SpecException(option, "'" + s.label() + "' pauses " + s.target()
                                + " while it is paused: resume it first");
                    }
                    paused.put(s.target(), true);
                }
                case RESUME -> {
                    if (!p) {
                        throw new SpecException(option, "'" + s.label() + "' resumes " + s.target()
                                + " which is not paused");
                    }
                    paused.put(s.target(), false);
                }
                default -> paused.put(s.target(), false);
            }
        }
        for (Map.Entry<String, Boolean> e : paused.entrySet()) {
            if (e.getValue()) {
                throw new SpecException(option, e.getKey() + " is paused and never resumed: add a resume before the "
                        + "run's end at " + duration(runNs));
            }
        }
        if (!cut.isEmpty()) {
            Map.Entry<String, String> e = cut.entrySet().iterator().next();
            throw new SpecException(option, "'" + e.getValue() + "' is never healed: add " + e.getKey()
                    + "'s heal before the run's end at " + duration(runNs));
        }
    }

    /** Partition and degrade of a target not cut off already; heal only of a partitioned or degraded one. */
    private static void checkNetwork(String option, FaultStep s, Map<String, String> cut) {
        String before = cut.get(s.target());
        if (s.action() == FaultAction.HEAL) {
            if (before == null) {
                throw new SpecException(option, "'" + s.label() + "' heals " + s.target()
                        + " which is neither partitioned nor degraded");
            }
            cut.remove(s.target());
        } else if (before != null) {
            throw new SpecException(option, "'" + s.label() + "' while '" + before + "' holds: heal " + s.target()
                    + " first");
        } else {
            cut.put(s.target(), s.label());
        }
    }

    /** The shorthand that parses back to this plan. */
    public String shorthand() {
        return String.join(", ", steps.stream().map(FaultStep::label).toList());
    }

    @Override
    public String toString() {
        return shorthand();
    }
}
