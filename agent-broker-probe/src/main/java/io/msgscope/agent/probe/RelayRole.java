package io.msgscope.agent.probe;

import io.msgscope.control.AgentRole;
import io.msgscope.control.RoleThread;
import io.msgscope.control.TraceSink;
import io.msgscope.control.DriverSpecs;
import io.msgscope.core.SpecException;
import io.msgscope.core.driver.Driver;
import io.msgscope.core.driver.DriverSpec;
import io.msgscope.core.driver.Drivers;
import io.msgscope.core.driver.MiddleBox;
import io.msgscope.driver.tcp.TcpSockets;
import io.msgscope.proto.Phase;
import io.msgscope.proto.PhaseDone;
import io.msgscope.proto.Ready;
import io.msgscope.proto.Role;
import io.msgscope.proto.RunSpec;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;

/**
 * The broker-probe agent in relay mode: the trivial broker of M10, the middle box of M1. It listens
 * on an ingress port (the sender connects) and an egress port (the receiver connects) and forwards
 * whole messages from one to the other on one thread ({@link RelayForwarder}: each read's whole messages
 * in one write, handed to a {@link RelayTap} together first). Its phase answers report what it forwarded
 * so far. The tcp driver's {@code --opt via=direct} runs without it. For the tcp driver it is the raw-TCP relay;
 * a driver with a middle box of its own (ZeroMQ's proxy, {@code --opt via=proxy}) is run here the same
 * way: same thread, same tap (CPU stamps every Nth message), same counts, plus the driver's counters
 * and the forwarding thread's CPU time ({@code proxy_cpu_ns}) in the phase answers.
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
    private volatile RelayForwarder forwarder;
    private volatile String failure;
    private volatile long allocatedAtStart = -1;
    private MiddleBox middle;

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
        Driver driver = DriverSpecs.driverOf(Drivers.load(), spec);
        if (!driver.name().equals("tcp")) {
            return prepareMiddleBox(driver, host);
        }
        if (!driver.usesRelay(spec.getDriverOptionsMap())) {
            throw new SpecException("--opt via", "direct: the sender connects straight to the receiver, so no relay "
                    + "runs; leave out the relay agent, or use via=relay");
        }
        ingress = TcpSockets.listen(host, spec.getIngressPort(), "--relay-ingress-port");
        egress = TcpSockets.listen(host, spec.getEgressPort(), "--relay-egress-port");
        thread = new RoleThread("msgscope-relay", spec.getPinCpu());
        thread.submit(this::forwardLoop);
        return thread.ready().setRole(Role.RELAY)
                .setIngressPort(((InetSocketAddress) ingress.getLocalAddress()).getPort())
                .setEgressPort(((InetSocketAddress) egress.getLocalAddress()).getPort()).build();
    }

    private Ready prepareMiddleBox(Driver driver, String host) throws Exception {
        DriverSpec ds = DriverSpecs.of(spec);
        if (!driver.usesRelay(ds.options())) {
            throw new SpecException("--driver", "the " + driver.name() + " driver with these options does not run "
                    + "through the broker-probe agent");
        }
        middle = driver.openMiddleBox(ds, host, spec.getIngressPort(), spec.getEgressPort());
        thread = new RoleThread("msgscope-" + driver.name() + "-proxy", spec.getPinCpu());
        final MiddleBox m = middle;
        thread.submit(() -> {
            try {
                final RelayTap t = tap != null ? tap : CpuStampTap.forSpec(spec, m);
                if (t instanceof CpuStampTap stamps) {
                    stamps.warmUp();
                }
                allocatedAtStart = thread.allocatedBytes();
                m.forward(t);
            } catch (IOException | RuntimeException e) {
                if (!stopped) {
                    failure = e.getMessage();
                }
            }
        });
        return thread.ready().setRole(Role.RELAY).setIngressPort(m.ingressPort()).setEgressPort(m.egressPort()).build();
    }

    private void forwardLoop() {
        try {
            out = egress.accept(); // the receiver connects first
            TcpSockets.tune(out, spec.getSocketBuffer(), TcpSockets.noDelay(spec.getDriverOptionsMap()));
            in = ingress.accept();
            TcpSockets.tune(in, spec.getSocketBuffer());
            final RelayTap t = tap != null ? tap : CpuStampTap.forSpec(spec);
            if (t instanceof CpuStampTap stamps) {
                stamps.warmUp();
            }
            final RelayForwarder f = new RelayForwarder(in, out, spec.getSize(), t, TcpSockets.bufferFor(spec.getSize()));
            forwarder = f;
            allocatedAtStart = thread.allocatedBytes();
            while (!stopped && f.forwardOnce()) {
                // one read and one write per pass, as many whole messages as the read completed
            }
        } catch (IOException e) {
            if (!stopped) {
                failure = "relay stopped forwarding after " + forwarded() + " messages: " + e.getMessage();
            }
        }
    }

    private long forwarded() {
        RelayForwarder f = forwarder;
        return f == null ? 0 : f.forwarded();
    }

    @Override
    public void start(Phase phase, PhaseListener listener) {
        if (failure != null) {
            listener.failed(failure);
        } else {
            long n = middle != null ? middle.forwarded() : forwarded();
            long a0 = allocatedAtStart;
            PhaseDone.Builder d = PhaseDone.newBuilder().setPhase(phase).setReceived(n).setSent(n)
                    .setBytes(n * spec.getSize())
                    .setHotThreadAllocatedBytes(a0 < 0 ? -1 : thread.allocatedBytes() - a0);
            if (middle != null) {
                d.putAllCounters(middle.counters()).putCounters("proxy_cpu_ns", thread.cpuNs() + middle.helperCpuNs());
            }
            listener.done(d.build());
        }
    }

    @Override
    public void upload(TraceSink sink) {
        // relay mode records no per-message series yet (the probe's CPU stamps travel in the messages)
    }

    @Override
    public void close() {
        stopped = true;
        for (AutoCloseable c : new AutoCloseable[] {middle, in, out, ingress, egress}) {
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
