"""MULAN multi-label data: ARFF train/test files plus the XML file that names the labels.

Label columns are found by name from the XML file (they need not be last, and the XML order
need not be the ARFF order); the label order of the data set is the XML order. MULAN's own
train/test split is kept: the training rows come first, ``n_train`` of them.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pandas as pd

from boostbench.data.dataset import MultilabelDataset
from boostbench.data.encoding import encode_features
from boostbench.data.loaders import RawTable, read_arff_table
from boostbench.errors import DataError


def read_label_names(path: Path) -> list[str]:
    """The label names of a MULAN XML file, in file order.

    Raises:
        DataError: missing file, XML syntax error (line named), or no labels.
    """
    if not path.is_file():
        raise DataError(f"{path}: file not found")
    try:
        root = ET.parse(path).getroot()
    except ET.ParseError as exc:
        raise DataError(f"{path}: malformed XML: {exc}") from None
    names = [element.get("name") for element in root.iter() if element.tag.endswith("label")]
    names = [name for name in names if name]
    if not names:
        raise DataError(f"{path}: no <label name=...> elements")
    return names


def _label_matrix(raw: RawTable, labels: list[str]) -> np.ndarray:
    missing = [name for name in labels if name not in raw.frame.columns]
    if missing:
        raise DataError(
            f"{raw.source}: label attribute(s) {missing[:5]} named in the XML file are not in the ARFF file"
        )
    Y = np.zeros((len(raw.frame), len(labels)), dtype=bool)
    for j, name in enumerate(labels):
        values = raw.frame[name].astype(str).str.strip()
        bad = ~values.isin(["0", "1"])
        if bad.any():
            row = int(np.flatnonzero(bad.to_numpy())[0])
            raise DataError(
                f"{raw.source}: row {row + 1}, label {name!r}: value {raw.frame[name].iloc[row]!r} is not 0 or 1"
            )
        Y[:, j] = (values == "1").to_numpy()
    return Y


def load_mulan(name: str, train: Path, test: Path, xml: Path) -> MultilabelDataset:
    """Read MULAN's train and test ARFF files and the label XML.

    Raises:
        DataError: a file is missing or malformed, a label named in the XML is absent, a label
            cell is not 0/1, or the two files have different attributes.
    """
    labels = read_label_names(xml)
    parts = [read_arff_table(train), read_arff_table(test)]
    if list(parts[0].frame.columns) != list(parts[1].frame.columns):
        raise DataError(f"{train} and {test} do not have the same attributes")
    features = [c for c in parts[0].frame.columns if c not in set(labels)]
    frame = pd.concat([p.frame for p in parts], ignore_index=True)
    raw = RawTable(
        frame=frame,
        lines=np.zeros(len(frame), dtype=np.int64),
        source=f"{train} + {test}",
        categories=parts[0].categories,
    )
    Y = np.vstack([_label_matrix(part, labels) for part in parts])
    X, nominal, categories = encode_features(raw, features, np.arange(len(frame)), "auto", ["?"])
    return MultilabelDataset(
        name=name,
        X=X,
        Y=Y,
        feature_names=tuple(features),
        nominal=nominal,
        categories=categories,
        label_names=tuple(labels),
        n_train=len(parts[0].frame),
    )
