package io.msgscope.core;

/** Bad input: names the option (or field) and the allowed range. Maps to exit code 2. */
public final class SpecException extends RuntimeException {
    private final String option;

    public SpecException(String option, String message) {
        super(option + ": " + message);
        this.option = option;
    }

    public String option() {
        return option;
    }
}
