package io.msgscope.driver.tcp;

import io.msgscope.core.SpecException;

import java.io.IOException;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;

/** Socket set-up shared by the TCP publisher, subscriber and relay. */
public final class TcpSockets {
    private TcpSockets() {
    }

    /** TCP_NODELAY (a latency tool must not wait for Nagle); buffers only when asked. */
    public static void tune(SocketChannel ch, int socketBuffer) throws IOException {
        tune(ch, socketBuffer, true);
    }

    /**
     * As {@link #tune(SocketChannel, int)}, TCP_NODELAY only when {@code noDelay}: {@code --opt nodelay=false}
     * leaves Nagle's algorithm on for the sockets that send messages.
     */
    public static void tune(SocketChannel ch, int socketBuffer, boolean noDelay) throws IOException {
        ch.setOption(StandardSocketOptions.TCP_NODELAY, noDelay);
        if (socketBuffer > 0) {
            ch.setOption(StandardSocketOptions.SO_SNDBUF, socketBuffer);
            ch.setOption(StandardSocketOptions.SO_RCVBUF, socketBuffer);
        }
    }

    /**
     * Binds a listening socket; a port in use is bad input naming {@code option}, not a stack trace.
     */
    public static ServerSocketChannel listen(String host, int port, String option) throws IOException {
        ServerSocketChannel server = ServerSocketChannel.open();
        server.setOption(StandardSocketOptions.SO_REUSEADDR, true);
        try {
            server.bind(new InetSocketAddress(host, port));
        } catch (BindException e) {
            server.close();
            throw new SpecException(option, "cannot listen on " + host + ":" + port + " (" + e.getMessage()
                    + "); choose a free port, or 0 for any");
        }
        return server;
    }

    /**
     * The direct-mode receiver's listening socket: {@code o.bindHost()}:{@code o.port()}; an address this
     * machine does not have is bad input naming {@code --opt bind}, a port in use names {@code --opt port}.
     */
    static ServerSocketChannel listenDirect(TcpOptions o, int socketBuffer) throws IOException {
        ServerSocketChannel server = ServerSocketChannel.open();
        try {
            server.setOption(StandardSocketOptions.SO_REUSEADDR, true);
            if (socketBuffer > 0) {
                server.setOption(StandardSocketOptions.SO_RCVBUF, socketBuffer); // inherited by the accepted socket
            }
            InetSocketAddress at = new InetSocketAddress(o.bindHost(), o.port());
            if (at.isUnresolved()) {
                throw new SpecException("--opt bind", "cannot resolve '" + o.bind() + "' to an address of this machine");
            }
            server.bind(at, 1);
        } catch (BindException e) {
            server.close();
            boolean inUse = o.port() != 0 && String.valueOf(e.getMessage()).contains("in use");
            throw new SpecException(inUse ? "--opt port" : "--opt bind", "cannot listen on " + o.bind() + ":" + o.port()
                    + " (" + e.getMessage() + "); " + (inUse ? "choose a free port, or 0 for any"
                    : "give an address of this machine, e.g. 127.0.0.1 or 0.0.0.0"));
        } catch (IOException | RuntimeException e) {
            server.close();
            throw e;
        }
        return server;
    }

    /** A {@code host:port} destination as the direct-mode receiver reports it ({@code [v6]:port} for IPv6). */
    public record HostPort(String host, int port) {
        public static HostPort parse(String dest) {
            int colon = dest.lastIndexOf(':');
            int port = -1;
            if (colon > 0) {
                try {
                    port = Integer.parseInt(dest.substring(colon + 1));
                } catch (NumberFormatException e) {
                    port = -1;
                }
            }
            if (port < 1 || port > 65_535) {
                throw new SpecException("--opt via", "direct: the receiver's destination must be host:port, got '"
                        + dest + "'");
            }
            return new HostPort(TcpOptions.unbracket(dest.substring(0, colon)), port);
        }

        /** {@code host:port}, the host in brackets when it is an IPv6 literal. */
        public static String format(String host, int port) {
            return (host.indexOf(':') >= 0 && !host.startsWith("[") ? "[" + host + "]" : host) + ":" + port;
        }
    }

    /** The tcp driver's {@code --opt nodelay} (true when not given); bad values are refused naming it. */
    public static boolean noDelay(java.util.Map<String, String> options) {
        return TcpOptions.of(options).noDelay();
    }

    public static SocketChannel connect(String host, int port, int socketBuffer) throws IOException {
        return connect(host, port, socketBuffer, true);
    }

    public static SocketChannel connect(String host, int port, int socketBuffer, boolean noDelay) throws IOException {
        SocketChannel ch = SocketChannel.open();
        try {
            tune(ch, socketBuffer, noDelay);
            ch.connect(new InetSocketAddress(host, port));
        } catch (IOException e) {
            ch.close();
            throw new IOException("cannot connect to " + host + ":" + port + ": " + e.getMessage(), e);
        }
        return ch;
    }

    /** Receive buffer size for fixed-size messages: at least 1 MiB and two messages. */
    public static int bufferFor(int messageSize) {
        return Math.max(1 << 20, 2 * messageSize);
    }
}
