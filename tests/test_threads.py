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


def test_n_jobs_none_follows_the_enclosing_parallel_config_as_scikit_learn_reads_it():
    """The job engine gives a run its worker's threads through parallel_config (mvlab.engine.task)."""
    from joblib import parallel_config

    from mvlab.core.threads import worker_count

    assert worker_count(None) == 1
    with parallel_config(backend="threading", n_jobs=3):
        assert worker_count(None) == 3 and worker_count(2) == 2


def test_a_task_on_threads_runs_its_inner_loops_on_its_own_thread():
    from joblib import Parallel, delayed, parallel_config

    from mvlab.core.threads import call_on_threads

    def inner():
        import threading

        return Parallel(n_jobs=None)(delayed(threading.get_ident)() for _ in range(4))

    with parallel_config(backend="threading", n_jobs=2):
        idents = call_on_threads(inner)
    assert len(set(idents)) == 1  # n_jobs=None inside: one thread, not the backend's two
