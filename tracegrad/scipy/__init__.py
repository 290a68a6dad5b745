"""``tracegrad.scipy``: SciPy's functions, differentiable (``jax.scipy``'s layout).

In progress (issue 11): :mod:`tracegrad.scipy.linalg` so far.
"""
from . import linalg

__all__ = ["linalg"]
