"""EmbeddedServer options (a data directory, authentication), the README's example, and finding the JDK."""

import os
import re
import subprocess
import sys

import pytest

import sluice
from sluice import _jvm

from conftest import read_exactly

PYTHON_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REPO = os.path.dirname(PYTHON_DIR)


def test_data_dir_keeps_events_across_servers(tmp_path):
    with sluice.EmbeddedServer(data_dir=tmp_path / "data") as server, sluice.Client(server.controller_uri) as c:
        c.create_scope("durable")
        c.create_stream("durable", "s")
        with c.writer("durable", "s") as w:
            for i in range(20):
                w.write("event %d" % i)
    assert (tmp_path / "data").is_dir()
    with sluice.EmbeddedServer(data_dir=tmp_path / "data") as server, sluice.Client(server.controller_uri) as c:
        assert c.stream_exists("durable", "s")
        with c.reader("durable", "s", group="g", encoding="utf-8") as r:
            assert [e.data for e in read_exactly(r, 20)] == ["event %d" % i for i in range(20)]


def test_authentication(tmp_path):
    import jpype
    entry = jpype.JClass("io.sluice.server.controller.PasswordFile").entry(
        "admin", jpype.JArray(jpype.JChar)("secret"), "prn::*,READ_UPDATE", 1)
    users = tmp_path / "users"
    users.write_text(str(entry) + "\n")
    with sluice.EmbeddedServer(password_file=users) as server:
        with sluice.Client(server.controller_uri, user="admin", password="secret") as c:
            assert c.create_scope("guarded")
        with sluice.Client(server.controller_uri, user="admin", password="wrong") as c:
            with pytest.raises(sluice.AuthenticationError) as caught:
                c.create_scope("nope")
            assert isinstance(caught.value, sluice.AuthError)
        with sluice.Client(server.controller_uri) as c:
            with pytest.raises(sluice.AuthError):
                c.list_scopes()
    with pytest.raises(ValueError, match="both user and password"):
        sluice.Client("tcp://127.0.0.1:1", user="admin")


def readme_example():
    """The first ```python block of README.md's section "Python"."""
    with open(os.path.join(REPO, "README.md"), encoding="utf-8") as f:
        readme = f.read()
    section = re.search(r"^## Python\n(.*?)(?=^## )", readme, re.S | re.M)
    assert section, "README.md has no section '## Python'"
    block = re.search(r"^```python\n(.*?)^```", section.group(1), re.S | re.M)
    assert block, "README.md's section Python has no ```python block"
    return block.group(1)


def test_readme_example_runs_as_written():
    example = readme_example()
    assert 'sluice.EmbeddedServer()' in example and 'r.events(timeout=1.0)' in example
    env = dict(os.environ, PYTHONPATH=PYTHON_DIR)
    done = subprocess.run([sys.executable, "-c", example], env=env, capture_output=True, text=True, timeout=50)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "b'order placed'\n"


def test_jdk_is_21_or_newer_and_missing_jar_is_named(monkeypatch, tmp_path):
    home, libjvm = _jvm.find_jdk()
    assert _jvm._feature(home) >= 21 and os.path.isfile(libjvm)
    monkeypatch.delenv("SLUICE_JAVA_HOME", raising=False)
    monkeypatch.delenv("JAVA_HOME", raising=False)
    without_java_home = _jvm.find_jdk()
    monkeypatch.setenv("JAVA_HOME", str(tmp_path))  # not a JDK: skipped, the search goes on
    assert _jvm.find_jdk() == without_java_home
    old = tmp_path / "jdk-17"  # looks like a JDK, but too old: skipped too
    for rel in ("bin/java", "bin/javac", "lib/server/libjvm.so"):
        (old / rel).parent.mkdir(parents=True, exist_ok=True)
        (old / rel).write_text("")
        (old / rel).chmod(0o755)
    (old / "release").write_text('JAVA_VERSION="17.0.9"\n')
    assert _jvm._feature(str(old)) == 17
    monkeypatch.setenv("JAVA_HOME", str(old))
    assert _jvm.find_jdk() == without_java_home
    (old / "release").write_text('JAVA_VERSION="21.0.1"\n')
    assert _jvm.find_jdk() == (str(old), str(old / "lib/server/libjvm.so"))
    monkeypatch.delenv("SLUICE_CLASSPATH", raising=False)
    monkeypatch.setenv("SLUICE_JAR", str(tmp_path / "missing.jar"))
    with pytest.raises(sluice.SluiceError, match="missing.jar does not exist: build it with"):
        _jvm.class_path()
    monkeypatch.setenv("SLUICE_CLASSPATH", os.pathsep.join(["a.jar", "b.jar"]))
    assert _jvm.class_path() == ["a.jar", "b.jar"]


def free_port():
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_wait_times_out_while_the_server_is_down_and_the_write_lands_once_after_a_restart(tmp_path):
    import builtins
    ports = dict(controller_port=free_port(), segment_store_port=free_port())
    data = tmp_path / "data"
    server = sluice.EmbeddedServer(data_dir=data, **ports)
    try:
        with sluice.Client(server.controller_uri) as c:
            c.create_scope("restart")
            c.create_stream("restart", "s")
            with c.writer("restart", "s") as w:
                w.write_and_wait("before")
                server.close()
                handle = w.write("while down")
                with pytest.raises(sluice.TimeoutError) as caught:
                    handle.wait(timeout=0.5)
                assert isinstance(caught.value, builtins.TimeoutError)
                assert caught.value.java_class == "io.sluice.errors.DeadlineExceededException"
                assert not handle.done
                server = sluice.EmbeddedServer(data_dir=data, **ports)
                handle.wait(timeout=30)
            with c.reader("restart", "s", group="g", encoding="utf-8") as r:
                assert [e.data for e in read_exactly(r, 2)] == ["before", "while down"]
                assert r.read_next_event(timeout=0.5) is None  # once each
    finally:
        server.close()
