package io.msgscope.core.scenario;

import io.msgscope.core.SpecException;
import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code --source-addresses} (issue 13) and the connection limits checked before anything connects. */
class SourceAddressesTest {
    @Test
    void listsAndCidrBlocks() {
        assertEquals(List.of("127.0.0.2", "127.0.0.3"), SourceAddresses.strings(SourceAddresses.parse("127.0.0.2, 127.0.0.3,127.0.0.2")));
        assertEquals(List.of("127.0.0.1", "127.0.0.2"), SourceAddresses.strings(SourceAddresses.parse("127.0.0.0/30")));
        assertEquals(List.of("127.0.0.9"), SourceAddresses.strings(SourceAddresses.parse("127.0.0.9/32")));
        assertEquals(List.of("10.0.0.0", "10.0.0.1"), SourceAddresses.strings(SourceAddresses.parse("10.0.0.1/31")));
        assertEquals(14, SourceAddresses.parse("127.0.1.0/28").size());
        assertEquals(List.of(), SourceAddresses.parse(""));
    }

    @Test
    void badValuesNameTheOption() {
        for (String bad : new String[] {"localhost", "127.0.0.0/33", "127.0.0.0/x", "::1/64", "1.2.3.4/8", ","}) {
            SpecException e = assertThrows(SpecException.class, () -> SourceAddresses.parse(bad), bad);
            assertTrue(e.getMessage().startsWith("--source-addresses"), e.getMessage());
        }
    }

    @Test
    void limitsRefuseWhatTheBoxCannotOpen() {
        SpecException fd = assertThrows(SpecException.class,
                () -> ConnectionLimits.checkFiles(2_000, 1_024, "--subscribers"));
        assertTrue(fd.getMessage().contains("may open 1024 (ulimit -n)"), fd.getMessage());
        ConnectionLimits.checkFiles(700, 1_024, "--subscribers");
        int[] range = {32_768, 60_999};
        SpecException ports = assertThrows(SpecException.class,
                () -> ConnectionLimits.checkPorts(30_000, 1, range, "--publishers"));
        assertTrue(ports.getMessage().contains("1 source address(es) x 28232 ports"), ports.getMessage());
        ConnectionLimits.checkPorts(50_000, 2, range, "--publishers");
        assertThrows(SpecException.class, () -> ConnectionLimits.checkBindable(List.of(InetAddress.getByAddress(
                new byte[] {(byte) 192, 0, 2, 77}))));
        ConnectionLimits.checkBindable(SourceAddresses.parse("127.0.0.1,127.0.0.2"));
    }
}
