"""``tracegrad.scipy.integrate``: the trapezoidal rule, differentiable.

``trapezoid`` and ``cumulative_trapezoid`` with ``scipy.integrate``'s
signatures and values (``jax.scipy.integrate.trapezoid`` is the model),
written with ``tracegrad.numpy`` functions, so they are differentiable in
``y``, ``x`` and ``dx`` to any order and work under ``vmap`` and ``jit``.
"""
import numpy as np
from numpy.lib.array_utils import normalize_axis_index

from .. import numpy as tnp
from ..numpy._core import _array

__all__ = ["trapezoid", "cumulative_trapezoid"]


def _float(y):
    if np.dtype(tnp.result_type(y)).kind not in "fc":
        return tnp.astype(y, np.float64)
    return y


def _spacing(y, x, dx, axis, name):
    """The interval widths along ``axis``, broadcastable against ``y[1:]``
    (``dx`` itself when ``x`` is None)."""
    if x is None:
        return dx
    x = _array(x)
    nd = y.ndim
    if x.ndim == 1:
        if x.shape[0] != y.shape[axis]:
            raise ValueError(f"{name}: if given, length of x along axis must be the same "
                             f"as y ({x.shape[0]} and {y.shape[axis]})")
        d = tnp.subtract(x[1:], x[:-1])
        shape = [1] * nd
        shape[axis] = -1 if nd else 1
        return tnp.reshape(d, tuple(shape))
    if x.ndim != nd and name == "cumulative_trapezoid":
        raise ValueError("If given, shape of x must be 1-D or the same as y.")
    x = tnp.broadcast_to(x, tuple(y.shape))
    hi = tuple(slice(1, None) if a == axis else slice(None) for a in range(nd))
    lo = tuple(slice(None, -1) if a == axis else slice(None) for a in range(nd))
    return tnp.subtract(x[hi], x[lo])


def _panels(y, x, dx, axis, name):
    y = _float(_array(y))
    axis = normalize_axis_index(axis, y.ndim)
    d = _spacing(y, x, dx, axis, name)
    hi = tuple(slice(1, None) if a == axis else slice(None) for a in range(y.ndim))
    lo = tuple(slice(None, -1) if a == axis else slice(None) for a in range(y.ndim))
    return tnp.divide(tnp.multiply(d, tnp.add(y[hi], y[lo])), 2.0), axis


def trapezoid(y, x=None, dx=1.0, axis=-1):
    """Integrate ``y`` along ``axis`` by the trapezoidal rule (``scipy.integrate.trapezoid``).

    ``sum_i (x[i+1] - x[i]) * (y[i+1] + y[i]) / 2``.

    Parameters
    ----------
    y : array_like or tracer
        Samples (integers are read as float64).
    x : array_like or tracer, optional
        Sample points: 1-D of ``y.shape[axis]`` entries, or an array
        broadcasting to ``y``'s shape.  Default: spacing ``dx``.
    dx : float or tracer
        The spacing when ``x`` is None.
    axis : int

    Returns
    -------
    array or tracer
        ``y``'s shape without ``axis``; 0 for fewer than two samples.
        Differentiable in ``y``, ``x`` and ``dx``.

    Raises
    ------
    ValueError
        A 1-D ``x`` whose length differs from ``y.shape[axis]``, or an ``x``
        that does not broadcast to ``y``.
    """
    panels, axis = _panels(y, x, dx, axis, "trapezoid")
    return tnp.sum(panels, axis=axis)


def cumulative_trapezoid(y, x=None, dx=1.0, axis=-1, initial=None):
    """Running trapezoidal integral of ``y`` along ``axis``
    (``scipy.integrate.cumulative_trapezoid``).

    Parameters
    ----------
    y : array_like or tracer
        At least one sample along ``axis``.
    x : array_like or tracer, optional
        1-D sample points of ``y.shape[axis]`` entries, or an array of
        ``y``'s shape.  Default: spacing ``dx``.
    dx : float or tracer
        The spacing when ``x`` is None.
    axis : int
    initial : None or 0
        If 0, a zero is put in front of the result, which then has ``y``'s
        shape (SciPy allows no other value).

    Returns
    -------
    array or tracer
        ``y``'s shape with one sample fewer along ``axis`` (as many with
        ``initial=0``).  Differentiable in ``y``, ``x`` and ``dx``.

    Raises
    ------
    ValueError
        No sample along ``axis``, an ``x`` of the wrong shape, or
        ``initial`` other than None or 0.
    """
    y = _array(y)
    if y.shape[axis] == 0:
        raise ValueError("At least one point is required along `axis`.")
    if initial is not None:
        if not np.isscalar(initial):
            raise ValueError("`initial` parameter should be a scalar.")
        if initial != 0:
            raise ValueError("`initial` must be `None` or `0`.")
    panels, axis = _panels(y, x, dx, axis, "cumulative_trapezoid")
    res = tnp.cumsum(panels, axis=axis)
    if initial is not None:
        shape = list(res.shape)
        shape[axis] = 1
        res = tnp.concatenate([np.zeros(tuple(shape), tnp.result_type(res)), res], axis=axis)
    return res
