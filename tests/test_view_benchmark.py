"""mvlab.ui.views.benchmark_page: the Benchmark page's view shows a batch of runs kept in the results store with its
tests (AppTest of the view's parts alone, on a store filled here, no page, no engine)."""

import json

import numpy as np
from streamlit.testing.v1 import AppTest

from mvlab.store import ResultsStore


def fill(location, batch: str, scores: dict, settings=None) -> None:
    """One run per dataset of ``batch``, each method's accuracy ``scores[method][dataset]``."""
    store = ResultsStore(location)
    for d in range(len(next(iter(scores.values())))):
        run = store.start_run(batch, f"d{d:02d}", f"fp{d}", 0, settings or {"test": True})
        store.add_results(run, [{"repetition": 0, "method": m, "metric": "accuracy", "value": float(v[d])}
                                for m, v in scores.items()])
        store.finish_run(run)


def draw_batch(location, batch):
    from mvlab.store import ResultsStore
    from mvlab.ui.views import benchmark_page

    benchmark_page.show_batch(ResultsStore(location), batch)


def chart_titles(at) -> list[str]:
    return [json.loads(c.proto.spec)["layout"]["title"]["text"] for c in at.get("plotly_chart")]


def test_a_batch_is_shown_with_its_means_sign_tests_friedman_and_critical_differences(tmp_path):
    """Fails when a part of the report is left out, or the sign test is drawn against another method than the
    family's baseline (tried: friedman() left out of show_batch, and means_and_sign_tests given the control)."""
    location, batch = str(tmp_path / "bm.sqlite"), "benchmark:dissimilarity:five"
    base = np.linspace(0.70, 0.84, 5)
    fill(location, batch, {"average": base, "dvs": base + 0.03, "oob": base - 0.02})
    at = AppTest.from_function(draw_batch, args=(location, batch), default_timeout=60).run()
    assert not at.exception, at.exception
    assert list(at.dataframe[0].value.columns) == ["average", "dvs", "oob"]  # mean ± std, a column per method
    assert list(at.dataframe[1].value.index) == ["dvs", "oob"]  # the sign test: each method against the baseline
    assert any(m.value.startswith("**Friedman** over 5 datasets") and "against **dvs**" in m.value
               for m in at.markdown)
    assert [c.key for c in at.get("plotly_chart")] == ["bm_ranks", "bm_sign", "bm_cd_chart"]
    assert any(t.startswith("Wins / ties / losses against average") for t in chart_titles(at))
    assert sum(c.value.startswith("<p>Figure: ") for c in at.caption) == 3
    at.radio(key="bm_cd").set_value("holm").run()
    assert any(t.startswith("Holm against dvs") for t in chart_titles(at))
    assert [d.proto.label for d in at.get("download_button")][0] == "Download results (.csv)"


def test_a_batch_without_its_family_or_without_results_is_said_in_words(tmp_path):
    """Fails when a batch whose runs do not name their family is reported as a family's (or raises), or an empty
    batch draws a table (tried: show_batch without its family check: family_reports on None raised)."""
    location = str(tmp_path / "bm.sqlite")
    fill(location, "old-batch", {"a": [0.8, 0.7], "b": [0.6, 0.9]})
    at = AppTest.from_function(draw_batch, args=(location, "old-batch"), default_timeout=60).run()
    assert not at.exception, at.exception
    assert "do not say which family of methods they compare" in at.warning[0].value
    means = at.dataframe[0].value
    assert list(means.columns) == ["a", "b"] and means.loc["d01", "b"] == 0.9
    at = AppTest.from_function(draw_batch, args=(location, "never-run"), default_timeout=60).run()
    assert not at.exception and "stored no results yet" in at.warning[0].value and not at.dataframe


def test_a_batch_with_groups_is_compared_within_the_group_chosen(tmp_path):
    """View construction's batches compare the methods per base classifier: the reader chooses the group. Fails
    when the choice is not offered or not followed (tried: chosen_report returning the first report always)."""
    from mvlab.datasets.synthetic import make_madelon
    from mvlab.experiments.families import run_experiment
    from mvlab.experiments.protocols import RepeatedKFold

    location, batch = str(tmp_path / "bm.sqlite"), "benchmark:view-construction:vc"
    store = ResultsStore(location)
    params = {"methods": ["OFSP", "RFSP"], "classifiers": ["knn", "nb"], "max_views": 2, "inner_cv": 2}
    for seed in (0, 1):
        run_experiment(make_madelon(40, n_features=30, random_state=seed), "view-construction", params,
                       RepeatedKFold(1, 2), store=store, kind=batch)
    at = AppTest.from_function(draw_batch, args=(location, batch), default_timeout=60).run()
    assert not at.exception, at.exception
    assert at.selectbox(key="bm_group").options == ["classifier = knn", "classifier = nb"]
    knn = at.dataframe[0].value
    at.selectbox(key="bm_group").set_value("classifier = nb").run()
    assert not at.exception, at.exception
    assert not at.dataframe[0].value.equals(knn)
