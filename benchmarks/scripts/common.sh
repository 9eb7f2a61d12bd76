# Sourced, after `set -euo pipefail`, by the scripts in benchmarks/scripts (not run on its own): the repository
# root, the msgscope jar's path, and the build of what a script needs when it is missing.
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
