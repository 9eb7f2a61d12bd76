package io.msgscope.core;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;

/**
 * Writes files without following a symbolic link planted where the file goes (issue 28: a link at
 * {@code out/summary.json} made a run overwrite its target), with their mode set explicitly whatever the umask.
 */
public final class SafeFiles {
    /** rw-r--r--: certificates and results anyone may read. */
    public static final Set<PosixFilePermission> PUBLIC = PosixFilePermissions.fromString("rw-r--r--");
    /** rw-------: private keys. */
    public static final Set<PosixFilePermission> PRIVATE = PosixFilePermissions.fromString("rw-------");

    private SafeFiles() {
    }

    /**
     * Opens {@code file} for writing from its start: a symbolic link there is removed first (never followed), and the
     * open itself refuses to follow one planted in between.
     */
    public static OutputStream create(Path file) throws IOException {
        if (Files.isSymbolicLink(file)) {
            Files.delete(file); // the link itself, not what it names
        }
        return Files.newOutputStream(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING, LinkOption.NOFOLLOW_LINKS);
    }

    /** Writes {@code bytes} to {@code file} as {@link #create} opens it. */
    public static void write(Path file, byte[] bytes) throws IOException {
        try (OutputStream out = create(file)) {
            out.write(bytes);
        }
    }

    /**
     * Writes {@code bytes} as a new {@code file} with the mode {@code mode} from its creation on (a key is never
     * readable by others, not even for a moment): whatever was there (a file, a link) is removed first, and the file
     * is created exclusively, so a link planted in between makes it fail rather than be followed.
     */
    public static void write(Path file, byte[] bytes, Set<PosixFilePermission> mode) throws IOException {
        Files.deleteIfExists(file); // a link itself, not what it names
        Set<StandardOpenOption> options = Set.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
        java.nio.channels.SeekableByteChannel ch;
        try {
            ch = Files.newByteChannel(file, options, PosixFilePermissions.asFileAttribute(mode));
        } catch (UnsupportedOperationException e) {
            ch = Files.newByteChannel(file, options); // not a POSIX file system
        }
        try (OutputStream out = java.nio.channels.Channels.newOutputStream(ch)) {
            out.write(bytes);
        }
        setMode(file, mode); // the umask may have taken bits away
    }

    /** Sets the mode of {@code path} (not of what a link names); nothing on a file system without POSIX modes. */
    public static void setMode(Path path, Set<PosixFilePermission> mode) throws IOException {
        try {
            Files.setPosixFilePermissions(path, mode);
        } catch (UnsupportedOperationException e) {
            // not a POSIX file system: nothing to set
        }
    }
}
