package io.msgscope.coordinator.history;

import io.msgscope.core.SpecException;

import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;

/**
 * Where runs are stored (issue 34 item 1), from {@code --store}: {@code none} (nothing is recorded), a PostgreSQL URL
 * ({@code postgresql://[USER[:PASSWORD]@]HOST[:PORT]/DATABASE[?currentSchema=S]}, a team's shared store), a JDBC URL
 * ({@code jdbc:postgresql:…}, {@code jdbc:sqlite:…}), or else a file path: an embedded SQLite database, made on first
 * use with its folder. Without {@code --store} the environment variable {@code MSGSCOPE_STORE} decides, and without it
 * {@code ~/.msgscope/history.db}.
 *
 * @param jdbcUrl  the JDBC URL without user and password; null for {@code none}
 * @param user     the user, or null
 * @param password the password, or null
 * @param schema   PostgreSQL's {@code currentSchema}, made by the migration when absent; else null
 * @param given    what was given, the password masked: what messages name
 */
public record StoreLocation(String jdbcUrl, String user, String password, String schema, String given) {
    /** The environment variable that sets the store when {@code --store} is not given. */
    public static final String ENV = "MSGSCOPE_STORE";
    /** The value that turns recording off. */
    public static final String NONE = "none";

    /** Whether runs are recorded. */
    public boolean enabled() {
        return jdbcUrl != null;
    }

    /** Whether this is the embedded SQLite store. */
    public boolean embedded() {
        return jdbcUrl != null && jdbcUrl.startsWith("jdbc:sqlite:");
    }

    /** The connection properties: user, password, and for PostgreSQL a 5 s connect and login timeout. */
    Properties properties() {
        Properties p = new Properties();
        if (user != null) {
            p.setProperty("user", user);
        }
        if (password != null) {
            p.setProperty("password", password);
        }
        if (!embedded()) {
            p.setProperty("connectTimeout", "5");
            p.setProperty("loginTimeout", "5");
        }
        return p;
    }

    /** {@code --store}'s value, or (null) the environment's, or the default in the user's home. */
    public static StoreLocation resolve(String option, Map<String, String> env) {
        if (option != null) {
            return parse(option);
        }
        String fromEnv = env.get(ENV);
        if (fromEnv != null && !fromEnv.isBlank()) {
            return parse(fromEnv.trim());
        }
        return parse(Path.of(System.getProperty("user.home"), ".msgscope", "history.db").toString());
    }

    /** Parses one {@code --store} value; bad ones are a {@link SpecException} naming {@code --store}. */
    public static StoreLocation parse(String value) {
        if (value.isBlank()) {
            throw new SpecException("--store", "give a file, a postgresql:// URL or none");
        }
        if (value.equals(NONE)) {
            return new StoreLocation(null, null, null, null, NONE);
        }
        if (value.startsWith("postgresql://") || value.startsWith("postgres://")) {
            return postgres(value);
        }
        if (value.startsWith("jdbc:")) {
            if (!value.startsWith("jdbc:postgresql:") && !value.startsWith("jdbc:sqlite:")) {
                throw new SpecException("--store", "only jdbc:postgresql: and jdbc:sqlite: URLs are supported, got " + value);
            }
            return new StoreLocation(value, null, null, null, value);
        }
        Path file = Path.of(value.startsWith("sqlite:") ? value.substring("sqlite:".length()) : value)
                .toAbsolutePath().normalize();
        return new StoreLocation("jdbc:sqlite:" + file, null, null, null, value);
    }

    private static StoreLocation postgres(String value) {
        URI uri;
        try {
            uri = new URI(value);
        } catch (URISyntaxException e) {
            throw new SpecException("--store", "not a URL: " + e.getMessage());
        }
        if (uri.getHost() == null || uri.getPath() == null || uri.getPath().length() < 2) {
            throw new SpecException("--store", "expected postgresql://[USER[:PASSWORD]@]HOST[:PORT]/DATABASE, got "
                    + mask(value, uri));
        }
        String user = null;
        String password = null;
        if (uri.getUserInfo() != null) {
            int colon = uri.getUserInfo().indexOf(':');
            user = colon < 0 ? uri.getUserInfo() : uri.getUserInfo().substring(0, colon);
            password = colon < 0 ? null : uri.getUserInfo().substring(colon + 1);
        }
        String schema = null;
        if (uri.getQuery() != null) {
            for (String kv : uri.getQuery().split("&")) {
                if (kv.startsWith("currentSchema=")) {
                    schema = kv.substring("currentSchema=".length());
                }
            }
        }
        String url = "jdbc:postgresql://" + uri.getHost() + (uri.getPort() < 0 ? "" : ":" + uri.getPort()) + uri.getPath()
                + (uri.getRawQuery() == null ? "" : "?" + uri.getRawQuery());
        return new StoreLocation(url, user, password, schema, mask(value, uri));
    }

    private static String mask(String value, URI uri) {
        String info = uri.getRawUserInfo();
        int colon = info == null ? -1 : info.indexOf(':');
        return colon < 0 ? value : value.replace(info, info.substring(0, colon) + ":****");
    }

    @Override
    public String toString() {
        return given;
    }
}
