# Sourced by ./sluice, scripts/mvn, .ci/run and compat/*.sh: sets SLUICE_JAVA_HOME to a JDK >= 21 (and SLUICE_JAVA_FEATURE to
# its major version).
# Order: $JAVA_HOME, then every JDK under /usr/lib/jvm (newest first), then the `java` on PATH.
# Prints a clear message and returns 1 when none is found.
# Also sluice_huge_pages_option: the heap option ./sluice and compat/official-client.sh give their JVMs.

sluice_java_feature() {
  # Prints the feature (major) version of the java binary given as $1, or nothing. Reads JAVA_VERSION from the
  # JDK's `release` file when there is one (starting a JVM just to ask costs 100-300 ms on every ./sluice run).
  local release v
  release="$(dirname "$(dirname "$1")")/release"
  if [ -f "$release" ]; then
    v=$(sed -n 's/^JAVA_VERSION="\([0-9][0-9]*\).*/\1/p' "$release" | head -n 1)
    if [ -n "$v" ]; then
      echo "$v"
      return
    fi
  fi
  "$1" -XshowSettings:properties -version 2>&1 \
    | sed -n 's/^ *java\.specification\.version = \([0-9][0-9]*\).*/\1/p' | head -n 1
}

sluice_huge_pages_option() {
  # Prints -XX:+UseTransparentHugePages when the kernel gives transparent huge pages on request (mode madvise), else
  # nothing. The heap then takes fresh memory 2 MiB per page fault instead of 4 KiB: on a virtual machine where a
  # fault is dear, a JVM that grows its young generation spent a third of its CPU in faults (docs/benchmarks.md). With
  # mode always the kernel does it unasked; with never, the option would only make the JVM warn.
  local thp=/sys/kernel/mm/transparent_hugepage/enabled
  if [ -r "$thp" ] && grep -q '\[madvise\]' "$thp" 2>/dev/null; then
    echo "-XX:+UseTransparentHugePages"
  fi
}

sluice_jdk_candidates() {
  # Prints the JDK homes to consider, one per line, in order: $JAVA_HOME, /usr/lib/jvm/* (newest first), the java
  # on PATH.
  local dir
  [ -n "${JAVA_HOME:-}" ] && echo "$JAVA_HOME"
  for dir in $(ls -d /usr/lib/jvm/*/ 2>/dev/null | sort -rV); do
    echo "${dir%/}"
  done
  if command -v java >/dev/null 2>&1; then
    dirname "$(dirname "$(readlink -f "$(command -v java)")")"
  fi
}

sluice_find_compat_java() {
  # For the programs of compat/ (the Pravega standalone, the official client): sets SLUICE_COMPAT_JAVA to the java
  # of $SLUICE_COMPAT_JAVA_HOME if set, else of a JDK 17 (what Pravega 0.13 was released for), else of the newest
  # JDK >= $1. Returns 1 (printing nothing) if there is none.
  local min=$1 dir v best="" bestv=0
  if [ -n "${SLUICE_COMPAT_JAVA_HOME:-}" ]; then
    [ -x "$SLUICE_COMPAT_JAVA_HOME/bin/java" ] || return 1
    SLUICE_COMPAT_JAVA="$SLUICE_COMPAT_JAVA_HOME/bin/java"
    return 0
  fi
  while IFS= read -r dir; do
    [ -x "$dir/bin/java" ] || continue
    v=$(sluice_java_feature "$dir/bin/java")
    [ -n "$v" ] || continue
    if [ "$v" = 17 ]; then
      SLUICE_COMPAT_JAVA="$dir/bin/java"
      return 0
    fi
    if [ "$v" -ge "$min" ] && [ "$v" -gt "$bestv" ]; then
      best="$dir/bin/java"
      bestv=$v
    fi
  done < <(sluice_jdk_candidates)
  [ -n "$best" ] || return 1
  SLUICE_COMPAT_JAVA="$best"
}

sluice_find_jdk() {
  local candidates=() dir v
  mapfile -t candidates < <(sluice_jdk_candidates)
  for dir in "${candidates[@]}"; do
    [ -x "$dir/bin/java" ] && [ -x "$dir/bin/javac" ] || continue
    v=$(sluice_java_feature "$dir/bin/java")
    if [ -n "$v" ] && [ "$v" -ge 21 ]; then
      SLUICE_JAVA_HOME="$dir"
      SLUICE_JAVA_FEATURE="$v"
      export SLUICE_JAVA_HOME SLUICE_JAVA_FEATURE
      return 0
    fi
  done
  {
    echo "sluice: no JDK 21 or newer found."
    echo "  looked at: JAVA_HOME=${JAVA_HOME:-<unset>}, /usr/lib/jvm/*, and the java on PATH."
    echo "  install one (e.g. Temurin 21+) or point JAVA_HOME at it."
  } >&2
  return 1
}
