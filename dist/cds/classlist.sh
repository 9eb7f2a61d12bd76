#!/usr/bin/env bash
# Regenerates dist/cds/classes.lst: the classes msgscope's JVMs load in the runs most made (the coordinator and every
# local agent of a trace run on the relay, AMQP, MQTT and NATS, a throughput search, a scenario, a sweep point, a
# report). dist/pom.xml dumps them, at package, into the class-data sharing archive dist/target/msgscope.jsa, which the
# launcher and the JVMs it starts map instead of loading those classes from the jar (docs/development.md,
# "Start-up time"). A class missing from the list still loads, from the jar; a listed class that no longer exists
# fails ClassDataSharingIT, which says to run this. Needs the shared brokers on loopback and a built jar.
set -euo pipefail
here="$(cd "$(dirname "$0")/../.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
n=0
train() {
  n=$((n + 1))
  # -Xshare:off: a class mapped from an existing archive is listed all the same, but off is the plain case
  MSGSCOPE_NO_REBUILD=1 \
  MSGSCOPE_JAVA_OPTS="-Xshare:off -XX:DumpLoadedClassList=$work/coordinator-$n.lst" \
  MSGSCOPE_AGENT_JAVA_OPTS="-Xshare:off -XX:DumpLoadedClassList=$work/{role}-$n.lst" \
    "$here/msgscope" "$@" --out "$work/run-$n" > "$work/run-$n.log" 2>&1 || {
      echo "classlist.sh: 'msgscope $*' failed:" >&2; tail -5 "$work/run-$n.log" >&2; exit 1; }
}
[ -f "$here/dist/target/msgscope.jar" ] || (cd "$here" && ./mvnw -q -B -DskipTests package)
train run --count 20000 --rate 20000
train run --driver amqp --count 5000 --rate 5000
train run --driver mqtt --count 5000 --rate 5000
train run --driver nats --count 5000 --rate 5000
train throughput --in-flight 100 --samples 20
train scenario --duration 3 --warmup 1
train sweep --sizes 64,1k --count 5000 --rate 5000
MSGSCOPE_NO_REBUILD=1 MSGSCOPE_JAVA_OPTS="-Xshare:off -XX:DumpLoadedClassList=$work/report.lst" \
  "$here/msgscope" report "$work/run-1" > /dev/null
# one line per class: the ids a list gives its classes are its own, so they go; lambda proxies are kept once; the
# classes a JVM generates as it runs (reflection proxies, JFR event handlers, accessors) are not in the jar
cat "$work"/*.lst | grep -v '^#' | sed -E 's/ id: [0-9]+$//' \
  | grep -vE '[$]Proxy[0-9]|/EventHandler[0-9]+_|Generated(Method|Constructor|SerializationConstructor)Accessor' \
  | awk '!seen[$0]++' > "$here/dist/cds/classes.lst"
echo "dist/cds/classes.lst: $(wc -l < "$here/dist/cds/classes.lst") classes from $n runs and a report"
