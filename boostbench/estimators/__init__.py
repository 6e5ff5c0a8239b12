"""The online boosters as river estimators: ``learn_one`` / ``predict_one`` on dict examples,
hyper-parameters only in the constructor, classes and features learned as they come.

Examples:
    >>> from river import datasets, evaluate, metrics
    >>> from boostbench.estimators import AdaboostOLMClassifier
    >>> model = AdaboostOLMClassifier(n_models=10, seed=42)
    >>> evaluate.progressive_val_score(datasets.Phishing(), model, metrics.Accuracy())
    Accuracy: 86.23%
"""

from boostbench.estimators.classifiers import (
    AdaboostOLMClassifier,
    HedgeClassifier,
    OnlineBaggingClassifier,
    OnlineBoostingClassifier,
    OnlineMBBMClassifier,
)
from boostbench.estimators.rankers import AdaOLMRClassifier, OnlineBMRClassifier

__all__ = [
    "AdaOLMRClassifier",
    "AdaboostOLMClassifier",
    "HedgeClassifier",
    "OnlineBMRClassifier",
    "OnlineBaggingClassifier",
    "OnlineBoostingClassifier",
    "OnlineMBBMClassifier",
]
