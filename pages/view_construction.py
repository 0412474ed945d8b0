"""View construction page: how should features be grouped into views? (Kumar & Minz)"""

from mvlab.experiments.settings import ViewConstructionSettings
from mvlab.experiments.view_construction_sweep import KSweepResult
from mvlab.i18n import N_
from mvlab.ui.page import TrainingPage, run_page
from mvlab.ui.views import view_construction_page
from mvlab.ui.widgets import widget_keys

WIDGETS = widget_keys(ViewConstructionSettings, "vc", exclude=("ga_runs",), names={  # ga_runs: set by paper settings
    "max_views": "k", "n_splits": "folds", "inner_cv": "inner", "ga_generations": "generations",
    "n_used": "n_{pending_source}", "d_used": "d_{pending_source}"})
run_page(TrainingPage("view_construction", ViewConstructionSettings, KSweepResult, WIDGETS,
                      view_construction_page.controls, view_construction_page.view, view_construction_page.waiting,
                      train_key="vc_train", label=N_("Building views")))
