"""Products and signals of ``tracegrad.numpy``: ``kron``, ``cross``,
``convolve``, ``correlate``, ``interp`` and the window functions
(``hanning``, ``hamming``, ``blackman``, ``bartlett``, ``kaiser``).

``convolve``/``correlate`` gather one input into a banded matrix (positions
known from the lengths alone) and contract it with the other, so both
arguments are differentiable.  ``interp`` selects each point's interval by
comparisons (no traced gather), so it works under every transform and is
differentiable in ``x``, ``xp`` and ``fp``.  Windows are concrete.
"""
import numpy as np
from numpy.lib.array_utils import normalize_axis_index

from ..core import Tracer
from ..primitives import ops
from ._core import _array, result_type
from ._dispatch import implements
from ._join import concatenate, stack
from ._reductions import sum as _sum
from ._selection import take
from ._shape import moveaxis, ravel, reshape

__all__ = ["kron", "cross", "convolve", "correlate", "interp", "hanning", "hamming",
           "blackman", "bartlett", "kaiser"]


@implements(np.kron)
def kron(a, b):
    """Kronecker product of ``a`` and ``b`` (``numpy.kron``).

    Parameters
    ----------
    a, b : array_like or tracer
        The one of lower rank gets leading length-1 axes.

    Returns
    -------
    array or tracer
        Shape ``a.shape * b.shape`` elementwise; differentiable in both.
    """
    a, b = _array(a), _array(b)
    nd = max(a.ndim, b.ndim)
    sa = (1,) * (nd - a.ndim) + tuple(a.shape)
    sb = (1,) * (nd - b.ndim) + tuple(b.shape)
    a2 = reshape(a, tuple(x for s in sa for x in (s, 1)))
    b2 = reshape(b, tuple(x for s in sb for x in (1, s)))
    return reshape(ops.mul(a2, b2), tuple(p * q for p, q in zip(sa, sb)))


@implements(np.cross)
def cross(a, b, axisa=-1, axisb=-1, axisc=-1, axis=None):
    """Cross product of 3-vectors (or of 2- and 3-vectors) along an axis (``numpy.cross``).

    Parameters
    ----------
    a, b : array_like or tracer
        Vectors of length 2 or 3 along ``axisa``/``axisb``, broadcast over
        the other axes.
    axisa, axisb, axisc : int
    axis : int, optional
        Overrides all three.

    Returns
    -------
    array or tracer
        Vectors of length 3 along ``axisc``, or the z-components when both
        inputs are 2-vectors.  Differentiable in both.

    Raises
    ------
    ValueError
        If a vector length is not 2 or 3.
    """
    if axis is not None:
        axisa = axisb = axisc = axis
    a, b = _array(a), _array(b)
    a = moveaxis(a, normalize_axis_index(axisa, a.ndim), -1)
    b = moveaxis(b, normalize_axis_index(axisb, b.ndim), -1)
    na, nb = a.shape[-1], b.shape[-1]
    if na not in (2, 3) or nb not in (2, 3):
        raise ValueError("incompatible dimensions for cross product\n(dimension must be 2 or 3)")
    a0, a1 = a[..., 0], a[..., 1]
    b0, b1 = b[..., 0], b[..., 1]
    z = ops.sub(ops.mul(a0, b1), ops.mul(a1, b0))
    if na == 2 and nb == 2:
        return z
    a2 = a[..., 2] if na == 3 else None
    b2 = b[..., 2] if nb == 3 else None
    if a2 is None:
        x, y = ops.mul(a1, b2), ops.neg(ops.mul(a0, b2))
    elif b2 is None:
        x, y = ops.neg(ops.mul(a2, b1)), ops.mul(a2, b0)
    else:
        x = ops.sub(ops.mul(a1, b2), ops.mul(a2, b1))
        y = ops.sub(ops.mul(a2, b0), ops.mul(a0, b2))
    shape = np.broadcast_shapes(tuple(np.shape(x)), tuple(np.shape(y)), tuple(np.shape(z)))
    parts = [ops.broadcast_to(p, shape) if tuple(np.shape(p)) != shape else p for p in (x, y, z)]
    c = stack(parts, axis=-1)
    nd = len(shape) + 1
    return moveaxis(c, -1, normalize_axis_index(axisc, nd))


def _full_convolution(a, v):
    """``sum_i a[i] v[k - i]`` for ``k = 0 .. len(a) + len(v) - 2``."""
    n, m = a.shape[0], v.shape[0]
    k = np.arange(n + m - 1)[:, None]
    j = k - np.arange(n)[None, :]
    valid = (j >= 0) & (j < m)
    idx = np.where(valid, j, m)  # m points at an appended zero
    dt = result_type(a, v)
    vz = concatenate([_cast(v, dt), np.zeros(1, dt)])
    band = take(vz, idx)
    return _sum(ops.mul(band, _cast(a, dt)), axis=1)


def _cast(x, dt):
    if isinstance(x, Tracer):
        return x if x.dtype == dt else ops.convert_element_type(x, dt)
    return np.asarray(x).astype(dt)


def _mode_slice(full, n, m, mode, name):
    if mode == "full":
        return full
    lo, hi = min(n, m), max(n, m)
    if mode == "same":
        start = (lo - 1) // 2
        return full[start:start + hi]
    if mode == "valid":
        return full[lo - 1:hi]
    raise ValueError(f"{name}: mode must be one of 'valid', 'same' or 'full' (got {mode!r})")


@implements(np.convolve)
def convolve(a, v, mode="full"):
    """Discrete linear convolution of two 1-D sequences (``numpy.convolve``).

    Parameters
    ----------
    a, v : 1-D array_like or tracer
    mode : {"full", "same", "valid"}

    Returns
    -------
    1-D array or tracer
        Length ``n + m - 1``, ``max(n, m)`` or ``max(n, m) - min(n, m) + 1``.
        Differentiable in both inputs (the derivative of a convolution is a
        correlation).

    Raises
    ------
    ValueError
        For empty input or an unknown mode.
    """
    a, v = ravel(_array(a)), ravel(_array(v))
    if a.shape[0] == 0:
        raise ValueError("a cannot be empty")
    if v.shape[0] == 0:
        raise ValueError("v cannot be empty")
    full = _full_convolution(a, v)
    return _mode_slice(full, a.shape[0], v.shape[0], mode, "convolve")


@implements(np.correlate)
def correlate(a, v, mode="valid"):
    """Cross-correlation of two 1-D sequences, ``c[k] = sum_n a[n + k] v[n]`` (``numpy.correlate``).

    Parameters
    ----------
    a, v : 1-D array_like or tracer (real)
    mode : {"valid", "same", "full"}

    Returns
    -------
    1-D array or tracer
        As NumPy (with NumPy's reversal when ``v`` is the longer input);
        differentiable in both.

    Raises
    ------
    ValueError
        For empty input or an unknown mode.
    """
    a, v = ravel(_array(a)), ravel(_array(v))
    if a.shape[0] == 0 or v.shape[0] == 0:
        raise ValueError("correlate of an empty sequence")
    n, m = a.shape[0], v.shape[0]
    if m > n:
        # NumPy swaps the inputs and reverses the result
        return correlate(v, a, mode)[::-1]
    full = _full_convolution(a, v[::-1])
    return _mode_slice(full, n, m, mode, "correlate")


@implements(np.interp)
def interp(x, xp, fp, left=None, right=None, period=None):
    """Piecewise-linear interpolation of the points ``(xp, fp)`` at ``x`` (``numpy.interp``).

    Parameters
    ----------
    x : array_like or tracer
    xp : 1-D array_like or tracer
        Increasing sample positions.
    fp : 1-D array_like or tracer
        Values at ``xp``, same length.
    left, right : float or tracer, optional
        Values below ``xp[0]`` and above ``xp[-1]`` (default ``fp[0]``,
        ``fp[-1]``).
    period : None
        Periodic interpolation is not supported.

    Returns
    -------
    array or tracer
        ``x``'s shape, float64 (NumPy's dtype).  Differentiable in ``x``
        (the slope of the segment), ``xp`` and ``fp``.

    Raises
    ------
    ValueError
        If ``xp`` and ``fp`` differ in length or are empty, or not 1-D.
    NotImplementedError
        For ``period``.

    Notes
    -----
    Each point's segment ``j`` is chosen by counting ``xp[1:-1] <= x``
    (``O(x.size * len(xp))``); the value is ``fp[j] + (x - xp[j]) *
    slope[j]``, NumPy's formula.  At a sample point the derivative in ``x``
    is the slope of the segment to its right (of the last segment at
    ``xp[-1]``).
    """
    if period is not None:
        raise NotImplementedError("tracegrad.numpy.interp does not support period=")
    xp, fp = _array(xp), _array(fp)
    if xp.ndim != 1 or fp.ndim != 1:
        raise ValueError("object too deep for desired array")
    if xp.shape[0] != fp.shape[0]:
        raise ValueError("fp and xp are not of the same length.")
    if xp.shape[0] == 0:
        raise ValueError("array of sample points is empty")
    x = _cast(_array(x), np.float64)
    xp, fp = _cast(xp, np.float64), _cast(fp, np.float64)
    n = xp.shape[0]
    lo_val = fp[0] if left is None else left
    hi_val = fp[-1] if right is None else right
    if n == 1:
        y = ops.add(ops.zeros_like(x), fp[0])  # also at NaN, as NumPy
    else:
        xe = reshape(x, tuple(x.shape) + (1,))
        j = _sum(ops.le(xp[1:-1], xe), axis=-1) if n > 2 else None
        seg = np.arange(n - 1)
        onehot = ops.convert_element_type(ops.eq(reshape(j, tuple(x.shape) + (1,)), seg), np.float64) \
            if j is not None else np.ones(tuple(x.shape) + (1,))
        dx = ops.sub(xp[1:], xp[:-1])
        slope = ops.div(ops.sub(fp[1:], fp[:-1]), dx)

        def pick(v):
            return _sum(ops.select(ops.ne(onehot, 0.0), ops.mul(onehot, v), ops.zeros_like(
                ops.mul(onehot, v))), axis=-1)

        y = ops.add(pick(fp[:-1]), ops.mul(ops.sub(x, pick(xp[:-1])), pick(slope)))
        # the last sample point itself: exactly fp[-1], as NumPy
        y = ops.select(ops.eq(x, xp[-1]), ops.add(ops.mul(y, 0.0), fp[-1]), y)
    y = ops.select(ops.lt(x, xp[0]), ops.add(ops.mul(y, 0.0), lo_val), y)
    y = ops.select(ops.gt(x, xp[-1]), ops.add(ops.mul(y, 0.0), hi_val), y)
    return y


def _window(name, fn, M, *extra):
    if isinstance(M, Tracer):
        raise TypeError(f"tracegrad.numpy.{name}: the window length M must be a concrete integer")
    return fn(M, *extra)


@implements(np.hanning)
def hanning(M):
    """The Hann window of ``M`` points (``numpy.hanning``).

    Parameters
    ----------
    M : int

    Returns
    -------
    ndarray, shape (M,)
        Concrete float64 (no inputs to differentiate).

    Raises
    ------
    TypeError
        If ``M`` is traced.
    """
    return _window("hanning", np.hanning, M)


@implements(np.hamming)
def hamming(M):
    """The Hamming window of ``M`` points (``numpy.hamming``).

    Parameters
    ----------
    M : int

    Returns
    -------
    ndarray, shape (M,)

    Raises
    ------
    TypeError
        If ``M`` is traced.
    """
    return _window("hamming", np.hamming, M)


@implements(np.blackman)
def blackman(M):
    """The Blackman window of ``M`` points (``numpy.blackman``).

    Parameters
    ----------
    M : int

    Returns
    -------
    ndarray, shape (M,)

    Raises
    ------
    TypeError
        If ``M`` is traced.
    """
    return _window("blackman", np.blackman, M)


@implements(np.bartlett)
def bartlett(M):
    """The Bartlett (triangular) window of ``M`` points (``numpy.bartlett``).

    Parameters
    ----------
    M : int

    Returns
    -------
    ndarray, shape (M,)

    Raises
    ------
    TypeError
        If ``M`` is traced.
    """
    return _window("bartlett", np.bartlett, M)


@implements(np.kaiser)
def kaiser(M, beta):
    """The Kaiser window of ``M`` points and shape ``beta`` (``numpy.kaiser``).

    Parameters
    ----------
    M : int
    beta : float
        Concrete (the Bessel function ``i0`` has no tracegrad rule).

    Returns
    -------
    ndarray, shape (M,)

    Raises
    ------
    TypeError
        If ``M`` or ``beta`` is traced.
    """
    if isinstance(beta, Tracer):
        raise TypeError("tracegrad.numpy.kaiser: beta must be concrete (no derivative of i0)")
    return _window("kaiser", np.kaiser, M, beta)
