"""Worker counts and the thread runner shared by the products and the DVS regions."""

import os

import pytest

from mvlab.core.threads import run_threads, worker_count


def test_worker_count_follows_joblib_convention():
    cores = os.cpu_count() or 1
    assert worker_count(None) == 1
    assert worker_count(3) == 3
    assert worker_count(0) == 1
    assert worker_count(-1) == cores
    assert worker_count(-(cores + 5)) == 1


@pytest.mark.parametrize("n_threads", [1, 2])
def test_run_threads_runs_every_job_and_reraises(n_threads):
    seen = []
    run_threads([lambda i=i: seen.append(i) for i in range(5)], n_threads)
    assert sorted(seen) == list(range(5))

    def boom():
        raise ValueError("job failed")

    with pytest.raises(ValueError, match="job failed"):
        run_threads([boom, lambda: None], n_threads)
