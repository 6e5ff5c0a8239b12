"""MOA's HoeffdingTree on a stream, through capymoa (run by a Python that has it, as the MOA peers'
worker is): ``python moa_trees.py stream.npz`` prints JSON.

The ``.npz`` holds ``X`` (``(n, d)`` float, NaN missing), ``y`` (``(n,)`` int labels),
``n_categories`` (``(d,)``, 0 numeric: the rest are given to MOA as nominal attributes with values
``0..m-1``), ``k``, ``grace``, ``confidence``, ``tau`` and ``leaves`` (MOA's ``-l``: ``MC``,
``NB`` or ``NBAdaptive``). One tree learns test-then-train; the output holds, per example, MOA's
class votes before it learns (``getVotesForInstance``, padded to k) and its node count at the end.
"""

import json
import sys
import tempfile
from pathlib import Path

import numpy as np
from capymoa.base import MOAClassifier
from capymoa.stream import ARFFStream
from jpype import JClass


def main(path: str) -> None:
    data = np.load(path)
    X, y, cats, k = data["X"], data["y"].astype(int), data["n_categories"], int(data["k"])
    with tempfile.TemporaryDirectory() as tmp:
        arff = Path(tmp) / "stream.arff"
        with open(arff, "w") as out:
            out.write("@relation stream\n")
            for j, m in enumerate(cats.tolist()):
                kind = "numeric" if m == 0 else "{" + ",".join(str(v) for v in range(m)) + "}"
                out.write(f"@attribute x{j} {kind}\n")
            out.write("@attribute class {" + ",".join(str(c) for c in range(k)) + "}\n@data\n")
            for row, label in zip(X.tolist(), y.tolist()):
                cells = ["?" if v != v else (str(int(v)) if m else repr(v)) for v, m in zip(row, cats.tolist())]
                out.write(",".join([*cells, str(label)]) + "\n")
        stream = ARFFStream(arff)
        cli = f"-g {int(data['grace'])} -c {float(data['confidence'])} -t {float(data['tau'])} -l {data['leaves']}"
        learner = JClass("moa.options.ClassOption").cliStringToObject(
            f"trees.HoeffdingTree {cli}", JClass("moa.classifiers.Classifier"), None
        )
        tree = MOAClassifier(learner, schema=stream.get_schema())
        votes = []
        while stream.has_more_instances():
            instance = stream.next_instance()
            v = list(tree.moa_learner.getVotesForInstance(instance.java_instance))
            votes.append((v + [0.0] * k)[:k])
            tree.train(instance)
        print(json.dumps({"votes": votes, "nodes": int(tree.moa_learner.getNodeCount())}))


if __name__ == "__main__":
    main(sys.argv[1])
