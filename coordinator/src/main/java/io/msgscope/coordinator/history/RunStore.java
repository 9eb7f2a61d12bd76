package io.msgscope.coordinator.history;

import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.configuration.FluentConfiguration;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.time.Instant;
import java.util.Map;
import java.util.UUID;

/**
 * The run store (issue 34 item 1): a JDBC connection to the embedded SQLite file or a PostgreSQL database, its schema
 * brought up to date by Flyway from {@code classpath:io/msgscope/coordinator/history/migration} (never by hand), and
 * the one write, {@link #record}: a run, its figures and its labels in one transaction. Reading is
 * {@link HistoryQuery}'s. One store serves one thread.
 */
public final class RunStore implements AutoCloseable {
    /** Where the migrations live on the class path. */
    static final String MIGRATIONS = "classpath:io/msgscope/coordinator/history/migration";
    /** The newest migration's version (V&lt;this&gt;__*.sql; RunStoreTest checks it against the migrations folder). */
    static final String NEWEST_MIGRATION = "1";
    /** How long a writer waits for another process holding the SQLite file's lock. */
    private static final int SQLITE_BUSY_MS = 10_000;

    private final StoreLocation where;
    private final Connection connection;

    private RunStore(StoreLocation where, Connection connection) {
        this.where = where;
        this.connection = connection;
    }

    /**
     * Connects to {@code where} and migrates its schema to the newest; a store that does not answer (no server, a file
     * that cannot be made, a failed migration) throws, saying why in one line.
     */
    public static RunStore open(StoreLocation where) throws SQLException {
        if (!where.enabled()) {
            throw new IllegalArgumentException("recording is off (--store none)");
        }
        if (where.embedded()) {
            makeFolder(Path.of(where.jdbcUrl().substring("jdbc:sqlite:".length())));
        }
        migrate(where);
        return connect(where);
    }

    /**
     * Connects to a store that {@link #open} migrated before (the recording after a run: Flyway's check is not
     * repeated, issue 34's 100 ms budget); a schema that went missing fails at the first write.
     */
    static RunStore connect(StoreLocation where) throws SQLException {
        Connection c = connection(where);
        try {
            if (where.embedded()) {
                try (Statement s = c.createStatement()) {
                    s.execute("PRAGMA foreign_keys = ON");
                    s.execute("PRAGMA busy_timeout = " + SQLITE_BUSY_MS);
                }
            }
            return new RunStore(where, c);
        } catch (SQLException e) {
            c.close();
            throw e;
        }
    }

    /** A new connection: SQLite's straight from its driver ({@link SqliteLibrary}), PostgreSQL's by URL. */
    private static Connection connection(StoreLocation where) throws SQLException {
        return where.embedded() ? SqliteLibrary.connect(where.jdbcUrl(), where.properties())
                : DriverManager.getConnection(where.jdbcUrl(), where.properties());
    }

    private static void makeFolder(Path file) throws SQLException {
        Path parent = file.toAbsolutePath().getParent();
        try {
            if (parent != null) {
                Files.createDirectories(parent);
            }
        } catch (IOException e) {
            // no cause: its message alone is often just the path
            throw new SQLException("cannot make the folder " + parent + " (" + e.getClass().getSimpleName() + ")");
        }
    }

    private static void migrate(StoreLocation where) throws SQLException {
        if (current(where)) {
            return; // Flyway's start costs seconds on a cold JVM, paid before every run otherwise (issue 34: < 100 ms)
        }
        FluentConfiguration conf = Flyway.configure(RunStore.class.getClassLoader())
                .dataSource(where.jdbcUrl(), where.user(), where.password())
                .locations(MIGRATIONS)
                .loggers("slf4j")
                .connectRetries(0);
        if (where.schema() != null) {
            conf = conf.schemas(where.schema()).createSchemas(true);
        }
        try {
            conf.load().migrate();
        } catch (RuntimeException e) {
            throw new SQLException(rootMessage(e), e);
        }
    }

    /**
     * True when the store's Flyway history says its newest successful migration is {@link #NEWEST_MIGRATION}: the
     * schema is current and Flyway need not start. Anything else — no history table (a new store), an older or a
     * failed migration, a store that does not answer — is Flyway's to handle or to report.
     */
    static boolean current(StoreLocation where) {
        String table = (where.schema() != null ? where.schema() + "." : "") + "flyway_schema_history";
        try (Connection c = connection(where);
             Statement st = c.createStatement();
             java.sql.ResultSet r = st.executeQuery("SELECT version FROM " + table
                     + " WHERE success AND version IS NOT NULL ORDER BY installed_rank DESC")) {
            return r.next() && NEWEST_MIGRATION.equals(r.getString(1));
        } catch (SQLException e) {
            return false;
        }
    }

    /** The innermost message of a chain, the one that says what went wrong (a refused connection, a full disk). */
    static String rootMessage(Throwable e) {
        Throwable t = e;
        while (t.getCause() != null && t.getCause() != t) {
            t = t.getCause();
        }
        String m = t.getMessage() != null ? t.getMessage() : t.getClass().getSimpleName();
        return m.lines().findFirst().orElse(m).trim();
    }

    /** The store's connection, for {@link HistoryQuery}. */
    Connection connection() {
        return connection;
    }

    /** Where this store is. */
    public StoreLocation location() {
        return where;
    }

    /** Records {@code r} with its figures and labels in one transaction; returns the run's key in the store. */
    public String record(RunRecord r) throws SQLException {
        String key = UUID.randomUUID().toString();
        boolean auto = connection.getAutoCommit();
        connection.setAutoCommit(false);
        try {
            insertRun(key, r);
            try (PreparedStatement f = connection.prepareStatement(
                    "INSERT INTO figures (run_key, name, value) VALUES (?, ?, ?)")) {
                for (Map.Entry<String, Double> e : r.figures().entrySet()) {
                    f.setString(1, key);
                    f.setString(2, e.getKey());
                    setDouble(f, 3, e.getValue());
                    f.addBatch();
                }
                f.executeBatch();
            }
            try (PreparedStatement l = connection.prepareStatement(
                    "INSERT INTO labels (run_key, name, value) VALUES (?, ?, ?)")) {
                for (Map.Entry<String, String> e : r.labels().entrySet()) {
                    l.setString(1, key);
                    l.setString(2, e.getKey());
                    l.setString(3, e.getValue());
                    l.addBatch();
                }
                l.executeBatch();
            }
            connection.commit();
            return key;
        } catch (SQLException | RuntimeException e) {
            connection.rollback();
            throw e;
        } finally {
            connection.setAutoCommit(auto);
        }
    }

    private void insertRun(String key, RunRecord r) throws SQLException {
        try (PreparedStatement p = connection.prepareStatement("INSERT INTO runs (run_key, recorded_at, started_at, "
                + "started_ms, mode, run_id, driver, status, failure_reason, failed_during, tool_version, spec_hash, "
                + "spec_json, environment_json, host, os, jvm, cpu_model, logical_cores, broker, folder, hlog) "
                + "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")) {
            Instant now = Instant.now();
            int i = 1;
            p.setString(i++, key);
            p.setString(i++, now.toString());
            p.setString(i++, r.startedAt());
            p.setLong(i++, r.startedMs() != null ? r.startedMs() : now.toEpochMilli()); // ordered by when it ran
            for (String v : new String[] {r.mode(), r.runId(), r.driver(), r.status(), r.failureReason(),
                    r.failedDuring(), r.toolVersion(), r.specHash(), r.specJson(), r.environmentJson(), r.host(), r.os(),
                    r.jvm(), r.cpuModel()}) {
                p.setString(i++, v);
            }
            if (r.logicalCores() == null) {
                p.setNull(i++, Types.INTEGER);
            } else {
                p.setInt(i++, r.logicalCores());
            }
            p.setString(i++, r.broker());
            p.setString(i++, r.folder());
            p.setString(i, r.hlog());
            p.executeUpdate();
        }
    }

    private static void setDouble(PreparedStatement p, int i, Double v) throws SQLException {
        if (v == null || !Double.isFinite(v)) {
            p.setNull(i, Types.DOUBLE);
        } else {
            p.setDouble(i, v);
        }
    }

    @Override
    public void close() throws SQLException {
        connection.close();
    }
}
