"""mvlab.core.memo.Memo, the one rule for what a process computes once and keeps: once per key whoever asks at the
same time, a failure not kept, the least recently used dropped past the size, no bound with size=None."""

import threading
import time

import pytest

from mvlab.core.memo import Memo


def test_threads_asking_at_once_compute_a_value_once_and_share_it():
    """Fails when the value is computed outside the wait (tried: ``get`` computing at every miss: several calls)."""
    memo, calls, start = Memo(4), [], threading.Barrier(12)

    def slow():
        calls.append(1)
        time.sleep(0.05)
        return object()

    got = []
    threads = [threading.Thread(target=lambda: (start.wait(), got.append(memo.get("k", slow)))) for _ in range(12)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(calls) == 1 and len({id(v) for v in got}) == 1 and memo.building == 0


def test_a_failure_is_not_kept_and_the_next_asker_computes_again():
    """A store that could not be opened is opened at the next look. Fails when the failure is kept (tried: the
    exception stored as the value: the second look got it back)."""
    memo = Memo(None)
    with pytest.raises(ValueError, match="down"):
        memo.get("store", lambda: (_ for _ in ()).throw(ValueError("down")))
    assert "store" not in memo and memo.building == 0
    assert memo.get("store", lambda: "opened") == "opened"


def test_the_least_recently_used_goes_first_and_size_none_keeps_everything():
    """Fails when a hit does not count as a use (tried: no ``move_to_end`` on a hit: "a" dropped) or when the
    bound is not kept."""
    memo = Memo(2)
    memo.get("a", lambda: 1)
    memo.get("b", lambda: 2)
    assert memo.get("a", lambda: 0) == 1  # a hit: "a" is now the most recent
    memo.get("c", lambda: 3)
    assert memo.keys() == ["a", "c"] and len(memo) == 2
    unbounded = Memo(None)
    for i in range(1000):
        unbounded.get(i, lambda i=i: i)
    assert len(unbounded) == 1000
    unbounded.forget(3)
    assert 3 not in unbounded and unbounded.get(3, lambda: "again") == "again"
    with pytest.raises(ValueError, match="at least one"):
        Memo(0)


def test_a_value_may_ask_the_memo_for_another_key_while_it_is_computed():
    """The class rounds' watch opens the rounds it reads, from one memo: nested keys do not wait on each other."""
    memo = Memo(None)
    assert memo.get("watch", lambda: ("watch of", memo.get("rounds", lambda: "rounds"))) == ("watch of", "rounds")
