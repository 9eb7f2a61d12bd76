package io.msgscope.core.fault;

import io.msgscope.core.SpecException;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The targets a broker-probe agent may act on (issue 32), as it was started with them: a coordinator cannot name any
 * other, nor an action the target was not given the means for. Each {@code --fault-target} is one of
 * <ul>
 *   <li>{@code NAME=PIDFILE} — the process whose pid the file holds (read at each action): kill, pause, resume;</li>
 *   <li>{@code NAME=pid:PID} — that process: kill, pause, resume;</li>
 *   <li>{@code NAME=restart:COMMAND} — restart runs the command with {@code /bin/sh -c};</li>
 *   <li>{@code NAME=netns:NS} or {@code NAME=netns:NS/DEV} — the network namespace the target's node runs in (the
 *   network lab): partition sets its links (all but {@code lo}, or DEV) down, degrade rate-limits them with
 *   {@code tc tbf}, heal sets them up and removes the limit. Needs root and iproute2 on the agent's host.</li>
 * </ul>
 * A name may be given up to three times: once with its process, once with its restart command, once with its
 * namespace.
 */
public final class FaultTargets {
    public static final String OPTION = "--fault-target";

    /** One target: its process (a pid file or a pid; null/0 when none) and its restart command (null when none). */
    public record Target(String name, Path pidFile, long pid, String restartCommand, String netns, String device) {
        /** Whether this target can take {@code action}. */
        public boolean allows(FaultAction action) {
            return action.network() ? netns != null
                    : action == FaultAction.RESTART ? restartCommand != null : pidFile != null || pid > 0;
        }

        /** What {@code action} needs and this target was not given, for refusals. */
        static String means(FaultAction action) {
            return action.network() ? "network namespace (NAME=netns:NS)"
                    : action == FaultAction.RESTART ? "restart command" : "process";
        }

        /** The process's pid now: the pid file's first line, or the pid given. */
        public long currentPid() throws IOException {
            if (pid > 0) {
                return pid;
            }
            String text = Files.readString(pidFile, StandardCharsets.UTF_8).trim();
            try {
                long p = Long.parseLong(text.split("\\s+")[0]);
                if (p <= 0) {
                    throw new NumberFormatException();
                }
                return p;
            } catch (NumberFormatException e) {
                throw new IOException("the pid file " + pidFile + " holds no pid: '" + text + "'");
            }
        }

        /** What it was started with, for logs and refusals. */
        public String describe() {
            List<String> parts = new ArrayList<>();
            if (pidFile != null) {
                parts.add("pid file " + pidFile);
            }
            if (pid > 0) {
                parts.add("pid " + pid);
            }
            if (restartCommand != null) {
                parts.add("restart command");
            }
            if (netns != null) {
                parts.add("network namespace " + netns + (device == null ? "" : " link " + device));
            }
            return name + " (" + String.join(", ", parts) + ")";
        }
    }

    private static final String NS_NAME = "[A-Za-z0-9_.-]{1,64}";
    private static final String DEV_NAME = "[A-Za-z0-9_.-]{1,15}";
    /** Where {@code ip netns add} makes a namespace's handle. */
    static final Path NETNS_DIR = Path.of("/run/netns");

    private final Map<String, Target> targets;

    private FaultTargets(Map<String, Target> targets) {
        // sorted by name, so names() and arguments() come out the same every time (Map.copyOf has no order)
        this.targets = java.util.Collections.unmodifiableMap(new java.util.TreeMap<>(targets));
    }

    public static final FaultTargets NONE = new FaultTargets(Map.of());

    /** The targets given as {@code NAME=...} texts (see the class comment). */
    public static FaultTargets parse(List<String> given) {
        Map<String, Target> out = new LinkedHashMap<>();
        for (String g : given == null ? List.<String>of() : given) {
            int eq = g.indexOf('=');
            String name = eq < 0 ? "" : g.substring(0, eq).trim();
            String what = eq < 0 ? "" : g.substring(eq + 1).trim();
            if (!name.matches("[A-Za-z0-9_.-]{1,64}") || what.isEmpty()) {
                throw new SpecException(OPTION, "'" + g + "' is not NAME=PIDFILE, NAME=pid:PID, NAME=restart:COMMAND or NAME=netns:NS[/DEV]");
            }
            Target old = out.getOrDefault(name, new Target(name, null, 0, null, null, null));
            Target t;
            if (what.startsWith("netns:")) {
                String[] ns = what.substring("netns:".length()).trim().split("/", -1);
                String dev = ns.length > 1 ? ns[1].trim() : null;
                if (ns.length > 2 || !ns[0].trim().matches(NS_NAME) || (dev != null && !dev.matches(DEV_NAME))) {
                    throw new SpecException(OPTION, "'" + g + "': not netns:NS or netns:NS/DEV (a namespace name and a "
                            + "link name: letters, digits, _ . -)");
                }
                if (old.netns() != null) {
                    throw new SpecException(OPTION, "'" + g + "': " + name + " has a network namespace already");
                }
                t = new Target(name, old.pidFile(), old.pid(), old.restartCommand(), ns[0].trim(), dev);
            } else if (what.startsWith("restart:")) {
                String cmd = what.substring("restart:".length()).trim();
                if (cmd.isEmpty() || old.restartCommand() != null) {
                    throw new SpecException(OPTION, "'" + g + "': " + (cmd.isEmpty() ? "no command"
                            : name + " has a restart command already"));
                }
                t = new Target(name, old.pidFile(), old.pid(), cmd, old.netns(), old.device());
            } else {
                if (old.pidFile() != null || old.pid() > 0) {
                    throw new SpecException(OPTION, "'" + g + "': " + name + " has a process already");
                }
                if (what.startsWith("pid:")) {
                    long pid;
                    try {
                        pid = Long.parseLong(what.substring(4).trim());
                    } catch (NumberFormatException e) {
                        pid = -1;
                    }
                    if (pid <= 0) {
                        throw new SpecException(OPTION, "'" + g + "': not a process id");
                    }
                    t = new Target(name, null, pid, old.restartCommand(), old.netns(), old.device());
                } else {
                    t = new Target(name, Path.of(what), 0, old.restartCommand(), old.netns(), old.device());
                }
            }
            out.put(name, t);
        }
        return new FaultTargets(out);
    }

    public Target get(String name) {
        return targets.get(name);
    }

    public boolean isEmpty() {
        return targets.isEmpty();
    }

    /** The names, sorted, for refusals. */
    public List<String> names() {
        return List.copyOf(targets.keySet());
    }

    /**
     * Checks that every step names a target given here that allows its action, and that each target's process can be
     * found now; throws naming the first that does not (the run fails at set-up).
     */
    public void check(String option, FaultPlan plan) {
        for (FaultStep s : plan.steps()) {
            Target t = targets.get(s.target());
            if (t == null) {
                throw new SpecException(option, "target '" + s.target() + "' was not given to the broker-probe agent "
                        + "(its --fault-target: " + (targets.isEmpty() ? "none" : String.join(", ", names()))
                        + "); refused");
            }
            if (!t.allows(s.action())) {
                throw new SpecException(option, "'" + s.label() + "': the broker-probe agent was given no "
                        + Target.means(s.action()) + " for " + s.target() + "; refused");
            }
            if (s.action().network()) {
                if (!Files.exists(NETNS_DIR.resolve(t.netns()))) {
                    throw new SpecException(option, "target " + s.target() + ": no network namespace '" + t.netns()
                            + "' on the broker-probe agent's host (" + NETNS_DIR + ")");
                }
            } else if (s.action() != FaultAction.RESTART) {
                try {
                    long pid = t.currentPid();
                    if (ProcessHandle.of(pid).isEmpty()) {
                        throw new SpecException(option, "target " + s.target() + ": no process " + pid
                                + " on the broker-probe agent's host");
                    }
                } catch (IOException e) {
                    throw new SpecException(option, "target " + s.target() + ": " + e.getMessage());
                }
            }
        }
    }

    /** As {@code --fault-target} arguments again (a local probe agent is started with them). */
    public List<String> arguments() {
        List<String> out = new ArrayList<>();
        for (Target t : targets.values()) {
            if (t.pidFile() != null) {
                out.add(t.name() + "=" + t.pidFile());
            }
            if (t.pid() > 0) {
                out.add(t.name() + "=pid:" + t.pid());
            }
            if (t.restartCommand() != null) {
                out.add(t.name() + "=restart:" + t.restartCommand());
            }
            if (t.netns() != null) {
                out.add(t.name() + "=netns:" + t.netns() + (t.device() == null ? "" : "/" + t.device()));
            }
        }
        return out;
    }
}
