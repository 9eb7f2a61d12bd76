#!/usr/bin/env bash
# Issue 13's targets (a benchmark, not a timed test): many connections from one box against the shared
# Mosquitto and NATS, and beyond one address's ports against private brokers with a raised fd limit.
#   mqtt|nats-straight-10k  straight-run, 5,000 publishers + 5,000 subscribers at 1 msg/s (MQTT QoS 1)
#   mqtt|nats-fanin-10k     fan-in, 10,000 publishers -> 1 subscriber at 1 msg/s
#   mqtt|nats-straight-50k  straight-run, 25,000 + 25,000 against a private mosquitto / nats-server started
#                           here with ulimit -n 200000, the clients over 4 source addresses 127.0.0.2-5; where
#                           the hard fd limit is below 60,000 this is refused up front (recorded) and
#                           9,000 + 9,000 (mqtt|nats-straight-18k) over the 4 addresses is measured instead
#   nats-cluster-50k        straight-run, 25,000 + 25,000 over a private 3-node NATS cluster (deploy/nats-cluster.sh),
#                           two publishers and two subscribers agent daemons, --opt spread=true, 4 source addresses:
#                           no process past the 20,000 open files the box allows (issue 32); each node's peak
#                           client connections (node_connections_peak) from its monitoring port
#   peer-fleet-2k           npm's mqtt package, 1,000 + 1,000 connections at 10 msg/s QoS 1 in one Node
#                           process, against msgscope's straight-run of the same shape (msgscope-fleet-2k)
# Each case records status, delivery_rate, set-up time, connect-time p50/p99, latency p50/p99, each agent's
# threads and RSS, RSS per connection (against a 5 + 5 run of the same driver: the marginal cost), and CPU
# per delivered message (both agents' process CPU over the measurement / messages received), with the
# 1-minute load average before and after. Writes OUT/results.csv and OUT/scale.md.
# Usage: benchmarks/scripts/scale.sh [OUT_DIR] [DURATION_S]   env ONLY="nats-fanin-10k,..." SKIP_50K=1
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"
out="${1:-$root/results/bench-scale}"
duration="${2:-60}"
mkdir -p "$out"
if missing "$jar"; then package; fi
ulimit -n 200000 2>/dev/null || echo "scale.sh: cannot raise ulimit -n (not root?): the 50k cases will be refused" >&2
python3 - "$out" "$duration" "$jar" "$root" "${ONLY:-}" "${SKIP_50K:-0}" <<'PY'
import csv, json, os, shutil, signal, subprocess, sys, tempfile, threading, time, urllib.request
out, duration, jar, root, only, skip50 = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5], sys.argv[6] == "1"
def load1():
    return float(open("/proc/loadavg").read().split()[0])
def scenario(name, driver, args):
    d = f"{out}/{name}"
    shutil.rmtree(d, ignore_errors=True)
    cmd = ["java", "-jar", jar, "scenario", "--driver", driver, "--out", d] + args
    l0 = load1()
    with open(f"{d}.log", "w") as f:
        subprocess.run(cmd, stdout=f, stderr=subprocess.STDOUT, check=False, timeout=3600)
    l1 = load1()
    if not os.path.exists(f"{d}/summary.json"):  # refused before anything ran (exit 2): the reason is the row
        return {"case": name, "status": "refused", "failure": open(f"{d}.log").read().strip().splitlines()[-1][:300],
                "load1_before": l0, "load1_after": l1}
    s = json.load(open(f"{d}/summary.json"))
    r = s["results"]
    row = {"case": name, "status": s["status"], "failure": s.get("failure_reason") or ""}
    for k in ["connections_opened", "setup_s", "connect_time_p50_us", "connect_time_p99_us", "latency_p50_us",
              "latency_p99_us", "messages_sent", "messages_received", "delivery_rate", "publishers_agent_threads",
              "subscribers_agent_threads", "publishers_agent_rss_kib", "subscribers_agent_rss_kib",
              "publishers_agent_heap_used_kib", "subscribers_agent_heap_used_kib",
              "publishers_agent_cpu_ms", "subscribers_agent_cpu_ms"]:
        row[k] = r.get(k)
    cpu = (r.get("publishers_agent_cpu_ms") or 0) + (r.get("subscribers_agent_cpu_ms") or 0)
    row["cpu_us_per_delivered"] = round(cpu * 1e3 / r["messages_received"], 2) if r.get("messages_received") else None
    row["load1_before"], row["load1_after"] = l0, l1
    return row
rows, baseline = [], {}
def per_connection(row, driver):
    b = baseline.get(driver)
    if not b:
        return
    for role in ["publishers", "subscribers"]:
        n = (row["connections_opened"] or 0) / 2 - 5  # straight-run and fan-in alike: about half each
        for what in ["rss", "heap_used"]:
            v, v0 = row.get(f"{role}_agent_{what}_kib"), b.get(f"{role}_agent_{what}_kib")
            if n > 0 and v and v0:
                row[f"{role}_{what}_kib_per_connection"] = round((v - v0) / n, 1)
def want(name):
    return not only or name in only.split(",")
common = ["--duration", str(duration), "--warmup", "5", "--size", "64"]
for driver, opts in [("mqtt", ["--opt", "qos=1"]), ("nats", [])]:
    baseline[driver] = scenario(f"{driver}-baseline-10", driver, ["--scenario", "straight-run", "--publishers", "5",
                                "--rate", "1"] + common + opts)
    rows.append(baseline[driver])
    for shape, p in [("straight", "5000"), ("fanin", "10000")]:
        name = f"{driver}-{shape}-10k"
        if want(name):
            row = scenario(name, driver, ["--scenario", "straight-run" if shape == "straight" else "fan-in",
                           "--publishers", p, "--rate", "1", "--connect-rate", "2000"] + common + opts)
            if shape == "straight":
                per_connection(row, driver)
            rows.append(row); print(row, flush=True)
def private(kind):
    tmp = tempfile.mkdtemp(prefix="msgscope-scale-")
    if kind == "mqtt":
        conf = f"{tmp}/m.conf"
        open(conf, "w").write("listener 18831 127.0.0.1\nallow_anonymous true\nmax_connections -1\n"
                              "max_queued_messages 100000\n")
        p = subprocess.Popen(["mosquitto", "-c", conf], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        return p, "tcp://127.0.0.1:18831"
    conf = f"{tmp}/n.conf"
    open(conf, "w").write("listen: 127.0.0.1:14223\nmax_connections: 100000\n")
    p = subprocess.Popen(["nats-server", "-c", conf], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return p, "nats://127.0.0.1:14223"
import resource
hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
# 50,000 connections need more than 50,000 open files in the broker and 25,000 in each agent; where the hard
# limit is lower (and cannot be raised: no CAP_SYS_RESOURCE) the run is refused up front, and the largest
# that fits is measured instead: 9,000 + 9,000 over four source addresses
big = 25000 if hard >= 60000 else 9000
if not skip50:
    for driver, opts in [("mqtt", ["--opt", "qos=1"]), ("nats", [])]:
        name = f"{driver}-straight-{2 * big // 1000}k"
        if not want(name) and not want(f"{driver}-straight-50k"):
            continue
        broker, uri = private(driver)
        time.sleep(1)
        try:
            if big < 25000:
                row = scenario(f"{driver}-straight-50k", driver, ["--uri", uri, "--scenario", "straight-run",
                               "--publishers", "25000", "--rate", "1", "--source-addresses",
                               "127.0.0.2,127.0.0.3,127.0.0.4,127.0.0.5"] + common + opts)
                rows.append(row); print(row, flush=True)
            row = scenario(name, driver, ["--uri", uri, "--scenario", "straight-run", "--publishers", str(big),
                           "--rate", "1", "--connect-rate", "2500", "--source-addresses",
                           "127.0.0.2,127.0.0.3,127.0.0.4,127.0.0.5"] + common + opts)
            per_connection(row, driver)
            rows.append(row); print(row, flush=True)
        finally:
            broker.send_signal(signal.SIGTERM); broker.wait(10)
def agent_daemon(role, secret, log):
    """An agent daemon on loopback (its own process: its own file limit); returns (process, port)."""
    a = subprocess.Popen(["java", "-jar", jar, "agent", "--role", role, "--listen", "127.0.0.1:0", "--secret-file",
                          secret], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    first = a.stdout.readline()
    if "listening on 127.0.0.1:" not in first:
        raise SystemExit(f"scale.sh: the {role} agent did not start: {first}")
    threading.Thread(target=lambda: shutil.copyfileobj(a.stdout, open(log, "w")), daemon=True).start()
    return a, int(first.split("listening on 127.0.0.1:")[1].split()[0].rstrip(",.;)"))
def watch_connections(monitors, peaks, stop):
    """Each node's most client connections seen (its /varz), every 2 s until stop is set."""
    while not stop.is_set():
        for i, url in enumerate(monitors):
            try:
                peaks[i] = max(peaks[i], json.load(urllib.request.urlopen(url + "/varz", timeout=2))["connections"])
            except (OSError, ValueError, KeyError):
                pass
        stop.wait(2)
# issue 32: past one server's file limit (20,000 here) by spreading 50,000 connections over a 3-node NATS cluster
# (deploy/nats-cluster.sh), two publishers and two subscribers agent daemons (12,500 connections each, each its own
# process and file limit), --opt spread=true putting each agent's connections on the nodes in turn, four source
# addresses for the ports; each node's peak connection count read from its monitoring port
if want("nats-cluster-50k"):
    cdir = tempfile.mkdtemp(prefix="msgscope-scale-cluster-")
    subprocess.run(["bash", f"{root}/deploy/nats-cluster.sh", "start", cdir, "14622"], check=True,
                   stdout=subprocess.DEVNULL)
    env = dict(l.strip().split("=", 1) for l in open(f"{cdir}/cluster.env") if "=" in l)
    urls = env["NATS_URLS"].strip('"')
    monitors = [env[f"NATS_NODE{i}_MONITOR"].strip('"') for i in (1, 2, 3)]
    secret = f"{cdir}/agents.secret"
    open(secret, "w").write(os.urandom(24).hex())
    os.chmod(secret, 0o600)
    daemons = []
    try:
        agents = []
        for role in ["publishers", "publishers", "subscribers", "subscribers"]:
            proc, port = agent_daemon(role, secret, f"{out}/nats-cluster-50k-agent-{role}-{len(daemons)}.log")
            daemons.append(proc)
            agents += ["--agent", f"{role}=127.0.0.1:{port}"]
        peaks, stop = [0, 0, 0], threading.Event()
        watcher = threading.Thread(target=watch_connections, args=(monitors, peaks, stop), daemon=True)
        watcher.start()
        row = scenario("nats-cluster-50k", "nats", ["--uri", urls, "--opt", "spread=true", "--scenario",
                       "straight-run", "--publishers", "25000", "--rate", "1", "--connect-rate", "2500",
                       "--source-addresses", "127.0.0.2,127.0.0.3,127.0.0.4,127.0.0.5", "--secret-file", secret]
                       + agents + common)
        stop.set(); watcher.join()
        row["node_connections_peak"] = "/".join(map(str, peaks))
        rows.append(row); print(row, flush=True)
    finally:
        for d in daemons:
            d.terminate()
        for d in daemons:
            try:
                d.wait(30)
            except subprocess.TimeoutExpired:
                d.kill()
        subprocess.run(["bash", f"{root}/deploy/nats-cluster.sh", "stop", cdir], stdout=subprocess.DEVNULL)
if want("peer-fleet-2k") and shutil.which("node") and shutil.which("npm"):
    mods = f"{out}/node"
    if not os.path.isdir(f"{mods}/node_modules/mqtt"):
        subprocess.run(["npm", "install", "--silent", "--prefix", mods, "mqtt@5"], check=True)
    for rnd in range(3):  # alternating, msgscope first in even rounds
        for tool in (["msgscope", "peer"] if rnd % 2 == 0 else ["peer", "msgscope"]):
            if tool == "msgscope":
                row = scenario(f"msgscope-fleet-2k-{rnd}", "mqtt", ["--scenario", "straight-run", "--publishers", "1000",
                               "--rate", "10", "--opt", "qos=1", "--opt", "version=3"] + common)
            else:
                l0 = load1()
                env = dict(os.environ, NODE_PATH=f"{mods}/node_modules")
                res = subprocess.run(["node", f"{root}/benchmarks/scripts/peers/mqtt-fleet.js", "mqtt://127.0.0.1:1883",
                                      "1000", "10", str(duration), "5", "1"], capture_output=True, text=True, env=env,
                                     timeout=3600)
                j = json.loads(res.stdout.strip().splitlines()[-1])
                row = {"case": f"peer-fleet-2k-{rnd}", "status": "ok" if j["delivery_rate"] >= 1 else "lost",
                       "connections_opened": j["connections"], "setup_s": j["setup_s"], "messages_sent": j["sent"],
                       "messages_received": j["received"], "delivery_rate": j["delivery_rate"],
                       "cpu_us_per_delivered": round(j["cpu_us_per_delivered"], 2) if j["cpu_us_per_delivered"] else None,
                       "load1_before": l0, "load1_after": load1()}
            rows.append(row); print(row, flush=True)
keys = []
for r in rows:
    for k in r:
        if k not in keys:
            keys.append(k)
with open(f"{out}/results.csv", "w", newline="") as f:
    w = csv.DictWriter(f, fieldnames=keys); w.writeheader(); w.writerows(rows)
with open(f"{out}/scale.md", "w") as f:
    cols = ["case", "status", "connections_opened", "setup_s", "delivery_rate", "latency_p99_us",
            "publishers_agent_threads", "subscribers_agent_threads", "publishers_rss_kib_per_connection",
            "subscribers_rss_kib_per_connection", "publishers_heap_used_kib_per_connection",
            "subscribers_heap_used_kib_per_connection", "cpu_us_per_delivered", "load1_before", "load1_after"]
    f.write("| " + " | ".join(cols) + " |\n|" + "---|" * len(cols) + "\n")
    for r in rows:
        f.write("| " + " | ".join("" if r.get(c) is None else str(round(r[c], 3) if isinstance(r[c], float) else r[c])
                                  for c in cols) + " |\n")
print(open(f"{out}/scale.md").read())
PY
