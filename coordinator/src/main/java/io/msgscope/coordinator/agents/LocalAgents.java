package io.msgscope.coordinator.agents;

import io.msgscope.control.AgentFailure;
import io.msgscope.control.ControlCredentials;
import io.msgscope.control.Frames;
import io.msgscope.control.SharedSecret;
import io.msgscope.proto.Role;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Starts agents as separate JVM processes on this box ({@code msgscope agent --role R --listen
 * 127.0.0.1:0 --once}), learns each one's control port from its first output line, keeps each
 * one's output in {@code agent-ROLE.log} in the results folder, and tells the coordinator when one
 * has died (a crashed child is detected, never waited on forever).
 *
 * <p>Issue 14: each agent gets a one-time shared secret in its environment (another user of the box
 * cannot drive it, and the user configures nothing), and is told this process's pid: it exits when
 * this process dies, SIGKILL included, and when no coordinator has connected within its
 * {@code --connect-deadline}.
 */
public final class LocalAgents implements AgentPlan {
    /** The line an agent prints once its control server listens. */
    public static final Pattern LISTENING = Pattern.compile("msgscope agent (\\w+) listening on ([^\\s]+):(\\d+)");
    public static final String MAIN_CLASS = "io.msgscope.cli.Main";

    /** A started agent process. */
    public static final class Agent implements AgentEndpoint {
        private final Role role;
        private final Process process;
        private final Path log;
        private final int port;

        Agent(Role role, Process process, Path log, int port) {
            this.role = role;
            this.process = process;
            this.log = log;
            this.port = port;
        }

        public Role role() {
            return role;
        }

        @Override
        public String host() {
            return "127.0.0.1";
        }

        @Override
        public int port() {
            return port;
        }

        public long pid() {
            return process.pid();
        }

        /** Null while the process lives; else how it ended and the last line it wrote. */
        @Override
        public String deathReason() {
            if (process.isAlive()) {
                return null;
            }
            return "agent process " + process.pid() + " " + exitStatus(process.exitValue()) + lastLine();
        }

        /** "exited with code 3", or for a status above 128 (the JVM's and the shell's way) the signal that killed it. */
        static String exitStatus(int code) {
            if (code > 128 && code < 160) {
                int sig = code - 128;
                String name = switch (sig) {
                    case 9 -> " (SIGKILL)";
                    case 15 -> " (SIGTERM)";
                    case 2 -> " (SIGINT)";
                    case 6 -> " (SIGABRT)";
                    case 11 -> " (SIGSEGV)";
                    default -> "";
                };
                return "was killed by signal " + sig + name + " (exit code " + code + ")";
            }
            return "exited with code " + code;
        }

        private String lastLine() {
            try {
                List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
                for (int i = lines.size() - 1; i >= 0; i--) {
                    if (!lines.get(i).isBlank()) {
                        return " (" + log.getFileName() + ": " + lines.get(i).trim() + ")";
                    }
                }
            } catch (IOException e) {
                // no log
            }
            return "";
        }
    }

    /**
     * Set by the {@code msgscope} launcher to the class-data sharing archive it started this JVM with
     * ({@code dist/target/msgscope.jsa}, built with the jar): the agents map it too, and start in about half the time
     * (docs/development.md, "Start-up time").
     */
    public static final String CDS_PROPERTY = "msgscope.cds";
    /** Extra JVM options of every local agent, split on blanks; {@code {role}} in one becomes the agent's role. */
    public static final String JAVA_OPTS_ENV = "MSGSCOPE_AGENT_JAVA_OPTS";

    /**
     * The options a local agent gets beyond its heap and GC: the class-data sharing archive of {@code cdsArchive}
     * (null: none), with the JVM's own messages about it silenced (a JVM of another version refuses the archive and
     * starts without it, which is all a user needs to know), then {@code javaOpts} with {@code {role}} replaced.
     */
    static List<String> extraJvmArgs(String cdsArchive, String javaOpts, String role) {
        List<String> out = new ArrayList<>(sharingArchive(cdsArchive));
        if (javaOpts != null) {
            for (String opt : javaOpts.trim().split("\\s+")) {
                if (!opt.isEmpty()) {
                    out.add(opt.replace("{role}", role));
                }
            }
        }
        return out;
    }

    /**
     * The options that start a JVM of this jar with the class-data sharing archive {@code archive} (none when null) and
     * pass it on to the JVMs that one starts; the JVM's own messages about the archive are silenced (one of another
     * version refuses it and starts without it, slower but otherwise the same).
     */
    public static List<String> sharingArchive(String archive) {
        if (archive == null || archive.isBlank()) {
            return List.of();
        }
        return List.of("-XX:SharedArchiveFile=" + archive, "-Xlog:cds=off", "-D" + CDS_PROPERTY + "=" + archive);
    }

    /** The sidecar probe only samples CPU and network: a small heap whatever the others get. */
    static final List<String> PROBE_JVM_ARGS = List.of("-Xmx128m", "-XX:+UseSerialGC");

    private final List<Agent> agents = new ArrayList<>();
    /** JVMs launched by {@link #prepare} and not yet asked for. */
    private final Map<Role, Launch> launched = new EnumMap<>(Role.class);
    private final Path outDir;
    private final List<String> jvmArgs;
    private List<String> faultTargets = List.of();

    /**
     * Agents started as they are asked for, each with its log in {@code outDir}.
     *
     * @param jvmArgs JVM options of every agent but the sidecar probe (see {@link #jvmArgs(long)})
     */
    public LocalAgents(Path outDir, List<String> jvmArgs) {
        this.outDir = outDir;
        this.jvmArgs = List.copyOf(jvmArgs);
    }

    /**
     * The {@code --fault-target} arguments a probe agent started here gets (issue 32): the only targets and actions it
     * will apply, whatever a coordinator asks.
     */
    public LocalAgents faultTargets(List<String> targets) {
        this.faultTargets = List.copyOf(targets);
        return this;
    }

    /** The JVM options of an agent with a heap of {@code heapMb} MiB, fixed (and touched) before it measures. */
    public static List<String> jvmArgs(long heapMb) {
        // Netty's leak detector samples a stack trace every 128th buffer on the event loops: off while measuring
        return List.of("-Xms" + heapMb + "m", "-Xmx" + heapMb + "m", "-XX:+UseSerialGC", "-XX:+AlwaysPreTouch",
                "-Dio.netty.leakDetection.level=disabled");
    }

    /**
     * Launches the JVMs of {@code roles} at once, without waiting for them: a JVM spends most of its ~0.5-1.5 s start
     * loading classes, so three started side by side are ready ~2-3 s sooner than one after the other (issue 36's
     * suite time, and every run's set-up). {@link #agents(Role)} then waits for the one launched for its role.
     */
    @Override
    public void prepare(List<Role> roles) throws IOException {
        for (Role role : roles) {
            if (!launched.containsKey(role)) {
                launched.put(role, launch(role, role == Role.PROBE ? PROBE_JVM_ARGS : jvmArgs));
            }
        }
    }

    /** One agent of {@code role} started on this box (or launched by {@link #prepare}), within {@link Deadlines#START_MS}. */
    @Override
    public List<AgentEndpoint> agents(Role role) throws IOException {
        Launch l = launched.remove(role);
        if (l == null) {
            l = launch(role, role == Role.PROBE ? PROBE_JVM_ARGS : jvmArgs);
        }
        return List.of(await(role, l, Deadlines.START_MS));
    }

    /** None from the user: each local agent's one-time secret is registered with the control channel as it starts. */
    @Override
    public ControlCredentials credentials() {
        return ControlCredentials.NONE;
    }

    /** A JVM launched for a role, its output pumped into its log, its control port not yet known. */
    private record Launch(Process process, Path log, SharedSecret secret, CompletableFuture<Integer> port) {
    }

    /** Starts one agent's JVM; {@link #await} waits for its listening line. */
    private Launch launch(Role role, List<String> jvmArgs) throws IOException {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> cmd = new ArrayList<>();
        cmd.add(java);
        cmd.addAll(jvmArgs);
        cmd.addAll(extraJvmArgs(System.getProperty(CDS_PROPERTY), System.getenv(JAVA_OPTS_ENV), Frames.name(role)));
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(MAIN_CLASS);
        cmd.add("agent");
        cmd.add("--role");
        cmd.add(Frames.name(role));
        cmd.add("--listen");
        cmd.add("127.0.0.1:0");
        cmd.add("--once");
        if (role == Role.PROBE) {
            for (String t : faultTargets) {
                cmd.add(io.msgscope.core.fault.FaultTargets.OPTION + "=" + t);
            }
        }
        cmd.add("--parent-pid");
        cmd.add(Long.toString(ProcessHandle.current().pid()));
        Path log = outDir.resolve("agent-" + Frames.name(role) + ".log");
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        SharedSecret secret = SharedSecret.random();
        pb.environment().put(SharedSecret.ENV, secret.text()); // never on the command line: ps shows that
        Process p = pb.start();
        OutputStream logOut = io.msgscope.core.SafeFiles.create(log); // not through a planted link (issue 28)
        CompletableFuture<Integer> port = new CompletableFuture<>();
        Thread pump = new Thread(() -> pump(p, logOut, port), "agent-" + Frames.name(role) + "-output");
        pump.setDaemon(true);
        pump.start();
        return new Launch(p, log, secret, port);
    }

    /** Waits for a launched agent's listening line and registers its secret with the control channel. */
    private Agent await(Role role, Launch l, long timeoutMs) throws IOException {
        try {
            int agentPort = l.port().get(timeoutMs, TimeUnit.MILLISECONDS);
            ControlCredentials.registerLocal(agentPort, l.secret());
            Agent a = new Agent(role, l.process(), l.log(), agentPort);
            agents.add(a);
            return a;
        } catch (Exception e) {
            throw new StartFailure(role, startFailure(l.process(), l.log(), e, timeoutMs));
        }
    }

    /**
     * An agent that died, or never reported its control port, while it started: which role and why, as fields, so
     * that every mode reports it the same way (an agent lost at set-up) without reading the message's text. Its
     * message is {@code "<role> agent: <reason>"}.
     */
    public static final class StartFailure extends IOException {
        private final Role role;
        private final String reason;

        public StartFailure(Role role, String reason) {
            super(Frames.name(role) + " agent: " + reason);
            this.role = role;
            this.reason = reason;
        }

        public Role role() {
            return role;
        }

        /** Why it did not start, without the role: its exit status and last log line, or the time-out. */
        public String reason() {
            return reason;
        }

        /** The same failure as the control plane's {@link AgentFailure} for an agent lost at set-up (not bad usage). */
        public AgentFailure asAgentFailure() {
            return new AgentFailure(Frames.name(role) + " agent", reason, false);
        }
    }

    /**
     * Why an agent did not report its port, the process killed if it still runs: its exit status and last log line
     * when its output ended (it died or was killed during start-up), the time-out only when it was still running.
     */
    static String startFailure(Process p, Path log, Exception e, long timeoutMs) {
        boolean outputEnded = e instanceof java.util.concurrent.ExecutionException;
        try {
            if (outputEnded) {
                p.waitFor(5, TimeUnit.SECONDS); // its output ended: it is exiting, let it finish
            }
        } catch (InterruptedException ie) {
            Thread.currentThread().interrupt();
        }
        if (p.isAlive()) {
            p.destroyForcibly();
            return outputEnded ? "closed its output without reporting its control port (process " + p.pid() + " killed)"
                    : "did not report its control port within " + timeoutMs + " ms (process " + p.pid() + " killed)";
        }
        return new Agent(null, p, log, -1).deathReason() + " before it reported its control port";
    }

    private static void pump(Process p, OutputStream logOut, CompletableFuture<Integer> port) {
        try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
             OutputStream out = logOut) {
            String line;
            while ((line = r.readLine()) != null) {
                out.write((line + "\n").getBytes(StandardCharsets.UTF_8));
                out.flush();
                if (!port.isDone()) {
                    Matcher m = LISTENING.matcher(line);
                    if (m.find()) {
                        port.complete(Integer.parseInt(m.group(3)));
                    }
                }
            }
        } catch (IOException e) {
            // the process is gone
        }
        port.completeExceptionally(new IOException("agent output ended"));
    }

    /** Waits briefly for the agents to exit on their own (they do after the run), then kills the rest. */
    @Override
    public void close() {
        for (Launch l : launched.values()) { // launched for a run that ended before it asked for them
            l.process().destroyForcibly();
        }
        launched.clear();
        for (Agent a : agents) {
            if (a.port > 0) {
                ControlCredentials.forgetLocal(a.port);
            }
            try {
                if (!a.process.waitFor(3, TimeUnit.SECONDS)) {
                    a.process.destroy();
                    if (!a.process.waitFor(2, TimeUnit.SECONDS)) {
                        a.process.destroyForcibly();
                    }
                }
            } catch (InterruptedException e) {
                a.process.destroyForcibly();
                Thread.currentThread().interrupt();
            }
        }
    }
}
