"""Statistics and finite differences of ``tracegrad.numpy``: quantiles
(``median``, ``quantile``, ``percentile`` and their NaN-ignoring forms),
``cov``, ``corrcoef``, ``diff``, ``ediff1d``, ``gradient``, ``trapezoid``,
and the counting functions ``count_nonzero``, ``bincount``, ``digitize``,
``histogram``.

Everything is a composite of existing primitives.  Quantiles are written as
a weighted sum of the sorted values whose weights (functions of the number
of valid values only) pick the one or two order statistics NumPy
interpolates between, so they work on tracers under every transform (also
``vmap``, where the number of NaNs varies over the batch), and the derivative
is that of ``sort`` times the interpolation weights.  Counts and bin indices
have no derivative; ``bincount`` and ``histogram`` weights do.
"""
import builtins
import math

import numpy as np
from numpy.lib.array_utils import normalize_axis_index

from ..core import Tracer, concrete_value, is_concrete
from ..primitives import ops
from ._core import _array, asarray
from ._dispatch import implements
from ._indexing import at
from ._join import concatenate
from ._reductions import _axes, mean, sum
from ._selection import sort
from ._shape import moveaxis, ravel, reshape

__all__ = [
    "quantile", "percentile", "median", "nanquantile", "nanpercentile", "nanmedian",
    "cov", "corrcoef", "diff", "ediff1d", "gradient", "trapezoid", "count_nonzero",
    "bincount", "digitize", "histogram",
]  # more below


def _concrete(x, name, what="its input"):
    """The concrete value of ``x``, or a TypeError naming ``name``."""
    if not isinstance(x, Tracer):
        return np.asarray(x)
    try:
        return np.asarray(concrete_value(x))
    except Exception as e:  # a vmap-batched or otherwise abstract value
        raise TypeError(
            f"tracegrad.numpy.{name} needs the concrete value of {what} (its result's "
            f"shape or positions depend on it), which this transform does not have: {e}"
        ) from None


def _float(x):
    dt = np.dtype(x.dtype)
    return x if dt.kind in "fc" else ops.convert_element_type(x, np.float64)


# --------------------------------------------------------------------------
# quantiles

# NumPy's continuous methods: virtual index n*q + alpha + q*(1 - alpha - beta) - 1
# (Hyndman and Fan, "Sample quantiles in statistical packages", 1996; NumPy's
# ``numpy.quantile`` documentation lists the same parameters)
_CONTINUOUS = {
    "linear": (1.0, 1.0),
    "hazen": (0.5, 0.5),
    "weibull": (0.0, 0.0),
    "median_unbiased": (1.0 / 3.0, 1.0 / 3.0),
    "normal_unbiased": (3.0 / 8.0, 3.0 / 8.0),
    "interpolated_inverted_cdf": (0.0, 1.0),
}
_DISCRETE = ("lower", "higher", "nearest", "midpoint")
METHODS = tuple(_CONTINUOUS) + _DISCRETE


def _quantile(name, a, q, axis, method, keepdims, skip_nan, interpolation=None):
    if interpolation is not None:
        method = interpolation
    if method not in METHODS:
        raise ValueError(f"{name}: method {method!r} is not supported; choose one of "
                         f"{', '.join(METHODS)}")
    qa = np.asarray(_concrete(q, name, "q"), dtype=np.float64)
    if np.any((qa < 0) | (qa > 1)) or np.any(np.isnan(qa)):
        raise ValueError("Quantiles must be in the range [0, 1]")
    a = _float(_array(a))
    shape = tuple(a.shape)
    axes = _axes(axis, len(shape))
    keep = [i for i in range(len(shape)) if i not in axes]
    n = math.prod(shape[i] for i in axes)
    if n == 0:
        raise ValueError(f"{name} of an empty slice is undefined")
    perm = tuple(keep) + axes
    x = ops.transpose(a, perm) if perm != tuple(range(len(shape))) else a
    batch = tuple(shape[i] for i in keep)
    x = reshape(x, batch + (n,))
    xs = sort(x, axis=-1)  # NaNs last
    dt = xs.dtype
    nan = ops.isnan(xs)
    xs0 = ops.select(nan, ops.zeros_like(xs), xs)
    # the number of values each slice has, shape batch + (1,)
    if skip_nan:
        c = ops.convert_element_type(sum(ops.logical_not(nan), axis=-1, keepdims=True),
                                     np.float64)
    else:
        c = np.full(batch + (1,), float(n))
    qq = np.reshape(qa, qa.shape + (1,) * (len(batch) + 1))
    last = ops.sub(c, 1.0)
    if method in _CONTINUOUS:
        alpha, beta = _CONTINUOUS[method]
        v = ops.add(ops.mul(c, qq), alpha + qq * (1.0 - alpha - beta) - 1.0)
    else:
        v = ops.mul(last, qq)
    v = ops.clip(v, 0.0, ops.maximum(last, 0.0))
    lo = ops.floor(v)
    g = ops.sub(v, lo)
    if method == "lower":
        g = ops.mul(g, 0.0)
    elif method == "higher":
        lo, g = ops.ceil(v), ops.mul(g, 0.0)
    elif method == "nearest":
        lo, g = ops.round(v), ops.mul(g, 0.0)
    elif method == "midpoint":
        g = ops.select(ops.gt(g, 0.0), ops.full_like(g, 0.5), ops.zeros_like(g))
    hi = ops.minimum(ops.add(lo, 1.0), ops.maximum(last, 0.0))
    k = np.arange(n, dtype=np.float64)
    w = ops.add(ops.mul(ops.sub(1.0, g), ops.convert_element_type(ops.eq(k, lo), np.float64)),
                ops.mul(g, ops.convert_element_type(ops.eq(k, hi), np.float64)))
    w = ops.convert_element_type(w, dt)
    # weight 0 times an infinite order statistic must stay 0
    terms = ops.select(ops.ne(w, 0.0), ops.mul(w, xs0), ops.zeros_like(ops.mul(w, xs0)))
    out = sum(terms, axis=-1)
    bad = ops.eq(c[..., 0] if not isinstance(c, Tracer) else reshape(c, batch), 0.0) \
        if skip_nan else ops.reduce_any(nan, (len(batch),))
    out = ops.select(bad, ops.full_like(out, np.nan), out)
    if keepdims:
        full = tuple(1 if i in axes else s for i, s in enumerate(shape))
        out = reshape(out, qa.shape + full)
    return out


@implements(np.quantile)
def quantile(a, q, axis=None, out=None, overwrite_input=False, method="linear",
             keepdims=False, *, weights=None, interpolation=None):
    """The ``q``-th quantiles of ``a`` over ``axis`` (``numpy.quantile``).

    Parameters
    ----------
    a : array_like or tracer
        Integers give float64.
    q : float or array_like of floats in [0, 1]
        Concrete (no derivative in ``q``).
    axis : None, int or tuple of ints
        None: over all elements.
    method : str
        One of NumPy's ``linear`` (default), ``lower``, ``higher``,
        ``nearest``, ``midpoint``, ``hazen``, ``weibull``,
        ``median_unbiased``, ``normal_unbiased``,
        ``interpolated_inverted_cdf``.
    keepdims : bool

    Returns
    -------
    array or tracer
        Shape ``q.shape + `` the shape of ``a`` without ``axis`` (with
        length-1 axes when ``keepdims``).  NaN for a slice containing NaN.

    Raises
    ------
    TypeError
        If ``out`` or ``weights`` is given, or ``q`` is traced under a
        transform without concrete values.
    ValueError
        For ``q`` outside [0, 1], an unsupported method or an empty slice.

    Notes
    -----
    The derivative is that of ``sort`` (split evenly among ties) times the
    interpolation weights: ``1 - g`` and ``g`` for the two neighbouring order
    statistics of the virtual index ``lo + g``.
    """
    _no_extras("quantile", out, weights)
    return _quantile("quantile", a, q, axis, method, keepdims, False, interpolation)


@implements(np.percentile)
def percentile(a, q, axis=None, out=None, overwrite_input=False, method="linear",
               keepdims=False, *, weights=None, interpolation=None):
    """The ``q``-th percentiles over ``axis`` (``numpy.percentile``).

    Parameters
    ----------
    a : array_like or tracer
    q : float or array_like of floats
        Percentiles in [0, 100]; concrete.
    axis : None, int or tuple of ints
    method : str
        As for :func:`quantile`.
    keepdims : bool

    Returns
    -------
    array or tracer
        Shape ``q.shape +`` the shape of ``a`` without ``axis``; NaN for a slice
        containing NaN.

    Raises
    ------
    ValueError
        For ``q`` outside [0, 100], an unsupported method or an empty slice.
    TypeError
        If ``out`` or ``weights`` is given.
    """
    _no_extras("percentile", out, weights)
    qa = _percent(q, "percentile")
    return _quantile("percentile", a, qa, axis, method, keepdims, False, interpolation)


@implements(np.median)
def median(a, axis=None, out=None, overwrite_input=False, keepdims=False):
    """The median over ``axis`` (``numpy.median``): the mean of the two middle
    values of an even-length slice.

    Parameters
    ----------
    a : array_like or tracer
        Integers give float64.
    axis : None, int or tuple of ints
    keepdims : bool

    Returns
    -------
    array or tracer
        ``a``'s shape without ``axis``; NaN for a slice containing NaN.

    Raises
    ------
    TypeError
        If ``out`` is given.
    ValueError
        For an empty slice.

    Notes
    -----
    Derivative 1 at the middle value (odd length) or 1/2 at each of the two
    middle values (even length), through ``sort``.
    """
    _no_extras("median", out, None)
    return _quantile("median", a, 0.5, axis, "linear", keepdims, False)


@implements(np.nanquantile)
def nanquantile(a, q, axis=None, out=None, overwrite_input=False, method="linear",
                keepdims=False, *, weights=None, interpolation=None):
    """:func:`quantile` of the non-NaN values of each slice (``numpy.nanquantile``).

    Parameters
    ----------
    a : array_like or tracer
    q : float or array_like of floats
        Quantiles in [0, 1]; concrete.
    axis : None, int or tuple of ints
    method : str
        As for :func:`quantile`.
    keepdims : bool

    Returns
    -------
    array or tracer
        Shape ``q.shape +`` the shape of ``a`` without ``axis``; NaN for an all-NaN
        slice.  Derivative 0 at NaNs.

    Raises
    ------
    ValueError
        For ``q`` outside [0, 1], an unsupported method or an empty slice.
    TypeError
        If ``out`` or ``weights`` is given.
    """
    _no_extras("nanquantile", out, weights)
    return _quantile("nanquantile", a, q, axis, method, keepdims, True, interpolation)


@implements(np.nanpercentile)
def nanpercentile(a, q, axis=None, out=None, overwrite_input=False, method="linear",
                  keepdims=False, *, weights=None, interpolation=None):
    """:func:`percentile` of the non-NaN values of each slice (``numpy.nanpercentile``).

    Parameters
    ----------
    a : array_like or tracer
    q : float or array_like of floats
        Percentiles in [0, 100]; concrete.
    axis : None, int or tuple of ints
    method : str
        As for :func:`quantile`.
    keepdims : bool

    Returns
    -------
    array or tracer
        Shape ``q.shape +`` the shape of ``a`` without ``axis``; NaN for an all-NaN
        slice.  Derivative 0 at NaNs.

    Raises
    ------
    ValueError
        For ``q`` outside [0, 100], an unsupported method or an empty slice.
    TypeError
        If ``out`` or ``weights`` is given.
    """
    _no_extras("nanpercentile", out, weights)
    qa = _percent(q, "nanpercentile")
    return _quantile("nanpercentile", a, qa, axis, method, keepdims, True, interpolation)


@implements(np.nanmedian)
def nanmedian(a, axis=None, out=None, overwrite_input=False, keepdims=False):
    """:func:`median` of the non-NaN values of each slice (``numpy.nanmedian``).

    Parameters
    ----------
    a : array_like or tracer
    axis : None, int or tuple of ints
    keepdims : bool

    Returns
    -------
    array or tracer
        ``a``'s shape without ``axis``; NaN for an all-NaN slice.  Derivative
        0 at NaNs.

    Raises
    ------
    TypeError
        If ``out`` is given.
    """
    _no_extras("nanmedian", out, None)
    return _quantile("nanmedian", a, 0.5, axis, "linear", keepdims, True)


def _percent(q, name):
    qa = np.asarray(_concrete(q, name, "q"), dtype=np.float64)
    if np.any((qa < 0) | (qa > 100)):
        raise ValueError("Percentiles must be in the range [0, 100]")
    return np.true_divide(qa, 100)


def _no_extras(name, out, weights):
    if out is not None:
        raise TypeError(f"tracegrad.numpy.{name} does not support out=: use the return value")
    if weights is not None:
        raise TypeError(f"tracegrad.numpy.{name} does not support weights= (NumPy allows "
                        "them only for method='inverted_cdf')")


# --------------------------------------------------------------------------
# covariance


@implements(np.cov)
def cov(m, y=None, rowvar=True, bias=False, ddof=None, fweights=None, aweights=None, *,
        dtype=None):
    """Covariance matrix of the variables in the rows (``rowvar``) of ``m``.

    Parameters
    ----------
    m : array_like or tracer, 1-D or 2-D
        Each row a variable, each column an observation (transposed when
        ``rowvar`` is false).
    y : array_like or tracer, optional
        More variables, stacked below ``m``'s.
    bias, ddof : optional
        Normalization: ``N - 1`` by default, ``N`` with ``bias``, ``N -
        ddof`` with ``ddof``.
    fweights, aweights : array_like, optional
        Integer frequency weights (concrete) and observation weights
        (differentiable), one per observation, as in NumPy.
    dtype : dtype, optional

    Returns
    -------
    array or tracer, shape (V, V), or 0-d for a single variable
        At least float64 (float32 input gives float64, as in NumPy).

    Raises
    ------
    ValueError
        For input of more than two dimensions, non-integer or negative
        ``fweights``, negative ``aweights`` or mismatched weight lengths.

    Notes
    -----
    NumPy's formula: with ``w = fweights * aweights``, ``v1 = sum(w)``,
    ``fact = v1 - ddof * sum(w * aweights) / v1`` (``v1 - ddof`` without
    ``aweights``), the result is ``(X - avg) (w (X - avg))^T / fact``.
    """
    X = _array(m)
    if X.ndim > 2:
        raise ValueError("m has more than 2 dimensions")
    if dtype is None:  # NumPy computes in at least float64
        dtype = np.result_type(X.dtype, np.float64) if y is None else np.result_type(
            X.dtype, _array(y).dtype, np.float64)
    X = ops.convert_element_type(X, dtype) if X.dtype != dtype else X
    if X.ndim < 2:
        X = reshape(X, (1, -1))
    if not rowvar and X.shape[0] != 1:
        X = ops.transpose(X, (1, 0))
    if y is not None:
        Y = _array(y)
        if Y.ndim > 2:
            raise ValueError("y has more than 2 dimensions")
        Y = ops.convert_element_type(Y, dtype) if Y.dtype != dtype else Y
        if Y.ndim < 2:
            Y = reshape(Y, (1, -1))
        if not rowvar and Y.shape[0] != 1:
            Y = ops.transpose(Y, (1, 0))
        X = concatenate([X, Y], axis=0)
    if ddof is None:
        ddof = 0 if bias else 1
    n_obs = X.shape[1]
    w = None
    if fweights is not None:
        fw = np.asarray(_concrete(fweights, "cov", "fweights"))
        if fw.ndim > 1 or fw.shape[0] != n_obs:
            raise RuntimeError("incompatible numbers of samples and fweights")
        if not np.all(fw == np.around(fw)):
            raise TypeError("fweights must be integer")
        if np.any(fw < 0):
            raise ValueError("fweights cannot be negative")
        w = fw.astype(np.float64)
    aw = None
    if aweights is not None:
        aw = _array(aweights)
        if aw.ndim > 1 or aw.shape[0] != n_obs:
            raise RuntimeError("incompatible numbers of samples and aweights")
        if is_concrete(aw) and np.any(_concrete(aw, "cov", "aweights") < 0):
            raise ValueError("aweights cannot be negative")
        w = aw if w is None else ops.mul(w, aw)
    if w is None:
        avg = mean(X, axis=1, keepdims=True)
        fact = float(n_obs - ddof)
        Xc = ops.sub(X, avg)
        Xw = Xc
    else:
        v1 = sum(w)
        avg = ops.div(sum(ops.mul(X, w), axis=1, keepdims=True), v1)
        if aw is None:
            fact = ops.sub(v1, ddof)
        else:
            fact = ops.sub(v1, ops.div(ops.mul(ddof, sum(ops.mul(w, aw))), v1))
        Xc = ops.sub(X, avg)
        Xw = ops.mul(Xc, w)
    c = ops.matmul(Xw, ops.transpose(Xc, (1, 0)))
    with np.errstate(divide="ignore", invalid="ignore"):
        c = ops.div(c, fact)
    return reshape(c, ()) if c.shape == (1, 1) else c


@implements(np.corrcoef)
def corrcoef(x, y=None, rowvar=True, *, dtype=None):
    """Pearson correlation coefficients, ``cov / sqrt(outer(var, var))``.

    Parameters
    ----------
    x, y, rowvar, dtype
        As for :func:`cov`.

    Returns
    -------
    array or tracer, shape (V, V), or 0-d for one variable
        Clipped to [-1, 1] as NumPy does (the clip is closed, so the
        derivative passes at exactly +-1, for example on the diagonal).
    """
    c = cov(x, y, rowvar, dtype=dtype)
    if c.ndim == 0:
        return ops.div(c, c)
    d = ops.sqrt(_diag(c))
    c = ops.div(ops.div(c, reshape(d, (-1, 1))), reshape(d, (1, -1)))
    return ops.clip(c, -1.0, 1.0)


def _diag(c):
    n = c.shape[0]
    return reshape(c, (n * n,))[:: n + 1]


# --------------------------------------------------------------------------
# differences, gradients, integrals


def _slice(ndim, axis, sl):
    idx = [slice(None)] * ndim
    idx[axis] = sl
    return tuple(idx)


@implements(np.diff)
def diff(a, n=1, axis=-1, prepend=np._NoValue, append=np._NoValue):
    """The ``n``-th discrete difference along ``axis`` (``numpy.diff``).

    Parameters
    ----------
    a : array_like or tracer, at least 1-D
    n : int >= 0
    axis : int
    prepend, append : array_like or tracer, optional
        Joined to ``a`` along ``axis`` first (scalars are broadcast).

    Returns
    -------
    array or tracer
        ``axis`` shortened by ``n``; bools give ``!=`` of neighbours, as in
        NumPy.

    Raises
    ------
    ValueError
        For negative ``n`` or 0-d input.
    """
    if n < 0:
        raise ValueError(f"order must be non-negative but got {n!r}")
    a = _array(a)
    if a.ndim == 0:
        raise ValueError("diff requires input that is at least one dimensional")
    axis = normalize_axis_index(axis, a.ndim)
    parts = []
    for v in (prepend, append):
        if v is np._NoValue:
            parts.append(None)
            continue
        v = _array(v)
        if v.ndim == 0:
            shp = list(a.shape)
            shp[axis] = 1
            v = ops.broadcast_to(v, tuple(shp)) if isinstance(v, Tracer) else np.broadcast_to(v, shp)
        parts.append(v)
    seq = [p for p in (parts[0], a, parts[1]) if p is not None]
    if len(seq) > 1:
        a = concatenate(seq, axis=axis)
    for _ in range(n):
        hi, lo = a[_slice(a.ndim, axis, slice(1, None))], a[_slice(a.ndim, axis, slice(None, -1))]
        a = ops.ne(hi, lo) if np.dtype(a.dtype) == np.bool_ else ops.sub(hi, lo)
    return a


@implements(np.ediff1d)
def ediff1d(ary, to_end=None, to_begin=None):
    """Differences of consecutive elements of the flattened array, with
    optional values joined before and after (``numpy.ediff1d``).

    Parameters
    ----------
    ary : array_like or tracer
    to_end, to_begin : array_like or tracer, optional
        Flattened and cast to the differences' dtype.

    Returns
    -------
    1-D array or tracer
        ``ary``'s dtype; differentiable in all three arguments.
    """
    a = ravel(_array(ary))
    d = ops.sub(a[1:], a[:-1])
    seq = []
    for v in (to_begin, d, to_end):
        if v is None:
            continue
        v = ravel(_array(v))
        seq.append(v if v.dtype == d.dtype else ops.convert_element_type(v, d.dtype))
    return concatenate(seq) if len(seq) > 1 else d


def _spacing(v, n, name):
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        return float(v), True  # a Python step stays weakly typed
    v = _array(v)
    if v.ndim == 0:
        return v, True
    if v.ndim != 1 or v.shape[0] != n:
        raise ValueError(f"{name}: when 1d, distances must match the length of the "
                         "corresponding dimension")
    d = ops.sub(v[1:], v[:-1])
    return d, False


@implements(np.gradient)
def gradient(f, *varargs, axis=None, edge_order=1):
    """Second-order central differences in the interior and first- or
    second-order one-sided differences at the ends (``numpy.gradient``).

    Parameters
    ----------
    f : array_like or tracer
    *varargs : scalars or 1-D arrays, optional
        Spacing per axis (one for all, or one per axis): a scalar step or
        the coordinates along the axis (differentiable).
    axis : None, int or tuple of ints
    edge_order : {1, 2}

    Returns
    -------
    array or tracer, or a tuple of them (one per axis) for several axes
        ``f``'s shape and float dtype (float64 for integers), as NumPy.

    Raises
    ------
    ValueError
        If an axis is shorter than ``edge_order + 1``, or the spacing does
        not match.

    Notes
    -----
    The formulas for uneven spacing are NumPy's (Fornberg, "Generation of
    finite difference formulas on arbitrarily spaced grids", 1988).
    """
    f = _float(_array(f))
    axes = _axes(axis, f.ndim) if axis is not None else tuple(range(f.ndim))
    if axis is not None and not isinstance(axis, (tuple, list)):
        axes = (normalize_axis_index(axis, f.ndim),)
    elif axis is not None:
        axes = tuple(normalize_axis_index(a, f.ndim) for a in axis)
    if len(varargs) == 0:
        spacing = [1.0] * len(axes)
    elif len(varargs) == 1 and np.ndim(varargs[0]) == 0:
        spacing = list(varargs) * len(axes)
    elif len(varargs) == len(axes):
        spacing = list(varargs)
    else:
        raise TypeError("invalid number of arguments")
    if edge_order not in (1, 2):
        raise ValueError("'edge_order' greater than 2 not supported")
    outs = []
    for ax, sp in zip(axes, spacing):
        n = f.shape[ax]
        if n < edge_order + 1:
            raise ValueError("Shape of array too small to calculate a numerical gradient, "
                             "at least (edge_order + 1) elements are required.")
        h, uniform = _spacing(sp, n, "gradient")
        S = lambda sl: f[_slice(f.ndim, ax, sl)]  # noqa: E731

        def bshape(v):
            shp = [1] * f.ndim
            shp[ax] = -1
            return reshape(v, tuple(shp))

        if uniform:
            inner = ops.div(ops.sub(S(slice(2, None)), S(slice(None, -2))), ops.mul(h, 2.0))
            if edge_order == 1:
                first = ops.div(ops.sub(S(slice(1, 2)), S(slice(0, 1))), h)
                lastv = ops.div(ops.sub(S(slice(-1, None)), S(slice(-2, -1))), h)
            else:
                first = ops.div(ops.add(ops.add(ops.mul(S(slice(0, 1)), -1.5),
                                                ops.mul(S(slice(1, 2)), 2.0)),
                                        ops.mul(S(slice(2, 3)), -0.5)), h)
                lastv = ops.div(ops.add(ops.add(ops.mul(S(slice(-3, -2)), 0.5),
                                                ops.mul(S(slice(-2, -1)), -2.0)),
                                        ops.mul(S(slice(-1, None)), 1.5)), h)
        else:
            dx1, dx2 = bshape(h[:-1]), bshape(h[1:])
            s12 = ops.add(dx1, dx2)
            a = ops.neg(ops.div(dx2, ops.mul(dx1, s12)))
            b = ops.div(ops.sub(dx2, dx1), ops.mul(dx1, dx2))
            c = ops.div(dx1, ops.mul(dx2, s12))
            inner = ops.add(ops.add(ops.mul(a, S(slice(None, -2))), ops.mul(b, S(slice(1, -1)))),
                            ops.mul(c, S(slice(2, None))))
            if edge_order == 1:
                first = ops.div(ops.sub(S(slice(1, 2)), S(slice(0, 1))), h[0])
                lastv = ops.div(ops.sub(S(slice(-1, None)), S(slice(-2, -1))), h[-1])
            else:
                d1, d2 = h[0], h[1]
                a0 = ops.neg(ops.div(ops.add(ops.mul(d1, 2.0), d2), ops.mul(d1, ops.add(d1, d2))))
                b0 = ops.div(ops.add(d1, d2), ops.mul(d1, d2))
                c0 = ops.neg(ops.div(d1, ops.mul(d2, ops.add(d1, d2))))
                first = ops.add(ops.add(ops.mul(a0, S(slice(0, 1))), ops.mul(b0, S(slice(1, 2)))),
                                ops.mul(c0, S(slice(2, 3))))
                d1, d2 = h[-2], h[-1]
                a1 = ops.div(d2, ops.mul(d1, ops.add(d1, d2)))
                b1 = ops.neg(ops.div(ops.add(d2, d1), ops.mul(d1, d2)))
                c1 = ops.div(ops.add(ops.mul(d2, 2.0), d1), ops.mul(d2, ops.add(d1, d2)))
                lastv = ops.add(ops.add(ops.mul(a1, S(slice(-3, -2))), ops.mul(b1, S(slice(-2, -1)))),
                                ops.mul(c1, S(slice(-1, None))))
        g = concatenate([first, inner, lastv], axis=ax)
        outs.append(g if g.dtype == f.dtype else ops.convert_element_type(g, f.dtype))
    return outs[0] if len(outs) == 1 else tuple(outs)


@implements(np.trapezoid)
def trapezoid(y, x=None, dx=1.0, axis=-1):
    """Integral of ``y`` along ``axis`` by the trapezoidal rule (``numpy.trapezoid``).

    Parameters
    ----------
    y : array_like or tracer
    x : array_like or tracer, optional
        Sample points (1-D along ``axis``, or ``y``'s shape); differentiable.
    dx : float or tracer
        Spacing when ``x`` is None.
    axis : int

    Returns
    -------
    array or tracer
        ``y``'s shape without ``axis``; float dtype.
    """
    y = _float(_array(y))
    axis = normalize_axis_index(axis, y.ndim)
    if x is None:
        d = dx
    else:
        x = _array(x)
        if x.ndim == 1:
            d = ops.sub(x[1:], x[:-1])
            shp = [1] * y.ndim
            shp[axis] = d.shape[0]
            d = reshape(d, tuple(shp))
        else:
            d = diff(x, axis=axis)
    hi = y[_slice(y.ndim, axis, slice(1, None))]
    lo = y[_slice(y.ndim, axis, slice(None, -1))]
    return sum(ops.div(ops.mul(d, ops.add(hi, lo)), 2.0), axis=axis)


# --------------------------------------------------------------------------
# counting (no derivative, except for weights)


@implements(np.count_nonzero)
def count_nonzero(a, axis=None, *, keepdims=False):
    """Number of non-zero elements over ``axis`` (``numpy.count_nonzero``).

    Parameters
    ----------
    a : array_like or tracer
    axis : None, int or tuple of ints
    keepdims : bool

    Returns
    -------
    numpy.intp, or int64 array or tracer (no derivative)
        A NumPy integer scalar for ``axis=None`` on a plain array, as NumPy.
    """
    a = _array(a)
    out = sum(ops.ne(a, 0), axis=axis, keepdims=keepdims)
    if axis is None and not keepdims and not isinstance(out, Tracer):
        return np.intp(out)
    return out


@implements(np.bincount)
def bincount(x, weights=None, minlength=0):
    """Counts (or sums of ``weights``) of each value of a non-negative
    integer array (``numpy.bincount``).

    Parameters
    ----------
    x : 1-D array_like of non-negative ints
        Read for its concrete value (the result's length depends on it).
    weights : array_like or tracer, optional
        Same shape as ``x``; the result is differentiable in them.
    minlength : int

    Returns
    -------
    array or tracer, shape (max(max(x) + 1, minlength),)
        int64 counts, or float sums of the weights.

    Raises
    ------
    ValueError
        For negative values, or input that is not 1-D.
    TypeError
        If ``x`` is not integer, or has no concrete value (under ``vmap``).
    """
    xi = _concrete(x, "bincount", "x")
    if xi.ndim != 1:
        raise ValueError("object too deep for desired array" if xi.ndim > 1 else
                         "object of too small depth for desired array")
    if xi.size and xi.dtype.kind not in "iub":
        raise TypeError("Cannot cast array data from dtype('float64') to dtype('int64') "
                        "according to the rule 'safe'")
    if xi.size and xi.min() < 0:
        raise ValueError("'list' argument must have no negative elements")
    length = max(int(xi.max()) + 1 if xi.size else 0, int(minlength))
    if weights is None:
        return np.bincount(xi.astype(np.intp), minlength=minlength)
    w = _float(_array(weights))
    if tuple(w.shape) != xi.shape:
        raise ValueError("The weights and list don't have the same length.")
    base = np.zeros(length, dtype=w.dtype)
    return at(base)[xi.astype(np.intp)].add(w)


@implements(np.digitize)
def digitize(x, bins, right=False):
    """Indices of the bins each value of ``x`` falls in (``numpy.digitize``).

    Parameters
    ----------
    x : array_like or tracer
    bins : 1-D array_like, monotonic (concrete)
    right : bool
        Whether the intervals include their right edge.

    Returns
    -------
    int64 array or tracer (no derivative)

    Raises
    ------
    ValueError
        If ``bins`` is not 1-D or not monotonic.

    Notes
    -----
    Computed by counting the bin edges below each value (``O(len(x) *
    len(bins))``), which works on tracers under every transform.
    """
    b = np.asarray(_concrete(bins, "digitize", "bins"))
    if b.ndim != 1:
        raise ValueError("object too deep for desired array")
    d = np.diff(b)
    increasing = bool(np.all(d >= 0))
    if not increasing and not np.all(d <= 0):
        raise ValueError("bins must be monotonically increasing or decreasing")
    x = _array(x)
    xe = ops.reshape(x, tuple(x.shape) + (1,)) if isinstance(x, Tracer) else np.asarray(x)[..., None]
    if increasing:
        hit = ops.lt(b, xe) if right else ops.le(b, xe)
        if np.dtype(x.dtype).kind == "f":  # NaN sorts after every edge, as in NumPy
            hit = ops.logical_or(hit, ops.isnan(xe))
    else:
        hit = ops.ge(b, xe) if right else ops.gt(b, xe)
    return ops.convert_element_type(sum(hit, axis=-1), np.int64)


@implements(np.histogram)
def histogram(a, bins=10, range=None, density=None, weights=None):  # noqa: A002
    """Histogram of ``a`` (``numpy.histogram``); differentiable in ``weights``.

    Parameters
    ----------
    a : array_like or tracer
        Read for its concrete values (which bin each falls in); flattened.
    bins : int or 1-D array_like
        Number of equal-width bins over ``range`` (default: ``a``'s min and
        max), or the bin edges.
    range : (float, float), optional
    density : bool, optional
        Normalize to a probability density.
    weights : array_like or tracer, optional
        Same shape as ``a``.

    Returns
    -------
    hist : array or tracer
        int64 counts, or float sums of the weights (differentiable in
        ``weights``); with ``density`` floats.
    bin_edges : ndarray of float
        Concrete (NumPy's edges; no derivative in ``a``).

    Raises
    ------
    TypeError
        If ``a`` has no concrete value (under ``vmap``).
    ValueError
        As NumPy: bad ``bins`` or ``range``.
    """
    av = _concrete(a, "histogram", "a").ravel()
    edges = np.histogram_bin_edges(av, bins=bins, range=range)
    nb = edges.size - 1
    idx = np.searchsorted(edges, av, side="right") - 1
    idx[av == edges[-1]] = nb - 1
    keep = (idx >= 0) & (idx < nb) & (av >= edges[0]) & (av <= edges[-1])
    if weights is None:
        hist = np.bincount(idx[keep], minlength=nb).astype(np.int64)
    else:
        w = ravel(_float(_array(weights)))
        if w.shape[0] != av.size:
            raise ValueError("weights should have the same shape as a.")
        sel = np.flatnonzero(keep)
        hist = at(np.zeros(nb, dtype=w.dtype))[idx[keep]].add(w[sel])
    if density:
        widths = np.diff(edges)
        total = sum(hist)
        hist = ops.div(ops.div(_float(asarray(hist)) if not isinstance(hist, Tracer) else hist,
                               widths), total)
    return hist, edges



@implements(np.histogram_bin_edges)
def histogram_bin_edges(a, bins=10, range=None, weights=None):  # noqa: A002
    """The bin edges :func:`histogram` would use (``numpy.histogram_bin_edges``).

    Parameters
    ----------
    a : array_like or tracer
        Read for its concrete values.
    bins : int, str or 1-D array_like
    range : (float, float), optional
    weights : array_like, optional
        Read for their concrete values (some estimators use them).

    Returns
    -------
    ndarray of float
        Concrete (no derivative).

    Raises
    ------
    TypeError
        Under a transform without concrete values.
    """
    w = None if weights is None else _concrete(weights, "histogram_bin_edges", "weights")
    return np.histogram_bin_edges(_concrete(a, "histogram_bin_edges", "a"), bins=bins,
                                  range=range, weights=w)


@implements(np.histogramdd)
def histogramdd(sample, bins=10, range=None, density=None, weights=None):  # noqa: A002
    """Multidimensional histogram (``numpy.histogramdd``), differentiable in ``weights``.

    Parameters
    ----------
    sample : (N, D) array_like or tracer, or a sequence of D 1-D arrays
        Read for its concrete values.
    bins : int, sequence of ints or sequence of edge arrays
    range : sequence of (float, float), optional
    density : bool, optional
    weights : (N,) array_like or tracer, optional

    Returns
    -------
    hist : array or tracer
        float64 counts (as NumPy), or sums of the weights.
    edges : list of ndarrays
        Concrete.

    Raises
    ------
    TypeError
        Under a transform without concrete values.
    ValueError
        As NumPy.
    """
    if isinstance(sample, (list, tuple)):
        sv = np.stack([_concrete(s, "histogramdd", "sample").ravel() for s in sample], axis=1)
    else:
        sv = _concrete(sample, "histogramdd", "sample")
        if sv.ndim == 1:
            sv = sv[:, None]
    counts, edges = np.histogramdd(sv, bins=bins, range=range)
    if weights is None and not density:
        return counts, edges
    n, d = sv.shape
    nbin = np.array([len(e) + 1 for e in edges])
    pos = []
    for i in builtins.range(d):
        c = np.searchsorted(edges[i], sv[:, i], side="right")
        c[sv[:, i] == edges[i][-1]] -= 1
        pos.append(c)
    flat = np.ravel_multi_index(pos, nbin) if d else np.zeros(n, np.intp)
    if weights is None:
        hist = np.asarray(counts, dtype=np.float64)
    else:
        w = _float(ravel(_array(weights)))
        if w.shape[0] != n:
            raise ValueError("weights must have as many entries as sample has points")
        full = at(np.zeros(int(np.prod(nbin)), dtype=w.dtype))[flat].add(w)
        full = reshape(full, tuple(nbin))
        core = tuple(slice(1, -1) for _ in builtins.range(d))
        hist = full[core]
    if density:
        vol = np.ones(())
        for i in builtins.range(d):
            shp = [1] * d
            shp[i] = -1
            vol = vol * np.diff(edges[i]).reshape(shp)
        hist = ops.div(ops.div(hist, vol), sum(hist))
    return hist, edges


@implements(np.histogram2d)
def histogram2d(x, y, bins=10, range=None, density=None, weights=None):  # noqa: A002
    """Two-dimensional histogram (``numpy.histogram2d``), differentiable in ``weights``.

    Parameters
    ----------
    x, y : 1-D array_like or tracer
        Read for their concrete values.
    bins : int, [int, int], array or [array, array]
    range : [[xmin, xmax], [ymin, ymax]], optional
    density : bool, optional
    weights : array_like or tracer, optional

    Returns
    -------
    hist : array or tracer, shape (nx, ny)
    xedges, yedges : ndarrays
        Concrete.

    Raises
    ------
    TypeError
        Under a transform without concrete values.
    """
    try:
        nb = len(bins)
    except TypeError:
        nb = 1
    if nb != 1 and nb != 2:
        bins = [np.asarray(bins), np.asarray(bins)]
    hist, edges = histogramdd([x, y], bins, range, density, weights)
    return hist, edges[0], edges[1]

__all__ += ["histogram_bin_edges", "histogramdd", "histogram2d"]
