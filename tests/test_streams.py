"""The stream papers' streams and measures (the leaderboard: tests/test_leaderboard.py).

- river's bundled real sets load without a network; the generated streams keep their order
  whatever the protocol says, and a non-adaptive learner's windowed accuracy falls after the drift;
- a generated stream is drawn once, then read from the cache (a scrambled file is drawn again);
- kappa-M and kappa-T as MOA counts them (hand-computed values; the windowed majority class
  against brute force; tests/test_moa_measures.py compares them with MOA's own evaluators);
- a run's peak RSS after memory an earlier job freed reads as the run before it.
"""

from __future__ import annotations

import socket

import numpy as np
import pytest

from boostbench.data import load_dataset
from boostbench.metrics import classification_metrics, kappa_against, majority_predictions, no_change_predictions
from boostbench.runner.config import compose_config


def test_river_bundled_sets_load_without_network(monkeypatch):
    def refuse(*args, **kwargs):
        raise OSError("no network in this test")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    shapes = {
        "bananas": (5300, 2, 2),
        "phishing": (1250, 9, 2),
        "image_segments": (2310, 18, 7),
        "shuttle": (49097, 9, 2),
    }
    for name, (n, d, k) in shapes.items():
        data = load_dataset(compose_config([f"dataset={name}"]).dataset)
        assert data.X.shape == (n, d) and data.n_classes == k and not np.isnan(data.X).any(), name
    segments = load_dataset(compose_config(["dataset=image_segments"]).dataset)
    assert set(segments.class_names) == {"brickface", "cement", "foliage", "grass", "path", "sky", "window"}


@pytest.mark.parametrize(
    "name",
    [
        "sea_drift",
        "sea_gradual",
        "agrawal_abrupt",
        "agrawal_drift",
        "rbf_drift",
        "hyperplane",
        "led_drift",
        "random_tree",
    ],
)
def test_a_generated_stream_is_never_shuffled_and_each_seed_draws_its_own(name):
    cfg = compose_config(
        [f"dataset={name}", "protocol.shuffle=true", "protocol.shuffle_seed=357", "dataset.n_examples=4000"]
    )
    assert cfg.protocol.shuffle is False and cfg.protocol.shuffle_seed is None  # what the record says
    seed0, again, seed1 = (load_dataset(cfg.dataset, seed=s) for s in (0, 0, 1))
    assert np.array_equal(seed0.X, again.X) and not np.array_equal(seed0.X, seed1.X)
    assert compose_config(["dataset=car"]).protocol.shuffle is True  # a table's data set keeps its shuffle


def test_a_generated_stream_is_drawn_once_then_read_from_the_cache(monkeypatch, tmp_path, capsys):
    from boostbench.data import drift

    monkeypatch.setenv("BOOSTBENCH_CACHE", str(tmp_path))
    spec = compose_config(["dataset=led_drift", "dataset.n_examples=3000"]).dataset  # nominal features
    drawn = load_dataset(spec, seed=4)
    files = sorted((tmp_path / "streams").glob("*.npz"))
    assert len(files) == 1

    def no_draw(*args):
        raise AssertionError("drawn again")

    with monkeypatch.context() as patch:
        patch.setattr(drift, "_to_dataset", no_draw)
        cached = load_dataset(spec, seed=4)
    assert np.array_equal(cached.X, drawn.X) and np.array_equal(cached.y, drawn.y)
    assert np.array_equal(cached.nominal, drawn.nominal) and cached.nominal.any()
    assert (cached.name, cached.feature_names, cached.categories, cached.class_names) == (
        drawn.name,
        drawn.feature_names,
        drawn.categories,
        drawn.class_names,
    )
    # another seed or length is another stream, in a file of its own
    load_dataset(spec, seed=5)
    load_dataset(compose_config(["dataset=led_drift", "dataset.n_examples=2000"]).dataset, seed=4)
    assert len(list((tmp_path / "streams").glob("*.npz"))) == 3
    # a file scrambled on a shared disk is drawn again, with a warning, never used
    data = bytearray(files[0].read_bytes())
    data[len(data) // 2] ^= 0xFF
    files[0].write_bytes(bytes(data))
    again = load_dataset(spec, seed=4)
    assert np.array_equal(again.X, drawn.X) and "not used, recomputed" in capsys.readouterr().err
    assert load_arrays_ok(files[0])


def load_arrays_ok(path):
    """Whether ``path`` is a stream-cache file that passes its checks again (the redraw replaced it)."""
    from boostbench.system.disk_cache import load_arrays

    with np.load(path, allow_pickle=False) as data:
        key = str(data["__key__"])
    return load_arrays(path, key) is not None


def test_a_non_adaptive_learner_loses_accuracy_after_the_abrupt_drift():
    """One Hoeffding tree on SEA (function 0 then 3 at example 10,000): the windowed accuracy over
    the 1,000 examples after the switch falls below that of the 1,000 before it, and recovers
    as the tree grows on the new concept (in a shuffled stream the two concepts would mix)."""
    from boostbench.runner.experiment import run_experiment

    cfg = compose_config(
        [
            "dataset=sea_drift",
            "dataset.n_examples=20000",
            "algorithm=vfdt",
            "learner.backend=river",
            "protocol.curve_points=21",
            "progress=false",
        ]
    )  # checkpoints every 1,000 examples
    curve = run_experiment(cfg)["curve"]
    windowed = dict(zip(curve["examples_seen"], curve["windowed_accuracy"]))
    before, after = windowed[10000], windowed[11000]
    assert before > 0.8 and after < before - 0.05
    assert windowed[20000] > after  # the tree learns the new concept, slowly


def test_kappa_m_and_kappa_t_by_hand():
    truth = np.array([0, 0, 1, 1, 1, 2])
    predicted = np.array([0, 0, 1, 1, 1, 1])  # p0 = 5/6
    # MOA's majority class counts the example's own label (the lowest class on ties): after 0;
    # 0 0; 0 0 1; 0 0 1 1 (a tie); 0 0 1 1 1; 0 0 1 1 1 2 -> 0, 0, 0, 0, 1, 1: right 3 of 6
    assert list(majority_predictions(truth, 3)) == [0, 0, 0, 0, 1, 1]
    # no change: the previous label (0 first): 0, 0, 0, 1, 1, 1 -> right 4 of 6
    assert list(no_change_predictions(truth)) == [0, 0, 0, 1, 1, 1]
    m = classification_metrics(truth, predicted, 3, final_start=0)
    assert m["cumulative_kappa_m"] == pytest.approx((5 / 6 - 3 / 6) / (1 - 3 / 6))
    assert m["cumulative_kappa_t"] == pytest.approx((5 / 6 - 4 / 6) / (1 - 4 / 6))
    assert m["final_kappa_m"] == m["cumulative_kappa_m"]
    # the final window (the last 3): p0 = 2/3; the majority over the whole prefix: right 1 of 3
    tail = classification_metrics(truth, predicted, 3, final_start=3)
    assert tail["final_kappa_m"] == pytest.approx((2 / 3 - 1 / 3) / (1 - 1 / 3))
    assert kappa_against(truth, predicted, truth) is None  # a perfect baseline: undefined


@pytest.mark.parametrize("window", [None, 1, 7, 500])
def test_the_majority_class_over_a_window_is_the_most_frequent_label_up_to_each_example(window):
    rng = np.random.default_rng(3)
    truth = rng.choice(4, size=3000, p=[0.4, 0.3, 0.2, 0.1])
    expected = [
        np.bincount(truth[: t + 1] if window is None else truth[max(0, t + 1 - window) : t + 1], minlength=4).argmax()
        for t in range(len(truth))
    ]
    assert np.array_equal(majority_predictions(truth, 4, window), expected)


def test_a_run_after_freed_memory_reads_the_peak_of_the_run_before_it():
    """An earlier job's small allocations, freed, stay resident in glibc's heap; the run's peak
    must not count them (the reset releases them first)."""
    from boostbench.runner.experiment import run_experiment
    from boostbench.system.resources import reset_peak_rss

    if not reset_peak_rss():
        pytest.skip("no /proc/self/clear_refs here: the peak is the process's")
    cfg = compose_config(["dataset=balance", "algorithm=vfdt", "progress=false"])
    run_experiment(cfg)  # the imports and kernels a first run loads stay; they are not the point
    first = run_experiment(cfg)["metrics"]["peak_rss_bytes"]
    chunks = [bytes(1024) + bytes([i % 256]) for i in range(400_000)]  # about 400 MB in malloc's heap
    keep = chunks[-1]  # one live object at the heap's top: a plain free() cannot shrink the heap
    del chunks
    again = run_experiment(cfg)["metrics"]["peak_rss_bytes"]
    assert len(keep) == 1025
    assert abs(again - first) < 0.15 * first, (first / 2**20, again / 2**20)


def test_the_stream_benchmark_resizes_its_streams_in_a_sweep(tmp_path):
    """`dataset.n_examples=` in a sweep over streams (Hydra composes the sweep's default data set
    with it first: a vendored set, which has no n_examples, refused it)."""
    from boostbench.reporting.records import load_runs
    from boostbench.runner.sweep import run_sweep, summarize

    grid = [
        "+experiment=stream_benchmark",
        "dataset=sea_drift,hyperplane",
        "dataset.n_examples=300",
        "algorithm=vfdt",
        "learner=hoeffding_tree",  # the papers' trees only (the benchmark also runs the peers')
        "learner.backend=river",
        "seed=0",
        f"results_dir={tmp_path}",
    ]
    assert summarize(run_sweep(grid, n_jobs=1)) == {"done": 2}
    runs = load_runs(tmp_path)
    assert sorted(runs["dataset"]) == ["hyperplane", "sea_drift"] and set(runs["n_examples"]) == {300}
