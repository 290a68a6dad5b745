"""``tracegrad.scipy``: SciPy's functions, differentiable (``jax.scipy``'s layout).

In progress (issue 11): :mod:`tracegrad.scipy.linalg` and
:func:`tracegrad.scipy.optimize.minimize` so far.
"""
from . import linalg, optimize

__all__ = ["linalg", "optimize"]
