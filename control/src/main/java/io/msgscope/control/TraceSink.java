package io.msgscope.control;

import io.msgscope.proto.Series;

/** Where an agent uploads a recorded series, in chunks. */
public interface TraceSink {
    void series(Series series, long[] values, int count) throws Exception;
}
