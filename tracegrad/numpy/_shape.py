"""Shape of ``tracegrad.numpy``: reshape, ravel, transpose, swapaxes, moveaxis,
expand_dims, squeeze, the broadcasting functions and atleast_1d/2d/3d.

Each result is a rearrangement of its input, built from the structural
primitives (``reshape``, ``transpose``, ``broadcast_to``), so the derivative
is the inverse rearrangement.  Axes follow NumPy: negative axes count from
the end and a bad axis raises NumPy's ``AxisError``.  Each function is
registered for NumPy's dispatch, so ``np.reshape(tracer, ...)`` works.
"""
import math
import numbers
import operator

import numpy as np
from numpy.lib.array_utils import normalize_axis_index, normalize_axis_tuple

from ..primitives import ops
from ._core import _array
from ._dispatch import implements

__all__ = [
    "reshape",
    "ravel",
    "transpose",
    "swapaxes",
    "moveaxis",
    "expand_dims",
    "squeeze",
    "broadcast_to",
    "broadcast_shapes",
    "broadcast_arrays",
    "atleast_1d",
    "atleast_2d",
    "atleast_3d",
]


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
