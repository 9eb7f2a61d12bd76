package io.msgscope.coordinator.history;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Properties;

/**
 * Connections to an embedded SQLite store, made without paying sqlite-jdbc's start-up on every run (issue 34: recording
 * a run adds under 100 ms). By default sqlite-jdbc copies its native library (1.1 MB) out of the jar into the temporary
 * folder under a new name at each JVM start and loads that copy: 100-500 ms of a run's check on this box, most of
 * what the store cost. Here the library is copied once per sqlite-jdbc version into
 * {@code ~/.msgscope/native/sqlite-jdbc-VERSION/OS/ARCH/} (written to a temporary name, then moved into place, so two
 * runs starting together never load half a file) and sqlite-jdbc is pointed at that copy ({@code org.sqlite.lib.path},
 * {@code org.sqlite.lib.name}). A user who set those properties keeps them; when the copy cannot be made (a read-only
 * home, a platform the jar has no library for) nothing is set and sqlite-jdbc extracts as it always does. Connections
 * come from the driver itself rather than through {@link java.sql.DriverManager}, whose first use loads every JDBC
 * driver in the jar.
 */
final class SqliteLibrary {
    private static final String PATH = "org.sqlite.lib.path";
    private static final String NAME = "org.sqlite.lib.name";
    private static boolean prepared;

    private SqliteLibrary() {
    }

    /** A connection to {@code jdbcUrl} ({@code jdbc:sqlite:FILE}). */
    static Connection connect(String jdbcUrl, Properties properties) throws SQLException {
        prepare(Path.of(System.getProperty("user.home"), ".msgscope", "native"));
        return org.sqlite.JDBC.createConnection(jdbcUrl, properties);
    }

    /**
     * Points sqlite-jdbc at its library's copy under {@code cache}, making the copy when absent; once per JVM, and
     * before sqlite-jdbc loads its library (the first connection).
     */
    static synchronized void prepare(Path cache) {
        if (prepared || System.getProperty(PATH) != null || System.getProperty(NAME) != null) {
            prepared = true;
            return;
        }
        prepared = true;
        try {
            Path copy = cachedCopy(cache);
            if (copy != null) {
                System.setProperty(PATH, copy.getParent().toString());
                System.setProperty(NAME, copy.getFileName().toString());
            }
        } catch (IOException | RuntimeException e) {
            // sqlite-jdbc's own extraction still works: only the time is lost
        }
    }

    /**
     * The library's copy under {@code cache} for this sqlite-jdbc version and platform, made now when absent; null
     * when the jar has no library for this platform or no version is known.
     */
    static Path cachedCopy(Path cache) throws IOException {
        String version = version();
        String folder = org.sqlite.util.OSInfo.getNativeLibFolderPathForCurrentOS();
        String name = System.mapLibraryName("sqlitejdbc");
        String resource = "/org/sqlite/native/" + folder + "/" + name;
        if (version == null || SqliteLibrary.class.getResource(resource) == null) {
            return null;
        }
        Path target = cache.resolve("sqlite-jdbc-" + version).resolve(folder).resolve(name);
        if (Files.isRegularFile(target)) {
            return target;
        }
        Files.createDirectories(target.getParent());
        Path part = Files.createTempFile(target.getParent(), name, ".part");
        try (InputStream in = SqliteLibrary.class.getResourceAsStream(resource)) {
            Files.copy(in, part, StandardCopyOption.REPLACE_EXISTING);
            Files.move(part, target, StandardCopyOption.ATOMIC_MOVE);
        } finally {
            Files.deleteIfExists(part);
        }
        return target;
    }

    /** sqlite-jdbc's version, from the properties file its jar carries; null when absent. */
    private static String version() throws IOException {
        try (InputStream in = SqliteLibrary.class.getResourceAsStream("/sqlite-jdbc.properties")) {
            if (in == null) {
                return null;
            }
            Properties p = new Properties();
            p.load(in);
            String v = p.getProperty("version");
            return v == null || !v.matches("[0-9A-Za-z.\\-]+") ? null : v;
        }
    }
}
