"""The MOA side of :mod:`boostbench.boosters.peers.moa_peers`, run as a script by a Python that has
capymoa (and so MOA, through Java): it imports neither boostbench nor anything but numpy and
capymoa, since that Python may be another environment (capymoa pins an older pandas).

Protocol on stdin/stdout: messages are pickles, each after its length (8 bytes, little endian).
First the setup ``{"ensemble" or "cli", "n_learners", "seed", "n_classes", "n_categories"}``
(answered "ready"; ``cli``: any MOA classifier's command line, as capymoa's ``MOAClassifier``
takes one), then ``(kind, payload)``: ``("predict", x)`` -> label (-1: none yet),
``("proba", x)`` -> ``(k,)`` or None, ``("learn", (x, y))`` (no answer),
``("test_then_train", (X, y))`` -> ``(m,)`` int64 labels predicted before training on each row
(-1: none). Nominal attributes arrive as their codes
and missing values as NaN, as MOA stores them.
"""

import pickle
import struct
import sys

import numpy as np

#: runner name -> (capymoa.classifier class, its argument for the number of members N); each with
#: MOA's own base learner and defaults
ENSEMBLES = {
    "ozaboost": ("OzaBoost", "boosting_iterations"),
    "online_smooth_boost": ("OnlineSmoothBoost", "boosting_iterations"),
    "sgbt": ("StreamingGradientBoostedTrees", "boosting_iterations"),  # Gunasekara et al. 2024
    "arf": ("AdaptiveRandomForestClassifier", "ensemble_size"),  # Gomes et al. 2017
    "srp": ("StreamingRandomPatches", "ensemble_size"),  # Gomes, Read & Bifet 2019
    "leveraging_bagging": ("LeveragingBagging", "ensemble_size"),  # Bifet, Holmes & Pfahringer 2010
}
#: runner name -> the MOA command line of the rest of MOA's online boosting family (moa.classifiers.meta;
#: capymoa has no class for them): each with MOA's own base learner and defaults, ``-s`` members.
#: Not Heros (meta.heros.Heros): its policy draws from an unseeded static java.util.Random, so a seed
#: does not fix its numbers
CLI_ENSEMBLES = {
    "ozaboost_adwin": "meta.OzaBoostAdwin -s {n_learners}",  # Oza's boosting with ADWIN, Bifet et al. 2010
    "adob": "meta.ADOB -s {n_learners}",  # Adaptable Diversity-based Online Boosting, Santos et al. 2014
    "bole": "meta.BOLE -s {n_learners}",  # Boosting-like Online Learning Ensemble, de Barros et al. 2016
    "ocboost": "meta.OCBoost -s {n_learners}",  # Online Coordinate Boosting, Pelossof et al. 2009
    "dems": "meta.DynamicEnsembleMemberSelection -s {n_learners}",  # Sun et al. 2025, over SRP
}


def learner_name(setup: dict) -> str:
    """The MOA class a setup builds, for messages: ``OzaBoost``, ``OzaBoostAdwin``, ..."""
    if "cli" in setup:
        return setup["cli"].split()[0].rpartition(".")[2] if setup["cli"].split() else "?"
    if setup["ensemble"] in ENSEMBLES:
        return ENSEMBLES[setup["ensemble"]][0]
    return learner_name({"cli": CLI_ENSEMBLES[setup["ensemble"]]})


def _read(stream):
    """The next message; EOFError when the other side has closed the pipe (or died): a message
    may itself be None (no probabilities yet), so the end of the stream cannot be None.
    """
    header = stream.read(8)
    if len(header) < 8:
        raise EOFError("the pipe closed")
    (size,) = struct.unpack("<Q", header)
    return pickle.loads(stream.read(size))


def _write(stream, message) -> None:
    data = pickle.dumps(message, protocol=4)
    stream.write(struct.pack("<Q", len(data)))
    stream.write(data)
    stream.flush()


def build(setup: dict):
    """The capymoa schema and classifier a setup names (see the module), seeded with its
    ``seed``: ``x0 .. x{d-1}`` then ``class``, nominal values and classes named by their codes.
    Also what a test gives capymoa's own ``prequential_evaluation``, so that both run one model.
    """
    from capymoa import classifier
    from capymoa.stream import Schema

    names = [f"x{j}" for j in range(len(setup["n_categories"]))]
    categories = {name: [str(v) for v in range(m)] for name, m in zip(names, setup["n_categories"]) if m > 0}
    categories["class"] = [str(c) for c in range(setup["n_classes"])]
    schema = Schema.from_custom([*names, "class"], target="class", categories=categories, name="boostbench")
    cli = setup.get("cli") or CLI_ENSEMBLES.get(setup.get("ensemble"), "").format(n_learners=setup["n_learners"])
    if cli:  # MOA's own option parser builds the learner, as capymoa's MOAClassifier is given one
        from capymoa.base import MOAClassifier
        from jpype import JClass

        learner = JClass("moa.options.ClassOption").cliStringToObject(cli, JClass("moa.classifiers.Classifier"), None)
        model = MOAClassifier(learner, schema=schema, random_seed=setup["seed"])
    else:
        name, size = ENSEMBLES[setup["ensemble"]]
        model = getattr(classifier, name)(schema=schema, random_seed=setup["seed"], **{size: setup["n_learners"]})
    return schema, model


def main() -> None:
    inp, out = sys.stdin.buffer, sys.stdout.buffer
    sys.stdout = sys.stderr  # whatever capymoa or the JVM prints stays off the protocol
    setup = _read(inp)
    from capymoa.core import Instance, LabeledInstance

    schema, model = build(setup)
    _write(out, "ready")

    def predict(x):
        label = model.predict(Instance.from_array(schema, x))
        return -1 if label is None else int(label)

    while True:
        try:
            kind, payload = _read(inp)
        except EOFError:  # the runner closed the pipe: the run is over
            return
        if kind == "predict":
            _write(out, predict(payload))
        elif kind == "proba":
            proba = model.predict_proba(Instance.from_array(schema, payload))
            _write(out, None if proba is None else np.asarray(proba, dtype=np.float64))
        elif kind == "learn":
            x, y = payload
            model.train(LabeledInstance.from_array(schema, x, int(y)))
        elif kind == "test_then_train":
            X, Y = payload
            labels = np.empty(len(X), dtype=np.int64)
            for t, (x, y) in enumerate(zip(X, Y)):
                labels[t] = predict(x)
                model.train(LabeledInstance.from_array(schema, x, int(y)))
            _write(out, labels)


#: The worker's last line on stderr when MOA raises: the root cause's message, which JPype's chain of
#: Python exceptions ends without ("java.lang.NullPointerException" alone)
ERROR_MARK = "moa-worker error: "


def root_cause(exc: BaseException) -> str:
    """``exc``'s first cause (the Java exception under JPype's wrappers), on one line. JPype hangs
    the Java stack under a Java exception as a cause of its own, ``Exception("Java Exception")``:
    the walk stops above it.
    """
    while exc.__cause__ is not None and str(exc.__cause__) != "Java Exception":
        exc = exc.__cause__
    text = " ".join(str(exc).split())
    name = type(exc).__name__
    return text if text.startswith(name) or "." in name else f"{name}: {text}"


def serve(run=None) -> None:
    """:func:`main` (or another worker's ``run``), whose failure ends the process with the root
    cause marked on stderr.
    """
    try:
        (run or main)()
    except Exception as exc:
        print(f"{ERROR_MARK}{root_cause(exc)}", file=sys.stderr, flush=True)
        sys.exit(1)


if __name__ == "__main__":
    serve()
