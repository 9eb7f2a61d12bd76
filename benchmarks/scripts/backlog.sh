#!/usr/bin/env bash
# Issue 31's backlog target: "1,000,000 messages built and drained on RabbitMQ (classic and quorum), JetStream and
# Kafka; the broker-reported depth and the tool's count agree within 1 % of the backlog at each sample, after the drain
# both are 0; nothing lost; time to catch up reported". REPEATS runs of `run --phases` per system: a base phase, a
# million messages sent with the consumers paused (/paused), then a drain while publishing goes on, then until
# drained with publishing stopped (the last read, after the last arrival, is then 0 on both sides). The publishers
# confirm (RabbitMQ: publisher confirms, a window wider than the run so it never holds the sender back; JetStream: its
# publish acks), so a broker read agrees anywhere between confirmed - received less the up to 100 messages RabbitMQ's
# paused consumer holds uncounted (its prefetch) and sent - received (summary.json's broker_view). For each run it
# reads that section and backlog.dat itself: summary's largest disagreement as % of the peak and the widest
# sent - confirmed, the largest |broker - (sent - received)| and |broker - (confirmed - received)| from the file, and
# the last read's counts (0 once drained). Kafka runs on the driver's embedded KRaft broker (started here, stopped at
# the end; KAFKA_URI=kafka://host:port uses a broker of yours, KAFKA_URI=none leaves Kafka out), its broker count the
# consumer group's committed lag, its floor the records the broker acknowledged (acks=all). Writes OUT/results.json and OUT/results.md (and every run's folder and log).
# Usage: benchmarks/scripts/backlog.sh [OUT_DIR] [REPEATS] [BACKLOG]   (BACKLOG default 1m; e.g. 20k to try it)
#        SYSTEMS="kafka jetstream" runs only those of rabbitmq-classic, rabbitmq-quorum, jetstream and kafka.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"
out="${1:-$root/results/bench-backlog}"
repeats="${2:-1}"
backlog="${3:-1m}"
amqp="${AMQP_URI:-amqp://guest:guest@127.0.0.1:5672/%2f}"
nats="${NATS_URI:-nats://127.0.0.1:4222}"
kafka="${KAFKA_URI:-}"
mkdir -p "$out"
trap stop_embedded_kafka EXIT
if [ -z "$kafka" ]; then
  embedded_kafka "$out"
  kafka="$kafka_uri"
fi
jar="${MSGSCOPE_JAR:-$jar}"  # a copy keeps a rebuild from swapping it mid-run
if missing "$jar"; then package -pl dist -am; fi
phases="base:5s@5k, fill:${backlog}msg@50k/paused, drain:30s@5k, settle:1s@0"  # the run ends drained
systems=(rabbitmq-classic "--driver amqp --uri $amqp --opt prefetch=100 --opt confirm=2000000"
         rabbitmq-quorum "--driver amqp --uri $amqp --opt prefetch=100 --opt confirm=2000000 --opt queue_type=quorum"
         jetstream "--driver nats --uri $nats --opt jetstream=true --opt consumer=pull")
if [ "$kafka" != none ]; then systems+=(kafka "--driver kafka --uri $kafka"); fi
if [ -n "${SYSTEMS:-}" ]; then  # e.g. SYSTEMS="kafka jetstream": only those, in the order above
  chosen=()
  for ((i = 0; i < ${#systems[@]}; i += 2)); do
    if [[ " $SYSTEMS " == *" ${systems[i]} "* ]]; then chosen+=("${systems[i]}" "${systems[i+1]}"); fi
  done
  if [ ${#chosen[@]} -eq 0 ]; then echo "backlog.sh: SYSTEMS='$SYSTEMS' names none of: rabbitmq-classic rabbitmq-quorum jetstream kafka" >&2; exit 2; fi
  systems=("${chosen[@]}")
fi
python3 - "$out" "$phases" <(phase_runs "$out" "$repeats" "$phases" "${systems[@]}") <<'PY'
import json, sys
out, PHASES, finished = sys.argv[1:4]

def from_backlog_dat(path, paused_at):
    rows = [l.split() for l in open(path) if not l.startswith("#")]
    rows = [r for r in rows if float(r[0]) >= paused_at]  # the episode's reads, as broker_view's
    sent = max(abs(int(b) - int(t)) for _, b, t, _ in rows)
    acc = None if rows[0][3] == "NaN" else max(abs(int(b) - int(a)) for _, b, _, a in rows)
    return {"reads": len(rows), "max_abs_diff_sent": sent, "max_abs_diff_confirmed": acc,
            "last_broker": int(rows[-1][1]), "last_tool": int(rows[-1][2])}

runs = []
for line in open(finished):  # phase_runs' line as each run ends
    system, r, rc, before, after = line.split()
    r, rc, before, after = int(r), int(rc), float(before), float(after)
    d = f"{out}/{system}-{r}"
    s = json.load(open(f"{d}/summary.json"))
    b = (s.get("backlog") or [{}])[0]
    view = b.get("broker_view")
    dat = from_backlog_dat(f"{d}/backlog.dat", b["paused_at_s"]) if view else None
    run = {"system": system, "run": r, "exit": rc, "status": s["status"], "load_before": before, "load_after": after,
           "lost": s["counters"]["messages_lost"], "peak": b.get("peak_messages"), "drain_s": b.get("drain_s"),
           "drain_msg_s": b.get("drain_msg_s"), "time_to_catch_up_s": b.get("time_to_catch_up_s"),
           "last_arrival_above_bound_s": b.get("last_arrival_above_bound_s"),
           "broker_view": view, "backlog_dat": dat,
           "agree_within_1pct": None if not view else view["max_disagreement_pct_of_peak"] <= 1,
           "both_zero_after": None if not dat else dat["last_broker"] == 0 and dat["last_tool"] == 0}
    runs.append(run)
    print(json.dumps(run), flush=True)

verdict = {"all_ok": all(x["status"] == "ok" and x["lost"] == 0 for x in runs),
           "agree_within_1pct": all(x["agree_within_1pct"] for x in runs if x["agree_within_1pct"] is not None),
           "both_zero_after": all(x["both_zero_after"] for x in runs if x["both_zero_after"] is not None)}
json.dump({"phases": PHASES, "runs": runs, "verdict": verdict}, open(f"{out}/results.json", "w"), indent=2)
with open(f"{out}/results.md", "w") as md:
    md.write(f"# run --phases \"{PHASES}\"\n\n| system | run | status | lost | peak | drain s | drain msg/s | catch-up s "
             "| last above bound s | broker vs tool max % of peak (compared with) | max abs broker vs sent-received / confirmed-received | last read broker/tool | load before/after |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|\n")
    for x in runs:
        v = x["broker_view"]
        pct = (f"{v['max_disagreement_pct_of_peak']:.3f} ({v['compared_with']}, holds {v['consumer_holds_up_to']}, "
               f"unconfirmed up to {v['max_unconfirmed_messages']})") if v else "not read"
        dat = x["backlog_dat"]
        both = f"{dat['max_abs_diff_sent']} / {dat['max_abs_diff_confirmed']}" if dat else "-"
        last = f"{x['backlog_dat']['last_broker']}/{x['backlog_dat']['last_tool']}" if x["backlog_dat"] else "-"
        md.write(f"| {x['system']} | {x['run']} | {x['status']} | {x['lost']} | {x['peak']} | {x['drain_s']} | "
                 f"{x['drain_msg_s']} | {x['time_to_catch_up_s']} | "
                 f"{x['last_arrival_above_bound_s']} | {pct} | {both} | {last} | {x['load_before']:.1f}/{x['load_after']:.1f} |\n")
    md.write(f"\n{json.dumps(verdict)}\n")
print(json.dumps(verdict))
PY
