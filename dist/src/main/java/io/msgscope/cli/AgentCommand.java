package io.msgscope.cli;

import io.msgscope.agent.probe.RelayRole;
import io.msgscope.agent.probe.SidecarRole;
import io.msgscope.agent.receiver.ReceiverRole;
import io.msgscope.agent.receiver.SubscribersRole;
import io.msgscope.agent.sender.FlowRole;
import io.msgscope.agent.sender.PublishersRole;
import io.msgscope.agent.sender.SenderRole;
import io.msgscope.control.AgentRole;
import io.msgscope.control.AgentServer;
import io.msgscope.control.ControlCodec;
import io.msgscope.coordinator.cli.ExitCodes;
import io.msgscope.core.SpecException;
import io.msgscope.core.driver.Drivers;
import io.msgscope.proto.Role;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.function.Supplier;

/**
 * {@code msgscope agent}: an agent daemon serving one run after another (or one, with --once),
 * driven by a coordinator over the control channel (D7).
 */
@Command(name = "agent", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Run an agent: sender, receiver, relay (the broker-probe agent in relay mode) or probe (the "
                               + "broker-probe agent in sidecar mode, sampling a broker process's CPU on its host), or flow (seed "
                               + "000's client: publisher and consumer in one process, for msgscope throughput). Prints 'msgscope "
                               + "agent ROLE listening on HOST:PORT' once it listens."},
        footer = {"",
                  "Off loopback an agent requires --tls-dir (mutual TLS, certificates from 'msgscope certs') "
                          + "and/or the shared secret (--secret-file).",
                  "",
                  "Exit codes: 0 served and exited, 1 a --once agent stopped without serving (no coordinator "
                          + "within --connect-deadline, or its --parent-pid exited), 2 bad usage (e.g. --listen address in "
                          + "use, a certificate that expired)."})
public final class AgentCommand implements Callable<Integer> {
    @Spec
    CommandSpec commandSpec;

    @Option(names = "--role", required = true, paramLabel = "sender|receiver|relay|probe|flow|publishers|subscribers",
            description = "What this agent does.")
    String role;

    @Option(names = "--listen", paramLabel = "HOST:PORT", defaultValue = "127.0.0.1:7600",
            description = "Control address; port 0 = any free port (default: ${DEFAULT-VALUE}). Any address but "
                    + "loopback needs --tls-dir and/or --secret-file.")
    String listen;

    @Option(names = "--secret-file", paramLabel = "FILE",
            description = "Shared secret (>= 16 bytes, chmod 600) every coordinator must prove; also from the "
                    + "environment variable MSGSCOPE_SECRET. Off loopback the control channel then runs over TLS "
                    + "with a throw-away certificate the proofs are bound to (default: none).")
    java.nio.file.Path secretFile;

    @Option(names = "--tls-dir", paramLabel = "DIR",
            description = "Mutual TLS 1.3: this host's certificate and key and the test network's CA (ca.pem, "
                    + "cert.pem, key.pem, made by 'msgscope certs'); every coordinator must present a certificate "
                    + "from the same CA (default: none).")
    java.nio.file.Path tlsDir;

    @Option(names = io.msgscope.core.fault.FaultTargets.OPTION, paramLabel = "NAME=PIDFILE|NAME=pid:PID|NAME=restart:CMD|NAME=netns:NS[/DEV]",
            description = "Probe role: a target whose faults (issue 32) this agent may apply — kill, pause, resume the "
                    + "process of the pid file (or pid), restart by the command (run with /bin/sh -c), partition, "
                    + "heal, degrade the links of the network namespace (all but lo, or DEV; root); repeat for "
                    + "more targets; a coordinator asking for any other target or action is refused (default: none).")
    java.util.List<String> faultTargets;

    @Option(names = "--parent-pid", paramLabel = "PID",
            description = "Exit when this process exits (what a coordinator that starts its own agents passes: "
                    + "no agent outlives it, SIGKILL included) (default: none).")
    Long parentPid;

    @Option(names = "--connect-deadline", paramLabel = "SECONDS", defaultValue = "120",
            description = "With --once: exit when no coordinator has authenticated within this many seconds of "
                    + "listening; 0 = wait forever (default: ${DEFAULT-VALUE}).")
    int connectDeadlineS;

    @Option(names = "--once", defaultValue = "false",
            description = "Exit after serving one coordinator session (default: ${DEFAULT-VALUE}).")
    boolean once;

    @Option(names = "--max-frame", paramLabel = "BYTES", defaultValue = "" + ControlCodec.DEFAULT_MAX_FRAME,
            description = "Control frame size cap (default: ${DEFAULT-VALUE}).")
    int maxFrame;

    @Override
    public Integer call() throws Exception {
        if (System.getProperty("io.netty.leakDetection.level") == null) {
            // an agent measures: Netty's leak detector would take a stack trace every 128th buffer on the event
            // loops the drivers share (-Dio.netty.leakDetection.level=simple turns it back on for debugging)
            io.netty.util.ResourceLeakDetector.setLevel(io.netty.util.ResourceLeakDetector.Level.DISABLED);
        }
        Role r = parseRole(role);
        int colon = listen.lastIndexOf(':');
        if (colon <= 0) {
            throw new SpecException("--listen", "must be HOST:PORT, got '" + listen + "'");
        }
        String host = listen.substring(0, colon);
        int port;
        try {
            port = Integer.parseInt(listen.substring(colon + 1));
        } catch (NumberFormatException e) {
            throw new SpecException("--listen", "port must be a number 0-65535, got '" + listen.substring(colon + 1) + "'");
        }
        if (port < 0 || port > 65_535) {
            throw new SpecException("--listen", "port must be between 0 and 65535, got " + port);
        }
        io.msgscope.control.SharedSecret secret = io.msgscope.control.SharedSecret.load(secretFile);
        io.msgscope.control.ControlTls tls = tlsDir == null ? null : io.msgscope.control.ControlTls.load(tlsDir);
        if (!isLoopback(host) && secret == null && tls == null) {
            throw new SpecException("--listen", "refusing to listen on " + host + " without credentials: an agent "
                    + "on a network must not run a stranger's workload; give --tls-dir (certificates from 'msgscope "
                    + "certs') and/or --secret-file (or MSGSCOPE_SECRET), or use a loopback address");
        }
        if (connectDeadlineS < 0 || connectDeadlineS > 86_400) {
            throw new SpecException("--connect-deadline", "must be between 0 and 86400 s, got " + connectDeadlineS);
        }
        if (parentPid != null && parentPid <= 0) {
            throw new SpecException("--parent-pid", "must be a process id, got " + parentPid);
        }
        if (maxFrame < 1024 || maxFrame > (256 << 20)) {
            throw new SpecException("--max-frame", "must be between 1024 and 268435456, got " + maxFrame);
        }
        if (faultTargets != null && !faultTargets.isEmpty() && r != Role.PROBE) {
            throw new SpecException(io.msgscope.core.fault.FaultTargets.OPTION, "only the probe role applies faults");
        }
        Drivers drivers = Drivers.load();
        Supplier<AgentRole> factory = switch (r) {
            case SENDER -> () -> new SenderRole(drivers);
            case RECEIVER -> () -> new ReceiverRole(drivers);
            case PROBE -> {
                io.msgscope.core.fault.FaultTargets ft = io.msgscope.core.fault.FaultTargets.parse(faultTargets);
                yield () -> new SidecarRole(ft);
            }
            case FLOW -> () -> new FlowRole(drivers);
            case PUBLISHERS -> () -> new PublishersRole(drivers);
            case SUBSCRIBERS -> () -> new SubscribersRole(drivers);
            default -> RelayRole::new;
        };
        AgentServer server = AgentServer.start(host, port, new AgentServer.Config(r, factory).once(once)
                .maxFrame(maxFrame).credentials(io.msgscope.control.ControlCredentials.of(secret, tls))
                .firstSessionDeadlineMs(once ? connectDeadlineS * 1000L : 0));
        if (parentPid != null) {
            server.stopWhenProcessExits(parentPid);
            // Ctrl-C reaches the whole foreground process group: the coordinator that started this agent handles it
            // (stops the run, keeps what was measured, issue 29); this agent stops when told, or when it is gone
            sun.misc.Signal.handle(new sun.misc.Signal("INT"), sun.misc.SignalHandler.SIG_IGN);
        }
        String security = tls != null && secret != null ? " (mutual TLS and shared secret required)"
                : tls != null ? " (mutual TLS required)" : secret != null ? " (shared secret required)" : "";
        commandSpec.commandLine().getOut().println("msgscope agent " + role.toLowerCase(Locale.ROOT)
                + " listening on " + host + ":" + server.port() + security);
        commandSpec.commandLine().getOut().flush();
        server.awaitTermination();
        if (server.exitReason() != null) {
            commandSpec.commandLine().getErr().println("msgscope agent " + role.toLowerCase(Locale.ROOT)
                    + ": exiting: " + server.exitReason()
                    + (server.exitReason().startsWith("no coordinator") ? " (--connect-deadline)" : ""));
            commandSpec.commandLine().getErr().flush();
            return ExitCodes.FAILED;
        }
        return ExitCodes.OK;
    }

    private static Role parseRole(String role) {
        return switch (role.toLowerCase(Locale.ROOT)) {
            case "sender" -> Role.SENDER;
            case "receiver" -> Role.RECEIVER;
            case "relay" -> Role.RELAY;
            case "probe" -> Role.PROBE;
            case "flow" -> Role.FLOW;
            case "publishers" -> Role.PUBLISHERS;
            case "subscribers" -> Role.SUBSCRIBERS;
            default -> throw new SpecException("--role", "must be sender, receiver, relay, probe, flow, publishers or subscribers, got '" + role + "'");
        };
    }

    private static boolean isLoopback(String host) {
        try {
            return InetAddress.getByName(host).isLoopbackAddress();
        } catch (UnknownHostException e) {
            throw new SpecException("--listen", "unknown host '" + host + "'");
        }
    }
}
