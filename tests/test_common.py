"""scikit-learn's estimator checks over every mvlab estimator: the one home of conformance (issue #12).

Small settings (few trees, two inner folds) keep the whole file to a minute or two on 2 cores.
Every check that cannot pass is listed with a one-line reason; ``xfail_strict`` makes a listed
check that starts passing fail, so the list stays true.
"""

import numpy as np
from sklearn.utils.estimator_checks import parametrize_with_checks

from mvlab import (
    OFSP,
    AttributeBagging,
    AttributeClustering,
    Bagging,
    CascadeForest,
    ForestDissimilarity,
    GeneticViews,
    MultiGrainedScanner,
    RandomPartition,
    RFDClassifier,
    SiameseDeepForest,
    ViewEnsemble,
)
from mvlab.construction.estimators import LowestIndexKNN
from mvlab.rfd.baselines import LateFusionClassifier
from mvlab.rfd.classifier import StaticCombiner
from mvlab.rfd.dvs import DVSCombiner


class PairColumnsSDF(SiameseDeepForest):
    """SiameseDeepForest reading the checks' generated 2-D ``X`` (n, 2 d) as pairs (n, 2, d): the first
    half of the columns is one instance, the second half the other. Only the input's shape changes, so
    every check whose data can be pairs (an even number of columns, labels 0 and 1) runs on the pair
    estimator itself: the pair-shaped equivalent of the checks, which SDF cannot take on a plain 2-D X.
    """

    @staticmethod
    def _as_pairs(X):
        X = np.asarray(X)
        if X.ndim == 2 and X.shape[1] % 2 == 0 and X.shape[1] > 0:
            return X.reshape(X.shape[0], 2, -1)
        return X  # refused by pair_vectors, with its message

    def fit(self, X, y, progress=None):
        return super().fit(self._as_pairs(X), y, progress)

    def level_class_vectors(self, X):
        return super().level_class_vectors(self._as_pairs(X))

    def score(self, X, y, sample_weight=None):
        return super().score(self._as_pairs(X), y, sample_weight)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.three_d_array = False
        return tags


ESTIMATORS = [
    ForestDissimilarity(n_estimators=5, random_state=0),
    ForestDissimilarity("rfd", n_estimators=5, random_state=0),
    RFDClassifier(n_estimators=5, random_state=0),
    RFDClassifier(combination=StaticCombiner("knn", k=1), n_estimators=5, random_state=0),
    RFDClassifier(combination=DVSCombiner(k=1), n_estimators=5, random_state=0),
    LateFusionClassifier(n_estimators=5, random_state=0),
    # seeded like every other estimator here: unseeded inner folds made the one-label check fail in about 1 run of
    # 13 (a fold left a bootstrap member without training rows: a ValueError not naming "class")
    ViewEnsemble(partitioner=RandomPartition(2, random_state=0), estimator="knn", inner_cv=2, random_state=0),
    ViewEnsemble(partitioner=Bagging(2, random_state=0), estimator="nb", inner_cv=2, random_state=0),
    ViewEnsemble(partitioner=OFSP(2, "nb", inner_cv=2), estimator="nb", inner_cv=2, random_state=0),
    OFSP(2, "knn", inner_cv=2, random_state=0),
    RandomPartition(2, random_state=0),
    AttributeBagging(2, "knn", n_trials=2, inner_cv=2, random_state=0),
    AttributeClustering(2, n_init=2, random_state=0),
    GeneticViews(2, "knn", population_size=6, n_offspring=6, n_generations=1, inner_cv=2, random_state=0),
    Bagging(2, random_state=0),
    LowestIndexKNN(),
    CascadeForest(n_estimators=5, max_levels=2, n_folds=2),
    MultiGrainedScanner(n_estimators=5, n_folds=2, min_samples_leaf=1),
    PairColumnsSDF(n_estimators=5, max_levels=2, n_folds=2, random_state=0),
]

_FIT_TRANSFORM_IS_OUT_OF_FOLD = (
    "fit_transform returns out-of-fold class vectors (stacking), transform averages the fold-models, "
    "as gcForest; they differ by design"
)
_TWO_FEATURE_OFSP = (
    "the check's blobs have 2 features: OFSP with 2 views must put each in its own view (an empty view "
    "starts at accuracy 0, docs/algorithms.md B.2), and a 2-member weighted vote follows its better "
    "1-feature member (0.78 < the 0.83 asked; see test_ensemble.py)"
)
_PAIRS_NOT_X = (
    "fit takes pairs labelled 0 (similar) or 1 (dissimilar); the check's X has an odd number of columns, "
    "which cannot be read as two instances, or its y other labels, or it asserts on the wording of a "
    "plain-X error that the pair reader words its own way"
)
_SDF_DATA_CHECKS = (  # the checks whose generated data cannot be read as pairs
    "check_classifier_data_not_an_array", "check_classifiers_classes", "check_classifiers_one_label",
    "check_classifiers_regression_target", "check_classifiers_train", "check_complex_data",
    "check_dict_unchanged", "check_dont_overwrite_parameters",
    "check_dtype_object", "check_estimator_sparse_array", "check_estimator_sparse_matrix",
    "check_estimator_sparse_tag", "check_estimators_dtypes", "check_estimators_empty_data_messages",
    "check_estimators_fit_returns_self", "check_estimators_nan_inf", "check_estimators_overwrite_params",
    "check_estimators_pickle", "check_f_contiguous_array_estimator", "check_fit2d_1feature",
    "check_fit2d_1sample", "check_fit2d_predict1d", "check_fit_score_takes_y",
    "check_methods_sample_order_invariance", "check_methods_subset_invariance",
    "check_n_features_in", "check_n_features_in_after_fitting", "check_pipeline_consistency",
    "check_positive_only_tag_during_fit", "check_readonly_memmap_input", "check_requires_y_none",
    "check_supervised_y_2d",
)


def expected_failed_checks(estimator) -> dict:
    """``{check name: why it cannot pass}`` for one estimator of :data:`ESTIMATORS`."""
    if isinstance(estimator, PairColumnsSDF):
        return dict.fromkeys(_SDF_DATA_CHECKS, _PAIRS_NOT_X)
    if isinstance(estimator, MultiGrainedScanner):
        return dict.fromkeys(("check_transformer_general", "check_transformer_data_not_an_array"),
                             _FIT_TRANSFORM_IS_OUT_OF_FOLD)
    if isinstance(estimator, ViewEnsemble) and isinstance(estimator.partitioner, OFSP):
        return {"check_classifiers_train": _TWO_FEATURE_OFSP}
    return {}


@parametrize_with_checks(ESTIMATORS, expected_failed_checks=expected_failed_checks, xfail_strict=True)
def test_sklearn_conformance(estimator, check):
    check(estimator)
