"""Probability distributions with SciPy's signatures (``jax.scipy.stats``' layout).

Each distribution is a module of functions (``norm.logpdf(x, loc, scale)``),
differentiable in the data and in the parameters.  So far: :mod:`.norm`.
"""
from . import norm

__all__ = ["norm"]
