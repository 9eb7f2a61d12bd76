#!/usr/bin/env bash
# Issue 16's soak: RUNS consecutive trace runs on the same three agent daemons (sender, relay, receiver on
# loopback), some of them made to fail on purpose, while each daemon's open file descriptors, threads and
# resident memory are read from /proc after every run, and every 10th run the heap each daemon still uses
# after a full collection (jcmd GC.run, then GC.heap_info). A daemon that leaks grows in one of them; the
# verdict compares the last tenth of the runs with the second tenth (the first warms up: drivers' shared
# event loops are made on first use):
#   fds and threads: the same (a difference of at most 2 is allowed for a connection closing late),
#   heap after a full GC: at most 10 % or 8 MiB above, whichever is more (one leaked 20,000-message trace is
#   ~300 KiB a run, 60 MiB over 200 runs). RSS is reported, not judged: it follows the heap up to -Xmx
#   until the collector runs, and the JVM seldom gives memory back.
# Every 10th run points the MQTT driver at a closed port and every 10th + 5 the NATS driver (sender and
# receiver daemons only: broker drivers use no relay), so runs that fail at set-up go through the same
# daemons too.
# Writes OUT/soak.dat (one row per run: run, exit code, and per daemon fds threads rss_kib), OUT/results.md
# and OUT/results.json, prints the verdicts; exit 1 when a daemon grew or died.
# Usage: benchmarks/scripts/soak.sh [OUT_DIR] [RUNS] [COUNT]
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"
out="${1:-$root/results/bench-soak}"
runs="${2:-200}"
count="${3:-20000}"
mkdir -p "$out"
jar="${MSGSCOPE_JAR:-$jar}"  # a copy keeps a rebuild from swapping it mid-run
if missing "$jar"; then package -pl dist -am; fi
python3 - "$out" "$runs" "$count" "$jar" <<'PY'
import json, os, re, signal, statistics, subprocess, sys, time
out, runs, count, jar = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
roles = ["sender", "relay", "receiver"]
daemons, ports = {}, {}
for r in roles:
    log = open(f"{out}/agent-{r}.log", "w")
    p = subprocess.Popen(["java", "-Xmx512m", "-jar", jar, "agent", "--role", r, "--listen", "127.0.0.1:0"],
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    m, line = None, ""
    while not m:
        line = p.stdout.readline()
        if not line:
            sys.exit(f"soak: the {r} agent exited before it listened; see {out}/agent-{r}.log")
        log.write(line)
        m = re.search(r"listening on [^\s]+:(\d+)", line)
    daemons[r], ports[r] = p, int(m.group(1))
    # keep draining its output into the log so the daemon never blocks on a full pipe
    import threading
    threading.Thread(target=lambda p=p, log=log: [log.write(l) or log.flush() for l in p.stdout], daemon=True).start()

def proc(pid):
    try:
        fds = len(os.listdir(f"/proc/{pid}/fd"))
        st = open(f"/proc/{pid}/status").read()
        threads = int(re.search(r"Threads:\s+(\d+)", st).group(1))
        rss = int(re.search(r"VmRSS:\s+(\d+)", st).group(1))
        return fds, threads, rss
    except (FileNotFoundError, ProcessLookupError):
        return None

def heap_after_gc(pid):
    subprocess.run(["jcmd", str(pid), "GC.run"], capture_output=True, timeout=60)
    info = subprocess.run(["jcmd", str(pid), "GC.heap_info"], capture_output=True, text=True, timeout=60).stdout
    m = re.search(r"used (\d+)K", info)
    return int(m.group(1)) if m else -1

agents = [a for r in roles for a in ("--agent", f"{r}=127.0.0.1:{ports[r]}")]
rows, codes, loads, heaps = [], {}, [], []
t0 = time.time()
try:
    with open(f"{out}/soak.dat", "w") as dat:
        dat.write("# run exit " + " ".join(f"{r}_fds {r}_threads {r}_rss_kib" for r in roles) + "\n")
        for i in range(1, runs + 1):
            args = agents
            if i % 10 in (0, 5):  # nothing listens on port 1: the daemons' clients fail to connect, exit 1
                args = [a for a in agents if not a.startswith("relay=") and a != "--agent"]
                args = [x for a in args for x in ("--agent", a)]
                args += ["--driver", "mqtt", "--uri", "tcp://127.0.0.1:1"] if i % 10 == 0 else \
                        ["--driver", "nats", "--uri", "nats://127.0.0.1:1"]
            d = f"{out}/run-{i:04d}"
            with open(f"{d}.log", "w") as f:
                rc = subprocess.run(["java", "-jar", jar, "run", "--count", str(count), "--warmup", "5000",
                                     "--out", d] + args, stdout=f, stderr=subprocess.STDOUT,
                                    timeout=600).returncode
            codes[rc] = codes.get(rc, 0) + 1
            time.sleep(0.5)  # let the daemons finish closing the run's sockets
            figures = [proc(daemons[r].pid) for r in roles]
            if any(f is None for f in figures):
                dead = [r for r, f in zip(roles, figures) if f is None]
                sys.exit(f"soak: the {', '.join(dead)} agent died after run {i}; see {out}/agent-*.log")
            rows.append(figures)
            if i % 10 == 0:
                heaps.append((i, [heap_after_gc(daemons[r].pid) for r in roles]))
            loads.append(float(open("/proc/loadavg").read().split()[0]))
            dat.write(f"{i} {rc} " + " ".join(f"{a} {b} {c}" for a, b, c in figures) + "\n")
            dat.flush()
            if i % 20 == 0:
                print(f"run {i}/{runs}: exit codes {codes}; " + "; ".join(
                    f"{r} fds {f[0]} threads {f[1]} rss {f[2] // 1024} MiB" for r, f in zip(roles, figures)), flush=True)
finally:
    for p in daemons.values():
        p.send_signal(signal.SIGTERM)
    for p in daemons.values():
        try:
            p.wait(10)
        except subprocess.TimeoutExpired:
            p.kill()

tenth = max(1, runs // 10)
first, last = rows[tenth:2 * tenth], rows[-tenth:]
result = {"heap_after_gc_kib": heaps, "runs": runs, "count": count, "exit_codes": codes, "minutes": round((time.time() - t0) / 60, 1),
          "load_min": min(loads), "load_max": max(loads), "daemons": {}}
ok = True
lines = [f"| daemon | fds first / last | threads first / last | heap after GC MiB first / last | RSS MiB first / last | verdict |",
         "|---|---|---|---|---|---|"]
h_first = [h for i, h in heaps if tenth < i <= 2 * tenth] or [h for _, h in heaps[:1]]
h_last = [h for i, h in heaps if i > runs - tenth] or [h for _, h in heaps[-1:]]
for k, r in enumerate(roles):
    med = lambda rs, j: statistics.median(x[k][j] for x in rs)
    f0, f1, t0_, t1, r0, r1 = med(first, 0), med(last, 0), med(first, 1), med(last, 1), med(first, 2), med(last, 2)
    g0 = statistics.median(h[k] for h in h_first) if h_first else -1
    g1 = statistics.median(h[k] for h in h_last) if h_last else -1
    grew = [w for w, bad in (("fds", f1 - f0 > 2), ("threads", t1 - t0_ > 2),
                             ("heap", g0 > 0 and g1 > max(1.10 * g0, g0 + 8 * 1024))) if bad]
    ok = ok and not grew
    result["daemons"][r] = {"fds": [f0, f1], "threads": [t0_, t1], "heap_after_gc_kib": [g0, g1],
                            "rss_kib": [r0, r1], "grew": grew}
    lines.append(f"| {r} | {f0:.0f} / {f1:.0f} | {t0_:.0f} / {t1:.0f} | {g0 / 1024:.1f} / {g1 / 1024:.1f} | {r0 / 1024:.0f} / {r1 / 1024:.0f} | "
                 + ("flat" if not grew else "**grew: " + ", ".join(grew) + "**") + " |")
result["verdict"] = "flat" if ok else "grew"
json.dump(result, open(f"{out}/results.json", "w"), indent=2)
md = (f"{runs} runs of {count} messages on the same daemons, {result['minutes']} min, exit codes {codes}, "
      f"load {result['load_min']:.1f}–{result['load_max']:.1f}; medians of runs {tenth + 1}–{2 * tenth} against the last {tenth}:\n\n"
      + "\n".join(lines) + "\n")
open(f"{out}/results.md", "w").write(md)
print(md)
sys.exit(0 if ok else 1)
PY
