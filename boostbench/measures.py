"""The registry of measures: every number a run record holds, what it means and where it lies.

One entry per measure (:class:`Measure`): its name in the record, whether higher or lower is
better (None: neither, e.g. a count), a one-line meaning, the tasks and protocols that write it,
its kind (a number, a list with one value per fold, a curve along a record's axis) and its domain
(the values it can take). The record's schema (:mod:`boostbench.runner.record`), the reports'
``--metric``, the summary, the leaderboard and the HTML page all read it from here; a new measure
is one more entry of :data:`MEASURES` (or :data:`CURVES`), and every reader knows it.

Names are derived for the k-fold distributed validation (``protocol=prequential_cv``, Bifet et al.,
KDD 2015): for every measure ``m`` of a prequential pass the record holds ``m`` (the copies' mean),
``m_ci_low`` and ``m_ci_high`` (its Student-t interval) and ``fold_m`` (one value per copy):
:func:`lookup` resolves them. A name the registry does not know (a plugin's measure) is a number;
the reports read its range and direction from its name (:func:`guess`), a record is never refused
on that guess.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Literal

from boostbench.multilabel_metrics import MEASURES as MULTILABEL_TABLE

#: What a measure is in a record: a number (or null where undefined), a list of one number per
#: fold of a split or copy of a k-fold distributed validation, a curve (``record["curve"]``)
Kind = Literal["scalar", "per_fold", "curve"]
MULTICLASS, MULTILABEL = ("multiclass",), ("multilabel",)
BOTH = (*MULTICLASS, *MULTILABEL)
PREQUENTIAL = ("prequential", "prequential_cv")
SPLIT = ("kfold", "holdout")
EVERY = (*PREQUENTIAL, "train_test", *SPLIT)
RATE = (0.0, 1.0)
KAPPA = (-1.0, 1.0)
#: kappa-M and kappa-T: a classifier worse than the majority-class or no-change one has any
#: negative value
AT_MOST_ONE = (-math.inf, 1.0)
COST = (0.0, math.inf)
ANY = (-math.inf, math.inf)


@dataclass(frozen=True)
class Measure:
    """One measure of the registry.

    Attributes:
        name: its key in a record's ``metrics`` (or ``curve``).
        higher_is_better: True (an accuracy), False (an error, a cost), None (a count, a spread).
        meaning: what it measures, in one line of plain text.
        tasks: the tasks whose runs write it (``multiclass``, ``multilabel``).
        protocols: the protocols whose runs write it.
        kind: ``scalar``, ``per_fold`` or ``curve`` (:data:`Kind`).
        domain: ``(low, high)``, the values it can take (inclusive; infinite: no bound).
        title: its short name in a table's heading.
        fmt: its number format (None: one chosen for the column by the reports).
    """

    name: str
    higher_is_better: bool | None
    meaning: str
    tasks: tuple[str, ...] = MULTICLASS
    protocols: tuple[str, ...] = PREQUENTIAL
    kind: Kind = "scalar"
    domain: tuple[float, float] = ANY
    title: str = ""
    fmt: str | None = ".4f"

    @property
    def metric(self) -> str:
        """Its name (the leaderboard's word for it)."""
        return self.name

    @property
    def what(self) -> str:
        """Its meaning (the leaderboard's word for it)."""
        return self.meaning

    @property
    def rankable(self) -> bool:
        """Whether runs can be ranked by it: a number with a direction."""
        return self.kind == "scalar" and self.higher_is_better is not None

    def problem(self, value: object) -> str | None:
        """Why ``value`` (a number, or null where the measure is undefined) lies outside the
        measure's :attr:`domain` (None: it does not).
        """
        if value is None or isinstance(value, bool) or not isinstance(value, int | float):
            return None
        low, high = self.domain
        if low <= value <= high:
            return None
        return f"metric {self.name} is {value!r}, outside {domain_text(self.domain)}"


def domain_text(domain: tuple[float, float]) -> str:
    """A domain as an interval: ``[0, 1]``, ``(-inf, 1]``, ``[0, inf)``."""
    low, high = domain
    left = "(-inf" if low == -math.inf else f"[{low:g}"
    right = "inf)" if high == math.inf else f"{high:g}]"
    return f"{left}, {right}"


_FINAL = "over the final part of the pass (protocol.final_fraction: the last 20% by default)"
_WHOLE = "over the whole pass"
_FADING = "with the fading factor protocol.fading (Gama, Sebastiao & Rodrigues, MLJ 2013)"


def _m(name: str, higher: bool | None, meaning: str, *args, **kw) -> Measure:
    return Measure(name, higher, meaning, *args, **kw)


def _cost(name: str, meaning: str, title: str = "", **kw) -> Measure:
    kw.setdefault("fmt", None)
    return Measure(name, False, meaning, BOTH, EVERY, "scalar", COST, title, **kw)


def _count(name: str, meaning: str, tasks=BOTH, protocols=EVERY, kind: Kind = "scalar") -> Measure:
    return Measure(name, None, meaning, tasks, protocols, kind, COST, fmt=None)


#: Every measure a run record's ``metrics`` holds, by name
MEASURES: dict[str, Measure] = {
    m.name: m
    for m in (
        # the prequential pass (Jung et al. 2017; MOA's evaluators, Bifet et al. 2015)
        _m("final_accuracy", True, f"accuracy {_FINAL}", domain=RATE, title="accuracy"),
        _m("cumulative_accuracy", True, f"accuracy {_WHOLE}", domain=RATE, title="cumulative accuracy"),
        _m("final_kappa", True, f"Cohen's kappa {_FINAL}", domain=KAPPA, title="kappa"),
        _m("cumulative_kappa", True, f"Cohen's kappa {_WHOLE}", domain=KAPPA, title="cumulative kappa"),
        _m("final_macro_f1", True, f"F1 averaged over the classes {_FINAL}", domain=RATE, title="macro-F1"),
        _m(
            "cumulative_macro_f1",
            True,
            f"F1 averaged over the classes {_WHOLE}",
            domain=RATE,
            title="cumulative macro-F1",
        ),
        _m(
            "final_kappa_m",
            True,
            "the accuracy gained over the majority-class classifier, same part (Bifet et al. 2015)",
            domain=AT_MOST_ONE,
            title="kappa-M",
        ),
        _m(
            "final_kappa_t",
            True,
            "the accuracy gained over the no-change classifier, same part (Žliobaitė et al. 2015)",
            domain=AT_MOST_ONE,
            title="kappa-T",
        ),
        _m("cumulative_kappa_m", True, f"kappa-M {_WHOLE}", domain=AT_MOST_ONE, title="cumulative kappa-M"),
        _m("cumulative_kappa_t", True, f"kappa-T {_WHOLE}", domain=AT_MOST_ONE, title="cumulative kappa-T"),
        _m("fading_accuracy", True, f"prequential accuracy {_FADING}", domain=RATE, title="fading accuracy"),
        _m("fading_kappa", True, f"Cohen's kappa {_FADING}", domain=KAPPA, title="fading kappa"),
        _m(
            "final_accuracy_online_choice",
            True,
            "accuracy of the member chosen online (best_vfdt), same part",
            domain=RATE,
            protocols=("prequential",),
        ),
        _m(
            "final_accuracy_member_mean",
            True,
            "mean accuracy of the ensemble's members, same part",
            domain=RATE,
            protocols=("prequential",),
        ),
        _m(
            "final_accuracy_member_std",
            None,
            "spread (std) of the members' accuracies, same part",
            domain=RATE,
            protocols=("prequential",),
        ),
        _count("best_member", "the member with the best final accuracy (0-based)", MULTICLASS, ("prequential",)),
        _count("final_window_examples", "examples in the final part", MULTICLASS, PREQUENTIAL),
        # the MULAN train -> test pass (Jung & Tewari 2018)
        _m(
            "test_rank_loss",
            False,
            "rank loss averaged over the test file (ties count 1/2)",
            MULTILABEL,
            ("train_test",),
            domain=RATE,
            title="rank loss",
        ),
        _m("train_rank_loss", False, "rank loss over the training pass", MULTILABEL, ("train_test",), domain=RATE),
        _count("n_train", "training examples", MULTILABEL, ("train_test",)),
        # the split protocols: k-fold cross-validation, one holdout split
        _m("test_error", False, "test error, mean over the folds", BOTH, SPLIT, domain=RATE, title="test error"),
        _m("test_error_std", None, "spread (std, ddof 1) of the folds' test errors", BOTH, SPLIT, domain=RATE),
        _m("test_accuracy", True, "1 - test error, mean over the folds", BOTH, SPLIT, domain=RATE),
        _m("train_error", False, "training error, mean over the folds", BOTH, SPLIT, domain=RATE),
        _m("fold_test_error", False, "each fold's test error", BOTH, SPLIT, kind="per_fold", domain=RATE),
        _count("n_rounds_fitted", "boosting rounds each fold kept", BOTH, SPLIT, kind="per_fold"),
        _count("n_test", "test examples (all folds)", BOTH, ("train_test", *SPLIT)),
        _count("n_folds", "folds of a split, copies of a distributed validation", BOTH, (*SPLIT, "prequential_cv")),
        # what a pass costs
        _cost("runtime_s", "wall seconds of the pass (kernel compilation and cache fills left out)", "runtime s"),
        _cost("cpu_s", "CPU seconds of the pass, every thread (kernel compilation and cache fills left out)", "CPU s"),
        _cost("ram_hours", "MOA's RAM-hours, GiB of model memory x hours of CPU time", "RAM-hours"),
        _cost("us_per_example", "wall microseconds per example of the pass", "µs per example"),
        _cost("peak_rss_bytes", "the process's peak resident memory during the run, bytes"),
        _cost("model_bytes", "the model's size at the end of the pass, bytes (the largest fold's or copy's)"),
        _cost("pool_bytes", "the compiled pool's memory at the end of the pass, bytes"),
        _cost("cache_fill_s", "seconds spent filling the booster's caches during the pass"),
        _cost("compile_s", "seconds of numba compilation before the timed pass (0 when cached)"),
        _count("budget_enforcements", "times the compiled pool shrank its trees to its memory budget"),
        _count("n_examples", "examples the learner was trained on (all folds of a split)"),
    )
}

#: The multi-label measures over the test part, in the reports' order (the seed's rank loss first)
MULTILABEL_SET = tuple(f"test_{m.name}" for m in MULTILABEL_TABLE)
MEASURES.update(
    {
        name: _m(
            name,
            m.higher_is_better,
            f"{m.meaning}, over the test part",
            MULTILABEL,
            ("train_test",),
            domain=m.domain,
            title=m.title,
        )
        for name, m in zip(MULTILABEL_SET, MULTILABEL_TABLE, strict=True)
        if name not in MEASURES
    }
)

#: Every curve a run record's ``curve`` holds, by name (along its axis: :data:`CURVE_AXES`)
CURVES: dict[str, Measure] = {
    m.name: m
    for m in (
        _m("cumulative_accuracy", True, "accuracy up to each checkpoint", kind="curve", domain=RATE),
        _m("windowed_accuracy", True, "accuracy over the last protocol.window examples", kind="curve", domain=RATE),
        _m("windowed_kappa", True, "Cohen's kappa over the last window", kind="curve", domain=KAPPA),
        _m("windowed_kappa_m", True, "kappa-M over the last window", kind="curve", domain=AT_MOST_ONE),
        _m("windowed_kappa_t", True, "kappa-T over the last window", kind="curve", domain=AT_MOST_ONE),
        _m("cumulative_kappa_m", True, "kappa-M up to each checkpoint", kind="curve", domain=AT_MOST_ONE),
        _m("cumulative_kappa_t", True, "kappa-T up to each checkpoint", kind="curve", domain=AT_MOST_ONE),
        _m("fading_accuracy", True, f"accuracy {_FADING}", kind="curve", domain=RATE),
        _m("fading_kappa", True, f"Cohen's kappa {_FADING}", kind="curve", domain=KAPPA),
        _m(
            "test_rank_loss",
            False,
            "mean test rank loss up to each test example",
            MULTILABEL,
            ("train_test",),
            "curve",
            RATE,
        ),
        _m("train_error", False, "training error after each boosting round", BOTH, SPLIT, "curve", RATE),
        _m("test_error", False, "test error after each boosting round", BOTH, SPLIT, "curve", RATE),
    )
}

CURVES.update(
    {
        f"windowed_{m.name}": _m(
            f"windowed_{m.name}",
            m.higher_is_better,
            f"{m.meaning}, over the last protocol.window test examples",
            MULTILABEL,
            ("train_test",),
            "curve",
            m.domain,
        )
        for m in MULTILABEL_TABLE
    }
)

#: A record's curve shapes: its x axis, then the curves over it (:data:`CURVES`); the first
#: curve of a shape is required
CURVE_AXES = {
    "examples_seen": ("cumulative_accuracy",),  # prequential
    "test_examples_seen": ("test_rank_loss",),  # multi-label train then test
    "rounds": ("train_error", "test_error"),  # the split protocols, by boosting round
}
#: The derived names of k-fold distributed validation: prefix or suffix -> what it is
FOLD_PREFIX = "fold_"
INTERVAL_SUFFIXES = ("_ci_low", "_ci_high")


def lookup(name: str) -> Measure | None:
    """The registry's measure ``name`` of a record's ``metrics``, the derived names of k-fold
    distributed validation included (``fold_m``: a per-fold list of ``m``; ``m_ci_low`` and
    ``m_ci_high``: the ends of ``m``'s Student-t interval, no direction and no domain, as a t
    interval runs past the measure's range); None for a name the registry does not know.
    """
    if name in MEASURES:
        return MEASURES[name]
    base = name.removeprefix(FOLD_PREFIX)
    if base != name and MEASURES.get(base) is not None and MEASURES[base].kind == "scalar":
        m = MEASURES[base]
        return replace(m, name=name, protocols=("prequential_cv",), kind="per_fold", meaning=f"each copy's {base}")
    for suffix in INTERVAL_SUFFIXES:
        base = name.removesuffix(suffix)
        if base != name and base in MEASURES:
            bound = "lower" if suffix == "_ci_low" else "upper"
            return replace(
                MEASURES[base],
                name=name,
                higher_is_better=None,
                protocols=("prequential_cv",),
                domain=ANY,
                meaning=f"the {bound} end of {base}'s 95% Student-t interval over the copies",
            )
    return None


def curve(name: str) -> Measure | None:
    """The registry's curve ``name`` (None: not known)."""
    return CURVES.get(name)


def kind(name: str) -> Kind:
    """What ``name`` is in a record's ``metrics``: ``per_fold`` for a list, else ``scalar`` (a
    name the registry does not know is a number).
    """
    found = lookup(name)
    return found.kind if found is not None else "scalar"


def guess(name: str) -> Measure | None:
    """A measure the registry does not know (a plugin's, or one added to records before its
    entry), read from its name as ours are named: a rate (``accuracy``, ``error``, ``f1``,
    ``rank_loss``, ``precision``, ``recall``) in [0, 1], a kappa in [-1, 1] (kappa-M and kappa-T
    at most 1), a time, size or count (``_s``, ``_bytes``, ``_hours``, ``n_``) at least 0; lower
    is better for an error, a loss or a cost. None when the name says none of these. Used for
    reporting only: a record is never refused on a guess.
    """
    if name.endswith(("_s", "_bytes", "_hours", "_mib")) or name.startswith("n_"):
        return Measure(name, None, name.replace("_", " "), BOTH, EVERY, "scalar", COST, fmt=None)
    words = (
        (("kappa_m", "kappa_t"), AT_MOST_ONE),
        (("kappa",), KAPPA),
        (("accuracy", "error", "f1", "rank_loss", "precision", "recall", "loss"), RATE),
    )
    for parts, bounds in words:
        if any(part in name for part in parts):
            lower = any(word in name for word in ("error", "loss"))
            return Measure(name, not lower, name.replace("_", " "), BOTH, EVERY, "scalar", bounds)
    return None


def known(name: str) -> Measure | None:
    """The measure or curve ``name``: the registry's (:func:`lookup`, :func:`curve`), else
    :func:`guess`'s.
    """
    return lookup(name) or curve(name) or guess(name)


def domain(name: str) -> tuple[float, float]:
    """The values measure (or curve) ``name`` can take (:attr:`Measure.domain`, :func:`known`);
    ``(-inf, inf)`` for a name that says nothing of it.
    """
    found = known(name)
    return found.domain if found is not None else ANY


def positive(name: str) -> bool:
    """Whether ``name`` is a cost or count: at least 0 with no upper bound (seconds, bytes, RAM-hours,
    examples).
    """
    return domain(name) == COST


def higher_is_better(name: str) -> bool | None:
    """Whether a higher ``name`` is better (None: neither, or not known)."""
    found = known(name)
    return found.higher_is_better if found is not None else None


def value_problem(name: str, value: object) -> str | None:
    """Why ``value`` is no value of metric ``name`` (None: it is): outside its domain, or a
    per-fold list with a value outside it. A name the registry does not know has no domain.
    """
    found = lookup(name)
    if found is None:
        return None
    for each in value if isinstance(value, list) else [value]:
        problem = found.problem(each)
        if problem is not None:
            return problem if not isinstance(value, list) else f"{problem} (in its list)"
    return None


#: The prefixes of the measures every run can be summarized and ranked by
SUMMARIZED_PREFIXES = ("final_", "fading_", "cumulative_")


def summarizable(name: str) -> bool:
    """Whether ``report summary --metric name`` can show ``name``: a registered number (a cost, a
    count and an interval bound included), or an unregistered one (a plugin's) whose record holds it.
    """
    found = lookup(name)
    return found is None or found.kind == "scalar"


def names(kind_: Kind = "scalar") -> list[str]:
    """The registered measures of one kind, in the registry's order."""
    return [name for name, m in MEASURES.items() if m.kind == kind_]


def title(name: str) -> str:
    """A measure's short title (its name in words where it has none)."""
    found = known(name)
    return found.title if found is not None and found.title else name.removeprefix("final_").replace("_", " ")


def describe(name: str) -> str:
    """``name: its meaning (higher is better)``, in one line, for a table's caption (the name alone
    for a measure that says nothing of itself).
    """
    found = known(name)
    if found is None:
        return name
    direction = {True: " (higher is better)", False: " (lower is better)", None: ""}[found.higher_is_better]
    return f"{name}: {found.meaning}{direction}"
