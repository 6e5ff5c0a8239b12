"""Evaluation protocols: how examples are presented to a booster and scored."""

from boostbench.protocols.prequential import PrequentialResult, prequential

__all__ = ["PrequentialResult", "prequential"]
