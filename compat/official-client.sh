#!/usr/bin/env bash
# Runs the OFFICIAL Pravega 0.13.0 Java client driver (compat/official-client/, io.pravega:pravega-client:0.13.0)
# in its own JVM with its own class path, against any controller: Sluice's compat tests use it to check that the
# official client works against a server, benchmarks to compare it with Sluice's client. See compat/README.md.
#
#   compat/official-client.sh verify [options]   functional check: events, txn, kvt, bytestream, synchronizer
#   compat/official-client.sh bench [options]    throughput and awaited-write latency (the `sluice bench` workload)
#                                                (--kvt: key-value table puts, gets, batches, as `sluice bench --kvt`;
#                                                --writers W > 1: W writers, one routing key and thread each, as
#                                                `sluice bench --writers W`; reports setup times, heap and threads)
#   compat/official-client.sh route [options]    one event per routing key of --keys-file to an existing stream
#   compat/official-client.sh txn-interop [options]  --action write|read: transactions on an existing stream
#   compat/official-client.sh watermarks --role write|read [options]   noteTime / getCurrentTimeWindow on a stream
#   compat/official-client.sh large-events --role write|read [options]
#                                                large events (> 8 MiB) written to / read from an existing stream
#   compat/official-client.sh bytestream-interop --role write|read [options]
#                                                raw bytes written (then sealed) / read on an existing byte stream
#   compat/official-client.sh kvt-interop --role write|read [options]
#                                                entries and versions written / read (+ conditional puts) on an
#                                                existing key-value table (--stream is the table)
#   compat/official-client.sh batch-read [options]  the official BatchClientFactory reads every segment of an
#                                                existing stream (all ranges at once); reports the events
#   compat/official-client.sh sync-interop --role write|read [options]
#                                                StateSynchronizer state and RevisionedStreamClient values written /
#                                                read on existing one-segment streams S/T and S/T-rev
#   compat/official-client.sh autoscale [options]  writes over the target to an existing auto-scaled stream until
#                                                the server splits it, then --events more rounds of 16 keys
#   compat/official-client.sh retention [options]  a MANUAL_RELEASE_AT_USER_STREAMCUT group reads --events events
#                                                of an existing stream, releases them (updateRetentionStreamCut)
#                                                and reports whether the head moved within 15 s
#   compat/official-client.sh build              compiles the driver and resolves its class path (cached)
#   compat/official-client.sh help               the driver's options
#
# Options (see `help`): --controller tcp://127.0.0.1:9090 --scope S --stream S --events N --size B --segments K
#   --readers R --timeout-seconds T --latency-samples L --warmup-events W --parts a,b --keep --keys-file F
#   --action write|read --transactions T --txn-events N --kvt --kvt-concurrency C --kvt-batch B --writers W
#   --connection-pooling --latency-thread platform|virtual
# stdout: ONE JSON line; logs on stderr. Exit 0 only if every check passed (1 failed, 2 usage, 3 timed out).
#
# The first use compiles with the project's scripts/mvn (Maven Central must be reachable) and caches the result
# under compat/target/ (keyed by the SHA-256 of the driver's pom and sources); later runs start the JVM at once.
#
# Environment (all optional):
#   SLUICE_COMPAT_JAVA_HOME     the JDK to run the driver with (default: a JDK 17, else the newest JDK >= 17)
#   SLUICE_OFFICIAL_XMX         heap of the driver JVM (default 1g)
#   SLUICE_OFFICIAL_JAVA_OPTS   extra JVM options, e.g. -Dorg.slf4j.simpleLogger.defaultLogLevel=info
#   SLUICE_COMPAT_DIR           state directory (default compat/target)
#   SLUICE_COMPAT_MAVEN_ARGS    extra Maven arguments for the build (e.g. -Dmaven.repo.local=...)
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/.." && pwd)
# shellcheck source=../scripts/find-jdk.sh
. "$repo/scripts/find-jdk.sh"

MAIN_CLASS=io.sluice.compat.official.Driver
src="$here/official-client"
pom="$src/pom.xml"
state=${SLUICE_COMPAT_DIR:-$here/target}
build="$state/official-client"          # Maven's build directory (the pom puts it there)
classes="$build/classes"
cpfile="$state/official-client-classpath.txt"
keyfile="$state/official-client.key"
lockfile="$state/official-client.lock"

say() { echo "official-client: $*" >&2; }
die() { say "$*"; exit 2; }

now_ms() { date +%s%3N; }
elapsed() { # seconds since $1 (ms), one decimal
  local d=$(( $(now_ms) - $1 ))
  printf '%d.%d' $((d / 1000)) $(((d % 1000) / 100))
}

# ---------------------------------------------------------------- JDK

find_driver_java() {
  # The driver is compiled for Java 17 (what Pravega 0.13 was released and tested on); prefer a JDK 17, otherwise
  # take the newest JDK >= 17.
  if ! sluice_find_compat_java 17; then
    [ -z "${SLUICE_COMPAT_JAVA_HOME:-}" ] || die "SLUICE_COMPAT_JAVA_HOME=$SLUICE_COMPAT_JAVA_HOME has no bin/java"
    die "no JDK 17 or newer found to run the official client (looked at JAVA_HOME, /usr/lib/jvm/*, java on PATH); set SLUICE_COMPAT_JAVA_HOME"
  fi
  DRIVER_JAVA="$SLUICE_COMPAT_JAVA"
}

# ---------------------------------------------------------------- build

source_key() { # SHA-256 over the pom and every source file (names and contents)
  (cd "$src" && find pom.xml src -type f -print0 | sort -z | xargs -0 sha256sum) | sha256sum | cut -d' ' -f1
}

build_valid() {
  local jar
  [ -s "$cpfile" ] && [ -f "$keyfile" ] && [ -f "$classes/io/sluice/compat/official/Driver.class" ] || return 1
  [ "$(cat "$keyfile")" = "$(source_key)" ] || return 1
  IFS=: read -r -a jars <"$cpfile" || true  # the file has no final newline
  [ "${#jars[@]}" -gt 10 ] || return 1
  for jar in "${jars[@]}"; do
    [ -f "$jar" ] || return 1
  done
}

do_build() {
  local t0 log="$state/official-client-build.log"
  t0=$(now_ms)
  say "building the driver against io.pravega:pravega-client:0.13.0 (first time: ~34 MB of jars from Maven Central)..."
  rm -f "$cpfile" "$keyfile"
  # shellcheck disable=SC2086
  if ! "$repo/scripts/mvn" -B -q -f "$pom" ${SLUICE_COMPAT_MAVEN_ARGS:-} "-Dsluice.compat.dir=$state" \
      clean compile dependency:build-classpath \
      -Dmdep.includeScope=runtime "-Dmdep.outputFile=$cpfile" >"$log" 2>&1; then
    say "build failed; the last lines of $log:"
    tail -n 40 "$log" >&2
    exit 1
  fi
  IFS=: read -r -a jars <"$cpfile" || true
  source_key >"$keyfile"
  say "built in $(elapsed "$t0") s: ${#jars[@]} jars (class path cached in $cpfile)"
}

ensure_built() {
  mkdir -p "$state"
  build_valid && return 0
  # One build at a time (e.g. two test JVMs); the second finds the first one's result.
  if command -v flock >/dev/null 2>&1; then
    exec 9>"$lockfile"
    flock 9
    build_valid || do_build
    flock -u 9
    exec 9>&-
  else
    do_build
  fi
}

# ---------------------------------------------------------------- run

run_driver() {
  ensure_built
  find_driver_java
  local v opts
  v=$(sluice_java_feature "$DRIVER_JAVA")
  opts=("-Xmx${SLUICE_OFFICIAL_XMX:-1g}" -Djava.net.preferIPv4Stack=true)
  # the same huge pages for the heap as ./sluice gives Sluice's JVMs, so that benchmarks compare the clients
  # shellcheck disable=SC2207
  opts+=($(sluice_huge_pages_option))
  if [ "$v" -ge 24 ]; then
    opts+=(--sun-misc-unsafe-memory-access=allow --enable-native-access=ALL-UNNAMED)
  fi
  # shellcheck disable=SC2206
  opts+=(${SLUICE_OFFICIAL_JAVA_OPTS:-})
  # The class path goes through a java @argfile: short, readable command line.
  local args="$state/official-client.args"
  printf -- '-cp "%s:%s"\n' "$classes" "$(cat "$cpfile")" >"$args.$$"
  mv -f "$args.$$" "$args"
  say "running $MAIN_CLASS $* with $DRIVER_JAVA (Java $v)"
  # exec: the caller's process IS the driver JVM (a test that destroys it destroys the JVM)
  exec "$DRIVER_JAVA" "${opts[@]}" "@$args" "$MAIN_CLASS" "$@"
}

case "${1:-}" in
  verify|bench|route|txn-interop|watermarks|large-events|bytestream-interop|kvt-interop|batch-read|sync-interop|autoscale|retention) run_driver "$@" ;;
  build) ensure_built; say "class path: $cpfile, classes: $classes" ;;
  help|-h|--help)
    sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'
    echo
    ensure_built
    find_driver_java
    exec "$DRIVER_JAVA" -cp "$classes:$(cat "$cpfile")" "$MAIN_CLASS" --help ;;
  *) say "usage: $0 verify|bench|route|txn-interop|watermarks|large-events|bytestream-interop|kvt-interop|batch-read|sync-interop|autoscale|retention [options] | build | help"; exit 2 ;;
esac
