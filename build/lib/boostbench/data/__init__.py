"""Data sets: registry of Hydra configs, loaders (CSV, ARFF, OpenML), encoding, seeded stream."""

from boostbench.data.dataset import Dataset
from boostbench.data.registry import available_datasets, load_dataset
from boostbench.data.stream import stream_order

__all__ = ["Dataset", "available_datasets", "load_dataset", "stream_order"]
