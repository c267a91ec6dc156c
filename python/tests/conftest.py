"""Fixtures: one embedded server and one client for the whole session (JPype starts one JVM per process), and a
fresh scope per test."""

import os
import re
import sys
import uuid

import pytest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import sluice  # noqa: E402


@pytest.fixture(scope="session")
def server():
    with sluice.EmbeddedServer() as s:
        yield s


@pytest.fixture(scope="session")
def client(server):
    with sluice.Client(server.controller_uri) as c:
        yield c


@pytest.fixture
def scope(client, request):
    """A scope of this test's own (created; deleted with what it holds afterwards)."""
    name = "py-" + re.sub(r"[^A-Za-z0-9]+", "-", request.node.name)[:40].strip("-") + "-" + uuid.uuid4().hex[:8]
    assert client.create_scope(name)
    yield name
    client.delete_scope(name, recursive=True)


def read_exactly(reader, count, timeout=20.0):
    """Reads `count` events (failing if they take longer than `timeout` seconds in all) and returns them."""
    import time
    deadline = time.monotonic() + timeout
    events = []
    while len(events) < count:
        left = deadline - time.monotonic()
        assert left > 0, "read %d of %d events in %.0f s" % (len(events), count, timeout)
        event = reader.read_next_event(timeout=min(left, 1.0))
        if event is not None:
            events.append(event)
    return events
