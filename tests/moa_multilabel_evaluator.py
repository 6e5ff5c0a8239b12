"""MOA's multi-label measures of one prediction sequence, through capymoa's JVM (run by a Python
that has it, as the MOA peers' worker is): ``python moa_multilabel_evaluator.py sequence.npz``
prints JSON.

The ``.npz`` holds ``truth`` and ``predicted``, ``(n, k)`` bool label sets. Each example goes to
MOA's ``BasicMultiLabelPerformanceEvaluator`` with a prediction voting 1 for each predicted label
and 0 against it (MOA predicts a label when its vote for beats its vote against); the output is
the evaluator's measures after the last example, by MOA's names (fractions, not percents).
"""

import json
import sys
from pathlib import Path

import numpy as np

# the peers' worker builds MOA's multi-label header: its directory is a sibling script's
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "boostbench" / "boosters" / "peers"))


def main(path: str) -> None:
    data = np.load(path)
    truth, predicted = data["truth"], data["predicted"]
    n, k = truth.shape
    import capymoa.stream  # noqa: F401 - starts the JVM with MOA's jar
    from jpype import JArray, JClass, JDouble
    from moa_ml_worker import header

    made = header(k, [0])
    evaluator = JClass("moa.evaluation.BasicMultiLabelPerformanceEvaluator")()
    instance_class = JClass("com.yahoo.labs.samoa.instances.DenseInstance")
    example_class = JClass("moa.core.InstanceExample")
    prediction_class = JClass("com.yahoo.labs.samoa.instances.MultiLabelPrediction")
    for t in range(n):
        instance = instance_class(1.0, JArray(JDouble)(np.concatenate([truth[t], [0.0]]).astype(np.float64)))
        instance.setDataset(made)
        prediction = prediction_class(k)
        for label in range(k):
            vote = float(predicted[t, label])
            prediction.setVotes(label, JArray(JDouble)([1.0 - vote, vote]))
        evaluator.addResult(example_class(instance), prediction)
    print(json.dumps({str(m.getName()): float(m.getValue()) for m in evaluator.getPerformanceMeasurements()}))


if __name__ == "__main__":
    main(sys.argv[1])
