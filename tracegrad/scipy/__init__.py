"""SciPy-style functions on tracegrad arrays, with ``jax.scipy``'s module layout.

``tracegrad.scipy.special`` (special functions) and ``tracegrad.scipy.stats``
(distributions: ``stats.norm`` so far), with SciPy's signatures, each
differentiable to any order.  Partial: issue 11 is in progress (``linalg``,
``signal``, ``integrate``, ``optimize`` and the other distributions are
not written yet).

SciPy itself is not needed at run time; ``pip install -e ".[scipy]"``
installs it for the tests that compare against it.
"""
from . import special, stats

__all__ = ["special", "stats"]
