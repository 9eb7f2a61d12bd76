package io.msgscope.coordinator.compare;

import java.io.IOException;
import java.util.List;

/**
 * Where {@code compare}'s runs come from (issue 34): results folders today ({@link FolderRuns}); a run store can
 * give its stored runs the same way, each with its summary, throughput samples and latency intervals.
 */
public interface RunSource {
    /** The runs, in the order given. */
    List<RunData> runs() throws IOException;
}
