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
