package io.msgscope.driver.tcp;

import io.msgscope.core.SpecException;
import io.msgscope.core.driver.DriverSpec;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The tcp driver's options: the relay by default, direct on request, every bad value one line naming the option. */
class TcpOptionsTest {
    private final TcpDriver driver = new TcpDriver();

    private static DriverSpec spec(Map<String, String> opts) {
        return new DriverSpec("", 0, "", 64, 0, opts, "");
    }

    private void refused(Map<String, String> opts, String option, String mentions) {
        SpecException e = assertThrows(SpecException.class, () -> driver.checkOptions(spec(opts)), opts::toString);
        assertTrue(e.getMessage().startsWith(option + ": "), e.getMessage());
        assertTrue(e.getMessage().contains(mentions), e.getMessage());
        assertFalse(e.getMessage().contains("\n"), "one line: " + e.getMessage());
    }

    @Test
    void theRelayIsTheDefaultAndDirectIsAskedFor() {
        assertTrue(driver.usesRelay(Map.of()));
        assertTrue(driver.usesRelay(Map.of("via", "relay")));
        assertFalse(driver.usesRelay(Map.of("via", "direct")));
        assertFalse(driver.usesRelay(Map.of("via", " Direct ")));
        TcpOptions d = TcpOptions.of(Map.of("via", "direct"));
        assertEquals("127.0.0.1", d.bind());
        assertEquals(0, d.port());
        assertNull(d.advertise());
        assertEquals("127.0.0.1", d.connectHost());
    }

    @Test
    void neitherModeHasABroker() {
        assertNull(driver.brokerHost("", Map.of()));
        assertNull(driver.brokerHost("", Map.of("via", "direct")));
    }

    @Test
    void nagleIsOffUnlessNodelayFalseLeavesItOnInEitherMode() {
        assertTrue(TcpOptions.of(Map.of()).noDelay());
        assertFalse(TcpOptions.of(Map.of("nodelay", "false")).noDelay());
        assertFalse(TcpSockets.noDelay(Map.of("via", "direct", "nodelay", "false")));
        assertTrue(TcpSockets.noDelay(Map.of("via", "relay", "nodelay", "true")));
    }

    @Test
    void directOptionsAreRead() {
        TcpOptions o = TcpOptions.of(Map.of("via", "direct", "bind", "0.0.0.0", "port", "7700"));
        assertEquals(7700, o.port());
        assertEquals("127.0.0.1", o.connectHost(), "the wildcard is advertised as loopback: M1 keeps both on one box");
        assertEquals("0.0.0.0", TcpOptions.of(Map.of("via", "direct", "bind", "*")).bindHost());
        assertEquals("box-a", TcpOptions.of(Map.of("via", "direct", "advertise", "box-a")).connectHost());
        assertEquals("::1", TcpOptions.of(Map.of("via", "direct", "bind", "[::1]")).bindHost());
        driver.checkOptions(spec(Map.of("via", "direct", "advertise", "fe80::1")));
    }

    @Test
    void badValuesAreRefusedNamingTheOption() {
        refused(Map.of("via", "broker"), "--opt via", "must be relay");
        refused(Map.of("via", ""), "--opt via", "got ''");
        refused(Map.of("bogus", "1"), "--opt bogus", "it knows advertise, bind, nodelay, port, via");
        refused(Map.of("via", "direct", "port", "70000"), "--opt port", "between 0 and 65535");
        refused(Map.of("via", "direct", "port", "any"), "--opt port", "whole number");
        refused(Map.of("via", "direct", "bind", " "), "--opt bind", "address of this machine");
        refused(Map.of("via", "direct", "advertise", "box-a:7700"), "--opt advertise", "without a port");
        refused(Map.of("nodelay", "maybe"), "--opt nodelay", "must be true or false");
    }

    @Test
    void directOnlyOptionsAreRefusedThroughTheRelay() {
        refused(Map.of("port", "7700"), "--opt port", "via=direct only");
        refused(Map.of("via", "relay", "bind", "0.0.0.0"), "--opt bind", "via=direct only");
        refused(Map.of("advertise", "box-a"), "--opt advertise", "--relay-ingress-port");
    }

    @Test
    void destinationsAreParsedAndFormatted() {
        assertEquals(new TcpSockets.HostPort("127.0.0.1", 7700), TcpSockets.HostPort.parse("127.0.0.1:7700"));
        assertEquals(new TcpSockets.HostPort("::1", 7700), TcpSockets.HostPort.parse("[::1]:7700"));
        assertEquals("[::1]:7700", TcpSockets.HostPort.format("::1", 7700));
        assertEquals("box-a:1", TcpSockets.HostPort.format("box-a", 1));
        for (String bad : new String[] {"", "127.0.0.1", ":7700", "host:0", "host:x", "host:65536"}) {
            SpecException e = assertThrows(SpecException.class, () -> TcpSockets.HostPort.parse(bad), bad);
            assertTrue(e.getMessage().contains("host:port"), e.getMessage());
        }
    }
}
