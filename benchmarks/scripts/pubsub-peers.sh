#!/usr/bin/env bash
# Issue 5's peer comparison: msgscope's full-speed 1 -> 1 trace run (`msgscope run`) against a native
# peer on the same loopback broker, side by side, the same message count and size, alternating:
#   MQTT QoS 0/1/2  vs mosquitto_pub -l | mosquitto_sub (Debian mosquitto-clients), the shared Mosquitto;
#                   the default lean engine at MQTT 5 (mqtt-qosN rows, peer at -V mqttv5) and at 3.1.1
#                   (mqtt-qosN-v3 rows, peer at -V mqttv311), and the HiveMQ client (mqtt-qosN-hivemq, MQTT 5)
#   NATS core       vs a plain jnats publish loop + Dispatcher (io.msgscope.bench.peers.PlainNats), and vs a
#                   plain loop on the official Go client (benchmarks/scripts/peers/nats-go, built here in GOPATH
#                   mode from Debian's golang-go and golang-github-nats-io-go-nats-dev, installed if missing)
#   ZeroMQ PUSH/PULL vs a plain JeroMQ loop (io.msgscope.bench.peers.PlainZmq)
#   AMQP 1.0        vs a plain Qpid ProtonJ2 send/receive loop (io.msgscope.bench.peers.PlainProtonJ2) through
#                   RabbitMQ's rabbitmq_amqp1_0 plugin (enabled here if off), unsettled (amqp10) and pre-settled
#                   (amqp10-settled); the peer's /queue/ queue is deleted after each run (rabbitmqctl)
# Both sides report the receive rate the same way: (received - 1) / (last arrival - first arrival);
# the delivered rate: received / (last arrival - first send), i.e. what actually got through per
# second of the whole transfer; and messages lost = sent - received (what the subscriber got, for the
# peers too). A peer that loses messages can show a high receive rate and a low delivered rate.
# The order of the two tools flips every round; each run records the 1-minute load average.
# Writes OUT/results.csv (one row per run), OUT/peers.md (medians, spread, ratios), OUT/results.json.
# Usage: benchmarks/scripts/pubsub-peers.sh [OUT_DIR] [ROUNDS] [COUNT] [WARMUP]
#   env MQTT_URI (tcp://127.0.0.1:1883), NATS_URI (nats://127.0.0.1:4222), AMQP10_URI (amqp://guest:guest@127.0.0.1:5672),
#   SIZE (64), ONLY (e.g. "mqtt-qos1,zmq")
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"
out="${1:-$root/results/bench-peers}"
rounds="${2:-3}"
count="${3:-200000}"
warmup="${4:-50000}"
size="${SIZE:-64}"
mqtt_uri="${MQTT_URI:-tcp://127.0.0.1:1883}"
nats_uri="${NATS_URI:-nats://127.0.0.1:4222}"
amqp10_uri="${AMQP10_URI:-amqp://guest:guest@127.0.0.1:5672}"
if [ -z "${ONLY:-}" ] || [[ "${ONLY}" == *amqp10* ]]; then
  rabbitmq-plugins list -e -m 2>/dev/null | grep -qx rabbitmq_amqp1_0 || rabbitmq-plugins enable rabbitmq_amqp1_0 >/dev/null
fi
command -v mosquitto_pub >/dev/null && command -v mosquitto_sub >/dev/null || {
  echo "pubsub-peers.sh: mosquitto_pub/mosquitto_sub not found (apt-get install mosquitto-clients)" >&2; exit 2; }
mkdir -p "$out"
bench="$root/benchmarks/target/benchmarks.jar"
if missing "$jar" "$bench"; then package; fi
python3 - "$out" "$rounds" "$count" "$warmup" "$size" "$mqtt_uri" "$nats_uri" "$jar" "$bench" "${ONLY:-}" "$root" "$amqp10_uri" <<'PY'
import csv, json, os, re, shutil, signal, statistics, subprocess, sys, time, urllib.parse
out, rounds, count, warmup, size = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
mqtt_uri, nats_uri, jar, bench, only, root = sys.argv[6], sys.argv[7], sys.argv[8], sys.argv[9], sys.argv[10], sys.argv[11]
amqp10_uri = sys.argv[12]
mqtt = urllib.parse.urlparse(mqtt_uri)
mhost, mport = mqtt.hostname, str(mqtt.port or 1883)

def load1():
    return float(open("/proc/loadavg").read().split()[0])

def msgscope(name, driver, uri, opts):
    d = f"{out}/{name}"
    cmd = ["java", "-jar", jar, "run", "--driver", driver, "--count", str(count), "--warmup", str(warmup),
           "--size", str(size), "--out", d] + (["--uri", uri] if uri else [])
    for o in opts:
        cmd += ["--opt", o]
    with open(f"{d}.log", "w") as f:
        subprocess.run(cmd, stdout=f, stderr=subprocess.STDOUT, check=False, timeout=1800)
    s = json.load(open(f"{d}/summary.json"))
    c, t = s["counters"], s["throughput"]
    first_send, last_recv = float("inf"), float("-inf")
    with open(f"{d}/trace.dat") as f:  # seq send_ns recv_ns ...: ns from run start, NaN = lost
        for line in f:
            if line[0] != "#":
                v = line.split(None, 3)
                first_send = min(first_send, float(v[1]))
                if v[2] != "NaN":
                    last_recv = max(last_recv, float(v[2]))
    delivered = c["messages_received"] * 1e9 / (last_recv - first_send) if last_recv > first_send else float("nan")
    return {"sent": c["messages_sent"], "received": c["messages_received"], "lost": c["messages_lost"],
            "send_msg_s": t["send_msg_s"], "receive_msg_s": t["receive_msg_s"], "delivered_msg_s": delivered,
            "status": s["status"],
            "note": "; ".join(w for w in s.get("warnings", []) if w.startswith("warm-up"))
                    + ("" if s["status"] == "ok" else f" failed: {s.get('failure_reason')}")}

def java_peer(name, cls, args):
    log = f"{out}/{name}.log"
    r = subprocess.run(["java", "-cp", bench, cls] + args, capture_output=True, text=True, timeout=1800)
    open(log, "w").write(r.stdout + r.stderr)
    m = dict(kv.split("=") for kv in r.stdout.strip().splitlines()[-1].split())
    return {"sent": int(m["sent"]), "received": int(m["received"]), "lost": int(m["lost"]),
            "send_msg_s": float(m["send_msg_s"]), "receive_msg_s": float(m["receive_msg_s"]),
            "delivered_msg_s": float(m["delivered_msg_s"]), "status": "ok", "note": ""}

def amqp10_peer(name, mode):
    queue = f"msgscope-amqp10-peer-{os.getpid()}-{name}"
    try:
        return java_peer(name, "io.msgscope.bench.peers.PlainProtonJ2",
                         [amqp10_uri, f"/queue/{queue}", str(count), str(warmup), str(size), mode])
    finally:
        subprocess.run(["rabbitmqctl", "delete_queue", queue], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

def go_peer(name):
    """The official NATS Go client in a plain loop (issue 13's native peer for core NATS)."""
    exe = f"{out}/nats-go"
    if not os.path.exists(exe):
        if not os.path.isdir("/usr/share/gocode/src/github.com/nats-io/nats.go") or not shutil.which("go"):
            subprocess.run(["apt-get", "install", "-y", "-qq", "golang-go", "golang-github-nats-io-go-nats-dev"],
                           check=True, stdout=subprocess.DEVNULL)
        gopath = f"{out}/gopath"
        os.makedirs(f"{gopath}/src/natsgo", exist_ok=True)
        shutil.copy(f"{root}/benchmarks/scripts/peers/nats-go/main.go", f"{gopath}/src/natsgo/main.go")
        subprocess.run(["go", "build", "-o", exe, "."], cwd=f"{gopath}/src/natsgo", check=True,
                       env=dict(os.environ, GOPATH=f"{gopath}:/usr/share/gocode", GO111MODULE="off",
                                GOCACHE=f"{out}/gocache"))
    r = subprocess.run([exe, nats_uri, f"peers.{name}", str(count), str(size)], capture_output=True, text=True,
                       timeout=1800)
    open(f"{out}/{name}.log", "w").write(r.stdout + r.stderr)
    j = json.loads(r.stdout.strip().splitlines()[-1])
    return {"sent": j["sent"], "received": j["received"], "lost": j["sent"] - j["received"],
            "send_msg_s": float("nan"), "receive_msg_s": j["rate"], "delivered_msg_s": j["delivered_rate"],
            "status": "ok", "note": f"CPU {j['cpu_ns_per_message']:.0f} ns/msg, both sides"}

def mosquitto(name, qos, version="mqttv5"):
    """mosquitto_pub -l publishes one message per stdin line (64 chars + newline = a 64 B payload);
    mosquitto_sub prints each arrival's time (%U, ns). Loss is what the subscriber never got."""
    topic = f"peers/{name}/{os.getpid()}"
    lines = f"{out}/lines-{size}.txt"
    if not os.path.exists(lines):
        with open(lines, "w") as f:
            f.write(("x" * size + "\n") * count)
    stamps = f"{out}/{name}.stamps"
    with open(stamps, "w") as so:
        sub = subprocess.Popen(["mosquitto_sub", "-h", mhost, "-p", mport, "-V", version, "-q", str(qos),
                                "-t", topic, "-C", str(count), "-F", "%U"], stdout=so, stderr=subprocess.DEVNULL)
    time.sleep(1.0)  # mosquitto_sub has no "subscribed" signal: give it a second to connect and subscribe
    t0 = time.time()
    with open(lines) as fin:
        pub = subprocess.run(["mosquitto_pub", "-h", mhost, "-p", mport, "-V", version, "-q", str(qos),
                              "-t", topic, "-l"], stdin=fin, capture_output=True, text=True, timeout=1800)
    send_s = time.time() - t0
    # drain: stop once the subscriber has all, or its output did not grow for 2 s
    last, quiet = -1, time.time()
    while sub.poll() is None:
        n = os.path.getsize(stamps)
        if n != last:
            last, quiet = n, time.time()
        elif time.time() - quiet > 2.0:
            sub.send_signal(signal.SIGTERM)
            sub.wait(10)
            break
        time.sleep(0.05)
    ts = [float(x) for x in open(stamps).read().split()]
    recv = (len(ts) - 1) / (ts[-1] - ts[0]) if len(ts) > 1 and ts[-1] > ts[0] else float("nan")
    delivered = len(ts) / (ts[-1] - t0) if ts and ts[-1] > t0 else float("nan")
    return {"sent": count, "received": len(ts), "lost": count - len(ts), "send_msg_s": count / send_s,
            "receive_msg_s": recv, "delivered_msg_s": delivered, "status": "ok" if pub.returncode == 0 else f"mosquitto_pub exit {pub.returncode}",
            "note": "send rate from the wall time of mosquitto_pub (connect included)"
                    + (f"; mosquitto_pub: {pub.stderr.strip()[:200]}" if pub.stderr.strip() else "")}

pairs = [
    ("mqtt-qos0", "mosquitto_pub/sub", lambda n: mosquitto(n, 0), lambda n: msgscope(n, "mqtt", mqtt_uri, ["qos=0"])),
    ("mqtt-qos1", "mosquitto_pub/sub", lambda n: mosquitto(n, 1), lambda n: msgscope(n, "mqtt", mqtt_uri, ["qos=1"])),
    ("mqtt-qos2", "mosquitto_pub/sub", lambda n: mosquitto(n, 2), lambda n: msgscope(n, "mqtt", mqtt_uri, ["qos=2"])),
    ("mqtt-qos0-v3", "mosquitto_pub/sub", lambda n: mosquitto(n, 0, "mqttv311"),
     lambda n: msgscope(n, "mqtt", mqtt_uri, ["qos=0", "version=3"])),
    ("mqtt-qos1-v3", "mosquitto_pub/sub", lambda n: mosquitto(n, 1, "mqttv311"),
     lambda n: msgscope(n, "mqtt", mqtt_uri, ["qos=1", "version=3"])),
    ("mqtt-qos2-v3", "mosquitto_pub/sub", lambda n: mosquitto(n, 2, "mqttv311"),
     lambda n: msgscope(n, "mqtt", mqtt_uri, ["qos=2", "version=3"])),
    ("mqtt-qos0-hivemq", "mosquitto_pub/sub", lambda n: mosquitto(n, 0),
     lambda n: msgscope(n, "mqtt", mqtt_uri, ["qos=0", "engine=hivemq"])),
    ("mqtt-qos1-hivemq", "mosquitto_pub/sub", lambda n: mosquitto(n, 1),
     lambda n: msgscope(n, "mqtt", mqtt_uri, ["qos=1", "engine=hivemq"])),
    ("mqtt-qos2-hivemq", "mosquitto_pub/sub", lambda n: mosquitto(n, 2),
     lambda n: msgscope(n, "mqtt", mqtt_uri, ["qos=2", "engine=hivemq"])),
    ("nats-jnats", "plain jnats", lambda n: java_peer(n, "io.msgscope.bench.peers.PlainNats", [nats_uri, str(count), str(warmup), str(size)]),
     lambda n: msgscope(n, "nats", nats_uri, ["engine=jnats"])),
    ("nats-go", "Go nats.go loop", go_peer, lambda n: msgscope(n, "nats", nats_uri, [])),
    ("zmq", "plain JeroMQ", lambda n: java_peer(n, "io.msgscope.bench.peers.PlainZmq", [str(count), str(warmup), str(size)]),
     lambda n: msgscope(n, "zmq", "", [])),
    ("amqp10", "plain ProtonJ2", lambda n: amqp10_peer(n, "unsettled"), lambda n: msgscope(n, "amqp10", amqp10_uri, [])),
    ("amqp10-settled", "plain ProtonJ2", lambda n: amqp10_peer(n, "settled"),
     lambda n: msgscope(n, "amqp10", amqp10_uri, ["settled=true"])),
]
if only:
    pairs = [p for p in pairs if p[0] in only.split(",")]
rows = []
for r in range(1, rounds + 1):
    for setting, peer_name, peer, ours in pairs:
        order = [("peer", peer), ("msgscope", ours)]
        if r % 2 == 0:
            order.reverse()
        for tool, fn in order:
            name = f"{setting}-{tool}-{r}"
            la = load1()
            try:
                res = fn(name)
            except Exception as e:  # a run that breaks is a row with the reason, never a silent gap
                res = {"sent": count, "received": 0, "lost": count, "send_msg_s": float("nan"),
                       "receive_msg_s": float("nan"), "delivered_msg_s": float("nan"), "status": "error",
                       "note": str(e)[:200]}
            row = {"round": r, "setting": setting, "tool": tool if tool == "msgscope" else peer_name, "load1": la, **res}
            rows.append(row)
            print(f"{name:24s} load {la:4.2f}  recv {res['receive_msg_s']:>10,.0f} msg/s  delivered {res['delivered_msg_s']:>10,.0f}"
                  f" msg/s  send {res['send_msg_s']:>10,.0f} msg/s"
                  f"  lost {res['lost']:>7}  {res['status']} {res['note'][:90]}", flush=True)

fields = ["round", "setting", "tool", "load1", "sent", "received", "lost", "send_msg_s", "receive_msg_s", "delivered_msg_s",
          "status", "note"]
with open(f"{out}/results.csv", "w", newline="") as f:
    w = csv.DictWriter(f, fieldnames=fields)
    w.writeheader()
    w.writerows(rows)
json.dump(rows, open(f"{out}/results.json", "w"), indent=2)

def fmt(xs):
    return " / ".join(f"{x:,.0f}" for x in xs)

md = [f"# msgscope vs native peers, 1 -> 1, {size} B, {count:,} measured messages ({warmup:,} warm-up for the Java tools), "
      f"{rounds} alternating rounds", "",
      "receive = (received - 1) / (last - first arrival); delivered = received / (last arrival - first send).", "",
      "| setting | tool | receive msg/s per round | median | spread (max-min)/median | delivered msg/s median | lost per round | load1 per round |",
      "|---|---|---|---|---|---|---|---|"]

def median_of(rs, key):
    v = [x[key] for x in rs if x[key] == x[key]]
    return (statistics.median(v) if v else float("nan")), v

ratios = []
for setting, peer_name, _, _ in pairs:
    med, dmed = {}, {}
    for tool in (peer_name, "msgscope"):
        rs = [x for x in rows if x["setting"] == setting and x["tool"] == tool]
        med[tool], v = median_of(rs, "receive_msg_s")
        dmed[tool], _ = median_of(rs, "delivered_msg_s")
        spread = (max(v) - min(v)) / med[tool] if v and med[tool] else float("nan")
        lost = " / ".join(str(x["lost"]) for x in rs)
        loads = " / ".join("%.2f" % x["load1"] for x in rs)
        md.append(f"| {setting} | {tool} | {fmt([x['receive_msg_s'] for x in rs])} | {med[tool]:,.0f} | {spread:.0%} | "
                  f"{dmed[tool]:,.0f} | {lost} | {loads} |")
    ratios.append((setting, peer_name, med["msgscope"] / med[peer_name] if med[peer_name] else float("nan"),
                   dmed["msgscope"] / dmed[peer_name] if dmed[peer_name] else float("nan")))
target = {"mosquitto_pub/sub": 1.0, "plain jnats": 0.7, "plain JeroMQ": 0.7, "Go nats.go loop": 0.7, "plain ProtonJ2": 0.9}
md += ["", "| setting | ratio msgscope / peer, receive msg/s (medians) | ratio, delivered msg/s (medians) | target | met (receive / delivered) |",
       "|---|---|---|---|---|"]
for setting, peer_name, ratio, dratio in ratios:
    t = target[peer_name]
    md.append(f"| {setting} | {ratio:.2f} | {dratio:.2f} | >= {t} | {'yes' if ratio >= t else 'NO'} / {'yes' if dratio >= t else 'NO'} |")
open(f"{out}/peers.md", "w").write("\n".join(md) + "\n")
print("\n".join(md))
PY
