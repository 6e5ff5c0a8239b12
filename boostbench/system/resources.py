"""What a run costs the machine: CPU seconds, resident memory, its peak, and MOA's RAM-hours.

Every figure counts this process and its live child processes (a MOA peer runs its Java loop in a
child), read from Linux's ``/proc``; where ``/proc`` is absent the figures are this process's only.
Peers and our boosters are measured by the same code, around the same protocol loop.
"""

from __future__ import annotations

import ctypes
import gc
import os
import resource
import time
from pathlib import Path

GIB = float(1 << 30)  # MOA's RAM-hours count gigabytes as 1024^3 bytes
PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


def _children(pid: str = "self") -> list[str]:
    """The ids of the live descendants of ``pid`` (``/proc/<pid>/task/*/children``)."""
    found: list[str] = []
    try:
        tasks = list(Path(f"/proc/{pid}/task").iterdir())
    except OSError:
        return found
    for task in tasks:
        try:
            direct = (task / "children").read_text().split()
        except OSError:
            continue
        for child in direct:
            found += [child, *_children(child)]
    return found


def _child_cpu_seconds(pid: str) -> float:
    """User + system CPU seconds of process ``pid`` (``/proc/<pid>/stat`` fields 14 and 15)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    except OSError:
        return 0.0  # it ended meanwhile
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def usable_cores() -> int:
    """The cores this process may run on: its CPU affinity where the system has one, else all."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def cpu_seconds() -> float:
    """CPU seconds (user + system, every thread) used so far by this process and its live
    children: ``time.process_time`` plus the children's ``/proc/<pid>/stat``.
    """
    return time.process_time() + sum(_child_cpu_seconds(pid) for pid in _children())


def _status_bytes(pid: str, field: str) -> int:
    """A ``kB`` field of ``/proc/<pid>/status`` (``VmRSS``, ``VmHWM``) in bytes, 0 if unreadable."""
    try:
        with open(f"/proc/{pid}/status") as handle:
            for line in handle:
                if line.startswith(field + ":"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def rss_bytes() -> int:
    """Resident bytes of this process (``/proc/self/statm``) and its live children."""
    try:
        own = int(Path("/proc/self/statm").read_text().split()[1]) * PAGE
    except OSError:
        return int(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss) * 1024
    return own + sum(_status_bytes(pid, "VmRSS") for pid in _children())


M_MMAP_THRESHOLD = -3  # glibc's mallopt parameter
MMAP_THRESHOLD = 128 * 1024  # glibc's default: a block this big or bigger gets pages of its own


#: A full collection, frozen objects included, once the objects frozen have doubled since the last
FROZEN_GROWTH = 2.0
#: The objects frozen: in all, and just after the last full collection (None: none yet). Counted as
#: they are frozen (``gc.get_freeze_count`` walks them all: ~25 ms in a sweep worker); those freed
#: since, by their reference counts, are still counted, which only brings the next full one earlier
_FROZEN = {"now": 0, "after_full": None}


def collect_garbage() -> None:
    """Collect Python's garbage, then freeze what survives (``gc.freeze``).

    What survives (modules, compiled kernels, caches, the run's data) outlives what follows, so the
    collector need not scan it again: neither during a timed pass nor at the next run's collection
    (a full one over a sweep worker's ~220,000 objects costs ~110 ms CPU, most of a job's fixed
    cost). A frozen object that later dies in a reference cycle (an earlier job's config) is not
    freed, so once the objects frozen have doubled since the last full collection, all are
    unfrozen and collected: what earlier runs left is bounded by what lives, and the full
    collection's cost is shared by the runs between. The numbers a run measures are those of a
    fresh process: the garbage is collected either way.
    """
    full = _FROZEN["after_full"] is None or _FROZEN["now"] > FROZEN_GROWTH * _FROZEN["after_full"]
    if full:
        gc.unfreeze()
        _FROZEN["now"] = 0
    gc.collect()
    _FROZEN["now"] += len(gc.get_objects())  # the tracked objects outside the frozen ones
    gc.freeze()
    if full:
        _FROZEN["after_full"] = _FROZEN["now"]


def release_free_memory() -> None:
    """Give back to the system what earlier work freed, and keep large blocks out of the heap.

    Collects Python's garbage (:func:`collect_garbage`), then glibc's ``malloc_trim(0)`` (freed
    heap pages stay resident otherwise). And fixes glibc's mmap threshold at its default: glibc
    raises it as large blocks are freed (up to 32 MiB), after which a run's large zeroed arrays
    come out of the heap earlier runs grew, and ``calloc`` touches every page of them, where a
    fresh process gets untouched pages from the system (balance's compiled pool after 400 MB
    freed: 184 -> 594 MiB peak).
    """
    collect_garbage()
    try:
        libc = ctypes.CDLL("libc.so.6")
        libc.mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD)
        libc.malloc_trim(0)
    except (OSError, AttributeError):
        pass  # not glibc


#: This process's resident bytes without its data when its first run's pass was about to begin
#: (modules, compiled kernels, caches: what any process running a pass holds), and the current
#: run's resident bytes then and data bytes
_BASELINE: dict[str, int | None] = {"floor": None, "start": 0, "data": 0}


def reset_peak_rss(data_bytes: int = 0) -> bool:
    """Start a run's peak of the resident set, just before its pass (modules imported, kernels
    compiled, data loaded): release freed memory (:func:`release_free_memory`; what survives is
    frozen for the pass, :func:`collect_garbage`), note the resident size, then Linux's ``5`` into
    ``/proc/self/clear_refs`` (the peak becomes the current size). See :func:`peak_rss_bytes`.

    Args:
        data_bytes: the bytes of the run's data set (its arrays).

    Returns:
        Whether the peak could be reset.
    """
    release_free_memory()
    try:
        with open("/proc/self/clear_refs", "w") as handle:
            handle.write("5")
    except OSError:
        return False
    _BASELINE["start"], _BASELINE["data"] = _status_bytes("self", "VmRSS"), int(data_bytes)
    if _BASELINE["floor"] is None:
        _BASELINE["floor"] = _BASELINE["start"] - _BASELINE["data"]
    return True


def peak_rss_bytes() -> int:
    """A run's peak resident set in bytes, plus the peaks of the run's live child processes (a
    peer's Java process).

    After :func:`reset_peak_rss`: the process's floor (its resident size without data when its
    first run's pass began), plus this run's data, plus what the pass added (``VmHWM`` over the
    resident size it began with). In a fresh process that is its own ``VmHWM`` from the pass on. In
    a sweep's reused worker the floor is its first run's, so the reading moves with that run by
    hundreds of MiB (the modules and kernels it had loaded), while what the pass added does not
    (:func:`pass_added_bytes`; ``benchmarks/peak_rss_reuse.py`` shows both). Without ``/proc``
    (no reset): the process's peak (``getrusage``).
    """
    own = _status_bytes("self", "VmHWM")
    if not own:
        return int(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss) * 1024
    if _BASELINE["floor"] is not None:
        own = _BASELINE["floor"] + _BASELINE["data"] + pass_added_bytes()
    return own + sum(_status_bytes(pid, "VmHWM") for pid in _children())


def pass_added_bytes() -> int:
    """What the current run's pass added to this process's resident set, in bytes: ``VmHWM``
    since :func:`reset_peak_rss` over the resident size then (0 without ``/proc``). Unlike
    :func:`peak_rss_bytes` it does not depend on the jobs the process ran before.
    """
    own = _status_bytes("self", "VmHWM")
    return max(0, own - _BASELINE["start"]) if own and _BASELINE["floor"] is not None else 0


#: Examples between two samples of a pass's memory (for its RAM-hours)
SAMPLE_EVERY = 1000


class ResourceMeter:
    """CPU seconds and RAM-hours of a pass, sampled between chunks of examples.

    RAM-hours are MOA's (``EvaluatePrequential``): at each sample, the model's size in GiB times
    the CPU hours since the previous sample, summed over the pass. The model's size is what we can
    read cheaply for every algorithm alike, our pools and the peers' (river's objects, MOA's
    Java process): the resident memory of the process and its children above what it was when the
    pass began (the data, the modules and the compiled code are there already), never below 0.

    Attributes:
        cpu_s: CPU seconds since :meth:`start` (all threads, children included), after :meth:`stop`.
        ram_hours: GiB-hours accumulated so far.
        model_bytes: the model's resident bytes at the last sample.
    """

    def __init__(self) -> None:
        self.cpu_s = 0.0
        self.ram_hours = 0.0
        self.model_bytes = 0
        self._cpu0 = self._last_cpu = 0.0
        self._rss0 = 0

    def start(self) -> None:
        self._rss0 = rss_bytes()
        self._cpu0 = self._last_cpu = cpu_seconds()

    def sample(self) -> None:
        """Add the RAM-hours since the last sample (call it every few thousand examples)."""
        now = cpu_seconds()
        self.model_bytes = max(0, rss_bytes() - self._rss0)
        self.ram_hours += self.model_bytes / GIB * (now - self._last_cpu) / 3600.0
        self._last_cpu = now

    def stop(self) -> None:
        self.sample()
        self.cpu_s = self._last_cpu - self._cpu0


#: A record's metrics that measure the machine, not the algorithm: two runs of one config differ there
MACHINE_DEPENDENT = (
    "runtime_s",
    "us_per_example",
    "peak_rss_bytes",
    "compile_s",
    "cache_fill_s",
    "cpu_s",
    "ram_hours",
    "model_bytes",
)


def machine_memory_bytes() -> int | None:
    """The most memory this machine can give a process, in bytes: its RAM and swap
    (``/proc/meminfo``), or its cgroup's limit if lower; None if neither can be read.
    """
    found = []
    try:
        sizes = dict(line.split(":", 1) for line in Path("/proc/meminfo").read_text().splitlines() if ":" in line)
        found.append(sum(int(sizes[key].split()[0]) * 1024 for key in ("MemTotal", "SwapTotal") if key in sizes))
    except (OSError, ValueError, IndexError):
        pass
    try:
        limit = Path("/sys/fs/cgroup/memory.max").read_text().strip()
        if limit != "max":
            found.append(int(limit))
    except (OSError, ValueError):
        pass
    found = [size for size in found if size > 0]
    return min(found) if found else None


def limit_memory() -> int | None:
    """Refuse an allocation beyond the machine before it is made: cap this process's data
    (``RLIMIT_DATA``: its heap and private writable mappings, where numpy's arrays live; not the
    address space, which compiled code and a JVM reserve freely) at :func:`machine_memory_bytes`,
    unless a lower limit is set. A setting that would allocate more then raises ``MemoryError``
    at once (one line from the CLI, a failed job in a sweep) instead of swapping the machine to
    a halt or waking the OOM killer. Inherited by child processes. Returns the limit (None: none
    set).
    """
    size = machine_memory_bytes()
    if size is None:
        return None
    try:
        soft, hard = resource.getrlimit(resource.RLIMIT_DATA)
        if soft != resource.RLIM_INFINITY and soft <= size:
            return soft
        size = size if hard == resource.RLIM_INFINITY else min(size, hard)
        resource.setrlimit(resource.RLIMIT_DATA, (size, hard))
    except (OSError, ValueError, AttributeError):
        return None
    return size
