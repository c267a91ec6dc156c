"""The mapping of Java exceptions to sluice's Python exceptions (sluice.errors.from_java)."""

import builtins

import jpype
import pytest

import sluice
from sluice import errors


@pytest.fixture(scope="module")
def java(server):  # the JVM runs once the server does
    return lambda name, *args: jpype.JClass(name)(*args)


@pytest.mark.parametrize("java_class, python_class", [
    ("io.sluice.errors.NoSuchScopeException", sluice.NoSuchScopeError),
    ("io.sluice.errors.NoSuchStreamException", sluice.NoSuchStreamError),
    ("io.sluice.errors.BadKeyVersionException", sluice.BadVersionError),
    ("io.sluice.errors.NoSuchKeyException", sluice.NoSuchKeyError),
    ("io.sluice.errors.AuthenticationException", sluice.AuthenticationError),
    ("io.sluice.errors.AuthorizationException", sluice.AuthorizationError),
    ("io.sluice.errors.DeadlineExceededException", sluice.TimeoutError),
    ("io.sluice.errors.BackpressureTimeoutException", sluice.TimeoutError),
    ("io.sluice.errors.ConnectionFailedException", sluice.ConnectionError),
    ("io.sluice.errors.TransactionFailedException", sluice.TransactionFailedError),
    ("io.sluice.errors.SegmentSealedException", sluice.SegmentSealedError),
    # no class of its own: the nearest mapped superclass (RetriableException)
    ("io.sluice.errors.ServiceUnavailableException", sluice.RetriableError),
    # no class of its own: SluiceException
    ("io.sluice.errors.IncompatibleServerException", sluice.SluiceError),
    ("java.lang.IllegalArgumentException", sluice.InvalidArgumentError),
    ("java.lang.IllegalStateException", sluice.IllegalStateError),
    ("java.lang.UnsupportedOperationException", sluice.SluiceError),
])
def test_java_class_maps_to_python_class_with_its_message(java, java_class, python_class):
    error = errors.from_java(java(java_class, "what went wrong: " + java_class))
    assert type(error) is python_class
    assert str(error) == "what went wrong: " + java_class
    assert error.java_class == java_class


def test_python_classes_are_also_the_builtin_kinds(java):
    assert isinstance(errors.from_java(java("io.sluice.errors.DeadlineExceededException", "late")),
                      builtins.TimeoutError)
    assert isinstance(errors.from_java(java("io.sluice.errors.ConnectionFailedException", "cut")),
                      builtins.ConnectionError)
    assert issubclass(sluice.BadVersionError, sluice.ConditionalUpdateError)
    assert issubclass(sluice.NoSuchKeyError, sluice.ConditionalUpdateError)
    assert issubclass(sluice.AuthenticationError, sluice.AuthError)


def test_completion_exception_is_unwrapped(java):
    inner = java("io.sluice.errors.NoSuchStreamException", "stream s/t does not exist")
    wrapped = java("java.util.concurrent.CompletionException", inner)
    error = errors.from_java(wrapped)
    assert type(error) is sluice.NoSuchStreamError
    assert str(error) == "stream s/t does not exist"


def test_translated_raises_from_the_java_exception(java):
    thrown = java("io.sluice.errors.NoSuchKeyException", "key k")
    with pytest.raises(sluice.NoSuchKeyError) as caught:
        with errors.translated():
            raise thrown
    assert caught.value.__cause__ is thrown
