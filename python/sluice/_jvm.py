"""Starts the one JVM this process can have (JPype starts at most one) on Sluice's jar and its libraries.

The JDK is the one the launcher finds (scripts/find-jdk.sh): the first JDK 21 or newer (with bin/java and bin/javac,
as the launcher takes it, and the lib/server/libjvm.so JPype loads) of $SLUICE_JAVA_HOME (what find-jdk.sh chose, if
set), $JAVA_HOME, the JDKs under /usr/lib/jvm (newest first) and the one of the `java` on PATH. The class path is
$SLUICE_CLASSPATH if set, else $SLUICE_JAR (default: the checkout's target/sluice.jar) with the jars of the `lib/`
folder beside it (what `scripts/mvn -B -DskipTests package` builds).
"""

import glob
import os
import re
import shutil
import subprocess
import threading

import jpype

_REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
_MIN_FEATURE = 21
_lock = threading.Lock()


def _feature(home):
    """The JDK's major version: from its `release` file, else from what its java says (as find-jdk.sh does)."""
    try:
        with open(os.path.join(home, "release"), encoding="utf-8") as f:
            for line in f:
                m = re.match(r'JAVA_VERSION="(\d+)', line)
                if m:
                    return int(m.group(1))
    except OSError:
        pass
    try:
        out = subprocess.run([os.path.join(home, "bin", "java"), "-XshowSettings:properties", "-version"],
                             capture_output=True, text=True, timeout=30).stderr
    except (OSError, subprocess.SubprocessError):
        return None
    m = re.search(r"^\s*java\.specification\.version = (\d+)", out, re.M)
    return int(m.group(1)) if m else None


def _libjvm(home):
    for rel in ("lib/server/libjvm.so", "lib/client/libjvm.so", "jre/lib/server/libjvm.so"):
        path = os.path.join(home, rel)
        if os.path.isfile(path):
            return path
    return None


def _candidates():
    for var in ("SLUICE_JAVA_HOME", "JAVA_HOME"):
        if os.environ.get(var):
            yield os.environ[var]

    def version_key(path):
        return [int(p) if p.isdigit() else p for p in re.split(r"(\d+)", os.path.basename(path))]

    for home in sorted(glob.glob("/usr/lib/jvm/*/"), key=lambda p: version_key(p.rstrip("/")), reverse=True):
        yield home.rstrip("/")
    java = shutil.which("java")
    if java:
        yield os.path.dirname(os.path.dirname(os.path.realpath(java)))


def find_jdk():
    """Returns (java_home, libjvm path) of the first JDK >= 21 in the launcher's order; raises SluiceError if none."""
    looked = []
    for home in _candidates():
        looked.append(home)
        # a JDK as the launcher takes it (java and javac), with the shared library JPype loads
        if not all(os.access(os.path.join(home, "bin", tool), os.X_OK) for tool in ("java", "javac")):
            continue
        lib = _libjvm(home)
        feature = _feature(home) if lib else None
        if feature is not None and feature >= _MIN_FEATURE:
            return home, lib
    from .errors import SluiceError
    raise SluiceError("no JDK %d or newer found (looked at: %s); install one or point JAVA_HOME at it"
                      % (_MIN_FEATURE, ", ".join(looked) or "nothing"))


def class_path():
    """The jars to start the JVM on; raises SluiceError naming what is missing."""
    from .errors import SluiceError
    explicit = os.environ.get("SLUICE_CLASSPATH")
    if explicit:
        return [p for p in explicit.split(os.pathsep) if p]
    jar = os.environ.get("SLUICE_JAR") or os.path.join(_REPO, "target", "sluice.jar")
    if not os.path.isfile(jar):
        raise SluiceError("Sluice's jar %s does not exist: build it with `scripts/mvn -B -DskipTests package`, "
                          "or set SLUICE_JAR or SLUICE_CLASSPATH" % jar)
    return [jar] + sorted(glob.glob(os.path.join(os.path.dirname(jar), "lib", "*.jar")))


def _jpype_jar():
    """JPype's own jar: beside the jpype package (pip), or in /usr/share/java (Debian's python3-jpype, whose JPype
    does not add it by itself and then fails with ClassNotFoundException: org.jpype.classloader.DynamicClassLoader)."""
    beside = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(jpype.__file__))), "org.jpype.jar")
    for path in (beside, "/usr/share/java/org.jpype.jar"):
        if os.path.isfile(path):
            return [path]
    return []


def ensure_started():
    """Starts the JVM unless it runs already (in this process, by this module or anyone else)."""
    with _lock:
        if jpype.isJVMStarted():
            return
        _home, lib = find_jdk()
        # JPype loads its native part through JNI: allowed explicitly, the JDK does not warn about it
        # Sluice logs warnings and errors only (SLUICE_JVM_ARGS=-Dorg.slf4j.simpleLogger.defaultLogLevel=info for more)
        jvm_args = ["--enable-native-access=ALL-UNNAMED", "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn"]
        jvm_args += os.environ.get("SLUICE_JVM_ARGS", "").split()
        jpype.startJVM(lib, *jvm_args, classpath=_jpype_jar() + class_path(), convertStrings=False)
