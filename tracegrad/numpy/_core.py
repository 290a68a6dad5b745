"""Argument conversion and array creation for ``tracegrad.numpy``.

``asarray``/``array`` accept nested lists that mix tracers and numbers (the
result is traced); the other creation functions return plain NumPy arrays,
which are constants to every transform, except where a fill value is traced.
"""
import numbers
import operator

import numpy as np

from .._array import Array
from ..core import Tracer, concrete_value
from ..primitives import ops
from ._array_type import array_result
from ._dispatch import implements

__all__ = [
    "array", "asarray", "zeros", "ones", "full", "empty", "zeros_like",
    "ones_like", "full_like", "empty_like", "eye", "identity", "arange",
    "linspace", "shape", "ndim", "size", "result_type", "astype",
    "float32", "float64", "int32", "int64", "bool_", "complex64",
    "complex128", "pi", "e", "inf", "nan", "newaxis", "ndarray",
    "iscomplexobj", "isscalar", "Array",
]

float32, float64, int32, int64 = np.float32, np.float64, np.int32, np.int64
bool_, complex64, complex128 = np.bool_, np.complex64, np.complex128
pi, e, inf, nan, newaxis = np.pi, np.e, np.inf, np.nan, None
ndarray = np.ndarray


def is_array(x):
    return isinstance(x, (Tracer, np.ndarray, np.generic))


def is_python_scalar(x):
    return isinstance(x, numbers.Number) and not isinstance(x, np.generic)


def _contains_tracer(obj):
    stack = [obj]
    while stack:
        o = stack.pop()
        if isinstance(o, Tracer):
            return True
        if isinstance(o, (list, tuple)):
            stack.extend(o)
    return False


def arg(x):
    """Normalize a function argument: arrays, tracers and Python scalars pass
    through (scalars stay weakly typed, as in NumPy 2); sequences become
    arrays (traced if they contain tracers)."""
    if isinstance(x, (Tracer, np.ndarray, np.generic)) or is_python_scalar(x):
        return x
    return asarray(x)


# helpers shared by the array-manipulation modules (_shape, _join, ...)


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


def _stack_nested(obj, dtype):
    if not isinstance(obj, (list, tuple)):
        return obj if isinstance(obj, Tracer) else np.asarray(obj)
    elems = [_stack_nested(o, dtype) for o in obj]
    if not elems:
        return np.asarray(obj, dtype=dtype)
    shapes = {tuple(e.shape) for e in elems}
    if len(shapes) != 1:
        raise ValueError(
            f"setting an array element with a sequence: the nested sequences have "
            f"inhomogeneous shapes {sorted(shapes)}"
        )
    dt = dtype if dtype is not None else np.result_type(*[e.dtype for e in elems])
    return ops.stack_rows([ops.convert_element_type(e, dt) for e in elems])


@implements(np.asarray)
def asarray(a, dtype=None, order=None, *, copy=None):
    """Convert ``a`` to an array; tracers (and lists containing them) stay traced.

    Parameters
    ----------
    a : array_like or tracer
        An array, tracer, scalar or nested sequence (which may mix tracers
        and numbers; its nesting must be homogeneous).
    dtype : dtype, optional
        Result dtype; by default ``a``'s (or NumPy's inference).
    order : {"K", "A", "C", "F"}, optional
        Memory layout for constant input (ignored for tracers).
    copy : bool, optional
        Accepted for NumPy compatibility; constant input follows NumPy.

    Returns
    -------
    ndarray or tracer
        A tracer is returned as it is (cast if ``dtype`` differs); a
        sequence containing tracers becomes a stacked tracer; anything else
        is ``np.asarray(a, dtype, order)``, a constant.

    Raises
    ------
    ValueError
        If a nested sequence is inhomogeneous, or NumPy's errors for
        constant input.

    Notes
    -----
    The identity on a tracer (derivative 1); for sequences, each element of
    the result has derivative 1 with respect to its traced entry, as in
    :func:`array`.  A cast between float dtypes keeps the derivative, a
    cast to an integer, bool or complex dtype drops it.
    """
    if isinstance(a, Tracer):
        return a if dtype is None else ops.convert_element_type(a, dtype)
    if isinstance(a, (list, tuple)) and _contains_tracer(a):
        out = _stack_nested(a, None if dtype is None else np.dtype(dtype))
        return out if dtype is None else ops.convert_element_type(out, dtype)
    return np.asarray(a, dtype=dtype, order=order)


@implements(np.array)
def array(object, dtype=None, copy=True, order="K", ndmin=0):  # noqa: A002
    """Create an array (NumPy's ``array``); traced inputs give a traced result.

    Parameters
    ----------
    object : array_like or tracer
        An array, tracer, scalar or nested sequence.  Sequences may mix
        tracers, arrays and numbers; their nesting must be homogeneous (every
        element at one level has the same shape).
    dtype : dtype, optional
        Result dtype.  By default NumPy's: for a nested sequence with tracers,
        the promoted dtype of its elements (Python numbers count as
        ``np.asarray(number)``, so ``1.0`` is float64).
    copy : bool, optional
        NumPy's ``copy`` for constant input.  Traced results never alias
        the caller's data, so it is ignored for them.
    order : {"K", "A", "C", "F"}, optional
        Memory layout for constant input (ignored for traced results).
    ndmin : int, optional
        Minimum number of dimensions; leading axes of length 1 are added.

    Returns
    -------
    ndarray or tracer
        Without tracers in ``object``: ``np.array(object, ...)``, a constant.
        With tracers: a tracer of the nested shape (``len(object), ...``),
        with leading length-1 axes up to ``ndmin``.

    Raises
    ------
    ValueError
        If a nested sequence is inhomogeneous ("setting an array element
        with a sequence"), or NumPy's errors for constant input.

    Notes
    -----
    Each element of the result is the corresponding traced entry, so its
    derivative with respect to that entry is 1 (the cotangent of an entry is
    its slice of the result's cotangent); numbers and arrays in ``object``
    are constants.  A ``dtype`` cast is differentiable between floating
    dtypes and carries no derivative to integer, bool or complex dtypes.

    Examples
    --------
    >>> import tracegrad as tg, tracegrad.numpy as tnp
    >>> float(tg.grad(lambda x: tnp.sum(tnp.array([x, 2 * x, 1.0])))(1.0))
    3.0
    """
    if isinstance(object, Tracer) or (
        isinstance(object, (list, tuple)) and _contains_tracer(object)
    ):
        out = asarray(object, dtype=dtype)
        if ndmin > out.ndim:
            out = ops.reshape(out, (1,) * (ndmin - out.ndim) + tuple(out.shape))
        return out
    return np.array(object, dtype=dtype, copy=copy, order=order, ndmin=ndmin)


@array_result
def astype(x, dtype):
    """``x`` cast to ``dtype`` (NumPy 2.1's ``astype`` function).

    Parameters
    ----------
    x : array_like or tracer
        Any shape and dtype; nested sequences are converted first.
    dtype : dtype
        The target dtype.

    Returns
    -------
    array or tracer
        ``x``'s shape, dtype ``dtype`` (NumPy's casting: floats to integers
        truncate toward zero).

    Notes
    -----
    A cast between floating dtypes carries the derivative (the tangent or
    cotangent is cast to the other float dtype).  Casts to integer, bool or
    complex dtypes, and casts from integer or bool, carry no derivative.
    """
    return ops.convert_element_type(arg(x), dtype)


if hasattr(np, "astype"):  # NumPy >= 2.1
    implements(np.astype)(astype)


def _shape_tuple(shape):
    if isinstance(shape, (int, np.integer)):
        return (int(shape),)
    return tuple(operator.index(s) for s in shape)


_CREATE_DOC = """{what}, a constant (NumPy's ``{name}``).

Parameters
----------
shape : int or sequence of ints
    Shape of the result; entries must be non-negative integers.
dtype : dtype, optional
    Result dtype (default float64).

Returns
-------
ndarray
    {result}  A plain array: it carries no derivative.

Raises
------
TypeError
    If ``shape`` is not an integer or a sequence of integers.
ValueError
    If a dimension is negative.
"""


@array_result
def zeros(shape, dtype=float):
    return np.zeros(_shape_tuple(shape), dtype=dtype)


@array_result
def ones(shape, dtype=float):
    return np.ones(_shape_tuple(shape), dtype=dtype)


@array_result
def empty(shape, dtype=float):
    return np.empty(_shape_tuple(shape), dtype=dtype)


zeros.__doc__ = _CREATE_DOC.format(
    what="Array of zeros", name="zeros", result="Zeros of ``shape`` and ``dtype``.")
ones.__doc__ = _CREATE_DOC.format(
    what="Array of ones", name="ones", result="Ones of ``shape`` and ``dtype``.")
empty.__doc__ = _CREATE_DOC.format(
    what="Uninitialized array", name="empty",
    result="An array of ``shape`` and ``dtype`` whose values are arbitrary.")


@implements(np.full)
def full(shape, fill_value, dtype=None):
    """Array of ``shape`` filled with ``fill_value`` (traced if it is).

    Parameters
    ----------
    shape : int or sequence of ints
        Shape of the result; entries must be non-negative integers.
    fill_value : scalar, array_like or tracer
        The value; an array must broadcast to ``shape``.
    dtype : dtype, optional
        Result dtype; by default that of ``fill_value`` (float64 for a Python
        float, int64 for a Python int).

    Returns
    -------
    ndarray or tracer
        Shape ``shape``.  A constant ndarray unless ``fill_value`` is a
        tracer, in which case it is ``fill_value`` broadcast to ``shape``.

    Raises
    ------
    ValueError
        If a dimension is negative or ``fill_value`` does not broadcast to
        ``shape``.

    Notes
    -----
    With a traced ``fill_value`` the result is a broadcast, so the
    cotangent of ``fill_value`` is the sum of the result's cotangent over
    the copies (``grad(lambda v: sum(full((3,), v)))`` is 3).  A cast to an
    integer ``dtype`` carries no derivative.
    """
    shape = _shape_tuple(shape)
    if isinstance(fill_value, Tracer):
        v = fill_value if dtype is None else ops.convert_element_type(fill_value, dtype)
        return ops.broadcast_to(v, shape)
    return np.full(shape, fill_value, dtype=dtype)


def _like_shape(a, shape):
    return tuple(np.shape(a)) if shape is None else _shape_tuple(shape)


_LIKE_DOC = """{what} with the shape and dtype of ``a`` (a constant, even for a tracer).

Parameters
----------
a : array_like or tracer
    Supplies the default shape and dtype; its values are not read.
dtype : dtype, optional
    Overrides ``a``'s dtype.
shape : int or sequence of ints, optional
    Overrides ``a``'s shape.

Returns
-------
ndarray
    {result}A plain array: it does not depend on ``a``'s values, so it
    carries no derivative.
"""


@implements(np.zeros_like)
def zeros_like(a, dtype=None, shape=None):
    return np.zeros(_like_shape(a, shape), dtype=dtype or _dtype(a))


@implements(np.ones_like)
def ones_like(a, dtype=None, shape=None):
    return np.ones(_like_shape(a, shape), dtype=dtype or _dtype(a))


@implements(np.empty_like)
def empty_like(a, dtype=None, shape=None):
    return np.empty(_like_shape(a, shape), dtype=dtype or _dtype(a))


zeros_like.__doc__ = _LIKE_DOC.format(what="Zeros", result="")
ones_like.__doc__ = _LIKE_DOC.format(what="Ones", result="")
empty_like.__doc__ = _LIKE_DOC.format(
    what="Uninitialized array", result="Arbitrary values.  ")


@implements(np.full_like)
def full_like(a, fill_value, dtype=None, shape=None):
    """``fill_value`` in the shape and dtype of ``a``; traced if ``fill_value`` is.

    Parameters
    ----------
    a : array_like or tracer
        Supplies the default shape and dtype; its values are not read.
    fill_value : scalar, array_like or tracer
        The value, cast to the result dtype (``2.5`` in an integer array is
        2); an array must broadcast to the shape.
    dtype : dtype, optional
        Overrides ``a``'s dtype.
    shape : int or sequence of ints, optional
        Overrides ``a``'s shape.

    Returns
    -------
    ndarray or tracer
        As :func:`full`: a constant unless ``fill_value`` is traced.

    Raises
    ------
    ValueError
        If ``fill_value`` does not broadcast to the shape.

    Notes
    -----
    No derivative with respect to ``a``.  With respect to a traced
    ``fill_value`` the cotangent is the sum over the copies, as for
    :func:`full`; an integer or bool result dtype carries no derivative.
    """
    return full(_like_shape(a, shape), fill_value, dtype=dtype or _dtype(a))


def _dtype(a):
    return a.dtype if hasattr(a, "dtype") else np.asarray(a).dtype


@array_result
def eye(N, M=None, k=0, dtype=float):
    """2-D array with ones on the ``k``-th diagonal and zeros elsewhere (a constant).

    Parameters
    ----------
    N : int
        Number of rows.
    M : int, optional
        Number of columns (default ``N``).
    k : int, optional
        Diagonal: 0 the main one, positive above it, negative below.
    dtype : dtype, optional
        Result dtype (default float64).

    Returns
    -------
    ndarray, shape ``(N, M)``
        A plain array; it carries no derivative.

    Raises
    ------
    ValueError
        If ``N`` or ``M`` is negative.
    """
    return np.eye(N, M, k, dtype=dtype)


@array_result
def identity(n, dtype=float):
    """Square identity matrix (a constant).

    Parameters
    ----------
    n : int
        Number of rows and columns.
    dtype : dtype, optional
        Result dtype (default float64).

    Returns
    -------
    ndarray, shape ``(n, n)``
        A plain array; it carries no derivative.

    Raises
    ------
    ValueError
        If ``n`` is negative.
    """
    return np.identity(n, dtype=dtype)


@array_result
def arange(start, stop=None, step=None, dtype=None):
    """Evenly spaced values in ``[start, stop)`` (a constant), as NumPy's ``arange``.

    Parameters
    ----------
    start : number
        Start of the interval, or its end if ``stop`` is None (the start is
        then 0).
    stop : number, optional
        End of the interval (excluded).
    step : number, optional
        Spacing (default 1).
    dtype : dtype, optional
        Result dtype; by default inferred from the arguments.

    Returns
    -------
    ndarray, 1-D
        ``ceil((stop - start) / step)`` values.  A plain array: it carries no
        derivative.

    Raises
    ------
    TypeError
        If an argument is a tracer (the values, and so the length, must be
        concrete; use :func:`linspace` for a traced grid).
    ZeroDivisionError
        If ``step`` is 0.
    """
    return np.arange(start, stop, step, dtype=dtype)


@implements(np.linspace)
def linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0):
    """``num`` evenly spaced samples over ``[start, stop]`` (NumPy's ``linspace``).

    Parameters
    ----------
    start, stop : scalar, array_like or tracer
        The end points.  Constant end points may be arrays (NumPy's rules);
        traced end points must be scalars (0-d).
    num : int, optional
        Number of samples (default 50).
    endpoint : bool, optional
        Whether ``stop`` is the last sample (default True).
    retstep : bool, optional
        Also return the spacing.
    dtype : dtype, optional
        Result dtype; by default the float dtype of the end points
        (float64 for Python numbers).
    axis : int, optional
        Axis of the samples for array end points; must be 0 when traced.

    Returns
    -------
    samples : ndarray or tracer
        Shape ``(num,)`` for scalar end points.  A constant unless ``start``
        or ``stop`` is traced.
    step : scalar or tracer
        Only with ``retstep``: ``(stop - start) / (num - 1)`` (``/ num``
        without the end point); NaN when that divisor is 0.

    Raises
    ------
    NotImplementedError
        For traced non-scalar end points or ``axis != 0`` with a tracer.
    ValueError
        For a negative ``num`` (NumPy's check).

    Notes
    -----
    With traced end points the samples are ``start + (stop - start) * t``
    for the fixed grid ``t = arange(num) / (num - 1)``, so
    ``d samples / d start = 1 - t`` and ``d samples / d stop = t``.  With
    an integer ``dtype`` the samples are floored first, as NumPy does, and
    carry no derivative.
    """
    if not (isinstance(start, Tracer) or isinstance(stop, Tracer)):
        return np.linspace(start, stop, num, endpoint, retstep, dtype, axis)
    num = operator.index(num)
    if num < 0:
        raise ValueError(f"Number of samples, {num}, must be non-negative.")
    if np.ndim(start) or np.ndim(stop) or axis != 0:
        raise NotImplementedError("traced linspace supports scalar start/stop and axis=0")
    div = (num - 1) if endpoint else num
    grid_dtype = np.result_type(
        *[v.dtype if hasattr(v, "dtype") else np.float64 for v in (start, stop)],
        np.float16,  # at least a float, as NumPy's linspace
    )
    t = (np.arange(num, dtype=np.float64) / (div if div > 0 else 1)).astype(grid_dtype)
    out = ops.add(start, ops.mul(ops.sub(stop, start), t))
    if dtype is not None:
        if np.dtype(dtype).kind in "iu":  # NumPy floors before an integer cast
            out = ops.floor(out)
        out = ops.convert_element_type(out, dtype)
    step = ops.div(ops.sub(stop, start), div) if div > 0 else np.nan
    return (out, step) if retstep else out


@implements(np.shape)
def shape(a):
    """Shape of an array, tracer, scalar or nested sequence.

    Parameters
    ----------
    a : array_like or tracer

    Returns
    -------
    tuple of ints
        ``()`` for a scalar.  Concrete even for a tracer (shapes are static).
    """
    return tuple(a.shape) if is_array(a) else np.shape(a)


@implements(np.ndim)
def ndim(a):
    """Number of dimensions of an array, tracer, scalar or nested sequence.

    Parameters
    ----------
    a : array_like or tracer

    Returns
    -------
    int
        ``len(shape(a))``; 0 for a scalar.
    """
    return len(a.shape) if is_array(a) else np.ndim(a)


@implements(np.size)
def size(a, axis=None):
    """Number of elements of ``a`` (along ``axis`` if given).

    Parameters
    ----------
    a : array_like or tracer
    axis : int or tuple of ints, optional
        Axes whose lengths are multiplied (negative counts from the end).

    Returns
    -------
    int
        The product of the shape (1 for a scalar), or of the lengths of the
        given axes.

    Raises
    ------
    IndexError
        If an axis is out of range.
    """
    s = shape(a)
    if axis is None:
        return int(np.prod(s, dtype=np.int64))
    if isinstance(axis, tuple):
        return int(np.prod([s[a] for a in axis], dtype=np.int64))
    return s[axis]


@implements(np.result_type)
def result_type(*arrays_and_dtypes):
    """NumPy's ``result_type``, accepting tracers.

    Parameters
    ----------
    *arrays_and_dtypes : arrays, tracers, scalars or dtypes
        Python scalars are weakly typed (NumPy 2): ``result_type(float32
        tracer, 1.0)`` is float32.

    Returns
    -------
    numpy.dtype
        The dtype NumPy's promotion gives the operands.

    Raises
    ------
    ValueError
        If no argument is given.
    TypeError
        If the dtypes cannot be promoted together (NumPy's ``DTypePromotionError``
        is a TypeError).
    """
    return np.result_type(
        *[x.dtype if isinstance(x, Tracer) else x for x in arrays_and_dtypes]
    )


@implements(np.iscomplexobj)
def iscomplexobj(x):
    """True if ``x`` has a complex dtype (NumPy's ``iscomplexobj``).

    Parameters
    ----------
    x : array_like or tracer
        Only the dtype is inspected (of ``np.asarray(x)`` for sequences and
        scalars), never the values.

    Returns
    -------
    bool
        True for complex64/complex128, even if every imaginary part is 0.
    """
    return np.dtype(_dtype(x)).kind == "c"


def isscalar(x):
    """NumPy's ``isscalar``: True for Python and NumPy scalars, False for arrays.

    Parameters
    ----------
    x : object

    Returns
    -------
    bool
        True for Python numbers, NumPy scalars, ``str`` and ``bytes``.  False
        for arrays, including 0-d arrays, and for tracers (which behave as
        arrays, even 0-d ones).
    """
    return np.isscalar(x)
