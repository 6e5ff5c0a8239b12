"""Online boosters, one module per algorithm (the registry that builds them:
:mod:`boostbench.algorithms`).
"""

from __future__ import annotations

from boostbench.boosters.ada_olmr import AdaOLMR
from boostbench.boosters.adaboost_olm import AdaboostOLM
from boostbench.boosters.base import OnlineBooster, OnlineRanker
from boostbench.boosters.hedge import HedgeExperts
from boostbench.boosters.online_bagging import OnlineBagging
from boostbench.boosters.online_bmr import OnlineBMR
from boostbench.boosters.online_boosting import OnlineBoosting
from boostbench.boosters.online_mbbm import OnlineMBBM
from boostbench.boosters.vfdt import VFDT, BestVFDT

__all__ = [
    "VFDT",
    "AdaOLMR",
    "AdaboostOLM",
    "BestVFDT",
    "HedgeExperts",
    "OnlineBMR",
    "OnlineBagging",
    "OnlineBooster",
    "OnlineBoosting",
    "OnlineMBBM",
    "OnlineRanker",
]
