package io.msgscope.core.test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.opentest4j.AssertionFailedError;
import org.opentest4j.TestAbortedException;

import java.util.Arrays;

/** How the tests read {@code CI} (issue 36): which values are on, and what a missing need does either way. */
class CiTest {
    @Test
    void trueOneAndYesInAnyCaseAreOn() {
        for (String on : Arrays.asList("true", "TRUE", "True", "1", "yes", "YES", "Yes", " true\n")) {
            assertTrue(Ci.truthy(on), on);
        }
    }

    @Test
    void everythingElseIsOff() {
        for (String off : Arrays.asList(null, "", " ", "false", "0", "no", "on", "y", "t", "truthy", "11")) {
            assertFalse(Ci.truthy(off), String.valueOf(off));
        }
    }

    @Test
    void underCiAMissingNeedFails() {
        AssertionFailedError e = assertThrows(AssertionFailedError.class,
                () -> Ci.require(false, true, "Yes", "nats-server must be on PATH", "private-server tests skipped"));
        assertEquals("nats-server must be on PATH under CI=Yes", e.getMessage());
    }

    @Test
    void withoutCiAMissingNeedSkipsSayingWhatWasMissing() {
        TestAbortedException e = assertThrows(TestAbortedException.class,
                () -> Ci.require(false, false, null, "nats-server must be on PATH", "private-server tests skipped"));
        assertEquals("private-server tests skipped: nats-server must be on PATH; under CI=true this fails",
                e.getMessage());
    }

    @Test
    void aPresentNeedPassesEitherWay() {
        Ci.require(true, true, "1", "x", "y");
        Ci.require(true, false, null, "x", "y");
    }
}
