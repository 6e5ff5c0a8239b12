"""boostbench: a reproducible experiment runner for online (streaming) boosting research.

Data flow: ``data`` (registry, loaders, encoding, stream) -> ``learners`` (weak-learner pools)
-> ``boosters`` (one module per algorithm, maths in ``core``) -> ``protocols`` (prequential)
-> ``store`` (atomic result records) -> CLI (``boostbench.cli``).
"""

__version__ = "0.1.0"
