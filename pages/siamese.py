"""Siamese deep forest page: how does a Siamese deep forest weight its trees?"""

from mvlab.experiments.settings import SiameseSettings
from mvlab.experiments.siamese_comparison import SiameseExperiment
from mvlab.i18n import N_
from mvlab.ui.page import TrainingPage, run_page
from mvlab.ui.views import siamese_page
from mvlab.ui.widgets import widget_keys

WIDGETS = widget_keys(SiameseSettings, "sdf", names={
    "n_pairs": "n", "qp_probas": "qp", "max_levels": "levels", "z_schedule": "z", "scanning": "scan",
    "windows": "windows_{shape_key}"})
run_page(TrainingPage("siamese", SiameseSettings, SiameseExperiment, WIDGETS, siamese_page.controls, siamese_page.view,
                      siamese_page.waiting, train_key="sdf_train", label=N_("Growing cascades")))
