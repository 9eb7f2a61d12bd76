#!/usr/bin/env bash
# Issue 31's target for load phases: "a phase boundary moves the rate within 10 ms of its stamp (measured from
# trace.dat)". REPEATS runs of `run --phases` alternating on the relay and on RabbitMQ, each a timeline of a constant
# phase, a step up, a step down, a pause and a ramp. For every phase with messages it reads trace.dat itself (not the
# summary): the first row of the phase (the `phase` column) gives send_ns - intended_ns, how late the rate moved, and
# the rows whose send time lies in the phase's span give the rate achieved against the rate asked; it checks the
# summary's first_send_lag_us and sent_in_span_msg_s against those, and the load average of each run.
# Writes OUT/results.json and OUT/results.md (and every run's folder and log), prints the verdicts.
# Usage: benchmarks/scripts/phases.sh [OUT_DIR] [REPEATS]
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"
out="${1:-$root/results/bench-phases}"
repeats="${2:-5}"
uri="${AMQP_URI:-amqp://guest:guest@127.0.0.1:5672/%2f}"
mkdir -p "$out"
jar="${MSGSCOPE_JAR:-$jar}"  # a copy keeps a rebuild from swapping it mid-run
if missing "$jar"; then package -pl dist -am; fi
phases="base:3s@2k, up:3s@10k, down:3s@2k, pause:1s@0, ramp:5s@2k..20k"
python3 - "$out" "$phases" <(phase_runs "$out" "$repeats" "$phases" relay "" amqp "--driver amqp --uri $uri") <<'PY'
import json, sys
out, PHASES, finished = sys.argv[1:4]

def from_trace_dat(path, summary):
    """Per phase with messages: (lag_us of its first row, rows sent in its span / span)."""
    header = open(path).readline().split()[1:]
    col = {n: i for i, n in enumerate(header)}
    first, sends = {}, []
    with open(path) as f:
        for line in f:
            if line.startswith("#"):
                continue
            c = line.split()
            k = int(c[col["phase"]])
            send, intended = c[col["send_ns"]], c[col["intended_ns"]]
            if send == "NaN":
                continue
            if k not in first:
                first[k] = (float(send), float(intended))
            sends.append(float(send))
    # trace.dat's times are from the run's start; the timeline's origin is phase 0's first intended time
    origin = first[0][1] - summary["phases"][0]["start_s"] * 1e9
    res = {}
    for p in summary["phases"]:
        k = p["index"]
        lo, hi = origin + p["start_s"] * 1e9, origin + p["end_s"] * 1e9
        n = sum(1 for s in sends if lo <= s < hi)
        lag = (first[k][0] - first[k][1]) / 1e3 if k in first else None
        res[k] = {"name": p["name"], "lag_us": lag, "sent_in_span_msg_s": n / (p["end_s"] - p["start_s"]),
                  "asked_msg_s": p["messages_scheduled"] / (p["end_s"] - p["start_s"]),
                  "summary_lag_us": p["first_send_lag_us"], "summary_sent_in_span_msg_s": p["sent_in_span_msg_s"]}
    return res

runs = []
for line in open(finished):  # phase_runs' line as each run ends
    system, r, rc, before, after = line.split()
    r, rc, before, after = int(r), int(rc), float(before), float(after)
    d = f"{out}/{system}-{r}"
    s = json.load(open(f"{d}/summary.json"))
    phases = from_trace_dat(f"{d}/trace.dat", s) if rc == 0 else {}
    runs.append({"system": system, "run": r, "exit": rc, "status": s["status"], "load_before": before,
                 "load_after": after, "phases": phases})
    print(system, r, s["status"], {k: (v["name"], v["lag_us"]) for k, v in phases.items()}, flush=True)

lags = [v["lag_us"] for x in runs for v in x["phases"].values() if v["lag_us"] is not None]
agree = all(abs(v["lag_us"] - v["summary_lag_us"]) < 1 and abs(v["sent_in_span_msg_s"] - v["summary_sent_in_span_msg_s"]) < 1
            for x in runs for v in x["phases"].values() if v["lag_us"] is not None)
rate_err = [abs(v["sent_in_span_msg_s"] / v["asked_msg_s"] - 1) for x in runs for v in x["phases"].values()
            if v["asked_msg_s"] > 0]
verdict = {"boundaries": len(lags), "max_lag_us": max(lags), "boundaries_within_10ms": sum(1 for l in lags if l <= 10_000),
           "summary_agrees_with_trace_dat": agree, "max_rate_error_percent": 100 * max(rate_err),
           "all_ok": all(x["status"] == "ok" for x in runs)}
json.dump({"phases": PHASES, "runs": runs, "verdict": verdict}, open(f"{out}/results.json", "w"), indent=2)
with open(f"{out}/results.md", "w") as md:
    md.write(f"# run --phases \"{PHASES}\"\n\n| system | run | status | load before/after | lag of each phase's first message (us) | sent in span / asked |\n|---|---|---|---|---|---|\n")
    for x in runs:
        lag = ", ".join(f"{v['name']} {v['lag_us']:.0f}" for v in x["phases"].values() if v["lag_us"] is not None)
        rate = ", ".join(f"{v['sent_in_span_msg_s'] / v['asked_msg_s']:.3f}" for v in x["phases"].values() if v["asked_msg_s"] > 0)
        md.write(f"| {x['system']} | {x['run']} | {x['status']} | {x['load_before']:.1f}/{x['load_after']:.1f} | {lag} | {rate} |\n")
    md.write(f"\n{json.dumps(verdict)}\n")
print(json.dumps(verdict))
PY
