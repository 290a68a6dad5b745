"""``tracegrad.numpy``: a NumPy-like namespace built only from primitives.

Functions follow NumPy's signatures and semantics (axis, keepdims,
broadcasting, NumPy 2 dtype promotion).  On plain arrays they compute what
NumPy computes; on tracers they are differentiable under every transform.
Importing this module also installs tracer operators and NumPy's dispatch
protocols, so most plain NumPy code differentiates unchanged.
"""
import importlib as _importlib

from . import _dispatch, _methods  # noqa: F401  (tracer operators and protocols)

__all__ = []

for _mod_name in ("_core", "_elementwise", "_reductions", "_shape", "_indexing", "_linalg"):
    try:
        _mod = _importlib.import_module(f"{__name__}.{_mod_name}")
    except ModuleNotFoundError as _e:  # area not built yet
        if _e.name != f"{__name__}.{_mod_name}":
            raise
        continue
    for _n in _mod.__all__:
        globals()[_n] = getattr(_mod, _n)
    __all__ += list(_mod.__all__)

try:
    linalg = _importlib.import_module(f"{__name__}.linalg")
except ModuleNotFoundError as _e:
    if _e.name != f"{__name__}.linalg":
        raise
else:
    __all__.append("linalg")
