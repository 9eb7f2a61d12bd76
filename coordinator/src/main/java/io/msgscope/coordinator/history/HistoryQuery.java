package io.msgscope.coordinator.history;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Which stored runs {@code msgscope history} shows (issue 34 item 2), and reading them: every filter given must hold
 * (a label filter each of its labels), the runs come in the order they started, and {@code last} keeps the newest N
 * of those. With a {@code figure} only runs that have it are shown, with its value (null: unknown).
 *
 * @param driver     the driver's name, or null for any
 * @param mode       trace, throughput, scenario or capacity, or null
 * @param status     ok, failed or interrupted, or null
 * @param specHash   the spec hash or its first characters, or null
 * @param labels     labels every run must carry, name → value
 * @param sinceMs    the earliest start, ms since the epoch, or null
 * @param untilMs    the start before which a run must have started, or null
 * @param last       keep only the newest N, or 0 for all
 * @param figure     the one figure to read, or null
 */
public record HistoryQuery(String driver, String mode, String status, String specHash, Map<String, String> labels,
                           Long sinceMs, Long untilMs, int last, String figure) {
    /** The columns of {@code runs} a listing reads. */
    private static final String COLUMNS = "r.run_key, r.started_at, r.started_ms, r.mode, r.run_id, r.driver, r.status, "
            + "r.spec_hash, r.tool_version, r.host, r.folder";

    /** The most keys one IN list names. */
    private static final int CHUNK = 500;

    public HistoryQuery {
        labels = Collections.unmodifiableMap(new TreeMap<>(labels));
    }

    /** One stored run as history lists it; {@code figure} is the asked figure's value (null: unknown or none asked). */
    public record Row(String key, String startedAt, long startedMs, String mode, String runId, String driver,
                      String status, String specHash, String toolVersion, String host, String folder,
                      Map<String, String> labels, Double figure) {
    }

    /** The WHERE clause (from {@code runs r}) and its parameters, in order. */
    private String where(List<Object> params) {
        StringBuilder w = new StringBuilder(" WHERE 1 = 1");
        if (driver != null) {
            w.append(" AND r.driver = ?");
            params.add(driver);
        }
        if (mode != null) {
            w.append(" AND r.mode = ?");
            params.add(mode);
        }
        if (status != null) {
            w.append(" AND r.status = ?");
            params.add(status);
        }
        if (specHash != null) {
            w.append(" AND r.spec_hash LIKE ?");
            params.add(specHash.replace("%", "").replace("_", "") + "%");
        }
        for (Map.Entry<String, String> l : labels.entrySet()) {
            w.append(" AND EXISTS (SELECT 1 FROM labels l WHERE l.run_key = r.run_key AND l.name = ? AND l.value = ?)");
            params.add(l.getKey());
            params.add(l.getValue());
        }
        if (sinceMs != null) {
            w.append(" AND r.started_ms >= ?");
            params.add(sinceMs);
        }
        if (untilMs != null) {
            w.append(" AND r.started_ms < ?");
            params.add(untilMs);
        }
        if (figure != null) {
            w.append(" AND f.name = ?");
            params.add(figure);
        }
        return w.toString();
    }

    private String from() {
        return " FROM runs r" + (figure != null ? " JOIN figures f ON f.run_key = r.run_key" : "");
    }

    /** The runs that match, oldest first. */
    public List<Row> rows(RunStore store) throws SQLException {
        Connection c = store.connection();
        List<Object> params = new ArrayList<>();
        String sql = "SELECT " + COLUMNS + (figure != null ? ", f.value" : "") + from() + where(params)
                + " ORDER BY r.started_ms DESC, r.recorded_at DESC, r.run_key DESC" + (last > 0 ? " LIMIT " + last : "");
        List<Object[]> raw = new ArrayList<>();
        try (PreparedStatement p = prepare(c, sql, params); ResultSet rs = p.executeQuery()) {
            while (rs.next()) {
                Object[] r = new Object[12];
                for (int i = 0; i < 11; i++) {
                    r[i] = rs.getObject(i + 1);
                }
                if (figure != null) {
                    double v = rs.getDouble(12);
                    r[11] = rs.wasNull() ? null : v;
                }
                raw.add(r);
            }
        }
        Collections.reverse(raw);
        Map<String, Map<String, String>> labelsByRun = labelsOf(c, raw.stream().map(r -> (String) r[0]).toList());
        List<Row> rows = new ArrayList<>(raw.size());
        for (Object[] r : raw) {
            String key = (String) r[0];
            rows.add(new Row(key, (String) r[1], ((Number) r[2]).longValue(), (String) r[3], (String) r[4],
                    (String) r[5], (String) r[6], (String) r[7], (String) r[8], (String) r[9], (String) r[10],
                    labelsByRun.getOrDefault(key, Map.of()), (Double) r[11]));
        }
        return rows;
    }

    /**
     * Every label of the runs {@code keys}, run key → name → value (names sorted): by key in chunks for a few runs,
     * else one scan of the labels table (cheaper than asking 10,000 keys, and than running the filter again).
     */
    private static Map<String, Map<String, String>> labelsOf(Connection c, List<String> keys) throws SQLException {
        Map<String, Map<String, String>> out = new HashMap<>();
        if (keys.size() > CHUNK) {
            java.util.Set<String> wanted = new java.util.HashSet<>(keys);
            try (PreparedStatement p = c.prepareStatement("SELECT run_key, name, value FROM labels");
                 ResultSet rs = p.executeQuery()) {
                while (rs.next()) {
                    if (wanted.contains(rs.getString(1))) {
                        out.computeIfAbsent(rs.getString(1), k -> new TreeMap<>()).put(rs.getString(2), rs.getString(3));
                    }
                }
            }
            return out;
        }
        if (keys.isEmpty()) {
            return out;
        }
        String sql = "SELECT run_key, name, value FROM labels WHERE run_key IN ("
                + String.join(", ", Collections.nCopies(keys.size(), "?")) + ")";
        try (PreparedStatement p = prepare(c, sql, new ArrayList<>(keys)); ResultSet rs = p.executeQuery()) {
            while (rs.next()) {
                out.computeIfAbsent(rs.getString(1), k -> new TreeMap<>()).put(rs.getString(2), rs.getString(3));
            }
        }
        return out;
    }

    /** Every figure of the given runs, run key → figure name → value (null: unknown), for the CSV export. */
    public static Map<String, Map<String, Double>> figures(RunStore store, List<Row> rows) throws SQLException {
        Map<String, Map<String, Double>> out = new HashMap<>();
        List<String> keys = rows.stream().map(Row::key).toList();
        for (int from = 0; from < keys.size(); from += CHUNK) { // bounded IN lists
            List<String> chunk = keys.subList(from, Math.min(keys.size(), from + CHUNK));
            String sql = "SELECT run_key, name, value FROM figures WHERE run_key IN ("
                    + String.join(", ", Collections.nCopies(chunk.size(), "?")) + ")";
            try (PreparedStatement p = prepare(store.connection(), sql, new ArrayList<>(chunk));
                 ResultSet rs = p.executeQuery()) {
                while (rs.next()) {
                    double v = rs.getDouble(3);
                    Double value = rs.wasNull() ? null : v; // before another column resets wasNull
                    out.computeIfAbsent(rs.getString(1), k -> new LinkedHashMap<>()).put(rs.getString(2), value);
                }
            }
        }
        return out;
    }

    /** The hlog kept for a run, or null. */
    public static String hlog(RunStore store, String key) throws SQLException {
        try (PreparedStatement p = prepare(store.connection(), "SELECT hlog FROM runs WHERE run_key = ?",
                new ArrayList<>(List.of(key))); ResultSet rs = p.executeQuery()) {
            return rs.next() ? rs.getString(1) : null;
        }
    }

    private static PreparedStatement prepare(Connection c, String sql, List<Object> params) throws SQLException {
        PreparedStatement p = c.prepareStatement(sql);
        try {
            for (int i = 0; i < params.size(); i++) {
                p.setObject(i + 1, params.get(i));
            }
            return p;
        } catch (SQLException e) {
            p.close();
            throw e;
        }
    }
}
