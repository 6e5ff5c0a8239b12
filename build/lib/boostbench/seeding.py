"""One seed, independent generators: every random draw of a run goes through these."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class RunGenerators:
    """Independent generators derived from the run seed (numpy ``SeedSequence.spawn``).

    ``stream`` orders the examples, ``learners`` draws the weak learners' parameters,
    ``booster`` serves the booster's own draws (Poisson counts, Hedge draws, tie breaks).
    Separate streams keep, e.g., the example order the same across algorithms with one seed.
    """

    stream: np.random.Generator
    learners: np.random.Generator
    booster: np.random.Generator


def run_generators(seed: int) -> RunGenerators:
    """Derive the run's generators from ``seed`` (a non-negative int)."""
    stream, learners, booster = np.random.SeedSequence(int(seed)).spawn(3)
    return RunGenerators(
        stream=np.random.default_rng(stream),
        learners=np.random.default_rng(learners),
        booster=np.random.default_rng(booster),
    )
