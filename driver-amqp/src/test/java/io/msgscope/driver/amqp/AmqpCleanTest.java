package io.msgscope.driver.amqp;

import io.msgscope.core.SpecException;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** What {@code msgscope clean --driver amqp} takes for msgscope's queues, and where it asks (issue 32 item 3). */
class AmqpCleanTest {
    @Test
    void onlyTheQueuesMsgscopeNamedAreTaken() {
        // a GET /api/queues/%2F?columns=name answer: own queues, a round-robin group's, and others' queues
        String json = "[{\"name\":\"orders\"},{\"name\":\"msgscope-quorum-1f2e\"},{\"name\":\"msgscope3a9c\"},"
                + "{\"name\":\"amq.gen-xyz\"},{\"name\" : \"msgscope-classic-7\"},{\"name\":\"my-msgscope\"}]";
        assertEquals(List.of("msgscope-quorum-1f2e", "msgscope3a9c", "msgscope-classic-7"), AmqpClean.ours(json));
        assertEquals(List.of(), AmqpClean.ours("[]"));
    }

    @Test
    void theManagementApiIsOnTheUrisHostUnlessGiven() {
        assertEquals("http://10.0.0.5:15672", AmqpClean.managementBase(null, "10.0.0.5"));
        assertEquals("http://[::1]:15672", AmqpClean.managementBase("", "::1"));
        assertEquals("http://127.0.0.1:26800", AmqpClean.managementBase("http://127.0.0.1:26800/", "x"));
        SpecException e = assertThrows(SpecException.class, () -> AmqpClean.managementBase("127.0.0.1:15672", "x"));
        assertEquals("--opt management", e.option());
    }
}
