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
 * The shared secret of a test network's control plane (issue 6): agents on a network must not run a
 * stranger's workload. Coordinator and agent prove knowledge of the secret to each other with
 * HMAC-SHA256 over the other side's fresh random nonce (challenge-response, no replay), compared in
 * constant time. The secret comes from a file ({@code --secret-file}) or the environment variable
 * {@code MSGSCOPE_SECRET}.
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
        byte[] n = new byte[32];
        RANDOM.nextBytes(n);
        return n;
    }

    /** The agent's proof over the coordinator's nonce. */
    public byte[] agentProof(byte[] coordinatorNonce) {
        return hmac("msgscope-agent", coordinatorNonce);
    }

    /** The coordinator's proof over the agent's nonce. */
    public byte[] coordinatorProof(byte[] agentNonce) {
        return hmac("msgscope-coordinator", agentNonce);
    }

    public static boolean matches(byte[] expected, byte[] got) {
        return MessageDigest.isEqual(expected, got);
    }

    private byte[] hmac(String label, byte[] nonce) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(key, "HmacSHA256"));
            mac.update(label.getBytes(StandardCharsets.US_ASCII));
            return mac.doFinal(nonce);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 unavailable", e);
        }
    }
}
