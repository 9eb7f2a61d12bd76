package io.msgscope.coordinator.history;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** sqlite-jdbc's native library copied once per version, whole, and reused (issue 34's recording cost). */
class SqliteLibraryTest {
    @TempDir
    Path cache;

    @Test
    void theLibraryIsCopiedWholeOnceAndTheCopyIsReused() throws Exception {
        Path copy = SqliteLibrary.cachedCopy(cache);
        assertNotNull(copy, "this platform's library is in sqlite-jdbc's jar");
        assertTrue(copy.startsWith(cache.resolve("sqlite-jdbc-" + org.sqlite.SQLiteJDBCLoader.getVersion())), copy.toString());
        String resource = "/org/sqlite/native/" + org.sqlite.util.OSInfo.getNativeLibFolderPathForCurrentOS() + "/"
                + System.mapLibraryName("sqlitejdbc");
        try (InputStream in = SqliteLibrary.class.getResourceAsStream(resource)) {
            assertArrayEquals(in.readAllBytes(), Files.readAllBytes(copy), "the copy is the jar's library, byte for byte");
        }
        long written = Files.getLastModifiedTime(copy).toMillis();
        Files.setLastModifiedTime(copy, java.nio.file.attribute.FileTime.fromMillis(written - 60_000));
        assertEquals(copy, SqliteLibrary.cachedCopy(cache));
        assertEquals(written - 60_000, Files.getLastModifiedTime(copy).toMillis(), "an existing copy is not written again");
        try (var files = Files.list(copy.getParent())) {
            assertEquals(1, files.count(), "no temporary part is left beside it");
        }
    }
}
