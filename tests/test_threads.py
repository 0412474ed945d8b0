"""Worker counts and the thread runner shared by the products and the DVS regions."""

import os

import pytest

from mvlab.core.threads import chunk_count, run_threads, split_workers, worker_count


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


def test_split_workers_shares_the_workers_between_tasks_and_their_insides():
    cores = os.cpu_count() or 1
    assert split_workers(None, 5) == (1, 1)
    assert split_workers(8, 2) == (2, 4)  # two tasks at a time, four workers inside each
    assert split_workers(8, 3) == (3, 2)  # the remainder stays idle rather than oversubscribe
    assert split_workers(4, 63) == (4, 1)
    assert split_workers(3, 0) == (1, 3)  # no task still makes a valid split
    assert split_workers(-1, 1) == (1, cores)
    for n_jobs in (1, 2, 5, -1):
        for n_tasks in (1, 2, 7):
            outer, inner = split_workers(n_jobs, n_tasks)
            assert 1 <= outer <= n_tasks and inner >= 1
            assert outer * inner <= worker_count(n_jobs)


def test_chunk_count_counts_workers_not_the_sign_of_n_jobs():
    cores = os.cpu_count() or 1
    assert chunk_count(2, 1000) == 8
    assert chunk_count(-1, 1000) == 4 * cores  # -1 is every core, not one worker
    assert chunk_count(4, 5) == 5
    assert chunk_count(None, 0) == 1
