"""One owner per hyper-parameter: the booster class (constructor defaults, ``_parameter_constraints``);
the registry, the YAML under configs/algorithm/, the river and the scikit-learn estimators agree
with it."""

from __future__ import annotations

import dataclasses
import inspect
import subprocess
import sys

import pytest
from omegaconf import OmegaConf

import boostbench.estimators as estimators
import boostbench.sklearn as sklearn_estimators
from boostbench.algorithms import BUILT_IN, KNOBS, algorithm_spec, interface_problem
from boostbench.constraints import ANY, InvalidParameterError
from boostbench.errors import ConfigError
from boostbench.learners.batch_trees import TreeParams
from boostbench.learners.registry import LEARNERS
from boostbench.runner.config import CONFIG_DIR, compose_config, resolved_dict


def _defaults(cls) -> dict:
    return {
        name: p.default
        for name, p in inspect.signature(cls.__init__).parameters.items()
        if p.default is not inspect.Parameter.empty
    }


@pytest.mark.parametrize("name", sorted(BUILT_IN))
def test_the_registry_reads_the_class_constraints(name):
    """Each hyper-parameter of ours is a keyword-only argument (online) with a default that its
    constraint, declared on the class, accepts; the entry declares none of its own."""
    spec = BUILT_IN[name]
    assert interface_problem(spec) is None
    constraints = spec.cls._parameter_constraints
    assert dict(spec.params) == dict(constraints) and ANY not in spec.params.values()
    keywords = inspect.signature(spec.cls.__init__).parameters
    if spec.family == "online":
        assert all(keywords[key].kind is inspect.Parameter.KEYWORD_ONLY for key in spec.params)
    for key, default in spec.defaults.items():
        assert constraints[key].ok(default), (key, default)


@pytest.mark.parametrize("name", sorted(BUILT_IN))
def test_the_yaml_is_the_config_made_from_the_class(name):
    """configs/algorithm/<name>.yaml sets each parameter at the constructor's default (a knob as its
    interpolation), and chooses the other groups the class's config would: the YAML we ship is
    what a plugin without one gets."""
    spec = BUILT_IN[name]
    node = OmegaConf.to_container(OmegaConf.load(CONFIG_DIR / "algorithm" / f"{name}.yaml"), resolve=False)
    section = node.get("algorithm", node)  # a global package: it also chooses the learner and protocol
    assert section == spec.config(name)
    for key, value in section.items():
        if key in spec.defaults and key not in KNOBS:
            assert type(value) is type(spec.defaults[key]), key
    overrides = [f"{k}: {v}" for entry in node.get("defaults", []) for k, v in entry.items()]
    assert overrides == spec.config_defaults


def test_one_default_for_each_hyperparameter():
    """The runner's hooks read the constructor's defaults (OnlineMBBM's caches, the compiled
    kernels' warm-ups), not defaults of their own."""
    spec = algorithm_spec("online_mbbm")
    values = spec.hyperparameters({"name": "online_mbbm", "gamma": 0.05})
    assert values["gamma"] == 0.05 and values["compiled"] is True and values["learners_left"] == "paper"
    assert len(spec.warm_ups({"name": "online_mbbm"})) == 2  # compiled by default, as the class
    assert len(spec.warm_ups({"name": "online_mbbm", "compiled": False})) == 1


@pytest.mark.parametrize("estimator", [getattr(estimators, name) for name in estimators.__all__])
def test_an_estimator_agrees_with_its_booster(estimator):
    booster = algorithm_spec(estimator._algorithm).cls
    assert set(estimator._booster_params) <= set(booster._parameter_constraints)
    ours, theirs = _defaults(estimator), _defaults(booster)
    for key in estimator._booster_params:
        assert ours[key] == theirs[key], key


@pytest.mark.parametrize("estimator", [getattr(sklearn_estimators, name) for name in sklearn_estimators.__all__])
def test_a_scikit_learn_estimator_agrees_with_its_booster_and_the_tree_learner(estimator):
    """Its parameters: the booster's (defaults: the booster's, or its config's, e.g. ``n_rounds``),
    the tree learner's (defaults: :class:`TreeParams`'s) and ``random_state``."""
    booster = algorithm_spec(estimator._algorithm).cls
    trees = LEARNERS["tree"].params
    assert set(estimator().get_params()) == set(booster._parameter_constraints) | set(trees) | {"random_state"}
    ours = _defaults(estimator)
    knobs = resolved_dict(compose_config([f"algorithm={estimator._algorithm}"]))["algorithm"]
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
    from boostbench.runner.config import compose_config, validate

    with pytest.raises(ConfigError, match=r"algorithm.ensemble must be one of adaboost, got 'bole'"):
        validate(compose_config(["algorithm=river_adaboost", "algorithm.ensemble=bole"]))


def test_checking_a_config_loads_no_kernel():
    """Every booster class of ours, and the check of each online algorithm's config, import no
    numba (the classes import their kernels on first use): a mistake is reported at once."""
    ours = sorted(name for name, spec in BUILT_IN.items() if spec.family == "online" and not spec.peer)
    code = (
        "import sys\nimport boostbench.boosters\nfrom boostbench.runner.config import compose_config, validate\n"
        f"for name in {ours!r}:\n"
        "    data = 'emotions' if name in ('ada_olmr', 'online_bmr') else 'balance'\n"
        "    validate(compose_config([f'algorithm={name}', f'dataset={data}']))\n"
        "try:\n    validate(compose_config(['algorithm=online_mbbm', 'algorithm.mc_draws=0']))\n"
        "except Exception as exc:\n    print(exc)\n"
        "print('numba' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.splitlines() == ["algorithm.mc_draws must be an integer >= 1, got 0", "False"]
