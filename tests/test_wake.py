"""The server's wake of waiting sessions (mvlab.ui.wake): one look for every session of a process, only the
sessions whose view changed are rerun, a busy one is asked again at the next look, a gone one forgotten; and
the parts of Streamlit's runtime it relies on are tested with the door they sit behind (test_streamlit_insides.py)."""


import pytest

from mvlab.ui.wake import Subscription, Watch


class FakeServer:
    """Records the reruns asked for; ``busy`` sessions are left out of the outcome (asked again later),
    ``gone`` ones reported gone."""

    def __init__(self):
        self.asked, self.busy, self.gone = [], set(), set()

    def rerun(self, requests, done):
        self.asked.append(dict(requests))
        done({s: ("gone" if s in self.gone else "rerun") for s in requests if s not in self.busy})
        return True


def step_of(value):
    return value["step"]


def test_one_look_reads_every_topic_once_and_reruns_only_the_changed_sessions():
    state = {"A": {"step": 1}, "B": {"step": 1}}
    reads = []

    def read(topics):
        reads.append(set(topics))
        return {t: dict(state[t]) for t in topics if t in state}

    server = FakeServer()
    watch = Watch(read, interval=10, rerun=server.rerun, connected=lambda s: True)
    assert watch.look() == {} and reads == []  # nobody follows anything: nothing is read
    watch._thread = object()  # no background thread in this test: looks are taken by hand
    for i in range(5):
        watch.follow(f"a{i}", Subscription("A", step_of, 1))
    watch.follow("b0", Subscription("B", step_of, 1, fragment="frag"))
    assert watch.look() == {} and reads == [{"A", "B"}]  # one read for six sessions; nothing changed

    state["A"]["step"] = 2
    assert watch.look() == {f"a{i}": "" for i in range(5)}
    assert len(watch) == 1 and watch.woken == 5  # the woken follow what their rerun draws: they subscribe again
    assert watch.latest("A", max_age=60) == {"step": 2} and watch.latest("Z", max_age=60) is None

    state["B"]["step"] = 3
    server.busy.add("b0")  # a run in progress: not interrupted, asked again at the next look
    assert watch.look() == {"b0": "frag"} and len(watch) == 1
    server.busy.clear()
    assert watch.look() == {"b0": "frag"} and len(watch) == 0

    watch.follow("c", Subscription("B", step_of, 3))
    del state["B"]  # the round was deleted: the whole page reruns (it says so), the session is forgotten
    server.gone.add("c")
    assert watch.look() == {"c": ""} and len(watch) == 0


def test_the_part_rerun_is_the_one_that_shows_what_changed():
    """A subscription whose fragment is a function of the newer view: in one look, the session drawn on another step
    has its step's part rerun, the one drawn on this step its waiting part (new counts). Fails when the watch passes
    the function on instead of calling it with the newer view (tried: ``requests[...] = sub.fragment``)."""
    state = {"A": {"step": 1, "counts": 0}}
    server = FakeServer()
    watch = Watch(lambda topics: {t: dict(state[t]) for t in topics}, interval=10, rerun=server.rerun,
                  connected=lambda s: True)
    watch._thread = object()

    def project(value):
        return value["step"], value["counts"]

    def drawn_at(step):  # as mvlab.ui.class_round.follow_the_round: the step's part when the step changed
        return lambda now: "step-part" if now[0] != step else "waiting-part"

    watch.follow("on step 1", Subscription("A", project, (1, 0), drawn_at(1)))
    watch.follow("on step 2", Subscription("A", project, (2, 0), drawn_at(2)))
    state["A"] = {"step": 2, "counts": 3}
    assert watch.look() == {"on step 1": "step-part", "on step 2": "waiting-part"}


def test_sessions_whose_browser_has_gone_stop_being_followed():
    connected = {"a", "b"}
    watch = Watch(lambda topics: {t: {"step": 1} for t in topics}, interval=10, rerun=lambda r, done: True,
                  connected=lambda s: s in connected)
    watch._thread = object()
    for s in ("a", "b", "c"):
        watch.follow(s, Subscription("A", step_of, 1))
    for _ in range(Watch.PRUNE_EVERY):
        watch.look()
    assert sorted(watch._subscriptions) == ["a", "b"]  # "c" closed its tab: its round is no longer read for it


def test_a_session_that_subscribed_again_before_its_wake_returned_keeps_its_new_subscription():
    state = {"A": {"step": 2}}
    watch = Watch(lambda topics: {t: state[t] for t in topics}, interval=10, rerun=lambda r, done: True,
                  connected=lambda s: True)
    watch._thread = object()
    watch.follow("s", Subscription("A", step_of, 1))
    looked = {"s": watch._subscriptions["s"]}
    newer = Subscription("A", step_of, 2)
    watch.follow("s", newer)  # its rerun ran and subscribed before the event loop reported the wake
    watch._asked(looked, {"s": "rerun"})
    assert watch._subscriptions["s"] is newer


def test_a_failed_look_is_tried_again_and_a_bad_interval_is_refused():
    calls = []

    def read(topics):
        calls.append(1)
        if len(calls) == 1:
            raise OSError("database is locked")
        return {}

    watch = Watch(read, interval=0.01, rerun=lambda r, done: True, connected=lambda s: True)
    watch.follow("s", Subscription("A", step_of, 1))
    import time

    deadline = time.time() + 5
    while len(calls) < 3 and time.time() < deadline:
        time.sleep(0.01)
    assert len(calls) >= 3  # the thread went on after the failure
    watch.forget("s")  # its thread looks at nothing more for the rest of the test process
    with pytest.raises(ValueError, match="interval"):
        Watch(read, interval=0)


def test_a_store_outage_is_not_a_traceback_per_look(caplog):
    """The round watch looks four times a second: with the store away, each failed look is the store's
    StoreUnavailable, which the store has said once in the log (and says once when it is back); the watch adds no
    traceback per look (82 in a 20-second outage before, issue #71). Fails when the watch logs every failed look
    (tried: its ``except StoreUnavailable`` removed: one traceback a look)."""
    import time

    from mvlab.store import StoreUnavailable

    looks = []

    def read(topics):
        looks.append(1)
        raise StoreUnavailable(detail="somewhere: connection refused")

    watch = Watch(read, interval=0.01, rerun=lambda r, done: True, connected=lambda s: True)
    watch.follow("s", Subscription("A", lambda v: v, 1))
    deadline = time.time() + 5
    while len(looks) < 5 and time.time() < deadline:
        time.sleep(0.01)
    watch.forget("s")
    assert len(looks) >= 5 and not [r for r in caplog.records if "round watch" in r.getMessage()]
