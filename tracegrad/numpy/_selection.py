"""Selection and sorting in ``tracegrad.numpy``: take, take_along_axis, sort,
argsort, and the positions of nonzero elements (nonzero, argwhere,
flatnonzero).

Elements selected by position are a ``gather`` (whose VJP is a
``scatter_add`` that accumulates repeated positions).  Positions and sort
orders are read from concrete values (tracers carry values), except under
``vmap``, where per-example positions stay batched and become a gather
operand.  The position functions return integer arrays and carry no
derivative.  Each function is registered for NumPy's dispatch, so
``np.sort(tracer)`` works.
"""
import numpy as np
from numpy.lib.array_utils import normalize_axis_index

from ..core import Tracer, concrete_value
from ..primitives import ops
from ._core import _array, _concrete_ints, _no_out, arg
from ._dispatch import implements
from ._indexing import _normalize_array, batched_positions, getitem, is_batched
from ._shape import ravel

__all__ = [
    "take",
    "take_along_axis",
    "argsort",
    "sort",
    "nonzero",
    "argwhere",
    "flatnonzero",
]


# ==========================================================================
# taking and sorting


@implements(np.take)
def take(a, indices, axis=None, out=None, mode="raise"):
    """Elements of ``a`` at ``indices`` along ``axis`` (``None``: of the flattened ``a``).

    Parameters
    ----------
    a : array_like or tracer
    indices : int or integer array_like
        Concrete positions (tracers are read for their values).
    axis : int, optional
    mode : {"raise", "wrap", "clip"}, optional
        "raise": negative positions count from the end and out-of-range
        ones raise IndexError; "wrap": positions are taken modulo the
        length; "clip": positions are clipped to ``[0, n - 1]``.

    Returns
    -------
    array or tracer, shape ``a.shape[:axis] + indices.shape + a.shape[axis+1:]``
        The VJP accumulates repeated positions (``scatter_add``).

    Raises
    ------
    IndexError
        Out-of-range positions with ``mode="raise"``, or any take from an
        empty axis.
    TypeError
        Non-integer indices, or ``out`` given.
    ValueError
        An unknown ``mode``.
    numpy.exceptions.AxisError
        If ``axis`` is out of range.

    Notes
    -----
    No derivative with respect to ``indices`` (positions are integers).
    """
    _no_out("take", out)
    a = _array(a)
    if axis is None:
        a = ravel(a)
        axis = 0
    axis = normalize_axis_index(axis, a.ndim)
    if is_batched(indices):  # per-example positions under vmap: a gather operand
        return ops.gather(a, batched_positions(indices, axis, a.shape[axis], mode), axis)
    idx = _concrete_ints(indices, "take indices")
    n = a.shape[axis]
    if mode == "raise":
        idx = _normalize_array(idx, axis, n)
    elif mode in ("wrap", "clip"):
        if n == 0 and idx.size:
            raise IndexError("cannot do a non-empty take from an empty axes.")
        idx = np.mod(idx, n) if mode == "wrap" else np.clip(idx, 0, n - 1)
    else:
        raise ValueError(f"clipmode must be one of 'clip', 'raise', or 'wrap' (got {mode!r})")
    return ops.gather(a, idx, axis)


@implements(np.take_along_axis)
def take_along_axis(arr, indices, axis=-1):
    """Pick values of ``arr`` by matching 1-d positions along ``axis``.

    Parameters
    ----------
    arr : array_like or tracer, ndim N
    indices : integer array_like, ndim N
        Broadcasts against ``arr`` on the other axes.
    axis : int or None, optional
        None works on the flattened ``arr`` (``indices`` must be 1-D).

    Returns
    -------
    array or tracer
        One ``gather``; the VJP accumulates repeated positions.

    Raises
    ------
    IndexError
        Non-integer indices or out-of-range positions.
    ValueError
        If ``indices`` and ``arr`` differ in rank, or ``axis`` is None and
        ``indices`` is not 1-D.
    numpy.exceptions.AxisError
        If ``axis`` is out of range.

    Notes
    -----
    No derivative with respect to ``indices`` (positions are integers).
    """
    arr = _array(arr)
    if not is_batched(indices):  # per-example positions (under vmap) stay tracers
        indices = np.asarray(concrete_value(indices) if isinstance(indices, Tracer) else indices)
    if indices.dtype.kind not in "iu":
        raise IndexError("`indices` must be an integer array")
    if axis is None:
        if indices.ndim != 1:
            raise ValueError("when axis=None, `indices` must have a single dimension.")
        arr = ravel(arr)
        axis = 0
    if indices.ndim != arr.ndim:
        raise ValueError("`indices` and `arr` must have the same number of dimensions")
    axis = normalize_axis_index(axis, arr.ndim)
    full = []
    for d, n in enumerate(arr.shape):
        if d == axis:
            full.append(indices)
        else:
            s = [1] * arr.ndim
            s[d] = n
            full.append(np.arange(n).reshape(s))
    return getitem(arr, tuple(full))


def _sort_axis(a, axis):
    a = _array(a)
    if axis is None:
        return ravel(a), 0
    return a, normalize_axis_index(axis, a.ndim)


def _sort_kind(kind, stable, order):
    if order is not None:
        raise NotImplementedError("sorting by field `order` (structured arrays) is not supported")
    if stable:
        return "stable"
    return kind


@implements(np.argsort)
def argsort(a, axis=-1, kind=None, order=None, *, stable=None):
    """Indices that sort ``a`` along ``axis`` (NumPy's ``argsort``).

    Parameters
    ----------
    a : array_like or tracer
    axis : int or None, optional
        Axis to sort along (default last; negative counts from the end);
        None sorts the flattened array.
    kind : {"quicksort", "mergesort", "heapsort", "stable"}, optional
        NumPy's sorting algorithm, so ties are ordered as NumPy orders them.
    order : None
        Structured-array field order: not supported.
    stable : bool, optional
        True is ``kind="stable"``: ties keep their original order.

    Returns
    -------
    ndarray of int64
        ``a``'s shape (1-D for ``axis=None``).  A plain array, never a
        tracer.  NaNs sort last.

    Raises
    ------
    numpy.exceptions.AxisError
        If ``axis`` is out of range.
    NotImplementedError
        If ``order`` is given.

    Notes
    -----
    No derivative: the result is integer.
    """
    a, axis = _sort_axis(a, axis)
    return ops.argsort(a, axis, _sort_kind(kind, stable, order))


@implements(np.sort)
def sort(a, axis=-1, kind=None, order=None, *, stable=None):
    """Sorted copy of ``a`` along ``axis`` (default last; None flattens).

    Parameters
    ----------
    a : array_like or tracer
    axis : int or None, optional
        Axis to sort along (default last; negative counts from the end);
        None sorts the flattened array.
    kind : str, optional
        Accepted for NumPy compatibility: the values do not depend on it
        and a stable sort is always used.
    order : None
        Structured-array field order: not supported.
    stable : bool, optional
        Accepted for NumPy compatibility (the sort is always stable).

    Returns
    -------
    array or tracer
        A ``gather`` of ``a`` at its (stable) sorting permutation: each
        output element's derivative goes to the input element it came from
        (with ties, to the one that comes first in a stable sort).  NaNs
        sort last, as in NumPy.  ``a``'s dtype; ``a``'s shape (1-D for
        ``axis=None``).

    Raises
    ------
    numpy.exceptions.AxisError
        If ``axis`` is out of range.
    NotImplementedError
        If ``order`` is given.
    """
    a, axis = _sort_axis(a, axis)
    _sort_kind(kind, stable, order)
    perm = ops.argsort(a, axis, "stable")
    return take_along_axis(a, perm, axis)


# ==========================================================================
# positions (concrete, no derivative)


def _concrete(a):
    a = arg(a)
    return concrete_value(a) if isinstance(a, Tracer) else np.asarray(a)


@implements(np.nonzero)
def nonzero(a):
    """Positions of the non-zero elements, one integer array per axis.

    Parameters
    ----------
    a : array_like or tracer
        At least 1-D.  A tracer is read for its concrete value.

    Returns
    -------
    tuple of ndarrays of int64
        ``a.ndim`` arrays of equal length (the number of non-zero elements),
        in row-major order.  Plain arrays, never tracers.

    Raises
    ------
    ValueError
        For 0-d input (NumPy 2's rule).

    Notes
    -----
    No derivative: the result is integer, and its shape depends on the
    values.
    """
    return np.nonzero(_concrete(a))


@implements(np.argwhere)
def argwhere(a):
    """Positions of the non-zero elements, one row per element.

    Parameters
    ----------
    a : array_like or tracer
        A tracer is read for its concrete value.

    Returns
    -------
    ndarray of int64, shape ``(N, a.ndim)``
        ``N`` is the number of non-zero elements, in row-major order.  A
        plain array, never a tracer.

    Notes
    -----
    No derivative: the result is integer.
    """
    return np.argwhere(_concrete(a))


@implements(np.flatnonzero)
def flatnonzero(a):
    """Positions of the non-zero elements of the flattened ``a``.

    Parameters
    ----------
    a : array_like or tracer
        A tracer is read for its concrete value.

    Returns
    -------
    ndarray of int64, 1-D
        A plain array, never a tracer.

    Notes
    -----
    No derivative: the result is integer.
    """
    return np.flatnonzero(_concrete(a))
