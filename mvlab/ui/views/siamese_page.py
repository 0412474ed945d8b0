"""The Siamese deep forest page's controls and view: SDF and gcForest on the same pairs and trees (a
:class:`mvlab.experiments.siamese_comparison.SiameseExperiment`), their tree weights and the threshold τ."""

from __future__ import annotations

import json

import numpy as np
import streamlit as st

from mvlab.experiments.siamese_comparison import MODELS, default_window_sizes, tau_tradeoff
from mvlab.siamese.pairs import default_n_test_pairs, max_train_pairs
from mvlab.ui import shared, widgets
from mvlab.ui.figure_text import show_figure
from mvlab.ui.page import Shown
from mvlab.ui.state import keep, kept, set_kept
from mvlab.ui.widgets import Form
from mvlab.viz import siamese_figures

__all__ = ["controls", "waiting", "view"]


def controls(form: Form):
    """The paper switch (or the pairs, trees, QP probabilities and levels), λ, the z schedule and, on images,
    multi-grained scanning with its window sides."""
    S, c = form.settings_cls, st.columns(4)
    paper = form.toggle(c[0], "paper", "Paper settings", help=S.paper_note())
    c2 = st.columns(4)
    sizes = paper_sizes(S, c, c2) if paper else chosen_sizes(form, c, c2)
    lam = c2[0].select_slider("λ (regularisation)", list(S.lam_choices), help=widgets.field_help(S, "lam"),
                              **keep(form.keys["lam"], widgets.field_default(S, "lam")))
    z_schedule = form.select(c2[1], "z_schedule", "z schedule",
                             format_func={"double": "doubling per level", "constant": "constant ±1"}.get)
    return form.settings(paper=paper, lam=float(lam), z_schedule=z_schedule, **sizes, **scanning(form, c2[3]))


def paper_sizes(settings_cls, c, c2) -> dict:
    """The paper's sizes (the pairs family's preset), said in words where their widgets would be."""
    d = settings_cls(paper=True).effective()
    c[1].caption(f"N = {d.n_pairs} training pairs ({default_n_test_pairs(d.n_pairs)} test), T = {d.n_estimators} "
                 "trees per forest")
    c[2].caption(f"QP on {'in-sample' if d.qp_probas == 'insample' else 'out-of-fold'} tree probabilities")
    c2[2].caption(f"up to {d.max_levels} levels")
    return {"n_pairs": d.n_pairs, "n_estimators": d.n_estimators, "qp_probas": d.qp_probas,
            "max_levels": d.max_levels}


def chosen_sizes(form: Form, c, c2) -> dict:
    """The pairs (at most what the data give from disjoint pools), trees, QP probabilities and levels."""
    S, ds = form.settings_cls, form.ds
    most = max(max_train_pairs(ds.y), widgets.field_range(S, "n_pairs")[0])
    if kept(form.keys["n_pairs"], 0) > most:
        set_kept(form.keys["n_pairs"], most)
        st.caption(f"Training pairs lowered to {most}: the most {ds.name} gives from disjoint pools.")
    n_pairs = form.number(c[1], "n_pairs", "Training pairs N", step=50, high=most,
                          default=min(widgets.field_default(S, "n_pairs"), most))
    return {"n_pairs": int(n_pairs),
            "n_estimators": int(form.number(c[2], "n_estimators", "Trees per forest T", step=25)),
            "qp_probas": form.select(c[3], "qp_probas", "QP probabilities",
                                     format_func={"oof": "out-of-fold", "insample": "in-sample (paper-literal)"}.get),
            "max_levels": int(form.number(c2[2], "max_levels", "Max levels"))}


def scanning(form: Form, where) -> dict:
    """Multi-grained scanning and its window sides, on image data only; no side chosen stops the page in words."""
    shape = form.ds.image_shape
    if shape is None:
        return {"scanning": False, "windows": ()}
    on = form.toggle(where, "scanning", "Multi-grained scanning",
                     help=f"Images of {shape[0]}×{shape[1]}: two lock-step windows.")
    if not on:
        return {"scanning": False, "windows": ()}
    windows = where.multiselect("Window sides", list(range(1, min(shape) + 1)),
                                **keep(form.keys["windows"], default_window_sizes(shape)))
    if not windows:
        st.error("Choose at least one window side for multi-grained scanning.")
        st.stop()
    return {"scanning": True, "windows": tuple(sorted(int(w) for w in windows))}


def waiting(shown: Shown) -> None:
    """The cascades the run will grow, and what to press."""
    eff = shown.settings.effective()
    st.info("Choose the settings and press **Train**: two cascades (gcForest and SDF) of up to "
            f"{eff.max_levels} levels of 4 forests × {eff.n_estimators} trees on {eff.n_pairs} training pairs.")


def view(result, shown: Shown) -> None:
    """One experiment: the accuracies, the cascade's levels, the tree weights, the threshold τ, one test pair and
    the downloads."""
    scan_note = f", scanning windows {result.settings['window_sizes']}" if result.settings["scanning"] else ""
    st.success(f"{shown.data.name}: {len(result.y_train)} training and {len(result.y_test)} test pairs from "
               f"disjoint instance pools, {result.n_forests} forests of {result.n_trees} trees per level{scan_note} "
               f"({sum(result.seconds.values()):.1f} s).")
    accuracies(result)
    show_figure(st, shared.figure("sdf_levels", shown.key,
                                  lambda: siamese_figures.cascade_level_accuracy(result.level_table())),
                key="sdf_levels_fig")
    st.dataframe(result.table().round(4), hide_index=True, width="stretch")
    tree_weights(result, shown.key)
    tau = threshold(result, shown.key)
    table = shared.value("sdf_pairs", [shown.key, tau], lambda: result.pair_table(tau))
    one_pair(result, shown, table, tau)
    downloads(result, shown, table, tau)


def accuracies(result) -> None:
    """Both models' test accuracies, the levels kept and SDF's effective trees."""
    m = st.columns(4)
    m[0].metric("gcForest test accuracy", f"{result.accuracy('gcForest'):.3f}")
    gain = result.accuracy("SDF") - result.accuracy("gcForest")
    m[1].metric("SDF test accuracy", f"{result.accuracy('SDF'):.3f}", delta=f"{gain:+.3f} vs gcForest",
                delta_color="normal" if abs(gain) >= 0.0005 else "off")
    m[2].metric("Levels kept (gcForest / SDF)", f"{result.n_levels['gcForest']} / {result.n_levels['SDF']}")
    m[3].metric("SDF mean effective trees", f"{result.mean_effective_trees:.1f}", help=f"Out of T = {result.n_trees}.")


def tree_weights(result, key: str) -> None:
    """The distributions of the tree weights, forest by forest, and their table."""
    st.subheader("Tree weights")
    show_figure(st, shared.figure("sdf_weights", key, lambda: siamese_figures.tree_weight_distributions(
        result.weights, result.forest_names)), key="sdf_weights_fig")
    st.caption(f"λ = {result.settings['lam']:g}, z {result.settings['z_schedule']}. Each box pools the weights of the "
               "3 fold-models of one forest. Raise λ to pull them towards the dashed 1/T line (gcForest); with "
               "z-doubling the effective λ is divided by 4 at every level, so deeper levels weight more unevenly. "
               "Train again with other values to compare: earlier results stay cached.")
    st.dataframe(result.weight_table().round(4), hide_index=True, width="stretch")


def threshold(result, key: str) -> float:
    """The threshold τ the reader chooses, what it leaves undetermined and the accuracy on the rest; returns τ."""
    st.subheader("Pairs and the threshold τ")
    tau = st.slider("τ (threshold on S0 − S1)", 0.0, float(result.n_forests), step=0.05, **keep("sdf_tau", 0.0),
                    help="S0 − S1 ≥ τ: similar; < 0: dissimilar; in between: undetermined.")
    n_test, m = len(result.y_test), st.columns(4)
    for i, name in enumerate(MODELS):
        t = tau_tradeoff(result.scores[name], result.y_test, tau)
        m[2 * i].metric(f"{name}: undetermined pairs", f"{n_test - t.n_determined} of {n_test}",
                        help=f"{100 * t.undetermined:.1f}% of the test pairs")
        m[2 * i + 1].metric(f"{name}: accuracy on the rest", "—" if np.isnan(t.accuracy) else f"{t.accuracy:.3f}")
    show_figure(st, shared.figure("sdf_tau", [key, tau], lambda: siamese_figures.tau_tradeoff_curve(
        result.tau_curves(tau), tau)), key="sdf_tau_fig")
    return tau


def pair_figure(data, a: int, b: int, names, pair: int):
    """The two instances of a test pair: as images, or as standardised features."""
    if data.image_shape is not None:
        return siamese_figures.pair_view(data.X[a], data.X[b], image_shape=data.image_shape, names=names,
                                         title=f"Test pair {pair}")
    z = data.standardised_rows([a, b])
    return siamese_figures.pair_view(z[0], z[1], feature_names=data.feature_names, names=names,
                                     title=f"Test pair {pair} (standardised features)")


def one_pair(result, shown: Shown, table, tau: float) -> None:
    """One test pair the reader picks: its two instances, its true label and each model's score and prediction."""
    n_test, data = len(result.y_test), shown.data
    pair_names = shared.value("sdf_pair_names", shown.key, lambda: [  # one label per test pair, once per result
        f"pair {i}: class {first} vs {second} ({label})"
        for i, (first, second, label) in enumerate(zip(table["class a"], table["class b"], table["true label"]))])
    pair = st.selectbox("Test pair", list(range(n_test)), **keep(f"sdf_pair_{n_test}", 0),
                        format_func=pair_names.__getitem__)
    a, b = (int(v) for v in result.test_pairs[pair])
    names = (f"instance {a} (class {table['class a'][pair]})", f"instance {b} (class {table['class b'][pair]})")
    left, right = st.columns([1, 1] if data.image_shape is not None else [2, 1])
    show_figure(left, shared.figure("sdf_pair", [shown.key, pair], lambda: pair_figure(data, a, b, names, pair)),
                key="sdf_pair_fig")
    right.metric("True label", table["true label"][pair])
    for name in MODELS:
        right.metric(f"{name}: S0 − S1", f"{table[f'{name} S0-S1'][pair]:+.3f}",
                     help=f"Prediction at τ = {tau:.2f}: {table[f'{name} prediction'][pair]}")
        right.caption(f"{name} prediction at τ = {tau:.2f}: **{table[f'{name} prediction'][pair]}**")


def downloads(result, shown: Shown, table, tau: float) -> None:
    """The per-pair results with their manifest (.csv, made on the click) and every result (.npz)."""
    data, settings = shown.data, shown.settings
    c1, c2 = st.columns(2)
    c1.download_button("Download per-pair results (.csv)", lambda: table.assign(
        dataset=data.name, tau=tau, settings=json.dumps(settings.manifest(data))).to_csv(index=False),
        file_name=f"{data.name}-siamese-pairs.csv", mime="text/csv", key="sdf_dl_csv")
    c2.download_button("Download all results (.npz)", result.to_npz, file_name=f"{data.name}-siamese.npz",
                       mime="application/octet-stream", key="sdf_dl_npz")
