"""Argument conversion and array creation for ``tracegrad.numpy``.

``asarray``/``array`` accept nested lists that mix tracers and numbers (the
result is traced); the other creation functions return plain NumPy arrays,
which are constants to every transform, except where a fill value is traced.
"""
import numbers
import operator

import numpy as np

from ..interpreters.core import Tracer
from ..primitives import ops
from ._dispatch import implements

__all__ = [
    "array", "asarray", "zeros", "ones", "full", "empty", "zeros_like",
    "ones_like", "full_like", "empty_like", "eye", "identity", "arange",
    "linspace", "shape", "ndim", "size", "result_type", "astype",
    "float32", "float64", "int32", "int64", "bool_", "complex64",
    "complex128", "pi", "e", "inf", "nan", "newaxis", "ndarray",
    "iscomplexobj", "isscalar",
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
    dtype : dtype, optional

    Returns
    -------
    ndarray or tracer
    """
    if isinstance(a, Tracer):
        return a if dtype is None else ops.convert_element_type(a, dtype)
    if isinstance(a, (list, tuple)) and _contains_tracer(a):
        out = _stack_nested(a, None if dtype is None else np.dtype(dtype))
        return out if dtype is None else ops.convert_element_type(out, dtype)
    return np.asarray(a, dtype=dtype, order=order)


@implements(np.array)
def array(object, dtype=None, copy=True, order="K", ndmin=0):  # noqa: A002
    """Create an array (NumPy's ``array``); traced inputs give a traced result."""
    if isinstance(object, Tracer) or (
        isinstance(object, (list, tuple)) and _contains_tracer(object)
    ):
        out = asarray(object, dtype=dtype)
        if ndmin > out.ndim:
            out = ops.reshape(out, (1,) * (ndmin - out.ndim) + tuple(out.shape))
        return out
    return np.array(object, dtype=dtype, copy=copy, order=order, ndmin=ndmin)


def astype(x, dtype):
    """``x`` cast to ``dtype``; float-to-float casts carry derivatives."""
    return ops.convert_element_type(arg(x), dtype)


if hasattr(np, "astype"):  # NumPy >= 2.1
    implements(np.astype)(astype)


def _shape_tuple(shape):
    if isinstance(shape, (int, np.integer)):
        return (int(shape),)
    return tuple(operator.index(s) for s in shape)


def zeros(shape, dtype=float):
    """Array of zeros (a constant). ``shape``: int or tuple of ints."""
    return np.zeros(_shape_tuple(shape), dtype=dtype)


def ones(shape, dtype=float):
    """Array of ones (a constant). ``shape``: int or tuple of ints."""
    return np.ones(_shape_tuple(shape), dtype=dtype)


def empty(shape, dtype=float):
    """Uninitialized array (a constant), as NumPy's ``empty``."""
    return np.empty(_shape_tuple(shape), dtype=dtype)


@implements(np.full)
def full(shape, fill_value, dtype=None):
    """Array of ``shape`` filled with ``fill_value`` (traced if it is).

    ``dtype`` defaults to that of ``fill_value`` (float64 for a Python float).
    """
    shape = _shape_tuple(shape)
    if isinstance(fill_value, Tracer):
        v = fill_value if dtype is None else ops.convert_element_type(fill_value, dtype)
        return ops.broadcast_to(v, shape)
    return np.full(shape, fill_value, dtype=dtype)


def _like_shape(a, shape):
    return tuple(np.shape(a)) if shape is None else _shape_tuple(shape)


@implements(np.zeros_like)
def zeros_like(a, dtype=None, shape=None):
    """Zeros with the shape and dtype of ``a`` (a constant, even for a tracer)."""
    return np.zeros(_like_shape(a, shape), dtype=dtype or _dtype(a))


@implements(np.ones_like)
def ones_like(a, dtype=None, shape=None):
    """Ones with the shape and dtype of ``a`` (a constant, even for a tracer)."""
    return np.ones(_like_shape(a, shape), dtype=dtype or _dtype(a))


@implements(np.empty_like)
def empty_like(a, dtype=None, shape=None):
    """Uninitialized array shaped like ``a`` (a constant)."""
    return np.empty(_like_shape(a, shape), dtype=dtype or _dtype(a))


@implements(np.full_like)
def full_like(a, fill_value, dtype=None, shape=None):
    """``fill_value`` in the shape (and dtype) of ``a``; traced if ``fill_value`` is."""
    return full(_like_shape(a, shape), fill_value, dtype=dtype or _dtype(a))


def _dtype(a):
    return a.dtype if hasattr(a, "dtype") else np.asarray(a).dtype


def eye(N, M=None, k=0, dtype=float):
    """2-D array with ones on the ``k``-th diagonal (a constant)."""
    return np.eye(N, M, k, dtype=dtype)


def identity(n, dtype=float):
    """Square identity matrix (a constant)."""
    return np.identity(n, dtype=dtype)


def arange(start, stop=None, step=None, dtype=None):
    """Evenly spaced values in ``[start, stop)`` (a constant), as NumPy's."""
    return np.arange(start, stop, step, dtype=dtype)


@implements(np.linspace)
def linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0):
    """``num`` evenly spaced samples over ``[start, stop]``.

    Traced ``start``/``stop`` give a traced result
    (``start + (stop - start) * t`` for the fixed grid ``t``).
    """
    if not (isinstance(start, Tracer) or isinstance(stop, Tracer)):
        return np.linspace(start, stop, num, endpoint, retstep, dtype, axis)
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
        out = ops.convert_element_type(out, dtype)
    step = ops.div(ops.sub(stop, start), div) if div > 0 else np.nan
    return (out, step) if retstep else out


@implements(np.shape)
def shape(a):
    """Shape of an array, tracer or nested sequence."""
    return tuple(a.shape) if is_array(a) else np.shape(a)


@implements(np.ndim)
def ndim(a):
    """Number of dimensions."""
    return len(a.shape) if is_array(a) else np.ndim(a)


@implements(np.size)
def size(a, axis=None):
    """Number of elements (along ``axis`` if given)."""
    s = shape(a)
    return int(np.prod(s, dtype=np.int64)) if axis is None else s[axis]


@implements(np.result_type)
def result_type(*arrays_and_dtypes):
    """NumPy's ``result_type``, accepting tracers."""
    return np.result_type(
        *[x.dtype if isinstance(x, Tracer) else x for x in arrays_and_dtypes]
    )


@implements(np.iscomplexobj)
def iscomplexobj(x):
    return np.dtype(_dtype(x)).kind == "c"


def isscalar(x):
    """NumPy's ``isscalar`` (a tracer is never a scalar: it is an array)."""
    return np.isscalar(x)
