package io.msgscope.core;

import java.io.ByteArrayOutputStream;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * A broker's {@code --uri}, parsed strictly (issue 14): a scheme the driver knows, a host, a port in
 * range, and user info whose reserved characters are percent-encoded. A URI that a client library would
 * read differently — a raw {@code @} or {@code :} in the password (amqp-client then falls back to
 * localhost as guest), an authority that is not {@code host:port}, a malformed percent escape — is bad
 * usage naming {@code --uri}, with a hint to percent-encode, and never shows the password: every message
 * carries the URI {@link #masked}.
 *
 * @param user     decoded user name, null when none
 * @param password decoded password, null when none
 * @param path     the raw path after the authority ("" when none), e.g. AMQP's {@code /%2f} virtual host
 */
public record BrokerUri(String scheme, String host, int port, String user, String password, String path) {

    /**
     * Parses {@code raw} for a driver whose schemes map to their default ports.
     *
     * @param defaults scheme (lower case) → default port
     */
    public static BrokerUri parse(String raw, Map<String, Integer> defaults) {
        String shown = Secrets.uri(raw);
        int sep = raw.indexOf("://");
        if (sep <= 0) {
            throw bad("must be SCHEME://HOST[:PORT] with a scheme of " + String.join(", ", new TreeMap<>(defaults).keySet())
                    + ", got a value without '://'"); // not echoed: it may hold a password in a form nothing masks
        }
        String scheme = raw.substring(0, sep).toLowerCase(Locale.ROOT);
        if (!defaults.containsKey(scheme)) {
            throw bad("must start with " + String.join("://, ", new TreeMap<>(defaults).keySet()) + "://, got '" + shown + "'");
        }
        int end = raw.length();
        for (char c : new char[] {'/', '?', '#'}) {
            int i = raw.indexOf(c, sep + 3);
            if (i >= 0) {
                end = Math.min(end, i);
            }
        }
        String authority = raw.substring(sep + 3, end);
        String userInfo = null;
        int at = authority.lastIndexOf('@');
        if (at >= 0) {
            userInfo = authority.substring(0, at);
            if (userInfo.indexOf('@') >= 0) {
                throw bad("has a raw '@' in its user info ('" + shown + "'): percent-encode it as %40 (a client would "
                        + "otherwise take part of the password for the host)");
            }
            if (userInfo.indexOf(':') != userInfo.lastIndexOf(':')) {
                throw bad("has a raw ':' in its password ('" + shown + "'): percent-encode it as %3A");
            }
        }
        URI u;
        try {
            u = new URI(raw);
        } catch (URISyntaxException e) {
            throw bad("is not a valid URI ('" + shown + "'): " + e.getReason()
                    + "; percent-encode reserved characters in the user name and password");
        }
        if (u.getHost() == null) {
            throw bad("names no host a client can connect to ('" + shown + "'): it must be SCHEME://[USER[:PASSWORD]@]HOST[:PORT]");
        }
        int port = u.getPort() < 0 ? defaults.get(scheme) : u.getPort();
        if (port < 1 || port > 65_535) {
            throw bad("port must be 1-65535, got " + port + " in '" + shown + "'");
        }
        String user = null;
        String password = null;
        if (userInfo != null) {
            int colon = userInfo.indexOf(':');
            user = decode(colon < 0 ? userInfo : userInfo.substring(0, colon), shown);
            password = colon < 0 ? null : decode(userInfo.substring(colon + 1), shown);
        }
        String host = u.getHost().startsWith("[") ? u.getHost().substring(1, u.getHost().length() - 1) : u.getHost();
        return new BrokerUri(scheme, host, port, user, password, u.getRawPath() == null ? "" : u.getRawPath());
    }

    /** host:port, for messages and results (IPv6 hosts bracketed). */
    public String address() {
        return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + port;
    }

    /** Percent-decoding as RFC 3986 defines it ('+' stays '+', unlike form decoding). */
    static String decode(String s, String shown) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '%') {
                if (i + 2 >= s.length() || Character.digit(s.charAt(i + 1), 16) < 0 || Character.digit(s.charAt(i + 2), 16) < 0) {
                    throw bad("has a malformed percent escape in its user info ('" + shown + "')");
                }
                out.write(Character.digit(s.charAt(i + 1), 16) * 16 + Character.digit(s.charAt(i + 2), 16));
                i += 2;
            } else {
                byte[] b = String.valueOf(c).getBytes(StandardCharsets.UTF_8);
                out.write(b, 0, b.length);
            }
        }
        return out.toString(StandardCharsets.UTF_8);
    }

    private static SpecException bad(String why) {
        return new SpecException("--uri", why);
    }
}
