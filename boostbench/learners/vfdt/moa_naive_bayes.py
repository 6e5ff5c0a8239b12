"""Naive-Bayes leaves as MOA's ``HoeffdingTree`` has them (``learner.naive_bayes=moa``).

MOA's ``NaiveBayes.doNaiveBayesPrediction``: for each class ``c`` up to the highest the leaf
holds, the vote ``w_c / W`` (``W`` summed in class order) times, for each attribute in index
order that ``x`` has, ``P(x_j | c)``:

- nominal (``NominalAttributeClassObserver``), Laplace-corrected:
  ``(n_cv + 1) / (n_c + m_c)``, ``n_c`` the class's weight at the attribute (summed in value
  order) and ``m_c`` the highest value code it had plus one (the length of MOA's
  ``DoubleVector``); 0 when the class never had a value there;
- numeric (``GaussianNumericAttributeClassObserver``): MOA's ``GaussianEstimator``'s
  ``probabilityDensity``, ``exp(-(d * d / (2 s s))) / (sqrt(2 pi) s)`` with ``s`` the standard
  deviation (variance with ddof 1; 0 while the weight is <= 1), or 1 if ``s = 0`` and ``x`` is
  the mean, else 0; 0 when the class never had a value there. MOA's estimator updates its mean
  as ``mean += w (x - mean) / W`` (river: ``w / W (x - mean)``): the training kernel does so for
  these leaves (:mod:`~.training`).

The votes are not logs and not normalised (MOA's); a leaf predicts them divided by their sum
(uniform if they sum to 0). MOA's choices take the first class of the highest vote by class
index (``Utils.maxIndex``: 0 for a leaf without classes), and an NBA leaf's majority class the
first of its highest weight (``DoubleVector.maxIndex``: none for an empty leaf, which MOA does
not count as right, unlike river).

Java's ``Math.exp`` may differ from C's in the last bit, so numeric votes agree with MOA's to a
few ulps, not always to the bit; nominal ones are MOA's exactly.
"""

from __future__ import annotations

import math

from boostbench.system.kernel_cache import kernel

NORMAL_CONSTANT = math.sqrt(2 * math.pi)  # MOA's GaussianEstimator.NORMAL_CONSTANT


@kernel
def moa_density(st, value):  # pragma: no cover - compiled
    """MOA's ``GaussianEstimator.probabilityDensity`` of a class's estimator ``st``
    (``[weight, mean, S, min, max]``) at ``value``; 0 for an estimator without weight.
    """
    weight = st[0]
    if weight <= 0.0:
        return 0.0
    variance = st[2] / (weight - 1.0) if weight > 1.0 else 0.0
    sd = math.sqrt(variance)
    if sd > 0.0:
        diff = value - st[1]
        return (1.0 / (NORMAL_CONSTANT * sd)) * math.exp(-(diff * diff / (2.0 * sd * sd)))
    return 1.0 if value == st[1] else 0.0


@kernel
def moa_naive_bayes_into(
    leaf,
    x,
    node_stats,
    node_classes,
    nominal_counts,
    numeric_stats,
    attr_ranks,
    value_ranks,
    feat_map,
    feat_nominal,
    out,
):  # pragma: no cover - compiled
    """MOA's naive-Bayes votes of ``leaf`` for ``x``, divided by their sum, into ``out``
    (``(k,)``; uniform if they sum to 0 or the leaf is empty).

    ``nominal_counts``, ``numeric_stats``, ``attr_ranks`` and ``value_ranks`` are the leaf's
    statistics slot's; ``feat_map``, ``feat_nominal`` its tree's rows. A leaf's attribute
    observers exist once it has learned an example with a value (``attr_ranks`` ranks one): then
    a class without a value at an attribute ``x`` has votes 0, as MOA's missing observer gives.

    Returns:
        MOA's choice, the first class (by index) of the highest vote (0 if none: an empty leaf).
    """
    k = out.shape[0]
    n_held = node_classes[leaf, -1]
    total = 0.0
    top_class = -1
    for c in range(k):  # MOA's sumOfValues, in class order
        total += node_stats[leaf, c]
        if node_stats[leaf, c] > 0.0:
            top_class = c
    if n_held == 0 or total == 0.0:
        for c in range(k):
            out[c] = 1.0 / k
        return 0
    observed = attr_ranks[-1] > 0
    n_values = nominal_counts.shape[2]
    best, best_vote, votes_sum = 0, 0.0, 0.0
    for c in range(k):
        vote = 0.0
        if c <= top_class:  # MOA's votes stop at the highest class the leaf holds
            vote = node_stats[leaf, c] / total
            if observed:
                for j in range(feat_map.shape[0]):
                    value = x[feat_map[j]]
                    if value != value:
                        continue
                    if feat_nominal[j]:
                        vote *= _laplace(nominal_counts, value_ranks, c, j, value, n_values)
                    else:
                        vote *= moa_density(numeric_stats[c, j], value)
        out[c] = vote
        votes_sum += vote
        if c == 0 or vote > best_vote:
            best, best_vote = c, vote
    if votes_sum > 0.0:
        for c in range(k):
            out[c] = out[c] / votes_sum
    else:
        for c in range(k):
            out[c] = 1.0 / k
    return best


@kernel
def _laplace(nominal_counts, value_ranks, c, j, value, n_values):  # pragma: no cover - compiled
    """MOA's Laplace-corrected ``P(value | c)`` of nominal attribute ``j`` (module docstring)."""
    if value_ranks[c, j, n_values] == 0:  # no value of the class there: MOA's null observer
        return 0.0
    seen, width = 0.0, 0
    for v in range(n_values):
        seen += nominal_counts[c, j, v]
        if value_ranks[c, j, v] != 0:
            width = v + 1
    code = int(value)
    count = nominal_counts[c, j, code] if 0 <= code < n_values else 0.0
    return (count + 1.0) / (seen + width)


@kernel
def moa_majority_is(leaf, y, node_stats, node_classes):  # pragma: no cover - compiled
    """Whether MOA's majority class of ``leaf`` (``DoubleVector.maxIndex``: the first class by
    index of the highest weight; none for an empty leaf) is ``y``.
    """
    if node_classes[leaf, -1] == 0:
        return False
    best = 0
    for c in range(1, node_stats.shape[1]):
        if node_stats[leaf, c] > node_stats[leaf, best]:
            best = c
    return best == y
