"""Weak-learner pools: N learners behind one array-shaped interface; the registry builds them."""

from boostbench.learners.pool import HoeffdingTreeParams, WeakLearnerPool
from boostbench.learners.registry import LEARNERS, make_batch_learner, make_pool

__all__ = ["LEARNERS", "HoeffdingTreeParams", "WeakLearnerPool", "make_batch_learner", "make_pool"]
