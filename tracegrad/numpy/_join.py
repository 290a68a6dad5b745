"""Joining and splitting in ``tracegrad.numpy``: concatenate, stack, hstack,
vstack, dstack, column_stack, split, array_split and append.

Joins are the ``concatenate`` primitive (whose VJP slices the cotangent
back into pieces); splits are slices, by basic indexing.  Axes follow NumPy:
negative axes count from the end, ``axis=None`` flattens where NumPy does,
and a bad axis raises NumPy's ``AxisError``.  Each function is registered
for NumPy's dispatch, so ``np.concatenate([tracer, x])`` works.
"""
import math
import numbers
import operator

import numpy as np
from numpy.lib.array_utils import normalize_axis_index

from ..primitives import ops
from ._core import _array, _no_out
from ._dispatch import implements
from ._indexing import getitem
from ._shape import atleast_1d, atleast_2d, atleast_3d, ravel

__all__ = [
    "concatenate",
    "stack",
    "hstack",
    "vstack",
    "dstack",
    "column_stack",
    "array_split",
    "split",
    "append",
]


# ==========================================================================
# joining and splitting


@implements(np.concatenate)
def concatenate(arrays, /, axis=0, out=None, *, dtype=None, casting="same_kind"):
    """Join arrays along an existing axis.

    Parameters
    ----------
    arrays : sequence of array_like or tracers
        Same shape except along ``axis``.
    axis : int or None, optional
        None flattens every array first.
    dtype : dtype, optional
        Result dtype; by default NumPy's promotion of the inputs' dtypes.
    casting : str, optional
        NumPy's casting rule for converting the inputs to ``dtype``.

    Returns
    -------
    array or tracer
        The cotangent of each input is its slice of the output cotangent
        (cast back to the input's dtype).

    Raises
    ------
    ValueError
        No arrays, 0-d arrays, or mismatched ranks/shapes (NumPy's messages).
    TypeError
        If an input cannot be cast to ``dtype`` under ``casting``.
    """
    _no_out("concatenate", out)
    arrays = [_array(a) for a in arrays]
    if not arrays:
        raise ValueError("need at least one array to concatenate")
    if axis is None:
        arrays = [ops.reshape(a, (math.prod(a.shape),)) for a in arrays]
        axis = 0
    nd = arrays[0].ndim
    if nd == 0:
        raise ValueError("zero-dimensional arrays cannot be concatenated")
    axis = normalize_axis_index(axis, nd)
    s0 = arrays[0].shape
    for i, a in enumerate(arrays[1:], 1):
        if a.ndim != nd:
            raise ValueError(
                "all the input arrays must have same number of dimensions, but the array "
                f"at index 0 has {nd} dimension(s) and the array at index {i} has "
                f"{a.ndim} dimension(s)"
            )
        for d in range(nd):
            if d != axis and a.shape[d] != s0[d]:
                raise ValueError(
                    "all the input array dimensions except for the concatenation axis "
                    f"must match exactly, but along dimension {d}, the array at index 0 "
                    f"has size {s0[d]} and the array at index {i} has size {a.shape[d]}"
                )
    if dtype is None:
        dtype = np.result_type(*[a.dtype for a in arrays])
    else:
        dtype = np.dtype(dtype)
        for a in arrays:
            if not np.can_cast(a.dtype, dtype, casting):
                raise TypeError(
                    f"Cannot cast array data from {a.dtype!r} to {dtype!r} according "
                    f"to the rule {casting!r}"
                )
    arrays = [ops.convert_element_type(a, dtype) for a in arrays]
    if len(arrays) == 1:
        return arrays[0]
    return ops.concatenate(arrays, axis)


@implements(np.stack)
def stack(arrays, axis=0, out=None, *, dtype=None, casting="same_kind"):
    """Join equally shaped arrays along a new axis ``axis`` of the result.

    Parameters
    ----------
    arrays : sequence of array_like or tracers
        All of the same shape.
    axis : int, optional
        Position of the new axis in the result (negative counts from the
        end of the result's ``ndim + 1`` axes).
    out : None
        Must be None.
    dtype : dtype, optional
        Result dtype; by default NumPy's promotion of the inputs' dtypes.
    casting : str, optional
        NumPy's casting rule for converting the inputs to ``dtype``.

    Returns
    -------
    array or tracer
        The common shape with ``len(arrays)`` inserted at ``axis``.

    Raises
    ------
    ValueError
        No arrays, or arrays of different shapes.
    numpy.exceptions.AxisError
        If ``axis`` is out of range for the result.
    TypeError
        If ``out`` is given or an input cannot be cast to ``dtype`` under
        ``casting``.

    Notes
    -----
    The cotangent of each input is its slice of the result's cotangent
    (cast back to the input's dtype).
    """
    _no_out("stack", out)
    arrays = [_array(a) for a in arrays]
    if not arrays:
        raise ValueError("need at least one array to stack")
    shape = tuple(arrays[0].shape)
    if any(tuple(a.shape) != shape for a in arrays):
        raise ValueError("all input arrays must have the same shape")
    axis = normalize_axis_index(axis, len(shape) + 1)
    new = shape[:axis] + (1,) + shape[axis:]
    return concatenate(
        [ops.reshape(a, new) for a in arrays], axis=axis, dtype=dtype, casting=casting
    )


_JOIN_DOC = """{summary}

{prelude}Parameters
----------
tup : sequence of array_like or tracers
{dtype_params}
Returns
-------
array or tracer
    {returns}

Raises
------
ValueError
    No arrays, or shapes that differ off the joining axis.
{dtype_raises}
Notes
-----
The cotangent of each input is its slice of the result's cotangent,
reshaped to the input's shape.
"""
_JOIN_DOC_DTYPE = dict(
    dtype_params=(
        "dtype : dtype, optional\n"
        "    Result dtype; by default NumPy's promotion of the inputs' dtypes.\n"
        "casting : str, optional\n"
        "    NumPy's casting rule for converting the inputs to ``dtype``.\n"
    ),
    dtype_raises=(
        "TypeError\n    If an input cannot be cast to ``dtype`` under ``casting``.\n"
    ),
)
_JOIN_DOC_NO_DTYPE = dict(dtype_params="", dtype_raises="")


@implements(np.hstack)
def hstack(tup, *, dtype=None, casting="same_kind"):
    arrs = [atleast_1d(a) for a in tup]
    axis = 0 if arrs and arrs[0].ndim == 1 else 1
    return concatenate(arrs, axis=axis, dtype=dtype, casting=casting)


@implements(np.vstack)
def vstack(tup, *, dtype=None, casting="same_kind"):
    return concatenate([atleast_2d(a) for a in tup], axis=0, dtype=dtype, casting=casting)


@implements(np.dstack)
def dstack(tup):
    return concatenate([atleast_3d(a) for a in tup], axis=2)


@implements(np.column_stack)
def column_stack(tup):
    cols = []
    for a in tup:
        a = _array(a)
        if a.ndim < 2:
            a = ops.reshape(a, (math.prod(a.shape), 1))
        cols.append(a)
    return concatenate(cols, axis=1)


hstack.__doc__ = _JOIN_DOC.format(
    summary="Join arrays horizontally: along axis 1, or axis 0 for 1-D inputs.",
    prelude="Each input first goes through :func:`atleast_1d`.\n\n",
    returns=("The inputs concatenated along axis 1 (axis 0 if the first input is\n"
             "    at most 1-D)."),
    **_JOIN_DOC_DTYPE,
)
vstack.__doc__ = _JOIN_DOC.format(
    summary="Join arrays vertically: along axis 0, 1-D inputs becoming rows.",
    prelude="Each input first goes through :func:`atleast_2d`.\n\n",
    returns="At least 2-D; ``(k, n)`` for ``k`` inputs of shape ``(n,)``.",
    **_JOIN_DOC_DTYPE,
)
dstack.__doc__ = _JOIN_DOC.format(
    summary="Join arrays depth-wise: along axis 2.",
    prelude=("Each input first goes through :func:`atleast_3d` (``(n,)`` becomes\n"
             "``(1, n, 1)``, ``(m, n)`` becomes ``(m, n, 1)``).\n\n"),
    returns="At least 3-D; the promoted dtype of the inputs.",
    **_JOIN_DOC_NO_DTYPE,
)
column_stack.__doc__ = _JOIN_DOC.format(
    summary="Join arrays as columns: 1-D inputs become columns, 2-D ones are kept.",
    prelude="A 0-d input becomes a ``(1, 1)`` column.\n\n",
    returns=("2-D (for inputs of at most 2 dimensions): the columns side by side;\n"
             "    the promoted dtype of the inputs."),
    **_JOIN_DOC_NO_DTYPE,
)


@implements(np.array_split)
def array_split(ary, indices_or_sections, axis=0):
    """Split into sub-arrays along ``axis``; sections need not be equal.

    Parameters
    ----------
    ary : array_like or tracer
    indices_or_sections : int or sequence of ints
        ``N``: N pieces, the first ``n % N`` of them one longer.  A sequence:
        the split points (Python slicing semantics: negative and out-of-range
        points allowed).
    axis : int, optional

    Returns
    -------
    list of arrays or tracers

    Raises
    ------
    ValueError
        If the number of sections is not positive.
    numpy.exceptions.AxisError
        If ``axis`` is out of range.

    Notes
    -----
    Split points that partition the axis (non-decreasing, within it) are
    one ``split`` operation, whose cotangent is the concatenation of the
    pieces' cotangents; other points (Python slicing semantics) give one
    slice per piece.
    """
    ary = _array(ary)
    axis = normalize_axis_index(axis, ary.ndim)
    total = ary.shape[axis]
    if np.ndim(indices_or_sections) == 0:
        sections = operator.index(indices_or_sections)
        if sections <= 0:
            raise ValueError("number sections must be larger than 0.")
        each, extras = divmod(total, sections)
        sizes = [0] + extras * [each + 1] + (sections - extras) * [each]
        points = np.cumsum(sizes).tolist()
    else:
        points = [0] + [operator.index(i) for i in indices_or_sections] + [total]
    if all(0 <= a <= b <= total for a, b in zip(points[:-1], points[1:])):
        # a partition of the axis: one split operation (its cotangent is one concatenation)
        return ops.split(ary, [b - a for a, b in zip(points[:-1], points[1:])], axis)
    pre = (slice(None),) * axis
    return [getitem(ary, pre + (slice(a, b),)) for a, b in zip(points[:-1], points[1:])]


@implements(np.split)
def split(ary, indices_or_sections, axis=0):
    """Split ``ary`` into equal sub-arrays (an int) or at the given points (a sequence).

    Parameters
    ----------
    ary : array_like or tracer
    indices_or_sections : int or sequence of ints
        ``N``: ``N`` equal pieces (``N`` must divide the axis length).  A
        sequence: the split points (Python slicing semantics; negative and
        out-of-range points allowed).
    axis : int, optional
        Axis to split (default 0; negative counts from the end).

    Returns
    -------
    list of arrays or tracers
        Slices of ``ary`` along ``axis``, ``ary``'s dtype.

    Raises
    ------
    ValueError
        If an integer number of sections does not divide the axis length or
        is not positive (NumPy raises ZeroDivisionError for 0).
    numpy.exceptions.AxisError
        If ``axis`` is out of range.

    Notes
    -----
    Each piece is a slice: its cotangent is scattered (zero-padded) back
    into ``ary``'s shape, and the pieces' contributions add up.
    """
    if isinstance(indices_or_sections, (numbers.Integral, np.integer)):
        a = _array(ary)
        n = a.shape[normalize_axis_index(axis, a.ndim)]
        if indices_or_sections and n % indices_or_sections:
            raise ValueError("array split does not result in an equal division")
    return array_split(ary, indices_or_sections, axis)


@implements(np.append)
def append(arr, values, axis=None):
    """``arr`` with ``values`` appended at the end of ``axis``.

    Parameters
    ----------
    arr : array_like or tracer
    values : array_like or tracer
        With an ``axis``: the shape of ``arr`` except along ``axis``.
    axis : int, optional
        Axis to append along; None flattens both first.

    Returns
    -------
    array or tracer
        A new array (1-D for ``axis=None``); the promoted dtype of the
        inputs.

    Raises
    ------
    ValueError
        If the inputs differ in rank or in shape off ``axis``.
    numpy.exceptions.AxisError
        If ``axis`` is out of range.

    Notes
    -----
    A concatenation: each input's cotangent is its slice of the result's.
    """
    arr, values = _array(arr), _array(values)
    if axis is None:
        return concatenate([ravel(arr), ravel(values)], axis=0)
    return concatenate([arr, values], axis=axis)
