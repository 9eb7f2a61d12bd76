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
     * unchanged. Everything from the user's ':' to the last '@' is masked, so a password with a raw
     * {@code @}, {@code :} or {@code /} shows nothing either (issue 14: the part after the first '@'
     * showed); a URI whose path holds an '@' is over-masked, which is safe.
     */
    public static String uri(String uri) {
        return uri == null ? null : maskToLastAt(uri);
    }

    static String maskToLastAt(String uri) {
        int scheme = uri.indexOf("://");
        int at = uri.lastIndexOf('@');
        // without "://" (amqp:guest:pw@h, amqp:/guest:pw@h, u:pw@h: issue 28) the scheme cannot be told from a user
        // name, so everything from the first ':' to the last '@' is masked
        int colon = uri.indexOf(':', scheme < 0 ? 0 : scheme + 3);
        if (colon >= 0 && colon < at) {
            return uri.substring(0, colon + 1) + MASK + uri.substring(at);
        }
        return uri;
    }

    /**
     * Refuses a URI a client library would read otherwise than written (issue 14: {@code
     * amqp://guest:p@ss@127.0.0.1:5673/%2f} made the AMQP client fall back to localhost:5672 as
     * guest): one whose host cannot be read, typically a user name or password with a raw {@code @},
     * {@code /} or {@code :}. The message masks the password and says how to percent-encode.
     *
     * @param option the option the URI came from, for the {@link SpecException}
     */
    public static void requireStrictUri(String option, String uri) {
        if (uri == null) {
            return;
        }
        String shown = maskToLastAt(uri);
        java.net.URI u;
        try {
            u = new java.net.URI(uri);
        } catch (java.net.URISyntaxException e) {
            throw new SpecException(option, "not a valid URI: " + shown + " (" + e.getReason()
                    + "); percent-encode special characters in the user name and password (@ as %40, : as %3A, / as %2F)");
        }
        if (u.getRawAuthority() == null) {
            // amqp:///%2f, amqp:guest:pw@h, amqp:/guest:pw@h: the AMQP client reads them as localhost and guest/guest
            throw new SpecException(option, "names no host: " + shown + " (write SCHEME://[USER:PASSWORD@]HOST[:PORT]..."
                    + ", e.g. amqp://guest:guest@127.0.0.1:5672/%2f)");
        }
        if (u.getHost() == null) {
            throw new SpecException(option, "cannot read the host of " + shown + ": a user name or password with "
                    + "'@', ':' or '/' must be percent-encoded (@ as %40, : as %3A, / as %2F)");
        }
        String info = u.getRawUserInfo();
        if (info != null && info.indexOf('@') >= 0) {
            throw new SpecException(option, "the user info of " + shown + " holds a raw '@': percent-encode it as %40");
        }
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
