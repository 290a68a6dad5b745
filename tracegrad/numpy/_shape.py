"""Shape manipulation of ``tracegrad.numpy``, with NumPy's signatures.

Every function is built from primitives: the structural views (``reshape``,
``transpose``, ``broadcast_to``, ``slice``, ``pad``, ``rev``,
``concatenate``) where the result is a rearrangement of the input, and
``gather`` (whose VJP is a ``scatter_add`` that accumulates repeated
positions) where elements are selected by position (``take``, ``sort``,
``repeat`` with per-element counts, the non-constant ``pad`` modes).
Positions, counts, masks and sort orders are read from concrete values
(tracers carry values), so result shapes are always concrete.

Axes follow NumPy: negative axes count from the end, ``axis=None`` flattens
where NumPy does, and a bad axis raises NumPy's ``AxisError``.  Each function
is registered for NumPy's dispatch, so ``np.concatenate([tracer, x])`` works.
"""
import math
import numbers
import operator

import numpy as np
from numpy.lib.array_utils import normalize_axis_index, normalize_axis_tuple

from ..core import Tracer, concrete_value
from ..primitives import ops
from ._core import _contains_tracer, arg
from ._dispatch import implements
from ._indexing import _normalize_array, batched_positions, getitem, is_batched

__all__ = [
    "reshape", "ravel", "transpose", "swapaxes", "moveaxis", "expand_dims",
    "squeeze", "broadcast_to", "broadcast_arrays", "broadcast_shapes",
    "concatenate", "stack", "hstack", "vstack", "dstack", "column_stack",
    "split", "array_split", "tile", "repeat", "flip", "fliplr", "flipud",
    "roll", "pad", "diag", "diagonal", "trace", "triu", "tril", "take",
    "take_along_axis", "sort", "argsort", "outer", "atleast_1d",
    "atleast_2d", "atleast_3d", "append", "nonzero", "argwhere",
    "flatnonzero",
]


def _array(a):
    """``a`` as an array or tracer (Python scalars and lists become arrays)."""
    a = arg(a)
    return a if hasattr(a, "shape") else np.asarray(a)


def _no_out(name, out):
    if out is not None:
        raise TypeError(
            f"{name}(..., out=...) is not supported: tracegrad arrays are "
            "immutable under transforms; use the returned array instead."
        )


def _concrete_ints(obj, what):
    """A concrete integer ndarray from numbers, sequences or tracers.

    Floats are truncated toward zero, as NumPy's ``take`` and ``repeat`` do.
    """
    if isinstance(obj, Tracer):
        obj = concrete_value(obj)
    elif isinstance(obj, (list, tuple)):
        obj = [concrete_value(o) if isinstance(o, Tracer) else o for o in obj]
    a = np.asarray(obj)
    if a.dtype.kind not in "iubf":
        raise TypeError(f"{what} must be integers, got dtype {a.dtype}: {obj!r}")
    return a.astype(np.intp)


# ==========================================================================
# reshaping


def _resolve_shape(shape, size):
    if isinstance(shape, (numbers.Integral, np.integer)) or not hasattr(shape, "__len__"):
        shape = (shape,)
    shape = [operator.index(s) for s in shape]
    unknown = [i for i, s in enumerate(shape) if s == -1]
    if len(unknown) > 1:
        raise ValueError("can only specify one unknown dimension")
    if any(s < -1 for s in shape):
        raise ValueError(f"negative dimensions not allowed: {tuple(shape)}")
    known = math.prod(s for s in shape if s != -1)
    if unknown:
        if known == 0 or size % known:
            raise ValueError(f"cannot reshape array of size {size} into shape {tuple(shape)}")
        shape[unknown[0]] = size // known
    elif known != size:
        raise ValueError(f"cannot reshape array of size {size} into shape {tuple(shape)}")
    return tuple(shape)


def _is_fortran_ndarray(a):
    return isinstance(a, np.ndarray) and a.flags.f_contiguous and not a.flags.c_contiguous


@implements(np.reshape)
def reshape(a, /, shape, order="C", *, copy=None):
    """Give ``a`` a new shape without changing its data.

    Parameters
    ----------
    a : array_like or tracer
    shape : int or tuple of ints
        The new shape; one entry may be -1 (inferred).
    order : {"C", "F", "A"}, optional
        Read and write elements in row-major ("C") or column-major ("F")
        order; "A" is "F" for a Fortran-contiguous ndarray, else "C".
    copy : bool, optional
        Accepted for NumPy compatibility; results never alias traced data.

    Returns
    -------
    array or tracer
        Same dtype, ``shape`` (with -1 resolved).

    Raises
    ------
    ValueError
        If the sizes do not match, more than one -1 is given, or ``order`` is
        not one of "C", "F", "A".

    Notes
    -----
    Linear: the cotangent is reshaped back to ``a``'s shape (in the same
    ``order``).
    """
    a = _array(a)
    size = math.prod(a.shape)
    shape = _resolve_shape(shape, size)
    if order == "A":
        order = "F" if _is_fortran_ndarray(a) else "C"
    if order == "C":
        return ops.reshape(a, shape)
    if order == "F":
        rev_in = tuple(range(a.ndim))[::-1]
        rev_out = tuple(range(len(shape)))[::-1]
        return ops.transpose(ops.reshape(ops.transpose(a, rev_in), shape[::-1]), rev_out)
    raise ValueError(f"order must be one of 'C', 'F', 'A', got {order!r}")


@implements(np.ravel)
def ravel(a, order="C"):
    """Flatten ``a`` to 1-D (in "C", "F", "A" or, for ndarrays, "K" order).

    Parameters
    ----------
    a : array_like or tracer
    order : {"C", "F", "A", "K"}, optional
        "K" reads elements in memory order for an ndarray and in "C" order
        for a tracer (which has no memory layout of its own).

    Returns
    -------
    array or tracer, shape ``(a.size,)``
        ``a``'s dtype.

    Raises
    ------
    ValueError
        If ``order`` is not one of "C", "F", "A", "K".

    Notes
    -----
    Linear: the cotangent is reshaped back to ``a``'s shape.
    """
    a = _array(a)
    if order == "K":
        if isinstance(a, np.ndarray):
            # memory order: axes sorted by decreasing stride magnitude
            perm = sorted(range(a.ndim), key=lambda i: -abs(a.strides[i]))
            a = ops.transpose(a, perm)
        order = "C"
    return reshape(a, (-1,), order=order)


@implements(np.transpose)
def transpose(a, axes=None):
    """Permute the axes of ``a`` (reverse them when ``axes`` is None).

    Parameters
    ----------
    a : array_like or tracer
    axes : sequence of ints, optional
        A permutation of ``range(a.ndim)``; negative entries count from the end.

    Returns
    -------
    array or tracer
        ``a``'s dtype; axis ``i`` of the result is axis ``axes[i]`` of ``a``.

    Raises
    ------
    ValueError
        If ``axes`` is not a permutation of the axes ("axes don't match
        array", "repeated axis").
    numpy.exceptions.AxisError
        If an entry is out of range.

    Notes
    -----
    Linear: the cotangent is transposed back by the inverse permutation.
    """
    a = _array(a)
    if axes is None:
        return ops.transpose(a, tuple(range(a.ndim))[::-1])
    if isinstance(axes, (numbers.Integral, np.integer)):
        axes = (axes,)
    if len(axes) != a.ndim:
        raise ValueError(
            f"axes don't match array: got {len(axes)} axes for an array of dimension {a.ndim}"
        )
    axes = normalize_axis_tuple(tuple(axes), a.ndim)  # raises on repeats
    return ops.transpose(a, axes)


@implements(np.swapaxes)
def swapaxes(a, axis1, axis2):
    """Interchange two axes of ``a``.

    Parameters
    ----------
    a : array_like or tracer
    axis1, axis2 : int
        The axes to swap; negative values count from the end.

    Returns
    -------
    array or tracer
        ``a``'s dtype and shape with ``shape[axis1]`` and ``shape[axis2]``
        exchanged.

    Raises
    ------
    numpy.exceptions.AxisError
        If an axis is out of range.

    Notes
    -----
    A transpose: the cotangent is swapped back.
    """
    a = _array(a)
    i = normalize_axis_index(axis1, a.ndim)
    j = normalize_axis_index(axis2, a.ndim)
    perm = list(range(a.ndim))
    perm[i], perm[j] = j, i
    return ops.transpose(a, perm)


@implements(np.moveaxis)
def moveaxis(a, source, destination):
    """Move axes of ``a`` to new positions; the other axes keep their order.

    Parameters
    ----------
    a : array_like or tracer
    source, destination : int or sequence of ints
        Original and new positions, same number of entries; negative values
        count from the end.

    Returns
    -------
    array or tracer
        ``a``'s dtype and elements, axes permuted.

    Raises
    ------
    ValueError
        If ``source`` and ``destination`` differ in length or repeat an axis.
    numpy.exceptions.AxisError
        If an axis is out of range.

    Notes
    -----
    A transpose: the cotangent is permuted back.
    """
    a = _array(a)
    source = normalize_axis_tuple(source, a.ndim, "source")
    destination = normalize_axis_tuple(destination, a.ndim, "destination")
    if len(source) != len(destination):
        raise ValueError(
            "`source` and `destination` arguments must have the same number of elements"
        )
    order = [n for n in range(a.ndim) if n not in source]
    for dest, src in sorted(zip(destination, source)):
        order.insert(dest, src)
    return ops.transpose(a, order)


@implements(np.expand_dims)
def expand_dims(a, axis):
    """Insert size-1 axes at the positions ``axis`` of the result.

    Parameters
    ----------
    a : array_like or tracer
    axis : int or tuple of ints
        Positions of the new axes in the result (``a.ndim + len(axis)``
        dimensions); negative values count from the end.

    Returns
    -------
    array or tracer
        ``a``'s dtype and elements, with length-1 axes at ``axis``.

    Raises
    ------
    numpy.exceptions.AxisError
        If a position is out of range for the result's dimension.
    ValueError
        If a position repeats.

    Notes
    -----
    A reshape: the cotangent is reshaped back.
    """
    a = _array(a)
    if not isinstance(axis, (tuple, list)):
        axis = (axis,)
    out_ndim = a.ndim + len(axis)
    axis = normalize_axis_tuple(axis, out_ndim)
    it = iter(a.shape)
    return ops.reshape(a, tuple(1 if i in axis else next(it) for i in range(out_ndim)))


@implements(np.squeeze)
def squeeze(a, axis=None):
    """Remove length-1 axes (all of them, or those in ``axis``).

    Parameters
    ----------
    a : array_like or tracer
    axis : None, int or tuple of ints, optional
        Axes to remove; each must have length 1.  None removes every
        length-1 axis.

    Returns
    -------
    array or tracer
        ``a``'s dtype and elements, without the removed axes.

    Raises
    ------
    ValueError
        If a selected axis does not have length one.
    numpy.exceptions.AxisError
        If an axis is out of range.

    Notes
    -----
    A reshape: the cotangent is reshaped back.
    """
    a = _array(a)
    if axis is None:
        axis = tuple(i for i, n in enumerate(a.shape) if n == 1)
    else:
        axis = normalize_axis_tuple(axis, a.ndim)
        if any(a.shape[i] != 1 for i in axis):
            raise ValueError("cannot select an axis to squeeze out which has size not equal to one")
    return ops.reshape(a, tuple(n for i, n in enumerate(a.shape) if i not in axis))


def _check_broadcast(shape, target):
    # zero-stride views cost nothing and raise NumPy's own messages
    np.broadcast_to(np.broadcast_to(np.zeros((), bool), shape), target)


@implements(np.broadcast_to)
def broadcast_to(array, shape, subok=False):
    """Broadcast ``array`` to ``shape`` with NumPy's rules.

    Parameters
    ----------
    array : array_like or tracer
    shape : int or tuple of ints
        Target shape; ``array``'s shape must broadcast to it.
    subok : bool, optional
        Accepted for NumPy compatibility and ignored.

    Returns
    -------
    array or tracer
        ``array``'s dtype, shape ``shape``.  For an ndarray it is a
        read-only view, as in NumPy.

    Raises
    ------
    ValueError
        If ``array`` cannot be broadcast to ``shape`` (NumPy's message).

    Notes
    -----
    The VJP sums the cotangent over the broadcast axes (and the added
    leading axes).
    """
    array = _array(array)
    shape = (shape,) if isinstance(shape, (numbers.Integral, np.integer)) else tuple(shape)
    _check_broadcast(array.shape, shape)
    return ops.broadcast_to(array, shape)


@implements(np.broadcast_shapes)
def broadcast_shapes(*args):
    """The shape that arrays of the given shapes broadcast to (pure shape arithmetic).

    Parameters
    ----------
    *args : int or tuple of ints
        Shapes (an int is a 1-D shape).

    Returns
    -------
    tuple of ints

    Raises
    ------
    ValueError
        If the shapes are not broadcast-compatible.
    """
    return np.broadcast_shapes(*args)


@implements(np.broadcast_arrays)
def broadcast_arrays(*args, subok=False):
    """Broadcast arrays against each other.

    Parameters
    ----------
    *args : array_like or tracers
    subok : bool, optional
        Accepted for NumPy compatibility and ignored.

    Returns
    -------
    tuple of arrays or tracers
        One per argument (a tuple, as in NumPy 2), each of the common
        broadcast shape and its own dtype; broadcast ndarrays are read-only
        views.

    Raises
    ------
    ValueError
        If the shapes are not broadcast-compatible.

    Notes
    -----
    The cotangent of each argument is the sum of its result's cotangent
    over the broadcast axes.
    """
    args = [_array(a) for a in args]
    shape = np.broadcast_shapes(*[a.shape for a in args])
    return tuple(ops.broadcast_to(a, shape) for a in args)


_ATLEAST_DOC = """Reshape each input to at least {n} dimension{s}.

{rule}.

Parameters
----------
*arys : array_like or tracers

Returns
-------
array or tracer, or tuple of them
    One result for one argument, else a tuple (also for no arguments:
    ``()``), as NumPy 2 does.  Dtypes and elements are unchanged.

Notes
-----
A reshape: the cotangent is reshaped back.
"""


@implements(np.atleast_1d)
def atleast_1d(*arys):
    return _atleast(arys, lambda s: (1,) if len(s) == 0 else s)


@implements(np.atleast_2d)
def atleast_2d(*arys):
    return _atleast(arys, lambda s: (1,) * (2 - len(s)) + s if len(s) < 2 else s)


@implements(np.atleast_3d)
def atleast_3d(*arys):
    def new(s):
        if len(s) == 0:
            return (1, 1, 1)
        if len(s) == 1:
            return (1,) + s + (1,)
        return s + (1,) if len(s) == 2 else s

    return _atleast(arys, new)


atleast_1d.__doc__ = _ATLEAST_DOC.format(
    n="one", s="", rule="``()`` becomes ``(1,)``; other shapes are unchanged")
atleast_2d.__doc__ = _ATLEAST_DOC.format(
    n="two", s="s",
    rule="``()`` becomes ``(1, 1)``, ``(n,)`` becomes ``(1, n)``; other shapes are unchanged")
atleast_3d.__doc__ = _ATLEAST_DOC.format(
    n="three", s="s",
    rule=("``()`` becomes ``(1, 1, 1)``, ``(n,)`` becomes ``(1, n, 1)``,\n"
          "``(m, n)`` becomes ``(m, n, 1)``; other shapes are unchanged"))


def _atleast(arys, new_shape):
    out = []
    for a in arys:
        a = _array(a)
        out.append(ops.reshape(a, new_shape(tuple(a.shape))))
    return out[0] if len(out) == 1 else tuple(out)


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
    Each piece is a slice: its cotangent is scattered (zero-padded) back
    into ``ary``'s shape, and the pieces' contributions add up.
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


# ==========================================================================
# repetition, flipping, rolling


@implements(np.tile)
def tile(A, reps):
    """Repeat ``A`` ``reps`` times per axis (NumPy's rank-matching rules).

    Parameters
    ----------
    A : array_like or tracer
    reps : int or sequence of ints
        Repetitions per axis.  If ``reps`` is shorter than ``A.ndim`` it is
        padded with leading 1s; if longer, ``A`` gets leading length-1 axes.

    Returns
    -------
    array or tracer
        ``A``'s dtype; shape ``reps[i] * A.shape[i]`` per (padded) axis.

    Raises
    ------
    ValueError
        If a repetition count is negative.
    TypeError
        If a repetition count is not an integer.

    Notes
    -----
    Implemented as reshape + broadcast + reshape, so the VJP sums the
    cotangent over the copies.
    """
    A = _array(A)
    reps = (reps,) if np.ndim(reps) == 0 else tuple(reps)
    reps = tuple(operator.index(r) for r in reps)
    if any(r < 0 for r in reps):
        raise ValueError(f"negative dimensions are not allowed in tile reps {reps}")
    shape = tuple(A.shape)
    d = max(len(reps), len(shape))
    shape = (1,) * (d - len(shape)) + shape
    reps = (1,) * (d - len(reps)) + reps
    inter = tuple(v for r, n in zip(reps, shape) for v in (1, n))
    big = tuple(v for r, n in zip(reps, shape) for v in (r, n))
    out = ops.broadcast_to(ops.reshape(A, inter), big)
    return ops.reshape(out, tuple(r * n for r, n in zip(reps, shape)))


@implements(np.repeat)
def repeat(a, repeats, axis=None):
    """Repeat each element of ``a`` along ``axis`` (``None``: of the flattened ``a``).

    Parameters
    ----------
    a : array_like or tracer
    repeats : int or sequence of ints
        One count for all elements, or one per element along ``axis``.
    axis : int, optional

    Returns
    -------
    array or tracer
        The VJP sums the cotangents of the copies of each element (a
        ``scatter_add`` for per-element counts).

    Raises
    ------
    ValueError
        Negative counts or a count sequence of the wrong length.
    """
    a = _array(a)
    if axis is None:
        a = ravel(a)
        axis = 0
    axis = normalize_axis_index(axis, a.ndim)
    reps = _concrete_ints(repeats, "repeats")
    n = a.shape[axis]
    if reps.size == 1:
        r = int(reps.reshape(-1)[0])
        if r < 0:
            raise ValueError("negative dimensions are not allowed")
        s = tuple(a.shape)
        inner = s[: axis + 1] + (1,) + s[axis + 1:]
        out = ops.broadcast_to(ops.reshape(a, inner), s[: axis + 1] + (r,) + s[axis + 1:])
        return ops.reshape(out, s[:axis] + (n * r,) + s[axis + 1:])
    idx = np.repeat(np.arange(n), reps)  # NumPy's checks of the counts
    return ops.gather(a, idx, axis)


@implements(np.flip)
def flip(m, axis=None):
    """Reverse the order of elements along ``axis``.

    Parameters
    ----------
    m : array_like or tracer
    axis : None, int or tuple of ints, optional
        Axes to reverse (negative counts from the end); None reverses all.

    Returns
    -------
    array or tracer
        ``m``'s shape and dtype.

    Raises
    ------
    numpy.exceptions.AxisError
        If an axis is out of range.

    Notes
    -----
    Linear: the cotangent is reversed along the same axes.
    """
    m = _array(m)
    axes = tuple(range(m.ndim)) if axis is None else normalize_axis_tuple(axis, m.ndim)
    return ops.rev(m, axes)


def _flip_one(m, axis):
    m = _array(m)
    if m.ndim <= axis:
        raise ValueError(f"Input must be >= {axis + 1}-d.")
    return ops.rev(m, (axis,))


@implements(np.fliplr)
def fliplr(m):
    """Reverse the order of elements along axis 1 (left/right).

    Parameters
    ----------
    m : array_like or tracer
        At least 2-D.

    Returns
    -------
    array or tracer
        ``m``'s shape and dtype.

    Raises
    ------
    ValueError
        If ``m`` has fewer than two dimensions.

    Notes
    -----
    Linear: the cotangent is reversed along axis 1.
    """
    return _flip_one(m, 1)


@implements(np.flipud)
def flipud(m):
    """Reverse the order of elements along axis 0 (up/down).

    Parameters
    ----------
    m : array_like or tracer
        At least 1-D.

    Returns
    -------
    array or tracer
        ``m``'s shape and dtype.

    Raises
    ------
    ValueError
        If ``m`` is 0-d.

    Notes
    -----
    Linear: the cotangent is reversed along axis 0.
    """
    return _flip_one(m, 0)


@implements(np.roll)
def roll(a, shift, axis=None):
    """Shift elements cyclically by ``shift`` along ``axis``.

    Parameters
    ----------
    a : array_like or tracer
    shift : int or tuple of ints
    axis : int or tuple of ints, optional
        None rolls the flattened array and restores the shape.  ``shift``
        and ``axis`` broadcast against each other; shifts of a repeated axis
        add up.

    Returns
    -------
    array or tracer
        ``a``'s shape and dtype.

    Raises
    ------
    ValueError
        If ``shift`` and ``axis`` do not broadcast together or are more than
        1-D.
    numpy.exceptions.AxisError
        If an axis is out of range.

    Notes
    -----
    Two slices concatenated per rolled axis, so the cotangent is rolled
    back by ``-shift``.
    """
    a = _array(a)
    if axis is None:
        return reshape(roll(ravel(a), shift, 0), a.shape)
    b = np.broadcast(np.asarray(shift), np.asarray(axis))
    if b.ndim > 1:
        raise ValueError("'shift' and 'axis' should be scalars or 1D sequences")
    shifts = {}
    for sh, ax in b:
        ax = normalize_axis_index(int(ax), a.ndim)
        shifts[ax] = shifts.get(ax, 0) + int(sh)
    for ax, sh in shifts.items():
        n = a.shape[ax]
        if n == 0 or sh % n == 0:
            continue
        k = n - sh % n  # the result starts at element k
        pre = (slice(None),) * ax
        head, tail = getitem(a, pre + (slice(k, None),)), getitem(a, pre + (slice(0, k),))
        a = ops.concatenate([head, tail], ax)
    return a


# ==========================================================================
# padding


def _as_pairs(x, ndim, what):
    """NumPy's reading of ``pad_width``/``constant_values`` as ``ndim`` (before, after) pairs."""
    x = np.asarray(x)
    if x.ndim < 3:
        if x.size == 1:
            return [(x.reshape(-1)[0],) * 2] * ndim
        if x.size == 2 and x.shape != (2, 1):
            v = x.reshape(-1)
            return [(v[0], v[1])] * ndim
    try:
        return [tuple(p) for p in np.broadcast_to(x, (ndim, 2))]
    except ValueError:
        raise ValueError(
            f"{what} of shape {x.shape} cannot be read as (before, after) pairs for "
            f"{ndim} axes: use an int, (before, after), or ((before_1, after_1), ...)"
        ) from None


_PAD_MODES = ("constant", "edge", "reflect", "symmetric", "wrap", "empty")
_NP_PAD_MODES = ("linear_ramp", "maximum", "mean", "median", "minimum")


@implements(np.pad)
def pad(array, pad_width, mode="constant", **kwargs):
    """Pad an array, NumPy's ``pad`` for the modes below.

    Parameters
    ----------
    array : array_like or tracer
    pad_width : int or sequence
        ``n``, ``(n,)``, ``(before, after)``, ``((before, after),)`` or one
        ``(before, after)`` pair per axis; non-negative integers.
    mode : {"constant", "edge", "reflect", "symmetric", "wrap", "empty"}, optional
        "empty" leaves the padding undefined in NumPy; here it is zero.
    constant_values : scalar or pairs, optional
        For "constant" (default 0), read like ``pad_width``; may be traced,
        then the result is differentiable in it too.
    reflect_type : {"even"}, optional
        For "reflect"/"symmetric"; "odd" is not supported.

    Returns
    -------
    array or tracer
        "constant" lowers to the ``pad`` primitive (its VJP is a strided
        slice).  The other modes are one ``gather`` per padded axis with the
        positions NumPy's own ``pad`` produces for ``arange(n)``, so
        reflected/edge elements accumulate their copies' cotangents.

    Raises
    ------
    ValueError
        Negative widths, an unknown mode or keyword, or padding an empty
        axis with a non-constant mode.
    TypeError
        Non-integer widths.
    NotImplementedError
        For NumPy's statistical modes, callables and ``reflect_type="odd"``.
    """
    array = _array(array)
    widths = np.asarray(pad_width)
    if widths.dtype.kind not in "iu":
        raise TypeError("`pad_width` must be of integral type.")
    pairs = [(int(b), int(a)) for b, a in _as_pairs(widths, array.ndim, "pad_width")]
    if any(b < 0 or a < 0 for b, a in pairs):
        raise ValueError("index can't contain negative values")
    allowed = {"constant": {"constant_values"}, "edge": set(), "wrap": set(), "empty": set(),
               "reflect": {"reflect_type"}, "symmetric": {"reflect_type"}}
    if callable(mode) or mode in _NP_PAD_MODES:
        raise NotImplementedError(
            f"np.pad mode {mode!r} is not supported by tracegrad; supported modes: "
            f"{', '.join(_PAD_MODES)}"
        )
    if mode not in allowed:
        raise ValueError(f"mode '{mode}' is not supported")
    bad = set(kwargs) - allowed[mode]
    if bad:
        raise ValueError(f"unsupported keyword arguments for mode '{mode}': {sorted(bad)}")
    if kwargs.get("reflect_type", "even") != "even":
        raise NotImplementedError("pad with reflect_type='odd' is not supported; use 'even'")
    if mode in ("constant", "empty"):
        return _pad_constant(array, pairs, kwargs.get("constant_values", 0))
    for ax, (b, a) in enumerate(pairs):
        if b == a == 0:
            continue
        n = array.shape[ax]
        if n == 0:
            raise ValueError(
                f"can't extend empty axis {ax} using modes other than 'constant' or 'empty'"
            )
        idx = np.pad(np.arange(n), (b, a), mode=mode)
        array = ops.gather(array, idx, ax)
    return array


def _pad_constant(array, pairs, values):
    if isinstance(values, Tracer) or _contains_tracer(values):
        return _pad_traced_constant(array, pairs, _array(values))
    vals = _as_pairs(values, array.ndim, "constant_values")
    flat = [v for p in vals for v in p]
    if len(set(flat)) <= 1:  # one value everywhere: a single pad
        return ops.pad(array, [(b, a, 0) for b, a in pairs], flat[0] if flat else 0)
    # different values per side: one pad per side; later axes cover the corners
    for ax, ((b, a), (vb, va)) in enumerate(zip(pairs, vals)):
        for cfg, v in (((b, 0, 0), vb), ((0, a, 0), va)):
            if cfg != (0, 0, 0):
                config = [(0, 0, 0)] * array.ndim
                config[ax] = cfg
                array = ops.pad(array, config, v)
    return array


def _pad_traced_constant(array, pairs, values):
    if values.size == 2 and values.ndim < 3 and tuple(values.shape) != (2, 1):
        values = ops.reshape(values, (1, 2))  # (before, after) for every axis
    if values.ndim:
        values = broadcast_to(values, (array.ndim, 2))
    for ax, (b, a) in enumerate(pairs):
        parts = []
        for side, w in ((0, b), (1, a)):
            if w:
                v = values if values.ndim == 0 else getitem(values, (ax, side))
                s = list(array.shape)
                s[ax] = w
                parts.append(ops.broadcast_to(ops.convert_element_type(v, array.dtype), tuple(s)))
        if parts:
            parts.insert(1 if b else 0, array)
            array = ops.concatenate(parts, ax)
    return array


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


@implements(np.outer)
def outer(a, b, out=None):
    """Outer product ``result[i, j] = a[i] * b[j]`` of the flattened inputs.

    Parameters
    ----------
    a : array_like or tracer
        Flattened to length ``M``.
    b : array_like or tracer
        Flattened to length ``N``.
    out : None
        Must be None.

    Returns
    -------
    array or tracer, shape ``(M, N)``
        The promoted dtype of ``a`` and ``b``.

    Raises
    ------
    TypeError
        If ``out`` is given.

    Notes
    -----
    A broadcast product: the cotangent of ``a`` is ``ct @ b`` and that of
    ``b`` is ``a @ ct``, reshaped to the inputs' shapes.
    """
    _no_out("outer", out)
    a, b = ravel(a), ravel(b)
    return ops.mul(ops.reshape(a, (a.shape[0], 1)), ops.reshape(b, (1, b.shape[0])))


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
