"""Oza's online boosting with ADWIN's error estimates: an example plugin for boostbench."""

from oza_adwin.booster import OzaADWIN

__all__ = ["OzaADWIN"]
