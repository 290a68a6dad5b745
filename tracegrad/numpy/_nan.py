"""NaN-ignoring reductions of ``tracegrad.numpy`` (``nansum``, ``nanmean``, ...).

Each replaces the NaNs of its input by the identity of the reduction (0 for
sums, 1 for products, -inf/+inf for extrema) with ``where`` and reduces with
the ordinary function, so the derivative is the ordinary one at the other
elements and 0 at the NaNs.  NaN-ignoring quantiles (``nanmedian``,
``nanquantile``, ``nanpercentile``) live with the quantiles in
``_statistics``.
"""
import numpy as np

from ..core import Tracer
from ..primitives import ops
from ._core import _array
from ._dispatch import implements
from ._products import _no_out
from ._reductions import _NoValue, _axes, argmax, argmin, cumprod, cumsum, max, min, prod, sum

__all__ = ["nansum", "nanprod", "nanmean", "nanvar", "nanstd", "nanmax", "nanmin",
           "nanargmax", "nanargmin", "nancumsum", "nancumprod"]


def _filled(a, fill):
    """``a`` with NaNs replaced by ``fill`` (ints and bools unchanged)."""
    a = _array(a)
    if a.dtype.kind not in "fc":
        return a, None
    nan = ops.isnan(a)
    return ops.select(nan, ops.full_like(a, fill), a), nan


@implements(np.nansum)
def nansum(a, axis=None, dtype=None, out=None, keepdims=False, initial=_NoValue,
           where=_NoValue):
    """Sum over ``axis`` treating NaNs as 0 (``numpy.nansum``).

    Parameters
    ----------
    a : array_like or tracer
    axis : None, int or tuple of ints, optional
    dtype : dtype, optional
    initial, where : optional
        As for :func:`tracegrad.numpy.sum`.
    keepdims : bool, optional

    Returns
    -------
    array or tracer
        ``a``'s shape without the reduced axes; 0 for an all-NaN slice.
        The derivative is 1 at non-NaN elements, 0 at NaNs.

    Raises
    ------
    TypeError
        If ``out`` is given.
    """
    _no_out("nansum", out)
    x, _ = _filled(a, 0)
    return sum(x, axis=axis, dtype=dtype, keepdims=keepdims, initial=initial, where=where)


@implements(np.nanprod)
def nanprod(a, axis=None, dtype=None, out=None, keepdims=False, initial=_NoValue,
            where=_NoValue):
    """Product over ``axis`` treating NaNs as 1 (``numpy.nanprod``).

    Parameters
    ----------
    a : array_like or tracer
    axis : None, int or tuple of ints, optional
    dtype : dtype, optional
    initial, where : optional
        As for :func:`tracegrad.numpy.prod`.
    keepdims : bool, optional

    Returns
    -------
    array or tracer
        ``a``'s shape without the reduced axes; 1 for an all-NaN slice.
        Derivative conventions of ``prod`` (also at zeros); 0 at NaNs.

    Raises
    ------
    TypeError
        If ``out`` is given.
    """
    _no_out("nanprod", out)
    x, _ = _filled(a, 1)
    return prod(x, axis=axis, dtype=dtype, keepdims=keepdims, initial=initial, where=where)


def _valid_count(a, nan, axis, keepdims, dtype):
    """Number of non-NaN elements over ``axis``, in ``dtype``."""
    if nan is None:
        shape = np.shape(a)
        n = np.prod([shape[i] for i in _axes(axis, len(shape))], dtype=np.int64)
        return float(n)
    return ops.convert_element_type(
        sum(ops.logical_not(nan), axis=axis, keepdims=keepdims), dtype)


def _float_dtype(a, dtype):
    if dtype is not None:
        return np.dtype(dtype)
    dt = np.dtype(a.dtype)
    return dt if dt.kind in "fc" else np.dtype(np.float64)


@implements(np.nanmean)
def nanmean(a, axis=None, dtype=None, out=None, keepdims=False, *, where=_NoValue):
    """Mean over ``axis`` of the non-NaN elements (``numpy.nanmean``).

    Parameters
    ----------
    a : array_like or tracer
    axis : None, int or tuple of ints
    dtype : dtype, optional
        Of the result (float64 for integer input by default).
    keepdims : bool

    Returns
    -------
    array or tracer
        NaN for an all-NaN slice (NumPy also warns).  The derivative is
        ``1 / count`` at non-NaN elements and 0 at NaNs.

    Raises
    ------
    TypeError
        If ``out`` or ``where`` is given.
    """
    _no_out("nanmean", out)
    if where is not _NoValue:
        raise TypeError("tracegrad.numpy.nanmean does not support where=")
    a = _array(a)
    dt = _float_dtype(a, dtype)
    x, nan = _filled(a, 0)
    x = x if x.dtype == dt else ops.convert_element_type(x, dt)
    total = sum(x, axis=axis, keepdims=keepdims)
    count = _valid_count(a, nan, axis, keepdims, dt)
    with np.errstate(invalid="ignore", divide="ignore"):
        return ops.div(total, count)


@implements(np.nanvar)
def nanvar(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=_NoValue,
           mean=_NoValue, correction=_NoValue):
    """Variance over ``axis`` of the non-NaN elements (``numpy.nanvar``).

    Parameters
    ----------
    a : array_like or tracer
    axis : None, int or tuple of ints
    ddof : int or float
        The divisor is ``count - ddof`` (``correction`` is the array-API
        name).
    keepdims : bool

    Returns
    -------
    array or tracer
        NaN for an all-NaN slice, inf-or-NaN where ``count <= ddof`` (as
        NumPy, which also warns).  NaNs get derivative 0.

    Raises
    ------
    TypeError
        If ``out``, ``where`` or ``mean`` is given, or both ``ddof`` and
        ``correction``.
    """
    _no_out("nanvar", out)
    if where is not _NoValue or mean is not _NoValue:
        raise TypeError("tracegrad.numpy.nanvar does not support where= or mean=")
    if correction is not _NoValue:
        if ddof != 0:
            raise ValueError("ddof and correction can't be provided simultaneously.")
        ddof = correction
    a = _array(a)
    dt = _float_dtype(a, dtype)
    x, nan = _filled(a, 0)
    x = x if x.dtype == dt else ops.convert_element_type(x, dt)
    count = _valid_count(a, nan, axis, True, dt)
    with np.errstate(invalid="ignore", divide="ignore"):
        m = ops.div(sum(x, axis=axis, keepdims=True), count)
        d = ops.sub(x, m)
        if nan is not None:
            d = ops.select(nan, ops.zeros_like(d), d)
        ss = sum(ops.mul(d, d), axis=axis, keepdims=keepdims)
        cnt = count if keepdims else _valid_count(a, nan, axis, False, dt)
        return ops.div(ss, ops.sub(cnt, ddof))


@implements(np.nanstd)
def nanstd(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=_NoValue,
           mean=_NoValue, correction=_NoValue):
    """Standard deviation of the non-NaN elements, ``sqrt(nanvar(...))``.

    Parameters
    ----------
    a : array_like or tracer
    axis : None, int or tuple of ints, optional
    dtype : dtype, optional
    ddof, correction : int or float, optional
        The divisor is ``count - ddof``.
    keepdims : bool, optional

    Returns
    -------
    array or tracer
        ``a``'s shape without the reduced axes; NaN for an all-NaN slice.
        Derivative 0 at NaNs.

    Raises
    ------
    TypeError
        If ``out``, ``where`` or ``mean`` is given.
    """
    _no_out("nanstd", out)
    v = nanvar(a, axis=axis, dtype=dtype, ddof=ddof, keepdims=keepdims, where=where, mean=mean,
               correction=correction)
    return ops.sqrt(v)


def _nan_extremum(name, reduce, fill, a, axis, out, keepdims, initial, where):
    _no_out(name, out)
    a = _array(a)
    x, nan = _filled(a, fill)
    kw = {} if initial is _NoValue else {"initial": initial}
    if where is not _NoValue:
        kw["where"] = where
    y = reduce(x, axis=axis, keepdims=keepdims, **kw)
    if nan is None:
        return y
    from_nan = ops.logical_not(ops.reduce_any(ops.logical_not(nan), _axes(axis, a.ndim))) \
        if a.ndim else nan
    if keepdims and a.ndim:
        from_nan = ops.reshape(from_nan, np.shape(y))
    return ops.select(from_nan, ops.full_like(y, np.nan), y)


@implements(np.nanmax)
def nanmax(a, axis=None, out=None, keepdims=False, initial=_NoValue, where=_NoValue):
    """Maximum over ``axis`` ignoring NaNs (``numpy.nanmax``).

    Parameters
    ----------
    a : array_like or tracer
    axis : None, int or tuple of ints, optional
    initial, where : optional
        As for :func:`tracegrad.numpy.max`.
    keepdims : bool, optional

    Returns
    -------
    array or tracer
        ``a``'s shape without the reduced axes; NaN for an all-NaN slice
        (NumPy also warns).  Derivative as for ``max`` (split evenly among
        ties), 0 at NaNs.

    Raises
    ------
    TypeError
        If ``out`` is given.
    ValueError
        For an empty slice without ``initial``.
    """
    return _nan_extremum("nanmax", max, -np.inf, a, axis, out, keepdims, initial, where)


@implements(np.nanmin)
def nanmin(a, axis=None, out=None, keepdims=False, initial=_NoValue, where=_NoValue):
    """Minimum over ``axis`` ignoring NaNs (``numpy.nanmin``).

    Parameters
    ----------
    a : array_like or tracer
    axis : None, int or tuple of ints, optional
    initial, where : optional
        As for :func:`tracegrad.numpy.min`.
    keepdims : bool, optional

    Returns
    -------
    array or tracer
        ``a``'s shape without the reduced axes; NaN for an all-NaN slice.
        Derivative as for ``min``, 0 at NaNs.

    Raises
    ------
    TypeError
        If ``out`` is given.
    ValueError
        For an empty slice without ``initial``.
    """
    return _nan_extremum("nanmin", min, np.inf, a, axis, out, keepdims, initial, where)


def _nan_arg(name, fn, fill, a, axis, out, keepdims):
    _no_out(name, out)
    a = _array(a)
    x, nan = _filled(a, fill)
    if nan is not None and not isinstance(a, Tracer):
        allnan = np.all(np.isnan(np.asarray(a)), axis=axis)
        if np.any(allnan):
            raise ValueError(f"{name}: All-NaN slice encountered")
    return fn(x, axis=axis, keepdims=keepdims)


@implements(np.nanargmax)
def nanargmax(a, axis=None, out=None, *, keepdims=False):
    """Index of the maximum ignoring NaNs (``numpy.nanargmax``); no derivative.

    Parameters
    ----------
    a : array_like or tracer
    axis : int, optional
        None: the index into the flattened array.
    keepdims : bool, optional

    Returns
    -------
    int64 array or tracer

    Raises
    ------
    ValueError
        For an all-NaN slice of a plain array (on tracers such a slice gives
        0, since the values are not read).
    """
    return _nan_arg("nanargmax", argmax, -np.inf, a, axis, out, keepdims)


@implements(np.nanargmin)
def nanargmin(a, axis=None, out=None, *, keepdims=False):
    """Index of the minimum ignoring NaNs (``numpy.nanargmin``); no derivative.

    Parameters
    ----------
    a : array_like or tracer
    axis : int, optional
        None: the index into the flattened array.
    keepdims : bool, optional

    Returns
    -------
    int64 array or tracer

    Raises
    ------
    ValueError
        For an all-NaN slice of a plain array.
    """
    return _nan_arg("nanargmin", argmin, np.inf, a, axis, out, keepdims)


@implements(np.nancumsum)
def nancumsum(a, axis=None, dtype=None, out=None):
    """Cumulative sum treating NaNs as 0 (``numpy.nancumsum``).

    Parameters
    ----------
    a : array_like or tracer
    axis : int, optional
        None: over the flattened array.
    dtype : dtype, optional

    Returns
    -------
    array or tracer
        ``a``'s shape (1-D for ``axis=None``).  The derivative is that of
        ``cumsum``, 0 at NaNs.

    Raises
    ------
    TypeError
        If ``out`` is given.
    """
    _no_out("nancumsum", out)
    return cumsum(_filled(a, 0)[0], axis=axis, dtype=dtype)


@implements(np.nancumprod)
def nancumprod(a, axis=None, dtype=None, out=None):
    """Cumulative product treating NaNs as 1 (``numpy.nancumprod``).

    Parameters
    ----------
    a : array_like or tracer
    axis : int, optional
        None: over the flattened array.
    dtype : dtype, optional

    Returns
    -------
    array or tracer
        ``a``'s shape (1-D for ``axis=None``).  The derivative is that of
        ``cumprod``, 0 at NaNs.

    Raises
    ------
    TypeError
        If ``out`` is given.
    """
    _no_out("nancumprod", out)
    return cumprod(_filled(a, 1)[0], axis=axis, dtype=dtype)
