"""Client: streams, writers, readers, transactions and key-value tables of a Sluice (or Pravega) cluster.

A thin layer over io.sluice.client.SluiceClient with Python names and types: payloads are ``bytes`` (raw) or ``str``
(written as UTF-8), time-outs are seconds, and Java exceptions come out as the SluiceError classes of sluice.errors.
"""

import enum
import uuid

from . import _java
from ._java import J
from .bytestreams import ByteStreamReader, ByteStreamWriter
from .errors import InvalidArgumentError, translated


class Client:
    """A connection to a controller (io.sluice.client.SluiceClient). Use it as a context manager, or call close().

    Args:
        controller_uri: ``tcp://host:port`` (or ``tls://``, ``pravega://`` for discovery)
        user, password: credentials for a server with authentication on (both or neither)
    """

    def __init__(self, controller_uri, user=None, password=None):
        if not isinstance(controller_uri, str):
            raise InvalidArgumentError("controller_uri must be a str, not %s" % type(controller_uri).__name__)
        if (user is None) != (password is None):
            raise InvalidArgumentError("give both user and password, or neither")
        with translated():
            builder = J.ClientConfig.builder(controller_uri)
            if user is not None:
                builder = builder.credentials(J.BasicCredentials(user, password))
            self._client = J.SluiceClient.connect(builder.build())
            self._streams = self._client.streamManager()
        self._closed = False

    # --- scopes and streams -----------------------------------------------------------------------------------

    def create_scope(self, scope):
        """Creates a scope; returns False if it existed."""
        with translated():
            return bool(self._streams.createScope(scope))

    def scope_exists(self, scope):
        """Returns whether the scope exists."""
        with translated():
            return bool(self._streams.scopeExists(scope))

    def list_scopes(self):
        """Returns the names of all scopes."""
        with translated():
            return _java.strings(self._streams.listScopes())

    def delete_scope(self, scope, recursive=False):
        """Deletes a scope (it must be empty unless ``recursive``); returns False if it did not exist."""
        with translated():
            if recursive:
                return bool(self._streams.deleteScopeRecursive(scope))
            return bool(self._streams.deleteScope(scope))

    def create_stream(self, scope, stream, segments=1, tags=()):
        """Creates a stream of ``segments`` fixed segments; returns False if it existed with this configuration."""
        if not isinstance(segments, int) or isinstance(segments, bool) or segments < 1:
            raise InvalidArgumentError("segments must be a positive int, not %r" % (segments,))
        with translated():
            config = J.StreamConfiguration.builder().scalingPolicy(J.ScalingPolicy.fixed(segments))
            for tag in tags:
                config = config.tag(tag)
            return bool(self._streams.createStream(scope, stream, config.build()))

    def stream_exists(self, scope, stream):
        """Returns whether the stream exists."""
        with translated():
            return bool(self._streams.streamExists(scope, stream))

    def list_streams(self, scope, tag=None):
        """Returns the names of the scope's streams (those with ``tag`` if given)."""
        with translated():
            if tag is None:
                return _java.strings(self._streams.listStreams(scope))
            return _java.strings(self._streams.listStreams(scope, tag))

    def seal_stream(self, scope, stream):
        """Seals a stream: no more writes; readers reach its end."""
        with translated():
            self._streams.sealStream(scope, stream)

    def delete_stream(self, scope, stream):
        """Seals (if needed) and deletes a stream; returns False if it did not exist."""
        with translated():
            if not self._streams.streamExists(scope, stream):
                return False
            self._streams.sealStream(scope, stream)
            return bool(self._streams.deleteStream(scope, stream))

    # --- events -------------------------------------------------------------------------------------------------

    def writer(self, scope, stream):
        """Returns a Writer of events to the stream."""
        with translated():
            return Writer(self._client.newWriter(scope, stream, J.Serializers.bytes()))

    def reader(self, scope, stream, group, reader_id=None, encoding=None):
        """Returns a Reader in reader group ``group`` of the scope, creating the group (reading ``stream`` from its
        head) if it does not exist yet.

        Args:
            reader_id: the reader's id in the group; a fresh one if None
            encoding: if given (e.g. "utf-8"), events' data is decoded to str with it; else it is bytes
        """
        if reader_id is None:
            reader_id = "python-" + uuid.uuid4().hex
        with translated():
            groups = self._client.readerGroupManager(scope)
            config = J.ReaderGroupConfig.builder().stream(J.ScopedStream.of(scope, stream)).build()
            try:
                group_handle = groups.createReaderGroup(group, config)
            except J.AlreadyExistsException:
                # it exists with another configuration (e.g. made by a Java program): join it if it reads the stream
                group_handle = groups.readerGroup(group)
                streams = [str(s.scopedName()) for s in group_handle.config().startingStreamCuts().keySet()]
                if "%s/%s" % (scope, stream) not in streams:
                    group_handle.close()
                    raise InvalidArgumentError("reader group %s/%s reads %s, not %s/%s"
                                               % (scope, group, ", ".join(streams), scope, stream)) from None
            try:
                java_reader = self._client.newReader(scope, group, reader_id, J.Serializers.bytes())
            except BaseException:
                group_handle.close()
                raise
        return Reader(java_reader, group_handle, encoding)

    def reader_group(self, scope, group):
        """Returns the existing ReaderGroup ``scope/group`` (NoSuchStreamError if there is none)."""
        with translated():
            return ReaderGroup(self._client.readerGroupManager(scope).readerGroup(group))

    def delete_reader_group(self, scope, group):
        """Deletes a reader group; returns False if it did not exist."""
        with translated():
            return bool(self._client.readerGroupManager(scope).deleteReaderGroup(group))

    def fetch_event(self, pointer, encoding=None):
        """Reads again the event an Event's ``pointer`` names."""
        with translated():
            data = _java.to_bytes(self._streams.fetchEvent(J.EventPointer.parse(pointer), J.Serializers.bytes()))
        return data.decode(encoding) if encoding else data

    def transactional_writer(self, scope, stream):
        """Returns a TransactionalWriter: begin() transactions on the stream."""
        with translated():
            return TransactionalWriter(self._client.newTransactionalWriter(scope, stream, J.Serializers.bytes()))

    # --- byte streams ------------------------------------------------------------------------------------------

    def byte_stream_writer(self, scope, stream):
        """Returns a writable file object appending to a byte stream (a stream of one segment)."""
        with translated():
            return ByteStreamWriter(self._client.newByteStreamWriter(scope, stream))

    def byte_stream_reader(self, scope, stream):
        """Returns a readable, seekable file object over a byte stream, at its head."""
        with translated():
            return ByteStreamReader(self._client.newByteStreamReader(scope, stream))

    # --- key-value tables ---------------------------------------------------------------------------------------

    def create_key_value_table(self, scope, name, primary_key_length, secondary_key_length=0, partitions=1):
        """Creates a key-value table whose keys are ``primary_key_length`` bytes (plus ``secondary_key_length`` for
        tables with secondary keys); returns False if it existed."""
        with translated():
            config = (J.KeyValueTableConfiguration.builder().partitionCount(partitions)
                      .primaryKeyLength(primary_key_length).secondaryKeyLength(secondary_key_length).build())
            return bool(self._client.keyValueTableManager().createKeyValueTable(scope, name, config))

    def delete_key_value_table(self, scope, name):
        """Deletes a key-value table; returns False if it did not exist."""
        with translated():
            return bool(self._client.keyValueTableManager().deleteKeyValueTable(scope, name))

    def list_key_value_tables(self, scope):
        """Returns the names of the scope's key-value tables."""
        with translated():
            return _java.strings(self._client.keyValueTableManager().listKeyValueTables(scope))

    def key_value_table(self, scope, name):
        """Returns the KeyValueTable ``scope/name``."""
        with translated():
            return KeyValueTable(self._client.keyValueTable(scope, name))

    # --- lifetime -----------------------------------------------------------------------------------------------

    def close(self):
        """Closes the client and everything it opened (idempotent)."""
        if not self._closed:
            self._closed = True
            with translated():
                self._client.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False


def _routing_key(routing_key):
    if routing_key is not None and not isinstance(routing_key, str):
        raise InvalidArgumentError("routing_key must be a str or None, not %s" % type(routing_key).__name__)
    return routing_key


class WriteHandle:
    """What Writer.write returns: completes when the event is durable."""

    def __init__(self, handle):
        self._handle = handle

    @property
    def done(self):
        """True once the write finished (durable, or failed)."""
        return bool(self._handle.isDone())

    def wait(self, timeout=None):
        """Waits until the event is durable; raises the write's error, or TimeoutError after ``timeout`` seconds."""
        with translated():
            if timeout is None:
                self._handle.await_()
            else:
                self._handle.await_(_java.duration(timeout))


class Writer:
    """Writes events to a stream (io.sluice.stream.EventStreamWriter). Events of one routing key keep their order."""

    def __init__(self, java_writer):
        self._writer = java_writer

    def write(self, data, routing_key=None):
        """Queues an event (bytes, or str as UTF-8); returns a WriteHandle. Events without a routing key go to any
        segment."""
        routing_key = _routing_key(routing_key)
        event = _java.payload(data)
        with translated():
            if routing_key is None:
                return WriteHandle(self._writer.write(event))
            return WriteHandle(self._writer.write(routing_key, event))

    def write_and_wait(self, data, routing_key=None):
        """Writes an event and waits until it is durable."""
        self.write(data, routing_key).wait()

    def flush(self):
        """Waits until every event written so far is durable."""
        with translated():
            self._writer.flush()

    def close(self):
        """Flushes and closes the writer (idempotent)."""
        with translated():
            self._writer.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False


class Event:
    """An event a Reader read.

    Attributes:
        data: the payload: bytes, or str when the reader has an encoding
        pointer: where the event lies, as text; Client.fetch_event reads it again
        position: the reader's position after this event (an opaque Java io.sluice.stream.Position)
    """

    __slots__ = ("data", "pointer", "position")

    def __init__(self, data, pointer, position):
        self.data = data
        self.pointer = pointer
        self.position = position

    def __repr__(self):
        return "Event(data=%r, pointer=%r)" % (self.data, self.pointer)


class Checkpoint:
    """A completed checkpoint of a reader group: a position per stream, consistent with what its readers handed
    out before passing it. ``name`` is its name; ReaderGroup.reset_to_checkpoint goes back to it."""

    __slots__ = ("name", "_java")

    def __init__(self, java_checkpoint):
        self._java = java_checkpoint
        self.name = str(java_checkpoint.name())

    def __repr__(self):
        return "Checkpoint(%r)" % self.name


class ReaderGroup:
    """A reader group (io.sluice.admin.ReaderGroup): its readers, checkpoints and resets. Closing it leaves the group
    itself in place (Client.delete_reader_group deletes it)."""

    def __init__(self, java_group, owned=True):
        self._group = java_group
        self._owned = owned

    @property
    def scope(self):
        return str(self._group.scope())

    @property
    def name(self):
        return str(self._group.name())

    def online_readers(self):
        """Returns the ids of the readers in the group."""
        with translated():
            return {str(r) for r in self._group.onlineReaders()}

    def initiate_checkpoint(self, name, timeout=30.0):
        """Starts a checkpoint and waits (up to ``timeout`` seconds, else TimeoutError) until every reader passed
        it; returns the Checkpoint. Readers pass it in read_next_event, so they must be reading meanwhile."""
        with translated():
            return Checkpoint(self._group.initiateCheckpoint(name, _java.duration(timeout)))

    def last_checkpoint(self):
        """Returns the most recently completed Checkpoint, or None."""
        with translated():
            last = self._group.lastCheckpoint()
            return Checkpoint(last.get()) if last.isPresent() else None

    def reset_to_checkpoint(self, checkpoint):
        """Makes every reader start again from ``checkpoint`` (on its next read)."""
        if not isinstance(checkpoint, Checkpoint):
            raise InvalidArgumentError("checkpoint must be a sluice.Checkpoint, not %s" % type(checkpoint).__name__)
        with translated():
            self._group.resetToCheckpoint(checkpoint._java)

    def close(self):
        """Closes this handle (the group stays)."""
        if self._owned:
            with translated():
                self._group.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False


class Reader:
    """Reads events as a member of a reader group (io.sluice.stream.EventStreamReader). Close it to leave the group."""

    def __init__(self, java_reader, group_handle, encoding):
        self._reader = java_reader
        self._group = group_handle
        self._encoding = encoding
        self._completed = False

    @property
    def reader_id(self):
        """The reader's id in its group."""
        return str(self._reader.readerId())

    @property
    def group(self):
        """The ReaderGroup this reader is in (closed with the reader)."""
        return ReaderGroup(self._group, owned=False)

    @property
    def read_completed(self):
        """True once the group has read every segment to its end (the streams are sealed)."""
        return self._completed

    def read_next_event(self, timeout=1.0):
        """Returns the next Event, waiting up to ``timeout`` seconds, or None if none came (a time-out, a checkpoint
        the group passed, or the end of sealed streams: see read_completed)."""
        with translated():
            read = self._reader.readNextEvent(_java.duration(timeout))
            if read.readCompleted():
                self._completed = True
            if not read.hasEvent():
                return None
            data = _java.to_bytes(read.event())
            pointer = str(read.pointer().toString())
        if self._encoding:
            data = data.decode(self._encoding)
        return Event(data, pointer, read.position())

    def events(self, timeout=1.0):
        """Yields events until none comes for ``timeout`` seconds or the group has read everything."""
        while True:
            with translated():
                read = self._reader.readNextEvent(_java.duration(timeout))
            if read.hasEvent():
                data = _java.to_bytes(read.event())
                if self._encoding:
                    data = data.decode(self._encoding)
                yield Event(data, str(read.pointer().toString()), read.position())
                continue
            if read.readCompleted():
                self._completed = True
                return
            if not read.isCheckpoint():
                return  # the time-out passed

    def __iter__(self):
        return self.events()

    def close(self):
        """Leaves the group (idempotent)."""
        with translated():
            try:
                self._reader.close()
            finally:
                self._group.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False


class TxnState(enum.Enum):
    """A transaction's state (io.sluice.stream.TxnState)."""

    OPEN = "OPEN"
    COMMITTING = "COMMITTING"
    COMMITTED = "COMMITTED"
    ABORTING = "ABORTING"
    ABORTED = "ABORTED"


class Transaction:
    """Events written together: readers see all of them once commit() returns, or none after abort().

    As a context manager it commits when the block ends normally and aborts when it raises.
    """

    def __init__(self, java_txn):
        self._txn = java_txn

    @property
    def id(self):
        """The transaction's id (uuid.UUID)."""
        return uuid.UUID(str(self._txn.id().toString()))

    def write(self, data, routing_key=None):
        """Writes an event into the transaction."""
        routing_key = _routing_key(routing_key)
        event = _java.payload(data)
        with translated():
            if routing_key is None:
                self._txn.write(event)
            else:
                self._txn.write(routing_key, event)

    def flush(self):
        """Waits until every event written so far is durable in the transaction."""
        with translated():
            self._txn.flush()

    def commit(self):
        """Commits: the events become visible to readers, all together."""
        with translated():
            self._txn.commit()

    def abort(self):
        """Aborts: the events are dropped."""
        with translated():
            self._txn.abort()

    def status(self):
        """Returns the transaction's TxnState (asks the controller)."""
        with translated():
            return TxnState(str(self._txn.status().name()))

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb):
        if exc_type is None:
            self.commit()
        else:
            self.abort()
        return False


class TransactionalWriter:
    """Begins transactions on a stream (io.sluice.stream.TransactionalEventStreamWriter)."""

    def __init__(self, java_writer):
        self._writer = java_writer

    def begin(self):
        """Begins a Transaction."""
        with translated():
            return Transaction(self._writer.beginTxn())

    def transaction(self, txn_id):
        """Returns the Transaction with this id (uuid.UUID or its text), e.g. begun by another writer."""
        with translated():
            return Transaction(self._writer.getTxn(J.UUID.fromString(str(txn_id))))

    def close(self):
        """Closes the writer (transactions begun stay as they are)."""
        with translated():
            self._writer.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False


class Version:
    """A key's version in a key-value table, for conditional updates. Its text is "segmentId:version"."""

    __slots__ = ("segment_id", "segment_version")

    def __init__(self, segment_id, segment_version):
        self.segment_id = int(segment_id)
        self.segment_version = int(segment_version)

    @classmethod
    def _of(cls, java_version):
        return cls(java_version.segmentId(), java_version.segmentVersion())

    def _java(self):
        return J.Version(self.segment_id, self.segment_version)

    def __eq__(self, other):
        return isinstance(other, Version) and (self.segment_id, self.segment_version) == (
            other.segment_id, other.segment_version)

    def __hash__(self):
        return hash((self.segment_id, self.segment_version))

    def __str__(self):
        return "%d:%d" % (self.segment_id, self.segment_version)

    def __repr__(self):
        return "Version(%d, %d)" % (self.segment_id, self.segment_version)


class Entry:
    """A key-value table's entry: ``key`` and ``value`` (bytes) and its ``version``."""

    __slots__ = ("key", "value", "version")

    def __init__(self, key, value, version):
        self.key = key
        self.value = value
        self.version = version

    def __repr__(self):
        return "Entry(key=%r, value=%r, version=%r)" % (self.key, self.value, self.version)


class KeyValueTable:
    """A key-value table (io.sluice.table.KeyValueTable). Keys and values are bytes or str (as UTF-8); a key is
    exactly the table's primary key length, or a (primary, secondary) tuple for tables with secondary keys.
    Updates with a ``version`` are conditional: they fail with BadVersionError (or NoSuchKeyError) and change
    nothing unless the key is at that version."""

    def __init__(self, java_table):
        self._table = java_table

    @staticmethod
    def _key(key):
        if isinstance(key, tuple):
            if len(key) != 2:
                raise InvalidArgumentError("a key tuple is (primary, secondary), not %d items" % len(key))
            return J.TableKey(_java.byte_buffer(key[0]), _java.byte_buffer(key[1]))
        return J.TableKey(_java.byte_buffer(key))

    @staticmethod
    def _version(version):
        if version is None:
            return None
        if isinstance(version, str):
            with translated():
                return J.Version.fromString(version)
        if not isinstance(version, Version):
            raise InvalidArgumentError("version must be a sluice.Version or its text, not %s"
                                       % type(version).__name__)
        with translated():
            return version._java()

    @staticmethod
    def _entry(java_entry):
        key = java_entry.key()
        primary = _java.buffer_bytes(key.primaryKey())
        secondary = _java.buffer_bytes(key.secondaryKey())
        # TableKey.secondaryKey() is empty when there is none
        return Entry(primary if not secondary else (primary, secondary),
                     _java.buffer_bytes(java_entry.value()), Version._of(java_entry.version()))

    def put(self, key, value, version=None):
        """Writes ``value`` under ``key`` (only if the key is at ``version``, when given); returns the new Version."""
        jkey, jvalue, jversion = self._key(key), _java.byte_buffer(value, "value"), self._version(version)
        with translated():
            return Version._of(self._table.update(J.Put(jkey, jvalue, jversion)))

    def insert(self, key, value):
        """Writes ``value`` under a ``key`` that must not exist yet (else BadVersionError); returns its Version."""
        jkey, jvalue = self._key(key), _java.byte_buffer(value, "value")
        with translated():
            return Version._of(self._table.update(J.Insert(jkey, jvalue)))

    def remove(self, key, version=None):
        """Removes ``key`` (only if it is at ``version``, when given)."""
        jkey, jversion = self._key(key), self._version(version)
        with translated():
            self._table.update(J.Remove(jkey, jversion))

    def get(self, key):
        """Returns the key's Entry, or None if it does not exist."""
        jkey = self._key(key)
        with translated():
            entry = self._table.get(jkey)
            return None if entry is None else self._entry(entry)

    def __contains__(self, key):
        jkey = self._key(key)
        with translated():
            return bool(self._table.exists(jkey))

    def entries(self, primary_key=None):
        """Yields every Entry of the table (or of one primary key, for tables with secondary keys)."""
        with translated():
            it = self._table.iterator()
            selection = (it.forPrimaryKey(_java.byte_buffer(primary_key)) if primary_key is not None
                         else it.forRange(None, None))
            entries = selection.entries()
        while True:
            with translated():
                if not entries.hasNext():
                    return
                entry = entries.next()
            yield self._entry(entry)

    def close(self):
        """Closes the table's client side (the table stays)."""
        with translated():
            self._table.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

