"""One owner per hyper-parameter: the booster class (constructor defaults, ``_parameter_constraints``);
the registry, the YAML under configs/algorithm/, the river and the scikit-learn estimators agree
with it."""

from __future__ import annotations

import dataclasses
import inspect
import subprocess
import sys

import pytest

import boostbench.estimators as estimators
import boostbench.sklearn as sklearn_estimators
from boostbench.algorithms import ALGORITHMS, algorithm_spec
from boostbench.constraints import InvalidParameterError
from boostbench.errors import ConfigError
from boostbench.learners.batch_trees import TreeParams
from boostbench.learners.registry import LEARNERS
from boostbench.runner.config import compose_config, resolved_dict


def _defaults(cls) -> dict:
    return {
        name: p.default
        for name, p in inspect.signature(cls.__init__).parameters.items()
        if p.default is not inspect.Parameter.empty
    }


@pytest.mark.parametrize("name", sorted(ALGORITHMS))
def test_the_registry_reads_the_class_constraints(name):
    spec = ALGORITHMS[name]
    assert spec.params is spec.cls._parameter_constraints
    keywords = inspect.signature(spec.cls.__init__).parameters
    assert set(spec.params) <= set(keywords)
    for key, default in _defaults(spec.cls).items():
        if key in spec.params:
            assert spec.params[key].ok(default), (key, default)


@pytest.mark.parametrize("name", sorted(ALGORITHMS))
def test_the_yaml_sets_each_parameter_to_the_constructor_default(name):
    spec = ALGORITHMS[name]
    section = resolved_dict(compose_config([f"algorithm={name}"]))["algorithm"]
    values = {key: value for key, value in section.items() if key != "name"}
    assert set(values) == set(spec.params) | set(spec.fixed)
    defaults = _defaults(spec.cls)
    for key, value in values.items():
        if key in spec.fixed:
            assert value == spec.fixed[key]
        elif key in defaults and key not in ("gamma", "n_rounds"):  # the top-level knobs' values
            assert value == defaults[key] and type(value) is type(defaults[key]), key
    if "gamma" in values:  # ${gamma}: the top-level default is the constructor's
        assert values["gamma"] == defaults["gamma"]


@pytest.mark.parametrize("estimator", [getattr(estimators, name) for name in estimators.__all__])
def test_an_estimator_agrees_with_its_booster(estimator):
    booster = algorithm_spec(estimator._algorithm).cls
    assert set(estimator._booster_params) <= set(booster._parameter_constraints)
    ours, theirs = _defaults(estimator), _defaults(booster)
    for key in estimator._booster_params:
        assert ours[key] == theirs[key], key


@pytest.mark.parametrize("estimator", [getattr(sklearn_estimators, name) for name in sklearn_estimators.__all__])
def test_a_scikit_learn_estimator_agrees_with_its_booster_and_the_tree_learner(estimator):
    """Its parameters: the booster's (defaults: the booster's, or the config's top-level knob),
    the tree learner's (defaults: :class:`TreeParams`'s) and ``random_state``."""
    booster = algorithm_spec(estimator._algorithm).cls
    trees = LEARNERS["tree"].params
    assert set(estimator().get_params()) == set(booster._parameter_constraints) | set(trees) | {"random_state"}
    ours, knobs = _defaults(estimator), resolved_dict(compose_config([]))
    theirs = {**_defaults(booster), **{f.name: f.default for f in dataclasses.fields(TreeParams)}}
    for key in set(booster._parameter_constraints) | set(trees):
        assert ours[key] == theirs.get(key, knobs.get(key)), key
    assert ours["random_state"] is None


def test_a_constructor_checks_its_constraints():
    spec = algorithm_spec("hedge")
    with pytest.raises(InvalidParameterError, match=r"HedgeExperts.beta must be a number in \(0, 1\), got 1.5"):
        spec.cls(None, 2, None, beta=1.5)
    assert issubclass(InvalidParameterError, ValueError) and issubclass(InvalidParameterError, ConfigError)


def test_an_entry_keeps_its_fixed_arguments():
    from boostbench.runner.config import validate

    with pytest.raises(ConfigError, match=r"algorithm.ensemble must be one of adaboost, got 'bole'"):
        validate(compose_config(["algorithm=river_adaboost", "algorithm.ensemble=bole"]))


def test_checking_a_config_loads_no_kernel():
    code = (
        "import sys\nfrom boostbench.runner.config import compose_config, validate\n"
        "for name in ('adaboost_olm', 'online_mbbm', 'online_boosting', 'best_vfdt', 'hedge'):\n"
        "    validate(compose_config([f'algorithm={name}']))\n"
        "try:\n    validate(compose_config(['algorithm=online_mbbm', 'algorithm.mc_draws=0']))\n"
        "except Exception as exc:\n    print(exc)\n"
        "print('numba' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.splitlines() == ["algorithm.mc_draws must be an integer >= 1, got 0", "False"]
