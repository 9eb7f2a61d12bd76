package io.msgscope.core.driver;

import io.msgscope.core.AcceptAnyCertificate;
import io.msgscope.core.SpecException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The shared reading of {@code tls_ca}/{@code tls_verify} ({@link TlsOptions}); handshakes are the drivers' tests. */
class TlsOptionsTest {
    @TempDir
    Path dir;

    private static DriverSpec spec(Map<String, String> o) {
        return new DriverSpec("", 0, "", 64, 0, o, "");
    }

    @Test
    void aPlainUriTakesNoTlsOptionAndNamesTheOneGiven() {
        assertNull(TlsOptions.of(spec(Map.of()), false, "an x+tls://", true));
        SpecException e = assertThrows(SpecException.class,
                () -> TlsOptions.of(spec(Map.of("tls_verify", "false")), false, "an x+tls://", true));
        assertEquals("--opt tls_verify", e.option());
        assertTrue(e.getMessage().contains("an x+tls:// --uri"), e.getMessage());
    }

    @Test
    void theDriversDefaultHoldsUntilTlsCaIsGiven() throws Exception {
        assertFalse(TlsOptions.of(spec(Map.of()), true, "", false).verify());
        assertTrue(TlsOptions.of(spec(Map.of()), true, "", true).verify());
        io.msgscope.core.test.TestCertificates.make(dir);
        Path ca = dir.resolve("ca.pem");
        TlsOptions withCa = TlsOptions.of(spec(Map.of("tls_ca", ca.toString())), true, "", false);
        assertTrue(withCa.verify(), "a CA file is checked against");
        TlsOptions off = TlsOptions.of(spec(Map.of("tls_ca", ca.toString(), "tls_verify", "false")), true, "", false);
        assertInstanceOf(AcceptAnyCertificate.class, off.trustManagers()[0]);
        assertNull(TlsOptions.of(spec(Map.of()), true, "", true).trustManagers(), "the JVM's trust store");
        assertEquals(1, withCa.trustManagers().length, "the CA file's certificate");
        assertEquals("verified (tls_ca)", withCa.label());
        assertEquals("not verified (tls_verify=false)", off.label());
    }

    @Test
    void anUnreadableOrEmptyCaFileNamesTlsCa() throws Exception {
        assertEquals("--opt tls_ca", assertThrows(SpecException.class, () -> TlsOptions.of(
                spec(Map.of("tls_ca", dir.resolve("nope.pem").toString())), true, "", true)).option());
        Path empty = Files.writeString(dir.resolve("empty.pem"), "");
        SpecException e = assertThrows(SpecException.class, () -> TlsOptions.of(
                spec(Map.of("tls_ca", empty.toString())), true, "", true));
        assertEquals("--opt tls_ca", e.option());
        assertTrue(e.getMessage().contains("holds no PEM certificate"), e.getMessage());
        assertFalse(e.getMessage().contains("\n"));
        assertEquals("--opt tls_ca", assertThrows(SpecException.class, () -> TlsOptions.of(
                spec(Map.of("tls_ca", dir.toString())), true, "", true)).option(), "a folder is not a CA file");
        assertEquals("--opt tls_verify", assertThrows(SpecException.class, () -> TlsOptions.of(
                spec(Map.of("tls_verify", "maybe")), true, "", true)).option());
    }
}
