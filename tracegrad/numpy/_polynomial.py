"""Polynomials as coefficient vectors, highest power first (NumPy's
``poly*`` convention): ``polyval``, ``polyder``, ``polyint``, ``polyfit``,
and the Vandermonde matrix ``vander``.

All are composites (Horner's rule, scaled coefficients, cumulative
products, a QR least-squares solve), differentiable in the coefficients and
the points.
"""
import numpy as np

from ..core import Tracer, concrete_value
from ..primitives import ops
from ._core import _array, result_type
from ._dispatch import implements
from ._join import concatenate
from ._reductions import cumprod, sum as _sum
from ._shape import broadcast_to, reshape, transpose
from . import linalg as _linalg
from ._signal import convolve as _convolve

__all__ = ["polyval", "polyder", "polyint", "polyfit", "vander"]  # more below


def _cast(x, dt):
    if isinstance(x, Tracer):
        return x if x.dtype == dt else ops.convert_element_type(x, dt)
    return np.asarray(x).astype(dt)


@implements(np.polyval)
def polyval(p, x):
    """Evaluate the polynomial with coefficients ``p`` at ``x`` (``numpy.polyval``).

    Parameters
    ----------
    p : 1-D array_like or tracer
        Coefficients, highest power first.
    x : array_like or tracer

    Returns
    -------
    array or tracer
        ``x``'s shape; NumPy's result dtype.  Horner's rule, as NumPy, so the
        values agree to the last bit; differentiable in ``p`` and ``x``.
    """
    p = _array(p)
    x = _array(x)
    dt = result_type(p, x)
    x = _cast(x, dt)
    y = ops.zeros_like(x) if isinstance(x, Tracer) else np.zeros_like(x)
    for i in range(p.shape[0]):
        y = ops.add(ops.mul(y, x), _cast(p[i], dt))
    return y


@implements(np.polyder)
def polyder(p, m=1):
    """Coefficients of the ``m``-th derivative of the polynomial ``p`` (``numpy.polyder``).

    Parameters
    ----------
    p : 1-D array_like or tracer
    m : int >= 0

    Returns
    -------
    1-D array or tracer
        Length ``max(len(p) - m, 0)``, NumPy's formula ``p[:-1] * arange(n, 0, -1)``
        applied ``m`` times (int64 promotes float32 to float64, as in NumPy).

    Raises
    ------
    ValueError
        For negative ``m``.
    """
    if m < 0:
        raise ValueError("Order of derivative must be positive (see polyint)")
    p = _array(p)
    for _ in range(int(m)):
        n = p.shape[0] - 1
        p = ops.mul(p[:-1], np.arange(n, 0, -1))
    return p


@implements(np.polyint)
def polyint(p, m=1, k=None):
    """Coefficients of the ``m``-th antiderivative of ``p`` (``numpy.polyint``).

    Parameters
    ----------
    p : 1-D array_like or tracer
    m : int >= 0
    k : scalar or sequence of ``m`` scalars, optional
        Integration constants (default 0), the first for the outermost
        integral, as NumPy.

    Returns
    -------
    1-D array or tracer
        Length ``len(p) + m``; float.

    Raises
    ------
    ValueError
        For negative ``m`` or a wrong number of constants.
    """
    m = int(m)
    if m < 0:
        raise ValueError("Order of integral must be positive (see polyder)")
    if k is None:
        k = np.zeros(m)
    k = np.atleast_1d(k) if not isinstance(k, Tracer) else reshape(k, (-1,))
    if k.shape[0] == 1 and m > 1:
        k = np.full(m, k[0]) if not isinstance(k, Tracer) else broadcast_to(k, (m,))
    if k.shape[0] < m:
        raise ValueError("k must be a scalar or a rank-1 array of length 1 or >m.")
    p = _array(p)
    dt = np.result_type(p.dtype, float)
    p = _cast(p, dt)
    for i in range(m):
        n = p.shape[0]
        p = concatenate([ops.div(p, np.arange(n, 0, -1, dtype=float)),
                         reshape(_cast(k[i] if isinstance(k, Tracer) else np.asarray(k[i]), dt), (1,))])
    return p


@implements(np.vander)
def vander(x, N=None, increasing=False):
    """The Vandermonde matrix of ``x``: columns ``x**(N-1), ..., x, 1`` (``numpy.vander``).

    Parameters
    ----------
    x : 1-D array_like or tracer
    N : int, optional
        Number of columns (default ``len(x)``).
    increasing : bool
        Powers increase left to right.

    Returns
    -------
    array or tracer, shape (len(x), N)
        Built by cumulative products, as NumPy, so the values agree exactly;
        differentiable in ``x``.

    Raises
    ------
    ValueError
        If ``x`` is not 1-D.
    """
    x = _array(x)
    if x.ndim != 1:
        raise ValueError("x must be a one-dimensional array or sequence.")
    n = x.shape[0] if N is None else int(N)
    if n == 0:
        return np.zeros((x.shape[0], 0), dtype=np.result_type(x.dtype, int))
    ones = np.ones((x.shape[0], 1), dtype=np.result_type(x.dtype, int))
    if n == 1:
        out = ops.add(ops.mul(reshape(x, (-1, 1)), 0), ones) if isinstance(x, Tracer) else ones
    else:
        cols = broadcast_to(reshape(_cast(x, ones.dtype), (-1, 1)), (x.shape[0], n - 1))
        out = concatenate([_cast(ones, ones.dtype), cumprod(cols, axis=1)], axis=1)
    return out if increasing else out[:, ::-1]


@implements(np.polyfit)
def polyfit(x, y, deg, rcond=None, full=False, w=None, cov=False):
    """Least-squares polynomial fit of degree ``deg`` (``numpy.polyfit``).

    Parameters
    ----------
    x : 1-D array_like or tracer
    y : 1-D or 2-D array_like or tracer
        One data set per column for 2-D.
    deg : int
    rcond : None
        Accepted when None (the problem must have full column rank).
    full, cov : False
        The diagnostic outputs are not supported.
    w : 1-D array_like or tracer, optional
        Weights of the residuals (applied to ``y - p(x)``, as NumPy).

    Returns
    -------
    array or tracer, shape (deg + 1,) or (deg + 1, K)
        Coefficients, highest power first; differentiable in ``x``, ``y``
        and ``w``.

    Raises
    ------
    ValueError
        For a negative degree, mismatched lengths or empty input.
    NotImplementedError
        For ``full``, ``cov`` or ``rcond``.

    Notes
    -----
    Solves the column-scaled Vandermonde system by QR (NumPy scales the
    columns to unit norm the same way, then calls ``lstsq``), so the
    derivative is that of the least-squares solution.
    """
    if full or cov or rcond is not None:
        raise NotImplementedError("tracegrad.numpy.polyfit supports full=False, cov=False, "
                                  "rcond=None only")
    deg = int(deg)
    if deg < 0:
        raise ValueError("expected deg >= 0")
    x = _cast(_array(x), np.result_type(_array(x).dtype, float))
    y = _array(y)
    if x.ndim != 1:
        raise TypeError("expected 1D vector for x")
    if x.shape[0] == 0:
        raise TypeError("expected non-empty vector for x")
    if y.ndim < 1 or y.ndim > 2:
        raise TypeError("expected 1D or 2D array for y")
    if x.shape[0] != y.shape[0]:
        raise TypeError("expected x and y to have same length")
    dt = result_type(x, y, 1.0)
    lhs = _cast(vander(x, deg + 1), dt)
    rhs = _cast(y, dt)
    if w is not None:
        w = _cast(_array(w), dt)
        if w.ndim != 1 or w.shape[0] != y.shape[0]:
            raise TypeError("expected a 1-d weight vector of the same length as y")
        lhs = ops.mul(lhs, reshape(w, (-1, 1)))
        rhs = ops.mul(rhs, reshape(w, (-1,) + (1,) * (rhs.ndim - 1)))
    scale = ops.sqrt(_sum(ops.mul(lhs, lhs), axis=0))
    lhs = ops.div(lhs, scale)
    q, r = _linalg.qr(lhs)
    qty = ops.matmul(transpose(q), rhs if rhs.ndim == 2 else reshape(rhs, (-1, 1)))
    c = _linalg.solve(r, qty)
    c = ops.div(c, reshape(scale, (-1, 1)))
    return c if rhs.ndim == 2 else reshape(c, (-1,))


@implements(np.polyadd)
def polyadd(a1, a2):
    """Sum of two polynomials (``numpy.polyadd``), the shorter padded with leading zeros.

    Parameters
    ----------
    a1, a2 : 1-D array_like or tracer

    Returns
    -------
    1-D array or tracer
        Length ``max(len(a1), len(a2))``; differentiable in both.
    """
    a1, a2 = reshape(_array(a1), (-1,)), reshape(_array(a2), (-1,))
    d = a1.shape[0] - a2.shape[0]
    dt = result_type(a1, a2)
    if d > 0:
        a2 = concatenate([np.zeros(d, dt), _cast(a2, dt)])
    elif d < 0:
        a1 = concatenate([np.zeros(-d, dt), _cast(a1, dt)])
    return ops.add(a1, a2)


@implements(np.polysub)
def polysub(a1, a2):
    """Difference of two polynomials (``numpy.polysub``).

    Parameters
    ----------
    a1, a2 : 1-D array_like or tracer

    Returns
    -------
    1-D array or tracer
        Length ``max(len(a1), len(a2))``; differentiable in both.
    """
    a2 = _array(a2)
    return polyadd(a1, ops.neg(a2))


@implements(np.polymul)
def polymul(a1, a2):
    """Product of two polynomials, the convolution of their coefficients (``numpy.polymul``).

    Parameters
    ----------
    a1, a2 : 1-D array_like or tracer

    Returns
    -------
    1-D array or tracer
        Length ``len(a1) + len(a2) - 1``; differentiable in both.
    """
    return _convolve(reshape(_array(a1), (-1,)), reshape(_array(a2), (-1,)))


@implements(np.polydiv)
def polydiv(u, v):
    """Quotient and remainder of polynomial division (``numpy.polydiv``).

    Parameters
    ----------
    u : 1-D array_like or tracer
        Dividend.
    v : 1-D array_like or tracer
        Divisor; its leading coefficient must be non-zero.

    Returns
    -------
    q, r : 1-D arrays or tracers
        Float; differentiable in both (long division, as NumPy).  The
        remainder's leading coefficients close to 0 are trimmed as NumPy
        does (under ``vmap``, where values are not concrete, only the
        ``len(u) - len(v) + 1`` that vanish by construction).
    """
    u = _cast(reshape(_array(u), (-1,)), result_type(_array(u), _array(v), 1.0))
    v = _cast(reshape(_array(v), (-1,)), u.dtype)
    m, n = u.shape[0] - 1, v.shape[0] - 1
    scale = ops.div(1.0, v[0])
    q = []
    r = u
    for k in range(0, m - n + 1):
        d = ops.mul(scale, r[k])
        q.append(d)
        sub = concatenate([np.zeros(k, u.dtype), ops.mul(d, v), np.zeros(m - n - k, u.dtype)])
        r = ops.sub(r, sub)
    if not q:
        return (np.zeros(1, u.dtype) if not isinstance(u, Tracer) else ops.mul(u[:1], 0.0)), u
    qv = _stack_scalars(q)
    # the first len(u) - len(v) + 1 remainder entries vanish by construction; NumPy
    # then trims further leading entries that are close to 0, read here from the
    # concrete values when the transform has them
    r = r[m - n + 1:]
    try:
        rv = np.asarray(concrete_value(r)) if isinstance(r, Tracer) else np.asarray(r)
    except Exception:  # under vmap: no value-dependent trimming
        rv = None
    k = 0
    while rv is not None and rv.shape[-1] - k > 1 and np.allclose(rv[k], 0, rtol=1e-14):
        k += 1
    return qv, r[k:]


def _stack_scalars(items):
    return concatenate([reshape(_array(i), (1,)) for i in items])


@implements(np.poly)
def poly(seq_of_zeros):
    """Coefficients of the monic polynomial with the given real roots (``numpy.poly``).

    Parameters
    ----------
    seq_of_zeros : 1-D array_like or tracer (real)
        The roots (a square matrix's characteristic polynomial is not
        supported).

    Returns
    -------
    1-D array or tracer
        Length ``len(seq_of_zeros) + 1``, leading 1; differentiable in the
        roots.

    Raises
    ------
    ValueError
        For input that is not 1-D.
    """
    z = _array(seq_of_zeros)
    if z.ndim != 1:
        raise ValueError("tracegrad.numpy.poly supports a 1-D sequence of roots only")
    dt = np.result_type(z.dtype, float)
    c = np.ones(1, dt)
    for i in range(z.shape[0]):
        c = _convolve(c, concatenate([np.ones(1, dt), reshape(ops.neg(_cast(z[i], dt)), (1,))]))
    return c


__all__ += ["polyadd", "polysub", "polymul", "polydiv", "poly"]


def _complex_of(dt):
    return np.dtype(np.complex64) if dt in (np.float32, np.complex64) else np.dtype(np.complex128)


@implements(np.roots)
def roots(p):
    """The roots of the polynomial with coefficients ``p`` (``numpy.roots``).

    The eigenvalues of the companion matrix, as NumPy computes them: leading
    zero coefficients are stripped, and a constant polynomial (or all zeros)
    has no roots.

    Parameters
    ----------
    p : 1-D array_like or tracer
        Real or complex coefficients, highest power first (integers are
        treated as float64, as NumPy).

    Returns
    -------
    1-D array or tracer, complex
        ``len(p) - (number of leading zeros) - 1`` roots in LAPACK's order.
        Always complex (complex64 for float32/complex64 coefficients, else
        complex128), as ``jax.numpy.roots``; NumPy returns a real array when
        every root is real (the values agree).  On plain arrays the values
        are NumPy's to the last bit, with NumPy's order: trailing zero
        coefficients are stripped and their zero roots appended last.  On
        tracers the trailing zeros stay in the companion matrix (so the
        derivative in those coefficients is kept: perturbing a trailing zero
        moves every root), which gives the same roots up to rounding, the
        zero roots possibly in another position (as JAX's).

    Raises
    ------
    ValueError
        If ``p`` is not 1-D (a scalar counts as 1-D, as NumPy).
    TypeError
        If the leading zeros cannot be counted because ``p`` has no concrete
        value (batched under ``vmap``, or staged by ``make_jaxpr``): the
        number of roots depends on the values (JAX too needs them, unless
        ``strip_zeros=False``).

    Notes
    -----
    Differentiable in the coefficients where the roots are simple, through
    :func:`tracegrad.numpy.linalg.eigvals` (``dw = diag(V^-1 dA V)``); at a
    repeated root the derivative is infinite (a root moves like the square
    root of a perturbation), so it comes out huge or ``inf``/``nan``, or
    ``eig``'s rule raises ``LinAlgError`` for the singular eigenvector
    matrix of the (defective) companion matrix.  The companion
    matrix has ``-p[1:] / p[0]`` as first row and ones below the diagonal
    (NumPy's construction).
    """
    p = _array(p)
    if p.ndim == 0:
        p = reshape(p, (1,))
    if p.ndim != 1:
        raise ValueError("Input must be a rank-1 array.")
    if not np.issubdtype(p.dtype, np.inexact):
        p = _cast(p, np.dtype(np.float64))
    cdt = _complex_of(p.dtype)
    if isinstance(p, Tracer):
        try:
            pv = np.asarray(concrete_value(p))
        except Exception as e:  # a vmap-batched or staged value has none
            raise TypeError(
                "tracegrad.numpy.roots needs the concrete value of its coefficients to strip "
                "leading zeros (the number of roots depends on them), and a vmap-batched or "
                "staged (make_jaxpr) value has none; call roots outside that transform, or loop "
                "over the polynomials") from e
    else:
        pv = p
    nonzero = np.flatnonzero(pv)
    if nonzero.size == 0:
        return np.zeros(0, cdt)
    first, last = int(nonzero[0]), int(nonzero[-1])
    if not isinstance(p, Tracer):
        q = p[first:last + 1]
        n = q.shape[0]
        if n > 1:
            comp = np.diag(np.ones(n - 2, q.dtype), -1)
            comp[0, :] = -q[1:] / q[0]
            found = np.linalg.eigvals(comp).astype(cdt)
        else:
            found = np.zeros(0, cdt)
        return np.concatenate([found, np.zeros(p.shape[0] - last - 1, cdt)])
    q = p[first:]
    n = q.shape[0]
    if n == 1:
        return np.zeros(0, cdt)
    top = reshape(ops.neg(ops.div(q[1:], q[0])), (1, n - 1))
    comp = concatenate([top, np.eye(n - 2, n - 1, dtype=q.dtype)], axis=0)
    return _cast(_linalg.eigvals(comp), cdt)


__all__ += ["roots"]
