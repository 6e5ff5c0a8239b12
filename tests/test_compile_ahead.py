"""A second process compiles the split attempt's kernels on an empty kernel cache: the kernels it
is given are the ones training calls, a call waits for that process, and a process that fails
leaves nothing to wait for."""

import json
import os
import subprocess
import sys
import textwrap

import numba
import numpy as np
import pytest

from boostbench.learners.compiled_pool import CompiledHoeffdingTreePool
from boostbench.learners.pool import HoeffdingTreeParams
from boostbench.learners.vfdt import training
from boostbench.system import compile_ahead, kernel_cache


def _pool(n_categories):  # two trees, three classes
    n = 2
    params = HoeffdingTreeParams(
        delta=np.full(n, 0.1), tau=np.full(n, 0.05), grace_period=np.full(n, 5), weight_scale=np.ones(n)
    )
    return CompiledHoeffdingTreePool(params, 3, n_categories)


def test_the_probe_gives_the_kernels_the_types_training_gives_them(monkeypatch):
    calls = []
    template = kernel_cache.KernelDispatcher.get_call_template

    def recorded(self, args, kws):
        calls.append((self.py_func.__name__, tuple(numba.types.unliteral(a) for a in args)))
        return template(self, args, kws)

    monkeypatch.setattr(kernel_cache.KernelDispatcher, "get_call_template", recorded)

    def typed_anew(kernel, args):  # a dispatcher of its own, never cached: its calls are typed now
        calls.clear()
        kernel_cache.njit(kernel.py_func, _nrt=False).compile(tuple(numba.typeof(a) for a in args))
        return {call for call in calls if call[0] in {k.py_func.__name__ for k in training.AHEAD_KERNELS}}

    pool = _pool([3, 0])  # a nominal and a numeric attribute
    state = pool.reserve()
    trained = typed_anew(training.learn_all, (pool.prepare(np.array([1.0, 0.5])), 1, np.ones(2), state, pool.nb_leaves))
    probed = typed_anew(training.split_attempt_probe, (state, 0, 0, 0))
    assert {name for name, _ in trained} == {k.py_func.__name__ for k in training.AHEAD_KERNELS}
    assert probed == trained


HOLDER = """
import fcntl, sys, time
handle = open(sys.argv[1], "a")
fcntl.flock(handle, fcntl.LOCK_EX)
print("ready", flush=True)
time.sleep(0.5)
open(sys.argv[2], "w").write("compiled")
"""


def test_a_call_waits_for_the_process_compiling_its_kernel(tmp_path, monkeypatch):
    name = "some.module:kernel"
    lock, done = compile_ahead._lock_path(str(tmp_path), name), tmp_path / "done"
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(lock), str(done)], stdout=subprocess.PIPE)
    assert holder.stdout.readline() == b"ready\n"
    monkeypatch.setitem(compile_ahead._WAITING, name, lock)
    compile_ahead.wait_for(name)  # returns once the holder has finished and let go
    assert done.read_text() == "compiled"
    assert name not in compile_ahead._WAITING  # once: later calls do not wait
    holder.wait()


def test_a_second_process_that_fails_leaves_nothing_to_wait_for(tmp_path, monkeypatch):
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))

    def probe():  # its module cannot be imported by another process: it fails after "ready"
        pass

    probe.__module__ = "no_such_module_here"
    with compile_ahead.compiling_ahead(probe, (), [training.AHEAD_KERNELS[0]]):
        name = compile_ahead.kernel_name(training.AHEAD_KERNELS[0])
        assert name in compile_ahead._WAITING
        compile_ahead.wait_for(name)  # the failed process's lock went with it
    assert not compile_ahead._WAITING


COLD_RUN = """
import json, sys, tempfile
from boostbench.cli import app
store = tempfile.mkdtemp()
try:
    app(["run", "dataset=car", "n_learners=5", "progress=false", f"results_dir={store}"], standalone_mode=False)
except SystemExit:
    pass
from boostbench.learners.vfdt import training
print(json.dumps({k.py_func.__name__: [len(k._cache_hits), len(k._cache_misses)] for k in training.AHEAD_KERNELS}))
"""


@pytest.mark.slow  # make test-slow: a cold start, about 20 s
def test_a_first_run_loads_the_split_kernels_a_second_process_compiled(tmp_path):
    env = {**os.environ, "BOOSTBENCH_CACHE": str(tmp_path)}
    env.pop("NUMBA_CACHE_DIR", None)
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(COLD_RUN)], env=env, capture_output=True, text=True, check=True
    )
    assert "compiling the numba kernels" in done.stderr
    loaded = json.loads(done.stdout.strip().splitlines()[-1])
    assert loaded == {kernel.py_func.__name__: [1, 0] for kernel in training.AHEAD_KERNELS}
