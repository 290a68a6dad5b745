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
    _mod = _importlib.import_module(f"{__name__}.{_mod_name}")
    for _n in _mod.__all__:
        globals()[_n] = getattr(_mod, _n)
    __all__ += list(_mod.__all__)

from . import linalg  # noqa: E402  (tracegrad.numpy.linalg)

__all__.append("linalg")
