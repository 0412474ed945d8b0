"""Benchmark page: which method wins, and is it significant?"""

from mvlab.experiments.settings import BenchmarkSettings
from mvlab.ui.page import Page, run_page
from mvlab.ui.views import benchmark_page
from mvlab.ui.widgets import widget_keys

WIDGETS = widget_keys(BenchmarkSettings, "bm", names={"methods": "methods_{pending_family}", "n_max": "n",
                                                      "n_pairs": "pairs"})
run_page(Page("benchmark", benchmark_page.view, BenchmarkSettings, WIDGETS, benchmark_page.controls, fragment=True))
