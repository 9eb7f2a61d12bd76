# Sourced, after `set -euo pipefail`, by the scripts in benchmarks/scripts (not run on its own): the repository
# root, the msgscope jar's path, the build of what a script needs when it is missing, and the run loop of the
# `run --phases` benchmarks (phase_runs).
#   root  the repository's root folder
#   jar   dist/target/msgscope.jar (a script that takes MSGSCOPE_JAR sets jar="${MSGSCOPE_JAR:-$jar}")
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
jar="$root/dist/target/msgscope.jar"

# missing PATH...: true when one of the files or folders is not there.
missing() {
  local p
  for p in "$@"; do
    [ -e "$p" ] || return 0
  done
  return 1
}

# package [MAVEN_ARGS...]: builds from the root, tests skipped: the whole tree, or with "-pl dist -am" the jar's
# modules only.
package() {
  (cd "$root" && ./mvnw -q -B -DskipTests package "$@")
}

# load1: the 1-minute load average.
load1() {
  cut -d' ' -f1 /proc/loadavg
}

# phase_runs OUT REPEATS PHASES NAME ARGS [NAME ARGS]...: REPEATS rounds of `run --phases PHASES --warmup 10000` on
# $jar, one run per NAME a round in the order given, ARGS its further options (one string, split at spaces). Each run
# goes into OUT/NAME-R (removed first), its console into OUT/NAME-R.log. After each run, one line on stdout:
# "NAME R EXIT LOAD1_BEFORE LOAD1_AFTER" (a failed run too: the caller reads its folder).
phase_runs() {
  local out="$1" repeats="$2" phases="$3" r i d rc before
  shift 3
  local -a systems=("$@") args
  for ((r = 0; r < repeats; r++)); do
    for ((i = 0; i < ${#systems[@]}; i += 2)); do
      read -ra args <<< "${systems[i + 1]}"
      d="$out/${systems[i]}-$r"
      rm -rf "$d"
      before="$(load1)"
      rc=0
      java -jar "$jar" run --phases "$phases" --warmup 10000 --out "$d" "${args[@]}" > "$d.log" 2>&1 || rc=$?
      echo "${systems[i]} $r $rc $before $(load1)"
    done
  done
}

# embedded_kafka OUT: starts the driver's in-process KRaft broker (io.msgscope.driver.kafka.EmbeddedKafka, from
# driver-kafka's test classes and the kafka-tools classpath) on a free port, its console in OUT/broker.log, and sets
# kafka_uri (kafka://127.0.0.1:PORT) and kafka_pid; stop it with `stop_embedded_kafka` (scripts trap it on EXIT).
# Builds what it needs when missing. Exits 1 when the broker does not say "ready" within 60 s. With
# `embedded_kafka OUT SSLPORT CERTDIR` it has an SSL listener too (CERTDIR/server.pem and server.key, PEM).
kafka_pid=""
embedded_kafka() {
  local out="$1" port
  if missing "$root/driver-kafka/target/test-classes"; then package -pl dist -am; fi
  (cd "$root" && ./mvnw -q -B -f benchmarks/scripts/kafka-tools-pom.xml dependency:build-classpath \
    -Dmdep.outputFile="$out/kafka-tools.cp" >/dev/null)
  port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')"
  java -cp "$root/driver-kafka/target/test-classes:$(cat "$out/kafka-tools.cp")" \
    io.msgscope.driver.kafka.EmbeddedKafka "$port" "${@:2}" > "$out/broker.log" 2>&1 &
  kafka_pid=$!
  for _ in $(seq 1 120); do grep -qs "ready" "$out/broker.log" && break; sleep 0.5; done
  grep -q "ready" "$out/broker.log" || { echo "$(basename "$0"): the Kafka broker did not start (see $out/broker.log)" >&2; exit 1; }
  kafka_uri="kafka://127.0.0.1:$port"
}

stop_embedded_kafka() {
  if [ -n "$kafka_pid" ]; then kill "$kafka_pid" 2>/dev/null || true; wait "$kafka_pid" 2>/dev/null || true; fi
}
