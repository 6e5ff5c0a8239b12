"""Shared maths of the papers: cost matrices, potentials, Hedge, online gradient descent."""
