"""Dynamic view selection page: which views did each instance use, and why?"""

from mvlab.experiments.combinations import CombinationComparison
from mvlab.experiments.settings import DVSSettings
from mvlab.ui.page import TrainingPage, run_page
from mvlab.ui.views import dvs
from mvlab.ui.widgets import widget_keys

WIDGETS = widget_keys(DVSSettings, "dvs", exclude=("w", "kdn_k"))  # the measure's parameters: not drawn here
run_page(TrainingPage("dvs", DVSSettings, CombinationComparison, WIDGETS, dvs.controls, dvs.view, dvs.waiting,
                      train_key="dvs_train", label="Training view forests, the DVS pool and the baselines",
                      summary=dvs.summary))
