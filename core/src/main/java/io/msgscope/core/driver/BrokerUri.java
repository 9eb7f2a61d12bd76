package io.msgscope.core.driver;

import io.msgscope.core.Secrets;
import io.msgscope.core.SpecException;

import java.net.URI;
import java.net.URISyntaxException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.List;

/**
 * A broker's {@code --uri} as the MQTT and NATS drivers read it (one reading, issue 15): strict (a raw {@code @},
 * {@code :} or {@code /} in the password is refused, issue 14), one of the driver's schemes, a host, the port or
 * the scheme's default, and the credentials, where {@code --opt username} and {@code --opt password} win over the
 * URI's percent-decoded user info. Every error names {@code --uri} and shows the URI with its password masked.
 *
 * @param scheme the scheme, lower case
 * @param tls    whether the scheme means TLS
 */
public record BrokerUri(String scheme, boolean tls, String host, int port, String user, String password) {
    /** How a driver reads its schemes: which ones mean TLS, and the default port with and without. */
    public record Schemes(List<String> plain, List<String> tls, int plainPort, int tlsPort) {
        /** "tcp://, mqtt://, ssl:// or mqtts://": the plain schemes, then the TLS ones. */
        String list() {
            List<String> all = new java.util.ArrayList<>(plain);
            all.addAll(tls);
            all.replaceAll(s -> s + "://");
            return all.size() == 1 ? all.get(0)
                    : String.join(", ", all.subList(0, all.size() - 1)) + " or " + all.get(all.size() - 1);
        }
    }

    /** Reads {@code raw} with the spec's {@code username} and {@code password} options. */
    public static BrokerUri parse(String raw, Schemes schemes, DriverSpec spec) {
        Secrets.requireStrictUri("--uri", raw);
        URI uri;
        try {
            uri = new URI(raw);
        } catch (URISyntaxException e) {
            throw new SpecException("--uri", "is not a URI: " + e.getReason() + " in " + Secrets.uri(raw));
        }
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
        boolean tls = schemes.tls().contains(scheme);
        if (!tls && !schemes.plain().contains(scheme)) {
            throw new SpecException("--uri", "must start with " + schemes.list() + ", got '" + Secrets.uri(raw) + "'");
        }
        if (uri.getHost() == null) {
            throw new SpecException("--uri", "names no host: '" + Secrets.uri(raw) + "'");
        }
        int port = uri.getPort() < 0 ? (tls ? schemes.tlsPort() : schemes.plainPort()) : uri.getPort();
        String user = spec.option("username", null);
        String pass = spec.option("password", null);
        if (uri.getRawUserInfo() != null) {
            String[] up = uri.getRawUserInfo().split(":", 2);
            if (user == null) {
                user = URLDecoder.decode(up[0], StandardCharsets.UTF_8);
            }
            if (pass == null && up.length > 1) {
                pass = URLDecoder.decode(up[1], StandardCharsets.UTF_8);
            }
        }
        return new BrokerUri(scheme, tls, uri.getHost(), port, user, pass);
    }

    /** {@code host:port}. */
    public String address() {
        return host + ":" + port;
    }
}
