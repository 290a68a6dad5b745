"""``tracegrad.nn``: activations, softmax, logsumexp, attention and initializers.

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

Weight initializers live in ``tracegrad.nn.initializers`` (JAX's names and
signatures, with a NumPy ``Generator`` or an integer seed as the key).

Axis arguments accept an int, a negative int or a tuple of ints (``None``
means every axis, where allowed).  The math lives in the primitives of
``tracegrad.primitives.nn``, whose derivative formulas run as fused Numba
kernels.
"""
import math
import operator

import numpy as np

from . import nn_initializers as initializers
from . import numpy as tnp
from .core import Tracer, concrete_value, shape_of
from .numpy._core import arg
from .primitives import ops

__all__ = [
    "sigmoid", "relu", "softplus", "log_sigmoid", "softmax", "log_softmax",
    "logsumexp", "silu", "swish", "gelu", "elu", "leaky_relu", "relu6",
    "one_hot", "identity", "tanh", "selu", "celu", "glu", "mish", "hard_tanh",
    "hard_sigmoid", "hard_silu", "hard_swish", "soft_sign", "log1mexp", "sparse_plus",
    "sparse_sigmoid", "squareplus", "standardize", "dot_product_attention", "initializers",
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
        if return_sign:  # (primitives, so it stages and batches; no derivative)
            sign = ops.stop_gradient(ops.select(ops.eq(out, -np.inf), 0.0, 1.0))
            sign = ops.convert_element_type(sign, a.dtype)
        a_shape = a.shape
    else:
        b = arg(b)
        shape = np.broadcast_shapes(tuple(a.shape), tuple(np.shape(b)))  # (reads b.shape)
        a = ops.broadcast_to(a, shape)
        axes = _axes(axis, len(shape), "logsumexp")
        m = ops.stop_gradient(_keep(ops.logsumexp(a, axes), shape, axes))
        m = ops.select(ops.isfinite(m), m, 0.0)
        s = ops.reduce_sum(ops.mul(b, ops.exp(ops.sub(a, m))), axes)
        s = ops.convert_element_type(s, a.dtype) if np.dtype(s.dtype).kind != "f" else s
        sign = ops.stop_gradient(ops.sign(s))
        m_red = ops.reshape(m, tuple(d for i, d in enumerate(shape) if i not in axes))
        out = ops.add(ops.log(ops.abs(s)), m_red)
        if not return_sign:
            out = ops.select(ops.lt(sign, 0.0), np.nan, out)
        a_shape = shape
    if keepdims:
        out = _keep(out, a_shape, axes)
        if sign is not None:
            sign = _keep(sign, a_shape, axes)
    if sign is not None and not isinstance(sign, Tracer):
        sign = np.asarray(sign)[()]  # a NumPy scalar for a 0-d result, as SciPy's
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


# --------------------------------------------------------------------------
# more activations (jax.nn's names and kinks)


def identity(x):
    """The identity activation: ``x`` itself (as a float array).

    Parameters
    ----------
    x : array_like or tracer

    Returns
    -------
    array or tracer
        ``x``, converted as every function here converts (ints to float64).
    """
    return _float(x)


def tanh(x):
    """Hyperbolic tangent, elementwise (``jax.nn.tanh``).

    Parameters
    ----------
    x : array_like or tracer

    Returns
    -------
    array or tracer
        Same shape and dtype, in ``[-1, 1]``.
    """
    return ops.tanh(_float(x))


_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


def selu(x):
    """Scaled exponential linear unit ``scale * elu(x, alpha)``, elementwise.

    Parameters
    ----------
    x : array_like or tracer

    Returns
    -------
    array or tracer
        Same shape and dtype.

    Notes
    -----
    ``alpha = 1.6732632423543772848...`` and ``scale = 1.0507009873554804934...``
    from Klambauer et al. (2017), "Self-Normalizing Neural Networks".  The
    derivative at 0 is ``scale * alpha`` (the left branch), as in JAX.
    """
    return ops.mul(_SELU_SCALE, elu(x, _SELU_ALPHA))


def celu(x, alpha=1.0):
    """Continuously differentiable ELU: ``max(x, 0) + alpha * expm1(min(x, 0) / alpha)``.

    Parameters
    ----------
    x : array_like or tracer
    alpha : float, optional
        Scale of the negative part (default 1.0); not 0.

    Returns
    -------
    array or tracer
        Same shape and dtype.

    Notes
    -----
    Barron (2017), "Continuously Differentiable Exponential Linear Units".
    Written with ``maximum`` and ``minimum`` as JAX writes it, so the
    derivatives at 0 are JAX's (``maximum``/``minimum`` split a tie's
    derivative evenly): the first is 1, the second ``1 / (4 alpha)``.
    """
    x = _float(x)
    return ops.add(ops.maximum(x, 0.0), ops.mul(alpha, ops.expm1(ops.div(ops.minimum(x, 0.0), alpha))))


def glu(x, axis=-1):
    """Gated linear unit: ``a * sigmoid(b)`` where ``a, b`` are the halves of ``x`` along ``axis``.

    Parameters
    ----------
    x : array_like or tracer
    axis : int, optional
        The axis to split in two (default the last); its length must be even.

    Returns
    -------
    array or tracer
        ``x``'s shape with ``axis`` halved.

    Raises
    ------
    ValueError
        If the length of ``axis`` is odd.
    numpy.exceptions.AxisError
        If ``axis`` is out of range.

    Notes
    -----
    Dauphin et al. (2017), "Language Modeling with Gated Convolutional Networks".
    """
    x = _float(x)
    ax = _axes(axis, x.ndim, "glu")[0]
    n = x.shape[ax]
    if n % 2:
        raise ValueError(f"glu: axis {axis} has odd length {n}; it must split into two halves.")
    a, b = tnp.split(x, 2, axis=ax)
    return ops.mul(a, ops.sigmoid(b))


def mish(x):
    """Mish ``x * tanh(softplus(x))``, elementwise.

    Parameters
    ----------
    x : array_like or tracer

    Returns
    -------
    array or tracer
        Same shape and dtype.

    Notes
    -----
    Misra (2019), "Mish: A Self Regularized Non-Monotonic Activation Function".
    """
    x = _float(x)
    return ops.mul(x, ops.tanh(ops.softplus(x)))


def hard_tanh(x):
    """``clip(x, -1, 1)``, elementwise.

    Parameters
    ----------
    x : array_like or tracer

    Returns
    -------
    array or tracer
        Same shape and dtype.  The derivative is 1 on ``[-1, 1]`` (both
        kinks included, as in JAX) and 0 outside.
    """
    x = _float(x)
    return ops.select(ops.gt(x, 1.0), 1.0, ops.select(ops.lt(x, -1.0), -1.0, x))


def hard_sigmoid(x):
    """``relu6(x + 3) / 6``, elementwise.

    Parameters
    ----------
    x : array_like or tracer

    Returns
    -------
    array or tracer
        Same shape and dtype, in ``[0, 1]``.  The derivative is 1/6 on
        ``-3 < x < 3`` and 0 elsewhere, both kinks included (as in JAX).
    """
    return ops.div(relu6(ops.add(_float(x), 3.0)), 6.0)


def hard_silu(x):
    """Hard SiLU (hard swish) ``x * hard_sigmoid(x)``, elementwise.

    Parameters
    ----------
    x : array_like or tracer

    Returns
    -------
    array or tracer
        Same shape and dtype.  At the kinks ``x = -3`` and ``x = 3`` the
        derivative is ``hard_sigmoid(x)`` (0 and 1), as in JAX.

    Notes
    -----
    Howard et al. (2019), "Searching for MobileNetV3".
    """
    x = _float(x)
    return ops.mul(x, hard_sigmoid(x))


hard_swish = hard_silu


def soft_sign(x):
    """Soft sign ``x / (|x| + 1)``, elementwise.

    Parameters
    ----------
    x : array_like or tracer

    Returns
    -------
    array or tracer
        Same shape and dtype, in ``(-1, 1)``; the derivative ``1 / (|x| + 1)**2``
        is 1 at 0.

    Notes
    -----
    ``|x|`` is taken as ``x if x >= 0 else -x``, whose derivative at 0 is 1
    (JAX's rule for ``abs``), so the second derivative at 0 is JAX's -2
    (the right-hand value).
    """
    x = _float(x)
    return ops.div(x, ops.add(ops.select(ops.ge(x, 0), x, ops.neg(x)), 1.0))


_LOG2 = math.log(2.0)


def log1mexp(x):
    """``log(1 - exp(-x))``, elementwise, computed accurately for every ``x > 0``.

    Parameters
    ----------
    x : array_like or tracer
        The domain is ``x >= 0``.

    Returns
    -------
    array or tracer
        Same shape and dtype: ``-inf`` at 0 (derivative ``+inf``), NaN for
        ``x < 0``, ``-exp(-x)`` to full precision for large ``x``,
        ``log(x)`` to full precision for tiny ``x``.

    Notes
    -----
    Mächler (2012), "Accurately Computing log(1 - exp(-|a|))": ``log(-expm1(-x))``
    for ``x < log 2``, ``log1p(-exp(-x))`` above.  Each branch is evaluated
    only on its own side of ``log 2`` (clamped there otherwise), so the
    unused branch never puts a NaN into a derivative.  The derivative is
    ``1 / expm1(x)``.
    """
    x = _float(x)
    small = ops.lt(x, _LOG2)
    lo = ops.select(small, x, _LOG2)
    hi = ops.select(small, _LOG2, x)
    return ops.select(small, ops.log(ops.neg(ops.expm1(ops.neg(lo)))),
                      ops.log1p(ops.neg(ops.exp(ops.neg(hi)))))


def sparse_plus(x):
    """Sparse plus: 0 for ``x <= -1``, ``x`` for ``x >= 1``, ``(x + 1)**2 / 4`` between.

    Parameters
    ----------
    x : array_like or tracer

    Returns
    -------
    array or tracer
        Same shape and dtype.  Continuously differentiable; the second
        derivative is 1/2 on ``(-1, 1)`` and 0 elsewhere, 0 at both kinks
        (JAX's branches: ``x <= -1`` and ``x >= 1`` take the outer pieces).

    Notes
    -----
    Blondel et al. (2020), "Learning with Fenchel-Young Losses", section 6.2.
    """
    x = _float(x)
    mid = ops.mul(0.25, ops.integer_pow(ops.add(x, 1.0), 2))
    return ops.select(ops.le(x, -1.0), 0.0, ops.select(ops.ge(x, 1.0), x, mid))


def sparse_sigmoid(x):
    """Sparse sigmoid ``clip((x + 1) / 2, 0, 1)``, the derivative of :func:`sparse_plus`.

    Parameters
    ----------
    x : array_like or tracer

    Returns
    -------
    array or tracer
        Same shape and dtype.  The derivative is 1/2 on ``(-1, 1)``, 0
        outside and 1/4 at the kinks: written with ``maximum`` and
        ``minimum`` (JAX's ``clip``), which split a tie's derivative evenly.
    """
    x = _float(x)
    return ops.mul(0.5, ops.minimum(ops.maximum(ops.add(x, 1.0), 0.0), 2.0))


def squareplus(x, b=4):
    """Squareplus ``(x + sqrt(x**2 + b)) / 2``, elementwise.

    Parameters
    ----------
    x : array_like or tracer
    b : float, optional
        Smoothness (default 4); ``b = 0`` gives ``relu``.

    Returns
    -------
    array or tracer
        Same shape and dtype.

    Notes
    -----
    Barron (2021), "Squareplus: A Softplus-Like Algebraic Rectifier".
    """
    x = _float(x)
    return ops.mul(0.5, ops.add(x, ops.sqrt(ops.add(ops.integer_pow(x, 2), b))))


# --------------------------------------------------------------------------
# standardize and attention


def standardize(x, axis=-1, mean=None, variance=None, epsilon=1e-5, where=None, *,
                algorithm="fast"):
    """``(x - mean) / sqrt(variance + epsilon)`` over ``axis`` (``jax.nn.standardize``).

    Parameters
    ----------
    x : array_like or tracer
    axis : int, tuple of ints or None, optional
        Axes of the statistics (default the last); None means all.
    mean, variance : array_like or tracer, optional
        Given statistics, broadcastable to ``x``; by default computed over
        ``axis`` (keeping it).
    epsilon : float, optional
        Added to the variance (default 1e-5).
    where : array_like of bool, optional
        Only these entries enter the computed statistics.
    algorithm : {"fast", "stable"}, optional
        ``"fast"`` (the default, as in JAX): ``mean(x**2) - mean(x)**2``
        clipped at 0; ``"stable"``: ``mean((x - mean)**2)``.

    Returns
    -------
    array or tracer
        ``x``'s shape and dtype.

    Raises
    ------
    ValueError
        If ``algorithm`` is not ``"fast"`` or ``"stable"``.
    numpy.exceptions.AxisError
        If an axis is out of range.
    """
    x = _float(x)
    axes = _axes(axis, x.ndim, "standardize")
    kw = {} if where is None else {"where": where}
    if mean is None:
        mean = tnp.mean(x, axis=axes, keepdims=True, **kw)
    if variance is None:
        if algorithm == "stable":
            variance = tnp.mean(ops.integer_pow(ops.sub(x, mean), 2), axis=axes, keepdims=True, **kw)
        elif algorithm == "fast":
            variance = ops.sub(tnp.mean(ops.integer_pow(x, 2), axis=axes, keepdims=True, **kw),
                               ops.integer_pow(mean, 2))
            variance = ops.maximum(variance, 0.0)
        else:
            raise ValueError(f"standardize: unknown algorithm {algorithm!r}; use 'fast' or 'stable'.")
    return ops.div(ops.sub(x, mean), ops.sqrt(ops.add(variance, epsilon)))


def _to4d(t):
    t = arg(t)
    t = t if isinstance(t, Tracer) else np.asarray(t)
    return tnp.reshape(t, (1,) * (4 - t.ndim) + tuple(t.shape)) if t.ndim < 4 else t


def dot_product_attention(query, key, value, bias=None, mask=None, *, scale=None,
                          is_causal=False, query_seq_lengths=None, key_value_seq_lengths=None,
                          local_window_size=None, implementation=None, return_residual=False):
    """Scaled dot-product attention ``softmax(q k^T * scale + bias) v`` (``jax.nn.dot_product_attention``).

    Parameters
    ----------
    query : array_like or tracer
        Shape ``(B, T, N, H)`` or ``(T, N, H)``: batch, query length, heads,
        head size.
    key, value : array_like or tracer
        Shape ``(B, S, K, H)`` or ``(S, K, H)``, ``N`` a multiple of ``K``
        (``K < N``: grouped-query attention, each key head serving ``N / K``
        query heads), both of the same dtype.
    bias : array_like or tracer, optional
        Added to the logits; broadcastable to ``(B, N, T, S)``.
    mask : array_like of bool, optional
        Broadcastable to ``(B, N, T, S)``; False entries are left out.
    scale : float, optional
        Multiplies the logits; default ``1 / sqrt(H)``.
    is_causal : bool, optional
        Query ``t`` attends only to keys ``s <= t``.
    query_seq_lengths, key_value_seq_lengths : array_like of int, optional
        Shape ``(B,)``: valid lengths; padded queries give zero output,
        padded keys are left out.
    local_window_size : int or (int, int), optional
        ``(left, right)``: query ``t`` attends to keys in ``[t - left, t + right]``.
    implementation : None or "xla", optional
        Accepted for JAX compatibility; tracegrad has one implementation.
    return_residual : bool, optional
        Also return the logsumexp of the masked logits, shape ``(B, T, N)``
        (or ``(T, N)``), without derivative.

    Returns
    -------
    array or tracer
        ``query``'s shape; with ``return_residual``, a pair.

    Raises
    ------
    ValueError
        If the shapes or dtypes do not fit together, the mask is not bool,
        ``N`` is not a multiple of ``K``, or ``implementation`` is not None
        or ``"xla"``.

    Notes
    -----
    Left-out entries get the logit ``-0.7 * float32 max`` (JAX's value), so
    a row with every key left out averages all values uniformly.  JAX
    computes the softmax in float32 even for float64 inputs; tracegrad
    keeps the input dtype (agreement with JAX's x64 results is therefore
    to about 1e-7).
    """
    if implementation not in (None, "xla"):
        raise ValueError(
            f"dot_product_attention: implementation={implementation!r} is not available; "
            "tracegrad has one implementation (pass None or 'xla').")
    q_shape = tuple(shape_of(arg(query)))
    q, k, v = _to4d(_float(query)), _to4d(_float(key)), _to4d(_float(value))
    B, S, K, H = k.shape
    if tuple(v.shape) != tuple(k.shape) or v.dtype != k.dtype:
        raise ValueError(f"dot_product_attention: value has shape {tuple(v.shape)} and dtype "
                         f"{v.dtype}; it must match key's {tuple(k.shape)}, {k.dtype}.")
    if q.ndim != 4 or q.shape[0] != B or q.shape[3] != H or q.dtype != k.dtype:
        raise ValueError(f"dot_product_attention: query has shape {tuple(q.shape)} and dtype "
                         f"{q.dtype}; expected (B={B}, T, N, H={H}) of dtype {k.dtype}.")
    T, N = q.shape[1], q.shape[2]
    if N % K:
        raise ValueError(f"dot_product_attention: the number of query heads ({N}) must be a "
                         f"multiple of the number of key/value heads ({K}).")
    if N != K:
        k = tnp.repeat(k, N // K, axis=2)
        v = tnp.repeat(v, N // K, axis=2)
    logits = tnp.einsum("btnh,bsnh->bnts", q, k)
    logits = ops.mul(logits, np.asarray(1.0 / math.sqrt(H) if scale is None else scale,
                                        dtype=logits.dtype)[()])
    if bias is not None:
        logits = ops.add(logits, _to4d(bias))
    keep = None
    if mask is not None:
        m = np.asarray(concrete_value(arg(mask)))
        if m.dtype != np.bool_:
            raise ValueError(f"dot_product_attention: mask must be bool, got {m.dtype}; "
                             "pass an additive mask as bias.")
        keep = np.reshape(m, (1,) * (4 - m.ndim) + m.shape)
    rows, cols = np.arange(T)[:, None], np.arange(S)[None, :]
    extra = []
    if is_causal:
        extra.append(rows >= cols)
    if local_window_size is not None:
        left, right = ((local_window_size,) * 2 if isinstance(local_window_size, int)
                       else tuple(local_window_size))
        extra.append((rows <= cols + left) & (rows >= cols - right))
    q_len = None
    if query_seq_lengths is not None:
        q_len = np.asarray(concrete_value(arg(query_seq_lengths)))
        extra.append((np.arange(T)[None, :, None] < q_len[:, None, None])[:, None])
    if key_value_seq_lengths is not None:
        kv_len = np.asarray(concrete_value(arg(key_value_seq_lengths)))
        extra.append((np.arange(S)[None, None, :] < kv_len[:, None, None])[:, None])
    for e in extra:
        keep = e if keep is None else keep & e
    if keep is not None:
        big_neg = -0.7 * min(float(np.finfo(logits.dtype).max), float(np.finfo(np.float32).max))
        logits = ops.select(np.broadcast_to(keep, tuple(logits.shape)), logits, big_neg)
    probs = ops.softmax(logits, (3,))
    out = tnp.einsum("bnts,bsnh->btnh", probs, v)
    if q_len is not None:
        valid = (np.arange(T)[None, :] < q_len[:, None])[:, :, None, None]
        out = ops.mul(out, valid.astype(out.dtype))
    out = tnp.reshape(out, q_shape)
    if not return_residual:
        return out
    lse = ops.stop_gradient(ops.logsumexp(logits, (3,)))
    lse = tnp.reshape(tnp.transpose(lse, (0, 2, 1)), q_shape[:-1])
    return out, lse
