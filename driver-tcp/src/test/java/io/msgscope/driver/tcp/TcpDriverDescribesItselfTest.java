package io.msgscope.driver.tcp;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

import java.util.Map;

/** What the raw-TCP driver tells the coordinator's summary about itself (issue 30: no driver names there). */
class TcpDriverDescribesItselfTest {
    private final TcpDriver tcp = new TcpDriver();

    @Test
    void throughTheRelayByDefaultOrOneHopWithViaDirect() {
        assertEquals("sender -> relay -> receiver (raw TCP, loopback)", tcp.topology("", Map.of(), ""));
        assertEquals("sender -> relay -> receiver (raw TCP, loopback)", tcp.topology("", Map.of("via", "relay"), ""));
        assertEquals("sender -> receiver (raw TCP, one hop, receiver listening on 127.0.0.1:5000)",
                tcp.topology("", Map.of("via", " Direct "), "127.0.0.1:5000"));
        assertEquals("sender -> receiver (raw TCP, one hop)", tcp.topology("", Map.of("via", "direct"), ""));
    }

    @Test
    void theRelaysStampsCountItsForwardingThreadOnly() {
        assertEquals("relay forwarding-thread CPU (ns)", tcp.middleBoxCpuSource());
    }
}
