"""Evaluation protocols: how examples are presented to a booster and scored."""

from boostbench.protocols.prequential import PrequentialResult, prequential
from boostbench.protocols.train_test import TrainTestResult, train_then_test

__all__ = ["PrequentialResult", "TrainTestResult", "prequential", "train_then_test"]
