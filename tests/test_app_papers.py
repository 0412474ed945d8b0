"""AppTest: the Papers page shows the committed cells beside the paper's, and says when there are none."""

import json

import numpy as np
import pandas as pd

from mvlab.reproduction import writer
from mvlab.reproduction.sdf_paper import DRAW_COLUMNS


def _draws(tmp_path):
    rows = []
    for d, acc in enumerate([0.90, 0.92, 0.93]):
        for model, shift in (("gcForest", 0.0), ("SDF", 0.01), ("Bagging", -0.05), ("RF", -0.04)):
            rows.append(dict(zip(DRAW_COLUMNS, ["ecoli", 2000, 700, "disjoint", d, 7, model, acc + shift, 2, 1.0,
                                                1333, 1.0])))
    pd.DataFrame(rows, columns=DRAW_COLUMNS).to_csv(tmp_path / "sdf_paper_draws.csv", index=False)
    writer.write_outputs(["sdf-paper"], tmp_path)


def test_papers_page_shows_cells_beside_the_papers_with_links(app, tmp_path, monkeypatch):
    _draws(tmp_path)
    monkeypatch.setattr(writer, "REPRODUCTION_DIR", tmp_path)
    app.switch_page("pages/papers.py").run()
    assert not app.exception, app.exception
    assert [s.value for s in app.subheader] == ["Table 4: Ecoli", "Table 8: every model at N = 2000, T = 700"]
    t4 = app.dataframe[0].value
    t4 = t4.data if hasattr(t4, "data") else t4  # a Styler
    assert t4["paper"].tolist() == [0.913, 0.915] and t4["mvlab"].tolist() == [0.917, 0.927]
    assert t4["paper's value"].tolist() == ["inside", "inside"]
    assert t4["open"].iloc[0] == "siamese?dataset=ecoli&n_pairs=2000&n_estimators=700&max_levels=10"
    assert "of the paper's cells inside our 95 % interval" in " ".join(m.value for m in app.markdown)
    captions = " ".join(c.value for c in app.caption)
    assert "Which pair sampling the paper's numbers fit (cells run both ways): not yet measured" in captions
    assert "Progress of the protocol's grid: 3 of the grid's" in captions
    charts = [json.loads(c.proto.spec) for c in app.get("plotly_chart")]
    scatter = next(c for c in charts if "Tables 4-8: the printed cells mvlab ran" in c["layout"]["title"]["text"])
    assert "disjoint instance pools (4 cells)" in [a["text"] for a in scatter["layout"]["annotations"]]
    assert scatter["layout"]["title"]["text"].endswith("(3 draws per cell)")
    drawn = sorted((x, y) for t in scatter["data"] if t.get("mode") == "markers" and t["x"][0] is not None
                   for x, y in zip(t["x"], t["y"]))
    # Table 4's two cells and Table 8's Bagging and RF: Table 8's gcForest and SDF repeat Table 4's draws
    printed = writer.read_cells("sdf-paper").dropna(subset=["paper"])
    printed = printed[(printed["table"] == 4) | printed["model"].isin(["Bagging", "RF"])]
    assert len(drawn) == len(printed) == 4
    np.testing.assert_allclose(drawn, sorted(zip(printed["paper"], printed["mean"])))
    assert "Every cell, each draw counted once: " in " ".join(m.value for m in app.markdown)
    assert "2 of these 4 cells repeat the draws of a cell of Tables 4–7 (N = 2000, T = 700), 0 of them its printed " \
           "value too" in captions


def test_papers_page_without_results_says_which_command_makes_them(app, tmp_path, monkeypatch):
    monkeypatch.setattr(writer, "REPRODUCTION_DIR", tmp_path)
    app.switch_page("pages/papers.py").run()
    assert not app.exception, app.exception
    assert any("reproduce sdf-paper" in i.value for i in app.info)


def test_papers_page_shows_ofsp_table3_rows_with_links_to_the_view_construction_page(app, tmp_path, monkeypatch):
    from mvlab.reproduction.ofsp_leak import LEAK_METHOD
    from mvlab.reproduction.ofsp_paper import OFSP_DRAW_COLUMNS
    from mvlab.reproduction.ofsp_paper_report import READING_LABELS, TABLE3_CAPTION, TABLE4_CAPTION

    rows = [dict(zip(OFSP_DRAW_COLUMNS, ["golub-3051", "knn", rep, 1000, method, k, acc, 0.1 if k > 1 else np.nan,
                                         50.0, 1.0]))
            for rep, acc in enumerate([0.97, 1.0, 0.99]) for method in ("AB", "OFSP", "RFSP") for k in (1, 2)]
    pd.DataFrame(rows, columns=OFSP_DRAW_COLUMNS).to_csv(tmp_path / "ofsp_paper_draws.csv", index=False)
    writer.write_outputs(["ofsp-paper"], tmp_path)
    leak = [{**r, "method": LEAK_METHOD, "accuracy": 1.0} for r in rows if r["method"] == "OFSP"]
    pd.DataFrame(leak, columns=OFSP_DRAW_COLUMNS).to_csv(tmp_path / "ofsp_leak_draws.csv", index=False)
    writer.write_outputs(["ofsp-leak"], tmp_path)
    knn = [{**r, "dataset": "madelon-500", "method": f"RFSP, {v}", "accuracy": r["accuracy"] - 0.3 + 0.1 * i}
           for r in rows if r["method"] == "RFSP" for i, v in enumerate(("1-NN", "k by leave-one-out"))]
    pd.DataFrame(knn, columns=OFSP_DRAW_COLUMNS).to_csv(tmp_path / "ofsp_knn_draws.csv", index=False)
    writer.write_outputs(["ofsp-knn"], tmp_path)
    svm = [{**r, "classifier": "svm", "method": f"Bagging, {v}", "accuracy": r["accuracy"] - 0.25 - 0.02 * i}
           for r in knn if r["method"].endswith("1-NN") for i, v in enumerate(("as generated", "0-999 range"))]
    pd.DataFrame(svm, columns=OFSP_DRAW_COLUMNS).to_csv(tmp_path / "ofsp_svm_range_draws.csv", index=False)
    writer.write_outputs(["ofsp-svm-range"], tmp_path)
    generator = [{**r, "dataset": "madelon-500", "classifier": "svm", "method": "all 500 features", "k": 1,
                  "seed": 2003 if r["repetition"] == 0 else r["repetition"]}
                 for r in rows if r["method"] == "OFSP" and r["k"] == 1]
    pd.DataFrame(generator, columns=OFSP_DRAW_COLUMNS).to_csv(tmp_path / "madelon_generator_draws.csv", index=False)
    writer.write_outputs(["madelon-generator"], tmp_path)
    monkeypatch.setattr(writer, "REPRODUCTION_DIR", tmp_path)
    app.switch_page("pages/papers.py").run()
    assert not app.exception, app.exception
    headings = [s.value for s in app.subheader]
    assert ("All-AML leukemia (golub-3051: 3,051 filtered genes; the paper: 7,130 attributes, Golub's 7,129 "
            "genes and the class)") in headings
    assert "Tables 3 and 4: the printed OFSP cells mvlab ran, against mvlab's, under both readings" in headings
    grid = next(m.value for m in app.markdown if m.value.startswith(TABLE3_CAPTION))
    assert "| classifier | k=1 | k=2 |" in grid and "| KNN | 0.987 ± " in grid and "(3) / 1.000" in grid
    disagreement = grid.split(TABLE4_CAPTION)[1]  # Table 4 under its caption, after Table 3
    assert "| classifier | k=2 |" in disagreement and "| KNN | 0.100 ± 0.000 (3) / **0.0000**† |" in disagreement
    assert any("Table 4 (disagreement): 0 of 1 of the paper's cells inside" in m.value for m in app.markdown)
    leak_text = next(m.value for m in app.markdown if m.value.startswith("All-AML leukemia"))
    assert "2 of 2 of the paper's cells inside" in leak_text and "| KNN | 1.000 ± 0.000 (3) / 1.000" in leak_text
    # both of the reading's tables under their captions; every repetition alike: the zero-width interval is said
    assert TABLE3_CAPTION in leak_text and TABLE4_CAPTION in leak_text
    assert "| KNN | 0.100 ± 0.000 (3) / **0.0000**† |" in leak_text and "an interval without width" in leak_text
    # rows still to compute are shown in the protocol's grids only (the reading ran KNN by design), never for KNN
    assert "not computed yet" not in leak_text and "| naive Bayes (not computed yet) |" in grid
    assert "| KNN (not computed yet)" not in grid
    knn_text = next(m.value for m in app.markdown if "| RFSP | " in m.value and "median over k" in m.value)
    knn_caption = next(c.value for c in app.caption if "reproduce ofsp-knn`" in c.value)
    assert "Generated by" not in knn_text and "`; draws in ofsp_knn_draws.csv: 3: " in knn_caption, knn_caption
    assert "| RFSP | 0.687 [0.687, 0.687] | 0.787 [0.787, 0.787] | +0.100 (median over k) |" in knn_text
    assert "the paper's OFSP with KNN: 0.752-0.846" in knn_text
    svm_text = next(m.value for m in app.markdown if "OFSP with linear SVM" in m.value)
    assert "| Bagging | 0.437 [0.437, 0.437] | 0.417 [0.417, 0.417] | -0.020 (median over k) |" in svm_text
    assert "the paper's OFSP with linear SVM: 0.638-0.686" in svm_text
    assert any("reproduce ofsp-svm-range`; draws in ofsp_svm_range_draws.csv: 3: " in c.value for c in app.caption)
    spread = next(m.value for m in app.markdown if "other draws: median [min, max]" in m.value)
    assert "| linear SVM | all 500 features | 0.970 | 0.995 [0.990, 1.000] | 0 of 2 | 0.638-0.686 |" in spread
    table = app.dataframe[-1].value
    table = table.data if hasattr(table, "data") else table
    assert (table["model"].iloc[:2] == "OFSP").all()  # the cells with a paper value first
    ofsp = table[table["model"] == "OFSP"]
    boxes, scatter = app.get("plotly_chart")  # the paper's Figs. 4-7 from the draws; the cells under both readings
    assert '"type":"box"' in boxes.proto.spec.replace(" ", "")
    traces = [t for t in json.loads(scatter.proto.spec)["data"] if t.get("mode") == "markers" and t["x"][0] is not None]
    protocol, leaked = ([(x, y) for t in traces if t["name"] == READING_LABELS[r]
                         for x, y in zip(t["x"], t["y"])] for r in ("protocol", "leak"))
    # k = 1 and 2 of Table 3 (accuracy, the paper's 1.0) and k = 2 of Table 4 (disagreement, the paper's 0.0)
    np.testing.assert_allclose(sorted(protocol), [(0.0, 0.1), (1.0, np.mean([0.97, 1.0, 0.99]))] + [(1.0, 0.98667)],
                               atol=1e-4)
    np.testing.assert_allclose(sorted(leaked), [(0.0, 0.1), (1.0, 1.0), (1.0, 1.0)])
    assert ofsp["paper"].tolist() == [1.0, 1.0] and table[table["model"] == "RFSP"]["paper"].isna().all()
    assert ofsp["open"].iloc[0].startswith("view_construction?dataset=golub-3051&classifiers=knn&n_splits=5")
