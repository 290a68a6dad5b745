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

Differentiable through the solution in ``args``, by implicit
differentiation: at a minimum ``x*(theta)`` of ``f(x, theta)`` the gradient
``grad_x f(x*, theta)`` is zero, so (implicit function theorem)
``H dx* = -d(grad_x f)/dtheta . dtheta`` with ``H`` the Hessian in ``x`` at
``x*``.  That is the JVP rule (a :class:`tracegrad.custom_jvp`); reverse mode
is its transpose, and every order works because the rule is written with
tracegrad's transforms.  The rule solves the problem again and forms the
``(n, n)`` Hessian: differentiating costs one more minimization and ``n``
Hessian-vector products.  The iteration runs on concrete values: under
``jit`` the staged program calls it at run time (and, to type the program,
once at trace time on zero arguments), with ``success``, ``status``,
``nfev``, ``njev`` and ``nit`` as arrays as in JAX; under ``vmap`` it raises
``TypeError``.
"""
import collections
import functools

import numpy as np

from .. import numpy as tnp
from ..core import Tracer
from ..transforms import custom_jvp, grad, hessian, jvp, value_and_grad
from ..tree_util import tree_leaves

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
        Extra arguments passed to ``fun``; ``x`` (and ``fun``, ``jac``) of the
        result are differentiable in them by implicit differentiation (see the
        module docstring), to any order.
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
        :func:`tracegrad.value_and_grad`); if ``x0`` is traced by an
        enclosing transform; under ``vmap``; if ``fun`` closes over a traced
        value (pass it in ``args``).
    ImportError
        If SciPy is not installed.
    """
    if not isinstance(method, str) or method.lower() != "bfgs":
        raise ValueError(f"minimize: method must be 'BFGS' (the only one available), got {method!r}")
    if isinstance(x0, Tracer):
        raise TypeError("minimize: x0 is traced by an enclosing transform; pass a concrete "
                        "starting point (the solution does not depend on it locally: "
                        "differentiate through args instead)")
    x0 = np.asarray(x0)
    if x0.ndim != 1 or x0.size == 0:
        raise ValueError(f"minimize: x0 must be 1-D with at least one element (shape (n,)), got "
                         f"shape {x0.shape}; ravel it and reshape inside fun")
    dtype = x0.dtype if x0.dtype.kind == "f" else np.dtype(np.float64)
    opts = dict(options or {})
    if not any(isinstance(a, Tracer) for a in tree_leaves(args)):
        return _bfgs(fun, x0, dtype, tuple(args), tol, opts)
    # Differentiated in args: the solution carries the implicit-function JVP rule.
    x, hess_inv, success, status, nfev, njev, nit = _argmin(fun, x0, dtype, tol, opts,
                                                            tuple(args))
    value, g = value_and_grad(fun)(x, *args)
    if isinstance(success, Tracer):  # under jit: the diagnostics are staged arrays, as in JAX
        return OptimizeResults(x, success, status, value, g, hess_inv, nfev, njev, nit)
    return OptimizeResults(x=x, success=bool(success), status=int(status), fun=value, jac=g,
                           hess_inv=hess_inv, nfev=int(nfev), njev=int(njev), nit=int(nit))


_CLOSURE = (
    "minimize runs its iteration on concrete values, and fun closes over a value traced by "
    "an enclosing transform: pass that value to fun through args instead (minimize is "
    "differentiable in args)")
_UNDER_VMAP = (
    "minimize cannot run under vmap (its BFGS iteration needs concrete values): loop over "
    "the batch and call minimize once per element (grad and jit of it work)")


def _bfgs(fun, x0, dtype, args, tol, opts):
    """SciPy's BFGS on ``value_and_grad(fun)`` at concrete ``args``."""
    f_and_g = value_and_grad(fun)

    def wrapped(x):
        value, g = f_and_g(x.astype(dtype, copy=False), *args)
        if isinstance(value, Tracer) or isinstance(g, Tracer):
            raise TypeError(_CLOSURE)
        return float(value), np.asarray(g, dtype=np.float64)

    res = _scipy_minimize()(wrapped, x0.astype(np.float64), jac=True, method="BFGS", tol=tol,
                            options=opts)
    return OptimizeResults(
        x=np.asarray(res.x, dtype=dtype), success=bool(res.success), status=int(res.status),
        fun=np.asarray(res.fun, dtype=dtype), jac=np.asarray(res.jac, dtype=dtype),
        hess_inv=np.asarray(res.hess_inv, dtype=dtype), nfev=int(res.nfev), njev=int(res.njev),
        nit=int(res.nit))


@functools.partial(custom_jvp, nondiff_argnums=(0, 1, 2, 3, 4))
def _argmin(fun, x0, dtype, tol, opts, args):
    """The solution of :func:`minimize` and its diagnostics, as arrays (the
    outputs of a custom_jvp function); ``args`` holds concrete values here
    (under jit too: the staged program runs it at call time), unless minimize
    runs under vmap, whose batching rule runs it on batched tracers."""
    if any(isinstance(a, Tracer) for a in tree_leaves(args)):
        raise TypeError(_UNDER_VMAP)
    res = _bfgs(fun, x0, dtype, args, tol, opts)
    return (res.x, res.hess_inv, np.asarray(res.success), np.asarray(res.status),
            np.asarray(res.nfev), np.asarray(res.njev), np.asarray(res.nit))


@_argmin.defjvp
def _argmin_jvp(fun, x0, dtype, tol, opts, primals, tangents):
    # Implicit function theorem at the minimum, where grad_x fun(x*, args) = 0:
    # H dx* = -(d/dargs grad_x fun)(x*, args) . dargs, H = hessian_x fun(x*, args).
    (args,), (t_args,) = primals, tangents
    out = _argmin(fun, x0, dtype, tol, opts, args)
    x = out[0]
    _, rhs = jvp(lambda a: grad(fun)(x, *a), (args,), (t_args,))
    h = hessian(fun)(x, *args)
    dx = -tnp.linalg.solve(h, rhs)
    return out, (dx, *(tnp.zeros_like(o) for o in out[1:]))
