package io.msgscope.core;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

/** Issue 28: a link planted where a file goes is replaced, never followed; modes are set, not left to the umask. */
class SafeFilesTest {
    @TempDir
    Path dir;

    private Path victim() throws Exception {
        return Files.writeString(dir.resolve("victim"), "precious\n");
    }

    @Test
    void aLinkWhereAStreamGoesIsReplacedAndItsTargetLeftAlone() throws Exception {
        Path victim = victim();
        Path log = Files.createSymbolicLink(dir.resolve("agent-relay.log"), victim);
        try (OutputStream out = SafeFiles.create(log)) {
            out.write("agent output\n".getBytes(StandardCharsets.UTF_8));
        }
        assertFalse(Files.isSymbolicLink(log));
        assertEquals("agent output\n", Files.readString(log));
        assertEquals("precious\n", Files.readString(victim));
    }

    @Test
    void aFileWrittenWithAModeHasThatModeAndNeverFollowsALink() throws Exception {
        Path victim = victim();
        Path cert = Files.createSymbolicLink(dir.resolve("cert.pem"), victim);
        SafeFiles.write(cert, "CERT\n".getBytes(StandardCharsets.US_ASCII), SafeFiles.PUBLIC);
        assertEquals("precious\n", Files.readString(victim));
        assertEquals("CERT\n", Files.readString(cert));
        assertEquals("rw-r--r--", PosixFilePermissions.toString(Files.getPosixFilePermissions(cert)));
        Path key = Files.writeString(dir.resolve("key.pem"), "old\n"); // a lax file there before: 0666
        Files.setPosixFilePermissions(key, PosixFilePermissions.fromString("rw-rw-rw-"));
        SafeFiles.write(key, "KEY\n".getBytes(StandardCharsets.US_ASCII), SafeFiles.PRIVATE);
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(key)));
        assertEquals("KEY\n", Files.readString(key));
    }
}
