package io.msgscope.core;

import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Masks secrets before anything is written or printed: the password in a URI's user info and the
 * values of options that hold credentials (password, token, secrets, keys). Every results file goes
 * through here (issue 5: "passwords/secrets masked in every written file").
 */
public final class Secrets {
    public static final String MASK = "****";
    private static final Set<String> SECRET_WORDS = Set.of("password", "passwd", "pass", "token", "secret", "key",
            "credentials", "nkey", "jwt");

    private Secrets() {
    }

    /**
     * {@code amqp://user:pw@host} becomes {@code amqp://user:****@host}; a URI without a password is
     * unchanged. The password runs from the first ':' of the user info to the authority's last '@', so a
     * raw '@' or ':' in it is masked too (issue 14: nothing of it shows).
     */
    public static String uri(String uri) {
        if (uri == null) {
            return null;
        }
        int sep = uri.indexOf("://");
        if (sep < 0) {
            return uri;
        }
        int end = uri.length();
        for (char c : new char[] {'/', '?', '#'}) {
            int i = uri.indexOf(c, sep + 3);
            if (i >= 0) {
                end = Math.min(end, i);
            }
        }
        int at = uri.lastIndexOf('@', end - 1);
        if (at <= sep) {
            return uri;
        }
        int colon = uri.indexOf(':', sep + 3);
        if (colon < 0 || colon > at) {
            return uri;
        }
        return uri.substring(0, colon + 1) + MASK + uri.substring(at);
    }

    /** True for option keys that hold a credential, e.g. password, token, tls_key_password. */
    public static boolean isSecret(String key) {
        String k = key.toLowerCase(Locale.ROOT);
        for (String part : k.split("[^a-z0-9]+")) {
            if (SECRET_WORDS.contains(part)) {
                return true;
            }
        }
        return false;
    }

    /** A sorted copy of {@code options} with every secret value replaced by {@link #MASK}. */
    public static Map<String, String> options(Map<String, String> options) {
        Map<String, String> m = new TreeMap<>();
        for (Map.Entry<String, String> e : options.entrySet()) {
            m.put(e.getKey(), isSecret(e.getKey()) ? MASK : e.getValue());
        }
        return m;
    }
}
