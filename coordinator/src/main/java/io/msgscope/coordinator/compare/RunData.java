package io.msgscope.coordinator.compare;

import io.msgscope.coordinator.view.SummaryView;

import java.util.List;

/**
 * One run as {@code compare}'s verdicts read it (issue 34): its summary, its throughput samples [msg/s] (a throughput
 * run's samples.dat, a scenario's per-second rate, a trace run's messages per second of send time from its
 * latency.hlog) and its latency intervals (latency.hlog).
 *
 * @param label      the name shown (a folder's name)
 * @param view       its summary.json
 * @param throughput the throughput samples in the order taken [msg/s]
 * @param latency    the latency intervals in time order
 */
public record RunData(String label, SummaryView view, double[] throughput, List<IntervalDist> latency) {
    public RunData {
        throughput = throughput.clone();
        latency = List.copyOf(latency);
    }

    @Override
    public double[] throughput() {
        return throughput.clone();
    }
}
