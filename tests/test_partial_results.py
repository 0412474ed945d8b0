"""Partial results (#72): what a computation offers while it runs is its whole result restricted to what is done,
never something else, and it is built only when somebody listens (mvlab.core.progress.report_partial)."""

import numpy as np
import pandas as pd
import pytest

from mvlab.core.progress import report_partial, scaled
from mvlab.datasets.synthetic import make_multiview_classification
from mvlab.experiments.combinations import BASELINES, STATIC_COMBINATIONS, compare_combinations
from mvlab.experiments.settings import BenchmarkSettings
from mvlab.experiments.view_construction_sweep import k_sweep


class Listener:
    """A progress callback that takes every partial result offered (built at once, as the engine's worker does)."""

    def __init__(self):
        self.parts = []

    def __call__(self, fraction, message):
        pass

    def partial(self, build, note):
        self.parts.append((build(), note))


def test_a_partial_is_built_only_for_a_listener_and_passes_through_scaled_callbacks_with_their_prefix():
    """Broken once: ``_Scaled`` without its ``partial`` lost every partial of a sub-task (the k sweep's and the
    benchmark's come through one)."""
    built = []
    report_partial(None, lambda: built.append(1), "never")
    report_partial(lambda f, m: None, lambda: built.append(1), "never")
    assert built == []
    listener = Listener()
    report_partial(scaled(scaled(listener, 0.5, 0.5, prefix="data: "), 0, 1), lambda: 42, "1 of 2 splits")
    assert listener.parts == [(42, "data: 1 of 2 splits")]


def test_the_k_sweep_offers_its_folds_done_so_far_each_part_the_whole_restricted_to_them():
    """Each part of the View construction page's sweep holds the first test folds, every method, classifier and k,
    with the values the whole has for them; the partitions come with the last fold. Before them (#72: the first
    figure within seconds), the first half of the k's of the first fold. Broken once: a part built from every
    split's test rows (not those done) said 3 folds after the first; and once, without the runner's
    ``first_rows``, the k part never came (a later split's rows are never offered: the notes are exactly these)."""
    ds = make_multiview_classification(90, n_views=2, n_features=6, n_classes=2, random_state=1)
    X, y = ds.X, ds.y
    listener = Listener()
    whole = k_sweep(X, y, methods=["OFSP", "RFSP"], classifiers=["knn"], max_views=3, n_splits=3, n_repeats=1,
                    inner_cv=2, random_state=4, progress=listener)
    assert [note for _, note in listener.parts] == ["k = 1..2 of the first test fold", "1 of 3 splits",
                                                    "2 of 3 splits"]
    timing = ["seconds", "cpu_seconds"]
    first = listener.parts[0][0]  # k = 1..2 of the first fold, every method and classifier, as in the whole
    assert first.n_cells == 2 * 1 * 2 and len(first.test_folds) == 1 and not first.memberships
    want = whole.table[(whole.table["fold"] == 0) & (whole.table["k"] <= 2)
                       & ~whole.table["metric"].isin(timing)].reset_index(drop=True)
    pd.testing.assert_frame_equal(first.table[~first.table["metric"].isin(timing)].reset_index(drop=True), want)
    for i, (part, _) in enumerate(listener.parts[1:], start=1):
        assert len(part.test_folds) == i and not part.memberships
        for got, want in zip(part.test_folds, whole.test_folds):
            np.testing.assert_array_equal(got, want)
        want = whole.table[(whole.table["fold"] < i) & ~whole.table["metric"].isin(timing)].reset_index(drop=True)
        got = part.table[~part.table["metric"].isin(timing)].reset_index(drop=True)
        pd.testing.assert_frame_equal(got, want)
    assert whole.memberships  # the whole keeps its last fold's partitions


def test_the_comparison_offers_the_methods_scored_so_far_with_the_values_of_the_whole(monkeypatch):
    """The Dissimilarity page's comparison: after each method but the last, the comparison of those scored (the
    first combination comes long before the stacking baseline); off unless asked, and off on the large-data path.
    Broken once: a part that kept every method's accuracy key (with the values so far) listed methods not yet
    scored.  Above PARTIAL_MAX_ROWS training rows no part is offered (at 2,500 rows a part was 150 MB of matrices:
    the 5,000-row bench stalled on them)."""
    ds = make_multiview_classification(120, n_views=3, n_features=5, n_classes=3, random_state=0)
    methods = tuple(STATIC_COMBINATIONS) + BASELINES
    silent = Listener()
    compare_combinations(ds.X, ds.y, ds.views, combinations=methods, n_estimators=8, random_state=2,
                         progress=silent)
    assert silent.parts == []  # partial_results off: nothing built
    listener = Listener()
    whole = compare_combinations(ds.X, ds.y, ds.views, combinations=methods, n_estimators=8, random_state=2,
                                 progress=listener, partial_results=True)
    assert len(listener.parts) == len(methods) - 1
    for i, (part, note) in enumerate(listener.parts, start=1):
        assert part.combinations == list(methods[:i]) and note.startswith(f"{i} of {len(methods)} methods")
        assert part.accuracy == {m: whole.accuracy[m] for m in methods[:i]}
        for m in methods[:i]:
            np.testing.assert_array_equal(part.weights[m], whole.weights[m])
        for got, want in zip(part.train_dissimilarities, whole.train_dissimilarities):
            np.testing.assert_array_equal(got, want)
    big = Listener()
    compare_combinations(ds.X, ds.y, ds.views, combinations=("average", "knn"), n_estimators=4, random_state=2,
                         prototypes=20, progress=big, partial_results=True)
    assert big.parts == []
    import mvlab.experiments.combinations as combinations

    monkeypatch.setattr(combinations, "PARTIAL_MAX_ROWS", 59)  # 60 training rows
    compare_combinations(ds.X, ds.y, ds.views, combinations=("average", "knn"), n_estimators=4, random_state=2,
                         progress=big, partial_results=True)
    assert big.parts == []


@pytest.mark.parametrize("datasets", [("nutrimouse",), ("nutrimouse", "breast-cancer")])
def test_a_benchmark_offers_its_batch_after_each_split_and_each_dataset_but_the_last(datasets):
    """The Benchmark page shows the runs stored so far: the batch's name comes as a part after every split and every
    dataset but the last, each note naming its dataset.  Broken once: the notes lost their dataset's name."""
    listener = Listener()
    settings = BenchmarkSettings(datasets=datasets, methods=("average", "oob"), repetitions=2, n_estimators=3,
                                 n_max=60)
    batch, skipped = settings.run(None, listener)
    assert not skipped and all(part == batch for part, _ in listener.parts)
    notes = [note for _, note in listener.parts]
    if len(datasets) == 1:
        assert notes == ["nutrimouse: 1 of 2 splits"]
    else:
        assert notes == ["nutrimouse (dataset 1 of 2): 1 of 2 splits", "1 of 2 datasets",
                         "breast-cancer (60) (dataset 2 of 2): 1 of 2 splits"]


def test_a_runs_progress_and_partial_notes_cross_the_wire_and_are_said_in_each_readers_language():
    """A run computes in a worker thread with no reader's language; its progress messages and partial notes, made as
    Messages and prefixed through ``scaled``, cross the engine's wire as plain data (``to_wire`` then JSON, as
    mvlab.engine.task sends them; ``Message.from_wire``, as mvlab.engine.jobs reads them) with their message and
    values, nested ones too, and the page says each part in its reader's language.  Broken once, to see this fail:
    ``_Scaled`` joining prefix and message with ``+`` (``mvlab.core.progress.joined`` patched to ``a + b``): the
    worker sent a plain English str, and the German reader read "Train: SDF keeps level 3"."""
    import json
    import threading

    from mvlab.forest.dissimilarity import ForestDissimilarity
    from mvlab.i18n import N_, Message, current_language, gettext, joined, said, to_wire, use_language

    sent = []

    class Worker:
        """The engine worker's callback (mvlab.engine.task): messages and notes sent as plain data."""

        def __call__(self, fraction, message):
            sent.append((json.dumps(to_wire(message)), message))

        def partial(self, build, note):
            build()
            sent.append((json.dumps(to_wire(note)), note))

    ds = make_multiview_classification(60, n_views=2, n_features=4, n_classes=2, random_state=1)
    step = Message(N_("{model} keeps {level}"), model="SDF", level=Message(N_("level {n}"), n=3))
    language = []

    def run():
        language.append(current_language())
        sub = scaled(Worker(), 0.5, 0.5, prefix=joined(Message(N_("Train")), ": "))
        sub(0.25, step)
        report_partial(sub, lambda: 42, Message(N_("{n} of {total}"), n=1, total=2))
        ForestDissimilarity(n_estimators=20, random_state=0).fit(ds.X, ds.y, progress=sub)  # the library's own

    thread = threading.Thread(target=run)
    thread.start()
    thread.join()
    assert language == ["en"]
    back = [Message.from_wire(json.loads(wire)) for wire, _ in sent]
    for got, (_, made) in zip(back, sent):
        assert isinstance(made, Message) and isinstance(got, Message)
        assert got == made and got.to_wire() == made.to_wire()  # the English, the message and its values kept
        assert isinstance(got.values["second"], Message)  # the library's message too, not a plain str
    assert back[0] == "Train: SDF keeps level 3" and back[1] == "Train: 1 of 2"
    assert back[-1] == "Train: done" and "Train: growing the forest" in back
    with use_language("de"):
        assert said(back[0]) == "Trainieren: SDF behält Ebene 3"
        assert said(back[1]) == "Trainieren: 1 von 2"
        assert said(back[-1]) == "Trainieren: " + gettext("done")  # the library's message said on its own
    assert said(back[0]) == "Train: SDF keeps level 3"


def _draw_dvs_part(part_npz):
    """AppTest script: the DVS page's view of one partial result (the page's own widget keys and data)."""
    from mvlab.experiments.combinations import CombinationComparison
    from mvlab.experiments.settings import DVSSettings
    from mvlab.ui.page import Shown
    from mvlab.ui.views import dvs_page
    from mvlab.ui.widgets import widget_keys

    settings = DVSSettings(n_estimators=8)
    shown = Shown(settings, settings.data(None), "part-test", widget_keys(DVSSettings, "dvs", exclude=("w", "kdn_k")))
    dvs_page.view(CombinationComparison.from_npz(part_npz), shown)


def test_the_dvs_pages_run_offers_parts_before_dvs_is_scored_and_its_view_draws_them():
    """#72: the Dynamic view selection page's run offers the methods scored so far (its first part comes after the
    first static combination, long before the baselines), and its view draws a part that lacks the DVS methods (the
    accuracies, and a note where the selections will be) as well as one that has them. Broken once: without the
    view's check, the first part failed on ``explanations["dvs"]``."""
    from streamlit.testing.v1 import AppTest

    from mvlab.experiments.settings import DVSSettings

    settings = DVSSettings(n_estimators=8)
    listener = Listener()
    whole = settings.run(settings.data(None), listener)
    parts = [part for part, _ in listener.parts]
    assert parts[0].combinations == ["average"] and parts[0].explanations == {}
    assert parts[-1].combinations == whole.combinations[:-1]
    first = AppTest.from_function(_draw_dvs_part, args=(parts[0].to_npz(),), default_timeout=60).run()
    assert not first.exception, first.exception
    assert [c.key for c in first.get("plotly_chart")] == ["dvs_accuracy"]
    assert any("come once it is scored" in i.value for i in first.info)
    later = AppTest.from_function(_draw_dvs_part, args=(parts[-1].to_npz(),), default_timeout=60).run()
    assert not later.exception, later.exception
    assert "dvs_competence_soft" in [c.key for c in later.get("plotly_chart")]


def _draw_sdf_part(part_npz):
    """AppTest script: the Siamese page's view of one partial result (its widget keys, the sidebar's data)."""
    from mvlab import datasets
    from mvlab.experiments.settings import SiameseSettings
    from mvlab.experiments.siamese_comparison import SiameseExperiment
    from mvlab.ui.page import Shown
    from mvlab.ui.state import DEFAULT_SAMPLE, bundled_dataset
    from mvlab.ui.views import siamese_page

    ds = bundled_dataset(datasets.list_datasets()[0], DEFAULT_SAMPLE, 0)
    siamese_page.view(SiameseExperiment.from_npz(part_npz), Shown(SiameseSettings(), ds, "part-test", {}))


def test_the_siamese_run_offers_sdfs_cascade_before_gcforests_and_its_view_draws_it():
    """#72: the Siamese page's run offers SDF alone once its cascade is grown (the same SDF as the whole's), the part
    survives the trip through ``to_npz``, and the page's view draws SDF's accuracy and tree weights and says what
    comes with gcForest. Broken once: without the view's ``sdf_alone`` the part failed on ``accuracy("gcForest")``."""
    from streamlit.testing.v1 import AppTest

    from mvlab.experiments.siamese_comparison import MODELS, SiameseExperiment, run_siamese_experiment

    ds = make_multiview_classification(90, n_views=2, n_features=4, n_classes=3, random_state=0)
    listener = Listener()
    whole = run_siamese_experiment(ds.X, ds.y, 60, n_estimators=5, max_levels=2, random_state=0, progress=listener)
    [(part, note)] = listener.parts
    assert part.models == ["SDF"] and whole.models == list(MODELS) and note == "1 of 2 cascades (SDF)"
    back = SiameseExperiment.from_npz(part.to_npz())
    assert back.models == ["SDF"] and back.accuracy("SDF") == whole.accuracy("SDF")
    np.testing.assert_array_equal(back.scores["SDF"], whole.scores["SDF"])
    drawn = AppTest.from_function(_draw_sdf_part, args=(part.to_npz(),), default_timeout=60).run()
    assert not drawn.exception, drawn.exception
    assert [c.key for c in drawn.get("plotly_chart")] == ["sdf_weights_fig"]
    assert any("gcForest's cascade is growing" in i.value for i in drawn.info)


def _draw_vc_part(part_npz):
    """AppTest script: the View construction page's view of one partial result."""
    from mvlab.datasets.synthetic import make_multiview_classification
    from mvlab.experiments.settings import ViewConstructionSettings
    from mvlab.experiments.view_construction_sweep import KSweepResult
    from mvlab.ui.page import Shown
    from mvlab.ui.views import view_construction_page

    ds = make_multiview_classification(90, n_views=2, n_features=6, n_classes=2, random_state=1)
    view_construction_page.view(KSweepResult.from_npz(part_npz), Shown(ViewConstructionSettings(), ds, "part", {}))


def test_the_sweeps_first_k_part_lacks_the_shared_ga_and_the_page_draws_it():
    """The View construction page's first part (k = 1..⌈K/2⌉ of the first fold) comes before VC-GA's shared GA, which
    computes every k at once; the page's view draws it (its boxes and lines with what is there, the test on the
    methods present) and says how many cells it holds."""
    from streamlit.testing.v1 import AppTest

    ds = make_multiview_classification(90, n_views=2, n_features=6, n_classes=2, random_state=1)
    listener = Listener()
    k_sweep(ds.X, ds.y, methods=["OFSP", "RFSP", "VC-GA"], classifiers=["knn"], max_views=3, n_splits=2,
            inner_cv=2, ga_generations=1, ga_population=6, ga_runs="shared", random_state=4, progress=listener)
    first, note = listener.parts[0]
    assert note == "k = 1..2 of the first test fold" and set(first.table["method"]) == {"OFSP", "RFSP"}
    drawn = AppTest.from_function(_draw_vc_part, args=(first.to_npz(),), default_timeout=60).run()
    assert not drawn.exception, drawn.exception
    assert {"vc_boxes", "vc_lines"} <= {c.key for c in drawn.get("plotly_chart")}
    assert any("4 view ensembles" in s.value for s in drawn.success)


def _draw_dis(result_npz, part):
    """AppTest script: the Dissimilarity page's view of a result, as a part (``part``) or as the whole."""
    from mvlab.datasets.synthetic import make_multiview_classification
    from mvlab.experiments.combinations import CombinationComparison
    from mvlab.experiments.settings import DissimilaritySettings
    from mvlab.ui.page import Shown
    from mvlab.ui.views import dissimilarity_page

    ds = make_multiview_classification(80, n_views=2, n_features=4, n_classes=2, random_state=3)
    dissimilarity_page.view(CombinationComparison.from_npz(result_npz),
                            Shown(DissimilaritySettings(), ds, "dis-part-test", {}, part=part))


def test_the_dissimilarity_pages_part_leaves_the_matrices_and_the_map_to_the_whole():
    """#72: a part of the Dissimilarity page's run (the methods scored so far) is drawn with its accuracies, weights
    and table only, saying the matrices and the map come with the whole, which draws them: drawn in the part too,
    the same heatmap and map held the browser up to 0.7 s before its first figure. Broken once: with the view's
    ``shown.part`` check taken out, the part drew the heatmap and the map and said nothing of them."""
    from streamlit.testing.v1 import AppTest

    from mvlab.experiments.settings import DissimilaritySettings

    ds = make_multiview_classification(80, n_views=2, n_features=4, n_classes=2, random_state=3)
    listener = Listener()
    whole = DissimilaritySettings(n_estimators=5).run(ds, listener)
    part = listener.parts[0][0]
    assert set(part.accuracy) < set(whole.accuracy)
    keys = {}
    for name, result, is_part in (("part", part, True), ("whole", whole, False)):
        drawn = AppTest.from_function(_draw_dis, args=(result.to_npz(), is_part), default_timeout=60).run()
        assert not drawn.exception, drawn.exception
        keys[name] = [c.key for c in drawn.get("plotly_chart")]
        said = [c.value for c in drawn.caption]
        assert any("come with the whole result" in text for text in said) == is_part
    assert keys["part"] == ["dis_accuracy", "dis_weights"]
    assert keys["whole"] == ["dis_accuracy", "dis_weights", "dis_heat_joint (average)", "dis_mds"]
