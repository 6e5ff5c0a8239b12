"""Data registry, loaders and encoding on the vendored UCI files and on bad files."""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from omegaconf import OmegaConf

from boostbench.data import available_datasets, load_dataset, stream_order
from boostbench.data.registry import registry_specs
from boostbench.errors import ConfigError, DataError

SPECS = registry_specs()


@pytest.mark.parametrize(
    "name,n,d,counts,n_nominal,n_missing",
    [
        ("balance", 625, 4, [288, 49, 288], 0, 0),
        ("car", 1728, 6, [1210, 384, 69, 65], 6, 0),
        ("nursery", 12958, 8, [4320, 4266, 4044, 328], 8, 0),
        ("mushroom", 8124, 22, [4208, 3916], 22, 2480),
        ("mice", 1080, 77, [150, 150, 135, 135, 135, 135, 105, 135], 0, 1396),
    ],
)
def test_vendored_datasets_match_the_manifest(name, n, d, counts, n_nominal, n_missing):
    data = load_dataset(SPECS[name])
    assert data.X.shape == (n, d) and data.X.dtype == np.float64
    assert data.y.dtype == np.int64
    assert np.bincount(data.y).tolist() == counts
    assert int(data.nominal.sum()) == n_nominal
    assert int(np.isnan(data.X).sum()) == n_missing
    for j in data.nominal_indices:  # nominal codes index the category names
        codes = data.X[:, j][~np.isnan(data.X[:, j])]
        assert codes.min() >= 0 and codes.max() < len(data.categories[j])


def test_mice_features_are_the_77_proteins():
    data = load_dataset(SPECS["mice"])
    assert not {"MouseID", "Genotype", "Treatment", "Behavior", "class"} & set(data.feature_names)
    assert data.feature_names[0] == "DYRK1A_N"


def test_registry_lists_what_is_available():
    infos = {info.name: info for info in available_datasets()}
    assert infos["car"].location is not None
    assert infos["isolet"].location is None and infos["isolet"].openml_id == 300


def test_balance_source_rows_restore_the_uci_order():
    # UCI's file enumerates the 5^4 weight/distance combinations in order (MANIFEST); the
    # vendored copy has one row moved, which the data set's moved_rows puts back
    from itertools import product

    from boostbench.data.stream import source_rows

    data = load_dataset(SPECS["balance"])
    rows = source_rows(data.n_examples, SPECS["balance"].moved_rows)
    assert data.X[rows].tolist() == [list(map(float, combination)) for combination in product(range(1, 6), repeat=4)]
    assert not np.array_equal(rows, np.arange(data.n_examples))
    with pytest.raises(ValueError, match="outside"):
        source_rows(5, [[5, 0]])


def test_a_fixed_shuffle_is_the_authors_numpy_permutation_for_every_run_seed():
    rows = np.array([[f"r{i}", str(i)] for i in range(40)])  # the authors shuffle rows of strings
    np.random.seed(357)
    authors = np.random.permutation(rows)
    source = np.roll(np.arange(40), 3)
    for seed in (0, 1):
        order = stream_order(40, np.random.default_rng(seed), True, shuffle_seed=357, rows=source)
        assert order.tolist() == [source[int(r[1])] for r in authors]
    assert stream_order(40, np.random.default_rng(0), False, shuffle_seed=None).tolist() == list(range(40))


def test_stream_is_a_seeded_permutation():
    a = stream_order(50, np.random.default_rng(3))
    b = stream_order(50, np.random.default_rng(3))
    assert np.array_equal(a, b) and sorted(a.tolist()) == list(range(50))
    assert not np.array_equal(a, stream_order(50, np.random.default_rng(4)))


def custom(path: Path, **extra):
    spec = OmegaConf.merge(SPECS["csv"], {"file": str(path), "class_column": "label"}, extra)
    return load_dataset(spec)


def test_user_csv_with_nominal_detection(tmp_path):
    path = tmp_path / "mine.csv"
    path.write_text("colour,size,label\nred,1.5,yes\nblue,?,no\nred,2.0,no\n")
    data = custom(path)
    assert data.feature_names == ("colour", "size")
    assert data.nominal.tolist() == [True, False]
    assert data.class_names == ("no", "yes") and data.y.tolist() == [1, 0, 0]
    assert np.isnan(data.X[1, 1]) and data.categories[0] == ("blue", "red")


def test_user_arff(tmp_path):
    path = tmp_path / "mine.arff"
    path.write_text(
        "@relation t\n@attribute a numeric\n@attribute b {x,y,z}\n@attribute label {p,q}\n"
        "@data\n1.0,x,p\n2.0,z,q\n?,y,q\n"
    )
    data = custom(path)
    assert data.nominal.tolist() == [False, True]
    assert data.categories[1] == ("x", "y", "z")
    assert data.X[1, 1] == 2.0 and np.isnan(data.X[2, 0])


@pytest.mark.parametrize(
    "content,match",
    [
        ("a,b,label\n1,2,x\n3,4\n5,6,y\n", r"line 3: 2 fields, expected 3"),
        ("a,b,label\n1,2,x\n3,4,y,9\n", r"line 3"),
        ("a,b,label\n1,2,x\n3,oops,y\n", r"line 3, column 'b': value 'oops' is not a number"),
        ("a,b,label\n1,2,x\n3,4,x\n", r"has 1 class"),
    ],
)
def test_malformed_files_name_the_problem(tmp_path, content, match):
    path = tmp_path / "bad.csv"
    path.write_text(content)
    with pytest.raises(DataError, match=match):
        custom(path, nominal=["a"] if "oops" not in content else [])


def test_missing_class_column(tmp_path):
    path = tmp_path / "d.csv"
    path.write_text("a,b\n1,2\n")
    with pytest.raises(DataError, match="class column 'label' does not exist"):
        custom(path)


def test_missing_file_and_sha_mismatch(tmp_path):
    with pytest.raises(DataError, match="file not found"):
        custom(tmp_path / "nope.csv")
    spec = OmegaConf.merge(SPECS["car"], {"sha256": "0" * 64})
    with pytest.raises(DataError, match="sha256 does not match"):
        load_dataset(spec)


def test_unavailable_dataset_says_why(monkeypatch, tmp_path):
    import openml

    def offline(*args, **kwargs):
        raise ConnectionError("no network")

    monkeypatch.setattr(openml.datasets, "get_dataset", offline)
    with pytest.raises(DataError, match=r"'isolet' is not available here.*OpenML data set 300"):
        load_dataset(SPECS["isolet"], data_dir=str(tmp_path))


def test_template_needs_a_file():
    with pytest.raises(ConfigError, match=r"dataset.file"):
        load_dataset(SPECS["csv"])


class _FakeOpenMLDataset:
    default_target_attribute = "kind"

    def get_data(self, dataset_format):
        frame = pd.DataFrame({"a": [0.1, 0.5, 0.9, 0.3], "kind": pd.Categorical(["x", "y", "x", "y"])})
        return frame, None, [False, True], ["a", "kind"]


def test_openml_uses_its_own_cache_and_default_target(monkeypatch):
    import openml

    from boostbench.data import loaders

    before = openml.config.get_cache_directory()
    monkeypatch.setattr(loaders, "openml_cached", lambda openml_id: True)  # no network asked for
    monkeypatch.setattr(openml.datasets, "get_dataset", lambda *a, **k: _FakeOpenMLDataset())
    spec = OmegaConf.create({"name": "fake", "openml_id": 12345, "file": None, "nominal": "auto"})
    data = load_dataset(spec)
    assert list(data.class_names) == ["x", "y"] and data.n_features == 1  # OpenML's default target, not a feature
    assert openml.config.get_cache_directory() == before  # the user's openml setting is untouched


def test_openml_offline_fails_fast_with_the_whole_reason(monkeypatch):
    import openml

    from boostbench.data import loaders

    def never(*args, **kwargs):
        raise AssertionError("openml's retries must not be reached offline")

    monkeypatch.setattr(loaders, "openml_cached", lambda openml_id: False)
    monkeypatch.setattr(loaders, "_reachable", lambda url: "www.openml.org unreachable: no route")
    monkeypatch.setattr(openml.datasets, "get_dataset", never)
    with pytest.raises(
        DataError,
        match=r"OpenML data set 300 is not in openml's cache \(.*\) and cannot be "
        r"downloaded: www.openml.org unreachable: no route$",
    ):
        load_dataset(SPECS["isolet"])


def test_drift_streams_are_seeded_and_switch_concept_where_configured():
    from boostbench.runner.config import compose_config

    cfg = compose_config(["dataset=sea_drift", "dataset.n_examples=6000", "dataset.position=3000", "dataset.width=200"])
    data = load_dataset(cfg.dataset)
    again = load_dataset(cfg.dataset)
    assert data.X.shape == (6000, 3) and np.array_equal(data.X, again.X) and np.array_equal(data.y, again.y)
    positive = data.y == list(data.class_names).index("True")
    # SEA: label = x1 + x2 > theta, theta 8 (function 0) then 9.5 (function 3), 10% noise
    s = data.X[:, 0] + data.X[:, 1]

    def agree(part, theta):
        return float(np.mean(positive[part] == (s[part] > theta)))

    before, after = slice(0, 2500), slice(3500, 6000)
    assert agree(before, 8.0) > 0.85 and agree(before, 8.0) > agree(before, 9.5) + 0.05
    assert agree(after, 9.5) > 0.85 and agree(after, 9.5) > agree(after, 8.0) + 0.05
    agrawal = load_dataset(
        compose_config(
            ["dataset=agrawal_drift", "dataset.n_examples=500", "dataset.position=250", "dataset.width=200"]
        ).dataset
    )
    named = dict(zip(agrawal.feature_names, agrawal.nominal))
    assert named["car"] and named["zipcode"] and not named["salary"]


def test_drift_streams_refuse_what_river_cannot_draw():
    from boostbench.runner.config import compose_config

    with pytest.raises(ConfigError, match=r"dataset.width at least 286"):
        load_dataset(compose_config(["dataset=sea_drift", "dataset.width=5"]).dataset)
    with pytest.raises(ConfigError, match="unknown river generator 'SEAA'"):
        load_dataset(compose_config(["dataset=sea_drift", "dataset.stream.name=SEAA"]).dataset)
