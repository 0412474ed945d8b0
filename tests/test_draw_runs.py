"""The one loop that computes the draws a draws file lacks (mvlab.reproduction.draw_runs), shared by the SDF grid,
Table 10 and the OFSP protocols."""

from dataclasses import dataclass

import pytest

from mvlab.reproduction.cells import DrawsFile
from mvlab.reproduction.draw_runs import run_missing_draws

COLUMNS, KEY = ["name", "draw", "T", "value"], ["name", "draw", "T"]


@dataclass(frozen=True)
class Task:
    name: str
    draw: int
    T: int

    @property
    def key(self):
        return (self.name, self.draw, self.T)


def _rows(unit, n_jobs):
    tasks = unit if isinstance(unit, list) else [unit]
    return [{"name": t.name, "draw": t.draw, "T": t.T, "value": 10 * t.draw + t.T + n_jobs / 100} for t in tasks]


@pytest.mark.parametrize("n_jobs", [1, 2])
def test_missing_draws_are_computed_once_grouped_and_appended(tmp_path, n_jobs):
    """Done keys are skipped; with ``group`` the missing tasks sharing a group are one job (its T together); every
    job's rows reach the file; the count is of tasks. Fails when done keys are recomputed (tried: ``todo`` made of
    all tasks: the done row twice), when a group is split (tried: one job per task: 3 jobs, not 2) or when the
    count is of jobs (tried: ``n += 1``: 2, not 3)."""
    file = DrawsFile(tmp_path / "draws.csv", COLUMNS, KEY)
    tasks = [Task("a", d, t) for d in (0, 1) for t in (1, 2)]
    file.append(_rows(tasks[0], 1))
    jobs, said = [], []

    def compute(unit, n_jobs):
        jobs.append([t.key for t in unit])
        return _rows(unit, n_jobs)

    n = run_missing_draws(file, tasks, compute, n_jobs=n_jobs, say=said.append, group=lambda t: (t.name, t.draw),
                          describe=lambda rows: f"draw {rows[0]['draw']}")
    frame = file.read()
    assert n == 3 and len(frame) == 4 and len(file.done()) == 4
    assert frame[KEY].duplicated().sum() == 0
    if n_jobs == 1:  # jobs run in this process, on two threads; with workers the calls are elsewhere
        assert sorted(jobs) == [[("a", 0, 2)], [("a", 1, 1), ("a", 1, 2)]]
        assert list(frame["value"].iloc[1:] % 1) == pytest.approx([0.02] * 3)
    else:
        assert list(frame["value"].iloc[1:] % 1) == pytest.approx([0.01] * 3)  # one thread per worker
    assert said[0] == f"3 draw(s) to compute, 1 already in {file.path}"
    assert said[-1].startswith("[3/3 ") and len(said) == 3
    assert run_missing_draws(file, tasks, compute, say=said.append) == 0 and said[-1].startswith("0 draw(s)")


def test_rows_of_a_finished_job_survive_a_later_failure(tmp_path):
    """A run cut off keeps the rows of every job that ended before. Fails when rows are written only at the end
    (tried: appending after the loop: the file is empty)."""
    file = DrawsFile(tmp_path / "draws.csv", COLUMNS, KEY)
    tasks = [Task("a", d, 1) for d in range(3)]

    def compute(task, n_jobs):
        if task.draw == 2:
            raise KeyboardInterrupt
        return _rows(task, n_jobs)

    with pytest.raises(KeyboardInterrupt):
        run_missing_draws(file, tasks, compute)
    assert file.done() == {("a", 0, 1), ("a", 1, 1)}
