package io.msgscope.core.test;

import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;

import java.util.Locale;
import java.util.Set;

/**
 * The tests' one reading of the {@code CI} environment variable (issue 36). CI is on when {@code CI} is
 * {@code true}, {@code 1} or {@code yes}, in any case and with surrounding white space; anything else, or
 * unset, is off. Under CI a test that needs a service, a tool or a privilege that is absent fails; without
 * CI it is skipped saying what was missing. Every module's tests reach it through core's test-jar.
 */
public final class Ci {
    /** The environment variable read. */
    public static final String VARIABLE = "CI";
    private static final Set<String> TRUTHY = Set.of("true", "1", "yes");

    private Ci() {
    }

    /** True under CI: {@code CI} is truthy. */
    public static boolean on() {
        return truthy(System.getenv(VARIABLE));
    }

    /** True for {@code true}, {@code 1} or {@code yes} in any case, trimmed; false for anything else and null. */
    public static boolean truthy(String value) {
        return value != null && TRUTHY.contains(value.trim().toLowerCase(Locale.ROOT));
    }

    /**
     * Returns when {@code present}; otherwise fails under CI ("{@code need} under CI=…") and skips without it
     * ("{@code skipped}: {@code need}; under CI this fails").
     *
     * @param need    what the test needs, as a sentence: "RabbitMQ must listen on 127.0.0.1:5672"
     * @param skipped what goes unchecked without it: "RabbitMQ tests skipped"
     */
    public static void require(boolean present, String need, String skipped) {
        require(present, on(), System.getenv(VARIABLE), need, skipped);
    }

    /** {@link #require(boolean, String, String)} with CI given (for its own test). */
    static void require(boolean present, boolean ci, String raw, String need, String skipped) {
        if (present) {
            return;
        }
        if (ci) {
            Assertions.fail(need + " under " + VARIABLE + "=" + raw);
        }
        Assumptions.abort(skipped + ": " + need + "; under " + VARIABLE + "=true this fails");
    }
}
