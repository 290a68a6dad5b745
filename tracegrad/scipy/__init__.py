"""SciPy-style functions on tracegrad arrays, with ``jax.scipy``'s module layout.

``tracegrad.scipy.special`` (special functions), ``tracegrad.scipy.stats``
(distributions), ``tracegrad.scipy.linalg`` (factorizations, solves, ``expm``),
``tracegrad.scipy.optimize`` (``minimize``), ``tracegrad.scipy.signal``
(N-d convolutions and correlations, direct and by FFT, ``detrend``) and
``tracegrad.scipy.integrate`` (the trapezoidal rule), with SciPy's
signatures, each differentiable to any order.  Partial: issue 11 is in
progress (the other distributions and special functions are not written
yet).

``special`` and ``stats`` do not need SciPy at run time; ``linalg`` uses it
for LAPACK routines NumPy lacks when it is installed (NumPy fallbacks
otherwise), and ``optimize.minimize`` runs SciPy's BFGS iteration
(``pip install -e ".[scipy]"``).
"""
from . import integrate, linalg, optimize, signal, special, stats

__all__ = ["integrate", "linalg", "optimize", "signal", "special", "stats"]
