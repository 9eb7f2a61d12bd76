package io.msgscope.core.test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class AwaitTest {
    @Test
    void returnsOnceTheConditionHoldsAndFailsNamingItOtherwise() {
        AtomicInteger checks = new AtomicInteger();
        Await.until(() -> checks.incrementAndGet() >= 3, 10, "the third check");
        assertEquals(3, checks.get());
        AssertionError e = assertThrows(AssertionError.class, () -> Await.until(() -> false, 0, "nothing"));
        assertEquals("not within 0 s: nothing", e.getMessage());
    }
}
