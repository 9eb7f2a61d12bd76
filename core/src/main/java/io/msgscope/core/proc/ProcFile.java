package io.msgscope.core.proc;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * One small kernel-generated text file, opened once and re-read from offset 0 on every
 * {@link #load()} into a preallocated buffer, with a cursor for parsing its bytes by hand. A
 * {@code /proc} file is regenerated on each read from offset 0; a regular file (a test fixture)
 * shows its new contents as long as it is rewritten in place rather than replaced by a new file.
 *
 * <p>Not thread-safe: each reader owns one and uses it from one thread at a time.
 */
final class ProcFile implements Closeable {
    private final Path path;
    private final FileChannel channel;
    private final boolean whole;
    private ByteBuffer buf;
    /** The bytes read, copied out of {@code buf} in one go: parsing plain array bytes is cheap even interpreted. */
    private byte[] bytes;
    private int limit;
    private int pos;

    /**
     * @param capacity initial buffer size
     * @param whole {@code true} to grow the buffer until the whole file fits (growth allocates, once);
     *              {@code false} to read only the first {@code capacity} bytes
     */
    ProcFile(Path path, int capacity, boolean whole) throws IOException {
        this.path = path;
        this.channel = FileChannel.open(path, StandardOpenOption.READ);
        this.whole = whole;
        this.buf = ByteBuffer.allocateDirect(capacity);
        this.bytes = new byte[capacity];
    }

    Path path() {
        return path;
    }

    /** Reads the file again from offset 0 and puts the cursor at its start; returns the byte count. */
    int load() throws IOException {
        for (;;) {
            ByteBuffer b = buf;
            b.clear();
            long off = 0;
            while (b.hasRemaining()) {
                int n = channel.read(b, off);
                if (n <= 0) {
                    break;
                }
                off += n;
            }
            if (b.hasRemaining() || !whole) {
                limit = b.position();
                b.get(0, bytes, 0, limit);
                pos = 0;
                return limit;
            }
            buf = ByteBuffer.allocateDirect(b.capacity() * 2);
            bytes = new byte[b.capacity() * 2];
        }
    }

    int limit() {
        return limit;
    }

    int pos() {
        return pos;
    }

    void pos(int p) {
        pos = p;
    }

    byte at(int i) {
        return bytes[i];
    }

    int lastIndexOf(byte b) {
        for (int i = limit - 1; i >= 0; i--) {
            if (bytes[i] == b) {
                return i;
            }
        }
        return -1;
    }

    private static boolean blank(byte b) {
        return b == ' ' || b == '\t';
    }

    private void skipBlanks() {
        while (pos < limit && blank(bytes[pos])) {
            pos++;
        }
    }

    /** Skips blanks, then parses an unsigned decimal; -1 when no digit is there (end of line or file). */
    long nextLong() {
        skipBlanks();
        int p = pos;
        long v = 0;
        boolean any = false;
        while (p < limit) {
            int d = bytes[p] - '0';
            if (d < 0 || d > 9) {
                break;
            }
            v = v * 10 + d;
            any = true;
            p++;
        }
        pos = p;
        return any ? v : -1;
    }

    /** Skips {@code n} blank-separated tokens on the current line; false if the line ends first. */
    boolean skipTokens(int n) {
        for (int k = 0; k < n; k++) {
            skipBlanks();
            if (pos >= limit || bytes[pos] == '\n') {
                return false;
            }
            while (pos < limit && !blank(bytes[pos]) && bytes[pos] != '\n') {
                pos++;
            }
        }
        return true;
    }

    /** Moves the cursor past the next newline; false when there is no further line. */
    boolean nextLine() {
        while (pos < limit) {
            if (bytes[pos++] == '\n') {
                return pos < limit;
            }
        }
        return false;
    }

    /** Skips leading blanks of the current line. */
    void skipLeadingBlanks() {
        skipBlanks();
    }

    /** Whether the bytes at the cursor are {@code prefix} (the cursor does not move). */
    boolean startsWith(byte[] prefix) {
        if (limit - pos < prefix.length) {
            return false;
        }
        for (int i = 0; i < prefix.length; i++) {
            if (bytes[pos + i] != prefix[i]) {
                return false;
            }
        }
        return true;
    }

    void skip(int n) {
        pos += n;
    }

    /** The bytes {@code [from, to)} as text: for notes and error messages only (allocates). */
    String text(int from, int to) {
        return new String(bytes, from, Math.max(0, to - from), java.nio.charset.StandardCharsets.UTF_8);
    }

    IOException malformed(String what) {
        return new IOException("unexpected contents in " + path + ": " + what);
    }

    boolean isOpen() {
        return channel.isOpen();
    }

    @Override
    public void close() throws IOException {
        channel.close();
    }
}
