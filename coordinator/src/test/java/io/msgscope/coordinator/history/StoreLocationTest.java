package io.msgscope.coordinator.history;

import io.msgscope.core.SpecException;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code --store}'s values, the default, and {@code --label}'s (issue 34). */
class StoreLocationTest {
    @Test
    void postgresUrlGivesUserPasswordAndSchemaAndMasksThePassword() {
        StoreLocation s = StoreLocation.parse("postgresql://bench:s3cret@db.example:5433/runs?currentSchema=team");
        assertEquals("jdbc:postgresql://db.example:5433/runs?currentSchema=team", s.jdbcUrl());
        assertEquals("bench", s.user());
        assertEquals("s3cret", s.password());
        assertEquals("team", s.schema());
        assertEquals("postgresql://bench:****@db.example:5433/runs?currentSchema=team", s.toString());
        assertFalse(s.embedded());
    }

    @Test
    void aPathIsAnEmbeddedSqliteFileAndNoneTurnsRecordingOff() {
        StoreLocation s = StoreLocation.parse("results/history.db");
        assertEquals("jdbc:sqlite:" + Path.of("results/history.db").toAbsolutePath().normalize(), s.jdbcUrl());
        assertTrue(s.embedded());
        assertFalse(StoreLocation.parse("none").enabled());
    }

    @Test
    void theEnvironmentThenTheHomeFolderWhenNoOptionIsGiven() {
        assertEquals("jdbc:sqlite:" + Path.of("/tmp/x.db"), StoreLocation.resolve(null, Map.of("MSGSCOPE_STORE", "/tmp/x.db"))
                .jdbcUrl());
        assertEquals("jdbc:sqlite:" + Path.of(System.getProperty("user.home"), ".msgscope", "history.db"),
                StoreLocation.resolve(null, Map.of()).jdbcUrl());
        assertFalse(StoreLocation.resolve("none", Map.of("MSGSCOPE_STORE", "/tmp/x.db")).enabled(), "the option wins");
    }

    @Test
    void badValuesNameTheOption() {
        assertEquals("--store", assertThrows(SpecException.class, () -> StoreLocation.parse("postgresql://hostonly"))
                .option());
        assertEquals("--store", assertThrows(SpecException.class, () -> StoreLocation.parse("jdbc:mysql://x/y")).option());
        assertEquals("--store", assertThrows(SpecException.class, () -> StoreLocation.parse(" ")).option());
    }

    @Test
    void labelsFromTheEnvironmentThenTheOptions() {
        assertEquals(Map.of("a", "1", "b", "x=y", "c", ""), Recording.labels(List.of("b=x=y", "c="),
                Map.of(Recording.LABELS_ENV, "a=1\nb=2\n")));
        SpecException e = assertThrows(SpecException.class, () -> Recording.labels(List.of("k v=1"), Map.of()));
        assertEquals("--label", e.option());
        assertTrue(e.getMessage().contains("'k v=1'"), e.getMessage());
        assertNull(Recording.labels(List.of(), Map.of()).get("a"));
    }
}
