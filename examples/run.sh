#!/usr/bin/env bash
# Runs one of the examples against a running server: examples/run.sh NAME [ARGS...]
#   examples/run.sh QuickStart                       # against ./sluice server (tcp://127.0.0.1:9090)
#   examples/run.sh WordCount tcp://host:9090
#   examples/run.sh Follower examples/orders         # tail -f; Ctrl-C stops it
# NAME is a class of examples/src/main/java/io/sluice/examples. The examples compile with the project's tests
# (scripts/mvn -B -DskipTests package compiles them too; done here when they are missing or older than their
# sources).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=../scripts/find-jdk.sh
. "$here/scripts/find-jdk.sh"
sluice_find_jdk || exit 1
if [ $# -lt 1 ]; then
  echo "usage: examples/run.sh NAME [ARGS...]; NAME one of:" \
    "$(cd "$here/examples/src/main/java/io/sluice/examples" && ls ./*.java | sed 's|./||; s|\.java||' | tr '\n' ' ')" >&2
  exit 2
fi
name=$1
shift
src="$here/examples/src/main/java/io/sluice/examples/$name.java"
if [ ! -f "$src" ]; then
  echo "examples/run.sh: no example '$name' (no $src)" >&2
  exit 2
fi
class="$here/target/test-classes/io/sluice/examples/$name.class"
if [ ! -f "$class" ] || [ "$src" -nt "$class" ] || [ ! -d "$here/target/lib" ]; then
  echo "examples/run.sh: compiling (scripts/mvn -B -q -DskipTests package)..." >&2
  "$here/scripts/mvn" -B -q -o -DskipTests package >/dev/null 2>&1 || "$here/scripts/mvn" -B -q -DskipTests package >/dev/null
fi
opts=(-Djdk.pollerMode=1 -Dorg.slf4j.simpleLogger.defaultLogLevel=warn)
if [ "${SLUICE_JAVA_FEATURE:-21}" -ge 24 ]; then
  opts+=(--enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow) # as ./sluice does
fi
exec "$SLUICE_JAVA_HOME/bin/java" "${opts[@]}" -cp "$here/target/classes:$here/target/lib/*:$here/target/test-classes" "io.sluice.examples.$name" "$@"
