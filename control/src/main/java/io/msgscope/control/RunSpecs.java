package io.msgscope.control;

import io.msgscope.core.Padding;
import io.msgscope.proto.RunSpec;

import java.util.Map;

/**
 * Where the coordinator's specs become the control protocol's {@link RunSpec}, one place for every mode (issue 15:
 * the proto was built field by field in the trace, throughput and scenario runs). Every spec starts from
 * {@link #common}, the fields every role of every mode reads; each mode adds what its roles read and nothing else,
 * because a field a role reads changes what it does (a relay given a count and a CPU period stamps CPU samples). The
 * pinning is left unset (-1): the run sets each role's core.
 */
public final class RunSpecs {
    private RunSpecs() {
    }

    /** The run id, message size and padding, seed, driver, its URI and options, and no pinning. */
    public static RunSpec.Builder common(String runId, String driver, String uri, Map<String, String> options,
                                         int size, Padding padding, long seed) {
        return RunSpec.newBuilder().setRunId(runId).setSize(size).setRandomPadding(padding == Padding.RANDOM)
                .setSeed(seed).setDriver(driver).setUri(uri).putAllDriverOptions(options).setPinCpu(-1);
    }

    /** A trace run (msgscope run): every field of {@code spec}, as the sender, receiver and relay read them. */
    public static RunSpec trace(io.msgscope.core.RunSpec spec, String runId) {
        return common(runId, spec.driver(), spec.uri(), spec.driverOptions(), spec.size(), spec.padding(), spec.seed())
                .setCount(spec.count()).setWarmupCount(spec.warmupCount()).setRate(spec.rate())
                .setDrainTimeoutMs(spec.drainTimeoutMs()).setSocketBuffer(spec.socketBuffer())
                .setSendBatch(spec.sendBatch()).setCpuEvery(spec.cpuEvery()).setRelayBurnNs(spec.relayBurnNs()).build();
    }

    /**
     * A throughput run's flow client and relay: the message and the socket buffer; a count of 1 and no CPU period, so
     * that the relay forwards without stamping (the flow agent sets its own counts per probe).
     */
    public static RunSpec.Builder throughput(io.msgscope.core.RunSpec spec) {
        return common("throughput", spec.driver(), spec.uri(), spec.driverOptions(), spec.size(), spec.padding(),
                spec.seed()).setCount(1).setSocketBuffer(spec.socketBuffer());
    }
}
