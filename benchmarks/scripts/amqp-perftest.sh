#!/usr/bin/env bash
# msgscope's flow-controlled throughput mode against RabbitMQ PerfTest 2.22.1, side by side in one
# run on the same broker (issue 4). Alternates the two tools REPEATS times on two settings:
#   A: 1 producer, 1 consumer, 32 B, auto-ack  (PerfTest's usual 16 B is below msgscope's 32-byte header)
#   B: 1 producer, 1 consumer, 1000 B, manual ack, prefetch 100
#   C: 1 producer, 1 consumer, 64 B, a quorum queue, manual ack, prefetch 1000 (issue 19)
#   D: 1 producer, 1 consumer, 64 B, a stream, manual ack, prefetch 1000 (issue 19)
# CASES=C,D (the letters) runs only those. PerfTest's named quorum queues and streams are durable:
# each is deleted after its run (rabbitmqctl delete_queue; sudo when plain rabbitmqctl cannot reach the node).
# and reports: sustained msg/s (PerfTest: receiving rate avg; msgscope: median at the auto-found F),
# client CPU per message (the whole client process's user+system CPU / messages received), and
# latency p50 (PerfTest: unlimited-rate consumer latency median; msgscope: at the found F).
# Usage: benchmarks/scripts/amqp-perftest.sh [OUT_DIR] [REPEATS] [SECONDS]
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"
out="${1:-$root/results/bench-amqp-perftest}"
repeats="${2:-3}"
seconds="${3:-20}"
uri="${AMQP_URI:-amqp://guest:guest@127.0.0.1:5672/%2f}"
mkdir -p "$out"
jar="${MSGSCOPE_JAR:-$jar}"  # a copy keeps a rebuild from swapping it mid-run
if missing "$jar"; then package; fi
(cd "$root" && ./mvnw -q -B -f benchmarks/scripts/perftest-pom.xml dependency:build-classpath \
  -Dmdep.outputFile="$out/perftest.cp")
python3 - "$out" "$repeats" "$seconds" "$uri" "$jar" "$(cat "$out/perftest.cp")" <<'PY'
import json, os, re, resource, statistics, subprocess, sys, time
out, repeats, seconds, uri, jar, cp = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5], sys.argv[6]
ptest_uri = uri.replace("/%2f", "")

def run(cmd, log):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    with open(log, "w") as f:
        subprocess.run(cmd, stdout=f, stderr=subprocess.STDOUT, check=False)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)

def rabbitmqctl(*args):
    for ctl in (["rabbitmqctl"], ["sudo", "-n", "rabbitmqctl"]):
        if subprocess.run(ctl + list(args), capture_output=True).returncode == 0:
            return True
    return False

def perftest(name, size, extra):
    log = f"{out}/{name}.log"
    cpu = run(["java", "-cp", cp, "com.rabbitmq.perf.PerfTest", "-h", ptest_uri, "-x", "1", "-y", "1",
               "-s", str(size), "-z", str(seconds)] + extra, log)
    text = open(log).read()
    rate = float(re.search(r"receiving rate avg: (\d+)", text).group(1))
    lat = re.search(r"consumer latency min/median/75th/95th/99th (\d+)/(\d+)/", text)
    received = rate * seconds
    if "-u" in extra:
        rabbitmqctl("delete_queue", extra[extra.index("-u") + 1])
    return {"msg_s": rate, "p50_us": float(lat.group(2)) if lat else None, "cpu_us_per_msg": cpu * 1e6 / received,
            "load1": os.getloadavg()[0]}

def msgscope(name, size, opts):
    d = f"{out}/{name}"
    cmd = ["java", "-jar", jar, "throughput", "--driver", "amqp", "--uri", uri, "--size", str(size), "--out", d]
    for o in opts:
        cmd += ["--opt", o]
    run(cmd, f"{d}.log")
    s = json.load(open(f"{d}/summary.json"))
    r = s["result"]
    # issue 27: the headline is the rate delivered over the sampling period (comparable with PerfTest's
    # average); the median of the 10 ms windows is kept beside it
    return {"msg_s": r.get("delivered_msg_s", r["sampling_period"]["rate_msg_s"]),
            "window_median_msg_s": r.get("window_median_msg_s", r["median_msg_s"]), "p50_us": r["latency"]["latency_p50_us"],
            "cpu_us_per_msg": r["client_cpu_ns_per_message"] / 1e3, "in_flight": r["in_flight"],
            "search_probes": len(s["probes"]), "load1": os.getloadavg()[0]}

cases = {"A_32B_autoack": (32, ["-a"], ["auto_ack=true"]),
         "B_1000B_ack_prefetch100": (1000, ["-q", "100"], ["prefetch=100"]),
         "C_64B_quorum_prefetch1000": (64, ["-qq", "-u", "perftest-qq", "-q", "1000"],
                                       ["queue_type=quorum", "prefetch=1000"]),
         "D_64B_stream_prefetch1000": (64, ["-sq", "-u", "perftest-sq", "-q", "1000"],
                                       ["queue_type=stream", "prefetch=1000"])}
wanted = [c.strip() for c in os.environ.get("CASES", "").split(",") if c.strip()]
if wanted:
    cases = {k: v for k, v in cases.items() if k.split("_")[0] in wanted}
results = {}
for case, (size, pflags, mopts) in cases.items():
    results[case] = {"perftest": [], "msgscope": []}
    for i in range(1, repeats + 1):
        results[case]["perftest"].append(perftest(f"{case}-perftest-{i}", size, pflags))
        results[case]["msgscope"].append(msgscope(f"{case}-msgscope-{i}", size, mopts))
json.dump(results, open(f"{out}/results.json", "w"), indent=2)
for case, r in results.items():
    med = lambda tool, k: statistics.median(x[k] for x in r[tool] if x[k] is not None)
    print(f"## {case} ({repeats} alternating runs each, load1 at the end {os.getloadavg()[0]:.2f})")
    for tool in ("perftest", "msgscope"):
        print(f"  {tool:9s} msg/s {[round(x['msg_s']) for x in r[tool]]}  p50 us {[x['p50_us'] for x in r[tool]]}"
              f"  CPU us/msg {[round(x['cpu_us_per_msg'], 2) for x in r[tool]]}  load1 {[round(x['load1'], 1) for x in r[tool]]}"
              + (f"  F {[x['in_flight'] for x in r[tool]]}" if tool == "msgscope" else ""))
    print(f"  ratios (medians): throughput msgscope/perftest {med('msgscope','msg_s')/med('perftest','msg_s'):.2f}, "
          f"client CPU per message msgscope/perftest {med('msgscope','cpu_us_per_msg')/med('perftest','cpu_us_per_msg'):.2f}, "
          f"latency p50 msgscope/perftest {med('msgscope','p50_us')/med('perftest','p50_us'):.3f}")
PY
