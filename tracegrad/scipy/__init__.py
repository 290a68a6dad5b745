"""SciPy-style functions on tracegrad arrays, with ``jax.scipy``'s module layout.

``tracegrad.scipy.special`` (special functions), ``tracegrad.scipy.stats``
(distributions), ``tracegrad.scipy.linalg`` (factorizations, solves, ``expm``)
and ``tracegrad.scipy.optimize`` (``minimize``), with SciPy's signatures,
each differentiable to any order.  Partial: issue 11 is in progress
(``signal``, ``integrate`` and the other distributions and special functions
are not written yet).

``special`` and ``stats`` do not need SciPy at run time; ``linalg`` uses it
for LAPACK routines NumPy lacks when it is installed (NumPy fallbacks
otherwise), and ``optimize.minimize`` runs SciPy's BFGS iteration
(``pip install -e ".[scipy]"``).
"""
from . import linalg, optimize, special, stats

__all__ = ["linalg", "optimize", "special", "stats"]
