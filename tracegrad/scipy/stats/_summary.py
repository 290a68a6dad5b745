"""Sample statistics of ``scipy.stats`` (``jax.scipy.stats``' set): ``sem``,
``rankdata`` and ``mode``."""
import collections
import math

import numpy as np

from ... import lax
from ... import numpy as tnp
from ...core import Tracer
from ...transforms import vmap
from ._common import reals

__all__ = ["ModeResult", "mode", "rankdata", "sem"]

ModeResult = collections.namedtuple("ModeResult", ["mode", "count"])
ModeResult.__doc__ = """``(mode, count)``, as ``scipy.stats.mode`` returns."""

_METHODS = ("average", "min", "max", "dense", "ordinal")


def _propagate_only(nan_policy, name):
    if nan_policy != "propagate":
        raise NotImplementedError(f"tracegrad.scipy.stats.{name}: nan_policy={nan_policy!r} is "
                                  f"not supported (only 'propagate')")


def sem(a, axis=0, ddof=1, nan_policy="propagate", *, keepdims=False):
    """Standard error of the mean, ``std(a, ddof=ddof) / sqrt(n)`` along ``axis``.

    Parameters
    ----------
    a : array_like or tracer
        Samples, real.
    axis : int or None, optional
        Axis of the samples (default 0); None flattens ``a`` first.
    ddof : int, optional
        Delta degrees of freedom of the standard deviation (default 1).
    nan_policy : {'propagate'}, optional
        A NaN gives NaN (the only policy supported).
    keepdims : bool, optional
        Keep ``axis`` as a length-1 axis.

    Returns
    -------
    array or tracer
        ``a``'s shape without ``axis``, float dtype; differentiable in ``a``.
        NaN where ``n <= ddof`` (as SciPy).

    Raises
    ------
    NotImplementedError
        For a ``nan_policy`` other than ``'propagate'``.
    TypeError
        If ``a`` is complex.
    """
    _propagate_only(nan_policy, "sem")
    (a,) = reals("sem", a)
    if axis is None:
        a, axis = tnp.ravel(a), 0
    n = tnp.shape(a)[axis]
    if n <= ddof:
        shape = list(tnp.shape(a))
        if keepdims:
            shape[axis] = 1
        else:
            del shape[axis]
        return tnp.full(tuple(shape), float("nan"), dtype=tnp.result_type(a))
    return tnp.std(a, axis=axis, ddof=ddof, keepdims=keepdims) / math.sqrt(n)


def _rows(a, axis):
    """``a`` with ``axis`` last, as ``(rows, n)``, and the function restoring a result of
    that layout to ``a``'s."""
    moved = tnp.moveaxis(a, axis, -1)
    shape = tnp.shape(moved)
    rows = tnp.reshape(moved, (-1, shape[-1]))
    return rows, lambda r: tnp.moveaxis(tnp.reshape(r, shape), -1, axis)


def _ranks(row, method):
    """The ranks of a 1-D ``row`` (1-based)."""
    order = tnp.argsort(row, stable=True)
    ordered = row[order]
    n = tnp.shape(row)[0]
    if method == "ordinal":
        # ordinal rank of row[order[i]] is i + 1: invert the permutation
        return tnp.argsort(order, stable=True) + 1
    low = tnp.searchsorted(ordered, row, side="left")
    high = tnp.searchsorted(ordered, row, side="right")
    if method == "min":
        return low + 1
    if method == "max":
        return high
    if method == "average":
        return (low + high + 1) / 2.0
    # dense: the number of distinct values up to this one
    new = tnp.concatenate([tnp.ones((1,), dtype=bool), ordered[1:] != ordered[:-1]]) if n else \
        tnp.zeros((0,), dtype=bool)
    return tnp.cumsum(new.astype(np.int64))[low]


def rankdata(a, method="average", *, axis=None, nan_policy="propagate"):
    """Ranks of ``a`` (1-based; ties resolved by ``method``), as ``scipy.stats.rankdata``.

    Not differentiable (ranks are piecewise constant): the result carries no
    derivative.  Traceable (jit, vmap): sorting and ``searchsorted``.

    Parameters
    ----------
    a : array_like or tracer
        Values, real.
    method : {'average', 'min', 'max', 'dense', 'ordinal'}, optional
        ``average``: the mean of the tied ranks; ``min`` / ``max``: the lowest /
        highest of them; ``dense``: the rank among distinct values; ``ordinal``:
        distinct ranks in order of appearance.
    axis : int or None, optional
        Rank along this axis; None (default) ranks the flattened array.
    nan_policy : {'propagate'}, optional
        A NaN makes every rank of its slice NaN (the only policy supported).

    Returns
    -------
    array or tracer
        ``a``'s shape (flattened for ``axis=None``): float64 for ``average``,
        int64 for the other methods, as SciPy.  Where a slice holds a NaN,
        SciPy returns float64 NaN: so does this function for a concrete ``a``;
        a traced ``a`` keeps the integer dtype (fixed before its values are
        known), and its NaN ranks last (NaN sorts last).

    Raises
    ------
    ValueError
        For an unknown ``method``.
    NotImplementedError
        For a ``nan_policy`` other than ``'propagate'``.
    """
    if method not in _METHODS:
        raise ValueError(f"rankdata: unknown method {method!r}; use one of {_METHODS}")
    _propagate_only(nan_policy, "rankdata")
    a = tnp.asarray(a)
    if axis is None:
        a, axis = tnp.ravel(a), 0
    if tnp.ndim(a) == 0:
        raise ValueError("rankdata: a 0-d array has no axis to rank along")
    rows, restore = _rows(lax.stop_gradient(a), axis)
    ranks = vmap(lambda r: _ranks(r, method))(rows)
    if method == "average":
        ranks = tnp.where(tnp.any(tnp.isnan(rows), axis=-1, keepdims=True), float("nan"), ranks)
    elif tnp.issubdtype(tnp.result_type(a), np.floating) and not isinstance(a, Tracer):
        nan = np.any(np.isnan(np.asarray(rows)), axis=-1, keepdims=True)
        if nan.any():
            ranks = tnp.where(nan, float("nan"), ranks.astype(np.float64))
    return restore(ranks)


def _mode_row(row):
    """``(mode, count)`` of a 1-D ``row``: the smallest of its most frequent values."""
    ordered = tnp.sort(row)
    counts = (tnp.searchsorted(ordered, ordered, side="right")
              - tnp.searchsorted(ordered, ordered, side="left"))
    best = tnp.argmax(counts)  # first maximum: the smallest value (NaN sorts last)
    return ordered[best], counts[best].astype(np.int64)


def mode(a, axis=0, nan_policy="propagate", keepdims=False):
    """The most frequent value along ``axis`` (the smallest of several), with its count.

    Parameters
    ----------
    a : array_like or tracer
        Values, real or integer.
    axis : int or None, optional
        Axis (default 0); None flattens ``a``.
    nan_policy : {'propagate'}, optional
        NaN counts as a value (SciPy's ``propagate``; the only policy supported).
    keepdims : bool, optional
        Keep ``axis`` as a length-1 axis.

    Returns
    -------
    ModeResult
        ``(mode, count)``: ``mode`` of ``a``'s dtype, ``count`` int64, both of
        ``a``'s shape without ``axis``.  ``mode`` is differentiable in ``a``
        (its derivative picks the chosen element), ``count`` is not.

    Raises
    ------
    ValueError
        If ``axis`` is empty.
    NotImplementedError
        For a ``nan_policy`` other than ``'propagate'``.
    """
    _propagate_only(nan_policy, "mode")
    a = tnp.asarray(a)
    if axis is None:
        a, axis = tnp.ravel(a), 0
    if tnp.ndim(a) == 0:
        a, axis = tnp.reshape(a, (1,)), 0
    if tnp.shape(a)[axis] == 0:
        raise ValueError("mode: the axis is empty")
    rows, _ = _rows(a, axis)
    values, counts = vmap(_mode_row)(rows)
    moved = tnp.shape(tnp.moveaxis(a, axis, -1))[:-1]
    values, counts = tnp.reshape(values, moved), tnp.reshape(counts, moved)
    if keepdims:
        values, counts = tnp.expand_dims(values, axis), tnp.expand_dims(counts, axis)
    return ModeResult(values, counts)
