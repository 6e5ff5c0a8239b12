"""Modules imported on first use.

A booster's class carries its hyper-parameters' constraints, which the config check reads before
any work; the compiled maths and kernels its methods call take seconds to import. The booster
modules bind those modules with :func:`lazy_import`, so that importing a booster class costs
nothing and the first call that needs one imports it.
"""

from __future__ import annotations

import importlib.util
import sys
import types


def lazy_import(name: str) -> types.ModuleType:
    """The module ``name``, executed on the first access to one of its attributes (importlib's
    ``LazyLoader``, the recipe of the ``importlib`` documentation); the module itself if it is
    imported already.

    Raises:
        ModuleNotFoundError: no module ``name``.
    """
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.find_spec(name)
    if spec is None or spec.loader is None:
        raise ModuleNotFoundError(f"No module named {name!r}", name=name)
    spec.loader = importlib.util.LazyLoader(spec.loader)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    parent, _, child = name.rpartition(".")
    if parent:  # as the import system binds a submodule on its package
        setattr(sys.modules[parent], child, module)
    return module
