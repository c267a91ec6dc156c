"""Transactions: begin, write, commit, abort, status, and the context manager."""

import uuid

import pytest

import sluice

from conftest import read_exactly


def test_committed_events_appear_aborted_ones_never(client, scope):
    client.create_stream(scope, "s", segments=2)
    with client.transactional_writer(scope, "s") as tw:
        aborted = tw.begin()
        aborted.write("aborted-1", routing_key="a")
        aborted.write(b"aborted-2")
        assert aborted.status() is sluice.TxnState.OPEN
        aborted.abort()
        assert aborted.status() in (sluice.TxnState.ABORTING, sluice.TxnState.ABORTED)

        txn = tw.begin()
        assert isinstance(txn.id, uuid.UUID)
        for i in range(5):
            txn.write("committed-%d" % i, routing_key="k")
        txn.flush()
        assert txn.status() is sluice.TxnState.OPEN
        with client.reader(scope, "s", group="g", encoding="utf-8") as r:
            assert r.read_next_event(timeout=0.3) is None  # not visible before the commit
            txn.commit()
            assert txn.status() in (sluice.TxnState.COMMITTING, sluice.TxnState.COMMITTED)
            events = read_exactly(r, 5)
            assert [e.data for e in events] == ["committed-%d" % i for i in range(5)]
            # a marker after both: once it is read, the aborted events would have been read before it
            with client.writer(scope, "s") as w:
                w.write_and_wait("marker", routing_key="a")
            rest = [e.data for e in read_exactly(r, 1)]
            assert rest == ["marker"]


def test_context_manager_commits_or_aborts(client, scope):
    client.create_stream(scope, "s")
    with client.transactional_writer(scope, "s") as tw:
        with tw.begin() as txn:
            txn.write("kept")
        assert txn.status() in (sluice.TxnState.COMMITTING, sluice.TxnState.COMMITTED)
        with pytest.raises(RuntimeError, match="boom"):
            with tw.begin() as failed:
                failed.write("dropped")
                raise RuntimeError("boom")
        assert failed.status() in (sluice.TxnState.ABORTING, sluice.TxnState.ABORTED)
        # the same transaction found by id
        assert tw.transaction(failed.id).id == failed.id
        assert tw.transaction(str(failed.id)).status() in (sluice.TxnState.ABORTING, sluice.TxnState.ABORTED)
    with client.writer(scope, "s") as w:
        w.write_and_wait("marker")
    with client.reader(scope, "s", group="g", encoding="utf-8") as r:
        assert [e.data for e in read_exactly(r, 2)] == ["kept", "marker"]


def test_writing_to_a_committed_transaction_fails(client, scope):
    client.create_stream(scope, "s")
    with client.transactional_writer(scope, "s") as tw:
        txn = tw.begin()
        txn.commit()
        with pytest.raises(sluice.SluiceError):
            txn.write("too late")
