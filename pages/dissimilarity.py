"""Dissimilarity page: what does the forest think is similar?"""

from mvlab.experiments.combinations import CombinationComparison
from mvlab.experiments.settings import DissimilaritySettings
from mvlab.i18n import N_
from mvlab.ui.page import TrainingPage, run_page
from mvlab.ui.views import dissimilarity_page
from mvlab.ui.widgets import widget_keys

WIDGETS = widget_keys(DissimilaritySettings, "dis", names={"kdn_k": "kdn"})
run_page(TrainingPage("dissimilarity", DissimilaritySettings, CombinationComparison, WIDGETS,
                      dissimilarity_page.controls, dissimilarity_page.view, dissimilarity_page.waiting,
                      train_key="dis_train", label=N_("Growing forests")))
