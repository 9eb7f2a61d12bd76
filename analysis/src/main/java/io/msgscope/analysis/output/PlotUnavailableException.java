package io.msgscope.analysis.output;

/** gnuplot is not installed, so no plot can be rendered (the data and scripts still are). */
public class PlotUnavailableException extends PlotException {

    private static final long serialVersionUID = 1L;

    public static final String MESSAGE =
            "gnuplot not found on PATH: install gnuplot-nox (apt-get install gnuplot-nox) to render plots";

    public PlotUnavailableException() {
        super(MESSAGE);
    }
}
