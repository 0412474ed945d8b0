"""Siamese deep forest page: how does a Siamese deep forest weight its trees?"""

import json

import numpy as np
import streamlit as st

from mvlab.experiments.settings import SiameseSettings
from mvlab.experiments.siamese import MODELS, SiameseExperiment, default_window_sizes, tau_tradeoff
from mvlab.siamese.pairs import default_n_test_pairs, max_train_pairs
from mvlab.ui import links, runs, shared, widgets
from mvlab.ui.figure_text import show_figure
from mvlab.ui.prose import page_text
from mvlab.ui.state import current_seed, keep, kept, set_kept, sidebar
from mvlab.viz import siamese_figures

ds = sidebar()
seed = current_seed()
st.title("Siamese deep forest")
st.caption("How does a Siamese deep forest weight its trees? A gcForest cascade on pairs of instances, with and "
           "without tree weights from a quadratic programme (Utkin & Ryabinin 2018).")
with st.expander("What am I looking at?"):
    st.markdown(page_text("siamese", "what_am_i_looking_at"))

shape_key = "x".join(map(str, ds.image_shape)) if ds.image_shape is not None else ""
WIDGETS = widgets.widget_keys(SiameseSettings, "sdf", names={
    "n_pairs": "n", "qp_probas": "qp", "max_levels": "levels", "z_schedule": "z", "scanning": "scan",
    "windows": f"windows_{shape_key}"})
links.apply_page(SiameseSettings, WIDGETS, set_kept, seed)
S = SiameseSettings
c = st.columns(4)
paper = widgets.toggle(c[0], S, "paper", "Paper settings", WIDGETS["paper"], help=S.paper_note())
c2 = st.columns(4)
if paper:
    d = S(paper=True).effective()  # the paper's sizes (the pairs family's preset)
    n_pairs, trees, qp_probas, max_levels = d.n_pairs, d.n_estimators, d.qp_probas, d.max_levels
    c[1].caption(f"N = {n_pairs} training pairs ({default_n_test_pairs(n_pairs)} test), T = {trees} trees per forest")
    c[2].caption(f"QP on {'in-sample' if qp_probas == 'insample' else 'out-of-fold'} tree probabilities")
    c2[2].caption(f"up to {max_levels} levels")
else:
    most = max(max_train_pairs(ds.y),
               widgets.field_range(S, "n_pairs")[0])
    if kept(WIDGETS["n_pairs"], 0) > most:
        set_kept(WIDGETS["n_pairs"], most)
        st.caption(f"Training pairs lowered to {most}: the most {ds.name} gives from disjoint pools.")
    n_pairs = widgets.number(c[1], S, "n_pairs", "Training pairs N", WIDGETS["n_pairs"], step=50, high=most,
                             default=min(widgets.field_default(S, "n_pairs"), most))
    trees = widgets.number(c[2], S, "n_estimators", "Trees per forest T", WIDGETS["n_estimators"], step=25)
    qp_probas = widgets.select(c[3], S, "qp_probas", "QP probabilities", WIDGETS["qp_probas"],
                               format_func={"oof": "out-of-fold", "insample": "in-sample (paper-literal)"}.get)
    max_levels = widgets.number(c2[2], S, "max_levels", "Max levels", WIDGETS["max_levels"])
lam = c2[0].select_slider("λ (regularisation)", list(S.lam_choices), help=widgets.field_help(S, "lam"),
                          **keep(WIDGETS["lam"], widgets.field_default(S, "lam")))
z_schedule = widgets.select(c2[1], S, "z_schedule", "z schedule", WIDGETS["z_schedule"],
                            format_func={"double": "doubling per level", "constant": "constant ±1"}.get)
scanning, windows = False, None
if ds.image_shape is not None:
    scanning = widgets.toggle(c2[3], S, "scanning", "Multi-grained scanning", WIDGETS["scanning"],
                              help=f"Images of {ds.image_shape[0]}×{ds.image_shape[1]}: two lock-step windows.")
    if scanning:
        windows = c2[3].multiselect("Window sides", list(range(1, min(ds.image_shape) + 1)),
                                    **keep(WIDGETS["windows"], default_window_sizes(ds.image_shape)))
        if not windows:
            st.error("Choose at least one window side for multi-grained scanning.")
            st.stop()

settings = SiameseSettings(seed=seed, paper=paper, n_pairs=int(n_pairs), n_estimators=int(trees), lam=float(lam),
                           z_schedule=z_schedule, qp_probas=qp_probas, max_levels=int(max_levels),
                           scanning=bool(scanning), windows=tuple(sorted(int(w) for w in windows)) if scanning else ())
links.publish(settings)
runs.checks(settings, ds)


@runs.training_part
def train_and_show():
    result = runs.result_or_train(settings, ds, SiameseExperiment, "sdf_train", label="Growing cascades")
    if result is None:
        eff = settings.effective()
        st.info("Choose the settings and press **Train**: two cascades (gcForest and SDF) of up to "
                f"{eff.max_levels} levels "
                f"of 4 forests × {eff.n_estimators} trees on {eff.n_pairs} training pairs.")
        return

    n_test = len(result.y_test)
    key = runs.result_key(settings, ds)  # figures of a result are built once per server, shared by every session
    scan_note = f", scanning windows {result.settings['window_sizes']}" if result.settings["scanning"] else ""
    st.success(f"{ds.name}: {len(result.y_train)} training and {n_test} test pairs from disjoint instance pools, "
               f"{result.n_forests} forests of {result.n_trees} trees per level{scan_note} "
               f"({sum(result.seconds.values()):.1f} s).")
    m = st.columns(4)
    m[0].metric("gcForest test accuracy", f"{result.accuracy('gcForest'):.3f}")
    gain = result.accuracy("SDF") - result.accuracy("gcForest")
    m[1].metric("SDF test accuracy", f"{result.accuracy('SDF'):.3f}", delta=f"{gain:+.3f} vs gcForest",
                delta_color="normal" if abs(gain) >= 0.0005 else "off")
    m[2].metric("Levels kept (gcForest / SDF)", f"{result.n_levels['gcForest']} / {result.n_levels['SDF']}")
    m[3].metric("SDF mean effective trees", f"{result.mean_effective_trees:.1f}",
                help=f"Out of T = {result.n_trees}.")
    show_figure(st, shared.figure("sdf_levels", key,
                                  lambda: siamese_figures.cascade_level_accuracy(result.level_table())),
                    key="sdf_levels_fig")
    st.dataframe(result.table().round(4), hide_index=True, width="stretch")

    st.subheader("Tree weights")
    show_figure(st, shared.figure("sdf_weights", key, lambda: siamese_figures.tree_weight_distributions(
        result.weights, result.forest_names)), key="sdf_weights_fig")
    st.caption(f"λ = {result.settings['lam']:g}, z {result.settings['z_schedule']}. Each box pools the weights of the "
               "3 fold-models of one forest. Raise λ to pull them towards the dashed 1/T line (gcForest); with "
               "z-doubling the effective λ is divided by 4 at every level, so deeper levels weight more unevenly. "
               "Train again with other values to compare: earlier results stay cached.")
    st.dataframe(result.weight_table().round(4), hide_index=True, width="stretch")

    st.subheader("Pairs and the threshold τ")
    tau = st.slider("τ (threshold on S0 − S1)", 0.0, float(result.n_forests), step=0.05, **keep("sdf_tau", 0.0),
                    help="S0 − S1 ≥ τ: similar; < 0: dissimilar; in between: undetermined.")
    m = st.columns(4)
    for i, name in enumerate(MODELS):
        t = tau_tradeoff(result.scores[name], result.y_test, tau)
        m[2 * i].metric(f"{name}: undetermined pairs", f"{n_test - t.n_determined} of {n_test}",
                        help=f"{100 * t.undetermined:.1f}% of the test pairs")
        m[2 * i + 1].metric(f"{name}: accuracy on the rest", "—" if np.isnan(t.accuracy) else f"{t.accuracy:.3f}")
    show_figure(st, shared.figure("sdf_tau", [key, tau], lambda: siamese_figures.tau_tradeoff_curve(
        result.tau_curves(tau), tau)), key="sdf_tau_fig")

    table = shared.value("sdf_pairs", [key, tau], lambda: result.pair_table(tau))
    pair_names = shared.value("sdf_pair_names", key, lambda: [  # one label per test pair, once per result
        f"pair {i}: class {first} vs {second} ({label})"
        for i, (first, second, label) in enumerate(zip(table["class a"], table["class b"], table["true label"]))])
    pair = st.selectbox("Test pair", list(range(n_test)), **keep(f"sdf_pair_{n_test}", 0),
                        format_func=pair_names.__getitem__)
    a, b = (int(v) for v in result.test_pairs[pair])
    names = (f"instance {a} (class {table['class a'][pair]})", f"instance {b} (class {table['class b'][pair]})")
    left, right = st.columns([1, 1] if ds.image_shape is not None else [2, 1])


    def pair_figure():
        if ds.image_shape is not None:
            return siamese_figures.pair_view(ds.X[a], ds.X[b], image_shape=ds.image_shape, names=names,
                                             title=f"Test pair {pair}")
        z = ds.standardised_rows([a, b])
        return siamese_figures.pair_view(z[0], z[1], feature_names=ds.feature_names, names=names,
                                         title=f"Test pair {pair} (standardised features)")


    show_figure(left, shared.figure("sdf_pair", [key, pair], pair_figure), key="sdf_pair_fig")
    right.metric("True label", table["true label"][pair])
    for name in MODELS:
        right.metric(f"{name}: S0 − S1", f"{table[f'{name} S0-S1'][pair]:+.3f}",
                     help=f"Prediction at τ = {tau:.2f}: {table[f'{name} prediction'][pair]}")
        right.caption(f"{name} prediction at τ = {tau:.2f}: **{table[f'{name} prediction'][pair]}**")

    c1, c2 = st.columns(2)
    c1.download_button("Download per-pair results (.csv)", lambda: table.assign(  # made on the click, not every run
        dataset=ds.name, tau=tau, settings=json.dumps(settings.manifest(ds))).to_csv(index=False),
        file_name=f"{ds.name}-siamese-pairs.csv", mime="text/csv", key="sdf_dl_csv")
    c2.download_button("Download all results (.npz)", result.to_npz, file_name=f"{ds.name}-siamese.npz",
                       mime="application/octet-stream", key="sdf_dl_npz")


train_and_show()
