"""Sluice for Python: the Sluice (Pravega-compatible) Java client and embedded server, through JPype.

The JVM starts on first use, on target/sluice.jar and target/lib/ of this checkout (or $SLUICE_JAR /
$SLUICE_CLASSPATH) with the JDK >= 21 the ./sluice launcher finds. One JVM per process (JPype's limit).

    import sluice
    with sluice.EmbeddedServer() as server, sluice.Client(server.controller_uri) as client:
        client.create_scope("shop")
        ...
"""

from .bytestreams import ByteStreamReader, ByteStreamWriter
from .client import (Checkpoint, Client, Entry, Event, KeyValueTable, Reader, ReaderGroup, Transaction,
                     TransactionalWriter, TxnState, Version, WriteHandle, Writer)
from .errors import (AlreadyExistsError, AuthenticationError, AuthError, AuthorizationError, BadVersionError,
                     ConditionalUpdateError, ConnectionError, IllegalStateError, InvalidArgumentError,
                     NoSuchKeyError, NoSuchScopeError, NoSuchSegmentError, NoSuchStreamError, NotFoundError,
                     PreconditionFailedError, ProtocolError, RetriableError, SegmentSealedError,
                     SegmentTruncatedError, SluiceError, TimeoutError, TransactionFailedError, WriterClosedError)
from .server import EmbeddedServer

__all__ = [name for name in dir() if not name.startswith("_") and name[0].isupper()]
