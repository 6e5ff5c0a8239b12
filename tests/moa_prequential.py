"""capymoa's own prequential evaluation of one MOA peer on one stream (run by a Python that has
capymoa, as the MOA peers' worker is): ``python moa_prequential.py stream.npz setup.json`` prints
JSON.

The ``.npz`` holds ``X`` (``(n, d)`` float64 in stream order: nominal codes, NaN for missing) and
``y`` (``(n,)`` int64); ``setup.json`` is the worker's setup (:func:`moa_worker.build`: the
ensemble, its seed, k, the category counts). The stream is written as an ARFF file and read by
MOA's ``ArffFileStream``, so that ``capymoa.evaluation.prequential_evaluation`` runs MOA's own
loop (``EfficientEvaluationLoops``) and evaluator: its predictions are ``Utils.maxIndex`` of the
votes, its accuracy and kappa-M MOA's ``BasicClassificationPerformanceEvaluator``'s (percents).
"""

import json
import sys
import tempfile
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "boostbench" / "boosters" / "peers"))
from moa_worker import build  # the worker imports numpy and capymoa only


def write_arff(path: Path, X: np.ndarray, y: np.ndarray, n_categories: list, k: int) -> None:
    """The stream as ARFF, with the worker's schema: ``x<j>`` numeric or nominal ``{0..m-1}``, then
    ``class {0..k-1}``; a missing value is ``?``, a number its shortest exact repr."""
    lines = ["@relation boostbench"]
    for j, m in enumerate(n_categories):
        lines.append(f"@attribute x{j} " + ("{" + ",".join(map(str, range(m))) + "}" if m else "numeric"))
    lines += ["@attribute class {" + ",".join(map(str, range(k))) + "}", "@data"]
    for row, label in zip(X.tolist(), y.tolist()):
        cells = ["?" if v != v else (str(int(v)) if m else repr(v)) for v, m in zip(row, n_categories)]
        lines.append(",".join([*cells, str(label)]))
    path.write_text("\n".join(lines) + "\n")


def main(stream: str, setup_path: str) -> None:
    from capymoa.evaluation import prequential_evaluation
    from capymoa.stream import ARFFStream

    data, setup = np.load(stream), json.loads(Path(setup_path).read_text())
    X, y = data["X"], data["y"]
    with tempfile.TemporaryDirectory() as folder:
        arff = Path(folder) / "stream.arff"
        write_arff(arff, X, y, setup["n_categories"], setup["n_classes"])
        _, model = build(setup)
        results = prequential_evaluation(ARFFStream(arff), model, store_predictions=True, store_y=True, optimise=True)
    cumulative = results.cumulative
    print(
        json.dumps(
            {
                "predictions": np.asarray(results.predictions(), dtype=np.int64).tolist(),
                "truth": np.asarray(results.ground_truth_y(), dtype=np.int64).tolist(),
                "accuracy": float(cumulative.accuracy()),
                "kappa_m": float(cumulative.kappa_m()),
            }
        )
    )


if __name__ == "__main__":
    main(*sys.argv[1:])
