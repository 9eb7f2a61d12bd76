package io.msgscope.core.scenario;

import io.msgscope.core.SpecException;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * {@code --source-addresses LIST|CIDR} (issue 13, as emqtt-bench's {@code --ifaddr}): the local
 * addresses client sockets bind to in turn, past the ports one address has. A comma-separated list
 * of IPv4 or IPv6 literals, or one IPv4 CIDR block whose usable host addresses are taken (all of them
 * for /31 and /32; without the network and broadcast address otherwise), at most {@link #MAX} in all.
 * Host names are refused: a name could resolve differently on each agent's box.
 */
public final class SourceAddresses {
    public static final int MAX = 4096;
    private static final String OPT = "--source-addresses";

    private SourceAddresses() {
    }

    /** The addresses, in order, without duplicates; empty for an empty or null value. */
    public static List<InetAddress> parse(String value) {
        if (value == null || value.isBlank()) {
            return List.of();
        }
        String v = value.trim();
        if (v.contains("/")) {
            return cidr(v);
        }
        Set<InetAddress> out = new LinkedHashSet<>();
        for (String part : v.split(",", -1)) {
            out.add(literal(part.trim()));
        }
        if (out.size() > MAX) {
            throw new SpecException(OPT, "at most " + MAX + " addresses, got " + out.size());
        }
        return List.copyOf(out);
    }

    /** The same as strings (for the run spec). */
    public static List<String> strings(List<InetAddress> addresses) {
        List<String> s = new ArrayList<>();
        for (InetAddress a : addresses) {
            s.add(a.getHostAddress());
        }
        return s;
    }

    private static InetAddress literal(String s) {
        if (s.isEmpty() || !(s.matches("[0-9.]+") || s.contains(":"))) {
            throw new SpecException(OPT, "must be IP addresses (e.g. 127.0.0.2,127.0.0.3) or one IPv4 CIDR block "
                    + "(e.g. 127.0.0.0/29), got '" + s + "'");
        }
        try {
            return InetAddress.getByName(s); // a literal: no name lookup
        } catch (UnknownHostException e) {
            throw new SpecException(OPT, "'" + s + "' is not an IP address");
        }
    }

    private static List<InetAddress> cidr(String v) {
        String[] p = v.split("/", -1);
        InetAddress base = literal(p[0]);
        byte[] b = base.getAddress();
        int bits;
        try {
            bits = Integer.parseInt(p[1]);
        } catch (NumberFormatException e) {
            bits = -1;
        }
        if (p.length != 2 || b.length != 4 || bits < 0 || bits > 32) {
            throw new SpecException(OPT, "a CIDR block must be IPv4 with a prefix length 0-32 (e.g. 127.0.0.0/29), got '"
                    + v + "'");
        }
        long size = 1L << (32 - bits);
        long first = ((b[0] & 0xffL) << 24 | (b[1] & 0xffL) << 16 | (b[2] & 0xffL) << 8 | (b[3] & 0xffL)) & ~(size - 1);
        long from = size > 2 ? first + 1 : first;
        long to = size > 2 ? first + size - 2 : first + size - 1;
        if (to - from + 1 > MAX) {
            throw new SpecException(OPT, v + " has " + (to - from + 1) + " host addresses; at most " + MAX);
        }
        List<InetAddress> out = new ArrayList<>();
        for (long a = from; a <= to; a++) {
            try {
                out.add(InetAddress.getByAddress(new byte[] {(byte) (a >>> 24), (byte) (a >>> 16), (byte) (a >>> 8), (byte) a}));
            } catch (UnknownHostException e) {
                throw new IllegalStateException(e); // four bytes are always an address
            }
        }
        return out;
    }
}
