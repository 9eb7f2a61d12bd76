package io.msgscope.control;

import io.msgscope.core.SpecException;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Set;

/**
 * The shared secret of a test network's control plane (issues 6 and 14): agents on a network must
 * not run a stranger's workload, and a coordinator must not hand its run spec to, or take results
 * from, a stranger. Coordinator and agent prove knowledge of the secret with HMAC-SHA256 over both
 * fresh random nonces, their own role and the channel binding (the agent's TLS certificate, see
 * {@link ControlTls#binding}), compared in constant time:
 * <ul>
 *   <li>both nonces: a proof is good for one connection only (no replay);</li>
 *   <li>the role label: an agent's proof is never a coordinator's (no reflection);</li>
 *   <li>the binding: a man in the middle who terminates TLS on both sides sees two different
 *       certificates, so proofs relayed between them do not verify.</li>
 * </ul>
 * The agent proves first; the coordinator answers only once that proof has verified, so it signs
 * nothing for an unproven peer (no signing oracle), and it never accepts an agent that says it
 * needs no secret (no downgrade). The secret comes from a file ({@code --secret-file}) or the
 * environment variable {@code MSGSCOPE_SECRET}.
 */
public final class SharedSecret {
    public static final String ENV = "MSGSCOPE_SECRET";
    private static final int MIN_BYTES = 16;
    private static final SecureRandom RANDOM = new SecureRandom();

    private final byte[] key;

    private SharedSecret(byte[] key) {
        this.key = key;
    }

    /** From the file if given, else from {@value #ENV}; null when neither is set. */
    public static SharedSecret load(Path file) {
        byte[] raw;
        if (file != null) {
            try {
                raw = Files.readString(file, StandardCharsets.UTF_8).trim().getBytes(StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw new SpecException("--secret-file", "cannot read " + file + " (" + e.getMessage() + ")");
            }
            try {
                Set<PosixFilePermission> perms = Files.getPosixFilePermissions(file);
                if (perms.contains(PosixFilePermission.OTHERS_READ) || perms.contains(PosixFilePermission.GROUP_READ)) {
                    throw new SpecException("--secret-file", file + " is readable by group or others; chmod 600 it");
                }
            } catch (UnsupportedOperationException | IOException e) {
                // not a POSIX file system: nothing to check
            }
        } else {
            String env = System.getenv(ENV);
            if (env == null || env.isBlank()) {
                return null;
            }
            raw = env.trim().getBytes(StandardCharsets.UTF_8);
        }
        if (raw.length < MIN_BYTES) {
            throw new SpecException(file != null ? "--secret-file" : ENV, "the secret must be at least " + MIN_BYTES
                    + " bytes long, got " + raw.length);
        }
        return new SharedSecret(raw);
    }

    public static byte[] nonce() {
        byte[] n = new byte[NONCE_BYTES];
        RANDOM.nextBytes(n);
        return n;
    }

    /** Both sides' nonces are this long; anything else is refused before any HMAC is computed. */
    public static final int NONCE_BYTES = 32;
    private static final String LABEL = "msgscope control protocol 2 ";

    /** The agent's proof: over both nonces and the channel binding (empty without TLS). */
    public byte[] agentProof(byte[] coordinatorNonce, byte[] agentNonce, byte[] binding) {
        return hmac("agent", coordinatorNonce, agentNonce, binding);
    }

    /** The coordinator's proof: the same inputs, the other role. */
    public byte[] coordinatorProof(byte[] coordinatorNonce, byte[] agentNonce, byte[] binding) {
        return hmac("coordinator", coordinatorNonce, agentNonce, binding);
    }

    /** A secret made for one run's local agents (passed to them in their environment, never on a command line). */
    public static SharedSecret random() {
        byte[] k = new byte[32];
        RANDOM.nextBytes(k);
        return new SharedSecret(java.util.HexFormat.of().formatHex(k).getBytes(StandardCharsets.US_ASCII));
    }

    /** The secret as the text {@link #load} reads back (for a child's environment). */
    public String text() {
        return new String(key, StandardCharsets.UTF_8);
    }

    public static boolean matches(byte[] expected, byte[] got) {
        return MessageDigest.isEqual(expected, got);
    }

    private byte[] hmac(String role, byte[] coordinatorNonce, byte[] agentNonce, byte[] binding) {
        if (coordinatorNonce.length != NONCE_BYTES || agentNonce.length != NONCE_BYTES
                || binding.length > 255) {
            throw new IllegalArgumentException("nonces must be " + NONCE_BYTES + " bytes, a binding at most 255");
        }
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(key, "HmacSHA256"));
            mac.update((LABEL + role).getBytes(StandardCharsets.US_ASCII));
            mac.update((byte) 0);
            mac.update(coordinatorNonce);
            mac.update(agentNonce);
            mac.update((byte) binding.length);
            return mac.doFinal(binding);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 unavailable", e);
        }
    }
}
