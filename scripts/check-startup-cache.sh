#!/usr/bin/env bash
# Checks that the launcher's startup caches (see ./sluice) never reach standard output: with the cache in place,
# with an unusable one, and with the dynamic CDS archive that JDK 21-24 get, `./sluice --version` prints exactly its
# version line and `./sluice scope list --json` (no controller there) exactly one JSON error object; and `./sluice
# server`, which has a cache of its own, prints exactly its five lines once ready.
# Run by .ci/run after the launcher smoke test; it needs the jar (./sluice builds it if it is missing).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

failures=0
fail() {
  echo "FAILED: $*" >&2
  failures=$((failures + 1))
}

lines() {
  printf '%s\n' "$1" | wc -l
}

check_stdout() { # label, env assignments...: runs both commands, checks their standard output and status
  local label=$1 out status
  shift
  status=0
  out=$(env "$@" ./sluice --version 2>/dev/null) || status=$?
  if [ "$status" -ne 0 ] || [ "$(lines "$out")" -ne 1 ] || ! [[ $out =~ ^sluice\ .*,\ wire\ version\ [0-9]+$ ]]; then
    fail "[$label] ./sluice --version: status $status, standard output:"$'\n'"$out"
  fi
  status=0
  out=$(env "$@" ./sluice scope list --json --controller tcp://127.0.0.1:1 --timeout 1s 2>/dev/null) || status=$?
  if [ "$status" -ne 1 ] || [ "$(lines "$out")" -ne 1 ] \
      || ! [[ $out =~ ^\{\"error\":\{\"code\":\"[a-z-]+\",\"message\":\".*\"\}\}$ ]]; then
    fail "[$label] ./sluice scope list --json: status $status (1 expected), standard output:"$'\n'"$out"
  fi
}

check_server() { # label, env assignments...: starts the server in memory, stops it once ready, checks its stdout
  local label=$1 out ready pid i
  shift
  ready=$(mktemp -u)
  out=$(mktemp)
  env "$@" ./sluice server --in-memory --controller-port 0 --segment-store-port 0 --ready-file "$ready" \
    >"$out" 2>/dev/null &
  pid=$!
  for ((i = 0; i < 1200; i++)); do # 60 s, a training included
    [ -f "$ready" ] && break
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  kill -TERM "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  if [ ! -f "$ready" ] || [ "$(head -n 1 "$out" | cut -c 1-19)" != "Sluice server ready" ] \
      || [ "$(grep -c . "$out")" -ne 5 ]; then
    fail "[$label] ./sluice server: ready file ${ready}: $([ -f "$ready" ] && echo made || echo missing); standard output:"$'\n'"$(cat "$out")"
  fi
  rm -f "$ready" "$out"
}

check_cache() { # checker (check_stdout or check_server), label, archive, env assignments...
  local check=$1 label=$2 archive=$3
  shift 3
  rm -f "$archive" "$archive.stamp"
  "$check" "$label, first run (trains the cache)" "$@"
  if [ ! -s "$archive" ] || [ "$(cut -d ' ' -f 1 "$archive.stamp" 2>/dev/null)" != ok ]; then
    fail "[$label] no cache after the first run: $archive (stamp: $(cat "$archive.stamp" 2>/dev/null || echo none));" \
      "target/startup-cache.log ends with:"$'\n'"$(tail -n 20 target/startup-cache.log 2>/dev/null)"
    return
  fi
  "$check" "$label, cache in place" "$@"
  cp "$archive" "$archive.good"
  echo "not a cache" >"$archive" # the stamp still says it is fine: the JVM must refuse it without a word
  "$check" "$label, unusable cache" "$@"
  mv -f "$archive.good" "$archive"
}

. scripts/find-jdk.sh
sluice_find_jdk
if [ "$SLUICE_JAVA_FEATURE" -ge 25 ]; then
  check_cache check_stdout "AOT cache, JDK $SLUICE_JAVA_FEATURE" target/sluice.aot
  check_cache check_server "server, AOT cache, JDK $SLUICE_JAVA_FEATURE" target/sluice-server.aot
fi
check_cache check_stdout "dynamic CDS archive, JDK $SLUICE_JAVA_FEATURE" target/sluice.jsa SLUICE_STARTUP_CACHE=cds
check_cache check_server "server, dynamic CDS archive, JDK $SLUICE_JAVA_FEATURE" target/sluice-server.jsa \
  SLUICE_STARTUP_CACHE=cds
check_stdout "no cache" SLUICE_STARTUP_CACHE=off

if [ "$failures" -ne 0 ]; then
  echo "check-startup-cache: $failures check(s) failed" >&2
  exit 1
fi
echo "check-startup-cache: standard output stays clean with and without the startup cache"
