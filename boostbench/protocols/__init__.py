"""Evaluation protocols: how examples are presented to a booster and scored."""

from boostbench.protocols.fit_evaluate import FoldResult, fit_batch, fit_online
from boostbench.protocols.mulan_split import TrainTestResult, train_then_test
from boostbench.protocols.prequential import PrequentialResult, prequential
from boostbench.protocols.prequential_cv import prequential_cv
from boostbench.protocols.splits import holdout_split, kfold_splits

__all__ = [
    "FoldResult",
    "PrequentialResult",
    "TrainTestResult",
    "fit_batch",
    "fit_online",
    "holdout_split",
    "kfold_splits",
    "prequential",
    "prequential_cv",
    "train_then_test",
]
