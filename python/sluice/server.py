"""EmbeddedServer: Sluice's controller and segment store in this process's JVM, for tests and small programs."""

import os

from ._java import J
from .errors import translated


class EmbeddedServer:
    """An embedded Sluice server (io.sluice.server.EmbeddedServer), started on construction, on free loopback ports.

    In memory by default (nothing survives it); with ``data_dir`` its data is kept durably in that folder (created if
    missing) and a later server on the same folder finds it again. Use it as a context manager, or call close().

    Args:
        data_dir: a folder for durable data, or None for memory only
        fsync: with data_dir, whether appends are forced to disk before they are acknowledged
        controller_port: the controller's port, 0 for a free one
        segment_store_port: the segment store's port, 0 for a free one
        password_file: a password file (as ``./sluice server --password-file`` takes) to turn authentication on
    """

    def __init__(self, data_dir=None, fsync=True, controller_port=0, segment_store_port=0, password_file=None):
        with translated():
            builder = J.EmbeddedServer.builder()
            if data_dir is not None:
                builder = builder.dataDir(J.Path.of(os.fspath(data_dir), []))
                builder = builder.fsync(bool(fsync))
            builder = builder.controllerPort(int(controller_port)).segmentStorePort(int(segment_store_port))
            if password_file is not None:
                builder = builder.passwordFile(J.Path.of(os.fspath(password_file), []))
            self._server = builder.start()
        self._closed = False

    @property
    def controller_uri(self):
        """The URI clients connect to, e.g. ``tcp://127.0.0.1:40123``."""
        return str(self._server.controllerUri())

    @property
    def segment_store_port(self):
        """The port the segment store listens on."""
        return int(self._server.segmentStoreEndpoint().port())

    def close(self):
        """Stops the server (idempotent)."""
        if not self._closed:
            self._closed = True
            with translated():
                self._server.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def __repr__(self):
        return "EmbeddedServer(%s%s)" % (self.controller_uri, ", closed" if self._closed else "")
