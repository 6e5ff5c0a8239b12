"""The machine side, below everything that computes: where files live (:mod:`~boostbench.system.paths`),
atomic writes, the kernel and array caches and their safety, CPU and memory meters, and the code
fingerprint.
"""
