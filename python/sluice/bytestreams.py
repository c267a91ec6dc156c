"""Byte streams as Python file objects: io.RawIOBase over io.sluice.bytestream.ByteStreamReader / ByteStreamWriter.

Wrap them in io.BufferedReader / io.BufferedWriter / io.TextIOWrapper like any raw file. A read at the tail of a
stream that is not sealed waits until a writer appends; read() and readall() end (return b"") only at the end of a
sealed stream.
"""

import io

import jpype

from .errors import InvalidArgumentError, translated


class ByteStreamReader(io.RawIOBase):
    """Reads a byte stream from its head; readable and seekable (offsets are the stream's byte offsets)."""

    def __init__(self, java_reader):
        super().__init__()
        self._reader = java_reader

    def readable(self):
        """True: a reader reads."""
        return True

    def seekable(self):
        """True: seek() moves to any offset."""
        return True

    def readinto(self, buffer):
        """Reads up to len(buffer) bytes into it, blocking until at least one is there; 0 at the end of a sealed
        stream."""
        self._checkClosed()
        view = memoryview(buffer).cast("B")
        if len(view) == 0:
            return 0
        chunk = jpype.JArray(jpype.JByte)(len(view))
        with translated():
            n = int(self._reader.read(chunk, 0, len(view)))
        if n <= 0:
            return 0
        view[:n] = memoryview(chunk).cast("B")[:n]  # the Java array's own buffer: one copy
        return n

    def available(self):
        """Bytes buffered that a read returns without blocking."""
        self._checkClosed()
        with translated():
            return int(self._reader.available())

    def tell(self):
        """The offset of the next byte a read returns."""
        self._checkClosed()
        with translated():
            return int(self._reader.offset())

    def seek(self, offset, whence=io.SEEK_SET):
        """Moves to ``offset`` (from the start, the current offset or the tail, by ``whence``); returns the new
        offset."""
        self._checkClosed()
        with translated():
            if whence == io.SEEK_SET:
                target = offset
            elif whence == io.SEEK_CUR:
                target = int(self._reader.offset()) + offset
            elif whence == io.SEEK_END:
                target = int(self._reader.tailOffset()) + offset
            else:
                raise InvalidArgumentError("whence must be io.SEEK_SET, SEEK_CUR or SEEK_END, not %r" % (whence,))
            if target < 0:
                raise InvalidArgumentError("cannot seek to a negative offset: %d" % target)
            self._reader.seekToOffset(target)
        return target

    @property
    def head_offset(self):
        """The first offset that can still be read (0 unless truncated)."""
        with translated():
            return int(self._reader.headOffset())

    @property
    def tail_offset(self):
        """The offset just past the last byte written."""
        with translated():
            return int(self._reader.tailOffset())

    def close(self):
        """Stops reading (idempotent)."""
        if not self.closed:
            try:
                with translated():
                    self._reader.close()
            finally:
                super().close()


class ByteStreamWriter(io.RawIOBase):
    """Appends to a byte stream; writable. flush() waits until everything written is durable."""

    def __init__(self, java_writer):
        super().__init__()
        self._writer = java_writer
        self._java_closed = False

    def writable(self):
        """True: a writer writes."""
        return True

    def write(self, data):
        """Appends ``data`` (bytes-like; str is refused, as for binary files); returns its length."""
        self._checkClosed()
        if isinstance(data, str):
            raise InvalidArgumentError("a byte stream takes bytes, not str (encode it, or wrap the writer in "
                                       "io.TextIOWrapper)")
        chunk = bytes(memoryview(data).cast("B"))
        if chunk:
            java_bytes = jpype.JArray(jpype.JByte)(chunk)
            with translated():
                self._writer.write(java_bytes, 0, len(chunk))
        return len(chunk)

    def flush(self):
        """Waits until every byte written so far is durable."""
        if self.closed or self._java_closed:
            return
        with translated():
            self._writer.flush()

    @property
    def head_offset(self):
        """The first offset that can still be read (0 unless truncated)."""
        with translated():
            return int(self._writer.headOffset())

    @property
    def tail_offset(self):
        """The offset just past the last byte durably written."""
        with translated():
            return int(self._writer.tailOffset())

    def truncate_before(self, offset):
        """Deletes the stream's bytes before ``offset``."""
        with translated():
            self._writer.truncateDataBefore(int(offset))

    def seal(self):
        """Flushes, closes this writer and seals the stream: readers then reach its end."""
        if not self.closed:
            try:
                with translated():
                    self._writer.closeAndSeal()
            finally:
                self._java_closed = True
                super().close()

    def close(self):
        """Flushes and closes the writer (idempotent); the stream stays open for other writers."""
        if not self.closed:
            try:
                with translated():
                    self._writer.close()  # flushes first
            finally:
                self._java_closed = True
                super().close()
