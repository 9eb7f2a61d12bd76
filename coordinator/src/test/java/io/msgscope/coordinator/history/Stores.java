package io.msgscope.coordinator.history;

import io.msgscope.core.test.Ci;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Locale;
import java.util.UUID;

/**
 * The stores the history tests run against (issue 34): a fresh embedded SQLite file, and the machine's PostgreSQL
 * (127.0.0.1:5432, trust auth, database {@code test}) in a fresh schema per test, dropped afterwards. Without
 * PostgreSQL its tests are skipped; under CI=true they fail ({@link Ci}).
 */
final class Stores {
    static final String PG_HOST = "127.0.0.1";
    static final int PG_PORT = 5432;
    static final String PG_ADMIN = "jdbc:postgresql://" + PG_HOST + ":" + PG_PORT + "/test";

    private Stores() {
    }

    /** A store that {@link #close} drops: {@code kind} sqlite (under {@code tmp}) or postgresql. */
    static Fresh fresh(String kind, Path tmp) {
        if (kind.equals("sqlite")) {
            return new Fresh(StoreLocation.parse(tmp.resolve("history-" + UUID.randomUUID() + ".db").toString()), null);
        }
        requirePostgres();
        String schema = "msgscope_hist_" + UUID.randomUUID().toString().replace("-", "").substring(0, 16)
                .toLowerCase(Locale.ROOT);
        return new Fresh(StoreLocation.parse("postgresql://postgres@" + PG_HOST + ":" + PG_PORT + "/test?currentSchema="
                + schema), schema);
    }

    /** PostgreSQL listens, or the test is skipped (failed under CI). */
    static void requirePostgres() {
        boolean up;
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(PG_HOST, PG_PORT), 1000);
            up = true;
        } catch (IOException e) {
            up = false;
        }
        Ci.require(up, "PostgreSQL must listen on " + PG_HOST + ":" + PG_PORT + " (trust auth, database test)",
                "PostgreSQL store tests skipped");
    }

    /** A fresh store; closing it drops the PostgreSQL schema (the SQLite file goes with the temporary folder). */
    record Fresh(StoreLocation location, String schema) implements AutoCloseable {
        @Override
        public void close() throws SQLException {
            if (schema != null) {
                try (Connection c = DriverManager.getConnection(PG_ADMIN, "postgres", null);
                     Statement s = c.createStatement()) {
                    s.execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
                }
            }
        }
    }
}
