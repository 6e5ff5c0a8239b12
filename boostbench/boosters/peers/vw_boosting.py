"""Vowpal Wabbit's online boosting as a runner algorithm (``vw_boosting``): the binary boosters the
seed paper generalizes, OnlineBBM and AdaBoost.OL (Beygelzimer, Kale & Luo, "Optimal and
Adaptive Algorithms for Online Boosting", ICML 2015), as VW ships them (``--boosting N --alg
BBM|adaptive|logistic``; PyPI ``vowpalwabbit``, the optional extra ``boostbench[vw]``).

What differs from our boosters: VW's weak learners are N linear learners (VW's default online
gradient descent over hashed features), not Hoeffding trees; and it is binary only.
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from boostbench.boosters.base import OnlineBooster
from boostbench.constraints import Constraint, OneOf

#: ``algorithm.alg`` -> VW's ``--alg``: OnlineBBM (Algorithm 1 of the paper), AdaBoost.OL
#: (Algorithm 2, adaptive) and its variant on the logistic loss
ALGS = {"bbm": "BBM", "adaptive": "adaptive", "logistic": "logistic"}


def vw_features(x: np.ndarray, n_categories) -> str:
    """One example's features in VW's text format (one namespace, no label): numeric attribute j
    as ``j:value``, nominal attribute j with code c as the indicator ``j=c``; a missing value
    (NaN) is left out, as VW reads an absent feature.
    """
    parts = []
    for j, (value, m) in enumerate(zip(x.tolist(), n_categories)):
        if value != value:
            continue
        parts.append(f"{j}={int(value)}" if m > 0 else f"{j}:{value!r}")
    return "| " + " ".join(parts)


class VWBoosting(OnlineBooster):
    """VW's online boosting of N linear learners (a peer: no pool; binary labels 0/1 as VW's -1/+1).

    ``predict`` is the sign of VW's score (its weighted vote of the learners) as VW's own 0/1
    scoring reads it (``--binary``: a score > 0 is +1, else -1), so a score of exactly 0 (before
    any learning) predicts class 0, no draw. ``predict_proba`` is the one-hot of the sign (VW's
    boosting gives a vote, not a probability; ``[0.5, 0.5]`` when the score is 0).

    Args:
        pool: None (VW has its own learners).
        n_classes: k; must be 2.
        rng: the generator VW's ``--random_seed`` comes from.
        alg: a key of :data:`ALGS`.
        n_learners: N, VW's ``--boosting N``.
        n_categories: ``(d,)`` category counts (0 = numeric): how each attribute is written to VW.

    Raises:
        ValueError: k != 2, an unknown ``alg``, or vowpalwabbit not installed.
    """

    _parameter_constraints: ClassVar[dict[str, Constraint]] = {"alg": OneOf(tuple(ALGS))}

    def __init__(self, pool, n_classes, rng, *, alg: str = "bbm", n_learners: int, n_categories):
        super().__init__(pool, n_classes, rng)
        if n_classes != 2:
            raise ValueError(f"vw_boosting is binary (VW's --boosting), the data set has {n_classes} classes")
        self._validate_params(alg=alg)
        try:
            from vowpalwabbit import Workspace
        except ImportError:
            raise ValueError("vw_boosting needs Vowpal Wabbit: pip install vowpalwabbit (or boostbench[vw])") from None
        self.alg = alg
        self.n_categories = [int(m) for m in n_categories]
        seed = int(rng.integers(2**31))
        self._vw = Workspace(f"--boosting {int(n_learners)} --alg {ALGS[alg]} --random_seed {seed} --quiet")
        self._features = ""

    def _score(self, x: np.ndarray) -> float:
        self._features = vw_features(x, self.n_categories)
        return float(self._vw.predict(self._features))

    def predict_proba(self, x: np.ndarray) -> np.ndarray:
        """``(2,)``: the one-hot of the sign of VW's score (``[0.5, 0.5]`` when it is 0)."""
        score = self._score(x)
        return np.array([0.5, 0.5]) if score == 0.0 else np.array([float(score < 0), float(score > 0)])

    def predict(self, x: np.ndarray) -> int:
        score = self._score(x)
        return int(score > 0)  # VW's --binary: 0 (and NaN) is -1, our class 0

    def update(self, y: int) -> None:
        self._vw.learn(f"{1 if y == 1 else -1} {self._features}")

    def close(self) -> None:
        """Free VW's workspace (also when the booster is collected)."""
        vw = self.__dict__.pop("_vw", None)
        if vw is not None:
            vw.finish()

    def __del__(self) -> None:
        self.close()

    def __getstate__(self):
        raise TypeError("a VW peer's workspace does not pickle")
