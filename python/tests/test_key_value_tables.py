"""Key-value tables: put, get, insert, remove, versions and conditional updates, iteration."""

import pytest

import sluice


@pytest.fixture
def table(client, scope):
    assert client.create_key_value_table(scope, "t", primary_key_length=4, partitions=2)
    assert client.list_key_value_tables(scope) == ["t"]
    with client.key_value_table(scope, "t") as t:
        yield t


def test_put_get_remove(table):
    assert table.get("k001") is None
    v1 = table.put("k001", "one")
    entry = table.get(b"k001")
    assert entry.key == b"k001" and entry.value == b"one" and entry.version == v1
    assert "k001" in table and "k002" not in table
    v2 = table.put("k001", b"\x00\x01")
    assert v2 != v1
    assert table.get("k001").value == b"\x00\x01"
    table.remove("k001")
    assert table.get("k001") is None


def test_conditional_updates(table):
    v1 = table.insert("cart", "apple")
    with pytest.raises(sluice.BadVersionError) as caught:
        table.insert("cart", "pear")  # exists already
    assert isinstance(caught.value, sluice.ConditionalUpdateError)
    v2 = table.put("cart", "apple,pear", version=v1)
    with pytest.raises(sluice.BadVersionError):
        table.put("cart", "stale", version=v1)
    assert table.get("cart").value == b"apple,pear"  # the refused put changed nothing
    v3 = table.put("cart", "apple,pear,fig", version=str(v2))  # a version's text works too
    assert sluice.Version(v3.segment_id, v3.segment_version) == v3
    with pytest.raises(sluice.BadVersionError):
        table.remove("cart", version=v2)
    assert table.get("cart").version == v3
    table.remove("cart", version=v3)
    with pytest.raises(sluice.NoSuchKeyError):
        table.put("cart", "again", version=v3)
    assert table.get("cart") is None


def test_keys_of_the_wrong_length_are_refused(table):
    with pytest.raises(sluice.InvalidArgumentError):
        table.put("too-long-a-key", "x")
    with pytest.raises(sluice.InvalidArgumentError, match="version must be a sluice.Version"):
        table.put("abcd", "x", version=3)


def test_entries_lists_every_entry(table):
    expected = {("k%03d" % i).encode(): ("v%d" % i).encode() for i in range(25)}
    for key, value in expected.items():
        table.put(key, value)
    assert {e.key: e.value for e in table.entries()} == expected


def test_secondary_keys(client, scope):
    client.create_key_value_table(scope, "t2", primary_key_length=2, secondary_key_length=3)
    with client.key_value_table(scope, "t2") as t:
        t.put(("u1", "a01"), "x")
        t.put(("u1", "a02"), "y")
        t.put(("u2", "a01"), "z")
        assert t.get(("u1", "a02")).value == b"y"
        assert sorted((e.key, e.value) for e in t.entries(primary_key="u1")) == [
            ((b"u1", b"a01"), b"x"), ((b"u1", b"a02"), b"y")]
    assert client.delete_key_value_table(scope, "t2")
    assert not client.delete_key_value_table(scope, "t2")
