package io.msgscope.control;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.msgscope.core.SpecException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Arrays;

/**
 * {@link SharedSecret} (issue 36): loading and its checks, and both proofs against HMAC-SHA256 over the
 * layout written out here byte by byte (label and role, a zero byte, the coordinator's nonce, the agent's
 * nonce, the binding's length in one byte, the binding).
 */
class SharedSecretTest {
    static final String KEY = "lab-secret-0123456789abcdef";

    @TempDir
    Path tmp;

    /** The proof {@code role} ("agent" or "coordinator") owes for these inputs under {@code key}, by hand. */
    static byte[] proof(String key, String role, byte[] coordinatorNonce, byte[] agentNonce, byte[] binding)
            throws Exception {
        ByteArrayOutputStream message = new ByteArrayOutputStream();
        message.writeBytes(("msgscope control protocol 2 " + role).getBytes(StandardCharsets.US_ASCII));
        message.write(0);
        message.writeBytes(coordinatorNonce);
        message.writeBytes(agentNonce);
        message.write(binding.length);
        message.writeBytes(binding);
        Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(key.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
        return mac.doFinal(message.toByteArray());
    }

    static SharedSecret load(Path dir, String text) throws Exception {
        Path f = Files.createTempFile(dir, "secret", "");
        Files.writeString(f, text);
        Files.setPosixFilePermissions(f, PosixFilePermissions.fromString("rw-------"));
        return SharedSecret.load(f);
    }

    private static byte[] filled(int value) {
        byte[] b = new byte[SharedSecret.NONCE_BYTES];
        Arrays.fill(b, (byte) value);
        return b;
    }

    @Test
    void bothProofsAreHmacSha256OverTheLayoutWrittenOut() throws Exception {
        SharedSecret s = load(tmp, "  " + KEY + "\n"); // surrounding white space is not part of the secret
        byte[] cn = filled(1);
        byte[] an = filled(2);
        byte[] binding = {9, 8, 7};
        assertArrayEquals(proof(KEY, "agent", cn, an, binding), s.agentProof(cn, an, binding));
        assertArrayEquals(proof(KEY, "coordinator", cn, an, binding), s.coordinatorProof(cn, an, binding));
        assertArrayEquals(proof(KEY, "coordinator", cn, an, new byte[0]), s.coordinatorProof(cn, an, new byte[0]));
        assertEquals(32, s.agentProof(cn, an, binding).length);
    }

    @Test
    void eachInputChangesTheProof() throws Exception {
        SharedSecret s = load(tmp, KEY);
        byte[] cn = filled(1);
        byte[] an = filled(2);
        byte[] binding = {9};
        byte[] base = s.coordinatorProof(cn, an, binding);
        assertFalse(SharedSecret.matches(base, s.agentProof(cn, an, binding)), "the roles differ (no reflection)");
        assertFalse(SharedSecret.matches(base, s.coordinatorProof(filled(3), an, binding)), "the coordinator's nonce");
        assertFalse(SharedSecret.matches(base, s.coordinatorProof(cn, filled(3), binding)), "the agent's nonce");
        assertFalse(SharedSecret.matches(base, s.coordinatorProof(an, cn, binding)), "the nonces' order");
        assertFalse(SharedSecret.matches(base, s.coordinatorProof(cn, an, new byte[] {8})), "the binding");
        assertFalse(SharedSecret.matches(base, load(tmp, KEY + "x").coordinatorProof(cn, an, binding)), "the key");
        assertTrue(SharedSecret.matches(base, s.coordinatorProof(cn.clone(), an.clone(), binding.clone())));
    }

    @Test
    void matchesComparesWholeArrays() {
        byte[] a = {1, 2, 3, 4};
        assertTrue(SharedSecret.matches(a, new byte[] {1, 2, 3, 4}));
        assertFalse(SharedSecret.matches(a, new byte[] {1, 2, 3, 5}));
        assertFalse(SharedSecret.matches(a, new byte[] {1, 2, 3}), "a prefix is not the proof");
        assertFalse(SharedSecret.matches(a, new byte[0]), "nor is nothing");
    }

    @Test
    void malformedNoncesAndLongBindingsAreRefusedBeforeAnyHmac() throws Exception {
        SharedSecret s = load(tmp, KEY);
        byte[] ok = filled(1);
        assertThrows(IllegalArgumentException.class, () -> s.agentProof(new byte[31], ok, new byte[0]));
        assertThrows(IllegalArgumentException.class, () -> s.coordinatorProof(ok, new byte[33], new byte[0]));
        assertThrows(IllegalArgumentException.class, () -> s.coordinatorProof(ok, ok, new byte[256]));
        assertEquals(32, s.coordinatorProof(ok, ok, new byte[255]).length, "255 bytes of binding still fit its length byte");
    }

    @Test
    void noncesAreFreshAndOfTheFixedLength() {
        byte[] a = SharedSecret.nonce();
        byte[] b = SharedSecret.nonce();
        assertEquals(SharedSecret.NONCE_BYTES, a.length);
        assertEquals(SharedSecret.NONCE_BYTES, b.length);
        assertFalse(Arrays.equals(a, b));
    }

    @Test
    void aRandomSecretReadsBackAsTheSameKey() throws Exception {
        SharedSecret r = SharedSecret.random();
        assertEquals(64, r.text().length(), "32 random bytes in hex");
        assertFalse(r.text().equals(SharedSecret.random().text()));
        byte[] cn = filled(4);
        byte[] an = filled(5);
        assertArrayEquals(proof(r.text(), "agent", cn, an, new byte[0]), r.agentProof(cn, an, new byte[0]));
        assertArrayEquals(r.coordinatorProof(cn, an, new byte[0]),
                load(tmp, r.text()).coordinatorProof(cn, an, new byte[0]));
    }

    @Test
    void loadNamesTheOptionOfEveryBadFile() throws Exception {
        SpecException shortOne = assertThrows(SpecException.class, () -> load(tmp, "fifteen-bytes!!"));
        assertEquals("--secret-file", shortOne.option());
        assertTrue(shortOne.getMessage().contains("at least 16 bytes long, got 15"), shortOne.getMessage());
        assertEquals(16, load(tmp, "sixteen-bytes!!!").text().length());

        Path open = Files.createTempFile(tmp, "secret", "");
        Files.writeString(open, KEY);
        Files.setPosixFilePermissions(open, PosixFilePermissions.fromString("rw-r-----"));
        SpecException readable = assertThrows(SpecException.class, () -> SharedSecret.load(open));
        assertEquals("--secret-file", readable.option());
        assertTrue(readable.getMessage().endsWith("is readable by group or others; chmod 600 it"), readable.getMessage());

        SpecException missing = assertThrows(SpecException.class, () -> SharedSecret.load(tmp.resolve("nowhere")));
        assertEquals("--secret-file", missing.option());
        assertTrue(missing.getMessage().contains("cannot read " + tmp.resolve("nowhere")), missing.getMessage());
    }

    @Test
    void withoutAFileItIsTheEnvironmentOrNothing() {
        String env = System.getenv(SharedSecret.ENV);
        if (env == null || env.isBlank()) {
            assertNull(SharedSecret.load(null), "no file and no " + SharedSecret.ENV + ": no secret");
        } else {
            assertEquals(env.trim(), SharedSecret.load(null).text());
        }
    }
}
