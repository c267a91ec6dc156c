# Sourced by ./sluice, scripts/mvn and .ci/run: sets SLUICE_JAVA_HOME to a JDK >= 21 (and SLUICE_JAVA_FEATURE to
# its major version).
# Order: $JAVA_HOME, then every JDK under /usr/lib/jvm (newest first), then the `java` on PATH.
# Prints a clear message and returns 1 when none is found.

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

sluice_find_jdk() {
  local candidates=() dir v
  [ -n "${JAVA_HOME:-}" ] && candidates+=("$JAVA_HOME")
  for dir in $(ls -d /usr/lib/jvm/*/ 2>/dev/null | sort -rV); do
    candidates+=("${dir%/}")
  done
  if command -v java >/dev/null 2>&1; then
    candidates+=("$(dirname "$(dirname "$(readlink -f "$(command -v java)")")")")
  fi
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
