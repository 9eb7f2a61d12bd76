package io.msgscope.core.proc;

import java.io.Closeable;
import java.io.IOException;

/** A cumulative CPU-time counter (a process or a cgroup), read without allocating. */
public interface CpuTimeSource extends Closeable {
    /** CPU time consumed so far, in nanoseconds; never decreases while the source lives. */
    long cpuNs() throws IOException;

    /** The file this source reads, for notes and error messages. */
    String source();
}
