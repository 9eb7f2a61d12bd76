package io.msgscope.driver.zmq;

import io.msgscope.core.SpecException;
import io.msgscope.core.WireHeader;
import io.msgscope.core.driver.MessageHandler;
import io.msgscope.core.driver.Subscriber;
import org.zeromq.SocketType;
import org.zeromq.ZContext;
import org.zeromq.ZMQ;
import org.zeromq.ZMQException;

import java.io.IOException;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Map;

/**
 * A pull driver: {@link #poll} receives on the caller's thread into one preallocated byte[] wrapped
 * once in a little-endian ByteBuffer (JeroMQ allocates its own message object per message). The
 * buffer holds one byte more than the message size, so a longer message shows as filling it and is
 * counted as an error rather than silently cut. A non-blocking receive loop empties what is queued;
 * when nothing is, one blocking receive waits up to the socket's receive timeout (set once, and again
 * only when the caller's timeout changes). A PULL socket cannot see its peer go away, so poll never
 * returns -1: the receiver's drain timeout ends the run instead.
 */
final class ZmqSubscriber implements Subscriber {
    private static final int MAX_BATCH = 4096;

    private final ZContext ctx;
    private final ZMQ.Socket pull;
    private final byte[] bytes;
    private final ByteBuffer view;
    private final int size;
    private final String destination;
    private final InetAddress local;
    private long timeoutMs = -2;
    private long shortPayloads;
    private long oversize;

    ZmqSubscriber(String bind, String advertise, int port, int hwm, int size) throws IOException {
        this.size = size;
        this.bytes = new byte[Math.max(size, WireHeader.SIZE) + 1];
        this.view = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        boolean any = bind.equals("*") || bind.equals("0.0.0.0");
        String host = advertise != null ? advertise : any ? InetAddress.getLocalHost().getHostAddress() : bind;
        ctx = new ZContext(1);
        pull = ctx.createSocket(SocketType.PULL);
        pull.setRcvHWM(hwm);
        pull.setLinger(0);
        int bound;
        try {
            String endpoint = "tcp://" + (any ? "*" : bind);
            if (port == 0) {
                bound = pull.bindToRandomPort(endpoint);
            } else {
                pull.bind(endpoint + ":" + port);
                bound = port;
            }
        } catch (ZMQException | IllegalArgumentException e) {
            ctx.close();
            throw new SpecException(port == 0 ? "--opt bind" : "--opt port", "cannot bind a PULL socket on " + bind
                    + ":" + (port == 0 ? "*" : port) + " (" + e.getMessage() + ")");
        }
        destination = "tcp://" + host + ":" + bound;
        local = any ? null : InetAddress.getByName(bind);
    }

    @Override
    public int poll(MessageHandler handler, long timeoutMs) throws IOException {
        final ZMQ.Socket s = pull;
        final byte[] b = bytes;
        int len = s.recv(b, 0, b.length, ZMQ.DONTWAIT);
        if (len < 0) {
            if (timeoutMs != this.timeoutMs) {
                s.setReceiveTimeOut((int) Math.min(Integer.MAX_VALUE, timeoutMs));
                this.timeoutMs = timeoutMs;
            }
            len = s.recv(b, 0, b.length, 0);
            if (len < 0) {
                return checkError(s);
            }
        }
        final ByteBuffer v = view;
        final int max = b.length - 1;
        int delivered = 0;
        while (true) {
            if (len < WireHeader.SIZE) {
                shortPayloads++;
            } else if (len > max) {
                oversize++;
            } else {
                handler.onMessage(v, 0);
                delivered++;
            }
            if (delivered >= MAX_BATCH) {
                break;
            }
            len = s.recv(b, 0, b.length, ZMQ.DONTWAIT);
            if (len < 0) {
                break;
            }
        }
        return delivered;
    }

    private static int checkError(ZMQ.Socket s) throws IOException {
        int errno = s.errno();
        if (errno == ZMQ.Error.EAGAIN.getCode() || errno == 0) {
            return 0;
        }
        if (errno == ZMQ.Error.ETERM.getCode()) {
            return -1;
        }
        throw new IOException("ZeroMQ receive failed: " + ZMQ.Error.findByCode(errno));
    }

    @Override
    public String destination() {
        return destination;
    }

    @Override
    public InetAddress localAddress() {
        return local;
    }

    @Override
    public Map<String, Long> counters() {
        return Map.of("errors", shortPayloads + oversize, "short_payloads", shortPayloads, "oversize_payloads", oversize);
    }

    @Override
    public void close() {
        ctx.close();
    }
}
