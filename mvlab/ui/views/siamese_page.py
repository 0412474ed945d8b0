"""The Siamese deep forest page's controls and view: SDF and gcForest on the same pairs and trees (a
:class:`mvlab.experiments.siamese_comparison.SiameseExperiment`), their tree weights and the threshold τ."""

from __future__ import annotations

import json

import numpy as np
import streamlit as st

from mvlab.experiments.siamese_comparison import MODELS, default_window_sizes, tau_tradeoff
from mvlab.i18n import N_, _, current_language, format_number, format_percent, ngettext
from mvlab.siamese.pairs import default_n_test_pairs, max_train_pairs
from mvlab.ui import shared, widgets
from mvlab.ui.figure_text import show_figure
from mvlab.ui.page import Shown
from mvlab.ui.state import keep, kept, set_kept
from mvlab.ui.tables import translated
from mvlab.ui.widgets import Form
from mvlab.viz import siamese_figures

__all__ = ["controls", "waiting", "view"]

Z_SCHEDULES = {"double": N_("doubling per level"), "constant": N_("constant ±1")}
QP_PROBAS = {"oof": N_("out-of-fold"), "insample": N_("in-sample (paper-literal)")}
"""The choices of the z schedule and of the QP's probabilities, as their select boxes say them."""


def controls(form: Form):
    """The paper switch (or the pairs, trees, QP probabilities and levels), λ, the z schedule and, on images,
    multi-grained scanning with its window sides."""
    S, c = form.settings_cls, st.columns(4)
    paper = form.toggle(c[0], "paper", _("Paper settings"), help=S.paper_note())
    c2 = st.columns(4)
    sizes = paper_sizes(S, c, c2) if paper else chosen_sizes(form, c, c2)
    lam = c2[0].select_slider(_("λ (regularisation)"), list(S.lam_choices), help=widgets.field_help(S, "lam"),
                              **keep(form.keys["lam"], widgets.field_default(S, "lam")))
    z_schedule = form.select(c2[1], "z_schedule", _("z schedule"), format_func=lambda z: _(Z_SCHEDULES[z]))
    return form.settings(paper=paper, lam=float(lam), z_schedule=z_schedule, **sizes, **scanning(form, c2[3]))


def paper_sizes(settings_cls, c, c2) -> dict:
    """The paper's sizes (the pairs family's preset), said in words where their widgets would be."""
    d = settings_cls(paper=True).effective()
    c[1].caption(_("N = {pairs} training pairs ({test} test), T = {trees} trees per forest").format(
        pairs=d.n_pairs, test=default_n_test_pairs(d.n_pairs), trees=d.n_estimators))
    c[2].caption(_("QP on in-sample tree probabilities") if d.qp_probas == "insample"
                 else _("QP on out-of-fold tree probabilities"))
    c2[2].caption(ngettext("up to {n} level", "up to {n} levels", d.max_levels).format(n=d.max_levels))
    return {"n_pairs": d.n_pairs, "n_estimators": d.n_estimators, "qp_probas": d.qp_probas,
            "max_levels": d.max_levels}


def chosen_sizes(form: Form, c, c2) -> dict:
    """The pairs (at most what the data give from disjoint pools), trees, QP probabilities and levels."""
    S, ds = form.settings_cls, form.ds
    most = max(max_train_pairs(ds.y), widgets.field_range(S, "n_pairs")[0])
    if kept(form.keys["n_pairs"], 0) > most:
        set_kept(form.keys["n_pairs"], most)
        st.caption(_("Training pairs lowered to {most}: the most {data} gives from disjoint pools.").format(
            most=most, data=ds.name))
    n_pairs = form.number(c[1], "n_pairs", _("Training pairs N"), step=50, high=most,
                          default=min(widgets.field_default(S, "n_pairs"), most))
    return {"n_pairs": int(n_pairs),
            "n_estimators": int(form.number(c[2], "n_estimators", _("Trees per forest T"), step=25)),
            "qp_probas": form.select(c[3], "qp_probas", _("QP probabilities"),
                                     format_func=lambda q: _(QP_PROBAS[q])),
            "max_levels": int(form.number(c2[2], "max_levels", _("Max levels")))}


def scanning(form: Form, where) -> dict:
    """Multi-grained scanning and its window sides, on image data only; no side chosen stops the page in words."""
    shape = form.ds.image_shape
    if shape is None:
        return {"scanning": False, "windows": ()}
    on = form.toggle(where, "scanning", _("Multi-grained scanning"),
                     help=_("Images of {height}×{width}: two lock-step windows.").format(height=shape[0],
                                                                                          width=shape[1]))
    if not on:
        return {"scanning": False, "windows": ()}
    windows = where.multiselect(_("Window sides"), list(range(1, min(shape) + 1)),
                                **keep(form.keys["windows"], default_window_sizes(shape)))
    if not windows:
        st.error(_("Choose at least one window side for multi-grained scanning."))
        st.stop()
    return {"scanning": True, "windows": tuple(sorted(int(w) for w in windows))}


def waiting(shown: Shown) -> None:
    """The cascades the run will grow, and what to press."""
    eff = shown.settings.effective()
    st.info(_("Choose the settings and press **{button}**: two cascades (gcForest and SDF) of up to {levels} levels "
              "of 4 forests × {trees} trees on {pairs} training pairs.").format(
        button=_("Train"), levels=eff.max_levels, trees=eff.n_estimators, pairs=eff.n_pairs))


def view(result, shown: Shown) -> None:
    """One experiment: the accuracies, the cascade's levels, the tree weights, the threshold τ, one test pair and
    the downloads; of a partial result (SDF's cascade alone, :func:`sdf_alone`), what SDF did."""
    if result.models != list(MODELS):
        sdf_alone(result, shown)
        return
    scan_note = _(", scanning windows {windows}").format(windows=result.settings["window_sizes"]) \
        if result.settings["scanning"] else ""
    st.success(_("{data}: {train} training and {test} test pairs from disjoint instance pools, {forests} forests of "
                 "{trees} trees per level{scanning} ({seconds} s).").format(
        data=shown.data.name, train=len(result.y_train), test=len(result.y_test), forests=result.n_forests,
        trees=result.n_trees, scanning=scan_note, seconds=format_number(sum(result.seconds.values()), 1)))
    accuracies(result)
    show_figure(st, shared.figure("sdf_levels", shown.key,
                                  lambda: siamese_figures.cascade_level_accuracy(result.level_table())),
                key="sdf_levels_fig")
    st.dataframe(translated(result.table().round(4)), hide_index=True, width="stretch")
    tree_weights(result, shown.key)
    tau = threshold(result, shown.key)
    table = shared.value("sdf_pairs", [shown.key, tau], lambda: result.pair_table(tau))
    one_pair(result, shown, table, tau)
    downloads(result, shown, table, tau)


def sdf_alone(result, shown: Shown) -> None:
    """A partial result: SDF's test accuracy, its levels kept and effective trees, and its tree weights; the
    comparison with gcForest, the threshold and the pairs come with gcForest's cascade."""
    m = st.columns(3)
    m[0].metric(_("{model} test accuracy").format(model="SDF"), format_number(result.accuracy("SDF"), 3))
    m[1].metric(_("Levels kept (gcForest / SDF)"), f"… / {result.n_levels['SDF']}")
    m[2].metric(_("SDF mean effective trees"), format_number(result.mean_effective_trees, 1),
                help=_("Out of T = {trees}.").format(trees=result.n_trees))
    tree_weights(result, shown.key)
    st.info(_("gcForest's cascade is growing: the comparison, the threshold τ and the pairs come with it."),
            icon=":material/pending:")


def accuracies(result) -> None:
    """Both models' test accuracies, the levels kept and SDF's effective trees."""
    m = st.columns(4)
    m[0].metric(_("{model} test accuracy").format(model="gcForest"), format_number(result.accuracy("gcForest"), 3))
    gain = result.accuracy("SDF") - result.accuracy("gcForest")
    m[1].metric(_("{model} test accuracy").format(model="SDF"), format_number(result.accuracy("SDF"), 3),
                delta=_("{gain} vs gcForest").format(gain=("+" if gain >= 0 else "") + format_number(gain, 3)),
                delta_color="normal" if abs(gain) >= 0.0005 else "off")
    m[2].metric(_("Levels kept (gcForest / SDF)"), f"{result.n_levels['gcForest']} / {result.n_levels['SDF']}")
    m[3].metric(_("SDF mean effective trees"), format_number(result.mean_effective_trees, 1),
                help=_("Out of T = {trees}.").format(trees=result.n_trees))


def tree_weights(result, key: str) -> None:
    """The distributions of the tree weights, forest by forest, and their table."""
    st.subheader(_("Tree weights"))
    show_figure(st, shared.figure("sdf_weights", key, lambda: siamese_figures.tree_weight_distributions(
        result.weights, result.forest_names)), key="sdf_weights_fig")
    st.caption(_("λ = {lam}, z {schedule}. Each box pools the weights of the 3 fold-models of one forest. Raise λ to "
                 "pull them towards the dashed 1/T line (gcForest); with z-doubling the effective λ is divided by 4 at "
                 "every level, so deeper levels weight more unevenly. Train again with other values to compare: "
                 "earlier results stay cached.").format(
        lam=format_number(result.settings["lam"]), schedule=_(Z_SCHEDULES.get(result.settings["z_schedule"], ""))
        or result.settings["z_schedule"]))
    st.dataframe(translated(result.weight_table().round(4)), hide_index=True, width="stretch")


def threshold(result, key: str) -> float:
    """The threshold τ the reader chooses, what it leaves undetermined and the accuracy on the rest; returns τ."""
    st.subheader(_("Pairs and the threshold τ"))
    tau = st.slider(_("τ (threshold on S0 − S1)"), 0.0, float(result.n_forests), step=0.05, **keep("sdf_tau", 0.0),
                    help=_("S0 − S1 ≥ τ: similar; < 0: dissimilar; in between: undetermined."))
    n_test, m = len(result.y_test), st.columns(4)
    for i, name in enumerate(MODELS):
        t = tau_tradeoff(result.scores[name], result.y_test, tau)
        m[2 * i].metric(_("{model}: undetermined pairs").format(model=name),
                        _("{n} of {total}").format(n=n_test - t.n_determined, total=n_test),
                        help=_("{share} of the test pairs").format(share=format_percent(t.undetermined, 1)))
        m[2 * i + 1].metric(_("{model}: accuracy on the rest").format(model=name),
                            "—" if np.isnan(t.accuracy) else format_number(t.accuracy, 3))
    show_figure(st, shared.figure("sdf_tau", [key, tau], lambda: siamese_figures.tau_tradeoff_curve(
        result.tau_curves(tau), tau)), key="sdf_tau_fig")
    return tau


def pair_figure(data, a: int, b: int, names, pair: int):
    """The two instances of a test pair: as images, or as standardised features."""
    if data.image_shape is not None:
        return siamese_figures.pair_view(data.X[a], data.X[b], image_shape=data.image_shape, names=names,
                                         title=_("Test pair {pair}").format(pair=pair))
    z = data.standardised_rows([a, b])
    return siamese_figures.pair_view(z[0], z[1], feature_names=data.feature_names, names=names,
                                     title=_("Test pair {pair} (standardised features)").format(pair=pair))


def one_pair(result, shown: Shown, table, tau: float) -> None:
    """One test pair the reader picks: its two instances, its true label and each model's score and prediction."""
    n_test, data = len(result.y_test), shown.data
    words = _("pair {i}: class {first} vs {second} ({label})")
    pair_names = shared.value("sdf_pair_names", [shown.key, current_language()], lambda: [  # once per result
        words.format(i=i, first=first, second=second, label=_(label))
        for i, (first, second, label) in enumerate(zip(table["class a"], table["class b"], table["true label"]))])
    pair = st.selectbox(_("Test pair"), list(range(n_test)), **keep(f"sdf_pair_{n_test}", 0),
                        format_func=pair_names.__getitem__)
    a, b = (int(v) for v in result.test_pairs[pair])
    instance = _("instance {i} (class {label})")
    names = (instance.format(i=a, label=table["class a"][pair]), instance.format(i=b, label=table["class b"][pair]))
    left, right = st.columns([1, 1] if data.image_shape is not None else [2, 1])
    show_figure(left, shared.figure("sdf_pair", [shown.key, pair], lambda: pair_figure(data, a, b, names, pair)),
                key="sdf_pair_fig")
    right.metric(_("True label"), _(table["true label"][pair]))
    for name in MODELS:
        score, said = table[f"{name} S0-S1"][pair], _(table[f"{name} prediction"][pair])
        right.metric(f"{name}: S0 − S1", ("+" if score >= 0 else "") + format_number(score, 3),
                     help=_("Prediction at τ = {tau}: {prediction}").format(tau=format_number(tau, 2), prediction=said))
        right.caption(_("{model} prediction at τ = {tau}: **{prediction}**").format(
            model=name, tau=format_number(tau, 2), prediction=said))


def downloads(result, shown: Shown, table, tau: float) -> None:
    """The per-pair results with their manifest (.csv, made on the click) and every result (.npz)."""
    data, settings = shown.data, shown.settings
    c1, c2 = st.columns(2)
    c1.download_button(_("Download per-pair results (.csv)"), lambda: table.assign(
        dataset=data.name, tau=tau, settings=json.dumps(settings.manifest(data))).to_csv(index=False),
        file_name=f"{data.name}-siamese-pairs.csv", mime="text/csv", key="sdf_dl_csv")
    c2.download_button(_("Download all results (.npz)"), result.to_npz, file_name=f"{data.name}-siamese.npz",
                       mime="application/octet-stream", key="sdf_dl_npz")
