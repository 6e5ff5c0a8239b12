"""Draws a MOA multi-label stream, run as a script by a Python that has capymoa (as the MOA peers'
worker is): ``python moa_stream_worker.py < job.json`` writes the job's ``out`` (``.npz``: ``X``
``(n, d)`` float64, ``Y`` ``(n, k)`` bool, ``n_categories`` ``(d,)`` int64, 0 = numeric). It
imports nothing but numpy and capymoa (JPype).

The job: ``n`` examples of ``stream`` (a MOA command line, MetaMultilabelGenerator's), drifting
to ``drift_to`` (another command line, or null) by MOA's ConceptDriftStream's switch: example t
comes from the second stream with probability ``1 / (1 + exp(-4 (t - position) / width))``, the
draw from numpy's generator seeded ``seed``; each stream advances only when drawn from.
"""

import json
import math
import os
import sys

import numpy as np


def draw(job: dict) -> dict:
    import capymoa.stream  # noqa: F401 - starts the JVM with MOA's jar
    from jpype import JClass

    def made(cli: str):
        stream = JClass("moa.options.ClassOption").cliStringToObject(cli, JClass("moa.streams.ExampleStream"), None)
        stream.prepareForUse()
        return stream

    streams = [made(job["stream"])] + ([made(job["drift_to"])] if job.get("drift_to") else [])
    header = streams[0].getHeader()
    k, d, n = int(header.numOutputAttributes()), int(header.numInputAttributes()), int(job["n"])
    X, Y = np.empty((n, d)), np.zeros((n, k), dtype=bool)
    rng = np.random.default_rng(int(job["seed"]))
    for t in range(n):
        second = False
        if len(streams) > 1:
            x = -4.0 * (t - job["position"]) / job["width"]
            second = rng.random() < (0.0 if x > 700 else 1.0 / (1.0 + math.exp(x)))
        instance = streams[int(second)].nextInstance().getData()
        Y[t] = [instance.valueOutputAttribute(j) > 0.5 for j in range(k)]
        X[t] = [instance.valueInputAttribute(a) for a in range(d)]
    categories = [
        int(header.inputAttribute(a).numValues()) if header.inputAttribute(a).isNominal() else 0 for a in range(d)
    ]
    return {"X": X, "Y": Y, "n_categories": np.asarray(categories, dtype=np.int64)}


if __name__ == "__main__":
    request = json.load(sys.stdin)
    os.dup2(2, 1)  # MOA prints to Java's System.out: nothing of it is the answer
    np.savez(request["out"], **draw(request))
