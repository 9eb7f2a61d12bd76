package io.msgscope.control;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What a coordinator proves to agents, or an agent requires of coordinators (issue 14): mutual TLS
 * with certificates from a test network's CA ({@code --tls-dir}), a shared secret
 * ({@code --secret-file} or {@code MSGSCOPE_SECRET}), both, or neither (loopback only).
 *
 * <p>Agents the coordinator starts itself on this box get a one-time secret each, passed in their
 * environment ({@link #registerLocal}): another user of the box cannot drive them, and the user
 * configures nothing.
 */
public record ControlCredentials(SharedSecret secret, ControlTls tls, Map<String, String> tlsNames) {
    public static final ControlCredentials NONE = new ControlCredentials(null, null, Map.of());

    /** One-time secrets of the agents this process started on loopback, by control port. */
    private static final Map<Integer, SharedSecret> LOCAL = new ConcurrentHashMap<>();

    public static ControlCredentials of(SharedSecret secret, ControlTls tls) {
        return secret == null && tls == null ? NONE : new ControlCredentials(secret, tls, Map.of());
    }

    /**
     * The name an agent's certificate must have when it is dialled at {@code address}: a host name that
     * resolved to several agents (a Kubernetes headless Service) names them all, not each address.
     */
    public ControlCredentials withTlsName(String address, String name) {
        Map<String, String> m = new java.util.HashMap<>(tlsNames);
        m.put(address, name);
        return new ControlCredentials(secret, tls, Map.copyOf(m));
    }

    /** The name to check an agent's certificate against when it is dialled at {@code host}. */
    String tlsName(String host) {
        return tlsNames.getOrDefault(host, host);
    }

    public boolean none() {
        return secret == null && tls == null;
    }

    /**
     * The addresses {@code host} names when every one of them is loopback, else null (issue 28): without
     * credentials the control channel is plain, and the run spec (the broker's password) may cross only loopback.
     * A name that does not resolve is not loopback.
     */
    public static java.net.InetAddress[] loopbackAddresses(String host) {
        try {
            java.net.InetAddress[] all = java.net.InetAddress.getAllByName(host);
            for (java.net.InetAddress a : all) {
                if (!a.isLoopbackAddress()) {
                    return null;
                }
            }
            return all;
        } catch (java.net.UnknownHostException e) {
            return null;
        }
    }

    /** Why a coordinator without credentials refuses an agent at {@code host}, in one line (issue 28). */
    public static String offLoopbackRefusal(String host) {
        return host + " is not loopback and no credentials are given: the run spec, with the broker's password, "
                + "would cross the network in clear; use --tls-dir or --secret-file (docs/control-plane.md)";
    }

    /** Remembers the one-time secret of a local agent listening on 127.0.0.1:{@code port}. */
    public static void registerLocal(int port, SharedSecret secret) {
        LOCAL.put(port, secret);
    }

    public static void forgetLocal(int port) {
        LOCAL.remove(port);
    }

    /**
     * The one-time secret of a local agent of this process at {@code host:port}, or null. Such an agent
     * is reached on loopback with that secret and without TLS (nobody can sit between two ends of
     * loopback); every other agent with the user's credentials.
     */
    static SharedSecret localSecret(String host, int port) {
        return "127.0.0.1".equals(host) ? LOCAL.get(port) : null;
    }
}
