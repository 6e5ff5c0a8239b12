"""Bayesian-network weak learners (Naive Bayes, TAN, BAN), batch and online: the networks, their
structure learning, and the pool.
"""
