"""Weak-learner pools: N learners behind one array-shaped interface."""

from boostbench.learners.pool import HoeffdingTreeParams, WeakLearnerPool, make_pool

__all__ = ["HoeffdingTreeParams", "WeakLearnerPool", "make_pool"]
