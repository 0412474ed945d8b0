"""Dynamic view selection page: which views did each instance use, and why?"""

from mvlab.experiments.combinations import CombinationComparison
from mvlab.experiments.settings import DVSSettings
from mvlab.i18n import N_
from mvlab.ui.page import TrainingPage, run_page
from mvlab.ui.views import dvs_page
from mvlab.ui.widgets import widget_keys

WIDGETS = widget_keys(DVSSettings, "dvs", exclude=("w", "kdn_k"))  # the measure's parameters: not drawn here
run_page(TrainingPage("dvs", DVSSettings, CombinationComparison, WIDGETS, dvs_page.controls, dvs_page.view,
                      dvs_page.waiting, train_key="dvs_train", summary=dvs_page.summary,
                      label=N_("Training view forests, the DVS pool and the baselines")))
