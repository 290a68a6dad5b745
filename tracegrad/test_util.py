"""Numerical checks of derivatives: :func:`check_grads`, :func:`check_jvp`, :func:`check_vjp`.

Forward mode is compared with central finite differences along a random
direction; reverse mode is checked through the identity
``<J^T u, v> == <u, J v>`` with ``J v`` from finite differences.  Higher
orders recurse on the JVP and VJP functions themselves, as JAX's
``check_grads`` does.
"""
import functools

import numpy as np
import numpy.testing

from .transforms import float0, jvp, vjp
from .tree_util import tree_flatten, tree_map

__all__ = ["check_grads", "check_jvp", "check_vjp", "numerical_jvp"]

# Step sizes and tolerances by dtype (the finite-difference error of a
# central difference is O(eps**2) plus rounding O(ulp / eps)).
_EPS = {np.dtype(np.float32): 1e-3, np.dtype(np.float64): 1e-4}
_TOL = {np.dtype(np.float32): 2e-2, np.dtype(np.float64): 1e-5}


def _leaves_dtype(tree):
    """float32 if a leaf is float32 or complex64 (their precision), else float64."""
    dts = [np.asarray(x).dtype for x in tree_flatten(tree)[0]]
    if any(d in (np.float32, np.complex64) for d in dts):
        return np.dtype(np.float32)
    return np.dtype(np.float64)


def _wide(x):
    """``x`` as float64, or complex128 if complex (the dtype differences are taken in);
    a float0 leaf (the derivative of an integer input: no value) as float64 zeros."""
    x = np.asarray(x)
    if x.dtype == float0:
        return np.zeros(x.shape)
    return x.astype(np.complex128 if x.dtype.kind == "c" else np.float64)


def _as_array(x):
    return np.asarray(x)


def _rand_like(rng, tree):
    def one(x):
        x = np.asarray(x)
        if x.dtype.kind == "c":  # perturb the real and the imaginary parts
            return (rng.standard_normal(x.shape)
                    + 1j * rng.standard_normal(x.shape)).astype(x.dtype)
        if x.dtype.kind in "biu":  # no derivative: JAX's float0 tangent
            return np.zeros(x.shape, float0)
        if x.dtype.kind != "f":
            return np.zeros(x.shape, x.dtype)
        return rng.standard_normal(x.shape).astype(x.dtype)

    return tree_map(one, tree)


def _axpy(a, x, y):
    return tree_map(
        lambda xi, yi: (np.asarray(yi) + a * np.asarray(xi)).astype(np.asarray(yi).dtype)
        if np.asarray(yi).dtype.kind in "fc" else yi,
        x,
        y,
    )


def _inner(xs, ys):
    """``Re(sum(x * y))`` over the leaves: the real bilinear pairing under
    which a VJP is the transpose of the JVP (JAX's convention for complex
    values; no conjugation)."""
    total = 0.0
    for x, y in zip(tree_flatten(xs)[0], tree_flatten(ys)[0]):
        if np.asarray(x).dtype == float0 or np.asarray(y).dtype == float0:
            continue  # the cotangent of an integer input carries no value
        total += float(np.real(np.sum(_wide(x) * _wide(y))))
    return total


def numerical_jvp(f, primals, tangents, eps):
    """Central difference ``(f(x + eps t) - f(x - eps t)) / (2 eps)``.

    Parameters
    ----------
    f : callable
        Function of ``len(primals)`` positional pytree arguments returning a
        pytree of arrays.
    primals : tuple or list of pytrees
        The point ``x``.
    tangents : tuple or list of pytrees
        The direction ``t``, with the structure and shapes of ``primals``.
        Only floating-point and complex leaves are moved; other leaves keep
        their primal value.
    eps : float
        Step size.

    Returns
    -------
    pytree
        The structure of ``f``'s output; every leaf a float64 array of that
        output leaf's shape, complex128 for a complex output (the difference
        is taken in those dtypes, after ``f`` ran in the inputs' dtypes).

    Raises
    ------
    ValueError
        If ``tangents`` does not have the structure of ``primals``, or the
        two evaluations of ``f`` give different structures.

    Notes
    -----
    The truncation error is ``O(eps**2)`` and the rounding error
    ``O(ulp / eps)``; the defaults of :func:`check_grads` balance the two
    per dtype.
    """
    f_pos = f(*_axpy(eps, tangents, primals))
    f_neg = f(*_axpy(-eps, tangents, primals))
    return tree_map(lambda a, b: (_wide(a) - _wide(b)) / (2 * eps), f_pos, f_neg)


def _check_close(actual, expected, atol, rtol, err_msg):
    a_flat, a_tree = tree_flatten(actual)
    e_flat, e_tree = tree_flatten(expected)
    if a_tree != e_tree:
        raise AssertionError(f"{err_msg}: structures differ: {a_tree} vs {e_tree}")
    for a, e in zip(a_flat, e_flat):
        numpy.testing.assert_allclose(_wide(a), _wide(e), atol=atol, rtol=rtol,
                                      err_msg=err_msg)


def _defaults(args, atol, rtol, eps):
    dt = _leaves_dtype(args)
    return (
        _TOL[dt] if atol is None else atol,
        _TOL[dt] if rtol is None else rtol,
        _EPS[dt] if eps is None else eps,
    )


def check_jvp(f, args, atol=None, rtol=None, eps=None, err_msg="JVP", rng=None):
    """Check ``jvp(f)`` at ``args`` against finite differences.

    Draws one random tangent (standard normal, in each leaf's dtype, complex
    normal for complex leaves; float0 zeros for integer and bool leaves) and
    compares ``jvp(f, args, tangent)`` with :func:`numerical_jvp`; also checks that the primal output equals
    ``f(*args)``.

    Parameters
    ----------
    f : callable
        Function of ``len(args)`` positional pytree arguments.
    args : tuple or list of pytrees
        Point of evaluation.
    atol, rtol : float, optional
        Tolerances; default 1e-5 when every float leaf is float64, 2e-2 if
        one is float32.
    eps : float, optional
        Finite-difference step; default 1e-4 (float64) or 1e-3 (float32).
    err_msg : str, optional
        Prefix of the failure message.
    rng : numpy.random.Generator, optional
        Source of the random tangent (default ``default_rng(0)``).

    Returns
    -------
    None

    Raises
    ------
    AssertionError
        If the primal output or the tangent disagrees beyond the tolerances,
        or their structures differ.
    """
    atol, rtol, eps = _defaults(args, atol, rtol, eps)
    rng = np.random.default_rng(0) if rng is None else rng
    tangents = _rand_like(rng, args)
    out, t_out = jvp(f, args, tangents)
    _check_close(out, f(*args), atol, rtol, f"{err_msg} primal output")
    t_num = numerical_jvp(f, args, tangents, eps)
    _check_close(t_out, t_num, atol, rtol, f"{err_msg} tangent vs finite differences")


def check_vjp(f, args, atol=None, rtol=None, eps=None, err_msg="VJP", rng=None):
    """Check ``vjp(f)`` at ``args``: ``<J^T u, v>`` against ``<u, J v>`` (numerical).

    Draws a random tangent ``v`` and cotangent ``u`` (standard normal, in
    each leaf's dtype), computes ``J^T u`` with :func:`tracegrad.vjp` and
    ``J v`` with :func:`numerical_jvp`, and compares the two inner products
    (summed over all leaves, in float64).

    Parameters
    ----------
    f : callable
        Function of ``len(args)`` positional pytree arguments.
    args : tuple or list of pytrees
        Point of evaluation.
    atol, rtol : float, optional
        Tolerances; default 1e-5 when every float leaf is float64, 2e-2 if
        one is float32.
    eps : float, optional
        Finite-difference step; default 1e-4 (float64) or 1e-3 (float32).
    err_msg : str, optional
        Prefix of the failure message.
    rng : numpy.random.Generator, optional
        Source of ``u`` and ``v`` (default ``default_rng(1)``).

    Returns
    -------
    None

    Raises
    ------
    AssertionError
        If the two inner products disagree beyond the tolerances.

    Notes
    -----
    One scalar comparison per call: cheap, and it catches transposition and
    scaling errors, but a wrong VJP orthogonal to the random ``u`` and ``v``
    could pass (with probability 0 for continuous random draws).
    """
    atol, rtol, eps = _defaults(args, atol, rtol, eps)
    rng = np.random.default_rng(1) if rng is None else rng
    out, vjp_fun = vjp(f, *args)
    tangents = _rand_like(rng, args)
    cts = _rand_like(rng, out)
    ct_in = vjp_fun(cts)
    t_num = numerical_jvp(f, args, tangents, eps)
    ip = _inner(tangents, ct_in)
    ip_expected = _inner(t_num, cts)
    numpy.testing.assert_allclose(
        ip, ip_expected, atol=atol, rtol=rtol,
        err_msg=f"{err_msg}: <J^T u, v> vs <u, J v> (finite differences)",
    )


def check_grads(f, args, order=2, modes=("fwd", "rev"), atol=None, rtol=None, eps=None):
    """Check derivatives of ``f`` at ``args`` numerically, up to ``order``.

    Parameters
    ----------
    f : callable
        Function of ``len(args)`` positional pytree arguments.
    args : tuple or list
        Point of evaluation; float leaves are perturbed, and complex leaves
        in both their real and imaginary parts (directions are complex
        normal; reverse mode is checked through the pairing
        ``Re(sum(a * b))``, JAX's convention).
    order : int, optional
        Highest derivative order checked (1 = first derivatives).
    modes : sequence of {"fwd", "rev"}, optional
        Check forward mode (``jvp``), reverse mode (``vjp``), or both.
    atol, rtol : float, optional
        Tolerances; default 1e-5 for float64 inputs and 2e-2 for float32.
    eps : float, optional
        Finite-difference step; default 1e-4 (float64) or 1e-3 (float32).

    Returns
    -------
    None
        The checks pass silently.

    Raises
    ------
    AssertionError
        With the mode chain (e.g. "VJP of JVP") whose check failed.
    ValueError
        If ``modes`` contains anything other than "fwd" and "rev", or
        ``order`` is below 1.

    Notes
    -----
    Order 1 runs :func:`check_jvp` and/or :func:`check_vjp` on ``f``.
    Order ``k`` then recurses, in the
    scheme of JAX's ``jax.test_util.check_grads``: forward mode checks
    ``(primals, tangents) -> jvp(f, primals, tangents)`` as a function of
    both its inputs, and reverse mode checks
    ``primals -> vjp_fun(f(*primals))`` (the VJP applied to the output
    itself as cotangent), each to order ``k - 1``.  Random directions come
    from a generator seeded with 0, so runs are reproducible.

    Examples
    --------
    >>> import numpy as np, tracegrad.numpy as tnp
    >>> from tracegrad.test_util import check_grads
    >>> check_grads(lambda x: tnp.sin(x) * x, (np.array([0.3, 1.2]),), order=2)
    """
    args = tuple(args)
    if int(order) < 1:
        raise ValueError(f"order must be at least 1 (first derivatives), got {order}")
    bad = set(modes) - {"fwd", "rev"}
    if bad:
        raise ValueError(f"modes must be 'fwd' and/or 'rev', got {sorted(bad)}")
    args = tree_map(_as_array, args)
    rng = np.random.default_rng(0)

    def _check(f, args, order, msg):
        if "fwd" in modes:
            fwd_msg = f"JVP of {msg}" if msg else "JVP"
            check_jvp(f, args, atol, rtol, eps, fwd_msg, rng)
            if order > 1:
                _check(functools.partial(jvp, f), (args, _rand_like(rng, args)), order - 1, fwd_msg)
        if "rev" in modes:
            rev_msg = f"VJP of {msg}" if msg else "VJP"
            check_vjp(f, args, atol, rtol, eps, rev_msg, rng)
            if order > 1:
                def f_vjp(*primals):
                    out, vjp_fun = vjp(f, *primals)
                    return vjp_fun(out)

                _check(f_vjp, args, order - 1, rev_msg)

    _check(f, args, order, "")

