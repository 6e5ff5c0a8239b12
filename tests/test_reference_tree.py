"""The authors' tree rules (learner.rules=reference) against river's, rule by rule."""

import numpy as np
import pytest
from river.tree import HoeffdingTreeClassifier
from river.tree.nodes.branch import DTBranch

from boostbench.errors import ConfigError
from boostbench.learners.reference_tree import ReferenceHoeffdingTree
from boostbench.runner.config import compose_config, validate


def _leaf(tree):
    assert not isinstance(tree._root, DTBranch)
    return tree._root


def test_a_class_counts_one_on_first_sight_and_an_unseen_class_counts_one():
    tree = ReferenceHoeffdingTree(n_classes=3, grace_period=100)
    tree.learn_one({0: 1.0}, 0, w=2.0)
    tree.learn_one({0: 1.0}, 0, w=2.0)
    assert _leaf(tree).stats == {0: 5.0}  # 1 + 2 + 2
    assert tree.predict_proba_one({0: 1.0}) == pytest.approx({0: 5 / 7, 1: 1 / 7, 2: 1 / 7})
    river = HoeffdingTreeClassifier(grace_period=100)
    river.learn_one({0: 1.0}, 0, w=2.0)
    assert river._root.stats == {0: 2.0}


def _split_on_feature_0(tree):
    rng = np.random.default_rng(0)
    for _ in range(200):
        y = int(rng.integers(2))
        tree.learn_one({0: float(y) + rng.normal(0, 0.1), 1: rng.normal()}, y)
    assert isinstance(tree._root, DTBranch) and tree._root.feature == 0


def test_an_example_without_the_split_attribute_stops_at_the_split_node():
    tree = ReferenceHoeffdingTree(n_classes=2, grace_period=20, delta=0.01)
    _split_on_feature_0(tree)
    before = [dict(child.stats) for child in tree._root.children]
    tree.learn_one({1: 0.5}, 1, w=50.0)
    assert [dict(child.stats) for child in tree._root.children] == before  # nothing below learned
    frozen = tree._root.stats  # the leaf's counts when it split
    total = sum(frozen.values())
    assert tree.predict_proba_one({1: 0.5}) == pytest.approx({c: frozen[c] / total for c in (0, 1)})
    river = HoeffdingTreeClassifier(grace_period=20, delta=0.01)
    _split_on_feature_0(river)
    before = sum(child.total_weight for child in river._root.children)
    river.learn_one({1: 0.5}, 1, w=50.0)  # river sends it down the most common path
    assert sum(child.total_weight for child in river._root.children) == before + 50.0


def test_no_99_percent_rule():
    # 2 examples of class 1 among 400 (a 99.5% majority): river never tries to split, the
    # authors' rules split where class 0's tail and class 1 make a branch of more than 1%
    rng = np.random.default_rng(1)
    rows = [({0: float(v)}, 0) for v in rng.normal(0.0, 1.0, 398)]
    rows[300:300] = [({0: 6.0}, 1)] * 2  # late enough that the majority holds 99% at every attempt
    reference = ReferenceHoeffdingTree(n_classes=2, grace_period=50)
    river = HoeffdingTreeClassifier(grace_period=50)
    for x, y in rows:
        reference.learn_one(x, y)
        river.learn_one(x, y)
    assert isinstance(reference._root, DTBranch)
    assert not isinstance(river._root, DTBranch)


def test_a_split_attempt_waits_for_more_than_the_grace_period():
    reference = ReferenceHoeffdingTree(n_classes=2, grace_period=5)
    river = HoeffdingTreeClassifier(grace_period=5)
    for t in range(4):
        reference.learn_one({0: float(t)}, 0)
    assert _leaf(reference).total_weight == 5.0  # 1 on first sight + 4
    assert _leaf(reference).last_split_attempt_at == 0.0  # 5 is not more than 5
    reference.learn_one({0: 4.0}, 0)
    assert _leaf(reference).last_split_attempt_at == 6.0
    for t in range(5):
        river.learn_one({0: float(t)}, 0)
    assert _leaf(river).last_split_attempt_at == 5.0  # river: at least the grace period


def test_the_reference_rules_need_the_river_backend():
    with pytest.raises(ConfigError, match=r"learner.backend=river"):
        validate(compose_config(["learner.rules=reference"]))
    validate(compose_config(["learner.rules=reference", "learner.backend=river"]))


def test_a_run_under_the_reference_rules_learns_balance():
    from boostbench.runner.experiment import run_experiment

    record = run_experiment(
        compose_config(
            [
                "dataset=balance",
                "algorithm=adaboost_olm",
                "n_learners=5",
                "learner.backend=river",
                "learner.rules=reference",
            ]
        )
    )
    assert 0.5 < record["metrics"]["final_accuracy"] <= 1.0
