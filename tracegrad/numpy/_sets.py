"""Searching, partial sorting and set operations of ``tracegrad.numpy``.

``searchsorted`` and ``isin`` are comparisons counted or reduced with
primitives, so they work on tracers under every transform (no derivative:
the results are integers and bools).  ``partition``/``argpartition`` sort
fully (a valid partition).  The set functions (``unique`` and family,
``intersect1d``, ``union1d``, ``setdiff1d``, ``setxor1d``) and ``lexsort``
find their positions with NumPy on concrete values, then gather the values
from the (possibly traced) input, so the values are differentiable: each
result element's derivative goes to the input element its position names
(for repeated values, the first occurrence, the one ``return_index``
reports).  Under ``vmap`` these raise a TypeError naming themselves, since
their result's shape depends on the values.
"""
import numpy as np
from numpy.lib.array_utils import normalize_axis_index

from ..core import Tracer, concrete_value
from ..primitives import ops
from ._core import _array
from ._dispatch import implements
from ._join import concatenate
from ._reductions import any as _any, sum as _sum
from ._selection import argsort, sort, take
from ._shape import ravel, reshape

__all__ = [
    "searchsorted", "partition", "argpartition", "lexsort", "unique", "unique_values",
    "unique_counts", "unique_inverse", "unique_all", "isin", "intersect1d", "union1d",
    "setdiff1d", "setxor1d",
]


def _concrete(x, name, what="its input"):
    """The concrete value of ``x``, or a TypeError naming ``name``."""
    if not isinstance(x, Tracer):
        return np.asarray(x)
    try:
        return np.asarray(concrete_value(x))
    except Exception as e:  # a vmap-batched value has none
        raise TypeError(
            f"tracegrad.numpy.{name} needs the concrete value of {what} (the result's "
            f"shape or positions depend on it), which this transform does not have: {e}"
        ) from None


@implements(np.searchsorted)
def searchsorted(a, v, side="left", sorter=None):
    """Insertion positions of ``v`` in the sorted 1-D ``a`` (``numpy.searchsorted``).

    Parameters
    ----------
    a : 1-D array_like or tracer
        Sorted ascending (NaNs last), or put in order by ``sorter``.
    v : array_like or tracer
    side : {"left", "right"}
    sorter : 1-D int array_like, optional
        Positions that sort ``a``.

    Returns
    -------
    int64 array or tracer of ``v``'s shape (no derivative)

    Raises
    ------
    ValueError
        If ``a`` is not 1-D or ``side`` is invalid.

    Notes
    -----
    Counts the elements of ``a`` below ``v`` (``<`` for "left", ``<=`` for
    "right"; NaN counts as the largest value, as in NumPy), ``O(len(a) *
    v.size)``, which works on tracers under every transform.
    """
    if side not in ("left", "right"):
        raise ValueError(f"side must be 'left' or 'right' (got {side!r})")
    a = _array(a)
    if a.ndim != 1:
        raise ValueError("object too deep for desired array")
    if sorter is not None:
        a = take(a, np.asarray(_concrete(sorter, "searchsorted", "sorter")))
    v = _array(v)
    ve = reshape(v, tuple(v.shape) + (1,))
    if side == "left":
        hit = ops.lt(a, ve)
        if np.dtype(a.dtype).kind == "f" or np.dtype(v.dtype).kind == "f":
            hit = ops.logical_or(hit, ops.logical_and(ops.isnan(ve),
                                                      ops.logical_not(ops.isnan(a))))
    else:
        hit = ops.le(a, ve)
        if np.dtype(v.dtype).kind == "f":
            hit = ops.logical_or(hit, ops.isnan(ve))
    return ops.convert_element_type(_sum(hit, axis=-1), np.int64)


def _check_kth(kth, n, name):
    k = np.asarray(kth)
    if k.dtype.kind not in "iu":
        raise TypeError("Partition index must be integer")
    if np.any((k < -n) | (k >= n)):
        raise ValueError(f"kth(={int(np.max(k))}) out of bounds ({n})")


@implements(np.partition)
def partition(a, kth, axis=-1, kind="introselect", order=None):
    """A partition of ``a`` around ``kth`` (``numpy.partition``), by a full stable sort.

    Parameters
    ----------
    a : array_like or tracer
    kth : int or sequence of ints
    axis : int or None
        None: the flattened array.

    Returns
    -------
    array or tracer
        ``a`` sorted along ``axis``: a valid partition for every ``kth``
        (the element at ``kth`` is the one a sort puts there, smaller ones
        before, larger after), though NumPy may order the elements within
        each side differently.  Derivative as for ``sort``.

    Raises
    ------
    ValueError
        If ``kth`` is out of bounds.
    TypeError
        If ``kth`` is not integer.
    """
    a = _array(a)
    if axis is None:
        a, axis = ravel(a), 0
    n = a.shape[normalize_axis_index(axis, a.ndim)]
    _check_kth(kth, n, "partition")
    return sort(a, axis=axis)


@implements(np.argpartition)
def argpartition(a, kth, axis=-1, kind="introselect", order=None):
    """Positions that partition ``a`` around ``kth``: a stable ``argsort``.

    Parameters
    ----------
    a : array_like or tracer
    kth : int or sequence of ints
    axis : int or None

    Returns
    -------
    int64 array or tracer (no derivative)
        Valid for every ``kth``; see :func:`partition`.

    Raises
    ------
    ValueError
        If ``kth`` is out of bounds.
    """
    a = _array(a)
    if axis is None:
        a, axis = ravel(a), 0
    n = a.shape[normalize_axis_index(axis, a.ndim)]
    _check_kth(kth, n, "argpartition")
    return argsort(a, axis=axis, stable=True)


@implements(np.lexsort)
def lexsort(keys, axis=-1):
    """Positions that sort by several keys, the last key primary (``numpy.lexsort``).

    Parameters
    ----------
    keys : sequence of array_like or tracers, or a 2-D array
        Read for their concrete values.
    axis : int

    Returns
    -------
    int64 ndarray (no derivative)

    Raises
    ------
    TypeError
        Under a transform without concrete values.
    """
    if isinstance(keys, (list, tuple)):
        ks = [_concrete(k, "lexsort", "keys") for k in keys]
        return np.lexsort(ks, axis=axis)
    return np.lexsort(_concrete(keys, "lexsort", "keys"), axis=axis)


def _gather_values(ar, idx, axis):
    """``ar``'s elements (``axis=None``) or slices at the concrete positions ``idx``."""
    if axis is None:
        return take(ravel(ar), idx)
    return take(ar, idx, axis=axis)


@implements(np.unique)
def unique(ar, return_index=False, return_inverse=False, return_counts=False, axis=None, *,
           equal_nan=True, sorted=True):  # noqa: A002
    """The sorted unique values of ``ar`` (``numpy.unique``).

    Parameters
    ----------
    ar : array_like or tracer
        Read for its concrete values (which are unique); the returned values
        are gathered from ``ar``, so they are differentiable.
    return_index, return_inverse, return_counts : bool
    axis : int, optional
        Unique slices along ``axis``; None flattens.
    equal_nan : bool
        Collapse NaNs into one.
    sorted : bool
        Accepted for NumPy compatibility (the result is always sorted).

    Returns
    -------
    values : array or tracer
        The derivative of each goes to its first occurrence in ``ar``.
    index, inverse, counts : int64 ndarrays, optional
        As NumPy's.

    Raises
    ------
    TypeError
        Under a transform without concrete values (``vmap``).
    """
    ar = _array(ar)
    v = _concrete(ar, "unique", "ar")
    res = np.unique(v, return_index=True, return_inverse=return_inverse,
                    return_counts=return_counts, axis=axis, equal_nan=equal_nan)
    idx = res[1]
    out = [_gather_values(ar, idx, axis) if isinstance(ar, Tracer) else res[0]]
    if return_index:
        out.append(idx)
    out.extend(res[2:])
    return out[0] if len(out) == 1 else tuple(out)


def _unique_result(fn, x, name):
    x = _array(x)
    v = _concrete(x, name, "x")
    res = fn(v)
    if not isinstance(x, Tracer):
        return res
    _, first = np.unique(v, return_index=True, equal_nan=False)
    values = take(ravel(x), first)
    return res._replace(values=values) if hasattr(res, "_replace") else values


@implements(np.unique_values)
def unique_values(x):
    """The unique values of ``x`` (``numpy.unique_values``), differentiable.

    Parameters
    ----------
    x : array_like or tracer

    Returns
    -------
    1-D array or tracer
        NaNs are not collapsed (array-API rule).

    Raises
    ------
    TypeError
        Under a transform without concrete values.
    """
    return _unique_result(np.unique_values, x, "unique_values")


@implements(np.unique_counts)
def unique_counts(x):
    """Unique values and their counts (``numpy.unique_counts``).

    Parameters
    ----------
    x : array_like or tracer

    Returns
    -------
    UniqueCountsResult
        ``values`` (differentiable, to each value's first occurrence) and
        ``counts`` (int64).

    Raises
    ------
    TypeError
        Under a transform without concrete values.
    """
    return _unique_result(np.unique_counts, x, "unique_counts")


@implements(np.unique_inverse)
def unique_inverse(x):
    """Unique values and the positions rebuilding ``x`` (``numpy.unique_inverse``).

    Parameters
    ----------
    x : array_like or tracer

    Returns
    -------
    UniqueInverseResult
        ``values`` (differentiable) and ``inverse_indices`` of ``x``'s shape.

    Raises
    ------
    TypeError
        Under a transform without concrete values.
    """
    return _unique_result(np.unique_inverse, x, "unique_inverse")


@implements(np.unique_all)
def unique_all(x):
    """Unique values, first indices, inverse indices and counts (``numpy.unique_all``).

    Parameters
    ----------
    x : array_like or tracer

    Returns
    -------
    UniqueAllResult
        ``values`` differentiable; the rest int64 ndarrays.

    Raises
    ------
    TypeError
        Under a transform without concrete values.
    """
    return _unique_result(np.unique_all, x, "unique_all")


@implements(np.isin)
def isin(element, test_elements, assume_unique=False, invert=False, *, kind=None):
    """Whether each element of ``element`` is in ``test_elements`` (``numpy.isin``).

    Parameters
    ----------
    element, test_elements : array_like or tracer
    assume_unique, kind : optional
        Accepted for NumPy compatibility (the result does not depend on them).
    invert : bool
        Return the negation.

    Returns
    -------
    bool array or tracer of ``element``'s shape (no derivative)
        NaN is in no set (``==`` semantics, as NumPy).

    Notes
    -----
    An equality test against every test element, reduced with ``any``
    (``O(element.size * test_elements.size)``); works under every transform.
    """
    e = _array(element)
    t = ravel(_array(test_elements))
    if t.shape[0] == 0:
        out = np.zeros(np.shape(e), dtype=bool)
        return ~out if invert else out
    hit = _any(ops.eq(reshape(e, tuple(e.shape) + (1,)), t), axis=-1)
    return ops.logical_not(hit) if invert else hit


@implements(np.intersect1d)
def intersect1d(ar1, ar2, assume_unique=False, return_indices=False):
    """Sorted values present in both ``ar1`` and ``ar2`` (``numpy.intersect1d``).

    Parameters
    ----------
    ar1, ar2 : array_like or tracer
        Flattened; read for their concrete values.
    assume_unique : bool
    return_indices : bool
        Also return the positions of the values in each input.

    Returns
    -------
    values : 1-D array or tracer
        Gathered from ``ar1`` (the derivative goes to ``ar1``, at the first
        occurrence; none to ``ar2``).
    ind1, ind2 : int64 ndarrays, optional

    Raises
    ------
    TypeError
        Under a transform without concrete values.
    """
    a1, a2 = _array(ar1), _array(ar2)
    v1 = _concrete(a1, "intersect1d", "ar1").ravel()
    v2 = _concrete(a2, "intersect1d", "ar2").ravel()
    vals, i1, i2 = np.intersect1d(v1, v2, assume_unique=assume_unique, return_indices=True)
    out = take(ravel(a1), i1) if isinstance(a1, Tracer) else vals
    if isinstance(a2, Tracer) and not isinstance(a1, Tracer):
        out = take(ravel(a2), i2)
    return (out, i1, i2) if return_indices else out


def _first_positions(values, pool):
    """Positions in ``pool`` of the first occurrence of each of ``values``."""
    u, first = np.unique(pool, return_index=True)
    return first[np.searchsorted(u, values)]


@implements(np.union1d)
def union1d(ar1, ar2):
    """Sorted unique values of either input (``numpy.union1d``).

    Parameters
    ----------
    ar1, ar2 : array_like or tracer
        Flattened; read for their concrete values.

    Returns
    -------
    1-D array or tracer
        Each value's derivative goes to its first occurrence in
        ``concatenate([ar1.ravel(), ar2.ravel()])``.

    Raises
    ------
    TypeError
        Under a transform without concrete values.
    """
    both = concatenate([ravel(_array(ar1)), ravel(_array(ar2))])
    return unique(both)


@implements(np.setdiff1d)
def setdiff1d(ar1, ar2, assume_unique=False):
    """Sorted unique values of ``ar1`` that are not in ``ar2`` (``numpy.setdiff1d``).

    Parameters
    ----------
    ar1, ar2 : array_like or tracer
        Read for their concrete values.
    assume_unique : bool
        NumPy's flag: then ``ar1``'s order is kept.

    Returns
    -------
    1-D array or tracer
        Gathered from ``ar1`` (first occurrences); no derivative to ``ar2``.

    Raises
    ------
    TypeError
        Under a transform without concrete values.
    """
    a1 = ravel(_array(ar1))
    v1 = _concrete(a1, "setdiff1d", "ar1")
    v2 = _concrete(_array(ar2), "setdiff1d", "ar2").ravel()
    vals = np.setdiff1d(v1, v2, assume_unique=assume_unique)
    if not isinstance(a1, Tracer):
        return vals
    if assume_unique:
        return take(a1, np.flatnonzero(~np.isin(v1, v2)))
    return take(a1, _first_positions(vals, v1))


@implements(np.setxor1d)
def setxor1d(ar1, ar2, assume_unique=False):
    """Sorted values in exactly one of the inputs (``numpy.setxor1d``).

    Parameters
    ----------
    ar1, ar2 : array_like or tracer
        Read for their concrete values.
    assume_unique : bool

    Returns
    -------
    1-D array or tracer
        Each value gathered from its first occurrence in
        ``concatenate([ar1.ravel(), ar2.ravel()])``.

    Raises
    ------
    TypeError
        Under a transform without concrete values.
    """
    both = concatenate([ravel(_array(ar1)), ravel(_array(ar2))])
    v1 = _concrete(_array(ar1), "setxor1d", "ar1").ravel()
    v2 = _concrete(_array(ar2), "setxor1d", "ar2").ravel()
    vals = np.setxor1d(v1, v2, assume_unique=assume_unique)
    if not isinstance(both, Tracer):
        return vals
    return take(both, _first_positions(vals, np.concatenate([v1, v2])))
