"""The Benchmark page's controls and view: one family's methods on several datasets, run on the engine and kept in
the results store as one batch of runs, and any batch kept there shown with its tests (ranks, sign tests, Friedman
with its post-hoc, the critical-difference diagram)."""

from __future__ import annotations

import json

import streamlit as st

from mvlab.experiments.combinations import method_title as combination_title
from mvlab.experiments.families import FAMILIES, family_of_run
from mvlab.experiments.report import BASELINE_RULE, PLAIN_BASELINES, baseline_check, family_reports, format_critical
from mvlab.i18n import N_, _, format_list, format_number, said
from mvlab.store import StoreUnavailable
from mvlab.ui import runs, widgets
from mvlab.ui.figure_text import show_figure
from mvlab.ui.page import PARTIAL_NOTE, Shown
from mvlab.ui.state import kept, set_kept
from mvlab.ui.tables import column_name, readable, translated
from mvlab.ui.widgets import Form
from mvlab.viz import benchmark_figures

__all__ = ["controls", "baselines_button", "view", "run_button", "batch_part", "batches", "show_batch", "chosen_report",
           "plain_baselines", "means_and_sign_tests", "friedman", "critical_difference", "downloads"]


def controls(form: Form):
    """The family, the datasets and the methods of that family (full-width rows: a select box of chips in a narrow
    column hides the chips past its edge), then the repetitions, trees, instances and pairs."""
    family = form.radio(st, "family", _("Methods"), format_func=lambda f: _(FAMILIES[f].title), horizontal=True)
    methods_of = FAMILIES[family]
    datasets = form.multiselect(st, "datasets", _("Datasets"))
    methods = form.multiselect(st, "methods", _("Compare"), options=methods_of.methods, help="\n".join(
        f"- **{m}**: {method_title(methods_of, m)}" for m in methods_of.methods))
    baselines_button(form.keys["methods"], family, methods)
    d = st.columns(4)
    return form.settings(family=family, datasets=tuple(datasets), methods=tuple(methods),
                         repetitions=int(form.number(d[0], "repetitions", _("Repetitions"))),
                         n_estimators=int(form.number(d[1], "n_estimators", _("Trees per forest"), step=10)),
                         n_max=int(form.number(d[2], "n_max", _("Instances per dataset at most"), step=100)),
                         n_pairs=int(form.number(d[3], "n_pairs", _("Training pairs N (pairs)"), step=50)))


def method_title(family, method: str) -> str:
    """A method of ``family`` said for people in the reader's language (its name where it has no title)."""
    if family.name == "dissimilarity":
        return combination_title(method)
    title = family.method_titles.get(method)
    return _(title) if title else method


def baselines_button(key: str, family: str, methods) -> None:
    """For a family with plain baselines (:data:`mvlab.experiments.report.PLAIN_BASELINES`) not all among
    ``methods``: one click adds them to the methods widget ``key``, so that the report can say where the papers'
    methods lose to them."""
    left_out = [b for b in PLAIN_BASELINES.get(family, ()) if b not in methods]
    if left_out:
        st.button(_("Add the plain baselines ({methods})").format(methods=", ".join(left_out)), key="bm_add_baselines",
                  on_click=_add_methods, args=(key, left_out, list(methods)),
                  help=_("A random forest on all features, a soft vote of the view forests and stacking: what the "
                         "papers' methods have to beat to be worth their cost."))


def _add_methods(key: str, added: list, methods: list) -> None:
    """The button's callback: ``added`` after the methods the widget ``key`` keeps (before the page is drawn)."""
    current = list(kept(key, methods))
    set_kept(key, current + [m for m in added if m not in current])


def view(shown: Shown) -> None:
    """The Run benchmark button and the batches kept in the results store; a store that cannot be reached is said
    in words (no traceback), and the page shows its batches again once it is back."""
    try:
        run_button(shown.settings)
        batches()
    except StoreUnavailable as exc:
        st.warning(f"{exc} " + _("The benchmark's runs cannot be started or shown until it is back; press **R** to "
                                  "look again."), icon=":material/cloud_off:")


def run_button(settings) -> None:
    """Run benchmark: the settings' problems in words when pressed, else the run on the engine, followed until it
    ends (a cut-off run resumes: the engine records each dataset's runs as they finish); the finished batch becomes
    the one shown."""
    problems = settings.problems()
    if problems:
        if st.button(_("Run benchmark"), type="primary", key="bm_run"):
            st.error(" ".join(problems))
        return
    outcome = runs.engine_button(runs.benchmark_request(settings), "bm_run", N_("Benchmark"),
                                 button=N_("Run benchmark"), partial=(str, batch_part))
    if outcome is not None:
        batch, skipped = outcome.result
        st.session_state[_SKIPPED] = {batch: skipped}
        set_kept("bm_batch", batch)
        runs.redraw_whole("bm_run")


_SKIPPED = "bm_skipped"
"""Session state: the datasets the last finished run skipped, said in words under its batch (``{batch: [...]}``)."""


def batch_part(batch: str, note: str, number: int) -> None:
    """The runs of the batch in progress stored so far (a partial result, :func:`mvlab.ui.runs.follow`), said as
    one."""
    st.info(_(PARTIAL_NOTE).format(note=said(note)), icon=":material/pending:")
    show_batch(runs.results_store(), batch)


def batches() -> None:
    """The batch to show (newest first) among those kept in the results store, and that batch."""
    store = runs.results_store()
    labels = store.batches()
    if not labels:
        st.info(_("Choose datasets and methods and press **{button}**.").format(button=_("Run benchmark")))
        return
    batch = widgets.choice(st, _("Results to show (newest first)"), labels, "bm_batch", next(iter(labels)),
                           format_func=labels.get)
    for message in st.session_state.get(_SKIPPED, {}).get(batch, ()):
        st.error(said(message))
    show_batch(store, batch)


def show_batch(store, batch: str) -> None:
    """One batch: its means, sign tests, Friedman's test and critical differences within the group chosen (its
    family's report), and its downloads; its means alone when its runs do not say their family."""
    table = store.results(kind=batch)
    if table.empty:
        st.warning(_("This run stored no results yet (it may have been interrupted before its first split "
                     "finished)."))
        return
    family = family_of_run(store.runs(kind=batch)["settings"].iloc[0], batch)
    if family is None:
        st.warning(_("The runs of {batch} do not say which family of methods they compare; showing means only.")
                   .format(batch=batch))
        st.dataframe(translated(table.groupby(["dataset", "method"])["value"].mean().unstack()), width="stretch")
        return
    report = chosen_report(table, family)
    plain_baselines(report, family)
    means_and_sign_tests(report, family.baseline)
    if note := report.left_out_note():  # an interrupted run: the tests on the complete datasets, the rest named
        st.warning(note)
    friedman(report, family.control)
    critical_difference(report, family.control)
    downloads(table, store.batch_manifest(batch))


def chosen_report(table, family):
    """The family's report of the batch (:func:`mvlab.experiments.report.family_reports`); where it has several
    groups (view construction: one per base classifier), the one the reader chooses."""
    reports = family_reports(table, family)
    if len(reports) == 1:
        return next(iter(reports.values()))
    group = st.selectbox(_("Compare within"), list(reports), key="bm_group", format_func=_,
                         help=_("View construction compares the methods for each base classifier separately (mean "
                                "over k = 1..K, repetitions and folds on every dataset)."))
    return reports[group]


def plain_baselines(report, family) -> None:
    """Where the papers' methods lose to a plain baseline (:func:`mvlab.experiments.report.baseline_check`): the
    summary sentence, a row per dataset and the rule behind its words; for a batch without a baseline, what to tick.
    Nothing for a family without plain baselines."""
    check = baseline_check(report.summary, family)
    if check is None:
        return
    st.subheader(_("Do the papers' methods beat a plain baseline?"))
    if check.sentence:
        st.markdown(check.sentence)
        st.dataframe(translated(check.display_table()), width="stretch")
        st.caption(_(BASELINE_RULE))
    if not check.baselines:
        st.info(check.missing + " " + _("Under **{compare}** above, **{add}** ticks them in one click.").format(
            compare=_("Compare"), add=_("Add the plain baselines ({methods})").format(methods="…")),
                icon=":material/info:")
    elif check.missing:
        st.caption(check.missing)


def means_and_sign_tests(report, baseline: str) -> None:
    """The mean ± std table, the average ranks, and the sign test of every method against ``baseline`` (its chart,
    its table, the paper's rule in words and a warning where the exact p does not confirm a verdict)."""
    st.subheader(_("Mean ± std of test accuracy"))
    st.dataframe(translated(report.mean_std_table()), width="stretch")
    left, right = st.columns(2)
    if report.ranks is not None:
        show_figure(left, benchmark_figures.average_rank_bars(report.ranks), key="bm_ranks")
    if report.sign_tests is None:
        return
    show_figure(right, benchmark_figures.win_tie_loss(report.sign_tests, baseline, report.sign_critical),
                key="bm_sign")
    st.dataframe(translated(report.sign_table()), width="stretch",
                 column_config={column_name("exact binomial p"): st.column_config.NumberColumn(format="%.4f")})
    at = _("{critical} at {level}")
    st.caption(_("Sign test against **{baseline}** over {datasets} datasets, the paper's rule (Demšar 2006): "
                 "significant when wins + ties/2 reaches the critical number, {critical} (significantly worse when "
                 "losses + ties/2 does). The exact binomial p (an odd tie dropped) is shown beside it, not used for "
                 "the verdict.").format(
        baseline=baseline, datasets=len(report.means),
        critical=format_list(at.format(critical=format_critical(v), level=k) for k, v in report.sign_critical.items())))
    note = report.sign_test_note()
    if note:
        st.warning(note)


def friedman(report, control: str) -> None:
    """Friedman's test over the datasets and its post-hoc against ``control``; in words when there are fewer than
    three datasets."""
    if report.friedman is not None:
        st.markdown(_("**Friedman** over {datasets} datasets: χ² = {statistic}, p = {p}. Post-hoc against "
                      "**{control}**:")
                    .format(datasets=len(report.means), statistic=format_number(report.friedman.statistic, 3),
                            p=format_number(report.friedman.p_value, 4), control=control))
        st.dataframe(readable(report.posthoc), width="stretch")
    elif len(report.means) < 3:
        st.caption(_("Friedman's test needs at least three datasets."))


def critical_difference(report, control: str) -> None:
    """The critical-difference diagram the reader chooses (all pairs, or against ``control``: a batch may lack the
    control) and how to read it."""
    if not report.critical_differences:
        return
    names = {"nemenyi": _("All pairs (Nemenyi)"), "holm": _("Against {control} (Holm)").format(control=control),
             "bonferroni-dunn": _("Against {control} (Bonferroni-Dunn)").format(control=control)}
    kind = widgets.choice(st, _("Critical-difference diagram"), report.critical_differences, "bm_cd", "nemenyi",
                          kind="radio", format_func=names.get, horizontal=True)
    cd = report.critical_differences[kind]
    show_figure(st, benchmark_figures.critical_difference_diagram(cd), key="bm_cd_chart")
    alpha = format_number(0.05, 2)
    joined = (_("Methods joined by a bar are not significantly different at α = {alpha} (Nemenyi: their average ranks "
                "differ by less than the critical difference).").format(alpha=alpha) if cd.control is None else
              _("Methods joined by a bar are not significantly different at α = {alpha} from {control}, the one in "
                "bold vermillion.").format(alpha=alpha, control=control))
    rule = (_("Demšar (2006): run the post-hoc only when Friedman's test rejects (here p = {p}).").format(
        p=format_number(report.friedman.p_value, 4)) if report.friedman is not None else
        _("Demšar (2006): run the post-hoc only when Friedman's test rejects."))
    st.caption(f"{joined} {rule}")


def downloads(table, manifest: dict) -> None:
    """The batch's results (.csv, made on the click) and its manifest (.json)."""
    c1, c2 = st.columns(2)
    c1.download_button(_("Download results (.csv)"), lambda: table.to_csv(index=False), file_name="benchmark.csv",
                       mime="text/csv", key="bm_dl_csv")
    c2.download_button(_("Download manifest (.json: settings, seeds, data fingerprints, versions)"),
                       json.dumps(manifest, indent=2), file_name="benchmark-manifest.json", mime="application/json",
                       key="bm_dl_json")
