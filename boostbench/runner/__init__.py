"""The runner: compose and check a configuration (:mod:`~boostbench.runner.config`), run it
(:mod:`~boostbench.runner.experiment`), sweep a grid (:mod:`~boostbench.runner.sweep`) and keep
the records (:mod:`~boostbench.runner.store`).
"""
