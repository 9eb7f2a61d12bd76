package io.msgscope.coordinator.cli;

import io.msgscope.core.RunSpec;
import picocli.CommandLine.IDefaultValueProvider;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.OptionSpec;

import java.util.Locale;

/**
 * The defaults of {@code run}'s (and {@code throughput}'s) spec options, read from {@link RunSpec#DEFAULTS} — so each
 * is written once, in {@code RunSpec.Builder}, and the help, the CLI reference and the spec agree by construction
 * (issue 15: they were written in the builder, again in the command's annotations and a third time in the README).
 * Options this provider does not know keep their own annotation's default.
 */
public final class SpecDefaults implements IDefaultValueProvider {
    @Override
    public String defaultValue(ArgSpec arg) {
        return arg.isOption() ? of(((OptionSpec) arg).longestName()) : null;
    }

    /** The default of a spec option, as the command line spells it; null for any other option. */
    static String of(String option) {
        RunSpec d = RunSpec.DEFAULTS;
        return switch (option) {
            case "--count" -> Long.toString(d.count());
            case "--warmup" -> Long.toString(d.warmupCount());
            case "--size" -> Integer.toString(d.size());
            case "--rate" -> number(d.rate());
            case "--padding" -> d.padding().name().toLowerCase(Locale.ROOT);
            case "--window" -> Integer.toString(d.window());
            case "--drain-timeout" -> Long.toString(d.drainTimeoutMs());
            case "--socket-buffer" -> Integer.toString(d.socketBuffer());
            case "--send-batch" -> Integer.toString(d.sendBatch());
            case "--seed" -> Long.toString(d.seed());
            case "--cpu-every" -> Integer.toString(d.cpuEvery());
            case "--relay-burn-ns" -> Long.toString(d.relayBurnNs());
            default -> null;
        };
    }

    /** A whole number without its ".0" (the help says "0", not "0.0"). */
    private static String number(double v) {
        return v == Math.rint(v) && Math.abs(v) < 1e15 ? Long.toString((long) v) : Double.toString(v);
    }
}
