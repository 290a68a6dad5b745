"""Reductions and scans of ``tracegrad.numpy``, with NumPy's signatures.

``sum``, ``mean``, ``prod``, ``max``/``amax``, ``min``/``amin``, ``ptp``,
``var``, ``std``, ``average``, ``cumsum``, ``cumprod``,
``cumulative_sum``, ``cumulative_prod``, ``argmax``, ``argmin``, ``all``,
``any``.  Each accepts arrays, tracers, scalars and nested sequences;
``axis`` may be None, an int (negative counts from the end) or a tuple;
``keepdims``, ``dtype``, ``initial`` and ``where`` behave as in NumPy.
``out=`` raises a TypeError (arrays are immutable under transforms).  Each
function is registered for NumPy dispatch, so ``np.sum(tracer)``,
``tracer.sum()``, ``np.add.reduce(tracer)`` and
``np.multiply.accumulate(tracer)`` all land here.

Semantics at the edges
----------------------
* ``max``/``min``/``ptp`` split the derivative evenly among tied extrema
  (``grad(max)([1., 1., .5]) == [.5, .5, 0]``), in forward and reverse mode.
* ``prod``/``cumprod`` derivatives never divide by the input: exact with
  zeros, to any order.
* ``std`` of a constant input has derivative exactly 0 (not NaN).
* ``max``/``min``/``argmax``/``argmin`` of an empty axis raise ValueError as
  NumPy does; ``sum`` of nothing is 0 and ``prod`` of nothing is 1.
"""
import math

import numpy as np
from numpy.exceptions import AxisError

from ..core import is_concrete
from ..primitives import ops
from ._core import arg
from ._dispatch import implements

__all__ = [
    "sum", "mean", "prod", "max", "amax", "min", "amin", "ptp", "var", "std",
    "average", "cumsum", "cumprod", "cumulative_sum", "cumulative_prod",
    "argmax", "argmin", "all", "any",
]

_builtin_max = max
_NoValue = np._NoValue


def _given(v):
    return v is not _NoValue


# --------------------------------------------------------------------------
# argument handling


def _operand(a, out, name):
    """The array operand (scalars become 0-d arrays); rejects ``out=``."""
    if out is not None:
        raise TypeError(
            f"tracegrad.numpy.{name} does not support out=: arrays are immutable "
            "under transforms; use the returned value instead."
        )
    x = arg(a)
    if not hasattr(x, "shape"):
        x = np.asarray(x)
    return x


def _axes(axis, ndim):
    """Normalize ``axis`` (None, int or tuple; negatives allowed) to a sorted tuple."""
    if axis is None:
        return tuple(range(ndim))
    seq = axis if isinstance(axis, (tuple, list)) else (axis,)
    out = []
    for a in seq:
        a = _index(a)
        if not -ndim <= a < ndim:
            raise AxisError(a, ndim)
        out.append(a % ndim)
    if len(set(out)) != len(out):
        raise ValueError(f"duplicate value in 'axis': {axis}")
    return tuple(sorted(out))


def _index(a):
    if isinstance(a, (bool, np.bool_)) or not hasattr(a, "__index__"):
        raise TypeError(f"axis must be an integer or a tuple of integers, got {a!r}")
    return int(a.__index__())


def _keep(y, shape, axes, keepdims):
    """Reinsert the reduced ``axes`` as length-1 axes when ``keepdims``."""
    if keepdims is _NoValue or not keepdims:
        return y
    return ops.reshape(y, tuple(1 if i in axes else s for i, s in enumerate(shape)))


def _count(shape, axes):
    return math.prod(shape[i] for i in axes)


def _masked(x, where, fill, name):
    """``x`` with the elements outside ``where`` replaced by ``fill``."""
    if not _given(where) or where is True:
        return x
    mask = arg(where)
    shape = tuple(x.shape)
    if np.broadcast_shapes(shape, np.shape(mask)) != shape:
        raise ValueError(
            f"tracegrad.numpy.{name}: where= of shape {np.shape(mask)} does not "
            f"broadcast to the operand's shape {shape}"
        )
    return ops.select(mask, x, fill)


def _mask_count(x, where, axes, dtype):
    """Number of elements reduced over ``axes`` (an array when ``where`` is given)."""
    if not _given(where) or where is True:
        return float(_count(x.shape, axes))
    mask = ops.broadcast_to(ops.convert_element_type(arg(where), dtype), tuple(x.shape))
    return ops.reduce_sum(mask, axes)


def _cast(x, dtype):
    return x if dtype is None else ops.convert_element_type(x, dtype)


# --------------------------------------------------------------------------
# sum, prod


def _monoid(name, reduce, combine, identity, a, axis, dtype, out, keepdims, initial, where):
    """A reduction with an identity: masked-out elements become ``identity``
    and ``initial`` is combined with the result."""
    x = _cast(_operand(a, out, name), dtype)
    axes = _axes(axis, len(x.shape))
    shape = tuple(x.shape)
    y = reduce(_masked(x, where, identity, name), axes)
    if _given(initial) and initial is not None:
        y = combine(y, np.asarray(initial, dtype=y.dtype)[()])
    return _keep(y, shape, axes, keepdims)


@implements(np.sum)
def sum(a, axis=None, dtype=None, out=None, keepdims=False, initial=_NoValue,  # noqa: A001
        where=_NoValue):
    """Sum of array elements over ``axis``.

    Parameters
    ----------
    a : array_like or tracer
    axis : None, int or tuple of ints, optional
        Axes to sum over (negative counts from the end); None sums everything.
    dtype : dtype, optional
        Accumulate (and return) in this dtype; by default NumPy's rule
        (booleans and small integers accumulate in int64).
    keepdims : bool, optional
        Keep the reduced axes with length 1.
    initial : scalar, optional
        Added to the sum.
    where : array_like of bool, optional
        Only elements where ``where`` is true are summed.

    Returns
    -------
    array or tracer
        ``a``'s shape without the reduced axes.  An empty sum is 0.

    Raises
    ------
    TypeError
        If ``out`` is given.
    numpy.exceptions.AxisError
        If an axis is out of range.
    ValueError
        If an axis repeats or ``where`` does not broadcast to ``a``'s shape.

    Notes
    -----
    Linear: the cotangent of ``a`` is the result's cotangent broadcast back
    over the reduced axes (0 where ``where`` is false).  ``initial`` is a
    constant.
    """
    return _monoid("sum", ops.reduce_sum, ops.add, 0, a, axis, dtype, out, keepdims,
                   initial, where)


@implements(np.prod)
def prod(a, axis=None, dtype=None, out=None, keepdims=False, initial=_NoValue,
         where=_NoValue):
    """Product of array elements over ``axis``.

    Parameters
    ----------
    a : array_like or tracer
    axis : None, int or tuple of ints, optional
        Axes to multiply over (negative counts from the end); None
        multiplies everything.
    dtype : dtype, optional
        Accumulate (and return) in this dtype; by default NumPy's rule
        (booleans and small integers accumulate in int64).
    out : None
        Must be None.
    keepdims : bool, optional
        Keep the reduced axes with length 1.
    initial : scalar, optional
        Multiplies the product.
    where : array_like of bool, optional
        Only elements where ``where`` is true are multiplied.

    Returns
    -------
    array or tracer
        ``a``'s shape without the reduced axes.  An empty product is 1.

    Raises
    ------
    TypeError
        If ``out`` is given.
    numpy.exceptions.AxisError
        If an axis is out of range.
    ValueError
        If an axis repeats or ``where`` does not broadcast to ``a``'s shape.

    Notes
    -----
    The derivative with respect to each element is the product of all other
    elements, computed as (exclusive cumulative product from the left) times
    (exclusive cumulative product from the right): no division by ``a``, so
    it is exact when ``a`` contains one or several zeros, to every order.
    """
    return _monoid("prod", ops.reduce_prod, ops.mul, 1, a, axis, dtype, out, keepdims,
                   initial, where)


# --------------------------------------------------------------------------
# max, min, ptp


def _lowest(dtype, largest):
    dtype = np.dtype(dtype)
    if dtype.kind == "f":
        return np.inf if largest else -np.inf
    if dtype.kind == "c":  # NumPy orders complex values lexicographically
        return complex(np.inf, np.inf) if largest else complex(-np.inf, -np.inf)
    if dtype.kind == "b":
        return largest
    info = np.iinfo(dtype)
    return info.max if largest else info.min


def _extremum(name, reduce, a, axis, out, keepdims, initial, where):
    is_max = name == "max"
    ufunc = "maximum" if is_max else "minimum"
    x = _operand(a, out, name)
    shape = tuple(x.shape)
    axes = _axes(axis, len(shape))
    has_initial = _given(initial) and initial is not None
    if _given(where) and where is not True and not has_initial:
        raise ValueError(
            f"reduction operation '{ufunc}' does not have an identity, so to use a "
            f"where mask with tracegrad.numpy.{name} one has to specify 'initial'"
        )
    empty = bool(axes) and _count(shape, axes) == 0
    if empty and not has_initial:
        raise ValueError(
            f"zero-size array to reduction operation {ufunc} which has no identity "
            f"(shape {shape}, axis {axis}); pass initial= to reduce empty axes"
        )
    if empty:
        kept = tuple(s for i, s in enumerate(shape) if i not in axes)
        y = np.full(kept, initial, dtype=x.dtype)
    else:
        # masked-out elements can never win, so ties with `initial` are the
        # only ones that involve it: it acts as one extra element
        y = reduce(_masked(x, where, _lowest(x.dtype, not is_max), name), axes)
        if has_initial:
            init = np.asarray(initial, dtype=x.dtype)[()]
            y = ops.maximum(y, init) if is_max else ops.minimum(y, init)
    return _keep(y, shape, axes, keepdims)


_EXTREMUM_DOC = """{title} of array elements over ``axis``.

Parameters
----------
a : array_like or tracer
axis : None, int or tuple of ints, optional
    Axes to reduce (negative counts from the end); None reduces everything.
keepdims : bool, optional
    Keep the reduced axes with length 1.
initial : scalar, optional
    An extra element taking part in the reduction (required to reduce an
    empty axis or to use ``where``).
where : array_like of bool, optional
    Only elements where ``where`` is true take part.

Returns
-------
array or tracer
    ``a``'s shape without the reduced axes, ``a``'s dtype.

Raises
------
ValueError
    If a reduced axis is empty and ``initial`` is not given (as NumPy), or
    ``where`` is given without ``initial``.
TypeError
    If ``out`` is given.

Notes
-----
The derivative is split evenly among tied extrema: with ``k`` elements equal
to the result, each gets ``1/k`` of the cotangent, and the forward-mode
tangent is the mean of their tangents (``grad(tnp.{name})([1., 1., .5])`` is
``[.5, .5, 0]``).  This is the convention of TensorFlow's and JAX's
``reduce_max`` gradients.  NaN propagates as in NumPy.
"""


@implements(np.max, np.amax)
def max(a, axis=None, out=None, keepdims=False, initial=_NoValue, where=_NoValue):  # noqa: A001
    return _extremum("max", ops.reduce_max, a, axis, out, keepdims, initial, where)


@implements(np.min, np.amin)
def min(a, axis=None, out=None, keepdims=False, initial=_NoValue, where=_NoValue):  # noqa: A001
    return _extremum("min", ops.reduce_min, a, axis, out, keepdims, initial, where)


max.__doc__ = _EXTREMUM_DOC.format(title="Maximum", name="max")
min.__doc__ = _EXTREMUM_DOC.format(title="Minimum", name="min")
amax, amin = max, min


@implements(np.ptp)
def ptp(a, axis=None, out=None, keepdims=False):
    """Range (``max - min``) of array elements over ``axis``.

    Parameters
    ----------
    a : array_like or tracer
    axis : None, int or tuple of ints, optional
    keepdims : bool, optional

    Returns
    -------
    array or tracer

    Raises
    ------
    ValueError
        If a reduced axis is empty.

    Notes
    -----
    Ties at the maximum and at the minimum share the derivative as in
    :func:`max` and :func:`min`.
    """
    x = _operand(a, out, "ptp")
    return ops.sub(max(x, axis, keepdims=keepdims), min(x, axis, keepdims=keepdims))


# --------------------------------------------------------------------------
# mean, var, std


def _mean_dtypes(x, dtype):
    """(computation dtype, result dtype) of NumPy's mean/var/std."""
    if dtype is not None:
        dt = np.dtype(dtype)
        return dt, dt
    dt = np.dtype(x.dtype)
    if dt.kind in "biu":
        return np.dtype(np.float64), np.dtype(np.float64)
    if dt == np.float16:
        return np.dtype(np.float32), dt
    return dt, dt


@implements(np.mean)
def mean(a, axis=None, dtype=None, out=None, keepdims=False, *, where=_NoValue):
    """Arithmetic mean over ``axis``.

    Parameters
    ----------
    a : array_like or tracer
    axis : None, int or tuple of ints, optional
    dtype : dtype, optional
        Computation and result dtype.  By default integer and boolean inputs
        give float64, float16 is accumulated in float32, other floats keep
        their dtype (NumPy's rules).
    keepdims : bool, optional
    where : array_like of bool, optional
        Only elements where ``where`` is true are averaged.

    Returns
    -------
    array or tracer
        The mean of an empty slice is NaN (with NumPy's RuntimeWarning).

    Raises
    ------
    TypeError
        If ``out`` is given.
    numpy.exceptions.AxisError
        If an axis is out of range.

    Notes
    -----
    Linear: the cotangent of ``a`` is the result's cotangent divided by the
    number of averaged elements (the count of selected ones with
    ``where``), broadcast back over the reduced axes.
    """
    x = _operand(a, out, "mean")
    comp, res = _mean_dtypes(x, dtype)
    x = _cast(x, comp)
    axes = _axes(axis, len(x.shape))
    shape = tuple(x.shape)
    total = ops.reduce_sum(_masked(x, where, 0, "mean"), axes)
    y = ops.div(total, _mask_count(x, where, axes, comp))
    return _keep(_cast(y, res), shape, axes, keepdims)


def _ddof(ddof, correction):
    if _given(correction):
        if ddof != 0:
            raise ValueError("ddof and correction can't be provided simultaneously.")
        return correction
    return ddof


def _shift_value(x, axes, where):
    """A constant taken from the data, subtracted before the variance.

    Shifting by one of the elements makes a constant slice give deviations
    of exactly 0 (NumPy's ``x - mean(x)`` leaves rounding residue of order
    1e-17), which ``std``'s derivative at constant input relies on.  It is
    also the classic "shifted data" guard against cancellation.  The shift
    is a constant (``stop_gradient``), so it changes no derivative.
    """
    shape = tuple(x.shape)
    if not axes or _count(shape, axes) == 0:
        return 0.0
    sx = ops.stop_gradient(x)
    if not _given(where) or where is True:
        limits = [1 if i in axes else s for i, s in enumerate(shape)]
        return ops.slice(sx, [0] * len(shape), limits)
    c = ops.reduce_max(_masked(sx, where, -np.inf, "var"), axes)
    c = ops.select(ops.isfinite(c), c, 0.0)
    return ops.reshape(c, [1 if i in axes else s for i, s in enumerate(shape)])


def _variance(name, a, axis, dtype, out, ddof, keepdims, where, mean, correction):
    x = _operand(a, out, name)
    comp, res = _mean_dtypes(x, dtype)
    x = _cast(x, comp)
    axes = _axes(axis, len(x.shape))
    shape = tuple(x.shape)
    kept_shape = tuple(1 if i in axes else s for i, s in enumerate(shape))
    ddof = _ddof(ddof, correction)
    cplx = np.dtype(comp).kind == "c"
    if cplx:  # NumPy: the variance of complex values is real, mean(|x - mean|**2)
        comp_real = np.finfo(comp).dtype
        res = np.finfo(res).dtype if np.dtype(res).kind == "c" else res
    n = _mask_count(x, where, axes, comp_real if cplx else comp)
    if _given(mean):
        dev = ops.sub(x, _cast(arg(mean), comp))
    else:
        d = _masked(ops.sub(x, _shift_value(x, axes, where)), where, 0, name)
        m = ops.div(ops.reshape(ops.reduce_sum(d, axes), kept_shape),
                    ops.reshape(n, kept_shape) if hasattr(n, "shape") else n)
        dev = ops.sub(d, m)
    dev = _masked(dev, where, 0, name)
    if cplx:
        dev2 = ops.add(ops.square(ops.real(dev)), ops.square(ops.imag(dev)))
    else:
        dev2 = ops.mul(dev, dev)
    ss = ops.reduce_sum(dev2, axes)
    if hasattr(n, "shape"):
        denom = ops.maximum(ops.sub(n, float(ddof)), 0.0)
    else:
        denom = _builtin_max(n - ddof, 0.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        v = ops.div(ss, denom)
    return v, comp, res, shape, axes


@implements(np.var)
def var(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=_NoValue,
        mean=_NoValue, correction=_NoValue):
    """Variance over ``axis``: ``sum((a - mean)**2) / (N - ddof)``.

    Parameters
    ----------
    a : array_like or tracer
    axis : None, int or tuple of ints, optional
    dtype : dtype, optional
        Computation and result dtype (integer input gives float64).
    ddof : int or float, optional
        Delta degrees of freedom (``correction`` is the array-API alias).
    keepdims : bool, optional
    where : array_like of bool, optional
    mean : array_like, optional
        A precomputed mean, shaped as with ``keepdims=True``.

    Returns
    -------
    array or tracer
        With ``N - ddof <= 0`` the result is inf or NaN, as in NumPy.

    Raises
    ------
    TypeError
        If ``out`` is given.
    ValueError
        If both ``ddof`` and ``correction`` are given.

    Notes
    -----
    The deviations are taken from data shifted by one of its own elements
    (a constant), so a constant slice has variance exactly 0.
    """
    v, _, res, shape, axes = _variance("var", a, axis, dtype, out, ddof, keepdims, where,
                                       mean, correction)
    return _keep(_cast(v, res), shape, axes, keepdims)


@implements(np.std)
def std(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=_NoValue,
        mean=_NoValue, correction=_NoValue):
    """Standard deviation over ``axis``: ``sqrt(var(a, axis, ddof=ddof))``.

    Parameters
    ----------
    a : array_like or tracer
    axis : None, int or tuple of ints, optional
    dtype : dtype, optional
        Computation and result dtype (integer input gives float64).
    out : None
        Must be None.
    ddof : int or float, optional
        Delta degrees of freedom (``correction`` is the array-API alias).
    keepdims : bool, optional
    where : array_like of bool, optional
    mean : array_like, optional
        A precomputed mean, shaped as with ``keepdims=True``.
    correction : int or float, optional
        Alias of ``ddof``.

    Returns
    -------
    array or tracer
        ``a``'s shape without the reduced axes.  With ``N - ddof <= 0`` the
        result is inf or NaN, as in NumPy.

    Raises
    ------
    TypeError
        If ``out`` is given.
    ValueError
        If both ``ddof`` and ``correction`` are given.

    Notes
    -----
    The derivative of ``sqrt`` at 0 is infinite; where the variance is
    exactly 0 (a constant slice) the derivative of ``std`` is taken as 0,
    with the double-``where`` idiom (the ``sqrt`` only ever sees a safe
    positive argument), so it is 0 rather than NaN to every order.
    """
    v, _, res, shape, axes = _variance("std", a, axis, dtype, out, ddof, keepdims, where,
                                       mean, correction)
    zero = ops.eq(v, 0)
    s = ops.select(zero, 0.0, ops.sqrt(ops.select(zero, 1.0, v)))
    return _keep(_cast(s, res), shape, axes, keepdims)


@implements(np.average)
def average(a, axis=None, weights=None, returned=False, *, keepdims=False):
    """Weighted average ``sum(a * w) / sum(w)`` over ``axis``.

    Parameters
    ----------
    a : array_like or tracer
    axis : None, int or tuple of ints, optional
    weights : array_like or tracer, optional
        Either ``a``'s shape, or (with ``axis`` given) the shape of ``a``
        along ``axis``.  None gives the plain mean.  Weights are
        differentiable too.
    returned : bool, optional
        Also return the sum of the weights (broadcast to the result's shape).
    keepdims : bool, optional

    Returns
    -------
    average : array or tracer
        float64 for integer input, else the promoted dtype of ``a`` and
        ``weights``.
    sum_of_weights : array or tracer
        Only if ``returned``.

    Raises
    ------
    TypeError
        If ``weights`` differ in shape from ``a`` and no ``axis`` is given.
    ValueError
        If ``weights`` have the wrong shape for ``axis``.
    ZeroDivisionError
        If the weights sum to zero.

    Notes
    -----
    With ``S = sum(w)``, ``d avg / d a = w / S`` and
    ``d avg / d w = (a - avg) / S`` (the quotient rule), both computed by
    the primitives' own rules.
    """
    x = _operand(a, None, "average")
    shape = tuple(x.shape)
    if weights is None:
        avg = mean(x, axis, keepdims=keepdims)
        if not returned:
            return avg
        axes = _axes(axis, len(shape))
        scl = np.full(np.shape(avg), _count(shape, axes), dtype=avg.dtype)
        return avg, scl
    w = arg(weights)
    if not hasattr(w, "shape"):
        w = np.asarray(w)
    if tuple(w.shape) != shape:
        if axis is None:
            raise TypeError(
                "Axis must be specified when shapes of a and weights differ "
                f"(a: {shape}, weights: {tuple(w.shape)})."
            )
        _axes(axis, len(shape))  # range and duplicate checks
        given = tuple(_index(g) % len(shape)
                      for g in (axis if isinstance(axis, (tuple, list)) else (axis,)))
        if tuple(w.shape) != tuple(shape[g] for g in given):
            raise ValueError(
                "Shape of weights must be consistent with shape of a along specified "
                f"axis: weights {tuple(w.shape)}, a {shape}, axis {axis}."
            )
        # put the weights' axes in a's order, then give them a's rank
        w = ops.transpose(w, tuple(int(i) for i in np.argsort(given)))
        w = ops.reshape(w, tuple(s if i in given else 1 for i, s in enumerate(shape)))
    dt = np.result_type(x.dtype, w.dtype, *(("f8",) if x.dtype.kind in "biu" else ()))
    w = _cast(w, dt)
    scl = sum(w, axis, keepdims=keepdims)
    if is_concrete(scl) and bool(any(ops.eq(scl, 0))):  # (staged, batched: unchecked, as JAX)
        raise ZeroDivisionError("Weights sum to zero, can't be normalized")
    avg = ops.div(sum(ops.mul(_cast(x, dt), w), axis, keepdims=keepdims), scl)
    if returned:
        return avg, ops.broadcast_to(scl, tuple(np.shape(avg)))
    return avg


# --------------------------------------------------------------------------
# cumulative sums and products


def _scan(name, op, a, axis, dtype, out):
    x = _cast(_operand(a, out, name), dtype)
    if axis is None:
        x = ops.reshape(x, (math.prod(x.shape),))
        axis = 0
    (ax,) = _axes(axis, len(x.shape))
    return op(x, ax)


_SCAN_DOC = """Cumulative {what} along ``axis`` (None: over the flattened array).

Parameters
----------
a : array_like or tracer
axis : int, optional
dtype : dtype, optional
    Accumulation and result dtype (default: NumPy's; small integers and
    booleans accumulate in int64).

Returns
-------
array or tracer
    Same shape as ``a`` (1-D if ``axis`` is None).

Raises
------
TypeError
    If ``out`` is given.

Notes
-----
{notes}
"""


@implements(np.cumsum)
def cumsum(a, axis=None, dtype=None, out=None):
    return _scan("cumsum", ops.cumsum, a, axis, dtype, out)


@implements(np.cumprod)
def cumprod(a, axis=None, dtype=None, out=None):
    return _scan("cumprod", ops.cumprod, a, axis, dtype, out)


cumsum.__doc__ = _SCAN_DOC.format(
    what="sum", notes="The VJP is a cumulative sum of the cotangent from the other end.")
cumprod.__doc__ = _SCAN_DOC.format(what="product", notes=(
    "Derivatives solve the first-order linear recurrence\n"
    "``dy[k] = a[k] dy[k-1] + da[k] y[k-1]`` (forward) or its transpose\n"
    "(reverse) in O(n), with no division by ``a``: exact with zeros in ``a``,\n"
    "to every order."))


def _cumulative(name, op, fill, x, axis, dtype, out, include_initial):
    x = _operand(x, out, name)
    if len(x.shape) == 0:  # NumPy treats 0-d input as 1-D
        x = ops.reshape(x, (1,))
    if axis is None:
        if len(x.shape) != 1:
            raise ValueError(
                f"tracegrad.numpy.{name}: for arrays which have more than one "
                "dimension ``axis`` argument is required."
            )
        axis = 0
    y = _scan(name, op, x, axis, dtype, None)
    if include_initial:
        (ax,) = _axes(axis, len(x.shape))
        config = [(1 if i == ax else 0, 0, 0) for i in range(len(x.shape))]
        y = ops.pad(y, config, fill)
    return y


_CUMULATIVE_DOC = """Cumulative {what} along ``axis`` (the array API's ``cumulative_{name}``).

Parameters
----------
x : array_like or tracer
    Any shape; 0-d or 1-D when ``axis`` is None.
axis : int, optional
    Axis of the running {what} (negative counts from the end); required
    unless ``x`` is 1-D.
dtype : dtype, optional
    Accumulation and result dtype (default NumPy's: booleans and small
    integers accumulate in int64).
out : None
    Must be None.
include_initial : bool, optional
    If True, the result starts with the empty {what}, {identity}.

Returns
-------
array or tracer
    ``x``'s shape, except that ``axis`` is one longer with
    ``include_initial``; ``result[k]`` is the {what} of the first ``k``
    elements (``k + 1`` without ``include_initial``).

Raises
------
ValueError
    If ``axis`` is None and ``x`` has more than one dimension (0-d input
    is treated as 1-D, as by NumPy).
numpy.exceptions.AxisError
    If ``axis`` is out of range.
TypeError
    If ``out`` is given.

Notes
-----
{notes}  The prepended {identity} is a constant.
"""


@implements(np.cumulative_sum)
def cumulative_sum(x, /, *, axis=None, dtype=None, out=None, include_initial=False):
    return _cumulative("cumulative_sum", ops.cumsum, 0.0, x, axis, dtype, out,
                       include_initial)


@implements(np.cumulative_prod)
def cumulative_prod(x, /, *, axis=None, dtype=None, out=None, include_initial=False):
    return _cumulative("cumulative_prod", ops.cumprod, 1.0, x, axis, dtype, out,
                       include_initial)


cumulative_sum.__doc__ = _CUMULATIVE_DOC.format(
    what="sum", name="sum", identity="0",
    notes=("Linear: the cotangent of ``x`` is the cumulative sum of the result's\n"
           "cotangent taken from the other end."),
)
cumulative_prod.__doc__ = _CUMULATIVE_DOC.format(
    what="product", name="prod", identity="1",
    notes=("As for :func:`cumprod`: derivatives solve the first-order linear\n"
           "recurrence ``dy[k] = x[k] dy[k-1] + dx[k] y[k-1]`` (or its transpose),\n"
           "with no division by ``x``, so they are exact when ``x`` contains zeros,\n"
           "to every order."),
)


# --------------------------------------------------------------------------
# argmax/argmin, all/any: no derivative


def _arg_extremum(name, op, a, axis, out, keepdims):
    x = _operand(a, out, name)
    shape = tuple(x.shape)
    if axis is None:
        y = op(ops.reshape(x, (math.prod(shape),)), 0)
        return np.reshape(y, (1,) * len(shape)) if keepdims else y
    (ax,) = _axes(axis, len(shape))
    if shape[ax] == 0:
        raise ValueError(f"attempt to get {name} of an empty sequence")
    return _keep(op(x, ax), shape, (ax,), keepdims)


_ARG_DOC = """Index of the first {what} along ``axis`` (None: of the flattened array).

Parameters
----------
a : array_like or tracer
axis : int, optional
keepdims : bool, optional

Returns
-------
ndarray of int64
    A plain array, never traced: indices carry no derivative.

Raises
------
ValueError
    For an empty sequence.
TypeError
    If ``out`` is given.
"""


@implements(np.argmax)
def argmax(a, axis=None, out=None, *, keepdims=False):
    return _arg_extremum("argmax", ops.argmax, a, axis, out, keepdims)


@implements(np.argmin)
def argmin(a, axis=None, out=None, *, keepdims=False):
    return _arg_extremum("argmin", ops.argmin, a, axis, out, keepdims)


argmax.__doc__ = _ARG_DOC.format(what="maximum")
argmin.__doc__ = _ARG_DOC.format(what="minimum")


def _logical(name, op, fill, a, axis, out, keepdims, where):
    x = _operand(a, out, name)
    shape = tuple(x.shape)
    axes = _axes(axis, len(shape))
    return _keep(op(_masked(x, where, fill, name), axes), shape, axes, keepdims)


_LOGICAL_DOC = """True if {what} element over ``axis`` is nonzero (NumPy's ``{name}``).

Parameters
----------
a : array_like or tracer
    Any shape and dtype; NaN counts as nonzero.
axis : None, int or tuple of ints, optional
    Axes to reduce (negative counts from the end); None reduces all.
out : None
    Must be None.
keepdims : bool, optional
    Keep the reduced axes with length 1.
where : array_like of bool, optional
    Only the selected elements are tested; must broadcast to ``a``'s
    shape.

Returns
-------
ndarray of bool or numpy.bool
    ``a``'s shape without the reduced axes.  A plain value, never a
    tracer.  An empty test (no elements, or none selected) is {empty}.

Raises
------
TypeError
    If ``out`` is given, or ``axis`` is not an int or tuple of ints.
numpy.exceptions.AxisError
    If an axis is out of range.
ValueError
    If an axis repeats or ``where`` does not broadcast to ``a``'s shape.

Notes
-----
No derivative: the result is bool.
"""


@implements(np.all)
def all(a, axis=None, out=None, keepdims=False, *, where=_NoValue):  # noqa: A001
    return _logical("all", ops.reduce_all, True, a, axis, out, keepdims, where)


@implements(np.any)
def any(a, axis=None, out=None, keepdims=False, *, where=_NoValue):  # noqa: A001
    return _logical("any", ops.reduce_any, False, a, axis, out, keepdims, where)


all.__doc__ = _LOGICAL_DOC.format(what="every", name="all", empty="True")
any.__doc__ = _LOGICAL_DOC.format(what="some", name="any", empty="False")

