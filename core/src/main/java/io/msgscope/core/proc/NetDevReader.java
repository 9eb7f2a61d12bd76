package io.msgscope.core.proc;

import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * One interface's cumulative counters from {@code /proc/net/dev}: two header lines, then one line
 * per interface, {@code name: rx_bytes rx_packets errs drop fifo frame compressed multicast
 * tx_bytes tx_packets ...} (the name is right-aligned, and large counters may touch the colon).
 *
 * <p>{@link #read(long[])} does not allocate. One thread at a time.
 */
public final class NetDevReader implements Closeable {
    /** Indexes into the array {@link #read(long[])} fills. */
    public static final int RX_BYTES = 0;
    public static final int RX_PACKETS = 1;
    public static final int TX_BYTES = 2;
    public static final int TX_PACKETS = 3;

    private final String iface;
    private final byte[] name;
    private final ProcFile dev;

    /** Opens {@code procNetDev} (normally {@code /proc/net/dev}) for interface {@code iface}. */
    public NetDevReader(Path procNetDev, String iface) throws IOException {
        this.iface = iface;
        this.name = iface.getBytes(StandardCharsets.UTF_8);
        this.dev = new ProcFile(procNetDev, 8192, true);
    }

    public String iface() {
        return iface;
    }

    /**
     * Fills {@code out[0..3]} with rx bytes, rx packets, tx bytes, tx packets; false (and
     * {@code out} untouched) when the interface is not listed.
     */
    public boolean read(long[] out) throws IOException {
        final ProcFile f = dev;
        final byte[] n = name;
        f.load();
        if (!f.nextLine() || !f.nextLine()) {
            return false;
        }
        do {
            f.skipLeadingBlanks();
            if (f.startsWith(n) && f.pos() + n.length < f.limit() && f.at(f.pos() + n.length) == ':') {
                f.skip(n.length + 1);
                long rxBytes = f.nextLong();
                long rxPackets = f.nextLong();
                if (rxBytes < 0 || rxPackets < 0 || !f.skipTokens(6)) {
                    throw f.malformed("short line for " + iface);
                }
                long txBytes = f.nextLong();
                long txPackets = f.nextLong();
                if (txBytes < 0 || txPackets < 0) {
                    throw f.malformed("short line for " + iface);
                }
                out[RX_BYTES] = rxBytes;
                out[RX_PACKETS] = rxPackets;
                out[TX_BYTES] = txBytes;
                out[TX_PACKETS] = txPackets;
                return true;
            }
        } while (f.nextLine());
        return false;
    }

    /**
     * The name of the interface that owns local address {@code local}: "lo" for loopback addresses,
     * else {@link NetworkInterface#getByInetAddress}; {@code null} when no interface owns it (for
     * example the wildcard address).
     */
    public static String interfaceOf(InetAddress local) {
        if (local.isLoopbackAddress()) {
            return "lo";
        }
        try {
            NetworkInterface ni = NetworkInterface.getByInetAddress(local);
            return ni == null ? null : ni.getName();
        } catch (SocketException e) {
            throw new UncheckedIOException("cannot list network interfaces: " + e.getMessage(), e);
        }
    }

    public String source() {
        return dev.path().toString();
    }

    @Override
    public void close() throws IOException {
        dev.close();
    }
}
