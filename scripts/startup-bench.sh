#!/usr/bin/env bash
# Measures how fast `./sluice server` gets ready and how much memory it then holds (issue 4; docs/benchmarks.md).
# Usage: scripts/startup-bench.sh [RUNS] [VARIANT...]       e.g. scripts/startup-bench.sh 10 auto off
#   RUNS (default 10) runs of each variant, interleaved. A variant is a value of SLUICE_STARTUP_CACHE (auto, cds,
#   off; default: auto), optionally with ":picocli" (e.g. auto:picocli: the line ends in "--", which sends it through
#   picocli's model instead of the server's quick parse, to measure what that costs). Each run starts `./sluice server --in-memory --controller-port 0 --segment-store-port 0
#   --ready-file F`, takes the time from the start of the launcher until F exists (both listeners accept), the
#   CPU time the process used until then, and VmRSS one second later; then stops it (SIGTERM).
# Before each run it waits (up to 60 s) for the machine to be at least 85% idle over half a second, so that other
# work on a shared machine disturbs the figures less; a run that had to go ahead anyway is marked "busy".
# Prints one line per run and then the medians, min and max per variant.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

runs=${1:-10}
shift || true
variants=("$@")
[ ${#variants[@]} -gt 0 ] || variants=(auto)
tmp=$(mktemp -d)
server_pid=
cleanup() {
  if [ -n "$server_pid" ]; then
    kill "$server_pid" 2>/dev/null || true
  fi
  rm -rf "$tmp"
}
trap cleanup EXIT

idle_percent() { # over the next half second, from /proc/stat
  local u n s i w x y z t1 i1
  read -r _ u n s i w x y z _ </proc/stat
  t1=$((u + n + s + i + w + x + y + z))
  i1=$((i + w))
  sleep 0.5
  read -r _ u n s i w x y z _ </proc/stat
  echo $((100 * (i + w - i1) / (u + n + s + i + w + x + y + z - t1 + 1)))
}

wait_quiet() { # prints "busy" when the machine did not quieten down within 60 s
  local k
  for ((k = 0; k < 120; k++)); do
    [ "$(idle_percent)" -ge 85 ] && return 0
  done
  echo busy
}

./sluice --version >/dev/null # builds the jar and the startup caches first, if needed
for v in "${variants[@]}"; do
  SLUICE_STARTUP_CACHE=${v%%:*} ./sluice --version >/dev/null
done

ticks=$(getconf CLK_TCK)
for ((r = 1; r <= runs; r++)); do
  for v in "${variants[@]}"; do
    note=$(wait_quiet)
    ready="$tmp/ready"
    rm -f "$ready"
    start=$(date +%s%N)
    extra=()
    [[ $v == *:picocli ]] && extra=(--)
    SLUICE_STARTUP_CACHE=${v%%:*} ./sluice server --in-memory --controller-port 0 --segment-store-port 0 \
      --ready-file "$ready" "${extra[@]}" >"$tmp/out" 2>"$tmp/err" &
    server_pid=$!
    while [ ! -f "$ready" ]; do
      if ! kill -0 "$server_pid" 2>/dev/null; then
        echo "startup-bench: the server stopped before it was ready:" >&2
        cat "$tmp/err" >&2
        exit 1
      fi
      sleep 0.005
    done
    end=$(date +%s%N)
    cpu=$(awk -v t="$ticks" '{print int(($14 + $15) * 1000 / t)}' "/proc/$server_pid/stat")
    sleep 1
    rss=$(awk '/^VmRSS:/ {print $2}' "/proc/$server_pid/status")
    kill "$server_pid"
    wait "$server_pid" 2>/dev/null || true
    server_pid=
    echo "$v ready_ms=$(((end - start) / 1000000)) cpu_ms=$cpu rss_kib=$rss $note" | tee -a "$tmp/runs"
  done
done

echo "-- medians over $runs runs (min..max)"
for v in "${variants[@]}"; do
  printf '%s: ' "$v"
  for field in ready_ms cpu_ms rss_kib; do
    grep "^$v " "$tmp/runs" | tr ' ' '\n' | sed -n "s/^$field=//p" | sort -n >"$tmp/values"
    n=$(wc -l <"$tmp/values")
    median=$(awk -v n="$n" '{a[NR] = $1} END {print (n % 2) ? a[(n + 1) / 2] : int((a[n / 2] + a[n / 2 + 1]) / 2)}' "$tmp/values")
    printf '%s=%s (%s..%s)  ' "$field" "$median" "$(head -n 1 "$tmp/values")" "$(tail -n 1 "$tmp/values")"
  done
  echo
done
