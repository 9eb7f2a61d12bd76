package io.msgscope.coordinator.agents;

import io.msgscope.core.SpecException;
import io.msgscope.proto.Role;
import picocli.CommandLine.Option;

import io.msgscope.control.ControlCredentials;
import io.msgscope.control.Frames;

import java.io.IOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;

/**
 * Agents on other hosts (issue 6, D7): {@code --agent ROLE=HOST:PORT} for each role that runs as a
 * daemon elsewhere ({@code msgscope agent --role ROLE --listen HOST:PORT --tls-dir DIR}); roles
 * not given are started on this box. The control channel to them is secured with mutual TLS
 * ({@code --tls-dir}, issue 14) and/or the shared secret ({@code --secret-file}). The sender and the receiver must share a box (M1): the
 * coordinator refuses the run when their boot ids differ.
 */
public final class RemoteAgents {
    @Option(names = "--agent", paramLabel = "ROLE=HOST:PORT",
            description = "An agent daemon to use instead of a local one, repeatable: sender, receiver, relay, "
                    + "probe (run); flow, relay (throughput); publishers, subscribers, relay (scenario; relay for "
                    + "zmq). Scenarios take several publishers and subscribers agents, and a HOST that resolves to "
                    + "several addresses (a headless Service) is one agent per address (default: none; all agents "
                    + "start on this box).")
    List<String> agents;

    @Option(names = "--secret-file", paramLabel = "FILE",
            description = "The shared secret the agents require (>= 16 bytes, chmod 600); also from the environment "
                    + "variable MSGSCOPE_SECRET. Every agent given with --agent must then prove it (default: none).")
    Path secretFile;

    @Option(names = "--tls-dir", paramLabel = "DIR",
            description = "Mutual TLS with the agents given with --agent: this host's certificate and key and the "
                    + "test network's CA (ca.pem, cert.pem, key.pem, made by 'msgscope certs'); each agent's "
                    + "certificate must name the host given in --agent (default: none).")
    Path tlsDir;

    /** The names that resolved to several agents' addresses: each address's certificate must name the name. */
    private final Map<String, String> resolvedFrom = new java.util.HashMap<>();

    /** {@code --agent} as parsed the first time it was asked for: every later question is answered from it. */
    private Map<Role, List<AgentEndpoint>> parsed;

    /** Whether {@code --agent} names an agent of {@code role}: the run does not start one on this box then. */
    public boolean given(Role role) {
        return parseMany().containsKey(role);
    }

    /**
     * The run's agents: the daemons given with {@code --agent} for their roles, JVMs started on this box (their logs
     * in {@code outDir}, with {@code jvmArgs}) for the rest; reached with {@link #credentials()}, read now.
     */
    public AgentPlan plan(Path outDir, List<String> jvmArgs) {
        return plan(outDir, jvmArgs, List.of());
    }

    /** As {@link #plan(Path, List)}, a probe agent started here given {@code faultTargets} (issue 32). */
    public AgentPlan plan(Path outDir, List<String> jvmArgs, List<String> faultTargets) {
        return mixed(parseMany(), credentials(), new LocalAgents(outDir, jvmArgs).faultTargets(faultTargets));
    }

    /** The agents given in {@code remote} for their roles, {@code local}'s for every other role. */
    static AgentPlan mixed(Map<Role, List<AgentEndpoint>> remote, ControlCredentials credentials, AgentPlan local) {
        return new AgentPlan() {
            @Override
            public List<AgentEndpoint> agents(Role role) throws IOException {
                List<AgentEndpoint> given = remote.get(role);
                return given != null ? given : local.agents(role);
            }

            @Override
            public void prepare(List<Role> roles) throws IOException {
                local.prepare(roles.stream().filter(r -> !remote.containsKey(r)).toList());
            }

            @Override
            public ControlCredentials credentials() {
                return credentials;
            }

            @Override
            public void close() {
                local.close();
            }
        };
    }

    /**
     * What the coordinator proves to the agents given with --agent, and checks of them: usage errors
     * (unreadable, group-readable, expired, mismatched files) name the option. Agents started on this box
     * need none of it (each gets a one-time secret, see LocalAgents).
     */
    public io.msgscope.control.ControlCredentials credentials() {
        io.msgscope.control.ControlTls tls = tlsDir == null ? null : io.msgscope.control.ControlTls.load(tlsDir);
        io.msgscope.control.ControlCredentials c = io.msgscope.control.ControlCredentials.of(
                io.msgscope.control.SharedSecret.load(secretFile), tls);
        for (Map.Entry<String, String> e : resolvedFrom.entrySet()) {
            c = c.withTlsName(e.getKey(), e.getValue());
        }
        return c;
    }

    /** Whether the agents given with --agent are reached with credentials (a CA folder or a shared secret). */
    private boolean credentialsGiven() {
        String env = System.getenv(io.msgscope.control.SharedSecret.ENV);
        return tlsDir != null || secretFile != null || env != null && !env.isBlank();
    }

    /** One agent per role (run, throughput): a role given twice, or a name resolving to several agents, is refused. */
    public Map<Role, AgentEndpoint> parse() {
        Map<Role, AgentEndpoint> m = new EnumMap<>(Role.class);
        for (Map.Entry<Role, List<AgentEndpoint>> e : parseMany().entrySet()) {
            if (e.getValue().size() > 1) {
                throw new SpecException("--agent", Frames.name(e.getKey()) + " is given " + e.getValue().size()
                        + " times (or resolves to several addresses); only scenarios take several agents of a role");
            }
            m.put(e.getKey(), e.getValue().get(0));
        }
        return m;
    }

    /**
     * Every agent by role, in the order given (issue 13): {@code --agent publishers=H1:P --agent
     * publishers=H2:P}; a host name of a publishers or subscribers agent that resolves to several addresses
     * (a Kubernetes headless Service) gives one agent per address, in the resolver's order.
     */
    public Map<Role, List<AgentEndpoint>> parseMany() {
        if (parsed == null) {
            parsed = parseAll();
        }
        return parsed;
    }

    private Map<Role, List<AgentEndpoint>> parseAll() {
        Map<Role, List<AgentEndpoint>> m = new EnumMap<>(Role.class);
        if (agents == null) {
            return m;
        }
        for (String spec : agents) {
            int eq = spec.indexOf('=');
            if (eq <= 0) {
                throw new SpecException("--agent", "must be ROLE=HOST:PORT, got '" + spec + "'");
            }
            Map.Entry<String, String> e = Map.entry(spec.substring(0, eq), spec.substring(eq + 1));
            Role role = switch (e.getKey().toLowerCase(Locale.ROOT)) {
                case "sender" -> Role.SENDER;
                case "receiver" -> Role.RECEIVER;
                case "relay" -> Role.RELAY;
                case "probe" -> Role.PROBE;
                case "flow" -> Role.FLOW;
                case "publishers" -> Role.PUBLISHERS;
                case "subscribers" -> Role.SUBSCRIBERS;
                default -> throw new SpecException("--agent", "role must be sender, receiver, relay, probe, flow, "
                        + "publishers or subscribers, got '" + e.getKey() + "'");
            };
            String addr = e.getValue();
            int colon = addr.lastIndexOf(':');
            if (colon <= 0) {
                throw new SpecException("--agent", e.getKey() + " must be HOST:PORT, got '" + addr + "'");
            }
            int port;
            try {
                port = Integer.parseInt(addr.substring(colon + 1));
            } catch (NumberFormatException ex) {
                throw new SpecException("--agent", e.getKey() + ": port must be 1-65535, got '"
                        + addr.substring(colon + 1) + "'");
            }
            if (port < 1 || port > 65_535) {
                throw new SpecException("--agent", e.getKey() + ": port must be 1-65535, got " + port);
            }
            String host = addr.substring(0, colon);
            if (host.startsWith("[") && host.endsWith("]")) {
                host = host.substring(1, host.length() - 1);
            }
            if (!credentialsGiven() && io.msgscope.control.ControlCredentials.loopbackAddresses(host) == null) {
                throw new SpecException("--agent", e.getKey() + " at "
                        + io.msgscope.control.ControlCredentials.offLoopbackRefusal(host));
            }
            List<AgentEndpoint> list = m.computeIfAbsent(role, r -> new ArrayList<>());
            for (String h : resolve(role, host)) {
                list.add(AgentEndpoint.remote(h, port));
                if (!h.equals(host)) {
                    resolvedFrom.put(h, host); // TLS: the certificate names the Service, not each pod's address
                }
            }
        }
        return m;
    }

    /** A scenario role's host name as every address it resolves to; other roles (and literals) as given. */
    private static List<String> resolve(Role role, String host) {
        if (role != Role.PUBLISHERS && role != Role.SUBSCRIBERS || host.matches("[0-9.]+") || host.contains(":")) {
            return List.of(host);
        }
        try {
            List<String> out = new ArrayList<>();
            for (InetAddress a : InetAddress.getAllByName(host)) {
                if (!out.contains(a.getHostAddress())) {
                    out.add(a.getHostAddress());
                }
            }
            return out.size() > 1 ? out : List.of(host);
        } catch (UnknownHostException ex) {
            throw new SpecException("--agent", "cannot resolve the host '" + host + "'");
        }
    }
}
