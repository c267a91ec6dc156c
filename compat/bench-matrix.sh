#!/usr/bin/env bash
# The benchmark matrix of docs/benchmarks.md, in one sitting: Sluice's client (`./sluice bench`) and the official
# Pravega 0.13 client (`compat/official-client.sh bench`) with the same workload against
#   sluice-mem    ./sluice server --in-memory
#   sluice-fsync  ./sluice server --data-dir DIR (fsync before every acknowledgement, the default)
#   pravega       the real Pravega 0.13 standalone (compat/pravega-standalone.sh; it keeps data in memory)
# and, per server, the time from start to ready and the resident memory once idle.
#
#   compat/bench-matrix.sh [--profile events-100b|events-10k|latency|scale-writers|scale-segments|scale-readers]
#                          [--events N] [--size B] [--segments K] [--readers R] [--latency-samples L] [--writers W]
#                          [--transactions T --txn-events N] [--large-events] [--byte-stream] [--batch]
#                          [--kvt [--kvt-concurrency C] [--kvt-batch B]]
#                          [--official-pooling] [--clients official,sluice] [--client-jvm-opts 'OPTS']
#                          [--latency-thread platform|virtual] [--official-java-home DIR]
#                          [--rounds N] [--servers sluice-mem,sluice-fsync,pravega] [--out DIR]
#
# Each round runs both clients once per server, alternating which goes first; the table shows the median over the
# rounds (and every run's JSON line is kept in DIR, default target/bench-matrix). L awaited writes (default 2000)
# give each run's latency percentiles; with --transactions T both clients run T transactions of --txn-events events
# instead (see `sluice bench --help`) and the table shows events/s and commit latency p50/p99; --large-events lets
# both clients write events over 8 MiB (e.g. --size 12MiB) and the table shows MB/s; --byte-stream has both write
# --events writes of --size bytes to a byte stream and read them back, and the table shows MB/s. The launcher's
# startup caches are made before anything is timed. --batch has both write the events and read them back through
# the batch client (every segment's range at once); the table shows events/s and MB/s.
# --kvt has both clients measure a key-value table of --segments partitions (single puts and gets of --events keys,
# batches of B puts under one primary key and a getAll of each, values of --size bytes), once with 1 caller (latency)
# and once with C concurrent callers (default 16: throughput); the table shows ops/s (entries/s for batches) and
# p50/p99 per phase, and a sluice/official row with the throughput ratios.
# --profile NAME sets the options of one of the performance goals' workloads (docs/benchmarks.md); options after it
# override it:
#   events-100b   1,000,000 x 100 B, 1 segment, 1 reader, 5 rounds (throughput, and the ratios to the official client)
#   events-10k    20,000 x 10 KiB, 1 segment, 1 reader, 5 rounds, sluice-mem and pravega
#   latency       100,000 x 100 B, 1 segment, 1 reader, 20,000 awaited writes, 5 rounds (p50 and p99)
#   scale-writers   100 writers on 16 segments, 8 readers, 100,000 x 100 B, 2,000 awaited writes, 3 rounds
#   scale-segments  1,000 writers on 1,000 segments (one each), 8 readers, the same events, 3 rounds
#   scale-readers   one reader group of 8 readers over 10,000 segments, 16 of them written by 16 writers, 3 rounds
#                   (the scale profiles run on sluice-mem and pravega, the official writers with --official-pooling)
# --writers W (W > 1) runs the scale workload of `sluice bench --writers` on both clients: W writers with one
# routing key each (writer w's in segment w mod K), then the readers, then the awaited writes of all writers at
# once; the table adds the writers' setup time, the heap (live with everything open, and the most used) and the
# client's platform threads at most. --official-pooling has the official writers share pooled connections
# (EventWriterConfig.enableConnectionPooling): by default each official writer opens a connection, with a 1 MiB
# buffer and a thread, to every segment of the stream, and 100 writers on 16 segments exhaust a 1 GiB heap.
# --latency-thread virtual has both clients make their awaited writes on a virtual thread instead of their main
# (platform) thread, as an application built on virtual threads does; the official driver then runs on the
# launcher's JDK (it needs 21 or newer), not on the JDK 17 it otherwise prefers. --official-java-home DIR runs the
# official driver on that JDK and nothing else (SLUICE_COMPAT_JAVA_HOME would move the standalone too), e.g. the
# launcher's, so that both clients run on one JDK.
# --clients runs only the clients named (both by default). --client-jvm-opts gives both clients' JVMs the same
# extra options (SLUICE_JAVA_OPTS and SLUICE_OFFICIAL_JAVA_OPTS), e.g. '-Xms1g -XX:+AlwaysPreTouch': on a machine
# where fresh memory is slow to touch (docs/benchmarks.md) a pre-touched heap decides the 100 B write rate.
# A profile raises the standalone's heap to 4g, events-10k to 8g (SLUICE_COMPAT_XMX overrides it): the standalone
# keeps appended data on its heap; with the default 1g the second run of 20,000 x 10 KiB events failed
# (OutOfMemoryError), and with 4g a whole events-10k sitting did once.
# Needs the ports 19000-19002, 19010-19011 and 19020-19021 free. Run it on a quiet machine: it measures throughput.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/.." && pwd)
cd "$repo"

events=100000 size=100 segments=4 readers=2 rounds=3 latency=2000 transactions=0 txn_events=100 large=0 bytes=0
writers=1 official_pooling=0 clients=official,sluice client_jvm_opts="" latency_thread=platform official_java_home=""
servers=sluice-mem,sluice-fsync,pravega
kvt=0 kvt_conc=16 kvt_batch=100
out=target/bench-matrix
batch=0
# the performance goals' workloads; options after --profile override what it sets
profile() {
  case "$1" in
    events-100b) events=1000000 size=100 segments=1 readers=1 rounds=5 ;;
    events-10k) events=20000 size=10240 segments=1 readers=1 rounds=5 servers=sluice-mem,pravega ;;
    latency) events=100000 size=100 segments=1 readers=1 latency=20000 rounds=5 ;;
    scale-writers) writers=100 segments=16 readers=8 events=100000 size=100 latency=2000 rounds=3
      servers=sluice-mem,pravega official_pooling=1 ;;
    scale-segments) writers=1000 segments=1000 readers=8 events=100000 size=100 latency=2000 rounds=3
      servers=sluice-mem,pravega official_pooling=1 ;;
    scale-readers) writers=16 segments=10000 readers=8 events=100000 size=100 latency=2000 rounds=3
      servers=sluice-mem,pravega official_pooling=1 ;;
    *) echo "bench-matrix: unknown profile '$1' (events-100b, events-10k, latency, scale-writers, scale-segments" \
         "or scale-readers)" >&2; exit 2 ;;
  esac
  # the standalone keeps every run's data on its heap, 1g by default: 10 runs of 100 MB or more exhaust it, and
  # 10 runs of 200 MB (events-10k) exhausted 4g once (OutOfMemoryError, then its controller stopped answering)
  if [ "$1" = events-10k ]; then
    export SLUICE_COMPAT_XMX="${SLUICE_COMPAT_XMX:-8g}"
  else
    export SLUICE_COMPAT_XMX="${SLUICE_COMPAT_XMX:-4g}"
  fi
}
while [ $# -gt 0 ]; do
  case "$1" in
    --profile) [ $# -ge 2 ] || { echo "bench-matrix: --profile needs a name (see --help)" >&2; exit 2; }
      profile "$2"; shift 2 ;;
    --events) events=$2; shift 2 ;;
    --size) size=$2; shift 2 ;;
    --segments) segments=$2; shift 2 ;;
    --readers) readers=$2; shift 2 ;;
    --latency-samples) latency=$2; shift 2 ;;
    --writers) writers=$2; shift 2 ;;
    --official-pooling) official_pooling=1; shift ;;
    --clients) clients=$2; shift 2 ;;
    --client-jvm-opts) client_jvm_opts=$2; shift 2 ;;
    --latency-thread) latency_thread=$2; shift 2 ;;
    --official-java-home) official_java_home=$2; shift 2 ;;
    --transactions) transactions=$2; shift 2 ;;
    --txn-events) txn_events=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --servers) servers=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --large-events) large=1; shift ;;
    --byte-stream) bytes=1; shift ;;
    --batch) batch=1; shift ;;
    --kvt) kvt=1; shift ;;
    --kvt-concurrency) kvt_conc=$2; shift 2 ;;
    --kvt-batch) kvt_batch=$2; shift 2 ;;
    -h|--help) awk 'NR > 1 && !/^#/ {exit} NR > 1 {sub(/^# ?/, ""); print}' "$0"; exit 0 ;;
    *) echo "bench-matrix: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
done
mkdir -p "$out"
rm -f "$out"/*.json "$out"/*.log

say() { echo "bench-matrix: $*" >&2; }
now_ms() { date +%s%3N; }
rss_mib() { awk '/VmRSS/ {printf "%d", $2 / 1024}' "/proc/$1/status"; }

# one JSON number: json_num FILE SECTION KEY (SECTION "" for a top-level key)
json_num() {
  local text
  text=$(cat "$1")
  if [ -n "$2" ]; then
    text=$(grep -o "\"$2\":{[^}]*}" <<<"$text" || true)
  fi
  grep -o "\"$3\":[0-9.eE+-]*" <<<"$text" | head -n 1 | cut -d: -f2
}
json_ok() { grep -q '"verify":{"ok":true' "$1"; }

median() { sort -n | awk '{a[NR]=$1} END {if (NR == 0) print "-"; else if (NR % 2) print a[(NR+1)/2]; else printf "%d\n", (a[NR/2]+a[NR/2+1])/2}'; }

server_pid=""
server_kind=""
stop_server() {
  case "$server_kind" in
    pravega) compat/pravega-standalone.sh stop >&2 || true ;;
    sluice-*) if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi ;;
  esac
  server_pid="" server_kind=""
}
trap stop_server EXIT

controller=""
started=""
start_server() { # kind -> sets controller and started="ready_ms rss_mib"
  local kind=$1 t0 ready rf data
  server_kind=$kind
  t0=$(now_ms)
  case "$kind" in
    sluice-mem|sluice-fsync)
      rf="$out/ready-$kind"
      rm -f "$rf"
      if [ "$kind" = sluice-mem ]; then
        set -- --in-memory --controller-port 19010 --segment-store-port 19011
        controller=tcp://127.0.0.1:19010
      else
        data="$out/data"
        rm -rf "$data"
        set -- --data-dir "$data" --controller-port 19020 --segment-store-port 19021
        controller=tcp://127.0.0.1:19020
      fi
      ./sluice server "$@" --ready-file "$rf" >"$out/server-$kind.log" 2>&1 &
      server_pid=$!
      while [ ! -f "$rf" ]; do
        kill -0 "$server_pid" 2>/dev/null || { say "$kind exited; its log:"; cat "$out/server-$kind.log" >&2; exit 1; }
        sleep 0.01
      done
      ready=$(( $(now_ms) - t0 ))
      sleep 2
      started="$ready $(rss_mib "$server_pid")"
      ;;
    pravega)
      compat/pravega-standalone.sh stop >&2 || true
      # compat/pravega-standalone.sh raises the segment store's cache (SLUICE_COMPAT_CACHE, 1 GiB by default)
      compat/pravega-standalone.sh start --port-base 19000 >&2
      ready=$(( $(now_ms) - t0 ))
      controller=tcp://127.0.0.1:19002
      sleep 2
      started="$ready $(rss_mib "$(cat compat/target/run/pravega.pid)")"
      ;;
  esac
}

txn_args=()
if [ "$transactions" -gt 0 ]; then
  txn_args=(--transactions "$transactions" --txn-events "$txn_events")
fi
if [ "$large" = 1 ]; then
  txn_args+=(--large-events)
fi
if [ "$bytes" = 1 ]; then
  txn_args+=(--byte-stream)
fi
if [ "$batch" = 1 ]; then
  txn_args+=(--batch)
fi
if [ "$writers" -gt 1 ]; then
  txn_args+=(--writers "$writers")
fi
official_env=()
case "$latency_thread" in
  platform) ;;
  virtual)
    txn_args+=(--latency-thread virtual)
    # the official driver makes virtual threads only on a JDK 21 or newer: the one the launcher runs on
    . scripts/find-jdk.sh
    sluice_find_jdk >/dev/null
    official_env=("SLUICE_COMPAT_JAVA_HOME=${SLUICE_COMPAT_JAVA_HOME:-$SLUICE_JAVA_HOME}") ;;
  *) echo "bench-matrix: --latency-thread must be platform or virtual, but is '$latency_thread'" >&2; exit 2 ;;
esac
if [ -n "$official_java_home" ]; then
  [ -x "$official_java_home/bin/java" ] || {
    echo "bench-matrix: --official-java-home $official_java_home has no bin/java" >&2; exit 2; }
  official_env=("SLUICE_COMPAT_JAVA_HOME=$official_java_home")
fi
official_args=()
if [ "$official_pooling" = 1 ] && [ "$writers" -gt 1 ]; then
  official_args=(--connection-pooling)
fi

run_kvt() { # client server round: the kvt workload with 1 caller and with kvt_conc callers
  local client=$1 server=$2 round=$3 c f cmd
  for c in 1 "$kvt_conc"; do
    f="$out/$server-$client-c$c-$round.json"
    if [ "$client" = sluice ]; then cmd=(./sluice bench --json); else cmd=(compat/official-client.sh bench); fi
    "${cmd[@]}" --kvt --controller "$controller" --events "$events" --size "$size" --segments "$segments" \
      --kvt-concurrency "$c" --kvt-batch "$kvt_batch" >"$f" 2>"${f%.json}.log" || true
    if [ -s "$f" ] && json_ok "$f"; then
      say "$server $client x$c round $round: put $(json_num "$f" put ops_per_s)/s, get $(json_num "$f" get ops_per_s)/s, batch put $(json_num "$f" batch_put entries_per_s) entries/s, getAll $(json_num "$f" batch_get entries_per_s) entries/s"
    else
      say "$server $client x$c round $round: FAILED (see ${f%.json}.log)"
    fi
  done
}

run_client() { # client server round
  local client=$1 server=$2 round=$3 f="$out/$2-$1-$3.json"
  if [ "$kvt" = 1 ]; then run_kvt "$@"; return; fi
  case "$client" in
    sluice) SLUICE_JAVA_OPTS="${SLUICE_JAVA_OPTS:-} $client_jvm_opts" \
              ./sluice bench --controller "$controller" --events "$events" --size "$size" --segments "$segments" \
              --readers "$readers" --latency-samples "$latency" "${txn_args[@]}" --json >"$f" 2>"${f%.json}.log" \
              || true ;;
    official) env "${official_env[@]}" SLUICE_OFFICIAL_JAVA_OPTS="${SLUICE_OFFICIAL_JAVA_OPTS:-} $client_jvm_opts" \
              compat/official-client.sh bench --controller "$controller" --events "$events" --size "$size" \
              --segments "$segments" --readers "$readers" --latency-samples "$latency" "${txn_args[@]}" \
              "${official_args[@]}" >"$f" 2>"${f%.json}.log" || true ;;
  esac
  if [ -s "$f" ] && json_ok "$f" && [ "$transactions" -gt 0 ]; then
    say "$server $client round $round: $(json_num "$f" transactions events_per_s) ev/s in transactions, commit p50 $(json_num "$f" transactions commit_p50_ms) ms, p99 $(json_num "$f" transactions commit_p99_ms) ms"
  elif [ -s "$f" ] && json_ok "$f" && { [ "$large" = 1 ] || [ "$bytes" = 1 ]; }; then
    say "$server $client round $round: write $(json_num "$f" write mb_per_s) MB/s, read $(json_num "$f" read mb_per_s) MB/s"
  elif [ -s "$f" ] && json_ok "$f" && [ "$writers" -gt 1 ]; then
    say "$server $client round $round: write $(json_num "$f" write events_per_s) ev/s, read $(json_num "$f" read events_per_s) ev/s, p99 $(json_num "$f" latency p99_us) us, heap $(json_num "$f" resources heap_live_mib) MiB live, $(json_num "$f" resources threads_peak) threads"
  elif [ -s "$f" ] && json_ok "$f" && [ "$batch" = 1 ]; then
    say "$server $client round $round: write $(json_num "$f" write events_per_s) ev/s, batch read $(json_num "$f" read events_per_s) ev/s"
  elif [ -s "$f" ] && json_ok "$f"; then
    say "$server $client round $round: write $(json_num "$f" write events_per_s) ev/s, read $(json_num "$f" read events_per_s) ev/s, p99 $(json_num "$f" latency p99_us) us"
  else
    say "$server $client round $round: FAILED (see ${f%.json}.log)"
  fi
}

# builds the jar if needed and makes the launcher's startup caches (the clients' and the server's), outside every
# measurement
./sluice --version >/dev/null
./sluice server --help >/dev/null
compat/official-client.sh build >/dev/null
declare -A startup
IFS=, read -r -a kinds <<<"$servers"
for kind in "${kinds[@]}"; do
  say "server $kind"
  start_server "$kind"
  startup[$kind]=$started
  for round in $(seq 1 "$rounds"); do
    if [ $((round % 2)) = 1 ]; then order="official sluice"; else order="sluice official"; fi
    for client in $order; do
      [[ ",$clients," == *",$client,"* ]] || continue
      run_client "$client" "$kind" "$round"
    done
  done
  stop_server
done

col() { # server client section key -> median over the rounds that verified
  local f
  for f in "$out/$1-$2-"*.json; do
    [ -s "$f" ] && json_ok "$f" && json_num "$f" "$3" "$4"
  done | awk '{printf "%d\n", $1}' | median
}
colf() { # as col, for values with decimals (one kept)
  local f
  for f in "$out/$1-$2-"*.json; do
    [ -s "$f" ] && json_ok "$f" && json_num "$f" "$3" "$4"
  done | sort -n | awk '{a[NR]=$1} END {if (NR == 0) print "-"; else if (NR % 2) printf "%.1f\n", a[(NR+1)/2];
    else printf "%.1f\n", (a[NR/2]+a[NR/2+1])/2}'
}
fails() { # server client -> runs that failed, or "not run"
  local n=0 f
  compgen -G "$out/$1-$2-*.json" >/dev/null || { echo "not run"; return; }
  for f in "$out/$1-$2-"*.json; do { [ -s "$f" ] && json_ok "$f"; } || n=$((n + 1)); done
  echo $n
}

if [ "$kvt" = 1 ]; then
  echo
  echo "$(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg); key-value table of" \
    "$segments partitions, $events keys x $size B, batches of $kvt_batch; median of $rounds rounds"
  echo
  echo "| server | client | callers | put ops/s | put p50 us | put p99 us | get ops/s | get p50 us | get p99 us |" \
    "batch put entries/s | p50 us | p99 us | getAll entries/s | p50 us | p99 us | failed runs |"
  echo "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
  for kind in "${kinds[@]}"; do
    for c in 1 "$kvt_conc"; do
      declare -A rate=()
      for client in official sluice; do
        row="| $kind | $client | $c |"
        for ph in put get batch_put batch_get; do
          key=ops_per_s
          [ "${ph#batch_}" != "$ph" ] && key=entries_per_s
          rate[$client-$ph]=$(col "$kind" "$client-c$c" "$ph" "$key")
          row="$row ${rate[$client-$ph]} | $(col "$kind" "$client-c$c" "$ph" p50_us) |"
          row="$row $(col "$kind" "$client-c$c" "$ph" p99_us) |"
        done
        echo "$row $(fails "$kind" "$client-c$c") |"
      done
      row="| $kind | sluice/official | $c |"
      for ph in put get batch_put batch_get; do
        row="$row $(awk -v s="${rate[sluice-$ph]}" -v o="${rate[official-$ph]}" \
          'BEGIN {if (o + 0 > 0 && s != "-") printf "%.2fx", s / o; else printf "-"}') | | |"
      done
      echo "$row |"
    done
  done
  exit 0
fi

if [ "$transactions" -gt 0 ]; then
  echo
  echo "$(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg); $transactions" \
    "transactions x $txn_events events x $size B, $segments segments, $readers readers; median of $rounds rounds"
  echo
  echo "| server | ready ms | idle RSS MiB | client | txn ev/s | read ev/s | commit p50 ms | commit p99 ms | failed runs |"
  echo "|---|---:|---:|---|---:|---:|---:|---:|---:|"
  for kind in "${kinds[@]}"; do
    read -r ready rss <<<"${startup[$kind]}"
    for client in official sluice; do
      echo "| $kind | $ready | $rss | $client | $(col "$kind" $client transactions events_per_s) |" \
        "$(col "$kind" $client read events_per_s) | $(colf "$kind" $client transactions commit_p50_ms) |" \
        "$(colf "$kind" $client transactions commit_p99_ms) | $(fails "$kind" $client) |"
    done
  done
  exit 0
fi

if [ "$large" = 1 ] || [ "$bytes" = 1 ]; then
  echo
  if [ "$bytes" = 1 ]; then
    echo "$(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg); byte stream, $events" \
      "writes x $size B; median of $rounds rounds"
  else
    echo "$(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg); $events large events x" \
      "$size B, $segments segments, $readers readers; median of $rounds rounds"
  fi
  echo
  echo "| server | client | write MB/s | read MB/s | failed runs |"
  echo "|---|---|---:|---:|---:|"
  for kind in "${kinds[@]}"; do
    for client in official sluice; do
      echo "| $kind | $client | $(colf "$kind" $client write mb_per_s) | $(colf "$kind" $client read mb_per_s) |" \
        "$(fails "$kind" $client) |"
    done
  done
  exit 0
fi

if [ "$writers" -gt 1 ]; then
  echo
  echo "$(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg); $writers writers (one" \
    "routing key each), $segments segments, $readers readers, $events events x $size B, $latency awaited writes (all" \
    "writers at once)$([ "$official_pooling" = 1 ] && echo "; official writers with connection pooling");" \
    "median of $rounds rounds"
  echo
  echo "| server | client | writers setup ms | write ev/s | read ev/s | p50 us | p99 us | heap live MiB |" \
    "heap most MiB | platform threads | failed runs |"
  echo "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
  for kind in "${kinds[@]}"; do
    for client in official sluice; do
      echo "| $kind | $client | $(col "$kind" $client setup writers_ms) | $(col "$kind" $client write events_per_s) |" \
        "$(col "$kind" $client read events_per_s) | $(col "$kind" $client latency p50_us) |" \
        "$(col "$kind" $client latency p99_us) | $(colf "$kind" $client resources heap_live_mib) |" \
        "$(colf "$kind" $client resources heap_peak_mib) | $(col "$kind" $client resources threads_peak) |" \
        "$(fails "$kind" $client) |"
    done
  done
  exit 0
fi

if [ "$batch" = 1 ]; then
  echo
  echo "$(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg); batch read of $events" \
    "events x $size B over $segments segments, every range at once; median of $rounds rounds"
  echo
  echo "| server | client | write ev/s | batch read ev/s | batch read MB/s | failed runs |"
  echo "|---|---|---:|---:|---:|---:|"
  for kind in "${kinds[@]}"; do
    for client in official sluice; do
      echo "| $kind | $client | $(col "$kind" $client write events_per_s) | $(col "$kind" $client read events_per_s) |" \
        "$(colf "$kind" $client read mb_per_s) | $(fails "$kind" $client) |"
    done
  done
  exit 0
fi

echo
echo "$(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg); $events events x $size B," \
  "$segments segments, $readers readers, $latency awaited writes$([ "$latency_thread" = virtual ] &&
    echo " on a virtual thread")$([ -n "$official_java_home" ] &&
    echo "; the official client on $official_java_home")$([ -n "$client_jvm_opts" ] &&
    echo "; both clients with $client_jvm_opts"); median of $rounds rounds"
echo
echo "| server | ready ms | idle RSS MiB | client | write ev/s | read ev/s | p50 us | p99 us | failed runs |"
echo "|---|---:|---:|---|---:|---:|---:|---:|---:|"
for kind in "${kinds[@]}"; do
  read -r ready rss <<<"${startup[$kind]}"
  for client in official sluice; do
    echo "| $kind | $ready | $rss | $client | $(col "$kind" $client write events_per_s) | $(col "$kind" $client read events_per_s) |" \
      "$(col "$kind" $client latency p50_us) | $(col "$kind" $client latency p99_us) | $(fails "$kind" $client) |"
  done
done
