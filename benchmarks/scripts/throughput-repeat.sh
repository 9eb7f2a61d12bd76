#!/usr/bin/env bash
# Issue 17's targets for msgscope's throughput mode (docs/statistics.md), for a quiet box:
#   1. REPEATS runs of `throughput --in-flight auto` on the relay and on RabbitMQ, alternating:
#      the final medians within +-10 % of the median of medians, and the knee F within a factor 2
#      (largest / smallest knee <= 2);
#   2. an independent count on RabbitMQ: one long run at a fixed F (the median knee of step 1) while
#      the broker's own counter of bytes it sent on the consumer's connection (`rabbitmqctl
#      list_connections send_oct`) is read twice inside the sampling period; bytes become messages by
#      the AMQP 0-9-1 framing of one delivery (basic.deliver + content header + body frames, with the
#      consumer tag and queue name `rabbitmqctl list_consumers` reports); the tool's rate over its
#      sampling period must be within 2 % of the broker's.
# Writes OUT/results.json and OUT/results.md (and every run's folder and log), prints the verdicts.
# Needs: the built jar (dist/target/msgscope.jar), RabbitMQ on AMQP_URI with rabbitmqctl on PATH
# (sudo is used when plain rabbitmqctl cannot reach the node).
# Usage: benchmarks/scripts/throughput-repeat.sh [OUT_DIR] [REPEATS] [SIZE]
# COUNT=0 skips step 2 (the independent count, ~2 min).
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"
out="${1:-$root/results/bench-throughput-repeat}"
repeats="${2:-5}"
size="${3:-64}"
uri="${AMQP_URI:-amqp://guest:guest@127.0.0.1:5672/%2f}"
mkdir -p "$out"
jar="${MSGSCOPE_JAR:-$jar}"  # a copy keeps a rebuild from swapping it mid-run
if missing "$jar"; then package -pl dist -am; fi
ctl=(rabbitmqctl)
if ! rabbitmqctl -q status >/dev/null 2>&1; then ctl=(sudo -n rabbitmqctl); fi
COUNT="${COUNT:-1}" python3 - "$out" "$repeats" "$size" "$uri" "$jar" "${ctl[@]}" <<'PY'
import json, os, statistics, subprocess, sys, time
out, repeats, size, uri, jar = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5]
with_count = os.environ.get("COUNT", "1") != "0"
ctl = sys.argv[6:]

def load():
    try:
        return float(open("/proc/loadavg").read().split()[0])
    except OSError:
        return None

def throughput(name, args):
    d = f"{out}/{name}"
    cmd = ["java", "-jar", jar, "throughput", "--size", str(size), "--out", d] + args
    t0 = time.time()
    with open(f"{d}.log", "w") as f:
        rc = subprocess.run(cmd, stdout=f, stderr=subprocess.STDOUT).returncode
    s = json.load(open(f"{d}/summary.json"))
    r = s.get("result", {})
    srch = s.get("search", {})
    return {"name": name, "exit": rc, "status": s["status"], "seconds": round(time.time() - t0, 1),
            "load1_after": load(), "in_flight": r.get("in_flight"),
            "median_msg_s": r.get("median_msg_s"), "median_ci95_msg_s": r.get("median_ci95_msg_s"),
            "rate_over_sampling_msg_s": r.get("sampling_period", {}).get("rate_msg_s"),
            "steady": r.get("stationarity", {}).get("steady"),
            "knee": srch.get("knee", {}).get("in_flight"), "peak": srch.get("peak", {}).get("in_flight"),
            "knee_rule": srch.get("knee", {}).get("rule"),
            "crossover": (srch.get("fit") or {}).get("crossover_in_flight"),
            "plateau_msg_s": (srch.get("fit") or {}).get("plateau_msg_s"),
            "drifted": srch.get("drifted"), "probes": srch.get("probes_taken"),
            "latency_p50_us": r.get("latency", {}).get("latency_p50_us"), "warnings": s.get("warnings", [])}

targets = {"relay": [], "amqp": ["--driver", "amqp", "--uri", uri]}
runs = {t: [] for t in targets}
for i in range(1, repeats + 1):
    for t, args in targets.items():
        runs[t].append(throughput(f"{t}-search-{i}", args))
        print(f"{t} #{i}: median {runs[t][-1]['median_msg_s']} at F = {runs[t][-1]['in_flight']} "
              f"(knee {runs[t][-1]['knee']}, peak {runs[t][-1]['peak']}), load1 {runs[t][-1]['load1_after']}",
              flush=True)

def verdicts(rs):
    ok = [r for r in rs if r["median_msg_s"]]
    if not ok:
        return {"runs": len(rs), "usable": 0}
    meds = [r["median_msg_s"] for r in ok]
    mm = statistics.median(meds)
    knees = [r["knee"] for r in ok if r["knee"]]
    crossovers = [r["crossover"] for r in ok if r["crossover"]]
    return {"runs": len(rs), "usable": len(ok), "median_of_medians": mm,
            "largest_deviation_pct": round(100 * max(abs(m - mm) / mm for m in meds), 2),
            "medians_within_10pct": all(abs(m - mm) <= 0.10 * mm for m in meds),
            "knees": knees, "knee_ratio": round(max(knees) / min(knees), 2) if knees else None,
            "knees_within_factor_2": bool(knees) and max(knees) <= 2 * min(knees),
            "crossovers": [round(c, 1) for c in crossovers],
            "crossover_ratio": round(max(crossovers) / min(crossovers), 2) if crossovers else None,
            "fitted_knees": sum(1 for r in ok if (r["knee_rule"] or "").startswith("fitted")),
            "not_steady_runs": sum(1 for r in ok if r["steady"] is False),
            "drifted_searches": sum(1 for r in ok if r["drifted"])}

results = {"repeats": repeats, "size": size, "runs": runs, "verdicts": {t: verdicts(runs[t]) for t in runs}}

# --- 2. the independent count on RabbitMQ ---------------------------------------------------------
def rabbit(*args):
    p = subprocess.run(ctl + ["-q", "--formatter", "json"] + list(args), capture_output=True, text=True, timeout=120)
    return json.loads(p.stdout) if p.returncode == 0 and p.stdout.strip() else None

def read_send_oct():
    """Bytes the broker sent on each connection, and the wall time in the middle of the call."""
    t0 = time.time()
    conns = rabbit("list_connections", "name", "send_oct")
    t1 = time.time()
    return (t0 + t1) / 2, (t1 - t0) / 2, {c["name"]: c["send_oct"] for c in conns or []}

def delivery_bytes(ctag, queue, body):
    # AMQP 0-9-1: frame = 7-byte header + payload + frame-end octet
    method = 4 + (1 + len(ctag)) + 8 + 1 + 1 + (1 + len(queue))  # basic.deliver, exchange "" (default)
    header = 2 + 2 + 8 + 2 + 1                                    # class, weight, body size, flags, delivery-mode
    return (8 + method) + (8 + header) + (8 + body)

def independent_count():
    amqp_knees = [r["knee"] for r in runs["amqp"] if r["knee"]]
    f = int(statistics.median(amqp_knees)) if amqp_knees else 1000
    samples = 8000  # >= 80 s of 10 ms samples: the two counter reads, 55 s apart, fall well inside the sampling period
    d = f"{out}/amqp-count"
    cmd = ["java", "-jar", jar, "throughput", "--size", str(size), "--out", d, "--driver", "amqp", "--uri", uri,
           "--in-flight", str(f), "--samples", str(samples)]
    count = {"in_flight": f, "samples": samples}
    start = time.time()
    with open(f"{d}.log", "w") as log:
        proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT)
        consumers = []
        for _ in range(120):  # the JVMs and agents start (slower on a loaded box), then the consumer appears
            consumers = rabbit("list_consumers", "queue_name", "consumer_tag") or []
            if consumers or proc.poll() is not None:
                break
            time.sleep(1)
        time.sleep(12)  # the session warm-up (>= 3 s and 20,000 messages) and the probe's own warm-up
        a = read_send_oct()
        time.sleep(55)  # each read's time is known to about +-0.3 s (the CLI's start-up): under 1 % of 55 s
        b = read_send_oct()
        proc.wait()
    s = json.load(open(f"{d}/summary.json"))
    r = s.get("result", {})
    per = r.get("sampling_period", {})
    if consumers and a[2] and b[2]:
        c = consumers[0]
        qname = c["queue_name"]["name"] if isinstance(c["queue_name"], dict) else c["queue_name"]
        per_msg = delivery_bytes(c["consumer_tag"], qname, size)
        deltas = {n: b[2][n] - a[2].get(n, 0) for n in b[2]}
        consumer_conn = max(deltas, key=deltas.get)  # the consumer's connection carries the deliveries
        broker_rate = deltas[consumer_conn] / per_msg / (b[0] - a[0])
        tool = per.get("rate_msg_s")
        count.update({"queue": qname, "consumer_tag": c["consumer_tag"], "bytes_per_delivery": per_msg,
                      "reads_after_start_s": [round(a[0] - start, 2), round(b[0] - start, 2)],
                      "read_time_uncertainty_s": round(a[1] + b[1], 3),
                      "rate_uncertainty_pct": round(100 * (a[1] + b[1]) / (b[0] - a[0]), 2),
                      "broker_delivered_msg_s": broker_rate, "tool_rate_over_sampling_msg_s": tool,
                      "tool_median_msg_s": r.get("median_msg_s"),
                      "tool_warmup_ms": r.get("warmup", {}).get("elapsed_ms"), "tool_sampling_ms": per.get("elapsed_ms"),
                      "difference_pct": round(100 * (tool - broker_rate) / broker_rate, 2) if tool else None,
                      "within_2pct": bool(tool) and abs(tool - broker_rate) <= 0.02 * broker_rate})
    else:
        count["error"] = "rabbitmqctl gave no consumers or connections (is rabbitmqctl allowed to reach the node?)"
    return count

count = independent_count() if with_count else {"skipped": "COUNT=0"}
results["independent_count"] = count
results["load1_end"] = load()
json.dump(results, open(f"{out}/results.json", "w"), indent=2)

lines = [f"# msgscope throughput: {repeats} repeats and an independent count ({size} B)", ""]
for t, v in results["verdicts"].items():
    lines.append(f"## {t}")
    for r in runs[t]:
        lines.append(f"- {r['name']}: median {r['median_msg_s'] and round(r['median_msg_s'])} msg/s "
                     f"{r['median_ci95_msg_s'] and [round(x) for x in r['median_ci95_msg_s']]} at F = {r['in_flight']}"
                     f" (knee {r['knee']}, crossover {r['crossover'] and round(r['crossover'], 1)}, peak {r['peak']}, {r['probes']} probes, {r['seconds']} s, "
                     f"steady {r['steady']}, load1 {r['load1_after']})")
    lines.append(f"- medians within +-10 %: **{v.get('medians_within_10pct')}** (largest deviation "
                 f"{v.get('largest_deviation_pct')} %); knees within a factor 2: **{v.get('knees_within_factor_2')}** "
                 f"(ratio {v.get('knee_ratio')}; {v.get('fitted_knees')} read off the fitted curve; its crossovers "
                 f"{v.get('crossovers')}, ratio {v.get('crossover_ratio')}); not steady: {v.get('not_steady_runs')}; drifted searches: "
                 f"{v.get('drifted_searches')}")
    lines.append("")
lines.append("## independent count (RabbitMQ's bytes sent on the consumer connection)")
lines.append("```")
lines.append(json.dumps(count, indent=2))
lines.append("```")
open(f"{out}/results.md", "w").write("\n".join(lines) + "\n")
print("\n".join(lines))
PY
