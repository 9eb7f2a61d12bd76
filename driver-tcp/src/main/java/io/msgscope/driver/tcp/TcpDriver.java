package io.msgscope.driver.tcp;

import io.msgscope.core.SpecException;
import io.msgscope.core.driver.ClientContext;
import io.msgscope.core.driver.Driver;
import io.msgscope.core.driver.DriverSpec;
import io.msgscope.core.driver.Publisher;
import io.msgscope.core.driver.Subscriber;

import java.io.IOException;
import java.util.Map;
import java.util.Set;

/**
 * Raw TCP (M10's lower bound): fixed-size messages back to back on a stream, no framing bytes, since
 * every message of a run has the same size. Two ways (options in {@link TcpOptions}):
 * <ul>
 *   <li>{@code --opt via=relay} (the default): through the built-in relay, the broker-probe agent in relay
 *       mode, M1's three boxes; sender and receiver each open their own connection to it (M5.6), and the
 *       relay stamps its CPU time into every Nth message (D4).</li>
 *   <li>{@code --opt via=direct}: one hop, as sockperf measures. The receiver listens ({@code bind},
 *       default 127.0.0.1; {@code port}, default any free one) and reports {@code host:port} as its
 *       destination ({@code advertise} names the host); the sender connects straight to it. No relay,
 *       no broker, so no broker CPU.</li>
 * </ul>
 * TCP_NODELAY on every socket unless {@code --opt nodelay=false}, which leaves Nagle's algorithm on for the
 * sockets that send messages (sockperf's throughput test does so by default): a throughput comparison
 * setting, since latency then includes Nagle's wait. No scenario support: raw TCP has no topics.
 */
public final class TcpDriver implements Driver {
    @Override
    public String name() {
        return "tcp";
    }

    /** Issue 31: the relay (or a direct connection) keeps no queue, so a paused consumer would only stall the sender. */
    @Override
    public String whyConsumersCannotPause(Map<String, String> options) {
        return "its relay (or direct connection) keeps no queue: a receiver that stops reading only "
                + "fills the socket buffers and stalls the sender";
    }

    @Override
    public Set<String> optionKeys() {
        return TcpOptions.KEYS;
    }

    /** Keys, then every value as {@link TcpOptions} reads it; never listens or connects. */
    @Override
    public void checkOptions(DriverSpec spec) {
        spec.requireKnownOptions(name(), optionKeys());
        TcpOptions.of(spec);
    }

    /** Through the relay unless {@code --opt via=direct}; bad values are refused here first. */
    @Override
    public boolean usesRelay(Map<String, String> options) {
        return !TcpOptions.of(options).direct();
    }

    /**
     * The raw-TCP relay as this driver's middle box, which the broker-probe agent runs (issue 15); refused with
     * {@code --opt via=direct}, where the sender connects straight to the receiver.
     */
    @Override
    public io.msgscope.core.driver.MiddleBox openMiddleBox(DriverSpec spec, String bindHost, int ingressPort,
                                                          int egressPort) throws IOException {
        TcpOptions o = TcpOptions.of(spec);
        if (o.direct()) {
            throw new SpecException("--opt via", "direct: the sender connects straight to the receiver, so no relay "
                    + "runs; leave out the relay agent, or use via=relay");
        }
        return new TcpRelay(bindHost, ingressPort, egressPort, spec.messageSize(), spec.socketBuffer(), o.noDelay());
    }

    /** Through the relay (on loopback), or one hop straight to the receiver's listening socket. */
    @Override
    public String topology(String uriForDisplay, Map<String, String> options, String destination) {
        if (!TcpOptions.of(options).direct()) {
            return "sender -> relay -> receiver (raw TCP, loopback)";
        }
        return "sender -> receiver (raw TCP, one hop" + (destination.isEmpty() ? ""
                : ", receiver listening on " + destination) + ")";
    }

    /** The relay is this driver's own: its forwarding thread is all the middle box there is. */
    @Override
    public String middleBoxCpuSource() {
        return "relay forwarding-thread CPU (ns)";
    }

    /** No broker either way: the relay is msgscope's own middle box, and direct mode has none. */
    @Override
    public String brokerHost(String uri, Map<String, String> options) {
        return null;
    }

    @Override
    public Publisher openPublisher(DriverSpec spec, ClientContext context) throws IOException {
        TcpOptions o = TcpOptions.of(spec);
        if (!o.direct()) {
            return new TcpPublisher(TcpSockets.connect(spec.host(), spec.port(), spec.socketBuffer(), o.noDelay()));
        }
        String dest = spec.destination();
        if (dest.isEmpty()) {
            throw new SpecException("--opt via", "direct: the publisher has no destination; the receiver reports "
                    + "its host:port once it listens");
        }
        TcpSockets.HostPort hp = TcpSockets.HostPort.parse(dest);
        return new TcpPublisher(TcpSockets.connect(hp.host(), hp.port(), spec.socketBuffer(), o.noDelay()));
    }

    @Override
    public Subscriber openSubscriber(DriverSpec spec, ClientContext context) throws IOException {
        TcpOptions o = TcpOptions.of(spec);
        if (!o.direct()) {
            return new TcpSubscriber(TcpSockets.connect(spec.host(), spec.port(), spec.socketBuffer()),
                    spec.messageSize());
        }
        return TcpSubscriber.listen(o, spec.messageSize(), spec.socketBuffer());
    }
}
