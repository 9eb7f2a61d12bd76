package io.msgscope.core.proc;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/** Copies the fixture files under src/test/resources/proc/ into a temporary root and rewrites them in place. */
final class Fixtures {
    private Fixtures() {
    }

    static Path copy(String resource, Path target) {
        try (InputStream in = Fixtures.class.getResourceAsStream("/proc/" + resource)) {
            if (in == null) {
                throw new IllegalStateException("missing test resource /proc/" + resource);
            }
            Files.createDirectories(target.getParent());
            Files.write(target, in.readAllBytes());
            return target;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Truncates and rewrites the same file (same inode), as the kernel's files keep theirs. */
    static void rewrite(Path file, String contents) throws IOException {
        Files.writeString(file, contents, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING);
    }

    static String read(String resource) {
        try (InputStream in = Fixtures.class.getResourceAsStream("/proc/" + resource)) {
            return new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
