"""Diagonals and triangles in ``tracegrad.numpy``: diagonal, diag, trace,
tril and triu.

``diagonal`` is a strided ``slice`` of the matrix axes flattened by
``reshape``; ``diag`` builds a matrix from a vector by an interior ``pad``
and a ``reshape``; the triangles are a ``select`` against a fixed mask.  The
derivatives are those primitives' rules.  Each function is
registered for NumPy's dispatch, so ``np.trace(tracer)`` works.
"""
import operator

import numpy as np
from numpy.lib.array_utils import normalize_axis_index

from ..primitives import ops
from ._core import _array, _no_out
from ._dispatch import implements

__all__ = [
    "diagonal",
    "diag",
    "trace",
    "tril",
    "triu",
]


# ==========================================================================
# diagonals and triangles


@implements(np.diagonal)
def diagonal(a, offset=0, axis1=0, axis2=1):
    """The ``offset`` diagonal of the 2-D slices spanned by ``axis1`` and ``axis2``.

    Parameters
    ----------
    a : array_like or tracer
        At least 2-D.
    offset : int, optional
        Diagonal: 0 the main one, positive above it (towards larger
        ``axis2`` indices), negative below.
    axis1, axis2 : int, optional
        The two axes of the 2-D slices (default 0 and 1; negative values
        count from the end).

    Returns
    -------
    array or tracer
        The other axes in order, then the diagonal as the last axis (NumPy's
        layout; empty when ``offset`` is beyond the matrix); ``a``'s dtype.
        A new array, not NumPy's read-only view.

    Raises
    ------
    ValueError
        Fewer than two dimensions, or ``axis1 == axis2``.
    numpy.exceptions.AxisError
        Out-of-range axes.

    Notes
    -----
    Lowered to transpose + reshape + strided slice, so the cotangent is
    placed on the diagonal of a zero array of ``a``'s shape.
    """
    a = _array(a)
    if a.ndim < 2:
        raise ValueError("diag requires an array of at least two dimensions")
    i = normalize_axis_index(axis1, a.ndim)
    j = normalize_axis_index(axis2, a.ndim)
    if i == j:
        raise ValueError("axis1 and axis2 cannot be the same")
    rest = [k for k in range(a.ndim) if k not in (i, j)]
    x = ops.transpose(a, rest + [i, j])
    n1, n2 = a.shape[i], a.shape[j]
    offset = operator.index(offset)
    if offset >= 0:
        length, start = max(0, min(n1, n2 - offset)), offset
    else:
        length, start = max(0, min(n1 + offset, n2)), -offset * n2
    pre = tuple(a.shape[k] for k in rest)
    x = ops.reshape(x, pre + (n1 * n2,))
    if length == 0:
        start, limit = 0, 0
    else:
        limit = start + (length - 1) * (n2 + 1) + 1
    starts = [0] * len(pre) + [start]
    limits = list(pre) + [limit]
    return ops.slice(x, starts, limits, [1] * len(pre) + [n2 + 1])


@implements(np.diag)
def diag(v, k=0):
    """Extract the ``k``-th diagonal of a 2-D array, or build a 2-D array from
    a 1-D one placed on its ``k``-th diagonal.

    Parameters
    ----------
    v : array_like or tracer
        1-D or 2-D.
    k : int, optional
        Diagonal: 0 the main one, positive above it, negative below.

    Returns
    -------
    array or tracer
        For 2-D ``v``: the diagonal, 1-D (as :func:`diagonal`).  For 1-D
        ``v`` of length ``n``: a square array of side ``n + abs(k)``, zero
        off the ``k``-th diagonal.  ``v``'s dtype.

    Raises
    ------
    ValueError
        For inputs that are not 1-D or 2-D.

    Notes
    -----
    The 1-D -> 2-D case is one ``pad`` with interior padding of the flat
    result (its VJP is a strided slice: the cotangent's ``k``-th diagonal).
    """
    v = _array(v)
    k = operator.index(k)
    if v.ndim == 2:
        return diagonal(v, k)
    if v.ndim != 1:
        raise ValueError("Input must be 1- or 2-d.")
    n = v.shape[0]
    m = n + abs(k)
    if n == 0:
        return ops.reshape(ops.pad(v, [(0, m * m, 0)], 0), (m, m))
    start = k if k >= 0 else -k * m
    config = [(start, m * m - (start + (n - 1) * (m + 1) + 1), m)]
    return ops.reshape(ops.pad(v, config, 0), (m, m))


@implements(np.trace)
def trace(a, offset=0, axis1=0, axis2=1, dtype=None, out=None):
    """Sum along the ``offset`` diagonal of the 2-D slices (NumPy's ``trace``).

    Parameters
    ----------
    a : array_like or tracer
        At least 2-D.
    offset : int, optional
        Diagonal, as in :func:`diagonal`.
    axis1, axis2 : int, optional
        The axes of the 2-D slices (default 0 and 1).
    dtype : dtype, optional
        Cast the result.
    out : None
        Must be None.

    Returns
    -------
    array or tracer
        ``a``'s shape without ``axis1`` and ``axis2`` (0-d for a matrix);
        the dtype of the sum (small integers and bools accumulate in int64)
        unless ``dtype`` is given.

    Raises
    ------
    ValueError
        Fewer than two dimensions, or ``axis1 == axis2``.
    numpy.exceptions.AxisError
        Out-of-range axes.
    TypeError
        If ``out`` is given.

    Notes
    -----
    Linear: the cotangent of ``a`` is the result's cotangent on the
    ``offset`` diagonal and 0 elsewhere.
    """
    _no_out("trace", out)
    d = diagonal(a, offset, axis1, axis2)
    s = ops.reduce_sum(d, (d.ndim - 1,))
    return s if dtype is None else ops.convert_element_type(s, dtype)


def _tri_select(m, mask_k, keep_lower):
    m = _array(m)
    mask = np.tri(*m.shape[-2:], k=mask_k, dtype=bool)
    zero = np.zeros((), m.dtype)
    return ops.select(mask, m, zero) if keep_lower else ops.select(mask, zero, m)


_TRI_DOC = """{title} triangle: zero the elements {side} the ``k``-th diagonal.

Parameters
----------
m : array_like or tracer
    At least 1-D; the last two axes are the matrices.  A 1-D input of
    length ``n`` is broadcast to ``(n, n)``, as NumPy does.
k : int, optional
    Diagonal {side} which to zero (0 the main one, positive above it).

Returns
-------
array or tracer
    ``m``'s shape (``(n, n)`` for 1-D input) and dtype.

Raises
------
TypeError
    For 0-d input (as NumPy).

Notes
-----
A select with a constant mask: the cotangent is zeroed where the result
was.
"""


@implements(np.tril)
def tril(m, k=0):
    return _tri_select(m, k, True)


@implements(np.triu)
def triu(m, k=0):
    return _tri_select(m, k - 1, False)


tril.__doc__ = _TRI_DOC.format(title="Lower", side="above")
triu.__doc__ = _TRI_DOC.format(title="Upper", side="below")
