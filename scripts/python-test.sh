#!/usr/bin/env bash
# Runs the Python package's tests (python/tests, pytest) with /usr/bin/python3 and Debian's python3-jpype,
# python3-pytest and python3-pytest-timeout, against the embedded server in one JVM. Needs target/sluice.jar and
# target/lib/ (`scripts/mvn -B -DskipTests package`); arguments go to pytest (e.g. -k events, -x).
# Exit status: pytest's; 5 (no test collected) counts as a failure.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

py=/usr/bin/python3
missing=()
"$py" -c 'import jpype' 2>/dev/null || missing+=(python3-jpype)
"$py" -c 'import pytest' 2>/dev/null || missing+=(python3-pytest)
"$py" -c 'import pytest_timeout' 2>/dev/null || missing+=(python3-pytest-timeout)
if [ "${#missing[@]}" -gt 0 ]; then
  echo "python-test: missing Debian packages: ${missing[*]} (apt-get install -y ${missing[*]})" >&2
  exit 1
fi
if [ -z "${SLUICE_CLASSPATH:-}" ] && [ ! -f "${SLUICE_JAR:-target/sluice.jar}" ]; then
  echo "python-test: ${SLUICE_JAR:-target/sluice.jar} is missing: build it with scripts/mvn -B -DskipTests package" >&2
  exit 1
fi
# the JDK the launcher uses (python/sluice/_jvm.py takes SLUICE_JAVA_HOME first)
. scripts/find-jdk.sh
sluice_find_jdk
cd python
status=0
"$py" -m pytest -p no:cacheprovider "$@" || status=$?
if [ "$status" -eq 5 ]; then
  echo "python-test: no test ran" >&2
  exit 1
fi
exit "$status"
