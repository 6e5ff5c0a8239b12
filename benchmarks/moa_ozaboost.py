"""MOA's OzaBoost through capymoa, run in its own venv (.venv-moa: capymoa pins older pandas).

Reads the stream bench.py wrote (``X``, ``y`` in stream order), runs OzaBoost(N) test-then-train
and prints one JSON line. Nominal codes and missing values (as 0) are given to MOA as numbers.
"""

import argparse
import json
import resource
import time

import numpy as np
from capymoa.classifier import OzaBoost
from capymoa.stream import NumpyStream

parser = argparse.ArgumentParser()
parser.add_argument("--data", required=True)
parser.add_argument("--n-learners", type=int, default=100)
parser.add_argument("--seed", type=int, default=0)
args = parser.parse_args()
data = np.load(args.data)
X, y = np.nan_to_num(data["X"]), data["y"].astype(int)
stream = NumpyStream(X, y, target_type="categorical")
model = OzaBoost(schema=stream.get_schema(), boosting_iterations=args.n_learners, random_seed=args.seed)
start = len(y) - int(np.ceil(0.2 * len(y)))
hits = t = 0
began = time.perf_counter()
while stream.has_more_instances():
    instance = stream.next_instance()
    if t >= start:
        hits += int(model.predict(instance) == instance.y_index)
    model.train(instance)
    t += 1
seconds = time.perf_counter() - began
print(json.dumps({"us_per_example": 1e6 * seconds / len(y), "quality": hits / (len(y) - start), "compile_s": 0.0,
                  "peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
