"""Writers and readers: str and bytes payloads, routing-key order, write handles, pointers, time-outs."""

import collections
import os

import pytest

import sluice

from conftest import read_exactly


def test_events_come_back_once_each_in_routing_key_order(client, scope):
    client.create_stream(scope, "s", segments=3)
    keys = ["k%d" % i for i in range(5)]
    with client.writer(scope, "s") as w:
        handles = [w.write("%s:%d" % (keys[i % 5], i), routing_key=keys[i % 5]) for i in range(200)]
        w.flush()
        assert all(h.done for h in handles)
    with client.reader(scope, "s", group="g", encoding="utf-8") as r:
        events = read_exactly(r, 200)
        assert r.read_next_event(timeout=0.2) is None  # nothing more
    assert all(isinstance(e.data, str) for e in events)
    assert sorted(e.data for e in events) == sorted("%s:%d" % (keys[i % 5], i) for i in range(200))
    by_key = collections.defaultdict(list)
    for e in events:
        key, n = e.data.split(":")
        by_key[key].append(int(n))
    for key, numbers in by_key.items():
        assert numbers == sorted(numbers), "events of %s out of order: %s" % (key, numbers)


def test_bytes_are_raw_and_str_is_utf8(client, scope):
    client.create_stream(scope, "s")
    raw = bytes(range(256)) + b"\x00\xff"
    with client.writer(scope, "s") as w:
        w.write_and_wait(raw)
        w.write_and_wait("grüße ✓")
        w.write_and_wait(bytearray(b"from a bytearray"))
        w.write_and_wait(b"")
    with client.reader(scope, "s", group="g") as r:
        events = read_exactly(r, 4)
    assert [e.data for e in events] == [raw, "grüße ✓".encode("utf-8"), b"from a bytearray", b""]
    assert all(type(e.data) is bytes for e in events)


def test_pointer_reads_the_event_again(client, scope):
    client.create_stream(scope, "s", segments=2)
    with client.writer(scope, "s") as w:
        for i in range(10):
            w.write("event %d" % i, routing_key=str(i))
    with client.reader(scope, "s", group="g") as r:
        events = read_exactly(r, 10)
    for e in events:
        assert isinstance(e.pointer, str) and e.position is not None
        assert client.fetch_event(e.pointer) == e.data
        assert client.fetch_event(e.pointer, encoding="utf-8") == e.data.decode()


def test_events_iteration_ends_after_an_idle_timeout_and_at_the_end_of_a_sealed_stream(client, scope):
    client.create_stream(scope, "s")
    with client.writer(scope, "s") as w:
        for i in range(5):
            w.write(str(i))
    with client.reader(scope, "s", group="g", encoding="utf-8") as r:
        assert [e.data for e in r.events(timeout=2.0)] == ["0", "1", "2", "3", "4"]
        assert not r.read_completed  # ended by the time-out: the stream is open
        with client.writer(scope, "s") as w:
            w.write_and_wait("5")
        client.seal_stream(scope, "s")
        # a sealed stream ends the iteration at once, however long the time-out
        assert [e.data for e in r.events(timeout=30.0)] == ["5"]
        assert r.read_completed


def test_a_second_reader_of_a_group_continues_where_the_first_left(client, scope):
    client.create_stream(scope, "s")
    with client.writer(scope, "s") as w:
        for i in range(6):
            w.write(str(i))
        w.flush()
    with client.reader(scope, "s", group="g", encoding="utf-8") as r:
        first = [e.data for e in read_exactly(r, 3)]
    with client.reader(scope, "s", group="g", encoding="utf-8") as r:
        rest = [e.data for e in read_exactly(r, 3)]
    assert first + rest == ["0", "1", "2", "3", "4", "5"]
    assert client.delete_reader_group(scope, "g")
    assert not client.delete_reader_group(scope, "g")


def test_read_next_event_times_out_with_none(client, scope):
    client.create_stream(scope, "s")
    with client.reader(scope, "s", group="g") as r:
        assert r.read_next_event(timeout=0.1) is None
        with pytest.raises(ValueError, match="timeout must not be negative"):
            r.read_next_event(timeout=-1)


def test_writing_to_a_sealed_stream_fails(client, scope):
    client.create_stream(scope, "s")
    client.seal_stream(scope, "s")
    with pytest.raises(sluice.SluiceError):
        with client.writer(scope, "s") as w:
            w.write_and_wait("too late")


def test_reader_joins_an_existing_group_of_the_stream_and_refuses_one_of_another(client, scope):
    import jpype
    client.create_stream(scope, "s")
    client.create_stream(scope, "other")
    # a group made from Java with a configuration of its own (no automatic checkpoints)
    J = jpype.JClass
    config = (J("io.sluice.stream.ReaderGroupConfig").builder().stream(scope + "/s")
              .disableAutomaticCheckpoints().build())
    java_client = client._client
    java_client.readerGroupManager(scope).createReaderGroup("made-in-java", config).close()
    with client.writer(scope, "s") as w:
        w.write_and_wait("hello")
    with client.reader(scope, "s", group="made-in-java", encoding="utf-8") as r:
        assert [e.data for e in read_exactly(r, 1)] == ["hello"]
    with pytest.raises(sluice.InvalidArgumentError) as caught:
        client.reader(scope, "other", group="made-in-java")
    assert str(caught.value) == "reader group %s/made-in-java reads %s/s, not %s/other" % (scope, scope, scope)


def test_checkpoint_and_reset_to_it(client, scope):
    import threading
    import time
    client.create_stream(scope, "s")
    with client.writer(scope, "s") as w:
        for i in range(5):
            w.write("before-%d" % i)
    with client.reader(scope, "s", group="g", encoding="utf-8") as r:
        assert [e.data for e in read_exactly(r, 5)] == ["before-%d" % i for i in range(5)]
        group = r.group
        assert group.name == "g" and group.scope == scope
        assert group.online_readers() == {r.reader_id}
        assert group.last_checkpoint() is None or group.last_checkpoint().name != "cp"
        result = {}

        def checkpoint():
            try:
                result["checkpoint"] = group.initiate_checkpoint("cp", timeout=20)
            except BaseException as e:  # reported by the assertion below
                result["error"] = e

        thread = threading.Thread(target=checkpoint)
        thread.start()
        deadline = time.monotonic() + 25
        while thread.is_alive():  # the reader passes the checkpoint while it reads
            assert time.monotonic() < deadline, "the checkpoint did not complete"
            assert r.read_next_event(timeout=0.2) is None  # no event: only the checkpoint
        thread.join()
        assert "error" not in result, result.get("error")
        cp = result["checkpoint"]
        assert cp.name == "cp"
        with client.reader_group(scope, "g") as same_group:
            assert same_group.last_checkpoint().name == "cp"

        with client.writer(scope, "s") as w:
            for i in range(3):
                w.write("after-%d" % i)
        assert [e.data for e in read_exactly(r, 3)] == ["after-%d" % i for i in range(3)]
        group.reset_to_checkpoint(cp)
        # from the checkpoint: the events after it once more, none before it
        assert [e.data for e in read_exactly(r, 3)] == ["after-%d" % i for i in range(3)]
        assert r.read_next_event(timeout=0.3) is None
    with pytest.raises(ValueError, match="must be a sluice.Checkpoint"):
        group.reset_to_checkpoint("cp")
