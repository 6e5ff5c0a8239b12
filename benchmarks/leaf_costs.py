"""What a tree pool's leaves cost: prediction and training per example, in CPU seconds of this
process (not wall time: on a shared machine the load falls out), for each leaf rule.

The peers' trees (river's and MOA's defaults: grace period 200, δ = 1e-7, τ = 0.05, c_i = 1, a
640 MiB budget) on a shuffled stream, each example predicted then learnt with Poisson(1) weights
as Oza's boosting gives them; one untimed pass first (the kernels load or compile), then
``--repeats`` timed passes of a new pool each, printed one per line. Run it with a checkout on
``PYTHONPATH`` to time that checkout's kernels (before and after, interleaved):

    python benchmarks/leaf_costs.py --dataset car --n-learners 100 --leaves nba mc
"""

from __future__ import annotations

import argparse
import time

import numpy as np


def one_pass(data, params, leaves: str, naive_bayes: str, seed: int) -> tuple[float, float, int]:
    """(µs of CPU per example predicting, learning; nodes at the end) of a new pool."""
    from boostbench.learners.compiled_pool import CompiledHoeffdingTreePool

    n = len(params.delta)
    rule = {} if naive_bayes == "river" else {"naive_bayes": naive_bayes}  # a checkout before the option: river's
    pool = CompiledHoeffdingTreePool(
        params, data.n_classes, data.n_categories, leaf_prediction=leaves, max_size=640, **rule
    )
    rng = np.random.default_rng(seed)
    order = rng.permutation(data.n_examples)
    predicting = learning = 0.0
    for i in order:
        xp = pool.prepare(data.X[i])
        start = time.process_time()
        pool.predict_proba(xp)
        middle = time.process_time()
        pool.learn(xp, int(data.y[i]), rng.poisson(1.0, n).astype(float))
        predicting, learning = predicting + middle - start, learning + time.process_time() - middle
    return 1e6 * predicting / len(order), 1e6 * learning / len(order), pool.n_nodes


def main() -> None:
    from boostbench.data.registry import load_dataset
    from boostbench.learners.pool import HoeffdingTreeParams
    from boostbench.runner.config import compose_config

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", default="car")
    parser.add_argument("--n-learners", type=int, default=100)
    parser.add_argument("--leaves", nargs="+", default=["nba", "mc"], choices=("mc", "nb", "nba"))
    parser.add_argument("--naive-bayes", default="river", choices=("river", "moa"))
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    data = load_dataset(compose_config([f"dataset={args.dataset}"]).dataset)
    n = args.n_learners
    params = HoeffdingTreeParams(
        delta=np.full(n, 1e-7), tau=np.full(n, 0.05), grace_period=np.full(n, 200.0), weight_scale=np.ones(n)
    )
    for leaves in args.leaves:
        one_pass(data, params, leaves, args.naive_bayes, args.seed)
    for _ in range(args.repeats):  # the leaf rules interleaved
        for leaves in args.leaves:
            predicting, learning, nodes = one_pass(data, params, leaves, args.naive_bayes, args.seed)
            print(
                f"{args.dataset} {leaves}: predict {predicting:.1f} + learn {learning:.1f} = "
                f"{predicting + learning:.1f} µs CPU per example ({nodes} nodes)",
                flush=True,
            )


if __name__ == "__main__":
    main()
