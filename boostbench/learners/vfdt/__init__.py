"""Compiled Hoeffding-tree (VFDT) kernels for N trees held in flat arrays, river's trees to the bit.

By concern, each module importing only those above it in this list:

- :mod:`.layout`: the arrays (:class:`~.layout.Forest`), their constants, the scratch rows, and
  allocating nodes and statistics slots;
- :mod:`.naive_bayes`: naive-Bayes leaves' predictions (river's ``'nb'`` and ``'nba'``);
- :mod:`.routing`: walking a tree to a leaf, and prediction;
- :mod:`.merits`: entropies and information gains of candidate splits, as river computes them;
- :mod:`.merit_bounds`: cheap intervals that hold a numeric attribute's best merit;
- :mod:`.nominal_bounds`: proven intervals that hold a nominal attribute's best merit;
- :mod:`.split`: a split attempt's decision (screened by the bounds), and making the split;
- :mod:`.budget`: the pool's memory budget (river's ``max_size`` rule over all N trees);
- :mod:`.training`: training the trees on an example, serially or on numba's threads.

The Python side is :mod:`boostbench.learners.compiled_pool`; the boosters' kernels
(``boostbench/boosters/*_kernels.py``) call the public kernels of routing and training.
"""
