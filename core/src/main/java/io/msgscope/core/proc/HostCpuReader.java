package io.msgscope.core.proc;

import java.io.Closeable;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * The host's CPU time over all cores from the first ({@code cpu }) line of {@code /proc/stat}:
 * {@code user nice system idle iowait irq softirq steal guest guest_nice}, in clock ticks of
 * {@link ProcCpu#USER_HZ}. Busy = user + nice + system + irq + softirq + steal; total = busy +
 * idle + iowait. guest and guest_nice are not added: the kernel already counts them inside user
 * and nice. Fields a kernel does not report count as 0.
 *
 * <p>{@link #read(long[])} does not allocate. One thread at a time.
 */
public final class HostCpuReader implements Closeable {
    private static final byte[] CPU = "cpu ".getBytes(StandardCharsets.US_ASCII);

    private final ProcFile stat;

    private HostCpuReader(ProcFile stat) {
        this.stat = stat;
    }

    /** Opens {@code procRoot/stat}. Only its first 1 KiB is read: the aggregate line comes first. */
    public static HostCpuReader host(Path procRoot) throws IOException {
        return new HostCpuReader(new ProcFile(procRoot.resolve("stat"), 1024, false));
    }

    /**
     * Puts busy ns in {@code out[0]} and total ns in {@code out[1]}; false (and {@code out}
     * untouched) when the file has no aggregate {@code cpu } line first.
     */
    public boolean read(long[] out) throws IOException {
        final ProcFile f = stat;
        f.load();
        if (!f.startsWith(CPU)) {
            return false;
        }
        f.skip(CPU.length);
        long user = f.nextLong();
        long nice = f.nextLong();
        long system = f.nextLong();
        long idle = f.nextLong();
        if (user < 0 || nice < 0 || system < 0 || idle < 0) {
            return false;
        }
        long iowait = Math.max(0, f.nextLong());
        long irq = Math.max(0, f.nextLong());
        long softirq = Math.max(0, f.nextLong());
        long steal = Math.max(0, f.nextLong());
        long busy = user + nice + system + irq + softirq + steal;
        out[0] = ProcCpu.ticksToNs(busy);
        out[1] = ProcCpu.ticksToNs(busy + idle + iowait);
        return true;
    }

    public String source() {
        return stat.path().toString();
    }

    @Override
    public void close() throws IOException {
        stat.close();
    }
}
