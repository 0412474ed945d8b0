"""The Siamese deep forest paper's protocol: pair-sampling readings, lambda chosen on training pairs only,
cells with their t intervals, and `reproduce sdf-paper` end to end, interrupted and resumed."""

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from mvlab.cli import main
from mvlab.datasets import load_dataset
from mvlab.reproduction import sdf_paper
from mvlab.reproduction.cells import DrawsFile, mean_interval, summarise_cells
from mvlab.reproduction.markdown import replace_section
from mvlab.siamese import SiameseDeepForest
from mvlab.siamese.pairs import make_pair_split, pair_features
from mvlab.siamese.tree_weights import solve_tree_weights


# ------------------------------------------------------------------------------ intervals
@pytest.mark.parametrize("n", [2, 5, 10, 40])
def test_mean_interval_is_scipys_student_t_interval(n):
    x = np.random.default_rng(n).normal(0.8, 0.05, size=n)
    mean, std, low, high = mean_interval(x)
    ref = stats.t.interval(0.95, n - 1, loc=x.mean(), scale=stats.sem(x))
    assert mean == pytest.approx(x.mean()) and std == pytest.approx(x.std(ddof=1))
    assert (low, high) == pytest.approx(ref)


def test_mean_interval_agrees_with_a_bootstrap_on_many_draws():
    x = np.random.default_rng(1).normal(0.7, 0.1, size=400)
    _, _, low, high = mean_interval(x)
    boot = np.random.default_rng(2).choice(x, size=(4000, x.size)).mean(axis=1)
    b_low, b_high = np.quantile(boot, [0.025, 0.975])
    assert abs(low - b_low) < 0.003 and abs(high - b_high) < 0.003


def test_one_draw_has_no_interval_and_the_paper_is_not_inside_it():
    mean, std, low, high = mean_interval([0.8])
    assert mean == 0.8 and np.isnan([std, low, high]).all()
    cells = summarise_cells(pd.DataFrame({"g": ["a", "a", "b"], "accuracy": [0.7, 0.9, 0.5]}), ["g"])
    assert cells["draws"].tolist() == [2, 1]


# --------------------------------------------------------------------------- pair readings
def test_shared_pool_draws_distinct_balanced_pairs_from_every_instance():
    y = np.repeat([0, 1, 2], [50, 30, 20])
    split = make_pair_split(y, 101, pools="shared", random_state=0)
    train = {tuple(sorted(p)) for p in split.train_pairs}
    test = {tuple(sorted(p)) for p in split.test_pairs}
    assert len(train) == 101 and len(test) == 67 and not train & test
    assert int(split.y_train.sum()) == 101 - 50 and abs(int(split.y_test.sum()) - 67 / 2) <= 1
    for pairs, labels in ((split.train_pairs, split.y_train), (split.test_pairs, split.y_test)):
        assert np.array_equal(labels, (y[pairs[:, 0]] != y[pairs[:, 1]]).astype(int))
    used = np.unique(np.concatenate([split.train_pairs.ravel(), split.test_pairs.ravel()]))
    assert np.isin(np.unique(split.test_pairs), np.unique(split.train_pairs)).mean() > 0.9  # shared instances
    assert used.size > 90


def test_disjoint_pools_never_share_an_instance():
    y = np.repeat([0, 1], [60, 40])
    split = make_pair_split(y, 100, random_state=3)
    assert not np.intersect1d(split.train_pairs, split.test_pairs).size
    with pytest.raises(ValueError, match="pools must be one of"):
        make_pair_split(y, 100, pools="one")


def test_a_draw_sees_the_same_pairs_for_every_number_of_trees():
    seeds = {sdf_paper.draw_seed("ecoli", 500, "disjoint", 3)}
    assert len(seeds) == 1 and sdf_paper.draw_seed("ecoli", 500, "shared", 3) not in seeds
    grid = sdf_paper.paper_grid(["ecoli"], readings=["disjoint"])
    assert len(grid) == 4 * (10 + 10 + 10 + 5)  # 4 T x the draws of the four N
    assert {t.models for t in grid if (t.N, t.T) == (2000, 700)} == {("gcforest", "sdf", "bagging", "rf")}


# ----------------------------------------------------------------------------- lambda grid
def _haberman_draw(seed):
    ds = load_dataset("haberman")
    split = make_pair_split(ds.y, 120, random_state=seed)
    return split, pair_features(ds.X, split.train_pairs), pair_features(ds.X, split.test_pairs)


def test_lambda_is_chosen_by_the_cross_fitted_halves_of_each_fold_models_held_out_pairs():
    """A slow reference: for the first forest's first fold-model, recompute the held-out tree probabilities,
    solve each lambda on each stratified half, score the other half, and take the best (ties: larger)."""
    from sklearn.model_selection import StratifiedKFold

    from mvlab.siamese.cascade import tree_probas
    from mvlab.siamese.forest import tree_margin_matrix

    split, Ftr, _ = _haberman_draw(0)
    grid = (0.01, 100.0)
    model = SiameseDeepForest(lam_grid=grid, n_estimators=15, max_levels=1, random_state=0).fit_from_vectors(
        Ftr, split.y_train)
    est = model.levels_[0][0].estimators[0]
    rs = np.random.RandomState(np.random.RandomState(0).randint(np.iinfo(np.int32).max))
    skf = StratifiedKFold(n_splits=3, shuffle=True, random_state=rs.randint(np.iinfo(np.int32).max))
    _, held = next(skf.split(Ftr, split.y_train))
    tp, y = tree_probas(est, Ftr[held].astype(np.float32), 2), split.y_train[held]
    half = np.zeros(y.size, int)
    for c in (0, 1):
        idx = np.flatnonzero(y == c)
        half[idx] = np.arange(idx.size) % 2
    scores = {}
    for lam in grid:
        correct = 0
        for h in (0, 1):
            w = solve_tree_weights(tree_margin_matrix(tp[:, half != h], y[half != h]), lam)
            v = np.tensordot(w, tp[:, half == h], axes=(0, 0))
            correct += int(np.sum((v[:, 0] < v[:, 1]) == y[half == h]))  # ties: similar, as the model
        scores[lam] = correct
    best = max(sorted(grid, reverse=True), key=lambda lam: scores[lam])
    assert model.lam_[0][0][0] == best


def test_lambda_is_never_chosen_on_the_test_pairs():
    """On this draw the lambda that would score best on the test pairs is not the one the training pairs
    choose, and the model's test accuracy is that of its own choice, lower."""
    split, Ftr, Fte = _haberman_draw(0)
    kw = dict(n_estimators=15, max_levels=1, random_state=0)
    test_acc = {lam: np.mean(SiameseDeepForest(lam=lam, **kw).fit_from_vectors(Ftr, split.y_train)
                             .predict_from_vectors(Fte) == split.y_test) for lam in (0.01, 100.0)}
    assert test_acc[0.01] > test_acc[100.0]  # peeking at the test pairs would take 0.01 everywhere
    grid = SiameseDeepForest(lam_grid=(0.01, 100.0), **kw).fit_from_vectors(Ftr, split.y_train)
    chosen = np.concatenate(grid.lam_[0])
    assert set(chosen) == {0.01, 100.0}  # chosen per fold-model from the training pairs
    assert np.mean(grid.predict_from_vectors(Fte) == split.y_test) < test_acc[0.01]


def test_lambda_grid_needs_out_of_fold_cross_fitted_weights():
    split, Ftr, _ = _haberman_draw(1)
    for bad in (dict(qp_probas="insample"), dict(crossfit=False)):
        with pytest.raises(ValueError, match="lam_grid"):
            SiameseDeepForest(lam_grid=(1.0, 10.0), n_estimators=5, **bad).fit_from_vectors(Ftr, split.y_train)
    with pytest.raises(ValueError, match="lam_grid must be"):
        SiameseDeepForest(lam_grid=[-1.0], n_estimators=5).fit_from_vectors(Ftr, split.y_train)


def test_gcforest_and_sdf_share_their_first_level_without_changing_a_result():
    split, Ftr, Fte = _haberman_draw(2)
    kw = dict(n_estimators=10, max_levels=3, random_state=5)
    alone = SiameseDeepForest(weighting="uniform", **kw).fit_from_vectors(Ftr, split.y_train)
    cache = {}
    sdf = SiameseDeepForest(**kw).fit_from_vectors(Ftr, split.y_train, model_cache=cache)
    assert len(sdf.level_scores_) >= 2 and len(cache) == 4 * 3  # level 1: 4 forests x 3 folds, no later one
    shared = SiameseDeepForest(weighting="uniform", **kw).fit_from_vectors(Ftr, split.y_train, model_cache=cache)
    assert cache == {}  # the second cascade took them all: nothing outlives the pair of fits
    assert shared.levels_[0][0].estimators[0] is sdf.levels_[0][0].estimators[0]
    assert np.array_equal(shared.level_class_vectors_from_vectors(Fte)[-1],
                          alone.level_class_vectors_from_vectors(Fte)[-1])
    assert shared.level_scores_ == alone.level_scores_


# --------------------------------------------------------------------------- end to end
def _cli(tmp_path, *extra, reading="sdf-paper"):
    return main(["--store", str(tmp_path / "store.sqlite"), "reproduce", reading, "--out", str(tmp_path),
                 "--report", str(tmp_path / "report.md"), "--datasets", "ionosphere", "--pairs-grid", "100",
                 "--trees-grid", "10", "--repetitions", "2", "--max-levels", "2", "--n-jobs", "1", *extra])


def test_reproduce_sdf_paper_end_to_end_resumes_without_recomputing_finished_draws(tmp_path, monkeypatch):
    real, calls = sdf_paper.run_draw, []

    def interrupted(task, *args, **kwargs):
        if len(calls) == 2:
            raise KeyboardInterrupt  # the run is cut off during its third draw
        calls.append(task.key)
        return real(task, *args, **kwargs)

    monkeypatch.setattr(sdf_paper, "run_draw", interrupted)
    with pytest.raises(KeyboardInterrupt):
        _cli(tmp_path)
    file = DrawsFile(tmp_path / "sdf_paper_draws.csv", sdf_paper.DRAW_COLUMNS, sdf_paper.DRAW_KEY)
    assert file.done() == set(calls) and len(calls) == 2
    first = file.read()

    resumed = []
    monkeypatch.setattr(sdf_paper, "run_draw", lambda task, *a, **k: resumed.append(task.key) or real(task, *a, **k))
    assert _cli(tmp_path) == 0
    assert len(resumed) == 2 and not set(resumed) & set(calls)  # 2 readings x 2 draws, 2 were done
    draws = file.read()
    assert len(draws) == 8 and draws.iloc[:4].equals(first)  # finished draws kept as they were
    cells = pd.read_csv(tmp_path / "sdf_paper_cells.csv")
    assert list(cells.columns) == ["table", "dataset", "N", "T", "k", "classifier", "model", "reading", "draws",
                                   "mean", "std", "ci_low", "ci_high", "pi_low", "pi_high", "paper", "paper_source",
                                   "inside", "inside_one_draw"]
    assert set(cells["reading"]) == {"disjoint", "shared"} and (cells["draws"] == 2).all()
    assert set(cells["table"]) == {6} and cells["paper"].isna().all()  # T = 10 is not a cell of the paper
    report = (tmp_path / "report.md").read_text()
    assert "<!-- BEGIN sdf-paper -->" in report and "Table 6 (Ionosphere), reading `shared`" in report

    (tmp_path / "sdf_paper_cells.csv").unlink()
    monkeypatch.setattr(sdf_paper, "run_draw", lambda *a: pytest.fail("--report-only computed a draw"))
    assert _cli(tmp_path, "--report-only") == 0
    assert pd.read_csv(tmp_path / "sdf_paper_cells.csv").equals(cells)


def test_paper_cells_place_the_papers_values_and_say_whether_they_are_inside():
    rows = []
    for d, acc in enumerate([0.90, 0.92, 0.91]):
        for model, shift in (("gcForest", 0.0), ("SDF", 0.01)):
            rows.append({"dataset": "ecoli", "N": 2000, "T": 700, "reading": "disjoint", "draw": d, "seed": 1,
                         "model": model, "accuracy": acc + shift, "n_levels": 2, "lam_median": np.nan,
                         "n_test_pairs": 1333, "seconds": 1.0})
    cells = sdf_paper.paper_cells(pd.DataFrame(rows))
    t4 = cells[cells["table"] == 4].set_index("model")
    assert t4.loc["gcForest", "paper"] == 0.913 and t4.loc["SDF", "paper"] == 0.915
    assert t4.loc["gcForest", "inside"] is True and t4.loc["SDF", "inside"] is True
    t8 = cells[cells["table"] == 8].set_index("model")
    assert t8.loc["gcForest", "paper"] == 0.915  # Table 8's cell of the same draws


def test_the_readings_line_says_which_pair_sampling_lands_closer_to_the_paper():
    from mvlab.reproduction.sdf_paper_report import readings_line

    rows = []
    for reading, base in (("disjoint", 0.90), ("shared", 0.96)):  # the paper's Ionosphere N = 2000: .905-.920
        for d, acc in enumerate([base, base + 0.01, base - 0.01]):
            for model in ("gcForest", "SDF"):
                rows.append({"dataset": "ionosphere", "N": 2000, "T": 400, "reading": reading, "draw": d, "seed": 1,
                             "model": model, "accuracy": acc, "n_levels": 2, "lam_median": np.nan,
                             "n_test_pairs": 1333, "seconds": 1.0})
    cells = sdf_paper.paper_cells(pd.DataFrame(rows))
    line = readings_line(cells)
    assert line.startswith("N = 2000 (2 cells):")
    assert line.endswith("closer: `disjoint`, `shared` above `disjoint` in 2 of 2")
    assert "`disjoint` -0.005 (mean |gap| 0.005, 2 inside)" in line and "`shared` +0.055" in line
    assert readings_line(cells[cells["reading"] == "disjoint"]).startswith("not yet measured")


def test_the_progress_line_counts_the_grid_and_prices_what_is_left():
    from mvlab.reproduction.sdf_paper_report import progress_line

    rows = [{"dataset": "ecoli", "N": 100, "T": 100, "reading": "disjoint", "draw": d, "seed": 1, "model": m,
             "accuracy": 0.8, "n_levels": 1, "lam_median": np.nan, "n_test_pairs": 67, "seconds": 36.0}
            for d in range(2) for m in ("gcForest", "SDF")]
    line = progress_line(pd.DataFrame(rows))
    grid = len(sdf_paper.paper_grid())
    # every missing draw priced at 72 s (the one (N, T) measured stands in for the others)
    assert line.startswith(f"2 of the grid's {grid} draws computed; the {grid - 2} left are about "
                           f"{(grid - 2) * 72 / 3600:.1f} h of model fitting, {(grid - 2) * 36 / 3600:.1f} h")


def test_the_progress_line_says_when_the_grid_is_complete():
    from mvlab.reproduction.sdf_paper_report import progress_line

    grid = sdf_paper.paper_grid()
    rows = [{**dict(zip(sdf_paper.DRAW_KEY, t.key)), "model": m, "seconds": 18.0}
            for t in grid for m in ("gcForest", "SDF")]
    line = progress_line(pd.DataFrame(rows))
    hours = len(grid) * 36 / 3600
    assert line == f"complete: all {len(grid)} draws of the grid computed, {hours:.1f} h of model fitting"
    assert progress_line(pd.DataFrame(rows[2:])).startswith(f"{len(grid) - 1} of the grid's")
    extra = {**rows[0], "draw": 99, "seconds": 3600.0}  # a draw beyond the grid (more draws asked) is not its cost
    assert progress_line(pd.DataFrame(rows + [extra])) == line


def test_report_sections_are_replaced_between_their_markers():
    text = "# Title\n\nhand-written\n"
    once = replace_section(text, "x", "first")
    twice = replace_section(once + "\nafter\n", "x", "second")
    assert "hand-written" in twice and "after" in twice and "second" in twice and "first" not in twice


# ------------------------------------------------------------------------------ OFSP Table 3
def test_ofsp_table3_rows_are_computed_repetition_by_repetition_and_placed_beside_the_paper(tmp_path):
    from mvlab.reproduction import ofsp_paper
    from mvlab.reproduction.writer import write_outputs

    tasks = ofsp_paper.ofsp_grid(datasets=["golub-3051"], classifiers=["knn"], repeats=2)
    small = dict(max_views=2, n_splits=3, max_features=40, ga_generations=1, inner_cv=2, n_jobs=1)
    assert ofsp_paper.run_ofsp_protocol(tmp_path / "ofsp_paper_draws.csv", tasks[:1], **small) == 1
    assert ofsp_paper.run_ofsp_protocol(tmp_path / "ofsp_paper_draws.csv", tasks, **small) == 1  # resumed
    write_outputs(["ofsp-paper"], tmp_path, tmp_path / "report.md")
    cells = pd.read_csv(tmp_path / "ofsp_paper_cells.csv")
    assert (cells["draws"] == 2).all() and cells[cells["model"] != "OFSP"]["paper"].isna().all()
    # Table 3: the accuracy at every k; Table 4: the disagreement, which needs two members (k = 2 here)
    assert len(cells[cells["table"] == 3]) == 6 * 2 and len(cells[cells["table"] == 4]) == 6
    assert set(cells[cells["table"] == 4]["k"]) == {2}
    ofsp = cells[cells["model"] == "OFSP"].set_index(["table", "k"])
    assert ofsp.loc[(3, 1), "paper"] == 1.0 and ofsp.loc[(4, 2), "paper"] == ofsp_paper.PAPER_DISAGREEMENT[
        ("golub-3051", "knn", 2)] == 0.0
    draws = pd.read_csv(tmp_path / "ofsp_paper_draws.csv")
    by_hand = draws[(draws["method"] == "OFSP") & (draws["k"] == 2)]["disagreement"]
    assert ofsp.loc[(4, 2), "mean"] == pytest.approx(by_hand.mean(), abs=1e-6) and by_hand.notna().all()
    report = (tmp_path / "report.md").read_text()
    assert "All-AML leukemia (golub-3051: 3,051 filtered genes" in report
    assert "Table 3 (accuracy): " in report and "Table 4 (disagreement): " in report
    # the paper's rows not computed yet stand in the grids, said as such (only KNN ran here)
    assert "| naive Bayes (not computed yet) | not yet / 0.974 | not yet / 1.000 |" in report
    assert "| linear SVM (not computed yet) | not yet / 1.000 | not yet / 1.000 |" in report
    assert "| naive Bayes (not computed yet) | not yet / 0.0000 |" in report  # Table 4 (k = 2)
    assert report.count("| linear SVM (not computed yet)") == 1  # Table 4's SVM block is lost: no row to wait for
    # the paper's Figs. 4-7: per (measure, classifier), a row per k and a column per method, the mean over repetitions
    panels = ofsp_paper.figure_panels(draws, "golub-3051")
    assert list(panels) == [(m, "knn") for m in ofsp_paper.FIGURE_METRICS]
    seconds = panels[("seconds", "knn")]
    assert list(seconds.columns) == ["OFSP", "RFSP", "Bagging", "AB", "VG-AC", "VC-GA"]
    assert list(seconds.index) == [1, 2]
    by_hand = draws[(draws["method"] == "AB") & (draws["k"] == 2)]["seconds"].mean()
    assert seconds.loc[2, "AB"] == pytest.approx(by_hand) and panels[("disagreement", "knn")].loc[1].isna().all()
    assert "| KNN | % of features kept (Fig. 7) | " in report
    # the Papers page's line says which column its intervals do not yet rest on 10 repetitions for
    from mvlab.reproduction.ofsp_paper_report import ofsp_repetitions_line

    assert ofsp_repetitions_line(cells) == ("the interval over the 10 repetitions (All-AML leukemia's KNN column: 2 "
                                            "so far, still computing)")
    assert ofsp_repetitions_line(cells.assign(draws=10)) == "the interval over the 10 repetitions"
    assert ofsp_repetitions_line(cells.assign(draws=20)) == "the interval over the 20 repetitions"


def test_table9_is_a_paired_t_test_over_datasets_beside_the_papers_on_the_same_datasets():
    names = ["ecoli", "yeast", "ionosphere"]
    rows = []
    for i, name in enumerate(names):
        for model, acc in (("gcForest", 0.80 + 0.03 * i), ("SDF", 0.81 + 0.035 * i), ("Bagging", 0.7),
                           ("RF", 0.75 + 0.01 * i)):
            rows.append({"table": 8, "dataset": name, "model": model, "reading": "disjoint", "mean": acc})
    t9 = sdf_paper.table9(pd.DataFrame(rows)).set_index("difference")
    sdf = np.array([0.81, 0.845, 0.88])
    ref = stats.ttest_rel(sdf, np.array([0.80, 0.83, 0.86]))
    assert t9.loc["SDF - gcForest", "p"] == pytest.approx(ref.pvalue)
    assert t9.loc["SDF - gcForest", "mean"] == pytest.approx(0.015)
    paper = stats.ttest_rel([sdf_paper.TABLE8[n][4] for n in names], [sdf_paper.TABLE8[n][0] for n in names])
    assert t9.loc["SDF - gcForest", "paper, same datasets: p"] == pytest.approx(paper.pvalue)
    assert t9.loc["SDF - RF", "paper p"] == 0.002  # the paper's own Table 9, over its ten datasets
    # the paper's Table 9 recomputed from its own Table 8 over all ten rows: D1's mean 0.0146 (printed 0.015)
    all_rows = np.array([v[4] - v[0] for v in sdf_paper.TABLE8.values()])
    assert all_rows.mean() == pytest.approx(0.0146, abs=1e-4)


def test_the_rank_tests_of_section_8_recompute_the_papers_friedman_p_values_and_rank_ours():
    """§8's Friedman test of each difference alone gives the paper's printed p-values from its own Table 8 (0.0016
    three times, 0.0114 for the SNN); on our cells it ranks the two models within each dataset, and Bonferroni–Dunn
    ranks the models we run with SDF as the control."""
    table = {  # dataset: gcForest, SDF, Bagging, RF
        "ecoli": (0.80, 0.81, 0.80, 0.79), "yeast": (0.83, 0.84, 0.70, 0.84),
        "ionosphere": (0.86, 0.87, 0.70, 0.85), "haberman": (0.89, 0.90, 0.70, 0.90),
    }
    rows = [{"table": 8, "dataset": name, "model": model, "reading": "disjoint", "mean": acc}
            for name, accs in table.items() for model, acc in zip(("gcForest", "SDF", "Bagging", "RF"), accs)]
    rt = sdf_paper.rank_tests(pd.DataFrame(rows)).set_index("difference")
    assert list(rt.index) == ["SDF - gcForest", "SDF - Bagging", "SDF - RF", "SDF - SNN"]
    printed_p = {"SDF - gcForest": 0.0016, "SDF - Bagging": 0.0016, "SDF - RF": 0.0016, "SDF - SNN": 0.0114}
    for d, printed in printed_p.items():
        assert rt.loc[d, "paper p"] == printed
        assert round(rt.loc[d, "paper recomputed: friedman p"], 4) == printed
    # SDF above gcForest on all 4 datasets: chi2 = (W - L)^2 / (W + L) = 4 with one degree of freedom
    assert rt.loc["SDF - gcForest", "friedman p"] == pytest.approx(stats.chi2.sf(4.0, 1))
    assert (rt.loc["SDF - gcForest", "higher"], rt.loc["SDF - gcForest", "lower"]) == (4, 0)
    # SDF above RF on 2 datasets, level on 2: tie-corrected, chi2 = (2 - 0)^2 / (2 + 0) = 2
    assert (rt.loc["SDF - RF", "higher"], rt.loc["SDF - RF", "lower"]) == (2, 0)
    assert rt.loc["SDF - RF", "friedman p"] == pytest.approx(stats.chi2.sf(2.0, 1))
    assert rt.loc["SDF - SNN", "datasets"] == 0 and np.isnan(rt.loc["SDF - SNN", "friedman p"])
    # Bonferroni-Dunn over our 4 models: SDF's average rank against gcForest's, SE = sqrt(k (k + 1) / (6 n))
    wide = pd.DataFrame(rows).pivot_table(index="dataset", columns="model", values="mean")
    ranks = wide.rank(axis=1, ascending=False)
    z = (ranks["gcForest"].mean() - ranks["SDF"].mean()) / np.sqrt(4 * 5 / (6 * 4))
    assert rt.loc["SDF - gcForest", "dunn p"] == pytest.approx(min(1.0, 3 * 2 * stats.norm.sf(abs(z))))
    # fewer than two datasets with every model: nothing to rank
    assert sdf_paper.rank_tests(pd.DataFrame(rows[:4])).empty


def test_the_lambda_reading_fits_every_fixed_lambda_on_the_main_protocols_pairs(tmp_path):
    """reproduce sdf-lambda: gcForest, SDF (λ on training pairs) and SDF with each λ fixed on the same draw; the
    summary's "λ on test" readings are maxima over the fixed λ (per draw, then per cell), never below either."""
    from mvlab.reproduction import sdf_lambda

    assert _cli(tmp_path, reading="sdf-lambda") == 0
    draws = pd.read_csv(tmp_path / "sdf_lambda_draws.csv")
    assert set(draws["model"]) == {"gcForest", "SDF", "SDF λ=1", "SDF λ=100", "SDF λ=10000"}
    assert set(draws["reading"]) == {"disjoint"} and draws["draw"].nunique() == 2
    # the pairs are the main protocol's: the same seed as that draw of paper_grid
    assert set(draws["seed"]) == {sdf_paper.draw_seed("ionosphere", 100, "disjoint", d) for d in (0, 1)}
    summary = pd.read_csv(tmp_path / "sdf_lambda_cells.csv")
    wide = draws.pivot_table(index="draw", columns="model", values="accuracy")
    fixed = wide[["SDF λ=1", "SDF λ=100", "SDF λ=10000"]]
    per_draw = (fixed.max(axis=1) - wide["gcForest"]).mean()
    per_cell = (fixed[fixed.mean().idxmax()] - wide["gcForest"]).mean()
    row = summary.iloc[0]
    assert row["SDF (λ on test, per draw)"] == pytest.approx(per_draw)
    assert row["SDF (λ on test, per cell)"] == pytest.approx(per_cell) and per_draw >= per_cell - 1e-12
    assert row["SDF (λ on training pairs)"] == pytest.approx((wide["SDF"] - wide["gcForest"]).mean())
    assert "<!-- BEGIN sdf-lambda -->" in (tmp_path / "report.md").read_text()
    assert len(sdf_lambda.lambda_grid()) == 3 * (10 + 10 + 10 + 5)


def test_the_other_readings_draw_natural_pairs_and_feed_the_qp_in_sample_probabilities(tmp_path):
    """reproduce sdf-readings: `natural` draws pairs as they come (its own seeds); `insample` reuses the disjoint
    reading's pairs and fits SDF with in-sample QP probabilities at each λ; the summary and section follow."""
    from mvlab.reproduction import sdf_readings
    from mvlab.siamese.pairs import make_pair_split

    assert _cli(tmp_path, reading="sdf-readings") == 0
    draws = pd.read_csv(tmp_path / "sdf_readings_draws.csv")
    assert set(draws["reading"]) == {"natural", "insample"} and draws["draw"].nunique() == 2
    insample = draws[draws["reading"] == "insample"]
    assert set(insample["model"]) == {"gcForest", "SDF", "SDF in-sample λ=1", "SDF in-sample λ=100",
                                      "SDF in-sample λ=10000"}
    assert set(insample["seed"]) == {sdf_paper.draw_seed("ionosphere", 100, "disjoint", d) for d in (0, 1)}
    natural = draws[draws["reading"] == "natural"]
    assert set(natural["seed"]) == {sdf_paper.draw_seed("ionosphere", 100, "natural", d) for d in (0, 1)}
    y = load_dataset("ionosphere").y
    shares = []
    for seed in sorted(set(natural["seed"])):
        split = make_pair_split(y, 100, random_state=int(seed), pools="disjoint", balanced=False)
        shares.append(max(split.y_test.mean(), 1 - split.y_test.mean()))
    summary = pd.read_csv(tmp_path / "sdf_readings_cells.csv").set_index("reading")
    assert summary.loc["natural", "majority"] == pytest.approx(np.mean(shares))
    assert summary.loc["natural", "majority"] > 0.5  # not half similar, as the balanced reading's pairs are
    wide = insample.pivot_table(index="draw", columns="model", values="accuracy")
    assert summary.loc["insample", "SDF in-sample λ=100 − gcForest"] == pytest.approx(
        (wide["SDF in-sample λ=100"] - wide["gcForest"]).mean())
    assert "<!-- BEGIN sdf-readings -->" in (tmp_path / "report.md").read_text()
    assert len(sdf_readings.readings_grid()) == 2 * (10 + 10 + 10 + 5)


def test_an_ofsp_repetition_keeps_its_finished_folds_in_a_store_and_takes_them_back(tmp_path, monkeypatch):
    """A repetition of many hours (Madelon with the SVM) cut off keeps its finished folds: run again with the same
    store, it reads them back instead of computing them (here every fold: nothing is evaluated the second time),
    and gives the same rows."""
    from mvlab.experiments import view_construction_sweep
    from mvlab.reproduction import ofsp_paper
    from mvlab.store import ResultsStore

    task = ofsp_paper.OfspTask("golub-3051", "nb", 0)
    small = dict(max_views=2, n_splits=3, max_features=40, ga_generations=1, inner_cv=2, n_jobs=1,
                 split_store=tmp_path / "folds.sqlite")
    first = ofsp_paper.run_ofsp_draw(task, **small)
    runs = ResultsStore(tmp_path / "folds.sqlite").runs()
    assert len(runs) == 1 and runs.iloc[0]["kind"] == ofsp_paper.SPLITS_KIND

    def no_more(*args, **kwargs):
        raise AssertionError("a stored fold was computed again")

    monkeypatch.setattr(view_construction_sweep, "_evaluate_cell", no_more)
    monkeypatch.setattr(view_construction_sweep, "_evaluate_shared_ga", no_more)
    again = ofsp_paper.run_ofsp_draw(task, **small)
    key = ["method", "k"]
    a, b = pd.DataFrame(first).sort_values(key), pd.DataFrame(again).sort_values(key)
    assert np.allclose(a["accuracy"], b["accuracy"]) and np.allclose(a["percent_features"], b["percent_features"])


def test_ofsp_table4_is_read_as_k_2_to_10_the_one_reading_whose_all_aml_values_count_disagreements():
    """The paper's Table 4 rows hold nine values for k = 1..10; read as k = 2..10, each All-AML value times the 38
    samples times the C(k, 2) pairs of members is a whole number of disagreements, read as k = 1..9 it is not."""
    from math import comb

    from mvlab.reproduction.ofsp_paper import PAPER_DISAGREEMENT

    for clf in ("knn", "nb"):
        values = {k: PAPER_DISAGREEMENT[("golub-3051", clf, k)] for k in range(2, 11)}
        counts = np.array([v * 38 * comb(k, 2) for k, v in values.items()])
        shifted = np.array([v * 38 * comb(k - 1, 2) for k, v in values.items()])
        assert np.allclose(counts, np.round(counts), atol=0.1)  # the printed 4 decimals round the counts
        assert not np.allclose(shifted, np.round(shifted), atol=0.1)
    assert ("golub-3051", "knn", 1) not in PAPER_DISAGREEMENT and ("madelon-500", "nb", 10) in PAPER_DISAGREEMENT


def test_ofsp_choosing_features_on_the_test_fold_is_the_protocols_folds_with_a_leak(tmp_path):
    """The diagnosis of OFSP's 100 % cells: on the protocol's own outer folds, OFSP's accuracy is that of the test
    fold (a view of k = 1 is then the features that separate the test rows), the ensemble trained on the training
    rows; its draws file and section are written like the protocol's."""
    from mvlab.construction.ensemble import ViewEnsemble
    from mvlab.construction.partition import OFSP
    from mvlab.experiments.protocols import RepeatedKFold
    from mvlab.experiments.view_construction_sweep import cell_seed
    from mvlab.reproduction import ofsp_leak, ofsp_paper
    from mvlab.reproduction.writer import write_outputs

    task = ofsp_paper.OfspTask("golub-3051", "knn", 0)
    rows = ofsp_leak.run_leak_draw(task, max_views=2)
    assert [r["k"] for r in rows] == [1, 2] and {r["method"] for r in rows} == {ofsp_leak.LEAK_METHOD}
    assert np.isnan(rows[0]["disagreement"]) and 0 <= rows[1]["disagreement"] <= 1  # one member has none
    ds = load_dataset("golub-3051")
    s = RepeatedKFold(1, 5).splits(ds.y, 1000)[2]  # one fold by hand
    views = OFSP(1, "knn", inner_cv=[(s.train, s.test)], random_state=cell_seed(s.seed, 1)).fit(ds.X, ds.y).views_
    ens = ViewEnsemble(views=views, estimator="knn", inner_cv=5, random_state=cell_seed(s.seed, 1))
    assert ens.fit(ds.X[s.train], ds.y[s.train]).score(ds.X[s.test], ds.y[s.test]) == 1.0
    DrawsFile(tmp_path / "ofsp_leak_draws.csv", ofsp_paper.OFSP_DRAW_COLUMNS, ofsp_paper.OFSP_DRAW_KEY).append(rows)
    write_outputs(["ofsp-leak"], tmp_path, tmp_path / "report.md")
    cells = pd.read_csv(tmp_path / "ofsp_leak_cells.csv")
    assert cells["table"].tolist() == [3, 3, 4] and cells["paper"].tolist() == [1.0, 1.0, 0.0]
    assert "<!-- BEGIN ofsp-leak -->" in (tmp_path / "report.md").read_text()


def _run_a_classifier_reading_beside_the_protocol(path, classifier, draw, methods, variants, say=None):
    """A classifier reading's repetition 0 on golub-3051 at k <= 2 through the protocol's runner into ``path``: a
    row per method and variant, and the rows of the first variant are the protocol's own cells (same folds, seeds
    and views, the same classifier)."""
    from mvlab.reproduction import ofsp_paper

    task = ofsp_paper.OfspTask("golub-3051", classifier, 0)
    ofsp_paper.run_ofsp_protocol(path, [task], draw=draw, max_views=2, say=say)
    rows = DrawsFile(path, ofsp_paper.OFSP_DRAW_COLUMNS, ofsp_paper.OFSP_DRAW_KEY).read()
    assert sorted(rows["method"].unique()) == sorted(f"{m}, {v}" for m in methods for v in variants)
    protocol = pd.DataFrame(ofsp_paper.run_ofsp_draw(task, max_views=2, methods=list(methods)))
    suffix = f", {variants[0]}"
    first = rows[rows["method"].str.endswith(suffix)].assign(method=lambda f: f["method"].str[:-len(suffix)])
    merged = first.merge(protocol, on=["method", "k"], suffixes=("", "_protocol"))
    assert len(merged) == 2 * len(methods) and np.allclose(merged["accuracy"], merged["accuracy_protocol"])
    assert np.allclose(merged["disagreement"], merged["disagreement_protocol"], equal_nan=True)


def test_the_knn_reading_recomputes_the_protocols_1nn_cells_and_chooses_k_as_a_leave_one_out_grid_search(tmp_path):
    """The neighbour-count reading of OFSP's Madelon KNN row: its 1-NN rows are the protocol's own cells (same
    folds, seeds and views); its other classifier chooses k as GridSearchCV with LeaveOneOut would, and predicts
    as the KNeighborsClassifier with that k."""
    from sklearn.model_selection import GridSearchCV, LeaveOneOut
    from sklearn.neighbors import KNeighborsClassifier

    from mvlab.reproduction import ofsp_knn

    rng = np.random.RandomState(0)
    X, y = rng.randn(60, 5), rng.randint(0, 3, 60)
    X[:, 0] += y  # some signal, so that the choice of k matters
    ours = ofsp_knn.LeaveOneOutKNN().fit(X, y)
    grid = GridSearchCV(KNeighborsClassifier(algorithm="brute"), {"n_neighbors": list(range(1, 32, 2))},
                        cv=LeaveOneOut()).fit(X, y)
    assert ours.n_neighbors_ == grid.best_params_["n_neighbors"]
    assert ours.loo_accuracy_ == pytest.approx(grid.cv_results_["mean_test_score"])
    X_new = rng.randn(20, 5)
    assert np.array_equal(ours.predict(X_new), grid.predict(X_new))
    with pytest.raises(ValueError, match="hold no k between 1 and 59"):
        ofsp_knn.LeaveOneOutKNN(candidates=(60,)).fit(X, y)

    said = []  # through the protocol's runner, as the command runs it: the draws file and a progress line
    _run_a_classifier_reading_beside_the_protocol(tmp_path / "ofsp_knn_draws.csv", "knn", ofsp_knn.run_knn_draw,
                                                  ofsp_knn.KNN_METHODS, ofsp_knn.KNN_VARIANTS, say=said.append)
    assert "golub-3051 knn repetition 0: accuracy over k" in said[-1]
    from mvlab.reproduction.writer import write_outputs

    write_outputs(["ofsp-knn"], tmp_path, tmp_path / "report.md")
    section = (tmp_path / "report.md").read_text()
    assert "<!-- BEGIN ofsp-knn -->" in section and "| RFSP | " in section and "(median over k)" in section
    cells = pd.read_csv(tmp_path / "ofsp_knn_cells.csv")  # accuracy at k = 1, 2; disagreement at k = 2
    assert len(cells[cells["table"] == 3]) == 2 * 3 * 2 and len(cells[cells["table"] == 4]) == 2 * 3


def test_the_svm_range_reading_solves_svcs_problem_and_recomputes_the_protocols_svm_cells(tmp_path):
    """The range reading of OFSP's Madelon SVM row: its QP solver finds SVC's linear SVM (primal and dual shapes,
    features far from zero); scaling every feature by a is C times a**2 (the reading's premise); the 0-999 map is
    the NIPS challenge's; its rows on the features as generated are the protocol's own SVM cells."""
    from sklearn.svm import SVC

    from mvlab.reproduction import ofsp_svm_range
    from mvlab.reproduction.ofsp_svm_range import NipsRange, QPLinearSVC

    rng = np.random.RandomState(1)
    for n, d in ((120, 8), (40, 90)):  # more rows than features: the primal; fewer: the dual
        X = rng.randn(n, d) + 500.0
        y = np.where(X[:, 0] - X[:, 1] + rng.randn(n) > 0, "b", "a")
        t, X_new = np.where(y == "b", 1.0, -1.0), rng.randn(200, d) + 500.0
        for C in (0.1, 1.0):
            ours = QPLinearSVC(C).fit(X, y)
            libsvm = SVC(kernel="linear", C=C).fit(X - 500.0, y)  # the same problem, its rows shifted to zero
            assert np.array_equal(ours.predict(X_new), libsvm.predict(X_new - 500.0))
            assert ours.coef_ == pytest.approx(libsvm.coef_[0], abs=2e-3)
            assert ours.intercept_ == pytest.approx(libsvm.intercept_[0] - 500.0 * libsvm.coef_[0].sum(), abs=0.5)
            far = SVC(kernel="linear", C=C).fit(X, y)  # libsvm stops early on rows far from zero
            ours_objective, far_objective = (0.5 * w @ w + C * np.maximum(0.0, 1.0 - t * (X @ w + b)).sum()
                                             for w, b in ((ours.coef_, ours.intercept_),
                                                          (far.coef_[0], far.intercept_[0])))
            assert ours_objective <= far_objective + 1e-6
        scaled = QPLinearSVC(1.0).fit(7.0 * X + 3.0, y)
        assert scaled.coef_ * 7.0 == pytest.approx(QPLinearSVC(49.0).fit(X, y).coef_, abs=1e-3)
    with pytest.raises(ValueError, match="two classes"):
        QPLinearSVC().fit(X[:9], np.arange(9) % 3)
    mapped = NipsRange(low=-2.0, high=3.0).fit_transform(np.array([[-2.0, 0.0, 3.0]]))
    assert mapped.tolist() == [[0.0, 400.0, 999.0]]  # round(2 * 999 / 5) = 400
    with pytest.raises(ValueError, match="high > low"):
        NipsRange(low=1.0, high=1.0).fit(X)

    _run_a_classifier_reading_beside_the_protocol(tmp_path / "ofsp_svm_range_draws.csv", "svm",
                                                  ofsp_svm_range.run_range_draw, ofsp_svm_range.RANGE_METHODS,
                                                  ofsp_svm_range.RANGE_VARIANTS)
    from mvlab.reproduction.writer import write_outputs

    write_outputs(["ofsp-svm-range"], tmp_path, tmp_path / "report.md")
    section = (tmp_path / "report.md").read_text()
    assert "<!-- BEGIN ofsp-svm-range -->" in section and "| Bagging | " in section
    assert "reproduce ofsp-svm-range --report-only" in section
    assert "the paper's OFSP with linear SVM: 1.000-1.000" in section


def test_the_generator_draws_score_each_classifier_alone_on_other_draws_of_madelons_generator(tmp_path):
    """The generator reading: draw 0 is the Madelon row's own data, the others the same generator's other seeds;
    a row is the classifier alone on the protocol's first repetition's folds (recomputed here with scikit-learn
    by hand), on every feature and on the 20 useful ones; the section puts mvlab's draw among the others."""
    from sklearn.base import clone

    from mvlab.construction.estimators import resolve_estimator
    from mvlab.experiments.protocols import RepeatedKFold
    from mvlab.reproduction import madelon_generator, ofsp_paper
    from mvlab.reproduction.writer import write_outputs

    assert np.array_equal(madelon_generator.load_draw(0).X, ofsp_paper.load("madelon-500").X)
    assert madelon_generator.generator_seed(3) == 3
    path = tmp_path / "madelon_generator_draws.csv"
    tasks = ofsp_paper.ofsp_grid(datasets=("madelon-500",), classifiers=("nb",), repeats=3)
    ofsp_paper.run_ofsp_protocol(path, tasks, draw=madelon_generator.run_generator_draw)
    rows = DrawsFile(path, ofsp_paper.OFSP_DRAW_COLUMNS, ofsp_paper.OFSP_DRAW_KEY).read()
    assert sorted(rows["seed"].unique()) == [1, 2, 2003] and set(rows["k"]) == {1}
    assert sorted(rows["percent_features"].unique()) == [4.0, 100.0]  # 20 of 500, and all
    ds = madelon_generator.load_draw(2)
    by_hand = np.mean([np.mean(clone(resolve_estimator("nb")).fit(ds.X[s.train], ds.y[s.train]).predict(ds.X[s.test])
                               == ds.y[s.test]) for s in RepeatedKFold(n_repeats=1, n_splits=5).splits(ds.y, 1000)])
    ours = rows[(rows["repetition"] == 2) & (rows["method"] == madelon_generator.FEATURE_SETS[0])]["accuracy"]
    assert ours.iloc[0] == pytest.approx(by_hand)
    with pytest.raises(ValueError, match="Madelon's"):
        madelon_generator.run_generator_draw(ofsp_paper.OfspTask("golub-3051", "nb", 1))
    write_outputs(["madelon-generator"], tmp_path, tmp_path / "report.md")
    section = (tmp_path / "report.md").read_text()
    assert "<!-- BEGIN madelon-generator -->" in section and "(3 draws of the generator" in section
    mine = rows[(rows["repetition"] == 0) & (rows["method"] == madelon_generator.FEATURE_SETS[0])]["accuracy"].iloc[0]
    others = rows[(rows["repetition"] > 0) & (rows["method"] == madelon_generator.FEATURE_SETS[0])]["accuracy"]
    assert f"| naive Bayes | all 500 features | {mine:.3f} | " in section
    assert f"| {int((others < mine).sum())} of 2 | 0.648-0.760 |" in section
