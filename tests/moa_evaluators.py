"""MOA's measures of one prediction sequence, through capymoa (run by a Python that has it, as
the MOA peers' worker is): ``python moa_evaluators.py sequence.npz`` prints JSON.

The ``.npz`` holds ``truth`` and ``predicted`` (``(n,)`` int labels in ``0..k-1``), ``k``,
``seen`` (the 1-based checkpoints), ``window`` and ``alpha``. At each checkpoint the output holds
the accuracy, kappa, kappa-M, kappa-T and macro-F1 of capymoa's ``ClassificationEvaluator``
(MOA's ``BasicClassificationPerformanceEvaluator``), of its ``ClassificationWindowedEvaluator``
(MOA's sliding ``WindowClassificationPerformanceEvaluator``, read between its windows too) and of
MOA's ``FadingFactorClassificationPerformanceEvaluator``; ``per_window``: the windowed
evaluator's own record, one row per ``window`` examples. MOA's values are percents.
"""

import json
import sys

import numpy as np
from capymoa.evaluation import ClassificationEvaluator, ClassificationWindowedEvaluator
from capymoa.stream import Schema
from moa.evaluation import FadingFactorClassificationPerformanceEvaluator

#: our name -> capymoa's (which leaves the macro-F1's MOA name as it is)
MEASURES = {
    "accuracy": "accuracy",
    "kappa": "kappa",
    "kappa_m": "kappa_m",
    "kappa_t": "kappa_t",
    "macro_f1": "F1 Score macro (percent)",
}


def main(path: str) -> None:
    data = np.load(path)
    truth, predicted, k = data["truth"], data["predicted"], int(data["k"])
    seen, window, alpha = set(data["seen"].tolist()), int(data["window"]), float(data["alpha"])
    schema = Schema.from_custom(["x", "class"], "class", {"class": [str(c) for c in range(k)]})
    evaluators = {
        "basic": ClassificationEvaluator(schema),
        "windowed": ClassificationWindowedEvaluator(schema, window_size=window),
        "fading": ClassificationEvaluator(schema),
    }
    # MOA's fading evaluator refuses prepareForUse (its alpha's option letter 'a' is the AUC
    # option's too), which capymoa's wrapper calls: it runs unprepared, its options set directly
    fading = FadingFactorClassificationPerformanceEvaluator()
    fading.alphaOption.setValue(alpha)
    fading.f1PerClassOption.set()
    evaluators["fading"].moa_basic_evaluator = fading
    out = {name: {measure: [] for measure in MEASURES} for name in evaluators}
    for t, (label, guess) in enumerate(zip(truth.tolist(), predicted.tolist())):
        for evaluator in evaluators.values():
            evaluator.update(label, guess)
        if t + 1 in seen:
            for name, evaluator in evaluators.items():
                values = dict(zip(evaluator.metrics_header(), evaluator.metrics()))
                for measure, moa_name in MEASURES.items():
                    out[name][measure].append(values[moa_name])
    rows = evaluators["windowed"].metrics_per_window()
    out["per_window"] = {measure: rows[moa_name].tolist() for measure, moa_name in MEASURES.items()}
    print(json.dumps(out))


if __name__ == "__main__":
    main(sys.argv[1])
