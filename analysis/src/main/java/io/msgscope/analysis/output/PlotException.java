package io.msgscope.analysis.output;

import java.io.IOException;

/** Rendering a gnuplot script failed. */
public class PlotException extends IOException {

    private static final long serialVersionUID = 1L;

    public PlotException(String message) {
        super(message);
    }

    public PlotException(String message, Throwable cause) {
        super(message, cause);
    }
}
