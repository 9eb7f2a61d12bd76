package io.msgscope.agent.probe;

import io.msgscope.control.AgentRole;
import io.msgscope.control.RoleThread;
import io.msgscope.control.TraceSink;
import io.msgscope.core.WireHeader;
import io.msgscope.driver.tcp.TcpSockets;
import io.msgscope.proto.Phase;
import io.msgscope.proto.PhaseDone;
import io.msgscope.proto.Ready;
import io.msgscope.proto.Role;
import io.msgscope.proto.RunSpec;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;

/**
 * The broker-probe agent in relay mode: the trivial broker of M10, the middle box of M1. It listens
 * on an ingress port (the sender connects) and an egress port (the receiver connects) and forwards
 * whole messages from one to the other on one thread, handing each to a {@link RelayTap} first.
 * Its phase answers report what it forwarded so far.
 */
public final class RelayRole implements AgentRole {
    private final RelayTap tap;
    private RunSpec spec;
    private ServerSocketChannel ingress;
    private ServerSocketChannel egress;
    private SocketChannel in;
    private SocketChannel out;
    private RoleThread thread;
    private volatile boolean stopped;
    private volatile long forwarded;
    private volatile String failure;
    private volatile long allocatedAtStart = -1;

    public RelayRole(RelayTap tap) {
        this.tap = tap;
    }

    /** The relay with its standard tap: CPU stamps every Nth message and the optional test burner. */
    public RelayRole() {
        this(null);
    }

    @Override
    public Role role() {
        return Role.RELAY;
    }

    @Override
    public Ready prepare(RunSpec spec) throws Exception {
        this.spec = spec;
        String host = spec.getBindHost().isEmpty() ? "127.0.0.1" : spec.getBindHost();
        ingress = TcpSockets.listen(host, spec.getIngressPort(), "--relay-ingress-port");
        egress = TcpSockets.listen(host, spec.getEgressPort(), "--relay-egress-port");
        thread = new RoleThread("msgscope-relay", spec.getPinCpu());
        thread.submit(this::forwardLoop);
        return thread.ready().setRole(Role.RELAY)
                .setIngressPort(((InetSocketAddress) ingress.getLocalAddress()).getPort())
                .setEgressPort(((InetSocketAddress) egress.getLocalAddress()).getPort()).build();
    }

    private void forwardLoop() {
        try {
            out = egress.accept(); // the receiver connects first
            TcpSockets.tune(out, spec.getSocketBuffer());
            in = ingress.accept();
            TcpSockets.tune(in, spec.getSocketBuffer());
            final int size = spec.getSize();
            final ByteBuffer buf = WireHeader.allocate(TcpSockets.bufferFor(size));
            final RelayTap t = tap != null ? tap : CpuStampTap.forSpec(spec);
            final SocketChannel src = in;
            final SocketChannel dst = out;
            long index = 0;
            allocatedAtStart = thread.allocatedBytes();
            while (!stopped) {
                if (src.read(buf) < 0) {
                    break;
                }
                final int end = buf.position();
                final int whole = end - end % size;
                if (whole == 0) {
                    continue;
                }
                for (int off = 0; off < whole; off += size) {
                    t.onMessage(buf, off, index++);
                }
                buf.limit(whole).position(0);
                while (buf.hasRemaining()) {
                    dst.write(buf);
                }
                buf.limit(end).position(whole);
                buf.compact();
                forwarded = index;
            }
        } catch (IOException e) {
            if (!stopped) {
                failure = "relay stopped forwarding after " + forwarded + " messages: " + e.getMessage();
            }
        }
    }

    @Override
    public void start(Phase phase, PhaseListener listener) {
        if (failure != null) {
            listener.failed(failure);
        } else {
            long n = forwarded;
            long a0 = allocatedAtStart;
            listener.done(PhaseDone.newBuilder().setPhase(phase).setReceived(n).setSent(n)
                    .setBytes(n * spec.getSize())
                    .setHotThreadAllocatedBytes(a0 < 0 ? -1 : thread.allocatedBytes() - a0).build());
        }
    }

    @Override
    public void upload(TraceSink sink) {
        // relay mode records no per-message series yet (the probe's CPU stamps travel in the messages)
    }

    @Override
    public void close() {
        stopped = true;
        for (AutoCloseable c : new AutoCloseable[] {in, out, ingress, egress}) {
            try {
                if (c != null) {
                    c.close();
                }
            } catch (Exception e) {
                // closing anyway
            }
        }
        if (thread != null) {
            thread.close();
        }
    }
}
