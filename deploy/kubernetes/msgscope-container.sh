#!/bin/bash
# msgscope inside the container image (/usr/local/bin/msgscope): the Kubernetes counterpart of the
# repository's ./msgscope launcher. Kubernetes has no ulimit field, so the open-files limit is settled
# here: the soft limit is raised to the hard limit the container runtime gives (the JVM would do the
# same with -XX:+MaxFDLimit; doing it here makes it visible), and when MSGSCOPE_MIN_NOFILE is set and
# the hard limit is below it the container stops with one line saying so, instead of an agent failing
# connection number 1,021 in the middle of a run. See docs/deploy-kubernetes.md, "File descriptors".
set -euo pipefail
jar="${MSGSCOPE_JAR:-/opt/msgscope/msgscope.jar}"
java_cmd="${MSGSCOPE_JAVA:-java}"
min="${MSGSCOPE_MIN_NOFILE:-0}"
if ! [[ "$min" =~ ^[0-9]+$ ]]; then
  echo "msgscope: MSGSCOPE_MIN_NOFILE must be a whole number of files, got '$min'" >&2
  exit 2
fi
hard="$(ulimit -Hn)"
if [ "$hard" != "unlimited" ] && [ "$min" -gt "$hard" ]; then
  echo "msgscope: the open-files hard limit is $hard, below MSGSCOPE_MIN_NOFILE=$min; raise the container" \
       "runtime's nofile limit on this node (docs/deploy-kubernetes.md, 'File descriptors')" >&2
  exit 2
fi
ulimit -Sn "$hard"
if [ "${1:-}" = "agent" ]; then
  echo "msgscope: open files limit $(ulimit -Sn), cpus allowed $(grep -s Cpus_allowed_list /proc/self/status | cut -f2)" >&2
  jit=""                          # agents keep the full JIT: their hot paths run for the whole measurement
else
  jit="-XX:TieredStopAtLevel=1"   # the coordinator analyses once per process (see ./msgscope)
fi
# shellcheck disable=SC2086
exec "$java_cmd" $jit ${MSGSCOPE_JAVA_OPTS:-} -jar "$jar" "$@"
