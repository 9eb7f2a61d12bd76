package io.msgscope.core.scenario;

import io.msgscope.core.SpecException;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * What this box allows a scenario's connections (issue 13, "Bad input"): file descriptors (one per
 * connection, with a margin for the JVM and the control channel) and local ports (a socket to one
 * broker address takes one port of {@code net.ipv4.ip_local_port_range} per source address). Asked
 * for more, the run is refused before any connection is made, naming the limit and how to raise it.
 */
public final class ConnectionLimits {
    /** File descriptors kept for the JVM, the control channel, logs and the drivers' own selectors. */
    static final int FD_MARGIN = 256;

    private ConnectionLimits() {
    }

    /** The soft limit on open files of this process ({@code Max open files} in /proc/self/limits); -1 when unknown. */
    public static long openFilesLimit() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/limits"))) {
                if (line.startsWith("Max open files")) {
                    String soft = line.substring("Max open files".length()).trim().split("\\s+")[0];
                    return soft.equals("unlimited") ? Long.MAX_VALUE : Long.parseLong(soft);
                }
            }
        } catch (IOException | RuntimeException e) {
            // not Linux, or unreadable: nothing to check against
        }
        return -1;
    }

    /** The ephemeral port range {@code [low, high]}, or {32768, 60999} (Linux's default) when unreadable. */
    public static int[] localPortRange() {
        try {
            String[] p = Files.readString(Path.of("/proc/sys/net/ipv4/ip_local_port_range")).trim().split("\\s+");
            return new int[] {Integer.parseInt(p[0]), Integer.parseInt(p[1])};
        } catch (IOException | RuntimeException e) {
            return new int[] {32_768, 60_999};
        }
    }

    /**
     * Refuses {@code connections} that this process could not open: more than its file-descriptor
     * limit allows, or more than the ports of {@code sources} (1 when empty: the OS's choice) allow.
     *
     * @param option the option that asked for them, e.g. {@code --publishers}
     */
    public static void check(int connections, List<InetAddress> sources, String option) {
        checkFiles(connections, openFilesLimit(), option);
        checkPorts(connections, sources.size(), localPortRange(), option);
    }

    /** Refuses {@code connections} to one broker address from this box that its local ports cannot carry. */
    public static void checkPorts(int connections, List<InetAddress> sources, String option) {
        checkPorts(connections, sources.size(), localPortRange(), option);
    }

    static void checkFiles(int connections, long fdLimit, String option) {
        if (fdLimit >= 0 && connections + FD_MARGIN > fdLimit) {
            throw new SpecException(option, connections + " connections need about " + (connections + FD_MARGIN)
                    + " open files, but this agent may open " + fdLimit + " (ulimit -n); raise the limit for the "
                    + "agent (ulimit -n " + Math.max(connections + FD_MARGIN, 2 * connections) + " in its shell, "
                    + "LimitNOFILE= in its systemd unit) or spread the connections over several agents");
        }
    }

    static void checkPorts(int connections, int sources, int[] range, String option) {
        long ports = (long) (range[1] - range[0] + 1) * Math.max(1, sources);
        if (connections > ports) {
            throw new SpecException(option, connections + " connections to one broker address need more local ports "
                    + "than " + Math.max(1, sources) + " source address(es) x " + (range[1] - range[0] + 1)
                    + " ports (net.ipv4.ip_local_port_range " + range[0] + " " + range[1] + ") allow; add "
                    + "--source-addresses (e.g. 127.0.0.2,127.0.0.3 on loopback) or widen the port range");
        }
    }

    /** Refuses a source address this box cannot bind a client socket to. */
    public static void checkBindable(List<InetAddress> sources) {
        for (InetAddress a : sources) {
            try (Socket s = new Socket()) {
                s.bind(new InetSocketAddress(a, 0));
            } catch (IOException e) {
                throw new SpecException("--source-addresses", a.getHostAddress() + " is not an address of this box "
                        + "(cannot bind to it: " + e.getMessage() + ")");
            }
        }
    }
}
