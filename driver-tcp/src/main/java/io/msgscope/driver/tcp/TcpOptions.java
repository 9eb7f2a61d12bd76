package io.msgscope.driver.tcp;

import io.msgscope.core.SpecException;
import io.msgscope.core.driver.DriverSpec;

import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The tcp driver's {@code --opt} options, read and checked once (M10); every refusal names the option
 * and what it allows.
 *
 * @param direct    {@code via=direct}: the receiver listens and the sender connects straight to it (one
 *                  hop); else {@code via=relay} (the default), both connect to the broker-probe agent's relay
 * @param bind      direct: the address the receiver listens on
 * @param port      direct: the port it listens on, 0 = any free port
 * @param advertise direct: the host the receiver puts into its destination, null = the bind address
 *                  (127.0.0.1 when that is the wildcard: sender and receiver share a box, M1)
 * @param noDelay   TCP_NODELAY on the sockets that send messages (the sender's, the relay's towards the
 *                  receiver); true by default, false lets Nagle's algorithm coalesce small writes as
 *                  sockperf's throughput test does
 */
record TcpOptions(boolean direct, String bind, int port, String advertise, boolean noDelay) {
    static final Set<String> KEYS = Set.of("via", "bind", "port", "advertise", "nodelay");
    static final Set<String> DIRECT_ONLY = Set.of("bind", "port", "advertise");
    static final String DEFAULT_BIND = "127.0.0.1";

    static TcpOptions of(DriverSpec spec) {
        return of(spec.options());
    }

    static TcpOptions of(Map<String, String> options) {
        DriverSpec spec = new DriverSpec("", 0, "", 0, 0, options, "");
        spec.requireKnownOptions("tcp", KEYS);
        String via = spec.option("via", "relay");
        boolean direct = switch (via.trim().toLowerCase(Locale.ROOT)) {
            case "relay" -> false;
            case "direct" -> true;
            default -> throw new SpecException("--opt via", "must be relay (through the broker-probe agent's relay, "
                    + "the default) or direct (the sender connects straight to the receiver), got '" + via + "'");
        };
        if (!direct) {
            for (String k : new java.util.TreeSet<>(DIRECT_ONLY)) {
                if (options.containsKey(k)) {
                    throw new SpecException("--opt " + k, "applies to via=direct only; through the relay the "
                            + "broker-probe agent listens (--relay-ingress-port, --relay-egress-port)");
                }
            }
        }
        String bind = spec.option("bind", DEFAULT_BIND).trim();
        if (bind.isEmpty()) {
            throw new SpecException("--opt bind", "must be an address of this machine to listen on, e.g. "
                    + DEFAULT_BIND + " or 0.0.0.0, got ''");
        }
        int port = (int) spec.longOption("port", 0, 0, 65_535);
        String advertise = spec.option("advertise", null);
        if (advertise != null) {
            advertise = advertise.trim();
            if (advertise.isEmpty() || advertise.indexOf(':') >= 0 && !advertise.startsWith("[")
                    && advertise.chars().filter(c -> c == ':').count() < 2) {
                throw new SpecException("--opt advertise", "must be a host name or address without a port, got '"
                        + spec.option("advertise", "") + "'");
            }
        }
        return new TcpOptions(direct, bind, port, advertise, spec.boolOption("nodelay", true));
    }

    /** True when {@code host} is the wildcard address (listen on every interface). */
    static boolean wildcard(String host) {
        return host.equals("0.0.0.0") || host.equals("::") || host.equals("*") || host.equals("[::]");
    }

    /** The host the sender connects to: {@code advertise}, else the bind address, 127.0.0.1 for the wildcard. */
    String connectHost() {
        if (advertise != null) {
            return advertise;
        }
        return wildcard(bind) ? "127.0.0.1" : bind;
    }

    /** Where {@code bind} is listened on: {@code *} means the IPv4 wildcard; brackets dropped. */
    String bindHost() {
        if (bind.equals("*")) {
            return "0.0.0.0";
        }
        return unbracket(bind);
    }

    static String unbracket(String host) {
        return host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1) : host;
    }
}
