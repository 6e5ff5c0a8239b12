"""Shared fixtures and helpers: a scripted weak-learner pool, a tiny compiled pool, peers' libraries."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, settings

from boostbench.learners.pool import HoeffdingTreeParams, WeakLearnerPool

# MOA's evaluators, run by .venv-moa's Python (capymoa is not in .venv): not a test module
collect_ignore = ["moa_evaluators.py", "moa_trees.py"]

# Property-based tests (tests/test_fuzz_*.py): a few seconds each under the default profile;
# `make fuzz` runs them under "fuzz" (many examples, pass after pass for FUZZ_SECONDS), keeping
# what it finds in .hypothesis/ to replay.
_LENIENT = [HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much]
settings.register_profile("fast", max_examples=25, deadline=None, database=None, suppress_health_check=_LENIENT)
settings.register_profile("fuzz", max_examples=300, deadline=None, suppress_health_check=_LENIENT)
settings.load_profile("fast")


class ScriptedPool(WeakLearnerPool):
    """Weak learners whose class distributions are given; records every training call.

    Args:
        proba: ``(N, k)`` class distribution each learner returns for every example.
    """

    def __init__(self, proba):
        self.proba = np.asarray(proba, dtype=np.float64)
        self.n_learners, self.n_classes = self.proba.shape
        self.calls: list[tuple[int, int, float]] = []  # (learner, y, weight)

    def prepare(self, x):
        return x

    def predict_proba_member(self, i, xp):
        return self.proba[i].copy()

    def learn_member(self, i, xp, y, weight):
        self.calls.append((i, int(y), float(weight)))

    def weights_for(self, n_learners):
        out = np.zeros(n_learners)
        for i, _, w in self.calls:
            out[i] += w
        return out


def tiny_pool(n_classes: int, n_threads: int = 1):
    """Two compiled trees over a numeric and a two-valued nominal attribute (delta = tau = 0.5,
    grace period 1, c_i = 1): a small pool whose kernels have the types of a real run.
    """
    from boostbench.learners.compiled_pool import CompiledHoeffdingTreePool

    params = HoeffdingTreeParams(
        delta=np.full(2, 0.5), tau=np.full(2, 0.5), grace_period=np.full(2, 1), weight_scale=np.ones(2)
    )
    return CompiledHoeffdingTreePool(params, n_classes, [0, 2], capacity=8, n_threads=n_threads)


@pytest.fixture(autouse=True, scope="session")
def private_disk_cache(tmp_path_factory):
    """Potentials and cost matrices kept between runs go to a directory of this session, not to
    the user's cache."""
    patch = pytest.MonkeyPatch()
    patch.setenv("BOOSTBENCH_CACHE", str(tmp_path_factory.mktemp("cache")))
    yield
    patch.undo()


@pytest.fixture
def scripted_pool():
    return ScriptedPool


def learner_file(name: str, **changes):
    """The typed ``learner`` section of ``configs/learner/<name>.yaml``, with ``changes``."""
    from boostbench.testing import _learner_file

    return _learner_file(name, **changes)


def missing_peer(name: str) -> str | None:
    """Why the peer ``name`` cannot run here (its library is absent), or None: a MOA peer without a
    Python that has capymoa, ``vw_boosting`` without vowpalwabbit."""
    import importlib.util

    from boostbench.algorithms import ALGORITHMS
    from boostbench.boosters.peers.moa_peers import moa_python

    target = ALGORITHMS[name].target
    if ".moa_peers:" in target or ".moa_multilabel:" in target:
        try:
            moa_python()
        except ValueError:
            return "MOA's peers need capymoa and Java (make bench-moa-setup)"
    elif target.endswith("VWBoosting") and importlib.util.find_spec("vowpalwabbit") is None:
        return "vw_boosting needs vowpalwabbit (pip install vowpalwabbit)"
    return None


def skip_without_peer(name: str) -> None:
    """Skip a test of a peer whose library is not here (:func:`missing_peer`). Under CI
    (``CI=true``, where ``.ci/run`` installs them) a missing library fails the test instead: no
    peer goes untested there."""
    import os

    reason = missing_peer(name)
    if reason is None:
        return
    if os.environ.get("CI") == "true":
        pytest.fail(f"{reason}: .ci/run installs it")
    pytest.skip(reason)


def valid_record(seed: int = 0, **changes) -> dict:
    """The least record a store's reader accepts: vfdt's config (``seed``) under its own hash, no
    metrics, an empty prequential curve; ``changes`` replace top-level fields. Its store key is
    its ``config_hash`` (it has no ``code``)."""
    from boostbench.runner.config import compose_config, config_hash, resolved_dict

    config = resolved_dict(compose_config(["algorithm=vfdt", f"seed={seed}"]))
    record = {
        "config": config,
        "config_hash": config_hash(config),
        "metrics": {},
        "curve": {"examples_seen": [], "cumulative_accuracy": []},
    }
    return {**record, **changes}
