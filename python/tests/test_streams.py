"""Scopes and streams through sluice.Client, and the Java exceptions they raise as Python ones."""

import pytest

import sluice


def test_scope_and_stream_lifecycle(client, scope):
    assert client.scope_exists(scope)
    assert scope in client.list_scopes()
    assert client.create_scope(scope) is False  # exists already

    assert client.create_stream(scope, "a", segments=3)
    assert client.create_stream(scope, "b", tags=("blue",))
    assert sorted(client.list_streams(scope)) == ["a", "b"]
    assert client.list_streams(scope, tag="blue") == ["b"]
    assert client.stream_exists(scope, "a")

    assert client.delete_stream(scope, "a") is True
    assert client.stream_exists(scope, "a") is False
    assert client.delete_stream(scope, "a") is False

    with pytest.raises(sluice.PreconditionFailedError):
        client.delete_scope(scope)  # b is still in it
    assert client.delete_stream(scope, "b")
    assert client.delete_scope(scope) is True
    assert not client.scope_exists(scope)
    assert client.delete_scope(scope) is False


def test_missing_scope_is_no_such_scope_error_with_the_java_message(client, scope):
    missing = scope + "-missing"
    with pytest.raises(sluice.NoSuchScopeError) as caught:
        client.create_stream(missing, "s")
    error = caught.value
    assert isinstance(error, sluice.NotFoundError) and isinstance(error, sluice.SluiceError)
    assert error.java_class == "io.sluice.errors.NoSuchScopeException"
    assert missing in str(error)
    # the same message as the Java exception itself
    java_cause = error.__cause__
    assert java_cause is not None and str(java_cause.getMessage()) == str(error)


def test_missing_stream_is_no_such_stream_error(client, scope):
    with pytest.raises(sluice.NoSuchStreamError) as caught:
        with client.writer(scope, "nothing-here") as w:
            w.write_and_wait("x")
    assert "nothing-here" in str(caught.value)


def test_bad_arguments_are_value_errors(client, scope):
    with pytest.raises(sluice.InvalidArgumentError) as caught:
        client.create_stream(scope, "bad name!")  # a Java IllegalArgumentException
    assert isinstance(caught.value, ValueError)
    assert "bad name!" in str(caught.value)
    with pytest.raises(ValueError, match="segments must be a positive int"):
        client.create_stream(scope, "s", segments=0)
    client.create_stream(scope, "s")
    with client.writer(scope, "s") as w:
        with pytest.raises(ValueError, match="must be bytes or str, not int"):
            w.write(42)
        with pytest.raises(ValueError, match="routing_key must be a str or None, not int"):
            w.write("x", routing_key=7)
