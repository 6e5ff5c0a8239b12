"""MOA's OzaBoost through capymoa, run in its own venv (.venv-moa: capymoa pins older pandas).

Reads the stream bench.py / scaling.py wrote (``X``, ``y`` in stream order, and ``n_categories``
when the attributes' types are given: 0 numeric, else a nominal attribute's number of values),
writes it as an ARFF file (nominal attributes as nominal, missing values as ``?``; without
``n_categories`` every attribute numeric, missing values as 0) and runs OzaBoost(N) over MOA's
HoeffdingTree (``-l``: its leaves, NBAdaptive by default, or MC) test-then-train in MOA's own
Java evaluation loop (capymoa's ``prequential_evaluation`` over an ``ARFFStream``: no Python call
per instance). Prints one JSON line: microseconds per example of the first pass (a cold JVM:
its JIT compiles as it goes), and with ``--warm`` of a second pass of a new OzaBoost over the same
stream in the same JVM (warm, as our kernels' compile is not timed); cumulative accuracy; peak
RSS of this process (the JVM included).
"""

import argparse
import json
import resource
import tempfile
from pathlib import Path

import numpy as np
from capymoa.classifier import OzaBoost
from capymoa.evaluation import prequential_evaluation
from capymoa.stream import ARFFStream

parser = argparse.ArgumentParser()
parser.add_argument("--data", required=True)
parser.add_argument("--n-learners", type=int, default=100)
parser.add_argument("--seed", type=int, default=0)
parser.add_argument("--leaves", default="NBAdaptive", choices=("NBAdaptive", "NB", "MC"), help="the trees' -l")
parser.add_argument("--warm", action="store_true", help="time a second pass in the same JVM too")
args = parser.parse_args()
data = np.load(args.data)
X, y = data["X"], data["y"].astype(int)
cats = data["n_categories"].tolist() if "n_categories" in data else None


def cell(value: float, m: int) -> str:
    if value != value:
        return "?"
    return str(int(value)) if m else repr(float(value))


def one_pass(stream: ARFFStream) -> tuple[float, float]:
    """(µs per example, cumulative accuracy) of a new OzaBoost over the whole stream."""
    model = OzaBoost(
        schema=stream.get_schema(),
        boosting_iterations=args.n_learners,
        random_seed=args.seed,
        base_learner=f"trees.HoeffdingTree -l {args.leaves}",
    )
    results = prequential_evaluation(stream, model, window_size=max(1, len(y) // 10), optimise=True)
    return 1e6 * results.wallclock() / len(y), results.cumulative.accuracy() / 100.0


with tempfile.TemporaryDirectory() as tmp:
    path = Path(tmp) / "stream.arff"
    with open(path, "w") as handle:
        handle.write("@relation stream\n")
        if cats is None:
            X = np.nan_to_num(X)
            handle.writelines(f"@attribute x{j} numeric\n" for j in range(X.shape[1]))
        else:
            for j, m in enumerate(cats):
                kind = "numeric" if m == 0 else "{" + ",".join(str(v) for v in range(m)) + "}"
                handle.write(f"@attribute x{j} {kind}\n")
        handle.write("@attribute class {" + ",".join(str(c) for c in range(int(y.max()) + 1)) + "}\n@data\n")
        if cats is None:
            np.savetxt(handle, np.column_stack([X, y]), fmt=["%.17g"] * X.shape[1] + ["%d"], delimiter=",")
        else:
            for row, label in zip(X.tolist(), y.tolist()):
                handle.write(",".join([*(cell(v, m) for v, m in zip(row, cats)), str(label)]) + "\n")
    stream = ARFFStream(path)
    cold_us, accuracy = one_pass(stream)
    warm_us = one_pass(stream)[0] if args.warm else None
out = {
    "us_per_example": warm_us if args.warm else cold_us,
    "quality": accuracy,
    "compile_s": 0.0,
    "peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
}
if args.warm:
    out["cold_us_per_example"] = cold_us
print(json.dumps(out))
