"""Do two result stores hold the same numbers? E.g. one grid swept with two Hydra launchers.

    python benchmarks/compare_stores.py results/smoke results/smoke-submitit

Every record of the second store is compared with the record of the same config hash in the
first: metrics (timing, memory and compile time aside) and curves must be equal, to the bit.
Prints one line per store and a summary; exits 1 if a record differs or has no counterpart.
"""

from __future__ import annotations

import argparse
import sys

from boostbench.runner.record import RunRecord
from boostbench.runner.store import iter_records
from boostbench.system.resources import MACHINE_DEPENDENT


def numbers(record: RunRecord) -> dict:
    """What the configuration and seed decide: metrics without timing, and the curve."""
    metrics = {k: v for k, v in record.metrics.items() if k not in MACHINE_DEPENDENT}
    return {"metrics": metrics, "curve": record.curve}


def compare(reference_dir: str, other_dir: str) -> tuple[int, list[str]]:
    """``(records compared, problems)`` for every record of ``other_dir``."""
    reference = {r.config_hash: r for r in iter_records(reference_dir)}
    problems, compared = [], 0
    for record in iter_records(other_dir):
        key = record.config_hash
        if key not in reference:
            problems.append(f"{key}: in {other_dir} only")
            continue
        compared += 1
        if numbers(record) != numbers(reference[key]):
            problems.append(
                f"{key}: {record.config['algorithm']['name']} on {record.config['dataset']['name']} differs"
            )
    return compared, problems


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("reference")
    parser.add_argument("other")
    args = parser.parse_args()
    compared, problems = compare(args.reference, args.other)
    for line in problems:
        print(f"DIFFERENT  {line}")
    print(
        f"{args.other} vs {args.reference}: {compared} records compared, "
        f"{compared - sum('differs' in p for p in problems)} identical, {len(problems)} problems"
    )
    sys.exit(1 if problems or compared == 0 else 0)


if __name__ == "__main__":
    main()
