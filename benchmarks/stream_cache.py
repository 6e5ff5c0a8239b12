"""What the stream cache saves a sweep: drawing a generated stream with river against reading it
back from ``$BOOSTBENCH_CACHE/streams`` (boostbench/data/drift.py), wall and CPU seconds, in a
fresh temporary cache.

    python benchmarks/stream_cache.py rbf_drift sea_drift --n-examples 100000
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time

from boostbench.data import load_dataset
from boostbench.runner.config import compose_config


def timed(spec) -> tuple[float, float]:
    """(wall, CPU) seconds of one load of ``spec``'s stream (seed 0)."""
    wall, cpu = time.perf_counter(), time.process_time()
    load_dataset(spec, seed=0)
    return time.perf_counter() - wall, time.process_time() - cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("datasets", nargs="+", help="generated streams (generator: river)")
    parser.add_argument("--n-examples", type=int, default=100_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as cache:
        os.environ["BOOSTBENCH_CACHE"] = cache
        print("| stream | draw (wall, CPU) | read back (wall, CPU) | CPU ratio |")
        print("|---|---:|---:|---:|")
        for name in args.datasets:
            spec = compose_config([f"dataset={name}", f"dataset.n_examples={args.n_examples}"]).dataset
            drawn, read = timed(spec), timed(spec)
            print(
                f"| {name} ({args.n_examples}) | {drawn[0]:.2f} s, {drawn[1]:.2f} s | "
                f"{1e3 * read[0]:.0f} ms, {1e3 * read[1]:.0f} ms | {drawn[1] / read[1]:.0f}x |",
                flush=True,
            )


if __name__ == "__main__":
    main()
