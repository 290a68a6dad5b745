"""``tracegrad.scipy.optimize``: ``minimize`` on tracegrad's gradients.

``minimize(fun, x0, args, method="BFGS")`` has ``jax.scipy.optimize``'s
signature and result type (:class:`OptimizeResults`).  The gradient is
``tracegrad.value_and_grad(fun)`` (one forward and one reverse pass per
evaluation); the quasi-Newton iteration and its line search are SciPy's
(``scipy.optimize.minimize(method="BFGS", jac=True)``: BFGS with the
Wolfe line search of Nocedal and Wright, "Numerical Optimization" (2006),
algorithms 6.1 and 3.5), since an optimizer loop is not what this library
exists for and SciPy's is well tested.  SciPy is an optional extra: ``pip
install -e ".[scipy]"``.

Runs on concrete values only: under ``jit``, ``grad`` or ``vmap`` of an
enclosing function (``x0`` or ``args`` being traced) it raises
``TypeError``; differentiating through the solution (implicit
differentiation) is not available yet.
"""
import collections

import numpy as np

from ..core import Tracer
from ..transforms import value_and_grad

__all__ = ["minimize", "OptimizeResults"]

#: The result of :func:`minimize`, as ``jax.scipy.optimize.OptimizeResults``.
OptimizeResults = collections.namedtuple(
    "OptimizeResults", ["x", "success", "status", "fun", "jac", "hess_inv", "nfev", "njev", "nit"])


def _scipy_minimize():
    try:
        from scipy.optimize import minimize as scipy_minimize  # lazy: SciPy is optional
    except ImportError as e:
        raise ImportError("tracegrad.scipy.optimize.minimize runs SciPy's BFGS iteration: "
                          'install SciPy (pip install -e ".[scipy]" or pip install scipy)') from e
    return scipy_minimize


def minimize(fun, x0, args=(), *, method, tol=None, options=None):
    """Minimize a scalar function of one 1-D array, with tracegrad's gradient.

    Parameters
    ----------
    fun : callable
        ``fun(x, *args) -> scalar``, written with tracegrad (or NumPy
        functions that dispatch to it); differentiated by
        :func:`tracegrad.value_and_grad`.
    x0 : array_like, shape ``(n,)``
        Starting point (float; integers are converted to float64).
    args : tuple
        Extra arguments passed to ``fun`` (not differentiated).
    method : {'BFGS'}
        Required, as in ``jax.scipy.optimize.minimize``.
    tol : float, optional
        Gradient-norm tolerance (SciPy's ``gtol``; default 1e-5).
    options : dict, optional
        ``maxiter`` (default ``200 * n``), ``gtol``, ``norm``, and SciPy's
        other BFGS options.

    Returns
    -------
    OptimizeResults
        ``x`` (the solution, x0's dtype), ``success``, ``status`` (SciPy's
        code: 0 converged, 1 maximum iterations, 2 line-search failure,
        3 NaN), ``fun``, ``jac`` (the gradient at ``x``), ``hess_inv``
        (BFGS's inverse-Hessian estimate, ``(n, n)``), ``nfev``, ``njev``,
        ``nit``.

    Raises
    ------
    ValueError
        If ``method`` is not ``'BFGS'`` or ``x0`` is not 1-D.
    TypeError
        If ``fun`` does not return a real scalar (raised by
        :func:`tracegrad.value_and_grad`), or ``x0`` or ``args`` hold
        tracers (``minimize`` inside a transform).
    ImportError
        If SciPy is not installed.
    """
    if not isinstance(method, str) or method.lower() != "bfgs":
        raise ValueError(f"minimize: method must be 'BFGS' (the only one available), got {method!r}")
    if isinstance(x0, Tracer) or any(isinstance(a, Tracer) for a in args):
        raise TypeError("minimize runs on concrete values: it cannot be used inside jit, grad or "
                        "vmap of an enclosing function yet; call it outside the transform")
    x0 = np.asarray(x0)
    if x0.ndim != 1 or x0.size == 0:
        raise ValueError(f"minimize: x0 must be 1-D with at least one element (shape (n,)), got "
                         f"shape {x0.shape}; ravel it and reshape inside fun")
    dtype = x0.dtype if x0.dtype.kind == "f" else np.dtype(np.float64)
    f_and_g = value_and_grad(fun)

    def wrapped(x):
        value, g = f_and_g(x.astype(dtype, copy=False), *args)
        if isinstance(value, Tracer) or isinstance(g, Tracer):
            raise TypeError("minimize runs on concrete values: fun closes over a value traced by "
                            "an enclosing jit, grad or vmap; call minimize outside the transform "
                            "(or pass that value in args, outside it)")
        return float(value), np.asarray(g, dtype=np.float64)

    opts = dict(options or {})
    res = _scipy_minimize()(wrapped, x0.astype(np.float64), jac=True, method="BFGS", tol=tol,
                            options=opts)
    return OptimizeResults(
        x=np.asarray(res.x, dtype=dtype), success=bool(res.success), status=int(res.status),
        fun=np.asarray(res.fun, dtype=dtype), jac=np.asarray(res.jac, dtype=dtype),
        hess_inv=np.asarray(res.hess_inv, dtype=dtype), nfev=int(res.nfev), njev=int(res.njev),
        nit=int(res.nit))
