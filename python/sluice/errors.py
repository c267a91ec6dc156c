"""Python exceptions for Sluice's Java exceptions: a small hierarchy under SluiceError, with the Java messages.

Every exception a Java call of this package throws reaches Python as one of these classes (raised ``from`` the Java
exception, so the Java stack trace stays in ``__cause__``). ``str(error)`` is the Java exception's message and
``error.java_class`` the Java class's name. The mapping follows the Java class and its superclasses, nearest first:
a Java exception without a Python class of its own becomes the class of its nearest mapped superclass.
"""

import builtins
import contextlib


class SluiceError(Exception):
    """Base of every error this package raises.

    Attributes:
        java_class: the name of the Java exception's class, or None for errors raised in Python
    """

    def __init__(self, message, java_class=None):
        super().__init__(message)
        self.java_class = java_class


class InvalidArgumentError(SluiceError, ValueError):
    """A bad argument (Java's IllegalArgumentException, NullPointerException), e.g. an invalid name."""


class IllegalStateError(SluiceError, RuntimeError):
    """An operation on an object in the wrong state (Java's IllegalStateException), e.g. a closed reader."""


class NotFoundError(SluiceError, LookupError):
    """Something named does not exist."""


class NoSuchScopeError(NotFoundError):
    """The scope does not exist."""


class NoSuchStreamError(NotFoundError):
    """The stream (or key-value table, or reader group) does not exist."""


class NoSuchSegmentError(NotFoundError):
    """A segment does not exist (any more)."""


class AlreadyExistsError(SluiceError):
    """The object exists already, with another configuration."""


class PreconditionFailedError(SluiceError):
    """The object is not in the state the operation needs (e.g. a scope that is not empty)."""


class ConditionalUpdateError(SluiceError):
    """A conditional update of a key-value table was refused: nothing of it was applied."""


class BadVersionError(ConditionalUpdateError):
    """A key is not at the version the update needs (or exists already, for an insert)."""


class NoSuchKeyError(ConditionalUpdateError):
    """A key a conditional update names does not exist."""


class AuthError(SluiceError):
    """Authentication or authorisation failed."""


class AuthenticationError(AuthError):
    """The credentials were refused."""


class AuthorizationError(AuthError):
    """The credentials do not allow the operation."""


class RetriableError(SluiceError):
    """A failure that retrying may cure (connections, time-outs), raised once the retries are used up."""


class TimeoutError(RetriableError, builtins.TimeoutError):  # noqa: A001 - the name mirrors the builtin on purpose
    """An operation did not finish in time (a deadline or back-pressure time-out)."""


class ConnectionError(RetriableError, builtins.ConnectionError):  # noqa: A001
    """A connection could not be made or was lost."""


class TransactionFailedError(SluiceError):
    """A transaction could not be committed (it was aborted or timed out)."""


class SegmentSealedError(SluiceError):
    """The stream (or segment) is sealed: nothing more can be written."""


class SegmentTruncatedError(SluiceError):
    """Data was truncated away before it was read."""


class WriterClosedError(SluiceError):
    """The writer is closed."""


class ProtocolError(SluiceError):
    """The server answered something this client does not understand."""


# Java class name -> Python class; looked up for the Java class and then each superclass.
_BY_JAVA_CLASS = {
    "io.sluice.errors.SluiceException": SluiceError,
    "io.sluice.errors.NoSuchScopeException": NoSuchScopeError,
    "io.sluice.errors.NoSuchStreamException": NoSuchStreamError,
    "io.sluice.errors.NoSuchSegmentException": NoSuchSegmentError,
    "io.sluice.errors.AlreadyExistsException": AlreadyExistsError,
    "io.sluice.errors.PreconditionFailedException": PreconditionFailedError,
    "io.sluice.errors.BadKeyVersionException": BadVersionError,
    "io.sluice.errors.NoSuchKeyException": NoSuchKeyError,
    "io.sluice.errors.AuthenticationException": AuthenticationError,
    "io.sluice.errors.AuthorizationException": AuthorizationError,
    "io.sluice.errors.RetriableException": RetriableError,
    "io.sluice.errors.DeadlineExceededException": TimeoutError,
    "io.sluice.errors.BackpressureTimeoutException": TimeoutError,
    "io.sluice.errors.ConnectionFailedException": ConnectionError,
    "io.sluice.errors.TransactionFailedException": TransactionFailedError,
    "io.sluice.errors.SegmentSealedException": SegmentSealedError,
    "io.sluice.errors.SegmentTruncatedException": SegmentTruncatedError,
    "io.sluice.errors.WriterClosedException": WriterClosedError,
    "io.sluice.errors.ProtocolException": ProtocolError,
    "java.lang.IllegalArgumentException": InvalidArgumentError,
    "java.lang.NullPointerException": InvalidArgumentError,
    "java.lang.IllegalStateException": IllegalStateError,
    "java.io.UncheckedIOException": SluiceError,
    "java.lang.Throwable": SluiceError,
}

_WRAPPERS = ("java.util.concurrent.CompletionException", "java.util.concurrent.ExecutionException")


def from_java(throwable):
    """Returns the Python exception for a Java throwable (unwrapping CompletionException and ExecutionException)."""
    while str(throwable.getClass().getName()) in _WRAPPERS and throwable.getCause() is not None:
        throwable = throwable.getCause()
    cls = throwable.getClass()
    name = str(cls.getName())
    while cls is not None:
        py = _BY_JAVA_CLASS.get(str(cls.getName()))
        if py is not None:
            break
        cls = cls.getSuperclass()
    message = throwable.getMessage()
    message = str(message) if message is not None else name
    return (py or SluiceError)(message, java_class=name)


@contextlib.contextmanager
def translated():
    """Runs the block, turning any Java exception it raises into its SluiceError."""
    import jpype
    try:
        yield
    except jpype.JException as e:
        raise from_java(e) from e
