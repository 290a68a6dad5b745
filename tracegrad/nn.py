"""``tracegrad.nn``: activation functions, softmax, log-softmax and logsumexp.

Names and signatures follow ``jax.nn`` (and ``jax.scipy.special.logsumexp``).
Every function takes arrays, tracers, Python scalars or nested lists; integer
and bool inputs are converted to float64 first, float32 stays float32.  Each
is differentiable to any order under every transform, and stable in value
and derivative for large arguments:

>>> import tracegrad as tg, tracegrad.nn as nn
>>> float(nn.softplus(1000.0)), float(tg.grad(nn.softplus)(1000.0))
(1000.0, 1.0)
>>> float(tg.grad(nn.relu)(0.0))
0.0

Axis arguments accept an int, a negative int or a tuple of ints (``None``
means every axis, where allowed).  The math lives in the primitives of
``tracegrad.primitives.nn``, whose derivative formulas run as fused Numba
kernels.
"""
import operator

import numpy as np

from .core import Tracer, concrete_value
from .numpy._core import arg
from .primitives import ops

__all__ = [
    "sigmoid", "relu", "softplus", "log_sigmoid", "softmax", "log_softmax",
    "logsumexp", "silu", "swish", "gelu", "elu", "leaky_relu", "relu6",
    "one_hot",
]


def _float(x):
    """``x`` as an array or tracer of a float dtype (ints and bools -> float64)."""
    x = arg(x)
    if not isinstance(x, Tracer):
        x = np.asarray(x)
    if np.dtype(x.dtype).kind != "f":
        if np.dtype(x.dtype).kind == "c":
            raise TypeError(
                f"tracegrad.nn functions take real arrays, got dtype {x.dtype}; "
                "apply them to the real and imaginary parts separately."
            )
        x = ops.convert_element_type(x, np.float64)
    return x


def _axes(axis, ndim, name):
    """Normalize ``axis`` (int, tuple or None) to a sorted tuple of non-negative ints."""
    if axis is None:
        return tuple(range(ndim))
    items = (axis,) if not isinstance(axis, (tuple, list)) else tuple(axis)
    out = []
    for a in items:
        a = operator.index(a)
        if not -ndim <= a < ndim:
            raise np.exceptions.AxisError(
                f"{name}: axis {a} is out of bounds for an array of dimension {ndim}; "
                f"pass an axis in [{-ndim}, {ndim - 1}]."
            )
        out.append(a % ndim)
    if len(set(out)) != len(out):
        raise ValueError(f"{name}: repeated axis in {axis!r}; list each axis once.")
    return tuple(sorted(out))


# --------------------------------------------------------------------------
# elementwise activations


def sigmoid(x):
    """Logistic sigmoid ``1 / (1 + exp(-x))``, elementwise.

    Parameters
    ----------
    x : array_like or tracer
        Any shape; float32 stays float32, other dtypes become float64.

    Returns
    -------
    array or tracer
        Same shape and dtype, in ``[0, 1]``: exactly 0 at ``-inf`` and for
        ``x < -708`` (results below 1e-308 are flushed to zero), exactly 1
        for ``x > 37``.

    Notes
    -----
    Computed as ``1 / (1 + e)`` or ``e / (1 + e)`` with ``e = exp(-|x|)``, so
    nothing overflows.  The derivative ``s * (1 - s)`` (``s`` the output) is
    the fused primitive ``sigmoid_grad``; it is finite everywhere and 0 at
    ``+-1000``.
    """
    return ops.sigmoid(_float(x))


def relu(x):
    """Rectified linear unit ``max(x, 0)``, elementwise.

    Parameters
    ----------
    x : array_like or tracer

    Returns
    -------
    array or tracer
        Same shape and dtype as the float input; NaN stays NaN.

    Notes
    -----
    The derivative is 1 for ``x > 0`` and 0 otherwise, so ``relu'(0) = 0``
    (as in JAX and PyTorch), and every higher derivative is 0.
    """
    return ops.relu(_float(x))


def softplus(x):
    """``log(1 + exp(x))``, elementwise, computed stably.

    Parameters
    ----------
    x : array_like or tracer

    Returns
    -------
    array or tracer
        Same shape and dtype: ``softplus(1000) == 1000``,
        ``softplus(-1000) == 0``, ``softplus(inf) == inf``.

    Notes
    -----
    Computed as ``max(x, 0) + log1p(exp(-|x|))``.  The derivative is
    ``sigmoid(x)`` (1 at 1000, 0 at -1000), a fused primitive
    ``softplus_grad``; the second derivative is ``sigmoid(x)(1 - sigmoid(x))``.
    """
    return ops.softplus(_float(x))


def log_sigmoid(x):
    """``log(sigmoid(x)) = -softplus(-x)``, elementwise, computed stably.

    Parameters
    ----------
    x : array_like or tracer

    Returns
    -------
    array or tracer
        Same shape and dtype; ``log_sigmoid(-1000) == -1000`` with derivative 1,
        ``log_sigmoid(1000) == 0`` with derivative 0.
    """
    return ops.neg(ops.softplus(ops.neg(_float(x))))


def silu(x):
    """Sigmoid linear unit ``x * sigmoid(x)`` (also called swish), elementwise.

    Parameters
    ----------
    x : array_like or tracer

    Returns
    -------
    array or tracer
        Same shape and dtype.

    Notes
    -----
    Introduced by Hendrycks and Gimpel (2016, "Gaussian Error Linear Units")
    as the sigmoid-weighted linear unit and by Ramachandran et al. (2017,
    "Searching for Activation Functions") as swish.
    """
    x = _float(x)
    return ops.mul(x, ops.sigmoid(x))


swish = silu


def gelu(x, approximate=True):
    """Gaussian error linear unit ``x * Phi(x)``, elementwise.

    Parameters
    ----------
    x : array_like or tracer
    approximate : bool, optional
        True (the default, as in JAX): the tanh approximation
        ``0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x**3)))``.  False: the
        exact ``0.5 x (1 + erf(x / sqrt(2)))``.

    Returns
    -------
    array or tracer
        Same shape and dtype.

    Notes
    -----
    Both forms are from Hendrycks and Gimpel (2016), "Gaussian Error Linear
    Units (GELUs)".  One primitive (``gelu``, a fused kernel each way); its
    derivative is ``Phi(x) + x phi(x)`` (exact form).
    """
    return ops.gelu(_float(x), approximate=approximate)


def elu(x, alpha=1.0):
    """Exponential linear unit: ``x`` for ``x > 0``, ``alpha * (exp(x) - 1)`` otherwise.

    Parameters
    ----------
    x : array_like or tracer
    alpha : float, optional
        Scale of the negative part (default 1.0).

    Returns
    -------
    array or tracer
        Same shape and dtype.

    Notes
    -----
    ``expm1`` is evaluated at ``min(x, 0)`` (the double-``where`` idiom), so a
    large positive ``x`` never produces an ``inf`` in the unused branch and
    derivatives stay finite.  The derivative at 0 is ``alpha`` (the left
    branch), as in JAX.
    """
    x = _float(x)
    pos = ops.gt(x, 0)
    neg_part = ops.mul(alpha, ops.expm1(ops.select(pos, 0.0, x)))
    return ops.select(pos, x, neg_part)


def leaky_relu(x, negative_slope=0.01):
    """Leaky ReLU: ``x`` for ``x >= 0``, ``negative_slope * x`` otherwise.

    Parameters
    ----------
    x : array_like or tracer
    negative_slope : float, optional
        Slope for negative inputs (default 0.01).

    Returns
    -------
    array or tracer
        Same shape and dtype; the derivative at 0 is 1, as in JAX.
    """
    x = _float(x)
    return ops.select(ops.ge(x, 0), x, ops.mul(negative_slope, x))


def relu6(x):
    """``min(max(x, 0), 6)``, elementwise.

    Parameters
    ----------
    x : array_like or tracer

    Returns
    -------
    array or tracer
        Same shape and dtype.  The derivative is 1 on ``0 < x < 6`` and 0
        elsewhere, including at both kinks (as in JAX).
    """
    x = _float(x)
    return ops.select(ops.ge(x, 6.0), 6.0, ops.relu(x))


# --------------------------------------------------------------------------
# normalizations over an axis


def _masked(x, where, fill):
    if where is None:
        return x
    return ops.select(arg(where), x, fill)


def softmax(x, axis=-1, where=None):
    """Softmax ``exp(x) / sum(exp(x), axis)``, computed stably.

    Parameters
    ----------
    x : array_like or tracer
        At least 1-D along the chosen axes.
    axis : int, tuple of ints or None, optional
        Axis or axes to normalize over (default the last); None means all.
    where : array_like of bool, optional
        Broadcastable to ``x``: only these entries take part; the others are
        0 in the output (and get zero derivative).

    Returns
    -------
    array or tracer
        Same shape and dtype as ``x``; slices along ``axis`` sum to 1.

    Raises
    ------
    numpy.exceptions.AxisError
        If an axis is out of range.

    Notes
    -----
    Computed as ``exp(x - max) / sum(exp(x - max))`` in one fused kernel per
    row.  The JVP and the VJP are both ``y * (g - sum(g * y, axis))``
    (``y`` the output; the Jacobian ``diag(y) - y y^T`` is symmetric), the
    fused primitive ``softmax_grad``.  A slice that is entirely ``-inf`` (or
    holds ``+inf``) gives NaN, as in JAX.
    """
    x = _float(x)
    axes = _axes(axis, x.ndim, "softmax")
    y = ops.softmax(_masked(x, where, -np.inf), axes)
    return _masked(y, where, 0.0)


def log_softmax(x, axis=-1, where=None):
    """Log-softmax ``x - logsumexp(x, axis, keepdims=True)``, computed stably.

    Parameters
    ----------
    x : array_like or tracer
    axis : int, tuple of ints or None, optional
        Axis or axes to normalize over (default the last); None means all.
    where : array_like of bool, optional
        Broadcastable to ``x``: only these entries take part; the others are
        ``-inf`` in the output.

    Returns
    -------
    array or tracer
        Same shape and dtype as ``x``; ``exp`` of each slice sums to 1.  For
        ``[1000, 0, -1000]`` the result is ``[0, -1000, -2000]``.

    Raises
    ------
    numpy.exceptions.AxisError
        If an axis is out of range.

    Notes
    -----
    Computed as ``(x - max) - log(sum(exp(x - max)))`` in one kernel per row.
    The Jacobian is ``I - 1 p^T`` with ``p = exp(y)``: the JVP
    ``t - sum(p t)`` and the VJP ``c - p sum(c)`` are the fused primitives
    ``log_softmax_jvp`` and ``log_softmax_vjp`` (each other's transposes).
    """
    x = _float(x)
    axes = _axes(axis, x.ndim, "log_softmax")
    y = ops.log_softmax(_masked(x, where, -np.inf), axes)
    return _masked(y, where, -np.inf)


def _keep(out, shape, axes):
    return ops.reshape(out, tuple(1 if i in axes else s for i, s in enumerate(shape)))


def logsumexp(a, axis=None, b=None, keepdims=False, return_sign=False):
    """``log(sum(b * exp(a), axis))``, computed stably (``jax.nn.logsumexp``).

    Parameters
    ----------
    a : array_like or tracer
    axis : int, tuple of ints or None, optional
        Axes to reduce (default: all).
    b : array_like or tracer, optional
        Weights broadcastable with ``a``; may be negative or zero.
    keepdims : bool, optional
        Keep the reduced axes with length 1.
    return_sign : bool, optional
        Also return the sign of the sum (-1, 0 or 1, no derivative); the
        result is then ``log|sum|``.

    Returns
    -------
    out : array or tracer
        ``a``'s dtype; the shape of ``a`` (broadcast with ``b``) without the
        reduced axes (with length-1 axes if ``keepdims``).  All ``-inf``
        gives ``-inf``; a negative weighted sum gives NaN unless
        ``return_sign``.
    sign : array
        Only with ``return_sign=True``.

    Raises
    ------
    numpy.exceptions.AxisError
        If an axis is out of range.

    Notes
    -----
    Without ``b``: ``max + log(sum(exp(a - max)))`` in one kernel per row.
    The VJP ``ct * exp(a - out)`` is computed as ``ct * softmax(a)`` (the
    same value, without the rounding of ``out``: exactly ``[0.5, 0.5]`` for
    ``[1000, 1000]``) by the fused primitive ``logsumexp_grad``.  With ``b``: the sum of
    ``b * exp(a - m)`` with the constant shift ``m = logsumexp(a)`` (so no
    term exceeds ``|b|``), as ``log|s| + m``.
    """
    a = _float(a)
    if b is None:
        axes = _axes(axis, a.ndim, "logsumexp")
        out = ops.logsumexp(a, axes)
        sign = None
        if return_sign:
            sign = np.where(np.asarray(concrete_value(out)) == -np.inf, 0, 1).astype(a.dtype)[()]
    else:
        b = arg(b)
        shape = np.broadcast_shapes(tuple(a.shape), tuple(np.shape(concrete_value(b))))
        a = ops.broadcast_to(a, shape)
        axes = _axes(axis, len(shape), "logsumexp")
        m = ops.stop_gradient(_keep(ops.logsumexp(a, axes), shape, axes))
        m = ops.select(ops.isfinite(m), m, 0.0)
        s = ops.reduce_sum(ops.mul(b, ops.exp(ops.sub(a, m))), axes)
        s = ops.convert_element_type(s, a.dtype) if np.dtype(s.dtype).kind != "f" else s
        sign = np.sign(np.asarray(concrete_value(s)))[()]
        m_red = ops.reshape(m, tuple(d for i, d in enumerate(shape) if i not in axes))
        out = ops.add(ops.log(ops.abs(s)), m_red)
        if not return_sign:
            out = ops.select(np.asarray(sign) < 0, np.nan, out)
        a_shape = shape
    if keepdims:
        out = _keep(out, a.shape if b is None else a_shape, axes)
        if sign is not None:
            sign = np.reshape(sign, np.shape(concrete_value(out)))
    return (out, sign) if return_sign else out


# --------------------------------------------------------------------------
# one_hot


def one_hot(x, num_classes, *, dtype=np.float64, axis=-1):
    """One-hot encoding of integer class indices (no derivative).

    Parameters
    ----------
    x : array_like of int
        Class indices, any shape.
    num_classes : int
        Number of classes ``C``; indices outside ``[0, C)`` give all zeros.
    dtype : dtype, optional
        Result dtype (default float64).
    axis : int, optional
        Position of the new axis of length ``C`` in the result (default last).

    Returns
    -------
    ndarray
        Shape ``x.shape`` with ``C`` inserted at ``axis``; 1 where the index
        equals the position along that axis, 0 elsewhere.

    Raises
    ------
    numpy.exceptions.AxisError
        If ``axis`` is out of range for the result.
    """
    x = np.asarray(concrete_value(arg(x)))
    num_classes = operator.index(num_classes)
    nd = x.ndim + 1
    ax = _axes(axis, nd, "one_hot")[0]
    classes = np.arange(num_classes).reshape((num_classes,) + (1,) * (nd - 1 - ax))
    return (np.expand_dims(x, ax) == classes).astype(dtype)
