package io.msgscope.coordinator.history;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The run store against embedded SQLite and the machine's PostgreSQL (issue 34): migrated from empty, and every
 * stored field of the golden results folders read back equal to their summary.json.
 */
class RunStoreTest {
    static final ObjectMapper JSON = new ObjectMapper();
    static final List<String> GOLDEN = List.of("trace-folder", "trace-folder-sidecar", "throughput-folder",
            "scenario-folder");

    @TempDir
    Path tmp;

    static Path golden(String name) {
        try {
            return Path.of(RunStoreTest.class.getResource("/io/msgscope/coordinator/golden/" + name).toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    static Connection connect(StoreLocation where) throws SQLException {
        return DriverManager.getConnection(where.jdbcUrl(), where.properties());
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"sqlite", "postgresql"})
    void migratesFromEmptyAndAgainWithoutChange(String kind) throws Exception {
        try (Stores.Fresh fresh = Stores.fresh(kind, tmp)) {
            RunStore.open(fresh.location()).close();
            RunStore.open(fresh.location()).close(); // the second open finds the schema current
            try (Connection c = connect(fresh.location());
                 ResultSet rs = c.createStatement().executeQuery(
                         "SELECT version, success FROM flyway_schema_history WHERE version IS NOT NULL ORDER BY installed_rank")) {
                assertTrue(rs.next());
                assertEquals("1", rs.getString(1));
                assertTrue(rs.getBoolean(2));
                assertTrue(!rs.next(), "one migration applied, once");
            }
            try (Connection c = connect(fresh.location())) {
                for (String table : List.of("runs", "figures", "labels")) {
                    try (ResultSet rs = c.createStatement().executeQuery("SELECT COUNT(*) FROM " + table)) {
                        rs.next();
                        assertEquals(0, rs.getInt(1), table + " is empty");
                    }
                }
            }
        }
    }

    /** Flyway starts only when the store's history is not at the newest migration (a new store, an older one). */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"sqlite", "postgresql"})
    void flywayIsSkippedOnlyWhenTheSchemaIsCurrent(String kind) throws Exception {
        try (Stores.Fresh fresh = Stores.fresh(kind, tmp)) {
            assertTrue(!RunStore.current(fresh.location()), "a new store has no history: Flyway's to make");
            RunStore.open(fresh.location()).close();
            assertTrue(RunStore.current(fresh.location()), "migrated: current");
            try (Connection c = connect(fresh.location())) {
                c.createStatement().executeUpdate("UPDATE flyway_schema_history SET version = '0' WHERE version = '1'");
            }
            assertTrue(!RunStore.current(fresh.location()), "an older schema is Flyway's to migrate");
        }
    }

    @org.junit.jupiter.api.Test
    void theNewestMigrationConstantNamesTheNewestFile() throws Exception {
        int newest;
        try (java.util.stream.Stream<Path> files = java.nio.file.Files.list(
                Path.of("src/main/resources/io/msgscope/coordinator/history/migration"))) {
            newest = files.map(f -> f.getFileName().toString()).filter(n -> n.matches("V\\d+__.*\\.sql"))
                    .mapToInt(n -> Integer.parseInt(n.substring(1, n.indexOf("__")))).max().orElseThrow();
        }
        assertEquals(String.valueOf(newest), RunStore.NEWEST_MIGRATION);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"sqlite", "postgresql"})
    void everyStoredFieldEqualsTheSummary(String kind) throws Exception {
        try (Stores.Fresh fresh = Stores.fresh(kind, tmp); RunStore store = RunStore.open(fresh.location())) {
            for (String name : GOLDEN) {
                Path dir = golden(name);
                String key = store.record(RunRecord.read(dir, Map.of("broker", "3.13", "tls", "on")));
                checkStored(fresh.location(), key, dir);
            }
        }
    }

    /** The row, figures, labels and hlog of {@code key} against {@code dir}'s summary.json, field by field. */
    static void checkStored(StoreLocation where, String key, Path dir) throws Exception {
        JsonNode s = JSON.readTree(dir.resolve("summary.json").toFile());
        JsonNode env = s.path("environment").has("coordinator") ? s.at("/environment/coordinator") : s.path("environment");
        try (Connection c = connect(where);
             PreparedStatement p = c.prepareStatement("SELECT * FROM runs WHERE run_key = ?")) {
            p.setString(1, key);
            try (ResultSet r = p.executeQuery()) {
                assertTrue(r.next(), "run stored");
                String what = dir.getFileName() + ": ";
                assertEquals(s.path("mode").asText(), r.getString("mode"), what + "mode");
                assertEquals(s.path("run_id").asText(), r.getString("run_id"), what + "run_id");
                assertEquals(s.path("driver").asText(), r.getString("driver"), what + "driver");
                assertEquals(s.path("started_at").asText(), r.getString("started_at"), what + "started_at");
                assertEquals(java.time.Instant.parse(s.path("started_at").asText()).toEpochMilli(), r.getLong("started_ms"));
                assertEquals(s.path("status").asText(), r.getString("status"), what + "status");
                assertEquals(text(s.path("failure_reason")), r.getString("failure_reason"), what + "failure_reason");
                assertEquals(text(s.path("failed_during")), r.getString("failed_during"), what + "failed_during");
                assertEquals(s.at("/tool/version").asText(), r.getString("tool_version"), what + "tool version");
                assertEquals(s.path("spec_hash").asText(), r.getString("spec_hash"), what + "spec_hash");
                assertEquals(s.path("spec"), JSON.readTree(r.getString("spec_json")), what + "spec");
                assertEquals(s.path("environment"), JSON.readTree(r.getString("environment_json")), what + "environment");
                assertEquals(text(env.path("host")), r.getString("host"), what + "host");
                assertEquals(text(env.path("os")), r.getString("os"), what + "os");
                assertEquals(text(env.path("jvm")), r.getString("jvm"), what + "jvm");
                assertEquals(text(env.path("cpu_model")), r.getString("cpu_model"), what + "cpu_model");
                assertEquals(env.path("logical_cores").isInt() ? env.path("logical_cores").asInt() : null,
                        (Integer) (r.getObject("logical_cores") == null ? null : r.getInt("logical_cores")), what + "cores");
                assertEquals(dir.toAbsolutePath().normalize().toString(), r.getString("folder"), what + "folder");
                Path hlog = dir.resolve("latency.hlog");
                assertEquals(Files.isRegularFile(hlog) ? Files.readString(hlog, StandardCharsets.UTF_8) : null,
                        r.getString("hlog"), what + "hlog kept as written");
            }
            assertEquals(FigureCatalog.of(s), figures(c, key), dir.getFileName() + ": figures");
            Map<String, String> labels = new HashMap<>();
            try (PreparedStatement l = c.prepareStatement("SELECT name, value FROM labels WHERE run_key = ?")) {
                l.setString(1, key);
                try (ResultSet rs = l.executeQuery()) {
                    while (rs.next()) {
                        labels.put(rs.getString(1), rs.getString(2));
                    }
                }
            }
            assertEquals(Map.of("broker", "3.13", "tls", "on"), labels);
        }
    }

    static Map<String, Double> figures(Connection c, String key) throws SQLException {
        Map<String, Double> out = new HashMap<>();
        try (PreparedStatement p = c.prepareStatement("SELECT name, value FROM figures WHERE run_key = ?")) {
            p.setString(1, key);
            try (ResultSet rs = p.executeQuery()) {
                while (rs.next()) {
                    double v = rs.getDouble(2);
                    Double value = rs.wasNull() ? null : v; // before another column resets wasNull
                    out.put(rs.getString(1), value);
                }
            }
        }
        return out;
    }

    private static String text(JsonNode n) {
        return n.isNull() || n.isMissingNode() ? null : n.asText();
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"sqlite", "postgresql"})
    void aFailedRunIsRecordedMarkedAndTheHlogReadsBack(String kind) throws Exception {
        try (Stores.Fresh fresh = Stores.fresh(kind, tmp)) {
            Recording rec = Recording.check(fresh.location(), Map.of("attempt", "1"));
            String key = rec.record(golden("trace-folder"), w -> {
                throw new AssertionError(w);
            });
            assertNotNull(key);
            try (RunStore store = RunStore.open(fresh.location())) {
                HistoryQuery q = new HistoryQuery(null, null, "failed", null, Map.of(), null, null, 0, null);
                List<HistoryQuery.Row> rows = q.rows(store);
                assertEquals(1, rows.size());
                assertEquals("1 of 2000 messages lost", failureReason(fresh.location(), key));
                assertEquals(Files.readString(golden("trace-folder").resolve("latency.hlog")), HistoryQuery.hlog(store, key));
            }
            assertNull(rec.record(tmp, w -> {
            }), "a folder without summary.json records nothing");
        }
    }

    @org.junit.jupiter.api.Test
    void aStoreThatFailsAfterTheRunOnlyWarnsAndTheFolderStaysIntact() throws Exception {
        Path db = tmp.resolve("gone/history.db");
        Recording rec = Recording.check(StoreLocation.parse(db.toString()), Map.of());
        Files.delete(db);
        Files.createDirectories(db); // the store's file is now a folder: no database answers there
        Path dir = tmp.resolve("run");
        Files.createDirectories(dir);
        Path summary = Files.copy(golden("throughput-folder").resolve("summary.json"), dir.resolve("summary.json"));
        byte[] before = Files.readAllBytes(summary);
        List<String> warnings = new java.util.ArrayList<>();
        assertNull(rec.record(dir, warnings::add));
        assertEquals(1, warnings.size(), warnings.toString());
        assertTrue(warnings.get(0).startsWith("warning: --store " + db + ": the run was not recorded ("), warnings.get(0));
        assertTrue(warnings.get(0).endsWith("its results folder " + dir + " is intact"), warnings.get(0));
        assertTrue(java.util.Arrays.equals(before, Files.readAllBytes(summary)), "summary.json untouched");
    }

    private static String failureReason(StoreLocation where, String key) throws SQLException {
        try (Connection c = connect(where);
             PreparedStatement p = c.prepareStatement("SELECT failure_reason FROM runs WHERE run_key = ?")) {
            p.setString(1, key);
            try (ResultSet rs = p.executeQuery()) {
                rs.next();
                return rs.getString(1);
            }
        }
    }
}
