package io.msgscope.coordinator.cli;

import io.msgscope.coordinator.AgentEndpoint;
import io.msgscope.core.SpecException;
import io.msgscope.proto.Role;
import picocli.CommandLine.Option;

import java.nio.file.Path;
import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;

/**
 * Agents on other hosts (issue 6, D7): {@code --agent ROLE=HOST:PORT} for each role that runs as a
 * daemon elsewhere ({@code msgscope agent --role ROLE --listen HOST:PORT --secret-file FILE}); roles
 * not given are started on this box. The sender and the receiver must share a box (M1): the
 * coordinator refuses the run when their boot ids differ.
 */
public final class RemoteAgents {
    @Option(names = "--agent", paramLabel = "ROLE=HOST:PORT",
            description = "An agent daemon to use instead of a local one, repeatable: sender, receiver, relay, "
                    + "probe (run); flow, relay (throughput); publishers, subscribers, relay (scenario; relay for "
                    + "zmq) (default: none; all agents start on this box).")
    Map<String, String> agents;

    @Option(names = "--secret-file", paramLabel = "FILE",
            description = "The shared secret the agents require (>= 16 bytes, chmod 600); also from the environment "
                    + "variable MSGSCOPE_SECRET (default: none).")
    Path secretFile;

    Map<Role, AgentEndpoint> parse() {
        Map<Role, AgentEndpoint> m = new EnumMap<>(Role.class);
        if (agents == null) {
            return m;
        }
        for (Map.Entry<String, String> e : agents.entrySet()) {
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
            m.put(role, AgentEndpoint.remote(addr.substring(0, colon), port));
        }
        return m;
    }
}
