#!/usr/bin/env bash
# Issue 19's Kafka peer comparison: msgscope's full-speed 1 -> 1 trace run (`msgscope run --driver kafka`) against
# Kafka's own perf tools from the kafka-tools artifact (org.apache.kafka.tools.ProducerPerformance, the class behind
# kafka-producer-perf-test.sh, and ConsumerPerformance, behind kafka-consumer-perf-test.sh), run through java -cp
# from ~/.m2, side by side on one broker, the same count and size, alternating the order every round, the 1-minute
# load average recorded before each run.
#
# The broker: by default a KRaft node in-process in a JVM of its own (the driver's test-jar main class
# io.msgscope.driver.kafka.EmbeddedKafka, on a free port, its log folder removed at the end); KAFKA_URI=kafka://h:p
# uses a broker of yours instead. Both sides use kafka-clients' defaults (acks=all, idempotence, linger 5 ms,
# batch 16 KiB), one partition, a fresh topic per run.
#
# What is compared, the same way on both sides: the delivered rate, received / (last arrival - first send).
#   msgscope: from trace.dat (first send and last arrival on one clock), plus summary.json's receive rate.
#   peer:     ConsumerPerformance is started first on the new topic (and given 3 s to join its group), then
#             ProducerPerformance sends COUNT records of SIZE bytes at full speed (--throughput -1). The first send
#             is taken as the producer's exit minus its own duration (COUNT / its records/sec), which leaves its JVM
#             start out; the last arrival is ConsumerPerformance's end.time. Its producer rate (records/sec, acked)
#             and consumer rate (nMsg.sec) are kept too.
# msgscope sends WARMUP messages first (not counted); the perf tools have no warm-up (their JIT warms in the run).
# Writes OUT/results.csv (one row per run) and OUT/kafka-peers.md (medians, spread, ratio).
# Usage: benchmarks/scripts/kafka-peers.sh [OUT_DIR] [ROUNDS] [COUNT] [WARMUP]   env SIZE (64), KAFKA_URI
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"
out="${1:-$root/results/bench-kafka}"
rounds="${2:-5}"
count="${3:-1000000}"
warmup="${4:-50000}"
size="${SIZE:-64}"
mkdir -p "$out"
if missing "$jar" "$root/driver-kafka/target/test-classes"; then package -pl dist -am; fi
trap stop_embedded_kafka EXIT
uri="${KAFKA_URI:-}"
if [ -z "$uri" ]; then
  embedded_kafka "$out"
  uri="$kafka_uri"
else
  (cd "$root" && ./mvnw -q -B -f benchmarks/scripts/kafka-tools-pom.xml dependency:build-classpath \
    -Dmdep.outputFile="$out/kafka-tools.cp" >/dev/null)
fi
python3 - "$out" "$rounds" "$count" "$warmup" "$size" "$uri" "$jar" "$(cat "$out/kafka-tools.cp")" <<'PY'
import csv, datetime, json, statistics, subprocess, sys, time
out, rounds, count, warmup, size, uri, jar, tools = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), \
    int(sys.argv[4]), int(sys.argv[5]), sys.argv[6], sys.argv[7], sys.argv[8]
bootstrap = uri[len("kafka://"):]

def load1():
    return float(open("/proc/loadavg").read().split()[0])

def tool(cls, *args, timeout=1800):
    return subprocess.run(["java", "-cp", tools, "org.apache.kafka.tools." + cls] + list(args),
                          capture_output=True, text=True, timeout=timeout)

def msgscope(name):
    d = f"{out}/{name}"
    cmd = ["java", "-jar", jar, "run", "--driver", "kafka", "--uri", uri, "--count", str(count),
           "--warmup", str(warmup), "--size", str(size), "--out", d]
    with open(f"{d}.log", "w") as f:
        subprocess.run(cmd, stdout=f, stderr=subprocess.STDOUT, check=False, timeout=1800)
    s = json.load(open(f"{d}/summary.json"))
    first_send, last_recv = float("inf"), float("-inf")
    with open(f"{d}/trace.dat") as f:  # seq send_ns recv_ns ...: ns from the run's start, NaN = lost
        for line in f:
            if line[0] != "#":
                v = line.split(None, 3)
                first_send = min(first_send, float(v[1]))
                if v[2] != "NaN":
                    last_recv = max(last_recv, float(v[2]))
    c = s["counters"]
    return {"received": c["messages_received"], "lost": c["messages_lost"],
            "delivered_msg_s": c["messages_received"] * 1e9 / (last_recv - first_send),
            "producer_msg_s": s["throughput"]["send_msg_s"], "consumer_msg_s": s["throughput"]["receive_msg_s"],
            "status": s["status"]}

def peer(name):
    topic = f"peer-{name}"
    r = tool("TopicCommand", "--bootstrap-server", bootstrap, "--create", "--topic", topic, "--partitions", "1",
             "--replication-factor", "1")
    if r.returncode != 0:
        raise SystemExit(f"cannot create {topic}: {r.stderr}")
    consumer = subprocess.Popen(["java", "-cp", tools, "org.apache.kafka.tools.ConsumerPerformance",
                                 "--bootstrap-server", bootstrap, "--topic", topic, "--messages", str(count),
                                 "--timeout", "120000", "--date-format", "yyyy-MM-dd HH:mm:ss.SSS"],
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    time.sleep(3)  # its JVM start and group join, before anything is sent
    p = tool("ProducerPerformance", "--topic", topic, "--num-records", str(count), "--record-size", str(size),
             "--throughput", "-1", "--producer-props", "bootstrap.servers=" + bootstrap)
    producer_exit = time.time()
    cout, _ = consumer.communicate(timeout=300)
    open(f"{out}/{name}.log", "w").write(p.stdout + p.stderr + cout)
    final = [l for l in p.stdout.splitlines() if l.startswith(f"{count} records sent")][-1]
    producer_rate = float(final.split(",")[1].split()[0])
    row = [l for l in cout.splitlines() if l[:2] == "20"][-1].split(", ")
    end = datetime.datetime.strptime(row[1], "%Y-%m-%d %H:%M:%S.%f").timestamp()
    received = int(row[4])
    first_send = producer_exit - count / producer_rate
    tool("TopicCommand", "--bootstrap-server", bootstrap, "--delete", "--topic", topic)
    return {"received": received, "lost": count - received, "delivered_msg_s": received / (end - first_send),
            "producer_msg_s": producer_rate, "consumer_msg_s": float(row[5]), "status": "ok"}

rows = []
for rnd in range(1, rounds + 1):
    order = [("msgscope", msgscope), ("kafka-perf-test", peer)]
    if rnd % 2 == 0:
        order.reverse()
    for tool_name, fn in order:
        load = load1()
        r = fn(f"{tool_name}-r{rnd}")
        r.update({"round": rnd, "tool": tool_name, "load1": load})
        rows.append(r)
        print(f"round {rnd} {tool_name}: delivered {r['delivered_msg_s']:,.0f} msg/s (producer "
              f"{r['producer_msg_s']:,.0f}, consumer {r['consumer_msg_s']:,.0f}), lost {r['lost']}, load {load}",
              flush=True)

fields = ["round", "tool", "load1", "status", "received", "lost", "delivered_msg_s", "producer_msg_s",
          "consumer_msg_s"]
with open(f"{out}/results.csv", "w", newline="") as f:
    w = csv.DictWriter(f, fieldnames=fields, extrasaction="ignore")
    w.writeheader()
    w.writerows(rows)

def med(tool_name, key):
    return statistics.median(r[key] for r in rows if r["tool"] == tool_name)

def spread(tool_name, key):
    v = [r[key] for r in rows if r["tool"] == tool_name]
    return f"{min(v):,.0f}-{max(v):,.0f}"

with open(f"{out}/kafka-peers.md", "w") as f:
    f.write(f"{count:,} messages of {size} B, {rounds} rounds alternating, broker {uri}\n\n")
    f.write("| tool | delivered msg/s (median) | range | producer msg/s | consumer msg/s | lost | load1 |\n")
    f.write("|---|---|---|---|---|---|---|\n")
    for t in ("msgscope", "kafka-perf-test"):
        f.write(f"| {t} | {med(t, 'delivered_msg_s'):,.0f} | {spread(t, 'delivered_msg_s')} | "
                f"{med(t, 'producer_msg_s'):,.0f} | {med(t, 'consumer_msg_s'):,.0f} | "
                f"{sum(r['lost'] for r in rows if r['tool'] == t)} | "
                f"{', '.join(str(r['load1']) for r in rows if r['tool'] == t)} |\n")
    f.write(f"\nratio msgscope / kafka-perf-test (delivered, medians): "
            f"{med('msgscope', 'delivered_msg_s') / med('kafka-perf-test', 'delivered_msg_s'):.2f}x\n")
print(open(f"{out}/kafka-peers.md").read())
PY
