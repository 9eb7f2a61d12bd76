package io.msgscope.core.proc;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

/**
 * CPU time of every process in a cgroup v2 directory, from the {@code usage_usec} line of its
 * {@code cpu.stat} (microseconds; present in every v2 cgroup, with or without the cpu controller).
 * Suits brokers run as a systemd service or a container, whose process set may change.
 *
 * <p>{@link #cpuNs()} does not allocate. One thread at a time.
 */
public final class CgroupCpuReader implements CpuTimeSource {
    private static final byte[] USAGE = "usage_usec ".getBytes(StandardCharsets.US_ASCII);

    private final Path dir;
    private final ProcFile stat;

    private CgroupCpuReader(Path dir, ProcFile stat) {
        this.dir = dir;
        this.stat = stat;
    }

    /** Opens {@code cgroupDir/cpu.stat}; fails with a message naming the file when it is absent. */
    public static CgroupCpuReader forCgroup(Path cgroupDir) throws IOException {
        Path file = cgroupDir.resolve("cpu.stat");
        ProcFile f;
        try {
            f = new ProcFile(file, 1024, true);
        } catch (NoSuchFileException e) {
            throw new NoSuchFileException(file.toString(), null, "no cpu.stat: not a cgroup v2 directory");
        }
        CgroupCpuReader r = new CgroupCpuReader(cgroupDir, f);
        try {
            r.cpuNs();
        } catch (IOException | RuntimeException e) {
            f.close();
            throw e;
        }
        return r;
    }

    public Path dir() {
        return dir;
    }

    @Override
    public long cpuNs() throws IOException {
        final ProcFile f = stat;
        f.load();
        if (f.limit() > 0) {
            do {
                if (f.startsWith(USAGE)) {
                    f.skip(USAGE.length);
                    long us = f.nextLong();
                    if (us < 0) {
                        throw f.malformed("usage_usec is not a number");
                    }
                    return us * 1000;
                }
            } while (f.nextLine());
        }
        throw f.malformed("no usage_usec line");
    }

    @Override
    public String source() {
        return stat.path().toString();
    }

    @Override
    public void close() throws IOException {
        stat.close();
    }
}
