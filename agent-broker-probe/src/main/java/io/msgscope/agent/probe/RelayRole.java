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
import io.msgscope.proto.Phase;
import io.msgscope.proto.PhaseDone;
import io.msgscope.proto.Ready;
import io.msgscope.proto.Role;
import io.msgscope.proto.RunSpec;

import java.io.IOException;

/**
 * The broker-probe agent in relay mode: the trivial broker of M10, the middle box of M1. It listens
 * on an ingress port (the sender connects) and an egress port (the receiver connects) and forwards
 * whole messages from one to the other on one thread. What forwards is the driver's middle box
 * ({@link Driver#openMiddleBox}): the tcp driver's raw-TCP relay (each read's whole messages in one write,
 * handed to a {@link RelayTap} together first), ZeroMQ's proxy ({@code --opt via=proxy}); the agent knows no
 * driver (issue 15). Same thread, same tap (CPU stamps every Nth message), same counts for all, with the
 * driver's counters and the forwarding thread's CPU time ({@code proxy_cpu_ns}) in the phase answers. The
 * tcp driver's {@code --opt via=direct} runs without it.
 */
public final class RelayRole implements AgentRole {
    private final RelayTap tap;
    private RunSpec spec;
    private RoleThread thread;
    private volatile boolean stopped;
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
        DriverSpec ds = DriverSpecs.of(spec);
        if (!driver.usesRelay(ds.options())) {
            throw new SpecException("--driver", "the " + driver.name() + " driver with these options does not run "
                    + "through the broker-probe agent");
        }
        middle = driver.openMiddleBox(ds, host, spec.getIngressPort(), spec.getEgressPort());
        thread = new RoleThread("msgscope-" + middle.name(), spec.getPinCpu());
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

    @Override
    public void start(Phase phase, PhaseListener listener) {
        if (failure != null) {
            listener.failed(failure);
        } else {
            long n = middle.forwarded();
            long a0 = allocatedAtStart;
            PhaseDone.Builder d = PhaseDone.newBuilder().setPhase(phase).setReceived(n).setSent(n)
                    .setBytes(n * spec.getSize())
                    .setHotThreadAllocatedBytes(a0 < 0 ? -1 : thread.allocatedBytes() - a0);
            d.putAllCounters(middle.counters()).putCounters("proxy_cpu_ns", thread.cpuNs() + middle.helperCpuNs());
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
        for (AutoCloseable c : new AutoCloseable[] {middle}) {
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
