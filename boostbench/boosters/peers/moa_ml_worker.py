"""The MOA side of :mod:`boostbench.boosters.peers.moa_multilabel`, run as a script by a Python
that has capymoa (and so MOA, through Java), as :mod:`~boostbench.boosters.peers.moa_worker` is:
it imports nothing but numpy, capymoa (JPype) and its sibling script's pipe protocol.

Protocol on stdin/stdout (:func:`moa_worker._read`, :func:`moa_worker._write`): first the setup
``{"cli", "seed", "n_classes", "n_categories"}`` (``cli``: a MOA multi-label learner's command
line, ``n_classes``: k labels; answered "ready"), then ``("scores", x)`` -> ``((k,) float64
margins, (k,) bool set)`` and ``("learn", (x, relevant))`` (no answer). A label's margin is MOA's
vote for it being relevant less its vote against (``Prediction.getVote(l, 1) - getVote(l, 0)``, 0
where MOA gives none), and the set is the labels whose margin is positive: what MOA's
``BasicMultiLabelPerformanceEvaluator`` predicts (``getVote(l, 1) > getVote(l, 0)``).

MOA's multi-label learners print to Java's ``System.out`` (OzaBagML's "NullPointer"): the
protocol keeps a copy of the pipe, and the process's standard output becomes its standard error.
"""

import os
import sys

import numpy as np

try:  # run as a script: the sibling script; imported by boostbench (its tests, the table below)
    from moa_worker import _read, _write, serve
except ImportError:
    from boostbench.boosters.peers.moa_worker import _read, _write, serve

#: runner name -> MOA's command line (``moa.classifiers.``), MOA's defaults otherwise; N members
#: for the ensembles, each a multi-label Hoeffding tree (MOA's OzaBagML default, a single-label
#: HoeffdingTree, predicts the first label only: Read, Bifet, Holmes & Pfahringer, "Scalable and
#: efficient multi-label classification for evolving data streams", MLJ 88, 2012, bag these trees)
LEARNERS = {
    "ml_hoeffding_tree": "multilabel.MultilabelHoeffdingTree",  # majority label set at the leaves
    "ozabag_ml": "multilabel.meta.OzaBagML -s {n_learners} -l multilabel.MultilabelHoeffdingTree",
    "ozabag_adwin_ml": "multilabel.meta.OzaBagAdwinML -s {n_learners} -l multilabel.MultilabelHoeffdingTree",
    "isoup_tree": "multilabel.trees.ISOUPTree",  # Osojnik, Panov & Dzeroski: multi-target regression trees
}


def header(n_labels: int, n_categories: list) -> object:
    """MOA's multi-label header: the labels first (nominal ``{0, 1}``, MOA's output attributes),
    then the attributes (nominal ones with codes ``0..m-1``), as MOA's MetaMultilabelGenerator
    builds its own.
    """
    from jpype import JClass

    attribute, array = JClass("com.yahoo.labs.samoa.instances.Attribute"), JClass("java.util.ArrayList")

    def values(m: int):
        out = array()
        for v in range(m):
            out.add(str(v))
        return out

    attributes = array()
    for label in range(n_labels):
        attributes.add(attribute(f"label{label}", values(2)))
    for j, m in enumerate(n_categories):
        attributes.add(attribute(f"x{j}", values(m)) if m > 0 else attribute(f"x{j}"))
    instances = JClass("com.yahoo.labs.samoa.instances.Instances")("boostbench", attributes, 0)
    outputs = JClass("com.yahoo.labs.samoa.instances.Range")(str(n_labels))
    instances.setClassIndex(2**31 - 1)  # no single class: the range below says the outputs
    instances.setRangeOutputIndices(outputs)
    made = JClass("moa.core.MultilabelInstancesHeader")(instances, n_labels)
    made.setRangeOutputIndices(outputs)
    return made


def main() -> None:
    inp = sys.stdin.buffer
    out = os.fdopen(os.dup(1), "wb")  # the protocol's pipe; fd 1 (Java's System.out too) -> stderr
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    setup = _read(inp)
    import capymoa.stream  # noqa: F401 - starts the JVM with MOA's jar
    from jpype import JArray, JClass, JDouble

    k = int(setup["n_classes"])
    made = header(k, setup["n_categories"])
    learner = JClass("moa.options.ClassOption").cliStringToObject(
        setup["cli"], JClass("moa.classifiers.Classifier"), None
    )
    learner.setRandomSeed(int(setup["seed"]))
    learner.prepareForUse()
    learner.setModelContext(made)
    instance_class = JClass("com.yahoo.labs.samoa.instances.DenseInstance")
    _write(out, "ready")

    def instance(x, relevant=None):
        row = np.concatenate([np.zeros(k) if relevant is None else np.asarray(relevant, dtype=np.float64), x])
        made_instance = instance_class(1.0, JArray(JDouble)(row))
        made_instance.setDataset(made)
        return made_instance

    while True:
        try:
            kind, payload = _read(inp)
        except EOFError:  # the runner closed the pipe: the run is over
            return
        if kind == "scores":
            prediction = learner.getPredictionForInstance(instance(payload))
            margins = np.zeros(k)
            if prediction is not None:
                for label in range(min(k, prediction.numOutputAttributes())):
                    votes = list(prediction.getVotes(label))
                    margins[label] = (votes[1] if len(votes) > 1 else 0.0) - (votes[0] if votes else 0.0)
            _write(out, (margins, margins > 0))
        elif kind == "learn":
            x, relevant = payload
            learner.trainOnInstance(instance(x, relevant))


if __name__ == "__main__":
    serve(main)  # a failure ends the process with MOA's root cause marked on stderr
