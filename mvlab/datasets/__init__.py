"""Multi-view datasets: the container, the bundled real data, synthetic generators, the CSV reader."""

from mvlab.core.views import Xs_to_views, views_to_Xs
from mvlab.datasets.bundled import SAMPLE_DATA_DIR, DatasetInfo, dataset_info, list_datasets, load_dataset
from mvlab.datasets.container import MultiViewDataset
from mvlab.datasets.reader import MAX_UPLOAD_BYTES, read_multiview_csv
from mvlab.datasets.synthetic import make_madelon, make_multiview_classification

__all__ = [
    "MultiViewDataset", "DatasetInfo", "list_datasets", "dataset_info", "load_dataset", "make_multiview_classification",
    "make_madelon", "read_multiview_csv", "views_to_Xs", "Xs_to_views", "SAMPLE_DATA_DIR", "MAX_UPLOAD_BYTES",
]
