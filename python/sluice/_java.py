"""The Java classes this package calls, looked up once the JVM runs, and conversions of values to and from Java."""

import datetime

import jpype

from . import _jvm


class _Classes:
    """Lazy access to Java classes by short name (JVM started on first use)."""

    _NAMES = {
        "SluiceClient": "io.sluice.client.SluiceClient",
        "ClientConfig": "io.sluice.client.ClientConfig",
        "BasicCredentials": "io.sluice.auth.BasicCredentials",
        "EmbeddedServer": "io.sluice.server.EmbeddedServer",
        "Serializers": "io.sluice.stream.Serializers",
        "StreamConfiguration": "io.sluice.stream.StreamConfiguration",
        "ScalingPolicy": "io.sluice.stream.ScalingPolicy",
        "ReaderGroupConfig": "io.sluice.stream.ReaderGroupConfig",
        "ScopedStream": "io.sluice.stream.ScopedStream",
        "EventPointer": "io.sluice.stream.EventPointer",
        "KeyValueTableConfiguration": "io.sluice.table.KeyValueTableConfiguration",
        "TableKey": "io.sluice.table.TableKey",
        "Put": "io.sluice.table.Put",
        "Insert": "io.sluice.table.Insert",
        "Remove": "io.sluice.table.Remove",
        "Version": "io.sluice.table.Version",
        "Duration": "java.time.Duration",
        "Path": "java.nio.file.Path",
        "ByteBuffer": "java.nio.ByteBuffer",
        "UUID": "java.util.UUID",
        "String": "java.lang.String",
        "AlreadyExistsException": "io.sluice.errors.AlreadyExistsException",
    }

    def __getattr__(self, short):
        name = self._NAMES.get(short)
        if name is None:
            raise AttributeError(short)
        _jvm.ensure_started()
        try:
            cls = jpype.JClass(name)
        except TypeError as e:  # JPype's "Class ... is not found"
            from .errors import SluiceError
            raise SluiceError("Java class %s is not on the class path of this process's JVM (started before sluice "
                              "with another class path? JPype starts one JVM per process)" % name) from e
        setattr(self, short, cls)
        return cls


J = _Classes()


def payload(data, what="data"):
    """Python bytes-like or str (as UTF-8) -> Java byte[]."""
    if isinstance(data, str):
        data = data.encode("utf-8")
    elif isinstance(data, (bytes, bytearray, memoryview)):
        data = bytes(data)
    else:
        from .errors import InvalidArgumentError
        raise InvalidArgumentError("%s must be bytes or str, not %s" % (what, type(data).__name__))
    _jvm.ensure_started()
    return jpype.JArray(jpype.JByte)(data)


def byte_buffer(data, what="key"):
    """Python bytes-like or str (as UTF-8) -> java.nio.ByteBuffer."""
    return J.ByteBuffer.wrap(payload(data, what))


def to_bytes(java_bytes):
    """Java byte[] (or None) -> Python bytes (or None)."""
    if java_bytes is None:
        return None
    return bytes(java_bytes)


def buffer_bytes(buffer):
    """java.nio.ByteBuffer (or None) -> Python bytes of its remaining content (or None); leaves it untouched."""
    if buffer is None:
        return None
    dup = buffer.duplicate()
    out = jpype.JArray(jpype.JByte)(int(dup.remaining()))
    dup.get(out)
    return bytes(out)


def duration(seconds, what="timeout"):
    """Seconds (int, float or datetime.timedelta) -> java.time.Duration."""
    if isinstance(seconds, datetime.timedelta):
        seconds = seconds.total_seconds()
    if not isinstance(seconds, (int, float)) or isinstance(seconds, bool):
        from .errors import InvalidArgumentError
        raise InvalidArgumentError("%s must be a number of seconds, not %r" % (what, seconds))
    if seconds < 0:
        from .errors import InvalidArgumentError
        raise InvalidArgumentError("%s must not be negative: %r" % (what, seconds))
    return J.Duration.ofNanos(int(round(seconds * 1e9)))


def strings(java_list):
    """Java List<String> -> Python list of str."""
    return [str(s) for s in java_list]
