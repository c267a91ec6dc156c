#!/usr/bin/env bash
# Runs the REAL Pravega 0.13.0 standalone (io.pravega.local.LocalPravegaEmulator: ZooKeeper, controller and
# segment store in one JVM, in-memory storage, an empty cluster on every start) for Sluice's compatibility tests.
# Its class path comes from compat/standalone/pom.xml and never meets Sluice's. See compat/README.md.
#
#   compat/pravega-standalone.sh start [--port-base N]   start in the background, wait until ready (bounded)
#   compat/pravega-standalone.sh stop                    stop what `start` started (TERM, then KILL); idempotent
#   compat/pravega-standalone.sh status                  running / not running (exit 0 / 3)
#   compat/pravega-standalone.sh logs [-f]               the server's console log (-f: follow it)
#   compat/pravega-standalone.sh env                     prints SLUICE_COMPAT_CONTROLLER=... of the running server
#   compat/pravega-standalone.sh classpath               resolves (or reuses) the class path and prints its file
#
# Environment (all optional):
#   SLUICE_COMPAT_ZK_PORT            ZooKeeper port (default 4000)
#   SLUICE_COMPAT_SEGMENTSTORE_PORT  segment store port (default 6000)
#   SLUICE_COMPAT_CONTROLLER_PORT    controller gRPC port (default 9090)
#                                    --port-base N overrides all three: N, N+1, N+2
#   SLUICE_COMPAT_JAVA_HOME          the JDK to run Pravega with (default: a JDK 17, else the newest JDK >= 11)
#   SLUICE_COMPAT_XMX                heap of the server JVM (default 1g)
#   SLUICE_COMPAT_CACHE              the segment store's cache of appended data (default 1g; Pravega's own default,
#                                    128 MiB, fills under MiB-sized appends and the container restarts over and over)
#   SLUICE_COMPAT_AUTOSCALE_SECONDS  the auto-scaler's cool-down and mute periods in seconds (default 1; Pravega's
#                                    default 600 holds every split back 10 minutes)
#   SLUICE_COMPAT_RETENTION_MINUTES  how often the controller enforces retention (default 1; Pravega's default 30)
#   SLUICE_COMPAT_JAVA_OPTS          extra JVM options, e.g. -Dpravegaservice.some.key=value (they come last, so
#                                    they override the options above)
#   SLUICE_COMPAT_START_TIMEOUT      seconds to wait for readiness (default 120)
#   SLUICE_COMPAT_STOP_GRACE         seconds between TERM and KILL (default 20)
#   SLUICE_COMPAT_DIR                state directory (default compat/target; holds the class-path cache and run/)
#   SLUICE_COMPAT_MAVEN_ARGS         extra Maven arguments for the class-path resolution (e.g. -Dmaven.repo.local=...)
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/.." && pwd)
# shellcheck source=../scripts/find-jdk.sh
. "$repo/scripts/find-jdk.sh"

MAIN_CLASS=io.pravega.local.LocalPravegaEmulator
READY_LINES=("Pravega Sandbox is running locally now" "Controller Services started successfully")
pom="$here/standalone/pom.xml"
config="$here/standalone/standalone-config.properties"
logback="$here/standalone/logback.xml"
state=${SLUICE_COMPAT_DIR:-$here/target}
run="$state/run"
pidfile="$run/pravega.pid"
portsfile="$run/ports"
envfile="$run/env"
console="$run/console.log"
cpfile="$state/classpath.txt"
cpkey="$state/classpath.key"

say() { echo "pravega-standalone: $*" >&2; }
die() { say "$*"; exit 1; }

now_ms() { date +%s%3N; }
to_bytes() { # a size like 512m, 1g or 1073741824 in bytes
  case "$1" in
    *[kK]) echo $(( ${1%?} * 1024 )) ;;
    *[mM]) echo $(( ${1%?} * 1048576 )) ;;
    *[gG]) echo $(( ${1%?} * 1073741824 )) ;;
    *[!0-9]* | '') die "SLUICE_COMPAT_CACHE: '$1' is not a size (e.g. 512m, 1g)" ;;
    *) echo "$1" ;;
  esac
}
elapsed() { # seconds since $1 (ms), one decimal
  local d=$(( $(now_ms) - $1 ))
  printf '%d.%d' $((d / 1000)) $(((d % 1000) / 100))
}

port_open() { # true when something accepts connections on 127.0.0.1:$1
  (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

alive() { # true when pid $1 exists and is not a zombie (PID 1 here may not reap orphans)
  local st
  [ -r "/proc/$1/stat" ] || return 1
  st=$(sed 's/^.*) \(.\).*$/\1/' "/proc/$1/stat" 2>/dev/null) || return 1
  [ -n "$st" ] && [ "$st" != Z ] && [ "$st" != X ]
}

ours() { # true when pid $1 is the emulator this state directory started (guards against pid reuse)
  local cmd
  cmd=$(tr '\0' ' ' <"/proc/$1/cmdline" 2>/dev/null) || return 1
  [[ "$cmd" == *"-Dsluice.compat.instance=$run "* && "$cmd" == *"$MAIN_CLASS"* ]]
}

running_pid() { # prints the pid of our running server, or fails
  local pid
  [ -f "$pidfile" ] || return 1
  pid=$(cat "$pidfile" 2>/dev/null) || return 1
  [[ "$pid" =~ ^[0-9]+$ ]] || return 1
  alive "$pid" && ours "$pid" || return 1
  echo "$pid"
}

# ---------------------------------------------------------------- ports

zk_port=${SLUICE_COMPAT_ZK_PORT:-4000}
ss_port=${SLUICE_COMPAT_SEGMENTSTORE_PORT:-6000}
ctl_port=${SLUICE_COMPAT_CONTROLLER_PORT:-9090}

check_port() { # name value
  [[ "$2" =~ ^[0-9]+$ ]] && [ "$2" -ge 1 ] && [ "$2" -le 65535 ] || die "$1 port '$2' is not a port number (1-65535)"
}

load_ports() { # the ports of the running server (written by start)
  if [ -f "$portsfile" ]; then
    read -r zk_port ss_port ctl_port <"$portsfile"
  fi
}

# ---------------------------------------------------------------- JDK

find_pravega_java() {
  # Pravega 0.13 is built for Java 11 and tested on 17; the standalone also runs on 25 (only Netty warnings).
  # A JDK 17 is preferred because it is what 0.13 was released for; otherwise the newest JDK >= 11.
  if ! sluice_find_compat_java 11; then
    [ -z "${SLUICE_COMPAT_JAVA_HOME:-}" ] || die "SLUICE_COMPAT_JAVA_HOME=$SLUICE_COMPAT_JAVA_HOME has no bin/java"
    die "no JDK 11 or newer found to run Pravega (looked at JAVA_HOME, /usr/lib/jvm/*, java on PATH); set SLUICE_COMPAT_JAVA_HOME"
  fi
  PRAVEGA_JAVA="$SLUICE_COMPAT_JAVA"
}

# ---------------------------------------------------------------- class path

classpath_valid() {
  local key jar
  [ -s "$cpfile" ] && [ -f "$cpkey" ] || return 1
  key=$(sha256sum "$pom" | cut -d' ' -f1)
  [ "$(cat "$cpkey")" = "$key" ] || return 1
  IFS=: read -r -a jars <"$cpfile" || true  # the file has no final newline
  [ "${#jars[@]}" -gt 100 ] || return 1
  for jar in "${jars[@]}"; do
    [ -f "$jar" ] || return 1
  done
}

resolve_classpath() {
  if classpath_valid; then
    return 0
  fi
  mkdir -p "$state"
  local t0 log="$state/resolve.log"
  t0=$(now_ms)
  say "resolving io.pravega:pravega-standalone:0.13.0 with compat/standalone/pom.xml (first time: ~211 MB from Maven Central)..."
  rm -f "$cpfile" "$cpkey"
  # shellcheck disable=SC2086
  if ! "$repo/scripts/mvn" -B -q -f "$pom" ${SLUICE_COMPAT_MAVEN_ARGS:-} dependency:build-classpath \
      -Dmdep.includeScope=runtime -Dmdep.outputFile="$cpfile" >"$log" 2>&1; then
    say "class-path resolution failed; the last lines of $log:"
    tail -n 40 "$log" >&2
    exit 1
  fi
  IFS=: read -r -a jars <"$cpfile" || true  # the file has no final newline
  sha256sum "$pom" | cut -d' ' -f1 >"$cpkey"
  say "class path resolved: ${#jars[@]} jars in $(elapsed "$t0") s (cached in $cpfile)"
}

# ---------------------------------------------------------------- commands

tail_logs() {
  say "---- last 40 lines of $console"
  tail -n 40 "$console" >&2 2>/dev/null || true
  if [ -f "$run/standalone.log" ]; then
    say "---- last 20 ERROR/WARN lines of $run/standalone.log"
    grep -E ' (ERROR|WARN) ' "$run/standalone.log" | tail -n 20 >&2 || true
  fi
}

terminate() { # pid: TERM, wait the grace period, then KILL; waits until it is gone
  local pid=$1 grace=${SLUICE_COMPAT_STOP_GRACE:-20} t0
  t0=$(now_ms)
  kill -TERM "$pid" 2>/dev/null || true
  while alive "$pid" && [ $(( $(now_ms) - t0 )) -lt $((grace * 1000)) ]; do
    sleep 0.2
  done
  if alive "$pid"; then
    say "pid $pid still running ${grace}s after TERM: sending KILL"
    kill -KILL "$pid" 2>/dev/null || true
    while alive "$pid"; do
      sleep 0.1
    done
  fi
}

wait_ports_closed() {
  local t0 p open
  t0=$(now_ms)
  while :; do
    open=""
    for p in "$zk_port" "$ss_port" "$ctl_port"; do
      port_open "$p" && open="$open $p"
    done
    [ -z "$open" ] && return 0
    if [ $(( $(now_ms) - t0 )) -ge 15000 ]; then
      say "warning: port(s)$open still accept connections 15 s after the server exited (another process?)"
      return 0
    fi
    sleep 0.2
  done
}

cmd_stop() {
  local pid
  if [ ! -f "$pidfile" ]; then
    say "not running (no $pidfile)"
    return 0
  fi
  pid=$(cat "$pidfile" 2>/dev/null || true)
  load_ports
  if ! [[ "$pid" =~ ^[0-9]+$ ]] || ! alive "$pid"; then
    say "not running (pid ${pid:-?} from $pidfile has exited)"
    rm -f "$pidfile" "$envfile"
    return 0
  fi
  if ! ours "$pid"; then
    say "pid $pid from $pidfile is not the Pravega standalone this script started: leaving it alone"
    rm -f "$pidfile" "$envfile"
    return 0
  fi
  local t0
  t0=$(now_ms)
  terminate "$pid"
  wait_ports_closed
  rm -f "$pidfile" "$envfile"
  say "stopped pid $pid in $(elapsed "$t0") s"
}

cmd_start() {
  while [ $# -gt 0 ]; do
    case "$1" in
      --port-base)
        [ $# -ge 2 ] || die "--port-base needs a number"
        check_port "--port-base" "$2"
        zk_port=$2; ss_port=$(($2 + 1)); ctl_port=$(($2 + 2))
        shift 2 ;;
      --port-base=*)
        local b=${1#--port-base=}
        check_port "--port-base" "$b"
        zk_port=$b; ss_port=$((b + 1)); ctl_port=$((b + 2))
        shift ;;
      *) die "start: unknown argument '$1' (usage: start [--port-base N])" ;;
    esac
  done
  check_port ZooKeeper "$zk_port"
  check_port "segment store" "$ss_port"
  check_port controller "$ctl_port"

  local pid
  if pid=$(running_pid); then
    die "already running (pid $pid, $(cat "$envfile" 2>/dev/null)); run '$0 stop' first"
  fi
  rm -f "$pidfile" "$envfile"

  local p name busy=""
  for name in "ZooKeeper:$zk_port" "segment store:$ss_port" "controller:$ctl_port"; do
    p=${name##*:}
    if port_open "$p"; then
      busy="$busy ${name%:*} port $p;"
    fi
  done
  [ -z "$busy" ] || die "busy:$busy another process listens there. Choose free ports with --port-base N or SLUICE_COMPAT_ZK_PORT / SLUICE_COMPAT_SEGMENTSTORE_PORT / SLUICE_COMPAT_CONTROLLER_PORT"

  resolve_classpath
  find_pravega_java
  local v
  v=$(sluice_java_feature "$PRAVEGA_JAVA")

  mkdir -p "$run"
  rm -f "$console" "$run/standalone.log" "$run/gc.log" "$run"/*.hprof  # an earlier run's heap dump (GBs)
  echo "$zk_port $ss_port $ctl_port" >"$portsfile"
  # The class path (~34 KB) goes through a java @argfile, which keeps the command line short and readable.
  printf -- '-cp "%s"\n' "$(cat "$cpfile")" >"$run/classpath.args"

  local opts=(
    "-Dsluice.compat.instance=$run"
    "-Xmx${SLUICE_COMPAT_XMX:-1g}"
    -XX:+HeapDumpOnOutOfMemoryError "-XX:HeapDumpPath=$run"
    "-Xlog:gc:file=$run/gc.log:uptime"
    -Djava.net.preferIPv4Stack=true
    "-Dsinglenode.configurationFile=$config"
    "-Dsinglenode.zk.port=$zk_port"
    "-Dsinglenode.segmentStore.port=$ss_port"
    "-Dsinglenode.controller.rpc.port=$ctl_port"
    "-Dlogback.configurationFile=$logback"
    "-Dlog.dir=$run"
  )
  # the cache lives in direct memory: give the JVM room for it beside the heap
  local cache_bytes
  cache_bytes=$(to_bytes "${SLUICE_COMPAT_CACHE:-1g}")
  opts+=("-XX:MaxDirectMemorySize=$(( cache_bytes + 1073741824 ))" "-Dpravegaservice.cache.size.max=$cache_bytes")
  # auto-scaling's cool-down (after a segment is created) and mute (between two requests for a segment) are 10
  # minutes by default; short, a stream over its target splits after the rule's 2 minutes (AutoScaleCompatTest)
  local quiet=${SLUICE_COMPAT_AUTOSCALE_SECONDS:-1}
  opts+=("-DautoScale.cooldown.time.seconds=$quiet" "-DautoScale.mute.time.seconds=$quiet")
  # the controller's retention pass runs every 30 minutes by default; every minute, a retention policy acts within
  # a test's time (RetentionCompatTest)
  opts+=("-Dcontroller.retention.frequency.minutes=${SLUICE_COMPAT_RETENTION_MINUTES:-1}")
  if [ "$v" -ge 24 ]; then
    opts+=(--sun-misc-unsafe-memory-access=allow --enable-native-access=ALL-UNNAMED)
  fi
  # shellcheck disable=SC2206
  opts+=(${SLUICE_COMPAT_JAVA_OPTS:-})

  local t0
  t0=$(now_ms)
  say "starting Pravega 0.13.0 standalone on 127.0.0.1 (ZooKeeper $zk_port, segment store $ss_port, controller $ctl_port) with $PRAVEGA_JAVA (Java $v)"
  # setsid: its own session, so a Ctrl-C in the calling terminal or the end of this script does not reach it;
  # the inner shell records its own pid and then becomes java (exec), so the pid file names the JVM itself.
  (cd "$run" && exec setsid bash -c 'echo $$ >"$1"; shift; exec "$@"' pravega-standalone "$pidfile" \
      "$PRAVEGA_JAVA" "${opts[@]}" "@$run/classpath.args" "$MAIN_CLASS" \
      </dev/null >"$console" 2>&1) &

  # Until it is ready, an interrupted or failed start kills what it started.
  trap 'say "interrupted: stopping what was started"; cmd_stop; exit 130' INT TERM
  local timeout=${SLUICE_COMPAT_START_TIMEOUT:-120} ready line missing
  while :; do
    pid=$(cat "$pidfile" 2>/dev/null || true)
    if [ -z "$pid" ] && [ $(( $(now_ms) - t0 )) -ge 15000 ]; then
      say "FAILED: the launcher wrote no pid file ($pidfile) within 15 s"
      tail_logs
      exit 1
    fi
    if [ -n "$pid" ] && ! alive "$pid"; then
      say "FAILED: the server exited during startup after $(elapsed "$t0") s"
      tail_logs
      rm -f "$pidfile"
      exit 1
    fi
    ready=1
    missing=""
    for p in "$zk_port" "$ss_port" "$ctl_port"; do
      if ! port_open "$p"; then ready=0; missing="$missing port $p;"; fi
    done
    for line in "${READY_LINES[@]}"; do
      if ! grep -qF "$line" "$console" 2>/dev/null; then ready=0; missing="$missing '$line';"; fi
    done
    [ "$ready" = 1 ] && break
    if [ $(( $(now_ms) - t0 )) -ge $((timeout * 1000)) ]; then
      say "FAILED: not ready after ${timeout} s (SLUICE_COMPAT_START_TIMEOUT); still missing:$missing"
      tail_logs
      cmd_stop
      exit 1
    fi
    sleep 0.2
  done
  trap - INT TERM
  echo "SLUICE_COMPAT_CONTROLLER=tcp://127.0.0.1:$ctl_port" >"$envfile"
  say "ready in $(elapsed "$t0") s: pid $pid, controller tcp://127.0.0.1:$ctl_port, segment store 127.0.0.1:$ss_port, logs in $run"
  cat "$envfile"
}

cmd_status() {
  local pid
  if pid=$(running_pid); then
    load_ports
    echo "running: pid $pid, controller tcp://127.0.0.1:$ctl_port, segment store 127.0.0.1:$ss_port, ZooKeeper 127.0.0.1:$zk_port"
    return 0
  fi
  echo "not running"
  return 3
}

cmd_logs() {
  [ -f "$console" ] || die "no log yet ($console)"
  if [ "${1:-}" = "-f" ]; then
    exec tail -n +1 -f "$console"
  fi
  cat "$console"
  say "full log: $run/standalone.log"
}

cmd_env() {
  running_pid >/dev/null || { say "not running"; return 3; }
  cat "$envfile"
}

case "${1:-}" in
  start) shift; cmd_start "$@" ;;
  stop) cmd_stop ;;
  status) cmd_status ;;
  logs) shift; cmd_logs "$@" ;;
  env) cmd_env ;;
  classpath) resolve_classpath; echo "$cpfile" ;;
  -h|--help|help) sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//' ;;
  *) say "usage: $0 start [--port-base N] | stop | status | logs [-f] | env | classpath"; exit 2 ;;
esac
