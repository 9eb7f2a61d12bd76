#!/usr/bin/env bash
# Issue 13's raw-TCP comparison: sockperf's one-hop throughput test against msgscope's raw TCP at one
# write per message (--send-batch 1), straight to the receiver (--opt via=direct, one hop as sockperf
# measures) and through the relay (the default, two hops), 64 B, alternating, on loopback. sockperf's
# throughput test leaves Nagle's algorithm on (its documented default in that mode; its other tests and
# msgscope set TCP_NODELAY), which lets the kernel coalesce the small sends, so each tool runs both ways
# and the ratios pair like with like:
#   sockperf          sockperf server --tcp + sockperf throughput --tcp -m 64 -t SECONDS (Nagle on, as shipped;
#                     Debian package sockperf)
#   direct-nagle      msgscope run --opt via=direct --opt nodelay=false --send-batch 1   (vs sockperf)
#   sockperf-nodelay  the same sockperf run with --tcp-avoid-nodelay (TCP_NODELAY: one segment per send)
#   direct            msgscope run --opt via=direct --send-batch 1 (TCP_NODELAY, the default; vs sockperf-nodelay)
#   relay             msgscope run --send-batch 1 (two hops, TCP_NODELAY; vs sockperf-nodelay)
# msg/s is the sending rate on both sides (sockperf reports what its client sent per second; msgscope's
# send_msg_s, with receive_msg_s beside it): TCP's flow control holds a sender to what its receiver takes.
# CPU per message, in ns, per side:
#   sockperf   client and server process CPU (user + system, /proc/PID/stat, 10 ms ticks) / messages sent
#   msgscope   the hot threads' CPU from the every-Nth-message samples in trace.dat (each window's % of a
#              core times the window's span, summed, / messages): sender, receiver, and the relay's
#              forwarding thread from its stamps; the agents' other threads (GC, JIT, control) are not in it
# Placement: msgscope pins its sender to core 0 and its receiver to core 1 unless PIN=--no-pin (the relay
# floats); sockperf's client and server are put on the same cores with taskset (SOCKPERF_PIN=match, the
# default when msgscope pins) or left to the scheduler (SOCKPERF_PIN=none; the default with PIN=--no-pin),
# so both tools run with the same placement unless asked otherwise.
# The order of the three rotates every round; each run records the 1-minute load average before it.
# Writes OUT/results.csv (one row per run), OUT/results.md (medians, spread, ratios to sockperf) and
# each run's folder or log. The box is shared: read the ratios with the load averages beside them.
# Usage: benchmarks/scripts/tcp-vs-sockperf.sh [OUT_DIR] [ROUNDS] [COUNT] [SECONDS]
#   ROUNDS (5, at least 5 for a figure worth quoting), COUNT (2000000 msgscope messages), SECONDS (5 s of
#   sockperf); env PORT (sockperf's, default 11111), WARMUP (200000), CPU_EVERY (1000), PIN ("" = msgscope
#   decides; "--no-pin" or "--pin"), SOCKPERF_PIN (match or none, see above), ONLY (e.g. "sockperf,direct"),
#   KEEP_TRACES (1 keeps each run's trace.dat, ~100 MB per 2 M messages; by default it is removed once read)
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"
out="${1:-$root/results/tcp-vs-sockperf}"
rounds="${2:-5}"
count="${3:-2000000}"
seconds="${4:-5}"
command -v sockperf >/dev/null || {
  echo "tcp-vs-sockperf.sh: sockperf not found (apt-get install sockperf)" >&2; exit 2; }
mkdir -p "$out"
if missing "$jar"; then package; fi
python3 - "$out" "$rounds" "$count" "$seconds" "$jar" "${PORT:-11111}" "${WARMUP:-200000}" \
    "${CPU_EVERY:-1000}" "${PIN:-}" "${ONLY:-}" "${SOCKPERF_PIN:-}" "${KEEP_TRACES:-0}" <<'PY'
import csv, json, math, os, re, signal, statistics, subprocess, sys, time
out, rounds, count, seconds, jar = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
port, warmup, cpu_every, pin, only = sys.argv[6], int(sys.argv[7]), int(sys.argv[8]), sys.argv[9], sys.argv[10]
keep_traces = sys.argv[12] == "1"
sockperf_pin = sys.argv[11] or ("none" if pin == "--no-pin" or os.cpu_count() < 2 else "match")
if sockperf_pin not in ("match", "none"):
    sys.exit(f"tcp-vs-sockperf.sh: SOCKPERF_PIN must be match or none, got {sockperf_pin}")
client_cpu = ["taskset", "-c", "0"] if sockperf_pin == "match" else []
server_cpu = ["taskset", "-c", "1"] if sockperf_pin == "match" else []
TICK_NS = 1e9 / os.sysconf("SC_CLK_TCK")
NAN = float("nan")

def load1():
    return float(open("/proc/loadavg").read().split()[0])

def proc_cpu_ns(pid):
    """utime + stime of a process (and its reaped children: none here) in ns, from /proc/PID/stat."""
    f = open(f"/proc/{pid}/stat").read()
    v = f[f.rindex(")") + 2:].split()
    return (int(v[11]) + int(v[12])) * TICK_NS

def sockperf(name, nodelay):
    log = f"{out}/{name}.log"
    server = subprocess.Popen(server_cpu + ["sockperf", "server", "--tcp", "-i", "127.0.0.1", "-p", port],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    text = ""
    try:
        time.sleep(0.5)  # sockperf prints no ready line to wait for; a client that comes too early retries
        s0 = proc_cpu_ns(server.pid)
        for attempt in range(5):
            client = subprocess.Popen(client_cpu + ["sockperf", "throughput", "--tcp", "-i", "127.0.0.1", "-p", port, "-m", "64",
                                       "-t", str(seconds)] + (["--tcp-avoid-nodelay"] if nodelay else []),
                                      stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            text = client.stdout.read()
            _, status, ru = os.wait4(client.pid, 0)  # this child's own CPU, not the server's
            client.returncode = os.waitstatus_to_exitcode(status)
            if "Message Rate" in text:
                break
            time.sleep(0.5)
        s1 = proc_cpu_ns(server.pid)
    finally:
        server.send_signal(signal.SIGINT)
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
    open(log, "w").write(text)
    sent = int(re.search(r"Total of (\d+) messages sent", text).group(1))
    rate = float(re.search(r"Message Rate is (\d+(?:\.\d+)?)", text).group(1))
    return {"msg_s": rate, "receive_msg_s": NAN, "messages": sent,
            "sender_ns": (ru.ru_utime + ru.ru_stime) * 1e9 / sent, "receiver_ns": (s1 - s0) / sent,
            "relay_ns": NAN, "status": "ok", "note": ""}

def thread_cpu_ns(path):
    """Sum over trace.dat rows of each row's window % times the time since the previous row, per side."""
    with open(path) as f:
        header = f.readline()[1:].split()
        col = {c: i for i, c in enumerate(header)}
        want = [c for c in ("cpu_sender_pct", "cpu_receiver_pct", "cpu_broker_pct") if c in col]
        total = dict.fromkeys(want, 0.0)
        prev_send = prev_recv = None
        for line in f:
            if line[0] == "#":
                continue
            v = line.split()
            send, recv = float(v[1]), float(v[2])
            for c in want:
                x = v[col[c]]
                if x == "NaN":
                    continue
                base = prev_send if c == "cpu_sender_pct" else prev_recv
                now = send if c == "cpu_sender_pct" else recv
                if base is not None and not math.isnan(base) and not math.isnan(now):
                    total[c] += float(x) / 100 * (now - base)
            prev_send, prev_recv = send, recv
    return total

def msgscope(name, tool):
    d = f"{out}/{name}"
    cmd = ["java", "-jar", jar, "run", "--count", str(count), "--warmup", str(warmup), "--send-batch", "1",
           "--cpu-every", str(cpu_every), "--plot-envelope-above", "0", "--out", d]
    if tool.startswith("direct"):
        cmd += ["--opt", "via=direct"]
    if tool.endswith("-nagle"):
        cmd += ["--opt", "nodelay=false"]
    if pin:
        cmd.append(pin)
    with open(f"{d}.log", "w") as f:
        subprocess.run(cmd, stdout=f, stderr=subprocess.STDOUT, check=False, timeout=1800)
    s = json.load(open(f"{d}/summary.json"))
    c, t = s["counters"], s["throughput"]
    cpu = thread_cpu_ns(f"{d}/trace.dat")
    if not keep_traces:
        for f in ("trace.dat", "trace-envelope.dat"):
            if os.path.exists(f"{d}/{f}"):
                os.remove(f"{d}/{f}")
    n = max(1, c["messages_received"])
    return {"msg_s": t["send_msg_s"], "receive_msg_s": t["receive_msg_s"], "messages": c["messages_sent"],
            "sender_ns": cpu.get("cpu_sender_pct", NAN) / n, "receiver_ns": cpu.get("cpu_receiver_pct", NAN) / n,
            "relay_ns": cpu.get("cpu_broker_pct", NAN) / n, "status": s["status"],
            "note": "" if s["status"] == "ok" else f"failed: {s.get('failure_reason')}"}

ALL = ("sockperf", "direct-nagle", "sockperf-nodelay", "direct", "relay")
PAIRS = {"direct-nagle": "sockperf", "direct": "sockperf-nodelay", "relay": "sockperf-nodelay"}
tools = [t for t in ALL if not only or t in only.split(",")]
rows = []
for r in range(1, rounds + 1):
    order = tools[(r - 1) % len(tools):] + tools[:(r - 1) % len(tools)]
    for tool in order:
        name = f"round{r}-{tool}"
        load = load1()
        res = sockperf(name, tool.endswith("-nodelay")) if tool.startswith("sockperf") else msgscope(name, tool)
        total = sum(x for x in (res["sender_ns"], res["receiver_ns"], res["relay_ns"]) if not math.isnan(x))
        row = {"round": r, "tool": tool, "load1": load, **res, "total_ns": total}
        rows.append(row)
        print(f"round {r} {tool:16s} {res['msg_s']:>12,.0f} msg/s  sender {res['sender_ns']:7.0f} ns/msg  "
              f"receiver {res['receiver_ns']:7.0f}  relay {res['relay_ns']:7.0f}  load {load:.2f}  {res['note']}",
              flush=True)

fields = ["round", "tool", "msg_s", "receive_msg_s", "messages", "sender_ns", "receiver_ns", "relay_ns", "total_ns",
          "load1", "status", "note"]
with open(f"{out}/results.csv", "w", newline="") as f:
    w = csv.DictWriter(f, fieldnames=fields, extrasaction="ignore")
    w.writeheader()
    w.writerows(rows)

def med(tool, key):
    v = [x[key] for x in rows if x["tool"] == tool and x["status"] == "ok" and not math.isnan(x[key])]
    return (statistics.median(v), min(v), max(v)) if v else (NAN, NAN, NAN)

lines = ["# raw TCP: msgscope against sockperf (64 B, one write per message, loopback)", "",
         f"{rounds} alternating rounds; msgscope {count:,} messages per run, sockperf {seconds} s per run; "
         f"load average (1 min) before the runs: {min(x['load1'] for x in rows):.2f} - {max(x['load1'] for x in rows):.2f}; "
         f"msgscope {pin or 'default pinning'}, sockperf placement {sockperf_pin}",
         "", "| tool | msg/s median (min - max) | sender ns/msg | receiver ns/msg | relay ns/msg | total ns/msg |",
         "|---|---|---|---|---|---|"]
for tool in tools:
    m = med(tool, "msg_s")
    cells = [f"{med(tool, k)[0]:,.0f}" if not math.isnan(med(tool, k)[0]) else "-"
             for k in ("sender_ns", "receiver_ns", "relay_ns", "total_ns")]
    lines.append(f"| {tool} | {m[0]:,.0f} ({m[1]:,.0f} - {m[2]:,.0f}) | " + " | ".join(cells) + " |")
lines.append("")
for tool, peer in PAIRS.items():
    if tool not in tools or peer not in tools:
        continue
    base = med(peer, "msg_s")[0]
    per_round = []
    for r in range(1, rounds + 1):
        a = [x for x in rows if x["round"] == r and x["tool"] == tool and x["status"] == "ok"]
        b = [x for x in rows if x["round"] == r and x["tool"] == peer]
        if a and b and b[0]["msg_s"] > 0:
            per_round.append(a[0]["msg_s"] / b[0]["msg_s"])
    spread = f" (per round {min(per_round):.2f} - {max(per_round):.2f})" if per_round else ""
    cpu = med(tool, "sender_ns")[0] / med(peer, "sender_ns")[0]
    lines.append(f"- {tool} / {peer}: {med(tool, 'msg_s')[0] / base:.2f}x the median rate{spread}; sender CPU per "
                 f"message {cpu:.2f}x" + ("; target >= 0.8x" if tool.startswith("direct") else ""))
lines += ["", "sockperf's CPU: client (sender) and server (receiver) processes; msgscope's: the hot threads only "
          "(samples every Nth message), see the script's header."]
open(f"{out}/results.md", "w").write("\n".join(lines) + "\n")
print("\n".join(lines))
PY
