"""The batch boosting family: agreement with scikit-learn, the papers' invariants and bounds."""

import itertools

import numpy as np
import pytest
from sklearn.ensemble import AdaBoostClassifier
from sklearn.tree import DecisionTreeClassifier
from typer.testing import CliRunner

from boostbench.algorithms import ALGORITHMS
from boostbench.batch import (
    SAMME,
    AdaBoost,
    AdaBoostM1,
    AdaBoostM2,
    AdaBoostMH,
    AdaBoostMM,
    OneVsAll,
    TreeParams,
)
from boostbench.batch.adaboost_mm import mm_cost_matrix
from boostbench.cli import app
from boostbench.core.hedge import Hedge, hedge_loss_bound, hedge_run
from boostbench.errors import ConfigError
from boostbench.learners.batch_trees import fit_gain_tree, leaf_values
from boostbench.protocols import holdout_split, kfold_splits
from boostbench.runner.config import compose_config
from boostbench.runner.experiment import run_experiment

BATCH_ALGORITHMS = {name: spec.cls for name, spec in ALGORITHMS.items() if spec.family == "batch"}


def gaussian_blobs(n=240, d=4, k=3, seed=0, spread=1.2):
    """Continuous data (no tied split thresholds, so any tree random_state gives the same tree)."""
    rng = np.random.default_rng(seed)
    y = rng.integers(k, size=n)
    centres = rng.normal(scale=spread, size=(k, d))
    return centres[y] + rng.normal(size=(n, d)), y.astype(np.int64)


class SklearnTreeSeeds:
    """Hands our trees the random states scikit-learn's AdaBoost gives its trees (ties between
    equally good splits are broken by them)."""

    def __init__(self, seed):
        self.state = np.random.RandomState(seed)

    def integers(self, high):
        return self.state.randint(high)


@pytest.mark.parametrize("k,depth", [(3, 1), (4, 2), (2, 1), (5, 3)])
def test_samme_matches_sklearn_adaboost_prediction_for_prediction(k, depth):
    X, y = gaussian_blobs(k=k, seed=k)
    ours = SAMME(k, 25, TreeParams(max_depth=depth), SklearnTreeSeeds(0)).fit(X, y)
    theirs = AdaBoostClassifier(DecisionTreeClassifier(max_depth=depth), n_estimators=25, random_state=0).fit(X, y)
    Xt, _ = gaussian_blobs(n=300, k=k, seed=k + 10)
    assert ours.n_rounds_fitted == len(theirs.estimators_)
    np.testing.assert_allclose(ours.alphas_, theirs.estimator_weights_[: ours.n_rounds_fitted], rtol=1e-10)
    staged_theirs = np.array(list(theirs.staged_predict(Xt)))
    assert np.array_equal(ours.staged_predict(Xt, len(staged_theirs)), staged_theirs)


@pytest.mark.parametrize("beta", [0.1, 0.5, 0.9])
@pytest.mark.parametrize("n_experts", [2, 10])
def test_hedge_loss_bound_holds_against_an_adversary(beta, n_experts):
    rng = np.random.default_rng(n_experts)
    T = 400
    hedge = Hedge.from_beta(n_experts, beta)
    losses, incurred = np.zeros((T, n_experts)), 0.0
    for t in range(T):
        p = hedge.probabilities()
        row = rng.uniform(0, 0.3, n_experts)
        row[np.argmax(p)] = 1.0  # the adversary hits Hedge's favourite
        incurred += p @ row
        hedge.update(row)
        losses[t] = row
    assert incurred <= hedge_loss_bound(losses, beta) + 1e-9
    assert incurred == pytest.approx(hedge_run(losses, beta).sum())
    # Hedge's weights are beta ** (cumulative loss), normalised
    w = beta ** losses.sum(axis=0)
    np.testing.assert_allclose(hedge.probabilities(), w / w.sum(), rtol=1e-9)


def test_hedge_rejects_beta_outside_the_unit_interval():
    for beta in (0.0, 1.0, 1.5):
        with pytest.raises(ValueError, match="beta"):
            Hedge.from_beta(3, beta)


def test_mm_cost_matrix_rows_sum_to_zero_with_minimum_at_the_true_label():
    rng = np.random.default_rng(1)
    f = rng.normal(scale=3.0, size=(50, 5))
    y = rng.integers(5, size=50)
    for shift in (0.0, 7.5):
        C = mm_cost_matrix(f, y, shift)
        np.testing.assert_allclose(C.sum(axis=1), 0.0, atol=1e-9)
        assert np.all(C.argmin(axis=1) == y)
        off = C.copy()
        off[np.arange(50), y] = np.inf
        assert np.all(off.min(axis=1) > 0)
    np.testing.assert_allclose(mm_cost_matrix(f, y, 2.0), mm_cost_matrix(f, y) * np.exp(-2.0))


def test_adaboost_mm_loss_falls_by_sqrt_one_minus_edge_squared():
    X, y = gaussian_blobs(k=4, seed=3)
    mm = AdaBoostMM(4, 30, TreeParams(max_depth=2), np.random.default_rng(0)).fit(X, y)
    assert mm.n_rounds_fitted == 30 and np.all(mm.round_stats_ > 0)
    F = mm.staged_scores(X)
    rows = np.arange(len(y))
    loss = [np.exp(Ft - Ft[rows, y][:, None]).sum() - len(y) for Ft in F]  # sum over l != y_i
    bound = len(y) * 3 * np.cumprod(np.sqrt(1 - mm.round_stats_**2))
    assert np.all(np.array(loss) <= bound * (1 + 1e-9))


def test_adaboost_m1_stops_when_the_weighted_error_exceeds_one_half():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(400, 3))
    y = rng.integers(4, size=400)  # labels independent of X: a stump errs ~3/4
    m1 = AdaBoostM1(4, 50, TreeParams(), np.random.default_rng(0)).fit(X, y)
    assert m1.n_rounds_fitted == 0 and m1.stopped_error_ > 0.5
    assert np.all(m1.predict(X) == np.bincount(y).argmax())
    X, y = gaussian_blobs(k=5, seed=5, spread=0.8)
    m1 = AdaBoostM1(5, 50, TreeParams(max_depth=2), np.random.default_rng(0)).fit(X, y)
    assert 0 < m1.n_rounds_fitted < 50 and m1.stopped_error_ >= 0.5
    assert np.all(m1.round_stats_ < 0.5)
    for t in range(m1.n_rounds_fitted):  # kept errors are the errors under D_t
        wrong = m1._hypotheses[t].predict(X) != y
        assert m1.weight_history_[t][wrong].sum() == pytest.approx(m1.round_stats_[t])


def test_adaboost_training_error_bound():
    X, y = gaussian_blobs(k=2, seed=7, spread=0.7)
    ada = AdaBoost(2, 40, TreeParams(), np.random.default_rng(0)).fit(X, y)
    eps = ada.round_stats_
    bound = np.cumprod(2 * np.sqrt(eps * (1 - eps)))
    train_error = (ada.staged_predict(X, ada.n_rounds_fitted) != y).mean(axis=1)
    assert np.all(train_error <= bound + 1e-12)
    with pytest.raises(ValueError, match="binary"):
        AdaBoost(3, 10)


def test_adaboost_m2_pseudo_loss_matches_its_definition_and_the_error_bound():
    X, y = gaussian_blobs(k=4, seed=4)
    m2 = AdaBoostM2(4, 40, TreeParams(max_depth=2), np.random.default_rng(0)).fit(X, y)
    eps = m2.round_stats_
    assert np.all((eps > 0) & (eps < 0.5))
    # recompute round 1's pseudo-loss from the definition: D uniform, q uniform over mislabels
    q = np.full((len(y), 4), 1 / 3)
    q[np.arange(len(y)), y] = 0.0
    assert m2.pseudo_loss(m2._hypotheses[0], X, y, np.full(len(y), 1 / len(y)), q) == pytest.approx(eps[0])
    bound = 3 * np.cumprod(2 * np.sqrt(eps * (1 - eps)))
    train_error = (m2.staged_predict(X, m2.n_rounds_fitted) != y).mean(axis=1)
    assert np.all(train_error <= bound + 1e-12)


def test_gain_tree_leaves_are_exact_maximisers():
    rng = np.random.default_rng(0)
    sums = rng.normal(size=(6, 3))
    for rule, values in (("positive", (0.0, 1.0)), ("sign", (-1.0, 1.0))):
        best = leaf_values(sums, rule)
        for row, s in zip(best, sums):
            brute = max(itertools.product(values, repeat=3), key=lambda h: float(np.dot(s, h)))
            assert np.dot(s, row) == pytest.approx(np.dot(s, brute))
    X, y = gaussian_blobs(k=3)
    gain = rng.normal(size=(len(y), 3))
    tree = fit_gain_tree(X, gain, TreeParams(max_depth=2), np.random.default_rng(0), "argmax")
    chosen = tree.predict_values(X)
    assert np.all(chosen.sum(axis=1) == 1.0)
    leaves = tree.tree.apply(X)
    for leaf in np.unique(leaves):  # each leaf picks its label of largest summed gain
        assert chosen[leaves == leaf][0].argmax() == gain[leaves == leaf].sum(axis=0).argmax()


@pytest.mark.parametrize("name", sorted(set(BATCH_ALGORITHMS) - {"adaboost", "base"}))
def test_staged_predictions_equal_a_refit_with_fewer_rounds(name):
    X, y = gaussian_blobs(k=3, seed=11)
    cls = BATCH_ALGORITHMS[name]
    full = cls(3, 12, TreeParams(max_depth=2), np.random.default_rng(5)).fit(X, y)
    short = cls(3, 5, TreeParams(max_depth=2), np.random.default_rng(5)).fit(X, y)
    assert np.array_equal(full.staged_predict(X)[4], short.predict(X))
    assert np.array_equal(full.staged_predict(X)[-1], full.predict(X))
    W = full.weight_history_
    assert W.shape == (full.n_rounds_fitted, len(y)) and np.allclose(W.sum(axis=1), 1.0)


def test_boosters_fit_the_training_set_with_enough_rounds():
    X, y = gaussian_blobs(k=3, seed=12, spread=2.0)
    for cls in (SAMME, AdaBoostMH, AdaBoostMM, AdaBoostM2, OneVsAll):
        booster = cls(3, 150, TreeParams(max_depth=3), np.random.default_rng(0)).fit(X, y)
        assert (booster.predict(X) != y).mean() < 0.05, cls.name


def test_kfold_splits_partition_and_stratify_deterministically():
    y = np.repeat(np.arange(3), [50, 30, 20])
    splits = kfold_splits(y, 5, np.random.default_rng(0))
    tests = np.concatenate([test for _, test in splits])
    assert np.array_equal(np.sort(tests), np.arange(100))
    for train, test in splits:
        assert np.array_equal(np.bincount(y[test]), [10, 6, 4]) and not set(train) & set(test)
    again = kfold_splits(y, 5, np.random.default_rng(0))
    assert all(np.array_equal(a[1], b[1]) for a, b in zip(splits, again))
    with pytest.raises(ConfigError, match="smallest class"):
        kfold_splits(y, 25, np.random.default_rng(0))
    ((train, test),) = holdout_split(y, 0.2, np.random.default_rng(0))
    assert len(test) == 20 and np.array_equal(np.bincount(y[test]), [10, 6, 4])


def test_kfold_run_record_has_staged_curves(tmp_path):
    cfg = compose_config(["protocol=kfold", "dataset=heart", "algorithm=adaboost_m2", "n_rounds=7"])
    record = run_experiment(cfg)
    m, curve = record["metrics"], record["curve"]
    assert m["n_folds"] == 5 and len(m["fold_test_error"]) == 5 and m["n_examples"] == 4 * 303
    assert curve["rounds"] == list(range(1, 8)) and curve["test_error"][-1] == pytest.approx(m["test_error"])
    assert m["test_accuracy"] == pytest.approx(1 - m["test_error"]) and 0.25 < m["test_error"] < 0.6
    assert "weights" not in record


def test_kfold_runs_measure_cpu_seconds_and_ram_hours_as_the_prequential_pass_does():
    for overrides in (["algorithm=adaboost_m2", "n_rounds=5"], ["algorithm=online_boosting", "n_learners=3"]):
        m = run_experiment(compose_config(["protocol=kfold", "dataset=heart", *overrides]))["metrics"]
        assert m["cpu_s"] > 0 and m["ram_hours"] >= 0 and m["model_bytes"] >= 0, overrides


class _Hoarder:
    """An online learner whose model grows by 8 KiB an update: what a fold's meter must see."""

    n_classes = 2  # its labels are checked against it

    def __init__(self):
        self.kept = []

    def predict(self, x):
        return 0

    def predict_many(self, X):
        return np.zeros(len(X), dtype=np.int64)

    def update(self, label):
        self.kept.append(np.ones(1024))


def test_an_online_fold_meters_its_models_memory():
    from boostbench.protocols import fit_online

    X, y = np.zeros((2500, 1)), np.zeros(2500, dtype=np.int64)
    booster = _Hoarder()
    fold = fit_online(booster, X, y, np.arange(2000), np.arange(2000, 2500))
    assert fold.model_bytes >= 0.8 * 2000 * 1024 * 8  # 16 MiB kept
    assert fold.cpu_s > 0 and fold.ram_hours > 0
    assert fold.ram_hours <= fold.model_bytes / 2**30 * fold.cpu_s / 3600  # the model only grew


def test_holdout_run_keeps_the_weight_distribution():
    record = run_experiment(
        compose_config(
            ["protocol=holdout", "dataset=heart", "algorithm=adaboost_m1", "learner.max_depth=3", "n_rounds=10"]
        )
    )
    W = np.array(record["weights"]["values"])
    assert W.shape[1] == len(record["weights"]["train_index"]) == 227
    assert np.allclose(W.sum(axis=1), 1.0) and len(W) == record["metrics"]["n_rounds_fitted"][0]


def test_online_algorithm_under_kfold_is_deterministic():
    overrides = ["protocol=kfold", "dataset=balance", "algorithm=online_boosting", "n_learners=3", "seed=2"]
    a, b = (run_experiment(compose_config(overrides))["metrics"] for _ in range(2))
    assert a["fold_test_error"] == b["fold_test_error"] and a["test_error"] < 0.5


@pytest.mark.parametrize(
    "overrides,message",
    [
        (["algorithm=samme", "protocol=prequential"], "batch algorithm"),
        (["algorithm=adaboost", "dataset=heart"], "binary"),
        (["algorithm=adaboost_mm", "learner=hoeffding_tree"], "learner=tree"),
        (["algorithm=online_boosting", "learner=tree"], "online"),
        (["algorithm=adaboost_m1", "n_rounds=0"], "n_rounds"),
        (["algorithm=samme", "learner.max_depth=0"], "max_depth"),
    ],
)
def test_bad_batch_configs_exit_with_one_line(tmp_path, overrides, message):
    result = CliRunner().invoke(app, ["run", *overrides, f"results_dir={tmp_path}"])
    assert result.exit_code == 2 and message in result.output
    assert not (tmp_path / "runs").exists()


def test_batch_reports_rebuild_from_the_store(tmp_path):
    from boostbench.reporting.records import load_runs
    from boostbench.reporting.report import REPORTS
    from boostbench.runner.experiment import save

    records = {}
    for algorithm in ("adaboost_m1", "one_vs_all"):
        record = run_experiment(
            compose_config(["protocol=holdout", "dataset=heart", f"algorithm={algorithm}", "n_rounds=4"])
        )
        save(record, str(tmp_path))
        records[algorithm] = record
    for algorithm in ("adaboost_mm", "samme"):
        save(
            run_experiment(compose_config(["protocol=kfold", "dataset=heart", f"algorithm={algorithm}", "n_rounds=4"])),
            str(tmp_path),
        )
    runs = load_runs(tmp_path)
    table, written = REPORTS["combessie_heart"].write(tmp_path, tmp_path, runs, 100)
    names = {p.name for p in written}
    assert {"errors.png", "combessie_heart.md", "weights_adaboost_m1_depth1.png"} <= names
    row = table.set_index("algorithm").loc["one_vs_all"]
    assert row["test_error"] == pytest.approx(records["one_vs_all"]["metrics"]["test_error"])
    table, written = REPORTS["mukherjee_schapire"].write(tmp_path, tmp_path, runs, 100)
    mm = table.set_index("algorithm").loc["adaboost_mm"]
    folds = runs.set_index("algorithm").loc["adaboost_mm", "fold_test_error"]
    assert mm["test_error"] == pytest.approx(np.mean(folds)) and mm["n_folds"] == 5
    assert "**" in (tmp_path / "tables" / "mukherjee_schapire.md").read_text()


class _Majority:
    """A weak learner that predicts label 0 and records what each round was fitted on."""

    def __init__(self):
        self.fits = []

    def fit_label(self, X, y, sample_weight, n_classes, rng):
        self.fits.append((y.copy(), np.asarray(sample_weight, dtype=float).copy()))
        return self

    def predict(self, X):
        return np.zeros(len(X), dtype=np.int64)


def test_adaboost_m1_by_resampling_fits_each_round_on_unit_weight_rows_drawn_from_d_t():
    # 30% of the labels are 1: round 1 (D uniform) errs on them, eps = 0.3, beta = 3/7, and D_2 gives
    # the ones half the weight; so round 1's draw holds ~30% ones and round 2's ~50%
    y = (np.arange(4000) % 10 < 3).astype(np.int64)
    X = np.zeros((len(y), 1))
    learner = _Majority()
    AdaBoostM1(2, 2, learner, np.random.default_rng(0), resample=True).fit(X, y)
    (y1, w1), (y2, w2) = learner.fits
    assert len(y1) == len(y2) == len(y) and np.all(w1 == 1.0) and np.all(w2 == 1.0)
    assert y1.mean() == pytest.approx(0.3, abs=0.03) and y2.mean() == pytest.approx(0.5, abs=0.03)
    learner = _Majority()
    AdaBoostM1(2, 2, learner, np.random.default_rng(0)).fit(X, y)  # reweighting: all rows, D_t
    assert np.array_equal(learner.fits[1][0], y)
    assert learner.fits[1][1][y == 1].sum() == pytest.approx(0.5)


def test_adaboost_m1_refuses_a_resample_that_is_not_a_boolean():
    with pytest.raises(ValueError, match="resample"):
        AdaBoostM1(2, 2, resample="sometimes")


@pytest.mark.parametrize("name", sorted(BATCH_ALGORITHMS))
def test_integer_sample_weights_are_repeated_rows(name):
    """``D_1`` proportional to the weights; weight w fits as w copies of the row do, on data
    without ties (continuous attributes; weights drawn so that no leaf of MH or M2 sums its gains
    to exactly 0, where the float rounding of the two sums picks the sign). Weights of 1 change
    no bit."""
    k = 2 if name == "adaboost" else 3
    X, y = gaussian_blobs(n=60, k=k, seed=3, spread=0.8)
    w = np.random.default_rng(5).integers(1, 4, size=len(y))
    cls = BATCH_ALGORITHMS[name]

    def fit(*data):
        return cls(k, 20, TreeParams(max_depth=2), np.random.default_rng(1)).fit(*data)

    weighted, repeated = fit(X, y, w), fit(X.repeat(w, axis=0), y.repeat(w))
    np.testing.assert_allclose(weighted.weight_history_[0], w / w.sum(), rtol=1e-12)
    assert weighted.n_rounds_fitted == repeated.n_rounds_fitted
    np.testing.assert_allclose(weighted.staged_scores(X), repeated.staged_scores(X), rtol=1e-9, atol=1e-9)
    assert np.array_equal(fit(X, y, np.ones(len(y))).staged_scores(X), fit(X, y).staged_scores(X))


def test_sample_weights_must_be_a_distribution():
    X, y = gaussian_blobs(n=10)
    for w, message in ((np.ones(3), r"\(10,\)"), (-np.ones(10), ">= 0"), (np.zeros(10), "zero on every example")):
        with pytest.raises(ValueError, match=message):
            SAMME(3, 2).fit(X, y, w)


def test_one_vs_all_is_k_binary_adaboost_runs_on_one_generator():
    X, y = gaussian_blobs(k=3, seed=5, spread=0.8)
    X[y == 2, 0] += 20.0  # class 2 against the rest: one stump, no training error, the run stops
    rng = np.random.default_rng(4)
    runs = [AdaBoost(2, 10, TreeParams(), rng).fit(X, (y == j).astype(np.int64)) for j in range(3)]
    model = OneVsAll(3, 10, TreeParams(), np.random.default_rng(4)).fit(X, y)
    assert [run.n_rounds_fitted for run in runs] == [10, 10, 1] and model.n_rounds_fitted == 10
    for t, scores in enumerate(model.iter_scores(X)):  # a stopped run keeps its final margin
        for j, run in enumerate(runs):
            np.testing.assert_array_equal(scores[:, j], run.margins(X)[min(t, run.n_rounds_fitted - 1)])
    np.testing.assert_array_equal(model.alphas_[2], np.pad(runs[2].alphas_, (0, 9)))
    np.testing.assert_allclose(model.weight_history_.sum(axis=1), 1.0)
    np.testing.assert_array_equal(model.staged_predict(X)[-1], model.predict(X))
