package io.msgscope.agent.probe;

import io.msgscope.core.fault.FaultAction;
import io.msgscope.core.fault.FaultTargets;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Partition, degrade and heal of a target's network namespace (issue 32), with iproute2 run directly (no shell): the
 * links are the one the agent was given ({@code netns:NS/DEV}) or every link of the namespace but {@code lo}.
 * Partition sets them down (the node's connections stall; the kernel keeps them), degrade puts a {@code tc tbf} rate
 * limit at their root (replacing what was there), heal sets them up and removes the limit degrade put.
 */
final class NetFault {
    private static final long WAIT_S = 10;
    private static final Pattern LINK = Pattern.compile("^\\d+:\\s+([^:@\\s]+)[@:]");
    private static final Pattern RATE = Pattern.compile("rate=([0-9]+(?:\\.[0-9]+)?)(bit|kbit|mbit|gbit)");

    private NetFault() {
    }

    /** Applies {@code action} ({@code arg}: degrade's rate) to {@code t}'s namespace; throws naming what failed. */
    static void apply(FaultTargets.Target t, FaultAction action, String arg, boolean degraded) throws IOException {
        for (String dev : links(t)) {
            switch (action) {
                case PARTITION -> run("ip", "-n", t.netns(), "link", "set", dev, "down");
                case DEGRADE -> run("tc", "-n", t.netns(), "qdisc", "replace", "dev", dev, "root", "tbf", "rate",
                        tcRate(arg), "burst", burstBytes(arg) + "b", "latency", "50ms");
                case HEAL -> {
                    run("ip", "-n", t.netns(), "link", "set", dev, "up");
                    if (degraded) {
                        run("tc", "-n", t.netns(), "qdisc", "del", "dev", dev, "root");
                    }
                }
                default -> throw new IllegalArgumentException(action + " is not a network action");
            }
        }
    }

    /** The links acted on: the one given, else every link of the namespace but lo. */
    static List<String> links(FaultTargets.Target t) throws IOException {
        if (t.device() != null) {
            return List.of(t.device());
        }
        List<String> out = new ArrayList<>();
        for (String line : run("ip", "-n", t.netns(), "-o", "link", "show").split("\n")) {
            Matcher m = LINK.matcher(line);
            if (m.find() && !m.group(1).equals("lo")) {
                out.add(m.group(1));
            }
        }
        if (out.isEmpty()) {
            throw new IOException("network namespace " + t.netns() + " has no link but lo");
        }
        return out;
    }

    /** {@code rate=1mbit} as tc's {@code 1mbit}. */
    static String tcRate(String arg) {
        Matcher m = RATE.matcher(arg);
        if (!m.matches()) {
            throw new IllegalArgumentException("not a rate: '" + arg + "'");
        }
        return m.group(1) + m.group(2);
    }

    /** The bucket: 10 ms at the rate, at least 1,600 B (one full-size frame and change), as tbf needs rate/HZ. */
    static long burstBytes(String arg) {
        Matcher m = RATE.matcher(arg);
        if (!m.matches()) {
            throw new IllegalArgumentException("not a rate: '" + arg + "'");
        }
        double bits = Double.parseDouble(m.group(1)) * switch (m.group(2).toLowerCase(Locale.ROOT)) {
            case "kbit" -> 1e3;
            case "mbit" -> 1e6;
            case "gbit" -> 1e9;
            default -> 1.0;
        };
        return Math.max(1_600L, (long) Math.ceil(bits / 8 / 100));
    }

    private static String run(String... cmd) throws IOException {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        try {
            if (!p.waitFor(WAIT_S, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IOException(String.join(" ", cmd) + " did not return within " + WAIT_S + " s");
            }
        } catch (InterruptedException e) {
            p.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new IOException("interrupted: " + String.join(" ", cmd));
        }
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (p.exitValue() != 0) {
            throw new IOException(String.join(" ", cmd) + " exited with code " + p.exitValue() + ": "
                    + out.strip().replace('\n', ' '));
        }
        return out;
    }
}
