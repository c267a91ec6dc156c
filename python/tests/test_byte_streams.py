"""Byte streams as file objects: io.RawIOBase writer and reader, seeking, buffered and text wrappers, sealing."""

import io

import pytest

import sluice


def read_exactly(f, n):
    out = b""
    while len(out) < n:
        chunk = f.read(n - len(out))
        assert chunk, "the stream ended after %d of %d bytes" % (len(out), n)
        out += chunk
    return out


def test_write_then_read_seek_and_tell(client, scope):
    client.create_stream(scope, "bytes", segments=1)
    data = bytes(i % 251 for i in range(100_000))
    with client.byte_stream_writer(scope, "bytes") as w:
        assert w.writable() and not w.readable()
        assert w.write(data[:60_000]) == 60_000
        assert w.write(memoryview(data)[60_000:]) == 40_000
        w.flush()
        assert w.tail_offset == len(data)
    with client.byte_stream_reader(scope, "bytes") as r:
        assert r.readable() and r.seekable() and not r.writable()
        assert r.tell() == 0 and r.head_offset == 0 and r.tail_offset == len(data)
        assert read_exactly(r, 1000) == data[:1000]
        assert r.tell() == 1000
        assert r.seek(50_000) == 50_000
        assert read_exactly(r, 10) == data[50_000:50_010]
        assert r.seek(-5, io.SEEK_END) == len(data) - 5
        assert read_exactly(r, 5) == data[-5:]
        assert r.seek(-10, io.SEEK_CUR) == len(data) - 10
        buf = bytearray(10)
        n = r.readinto(buf)
        assert 0 < n <= 10 and bytes(buf[:n]) == data[-10:-10 + n or None]
        with pytest.raises(ValueError, match="negative offset"):
            r.seek(-1)
    assert r.closed
    with pytest.raises(ValueError):
        r.read(1)


def test_sealed_stream_reads_to_its_end_through_buffered_and_text_wrappers(client, scope):
    client.create_stream(scope, "log", segments=1)
    w = client.byte_stream_writer(scope, "log")
    text = io.TextIOWrapper(io.BufferedWriter(w), encoding="utf-8")
    for i in range(1000):
        text.write("line %d ✓\n" % i)
    text.flush()
    w.seal()
    assert w.closed
    with client.byte_stream_reader(scope, "log") as r:
        lines = io.TextIOWrapper(io.BufferedReader(r), encoding="utf-8").readlines()
    assert lines == ["line %d ✓\n" % i for i in range(1000)]
    with client.byte_stream_reader(scope, "log") as r:
        assert r.readall() == "".join(lines).encode("utf-8")  # ends at the end of the sealed stream


def test_truncation(client, scope):
    client.create_stream(scope, "t", segments=1)
    with client.byte_stream_writer(scope, "t") as w:
        w.write(b"0123456789")
        w.flush()
        w.truncate_before(4)
        assert w.head_offset == 4
    with client.byte_stream_reader(scope, "t") as r:
        assert r.head_offset == 4
        r.seek(0)
        with pytest.raises(sluice.SegmentTruncatedError):
            r.read(1)
        r.seek(4)
        assert read_exactly(r, 6) == b"456789"


def test_str_and_multi_segment_streams_are_refused(client, scope):
    client.create_stream(scope, "one", segments=1)
    with client.byte_stream_writer(scope, "one") as w:
        with pytest.raises(ValueError, match="takes bytes, not str"):
            w.write("text")
    client.create_stream(scope, "two", segments=2)
    with pytest.raises(sluice.InvalidArgumentError):
        client.byte_stream_writer(scope, "two")
