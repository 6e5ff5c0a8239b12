"""MOA's OzaBoost through capymoa, run in its own venv (.venv-moa: capymoa pins older pandas).

Reads the stream bench.py / scaling.py wrote (``X``, ``y`` in stream order), writes it as an
ARFF file and runs OzaBoost(N) test-then-train in MOA's own Java evaluation loop (capymoa's
``prequential_evaluation`` over an ``ARFFStream``: no Python call per instance). Prints one JSON
line: microseconds per example (MOA's wall clock), cumulative accuracy, peak RSS of this process
(the JVM included). Nominal codes and missing values (as 0) are given to MOA as numbers.
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
args = parser.parse_args()
data = np.load(args.data)
X, y = np.nan_to_num(data["X"]), data["y"].astype(int)
with tempfile.TemporaryDirectory() as tmp:
    path = Path(tmp) / "stream.arff"
    with open(path, "w") as handle:
        handle.write("@relation stream\n")
        handle.writelines(f"@attribute x{j} numeric\n" for j in range(X.shape[1]))
        handle.write("@attribute class {" + ",".join(str(c) for c in range(int(y.max()) + 1)) + "}\n@data\n")
        np.savetxt(handle, np.column_stack([X, y]), fmt=["%.17g"] * X.shape[1] + ["%d"], delimiter=",")
    stream = ARFFStream(path)
    model = OzaBoost(schema=stream.get_schema(), boosting_iterations=args.n_learners, random_seed=args.seed)
    results = prequential_evaluation(stream, model, window_size=max(1, len(y) // 10), optimise=True)
print(
    json.dumps(
        {
            "us_per_example": 1e6 * results.wallclock() / len(y),
            "quality": results.cumulative.accuracy() / 100.0,
            "compile_s": 0.0,
            "peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        }
    )
)
