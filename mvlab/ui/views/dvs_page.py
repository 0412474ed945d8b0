"""The Dynamic view selection page's controls and view: which views each test instance used, and why (a
:class:`mvlab.experiments.combinations.CombinationComparison` with the DVS methods' explanations)."""

from __future__ import annotations

import dataclasses

import numpy as np
import streamlit as st

from mvlab.experiments.combinations import method_title
from mvlab.forest.measures import MEASURES
from mvlab.i18n import N_, _, current_language, format_number, format_percent, said
from mvlab.rfd.dvs_pool import n_candidates
from mvlab.ui import links, shared, widgets
from mvlab.ui.figure_text import show_figure
from mvlab.ui.page import Shown
from mvlab.ui.state import keep, selected_point, set_kept
from mvlab.ui.tables import readable, translated
from mvlab.ui.widgets import Form
from mvlab.viz import dvs_figures, shared_figures

__all__ = ["controls", "summary", "waiting", "view"]

SORT_KEYS = {"class": N_("class"), "subset": N_("subset"), "correctness": N_("correctness")}
"""The orders of the view-selection matrix's rows, as the radio says them."""


def controls(form: Form):
    """The data (the region demo or the sidebar's), the measure, the paper switch (or the trees), k and the test
    share; the method whose choices are explained is the one its widget, drawn with the result, keeps."""
    sources = {"demo": _("region-structured synthetic data (choices differ)"),
               "sidebar": _("the sidebar's dataset ({data})").format(data=form.ds.name)}
    source = form.radio(st, "source", _("Data"), format_func=sources.get, horizontal=True)
    c = st.columns(4)
    measure = form.select(c[0], "measure", _("Measure"), format_func=lambda m: _(MEASURES[m].title))
    paper = form.toggle(c[1], "paper", _("Paper settings"), help=form.settings_cls.paper_note())
    trees = {} if paper else {"n_estimators": int(form.number(c[1], "n_estimators", _("Trees per forest"), step=10))}
    k = form.number(c[2], "k", _("Region size k"))
    test_size = form.slider(c[3], "test_size", _("Test share"), step=0.05)
    return form.settings(source=source, measure=measure, paper=paper, k=int(k), test_size=float(test_size),
                         show=form.kept("show"), **trees)


def summary(shown: Shown) -> None:
    """The pool the run grows: its candidate forests, trees and measure."""
    used = shown.settings.effective()
    st.caption(_("{data}: the pool has {candidates} candidate forests of {trees} trees; measure {measure}.").format(
        data=shown.data.name, candidates=n_candidates(shown.data.n_views), trees=used.n_estimators,
        measure=used.measure_object().describe()))


def waiting(shown: Shown) -> None:
    """What to press."""
    st.info(_("Choose the settings and press **{button}**.").format(button=_("Train")))


def view(result, shown: Shown) -> None:
    """One comparison: the accuracies, the per-instance selections of one DVS method, the ground truth where the
    data have it, one instance's region of competence, and the explanations to download."""
    st.caption(said(result.prototype_note))
    accuracies(result, shown.key)
    st.subheader(_("Per-instance view selections"))
    method = widgets.radio(st, type(shown.settings), "show", _("Explain the choices of"), shown.widgets["show"],
                           format_func=method_title, horizontal=True)
    if method != shown.settings.show:  # the result part alone reran: the link follows the choice
        links.publish(dataclasses.replace(shown.settings, show=method))
    if method not in result.explanations:  # a partial result (mvlab.ui.page.draw_part): scored so far, not this one
        st.info(_("The per-instance view selections of {method} come once it is scored.").format(
            method=method_title(method)), icon=":material/pending:")
        return
    e = result.explanations[method]
    tie_break_note(e)
    selections(result, e, shown.key, method)
    if result.informative_test is not None:
        st.markdown(_("**Against the ground truth**: did each DVS method use the views that carry each instance's "
                      "class?"))
        st.dataframe(shared.value("dvs_truth", [shown.key, current_language()],
                                  lambda: readable(result.view_choice_table(), decimals=3)),
                     hide_index=True, width="stretch")
    one_instance(result, e, shown.key, method)
    st.download_button(_("Download per-instance explanations (.csv)"), lambda: e.to_frame(result.y_test).assign(
        dataset_row=result.test_index, seed=shown.settings.seed, dataset=shown.data.name, method=method).to_csv(
        index=False), file_name=f"{shown.data.name}-dvs-explanations.csv", mime="text/csv", key="dvs_dl")


def accuracies(result, key: str) -> None:
    """Every method's test accuracy (a chart and a table) and the oracle's."""
    left, right = st.columns([2, 3])
    show_figure(left, shared.figure("dvs_accuracy", key, lambda: shared_figures.method_accuracy(result.accuracy)),
                key="dvs_accuracy")
    with right:
        st.dataframe(translated(result.table().round(4)), hide_index=True, width="stretch")
        if result.oracle_accuracy is not None:
            st.caption(_("Oracle (each instance's true view): accuracy **{accuracy}**: what a perfect choice of views "
                         "gets.").format(accuracy=format_number(result.oracle_accuracy, 3)))


def tie_break_note(e) -> None:
    """How many choices the tie-break made: a warning when most of them."""
    if e.tie_rate > 0.5:
        st.warning(_("**{share} of these choices were made by the tie-break**, not by the competence: on average "
                     "{tied} of {candidates} candidates share the highest competence in a region. The per-instance "
                     "choices below mostly show the tie-break order. Compare with the soft competence.").format(
            share=format_percent(e.tie_rate), tied=format_number(np.mean(e.n_tied), 1),
            candidates=len(e.candidate_names)))
    else:
        st.caption(_("{share} of the choices were made by the tie-break; on average {tied} of {candidates} candidates "
                     "share the highest competence.").format(
            share=format_percent(e.tie_rate), tied=format_number(np.mean(e.n_tied), 1),
            candidates=len(e.candidate_names)))


def selections(result, e, key: str, method: str) -> None:
    """The views each test instance used (sorted as the reader asks) and how often each subset was chosen."""
    sort = st.radio(_("Sort instances by"), list(SORT_KEYS), horizontal=True, format_func=lambda k: _(SORT_KEYS[k]),
                    **keep("dvs_sort", "class"))
    a, b = st.columns(2)
    show_figure(a, shared.figure("dvs_matrix", [key, method, sort], lambda: selection_matrix(result, e, sort)),
                key="dvs_matrix")
    show_figure(b, shared.figure("dvs_subsets", [key, method], lambda: dvs_figures.subset_frequencies(
        e.candidate_names, e.selection_frequencies())), key="dvs_subsets")


def selection_matrix(result, e, sort: str):
    """The matrix of chosen views, one row per test instance, in the order ``sort`` names."""
    correct = e.prediction == result.y_test
    keys = {"class": result.y_test, "subset": e.chosen, "correctness": correct.astype(int)}[sort]
    order = np.lexsort((np.arange(len(keys)), keys))
    labels_test = np.asarray(result.classes)[result.y_test]
    words, verdicts = _("test {i} (row {row}) · class {label} · {subset} · {verdict}"), (_("wrong"), _("correct"))
    row_text = [words.format(i=i, row=r, label=lab, subset=name, verdict=verdicts[bool(ok)])
                for i, (r, lab, name, ok) in enumerate(zip(result.test_index, labels_test, e.chosen_names, correct))]
    return dvs_figures.view_selection_matrix(e.chosen_views, e.view_names, order, row_text)


def neighbourhood_figure(result, e, i: int):
    """The instance among its nearest training instances, near drawn near (exact space); on the large-data
    path (no (n_test, n_train) matrix kept) the zoom of the map, whose caption says it is a projection."""
    labels_train, labels_test = (np.asarray(result.classes)[y] for y in (result.y_train, result.y_test))
    space = ("<br><sup>" + _("in the all-views average, where this variant takes its one region") + "</sup>"
             if e.region_kind == "shared" else "")
    if result.sampled:
        train_xy, test_xy, _train_rows, _test_rows = result.subset_map(e.region_space(i))
        return dvs_figures.region_of_competence_map(
            train_xy, test_xy, labels_train, labels_test, result.classes, selected=i, region=e.region[i],
            region_hit=e.region_oob_hit[i],
            title=_("Test instance {i} (star) and its {n} neighbours").format(i=i, n=len(e.region[i]))
            + "<br><sup>" + _("a zoom of the projection: distances on it are approximate") + "</sup>" + space)
    near, coords, region = result.neighbourhood(e, i)
    return dvs_figures.neighbourhood_map(coords, labels_train[near], result.classes, region=region,
                                         region_hit=e.region_oob_hit[i],
                                         title=_("Test instance {i} (star) and its {n} nearest").format(
                                             i=i, n=len(near)) + space)


def chosen_instance(e) -> int:
    """The test instance to explain: the one clicked on the map (once per click), else the number box's."""
    clicked = selected_point("dvs_map")
    if clicked is not None and clicked != st.session_state.get("_dvs_last_click"):
        st.session_state["_dvs_last_click"] = clicked
        set_kept("dvs_instance", clicked)
    return int(st.number_input(_("Test instance (or click one on the map)"), 0, e.n_instances - 1, step=1,
                               **keep("dvs_instance", 0)))


@st.fragment
def one_instance(result, e, key: str, method: str) -> None:
    """The instance explorer: changing the instance (or clicking the map) reruns only this part; the projection of
    each chosen subset's space is computed once per server."""
    st.subheader(_("Region of competence of one instance"))
    i = chosen_instance(e)
    subset = e.subsets[e.chosen[i]]
    train_xy, test_xy, _explained, how = shared.value("dvs_pca", [key, subset.tolist()],
                                                      lambda: result.subset_map(subset))
    labels_train, labels_test = (np.asarray(result.classes)[y] for y in (result.y_train, result.y_test))
    space = (_("Space of the chosen subset “{subset}”").format(subset=e.chosen_names[i]) + "<br><sup>"
             + _("{how}; click a test instance").format(how=how) + "</sup>")
    overview, zoom = st.columns([3, 2])
    show_figure(overview, shared.figure("dvs_map", [key, subset.tolist(), e.chosen_names[i]], lambda: dvs_figures.
                                        dissimilarity_space_map(train_xy, test_xy, labels_train, labels_test,
                                                                result.classes, title=space)),
                key="dvs_map", on_select="rerun", selection_mode="points")
    show_figure(zoom, shared.figure("dvs_region", [key, method, i], lambda: neighbourhood_figure(result, e, i)),
                key="dvs_region")
    instance_sentence(result, e, i, method)
    st.dataframe({_("dataset row"): result.train_index[e.region[i]],
                  _("class"): np.asarray(result.classes)[e.region_labels[i]],
                  _("dissimilarity"): np.round(e.region_dissimilarity[i], 4), _("OOB correct"): e.region_oob_hit[i]},
                 hide_index=True, width="stretch")
    competences(result, key, i)


def instance_sentence(result, e, i: int, method: str) -> None:
    """What the method chose for instance ``i``, with what competence, and whether it was right."""
    verdict = _("correct") if e.prediction[i] == result.y_test[i] else _("wrong")
    truth = ""
    if result.informative_test is not None:
        truth = " " + _("Its true view(s): **{views}**.").format(
            views=" + ".join(np.asarray(e.view_names)[result.informative_test[i]]))
    st.markdown(_("Test instance **{i}** (dataset row {row}), class **{label}**: {method} chose **{subset}** "
                  "(competence {competence}, {tied} candidates tied) and predicted **{prediction}** ({verdict}).")
                .format(i=i, row=result.test_index[i], label=result.classes[result.y_test[i]],
                        method=method_title(method), subset=e.chosen_names[i],
                        competence=format_number(e.chosen_competence[i], 2), tied=e.n_tied[i],
                        prediction=result.classes[e.prediction[i]], verdict=verdict) + truth)


def competences(result, key: str, i: int) -> None:
    """The paper's competence and the soft one for instance ``i``, side by side, on the same forests (once both are
    scored: a partial result may hold the paper's alone)."""
    if not {"dvs", "dvs-soft"} <= set(result.explanations):
        return
    paper_e, soft_e = result.explanations["dvs"], result.explanations["dvs-soft"]
    st.markdown("**" + _("The paper's competence and the soft one, for this instance, on the same forests") + "**")
    p1, p2 = st.columns(2)
    show_figure(p1, shared.figure("dvs_competence_paper", [key, i], lambda: dvs_figures.candidate_competence(
        paper_e.candidate_names, paper_e.competence[i], paper_e.chosen[i],
        title=_("Paper: OOB accuracy on each candidate's own k nearest"))), key="dvs_competence_paper")
    show_figure(p2, shared.figure("dvs_competence_soft", [key, i], lambda: dvs_figures.candidate_competence(
        soft_e.candidate_names, soft_e.competence[i], soft_e.chosen[i],
        title=_("Soft: OOB probability of the true class, same regions"))), key="dvs_competence_soft")
