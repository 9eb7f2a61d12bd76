package io.msgscope.control;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

/** Test helper: a CA and host folders made in the test, as {@code msgscope certs} would make them. */
final class Pki {
    final Path root;
    final Certificates.Issued ca;

    Pki(Path root, String name) throws IOException {
        this.root = root;
        this.ca = Certificates.newCa(name, Duration.ofDays(30));
        Certificates.writeCa(root.resolve("ca"), ca);
    }

    /** A host folder (ca.pem, cert.pem, key.pem) for {@code hosts}, valid now. */
    Path host(String dirName, String... hosts) throws IOException {
        return write(dirName, Certificates.issue(ca, List.of(hosts), Duration.ofDays(7)));
    }

    /** A host folder whose certificate expired an hour ago. */
    Path expiredHost(String dirName, String... hosts) throws IOException {
        Instant now = Instant.now();
        return write(dirName, Certificates.issue(ca, List.of(hosts), now.minus(Duration.ofDays(2)),
                now.minus(Duration.ofHours(1))));
    }

    private Path write(String dirName, Certificates.Issued host) throws IOException {
        Path dir = root.resolve(dirName);
        Certificates.writeHost(dir, ca.certificate(), host);
        return dir;
    }

    /** A TLS identity that skips the load-time checks (to put an expired certificate on the wire). */
    static ControlTls unchecked(Path dir) {
        return ControlTls.loadUnchecked(dir);
    }
}
