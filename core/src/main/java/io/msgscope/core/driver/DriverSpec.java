package io.msgscope.core.driver;

import io.msgscope.core.SpecException;

import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * How a driver connects and behaves: the broker's address (host and port, or a URI such as
 * {@code amqp://user:pass@host:5672/vhost}), the message size, socket tuning, and the
 * driver-specific options given on the command line as {@code --opt key=value} (documented by
 * each driver). Option readers name the offending option in their errors.
 *
 * @param destination where messages go: empty on the receiver side (the subscriber may create it,
 *                    e.g. AMQP's server-named queue), the subscriber's {@link Subscriber#destination()}
 *                    on the sender side
 */
public record DriverSpec(String host, int port, String uri, int messageSize, int socketBuffer,
                         Map<String, String> options, String destination) {

    public DriverSpec {
        options = Map.copyOf(new TreeMap<>(options));
        uri = uri == null ? "" : uri;
        destination = destination == null ? "" : destination;
    }

    public DriverSpec withDestination(String d) {
        return new DriverSpec(host, port, uri, messageSize, socketBuffer, options, d);
    }

    public String option(String key, String dflt) {
        return options.getOrDefault(key, dflt);
    }

    public boolean boolOption(String key, boolean dflt) {
        String v = options.get(key);
        if (v == null) {
            return dflt;
        }
        return switch (v.toLowerCase(Locale.ROOT)) {
            case "true", "yes", "on", "1" -> true;
            case "false", "no", "off", "0" -> false;
            default -> throw new SpecException("--opt " + key, "must be true or false, got '" + v + "'");
        };
    }

    public long longOption(String key, long dflt, long min, long max) {
        String v = options.get(key);
        if (v == null) {
            return dflt;
        }
        long n;
        try {
            n = Long.parseLong(v.trim());
        } catch (NumberFormatException e) {
            throw new SpecException("--opt " + key, "must be a whole number between " + min + " and " + max
                    + ", got '" + v + "'");
        }
        if (n < min || n > max) {
            throw new SpecException("--opt " + key, "must be between " + min + " and " + max + ", got " + n);
        }
        return n;
    }

    /** Rejects options the driver does not know, naming them and the ones it does. */
    public void requireKnownOptions(String driver, java.util.Set<String> known) {
        for (String k : options.keySet()) {
            if (!known.contains(k)) {
                throw new SpecException("--opt " + k, "is not an option of the " + driver + " driver; it knows "
                        + (known.isEmpty() ? "none" : String.join(", ", new java.util.TreeSet<>(known))));
            }
        }
    }
}
