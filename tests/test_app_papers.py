"""AppTest: the Papers page shows the committed cells beside the paper's, and says when there are none."""

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
    writer.write_sdf_outputs(tmp_path)


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


def test_papers_page_without_results_says_which_command_makes_them(app, tmp_path, monkeypatch):
    monkeypatch.setattr(writer, "REPRODUCTION_DIR", tmp_path)
    app.switch_page("pages/papers.py").run()
    assert not app.exception, app.exception
    assert any("reproduce sdf --paper" in i.value for i in app.info)


def test_papers_page_shows_ofsp_table3_rows_with_links_to_the_view_construction_page(app, tmp_path, monkeypatch):
    from mvlab.reproduction.ofsp_leak import LEAK_METHOD
    from mvlab.reproduction.ofsp_paper import OFSP_DRAW_COLUMNS

    rows = [dict(zip(OFSP_DRAW_COLUMNS, ["golub-3051", "knn", rep, 1000, method, k, acc, 0.1, 50.0, 1.0]))
            for rep, acc in enumerate([0.97, 1.0, 0.99]) for method in ("AB", "OFSP", "RFSP") for k in (1, 2)]
    pd.DataFrame(rows, columns=OFSP_DRAW_COLUMNS).to_csv(tmp_path / "ofsp_paper_draws.csv", index=False)
    writer.write_ofsp_outputs(tmp_path)
    leak = [{**r, "method": LEAK_METHOD, "accuracy": 1.0} for r in rows if r["method"] == "OFSP"]
    pd.DataFrame(leak, columns=OFSP_DRAW_COLUMNS).to_csv(tmp_path / "ofsp_leak_draws.csv", index=False)
    writer.write_ofsp_leak_outputs(tmp_path)
    knn = [{**r, "dataset": "madelon-500", "method": f"RFSP, {v}", "accuracy": r["accuracy"] - 0.3 + 0.1 * i}
           for r in rows if r["method"] == "RFSP" for i, v in enumerate(("1-NN", "k by leave-one-out"))]
    pd.DataFrame(knn, columns=OFSP_DRAW_COLUMNS).to_csv(tmp_path / "ofsp_knn_draws.csv", index=False)
    writer.write_ofsp_knn_outputs(tmp_path)
    monkeypatch.setattr(writer, "REPRODUCTION_DIR", tmp_path)
    app.switch_page("pages/papers.py").run()
    assert not app.exception, app.exception
    headings = [s.value for s in app.subheader]
    assert "All-AML leukemia (golub-3051: 3,051 filtered genes; the paper: 7,129 raw)" in headings
    grid = next(m.value for m in app.markdown if m.value.startswith("| classifier | k=1 | k=2 |"))
    assert "| KNN | 0.987 ± " in grid and "(3) / 1.000" in grid
    leak_text = next(m.value for m in app.markdown if m.value.startswith("**All-AML leukemia"))
    assert "2 of 2 of the paper's cells inside" in leak_text and "| KNN | 1.000 ± 0.000 (3) / 1.000" in leak_text
    knn_text = next(m.value for m in app.markdown if "--knn-neighbours" in m.value)
    assert "| RFSP | 0.687 [0.687, 0.687] | 0.787 [0.787, 0.787] | +0.100 (median over k) |" in knn_text
    assert "the paper's OFSP with KNN: 0.752-0.846" in knn_text
    table = app.dataframe[-1].value
    table = table.data if hasattr(table, "data") else table
    assert (table["model"].iloc[:2] == "OFSP").all()  # the cells with a paper value first
    ofsp = table[table["model"] == "OFSP"]
    boxes = app.get("plotly_chart")  # the paper's Figs. 4-7 from the draws: 4 measures x 1 classifier, 3 methods each
    assert len(boxes) == 1 and '"type":"box"' in boxes[0].proto.spec.replace(" ", "")
    assert ofsp["paper"].tolist() == [1.0, 1.0] and table[table["model"] == "RFSP"]["paper"].isna().all()
    assert ofsp["open"].iloc[0].startswith("view_construction?dataset=golub-3051&classifiers=knn&n_splits=5")
