package io.msgscope.core.driver;

/**
 * Where a driver connects, and how the socket is tuned.
 *
 * @param socketBuffer SO_SNDBUF/SO_RCVBUF bytes, 0 = OS default
 */
public record Endpoint(String host, int port, int socketBuffer) {
    @Override
    public String toString() {
        return host + ":" + port;
    }
}
