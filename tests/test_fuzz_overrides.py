"""Property: whatever overrides a command line holds, checking, composing and validating them ends in
a run config or in one line naming the problem (a BoostbenchError): never another exception, and a
value the config accepts is of its declared type (make fuzz runs these at length)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from boostbench.errors import BoostbenchError
from boostbench.runner.checks import check_overrides
from boostbench.runner.config import compose_config, validate

KEYS = [
    "dataset",
    "algorithm",
    "learner",
    "protocol",
    "seed",
    "n_learners",
    "gamma",
    "n_rounds",
    "progress",
    "n_threads",
    "results_dir",
    "data_dir",
    "protocol.shuffle",
    "protocol.final_fraction",
    "protocol.window",
    "protocol.delay",
    "protocol.shuffle_seed",
    "protocol.max_examples",
    "dataset.sep",
    "dataset.header",
    "dataset.max_classes",
    "dataset.columns",
    "dataset.drop_columns",
    "dataset.nominal",
    "dataset.name",
    "learner.max_size",
    "learner.backend",
    "learner.delta",
    "algorithm.name",
    "algorithm.vote",
    "hydra.job.chdir",
    "preset",
    "experiment",
]
VALUES = [
    "car",
    "vfdt",
    "online_mbbm",
    "kfold",
    "tree",
    "true",
    "false",
    "'false'",
    "null",
    "0",
    "-1",
    "3",
    "0.5",
    "1e999",
    "nan",
    "''",
    "ab",
    ";",
    ",",
    "[a,b]",
    "[]",
    "{a: 1}",
    "range(0,3)",
    "choice(1,2)",
    "${seed}",
    "${oops}",
    "/tmp/x",
    "'a b'",
    "\\t",
    "[0.1,0.2]",
]
OVERRIDES = st.builds(
    lambda prefix, key, eq, value: f"{prefix}{key}{eq}{value}",
    st.sampled_from(["", "", "", "+", "++", "~"]),
    st.one_of(st.sampled_from(KEYS), st.text(max_size=8)),
    st.sampled_from(["=", "=", "=", ""]),
    st.one_of(st.sampled_from(VALUES), st.text(max_size=8)),
)


@given(st.lists(OVERRIDES, max_size=3))
def test_any_overrides_compose_or_are_refused_in_one_line(overrides):
    try:
        check_overrides(overrides)
        run = validate(compose_config(overrides))
    except BoostbenchError as exc:
        assert str(exc).strip() and "Traceback" not in str(exc)
        return
    assert isinstance(run.protocol.shuffle, bool) and isinstance(run.seed, int) and not isinstance(run.seed, bool)
    assert isinstance(run.resolved["progress"], bool)
