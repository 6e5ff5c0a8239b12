"""Batch multiclass boosting (Mukherjee & Schapire; Combessie & Machraoui), one module per algorithm
(built through the registry, :mod:`boostbench.algorithms`).
"""

from boostbench.batch.adaboost import AdaBoost
from boostbench.batch.adaboost_m1 import AdaBoostM1
from boostbench.batch.adaboost_m2 import AdaBoostM2
from boostbench.batch.adaboost_mh import AdaBoostMH
from boostbench.batch.adaboost_mm import AdaBoostMM
from boostbench.batch.base import BatchBooster, BatchModel
from boostbench.batch.base_model import BaseModel
from boostbench.batch.one_vs_all import OneVsAll
from boostbench.batch.samme import SAMME
from boostbench.learners.batch_trees import TreeParams

__all__ = [
    "SAMME",
    "AdaBoost",
    "AdaBoostM1",
    "AdaBoostM2",
    "AdaBoostMH",
    "AdaBoostMM",
    "BaseModel",
    "BatchBooster",
    "BatchModel",
    "OneVsAll",
    "TreeParams",
]
