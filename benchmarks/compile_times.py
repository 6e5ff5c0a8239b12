"""Where a run's cold start goes: numba's compile time per kernel for one `boostbench run`.

    BOOSTBENCH_CACHE=$(mktemp -d) python benchmarks/compile_times.py                # the default run
    BOOSTBENCH_CACHE=$(mktemp -d) python benchmarks/compile_times.py dataset=mice algorithm=online_mbbm

Give it an empty cache (kernels loaded from the cache are not compiled, and do not show); the run
compiles every kernel itself, one after another, as it would without a second core. Prints,
after the run's own output, the run's seconds and the seconds spent compiling, the kernels and
compilations, then the kernels by their own compile seconds (without the kernels they call and
compile on the way: ``incl`` has those), and the kernels compiled for more than one signature.
Seconds are wall seconds: on a loaded machine, compare ratios taken in one session.
"""

from __future__ import annotations

import sys
import time
from collections import Counter, defaultdict

from numba.core.event import Listener, register


class CompileTimes(Listener):
    """A listener of numba's ``numba:compile`` events: seconds per kernel, with and without the
    kernels compiled inside its compilation, and the signatures compiled."""

    def __init__(self):
        self.stack: list[list] = []  # [name, start, seconds of nested compilations]
        self.inclusive: dict[str, float] = defaultdict(float)
        self.exclusive: dict[str, float] = defaultdict(float)
        self.count: Counter = Counter()
        self.signatures: dict[str, set] = defaultdict(set)

    def on_start(self, event) -> None:
        dispatcher = event.data["dispatcher"]
        name = f"{dispatcher.py_func.__module__}.{dispatcher.__name__}"
        self.stack.append([name, time.perf_counter(), 0.0])
        self.signatures[name].add(str(event.data["args"]))

    def on_end(self, event) -> None:
        name, began, nested = self.stack.pop()
        seconds = time.perf_counter() - began
        self.inclusive[name] += seconds
        self.exclusive[name] += seconds - nested
        self.count[name] += 1
        if self.stack:
            self.stack[-1][2] += seconds


def main(overrides: list[str]) -> None:
    import contextlib

    from boostbench.cli import app
    from boostbench.learners.compiled_pool import CompiledHoeffdingTreePool

    # every kernel compiled here, none by a second process (boostbench/system/compile_ahead.py)
    CompiledHoeffdingTreePool.compiling_ahead = lambda self: contextlib.nullcontext()
    times = CompileTimes()
    register("numba:compile", times)

    began = time.perf_counter()
    try:
        app(["run", *overrides], standalone_mode=False)
    except SystemExit:
        pass
    total = time.perf_counter() - began
    print(
        f"\nrun {total:.1f} s, compiling {sum(times.exclusive.values()):.1f} s: {len(times.count)} kernels, "
        f"{sum(times.count.values())} compilations"
    )
    for name in sorted(times.exclusive, key=times.exclusive.get, reverse=True)[:30]:
        print(f"{times.exclusive[name]:8.2f} s  (incl {times.inclusive[name]:7.2f})  x{times.count[name]}  {name}")
    for name, signatures in sorted(times.signatures.items()):
        if len(signatures) > 1 and name.startswith("boostbench"):
            print(f"{len(signatures)} signatures: {name}")


if __name__ == "__main__":
    main(sys.argv[1:])
