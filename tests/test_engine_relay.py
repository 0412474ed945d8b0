"""mvlab.engine.relay without a cluster: a relay in a worker is the store's interface (mvlab.store.protocol), its
writes travel numbered on one topic, and the asking process's receiver applies those of its own relays, in order,
once each, whatever arrives late or not at all."""

import pickle
import time

import numpy as np
import pytest
from test_engine import store_only_at

from mvlab.engine import relay as relay_module
from mvlab.engine.relay import STORE_TOPIC, Applier, Receiver, StoreRelay
from mvlab.store import ResultsStore, RunStore


class Topics:
    """What a receiver uses of a Dask client: a subscription to a topic, and the scheduler's log of the topic."""

    def __init__(self):
        self.handlers = {}
        self.log = []

    def subscribe_topic(self, topic, handler):
        self.handlers[topic] = handler

    def get_events(self, topic):
        return tuple(self.log)

    def publish(self, message, delivered=True):
        """Log ``message`` on the scheduler and, unless ``delivered`` is False (lost on the way), hand it on."""
        self.log.append((time.time(), message))
        if delivered:
            self.handlers[STORE_TOPIC]((time.time(), message))


def in_a_worker(relay, monkeypatch, send):
    """``relay`` as it arrives in a worker (pickled: no location), its messages handed to ``send``."""
    monkeypatch.setattr(relay_module, "_send", send)
    return pickle.loads(pickle.dumps(relay))


ROW = {"repetition": 0, "method": "m", "metric": "accuracy", "value": np.float64(0.5)}


def test_a_relay_sent_to_a_worker_carries_no_store_location_nor_password():
    relay = StoreRelay("postgresql://mvlab:hunter2@db.example/mvlab", {"runs": [], "results": []})
    sent = pickle.dumps(relay)
    assert b"hunter2" not in sent and b"db.example" not in sent
    arrived = pickle.loads(sent)
    assert arrived.location == "" and arrived.seed == relay.seed and arrived.token == relay.token
    with pytest.raises(ValueError, match="opens only in a worker of the job engine"):
        arrived.start_run("k", "d", "f", 0, {})
    import copy

    assert copy.deepcopy(relay).location == relay.location  # a copy in this process keeps it


def test_relayed_writes_are_applied_once_in_order_whatever_order_they_arrive_in(tmp_path, monkeypatch):
    sent = []
    relayed = in_a_worker(StoreRelay(tmp_path / "r.sqlite"), monkeypatch, sent.append)
    run = relayed.start_run("k", "d", "f", np.int64(3), {"trees": np.int64(5)})
    assert relayed.add_results(run, (row for row in [ROW])) == 1  # an iterable of rows, numpy values
    relayed.finish_run(run, {"compute_seconds": 1.0})
    with pytest.raises(ValueError, match="does not read the results store"):
        relayed.find_run("k", "f", {})
    operations = [message["operation"] for message in sent]
    store = ResultsStore(tmp_path / "r.sqlite")
    applier = Applier(lambda: store)
    applier.take([operations[2], operations[1]])  # the end first: waits for the start
    assert applier.applied == 0 and applier.waiting == 2 and store.runs().empty
    applier.take([operations[0]])
    applier.take(operations)  # the same again: nothing applied twice
    assert applier.applied == 3 and len(store.results(run)) == 1 and applier.open_runs == set()
    assert store.runs().loc[0, "status"] == "finished" and store.runs().loc[0, "settings"] == {"trees": 5}
    refusing = Applier(lambda: store)
    refusing.take([{"seq": 0, "op": "forget", "args": ["f"], "kwargs": {}}])
    assert "not a write" in refusing.refused and refusing.applied == 1


def test_the_store_and_the_relay_take_the_one_declared_interface(tmp_path, monkeypatch):
    """mvlab.store.protocol declares what a computation may call once: the store keeps to its signatures, and a
    relay in a worker checks a call against them (a wrong call fails there, as it would on the store) and offers
    nothing else of the store.

    Fails when the store's signature drifts from the protocol's (tried: ``ResultsStore.finish_run`` with its
    ``failed`` keyword renamed ``failure``), and when the relay takes calls the protocol does not declare (tried:
    ``__getattr__`` sending any name as a write)."""
    import inspect

    from mvlab.store.protocol import READS, WRITES, RunReads, RunWrites

    def parameters(function):
        return [(p.name, p.kind, p.default) for p in inspect.signature(function).parameters.values()]

    for name, protocol in [*[(n, RunWrites) for n in WRITES], *[(n, RunReads) for n in READS]]:
        assert parameters(getattr(ResultsStore, name)) == parameters(getattr(protocol, name)), name
    store = ResultsStore(tmp_path / "s.sqlite")
    assert isinstance(store, RunStore)
    relayed = in_a_worker(StoreRelay(store.location), monkeypatch, lambda message: None)
    assert isinstance(relayed, RunStore)
    with pytest.raises(TypeError):
        relayed.add_results("a run")  # no rows: refused in the worker, before anything is sent
    with pytest.raises(AttributeError, match="may call only"):
        relayed.forget("fingerprint")


def test_a_receiver_applies_only_the_relays_it_expects_each_in_order(tmp_path, monkeypatch):
    """On a scheduler that several servers share, every client hears every relay's messages: each process applies
    those of its own relays only, each worker's in their order.

    Fails when the receiver applies whatever it hears (tried: the relay's token not looked up, every message
    applied to the store of the first relay expected)."""
    topics = Topics()
    into = Receiver(topics)
    mine = StoreRelay(tmp_path / "mine.sqlite")
    theirs = StoreRelay(tmp_path / "theirs.sqlite")
    into.expect(mine)
    for relay in (mine, theirs):  # two computations, one of another process
        held = []
        relayed = in_a_worker(relay, monkeypatch, held.append)
        run = relayed.start_run("k", "d", "f", 0, {})
        relayed.add_results(run, [ROW])
        relayed.finish_run(run)
        for message in reversed(held):  # in any order
            topics.publish(message)
    done = into.collect(mine.token)
    assert (done.applied, done.refused, done.unfinished) == (3, None, [])
    assert ResultsStore(mine.location).runs().loc[0, "status"] == "finished"
    assert ResultsStore(theirs.location).runs().empty  # never written here
    into.close()


def test_collecting_a_relay_reads_a_lost_message_again_and_ends_the_runs_left_open(tmp_path, monkeypatch):
    """When a task has ended, its writes are all applied: a message that did not come (a gap) is read again from
    the topic's log on the scheduler, and a run its computation never ended (its worker died) is ended with the
    status the caller gives, not left running.

    Fails when the topic's log is not read again (tried: the ``get_events`` loop in ``collect`` taken out: the
    results after the gap are never applied), and when a run left open stays so (tried: ``_end_runs`` not called:
    the second run stays ``running``)."""
    topics = Topics()
    into = Receiver(topics)
    relay = StoreRelay(tmp_path / "s.sqlite")
    into.expect(relay)
    relayed = in_a_worker(relay, monkeypatch, lambda message: topics.publish(message, delivered=len(topics.log) != 1))
    run = relayed.start_run("k", "d", "f", 0, {})
    relayed.add_results(run, [ROW])  # lost on the way
    relayed.add_results(run, [{**ROW, "repetition": 1}])
    relayed.finish_run(run)
    died = relayed.start_run("k", "d", "g", 0, {})  # its worker dies here
    done = into.collect(relay.token, unfinished="failed", summary={"error": "its worker died"})
    store = ResultsStore(relay.location)
    assert done.applied == 5 and done.unfinished == [died]
    assert store.results(run)["repetition"].tolist() == [0, 1]
    runs = store.runs().set_index("run_id")
    assert runs.loc[run, "status"] == "finished"
    assert runs.loc[died, "status"] == "failed" and runs.loc[died, "summary"] == {"error": "its worker died"}
    into.close()


def test_a_pages_run_is_recorded_through_the_declared_writes_alone(monkeypatch):
    """A page's Train (the engine's own record of a run: queued, running, its rows, artifact and end, or failed,
    or stopped) writes through the same protocol a relay applies (:data:`mvlab.store.WRITES`), each write by its
    own name in the code, none picked from a string. Fails when the record calls a store method that is not a
    declared write (tried: ``finish`` reading ``run_summary`` back: an AttributeError here)."""
    from mvlab.engine import records
    from mvlab.engine.requests import RunRecord
    from mvlab.store import WRITES

    calls = []

    class OnlyTheWrites:
        def __getattr__(self, name):
            if name not in WRITES:
                raise AttributeError(f"{name} is not a declared write")
            return lambda *args, **kwargs: calls.append((name, kwargs.get("status"))) or "run-1"

    class Result:
        def result_rows(self):
            return [{"metric": "accuracy", "value": 0.9}]

        def to_npz(self):
            return b"npz"

    record = RunRecord("kind", "data", "fingerprint", 0, {}, store_location="somewhere")
    store_only_at(monkeypatch, "somewhere", OnlyTheWrites())
    run_id = records.start(record)
    records.running(record, run_id)
    assert records.finish(record, run_id, Result(), 1.5) is None
    records.ended(record, run_id, "failed", "words")
    records.ended(record, run_id, "stopped")
    assert calls == [("start_run", "queued"), ("mark_running", None), ("add_results", None), ("put_artifact", None),
                     ("finish_run", None), ("finish_run", "failed"), ("finish_run", "stopped")]
