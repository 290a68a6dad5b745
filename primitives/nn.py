"""Primitives of ``tracegrad.nn``: activations, softmax, log-softmax, logsumexp.

Each block declares one primitive and, right below it, its impl, abstract
eval, JVP and VJP.  Derivative formulas that chain several elementwise steps
(``s * (1 - s)``, ``g * sigmoid(x)``, the softmax and log-softmax products
with a row sum, the logsumexp VJP ``ct * softmax(x)``) are fused Numba kernels declared
as primitives of their own (``sigmoid_grad``, ``softplus_grad``,
``softmax_grad``, ``log_softmax_vjp``, ``log_softmax_jvp``,
``logsumexp_grad``), each with JVP and VJP rules written with primitives, so
derivatives of any order work.

Row-wise primitives take a static ``axes`` tuple (sorted, non-negative).
Their impls move those axes last and view the input as a C-contiguous
``(rows, n)`` array, so each kernel walks one row at a time while it is in
cache.

The kernels live in :mod:`._nn_kernels`, which imports Numba and is loaded
on the first kernel call.  Their ``exp`` is the vectorized polynomial
``fexp`` of :mod:`._vecmath_kernels` (on these machines, AVX2 without
AVX-512, NumPy's float64 ``exp`` is a scalar libm loop, and so is
``math.exp`` in Numba), correct over the whole float64 range (within 1 ulp
of ``np.exp``; subnormal results rounded, not flushed).

Each impl's docstring gives its speed against the NumPy formulation it
falls back to (timeit medians, impl and NumPy interleaved, float64;
elementwise at 16, 1280 and 1e6 elements, row-wise at (8, 2), (128, 10),
(1000, 1000) and (1, 1e6)); the README's kernel table has the same
comparison from ``benchmarks/kernels.py``.
"""
import math
import threading

import numpy as np

from .core import (
    Primitive,
    ShapedArray,
    defjvp,
    defvjp,
    dtype_of,
    shape_of,
)
from .elementwise import (
    _elementwise_aval,
    add,
    exp,
    gt,
    mul,
    neg,
    select,
    square,
    sub,
    tanh,
)
from . import ops
from .batching import bdim_to_front, defbatch_axes, defbatch_elementwise
from .kernels import FLOAT_DTYPES, ensure_numba
from .lowering import Elementwise, same_float
from .structural import _expand_reduced, defvjp_broadcasting, reduce_sum

__all__ = [
    "sigmoid", "sigmoid_grad", "softplus", "softplus_grad", "relu", "erf", "gelu",
    "gelu_grad",
    "softmax", "softmax_grad", "log_softmax", "log_softmax_vjp",
    "log_softmax_jvp", "logsumexp", "logsumexp_grad", "lstm_cell",
]


# ==========================================================================
# Running the kernels of primitives/_nn_kernels.py
#
# That module imports Numba, so it is imported on the first kernel call
# (after `ensure_numba()`), and Numba compiles (or loads from its cache) only
# the kernels that run.  The impl wrappers below are on the path of every
# call, so the common case (a C-contiguous float32/float64 ndarray; row
# kernels reducing its trailing axes, where the (rows, n) layout is a free
# reshape) is tested first with cheap checks (dtype identity, no list
# building); everything else takes the general path.

_F32, _F64 = FLOAT_DTYPES
_nnk = None  # the module primitives._nn_kernels, once imported


def _kernels():
    """The kernel module :mod:`._nn_kernels` (imports Numba on first use)."""
    global _nnk
    if _nnk is None:
        ensure_numba()
        from . import _nn_kernels  # lazy: imports Numba (and compiles) on first use

        _nnk = _nn_kernels
    return _nnk


def _same_float(*xs):
    """True if all arrays share one kernel dtype (float32 or float64)."""
    dt = xs[0].dtype
    return dt in FLOAT_DTYPES and all(x.dtype == dt for x in xs)


def _unary_impl(name, numpy_fn, min_size, x):
    """Run the elementwise kernel ``name(flat_x, flat_out)`` on a float ``x``.

    Float32/float64 inputs with at least ``min_size`` elements go to the
    kernel; anything else (small arrays, where a Numba call costs more than
    NumPy's passes; float16; ints) to ``numpy_fn(x)``.
    """
    if type(x) is not np.ndarray:
        x = np.asarray(x)
    dt = x.dtype
    if (dt is _F64 or dt is _F32 or dt in FLOAT_DTYPES) and x.size >= min_size:
        out = np.empty(x.shape, dt)
        # ravel: a view of a C-contiguous array, else a contiguous copy
        getattr(_nnk or _kernels(), name)(x.ravel(), out.ravel())
        return out if out.ndim else out[()]
    return numpy_fn(x)[()]


def _binary_impl(name, numpy_fn, a, b):
    """Run ``name(flat_a, flat_b, flat_out)`` when ``a`` and ``b`` share a
    shape and a float dtype, else ``numpy_fn(a, b)`` (which also broadcasts)."""
    if type(a) is not np.ndarray:
        a = np.asarray(a)
    if type(b) is not np.ndarray:
        b = np.asarray(b)
    dt = a.dtype
    if (
        (dt is _F64 or dt is _F32 or dt in FLOAT_DTYPES)
        and (b.dtype is dt or b.dtype == dt)
        and a.shape == b.shape
    ):
        out = np.empty(a.shape, dt)
        getattr(_nnk or _kernels(), name)(a.ravel(), b.ravel(), out.ravel())
        return out if out.ndim else out[()]
    return numpy_fn(a, b)[()]


# Row layout: the reduced axes last, as a C-contiguous (rows, n) array.

def _trailing_rows(x, axes):
    """True if ``x`` is a nonempty C-contiguous float32/float64 ndarray and
    ``axes`` (sorted) are its last axes: its ``(rows, n)`` layout is then a
    reshape without copy (none at all for a 2-D ``x`` and ``axes == (1,)``)."""
    return (
        type(x) is np.ndarray
        and (x.dtype is _F64 or x.dtype is _F32)
        and x.size != 0
        and len(axes) != 0
        and axes[0] == x.ndim - len(axes)
        and x.flags.c_contiguous
    )


def _like(y, x):
    """True if ``y`` is a C-contiguous ndarray of ``x``'s dtype and shape."""
    return (
        type(y) is np.ndarray
        and y.dtype is x.dtype
        and y.shape == x.shape
        and y.flags.c_contiguous
    )


def _perm(ndim, axes):
    return tuple(i for i in range(ndim) if i not in axes) + tuple(axes)


def _to_rows(x, axes):
    """``x`` with ``axes`` moved last, as a C-contiguous ``(rows, n)`` array.

    Returns the array and the shape of the moved (not yet reshaped) input.
    Reducing the trailing axes of a C-contiguous array needs no copy.
    """
    nd = x.ndim
    n = math.prod([x.shape[a] for a in axes])
    if axes == tuple(range(nd - len(axes), nd)):
        return np.ascontiguousarray(x).reshape(-1, n), x.shape
    xt = x.transpose(_perm(nd, axes))
    return np.ascontiguousarray(xt).reshape(-1, n), xt.shape


def _from_rows(out, tshape, axes):
    """Undo :func:`_to_rows` on a result of the same layout."""
    out = out.reshape(tshape)
    nd = len(tshape)
    if axes == tuple(range(nd - len(axes), nd)):
        return out
    perm = _perm(nd, axes)
    inverse = [0] * nd
    for i, p in enumerate(perm):
        inverse[p] = i
    return out.transpose(inverse)


def _kept_shape(shape, axes):
    return tuple(1 if i in axes else s for i, s in enumerate(shape))


def _bsum(z, axes):
    """Sum of ``z`` over ``axes``, broadcast back to ``z``'s shape (primitives)."""
    return _expand_reduced(reduce_sum(z, axes), shape_of(z), axes)


def _same_aval(x, *rest, **params):
    # (x may be a Python scalar: a weakly typed input under staging)
    return ShapedArray(shape_of(x), dtype_of(x))


def _rowwise_impl(name, numpy_fn, axes, x, y=None):
    """Run the row kernel ``name(x_rows[, y_rows], out_rows)`` over ``axes``.

    ``x`` (and ``y``, of the same shape, if given) are laid out as
    C-contiguous ``(rows, n)`` arrays with ``axes`` last; the ``(rows, n)``
    result is laid back.  Other dtypes and mismatched shapes go to
    ``numpy_fn(*xs, axes)``; empty inputs give an empty result.
    """
    if _trailing_rows(x, axes) and (y is None or _like(y, x)):
        out = np.empty(x.shape, x.dtype)
        kern = getattr(_nnk or _kernels(), name)
        if x.ndim != 2 or len(axes) != 1:  # (rows, n) views
            rows = (-1, math.prod(x.shape[axes[0]:]))
            x, out_rows = x.reshape(rows), out.reshape(rows)
            y = None if y is None else y.reshape(rows)
        else:
            out_rows = out
        if y is None:
            kern(x, out_rows)
        else:
            kern(x, y, out_rows)
        return out
    xs = [np.asarray(x)] if y is None else [np.asarray(x), np.asarray(y)]
    if xs[0].size == 0:
        return np.zeros(xs[0].shape, np.result_type(*xs))
    if not _same_float(*xs) or any(x.shape != xs[0].shape for x in xs):
        return numpy_fn(*xs, axes)
    rows = [_to_rows(x, axes) for x in xs]
    out = np.empty(rows[0][0].shape, xs[0].dtype)
    getattr(_nnk or _kernels(), name)(*[r for r, _ in rows], out)
    return _from_rows(out, rows[0][1], axes)


# softplus runs its kernel from this many elements: below, NumPy's single
# logaddexp ufunc is faster (the kernel's log1p is a scalar call per element).
# The other elementwise kernels are faster than NumPy at every size.
_MIN_SIZE_SOFTPLUS = 128


def _def_symmetric_rule(prim, rule):
    """Use ``rule(g, ans, *primals, **params)`` as both JVP and VJP rule of a
    unary ``prim`` whose Jacobian is symmetric (diagonal for elementwise ops)."""
    defjvp(prim, rule)
    defvjp(prim, rule)


# ==========================================================================
# sigmoid

def _sigmoid_numpy(x):
    e = np.exp(-np.abs(x))
    return np.where(x >= 0, 1.0, e) / (1.0 + e)


sigmoid_p = Primitive("sigmoid")
sigmoid_p.reads = ((), True)
sigmoid_p.torch_name = "SigmoidBackward0"
defbatch_elementwise(sigmoid_p)


@sigmoid_p.def_impl
def _sigmoid_impl(x):
    """``1 / (1 + exp(-x))`` as ``e / (1 + e)`` with ``e = exp(-|x|)`` for ``x < 0``.

    Numba kernel (vectorized exp) for float32/float64 of any size: 4.2x,
    4.4x and 6.9x NumPy's ``exp``/``where`` formulation at 16, 1280 and 1e6
    elements.  Other dtypes use that formulation.
    """
    return _unary_impl("sigmoid_kernel", _sigmoid_numpy, 0, x)


sigmoid_p.def_abstract_eval(_same_aval)
sigmoid_p.lowering = Elementwise("fsigmoid({0})", accepts=same_float,
    exact="1.0 / (1.0 + math.exp(-{0})) if {0} >= 0 else math.exp({0}) / (1.0 + math.exp({0}))")
_def_symmetric_rule(sigmoid_p, lambda g, ans, x: sigmoid_grad(g, ans))


def sigmoid(x):
    """Logistic sigmoid ``1 / (1 + exp(-x))`` of a float array, stable at +-inf."""
    return sigmoid_p.bind(x)


# --------------------------------------------------------------------------
# sigmoid_grad(g, s) = g * s * (1 - s): the sigmoid derivative at s = sigmoid(x)

sigmoid_grad_p = Primitive("sigmoid_grad")
defbatch_elementwise(sigmoid_grad_p)


@sigmoid_grad_p.def_impl
def _sigmoid_grad_impl(g, s):
    """``g * s * (1 - s)`` in one Numba pass (NumPy takes three).

    1.0x NumPy at 16 elements, 1.3x at 1280, 2.4x at 1e6 (NumPy's
    temporaries are fresh pages there).  Broadcasting operands, mixed or
    non-float dtypes use NumPy.
    """
    return _binary_impl(
        "sigmoid_grad_kernel", lambda g, s: g * s * (1.0 - s), g, s
    )


sigmoid_grad_p.def_abstract_eval(_elementwise_aval(lambda g, s: g * s * (1.0 - s)))
sigmoid_grad_p.lowering = Elementwise("{0} * {1} * ({T}(1.0) - {1})", accepts=same_float)


def _sigmoid_grad_ds(ct, ans, g, s):
    # d/ds [g s (1 - s)] = g (1 - 2 s)
    return mul(ct, mul(g, sub(1.0, mul(2.0, s))))


defjvp(
    sigmoid_grad_p,
    lambda tg, ans, g, s: sigmoid_grad(tg, s),
    _sigmoid_grad_ds,
)
defvjp_broadcasting(
    sigmoid_grad_p,
    lambda ct, ans, g, s: sigmoid_grad(ct, s),
    _sigmoid_grad_ds,
)


def sigmoid_grad(g, s):
    """``g * s * (1 - s)``: ``g`` times the sigmoid derivative at ``s = sigmoid(x)``."""
    return sigmoid_grad_p.bind(g, s)


# ==========================================================================
# softplus

softplus_p = Primitive("softplus")
defbatch_elementwise(softplus_p)


@softplus_p.def_impl
def _softplus_impl(x):
    """``max(x, 0) + log1p(exp(-|x|))``: exact at +-1000 and +-inf.

    Numba kernel from 128 elements (1.5x NumPy at 1280 elements, 1.75x at
    1e6: the exp vectorizes, ``log1p`` stays a scalar call); NumPy's
    ``logaddexp(x, 0)`` below (the kernel runs at 0.7x at 16 elements) and
    for other dtypes.
    """
    return _unary_impl("softplus_kernel", lambda x: np.logaddexp(x, 0.0), _MIN_SIZE_SOFTPLUS, x)


softplus_p.def_abstract_eval(_same_aval)
_def_symmetric_rule(softplus_p, lambda g, ans, x: softplus_grad(g, x))


def softplus(x):
    """``log(1 + exp(x))`` of a float array, computed stably."""
    return softplus_p.bind(x)


# --------------------------------------------------------------------------
# softplus_grad(g, x) = g * sigmoid(x): the softplus derivative, fused

softplus_grad_p = Primitive("softplus_grad")
defbatch_elementwise(softplus_grad_p)


@softplus_grad_p.def_impl
def _softplus_grad_impl(g, x):
    """``g * sigmoid(x)`` in one Numba pass: 3.3x NumPy at 16 elements, 4.1x at
    1280, 6.6x at 1e6.  Broadcasting operands and other dtypes use NumPy."""
    return _binary_impl(
        "softplus_grad_kernel", lambda g, x: g * _sigmoid_numpy(x), g, x
    )


softplus_grad_p.def_abstract_eval(_elementwise_aval(lambda g, x: g * x))


def _softplus_grad_dx(ct, ans, g, x):
    # d/dx [g sigmoid(x)] = g sigmoid(x) (1 - sigmoid(x))
    return mul(ct, sigmoid_grad(g, sigmoid(x)))


defjvp(
    softplus_grad_p,
    lambda tg, ans, g, x: softplus_grad(tg, x),
    _softplus_grad_dx,
)
defvjp_broadcasting(
    softplus_grad_p,
    lambda ct, ans, g, x: softplus_grad(ct, x),
    _softplus_grad_dx,
)


def softplus_grad(g, x):
    """``g * sigmoid(x)``: ``g`` times the softplus derivative at ``x``."""
    return softplus_grad_p.bind(g, x)


# ==========================================================================
# relu: max(x, 0) with relu'(0) = 0 (maximum would split the tie, giving 0.5)

relu_p = Primitive("relu")
relu_p.reads = ((), True)
relu_p.torch_name = "ReluBackward0"
defbatch_elementwise(relu_p)


@relu_p.def_impl
def _relu_impl(x):
    """``np.maximum(x, 0)``: one SIMD NumPy pass; no kernel can beat it."""
    return np.maximum(x, 0)


relu_p.def_abstract_eval(_same_aval)
_def_symmetric_rule(relu_p, lambda g, ans, x: select(gt(x, 0), g, 0.0))


def relu(x):
    """``max(x, 0)`` elementwise; the derivative at 0 is 0 (NaN propagates)."""
    return relu_p.bind(x)


# ==========================================================================
# erf (for the exact gelu)

erf_p = Primitive("erf")
defbatch_elementwise(erf_p)


@erf_p.def_impl
def _erf_impl(x):
    """``math.erf`` in a Numba loop: NumPy has no erf ufunc, and
    ``np.vectorize(math.erf)`` is 3.4x slower at 16 elements, 11x at 1280,
    13x at 1e6.  Float32 arrays take vectorized polynomials instead
    (``erf32_kernel``: within one float32 ulp of ``math.erf``; 0.06 ms
    against 0.36 ms at 128x256)."""
    if type(x) is np.ndarray and x.dtype is _F32:
        return _unary_impl("erf32_kernel", None, 0, x)
    return _unary_impl("erf_kernel", _erf_other_dtypes, 0, x)


def _erf_other_dtypes(x):
    """erf of ints, bools, float16: the float64 kernel, then NumPy's float result type."""
    return _unary_impl("erf_kernel", None, 0, x.astype(np.float64)).astype(
        np.result_type(x.dtype, np.float16)
    )


erf_p.def_abstract_eval(_same_aval)
erf_p.lowering = Elementwise("ferf({0})", exact="math.erf({0})", accepts=same_float)
_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)
# erf'(x) = 2 / sqrt(pi) * exp(-x**2)
_def_symmetric_rule(erf_p, lambda g, ans, x: mul(g, mul(_TWO_OVER_SQRT_PI, exp(neg(square(x))))))


def erf(x):
    """The error function ``2/sqrt(pi) * integral_0^x exp(-t**2) dt``, elementwise."""
    return erf_p.bind(x)


# ==========================================================================
# gelu: x Phi(x) (exact) or its tanh approximation, in one pass each way
# (Hendrycks and Gimpel 2016; formulas in primitives/_nn_kernels.py)

_INV_SQRT2 = 1.0 / math.sqrt(2.0)
_INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)
_TANH_C = math.sqrt(2.0 / math.pi)
_TANH_A = 0.044715


def _gelu_numpy(x, approximate):
    if approximate:
        return 0.5 * x * (1.0 + np.tanh(_TANH_C * (x + _TANH_A * x ** 3)))
    return 0.5 * x * (1.0 + _erf_impl(x * _INV_SQRT2))


def _gelu_deriv_numpy(x, approximate):
    if approximate:
        t = np.tanh(_TANH_C * (x + _TANH_A * x ** 3))
        return 0.5 * (1.0 + t) + 0.5 * x * (1.0 - t * t) * (_TANH_C * (1.0 + 3.0 * _TANH_A * x * x))
    return 0.5 * (1.0 + _erf_impl(x * _INV_SQRT2)) + x * _INV_SQRT_2PI * np.exp(-0.5 * x * x)


gelu_p = Primitive("gelu")
gelu_p.reads = ((0,), False)
gelu_p.torch_name = "GeluBackward0"
defbatch_elementwise(gelu_p)


@gelu_p.def_impl
def _gelu_impl(x, approximate):
    """One Numba pass for float32/float64 arrays (NumPy's form takes five:
    at 128x256 float32, 0.14 ms against one kernel call's ~0.02 ms); other
    dtypes use the NumPy formula (float results, as NumPy's)."""
    if type(x) is np.ndarray and (x.dtype is _F32 or x.dtype is _F64):
        if approximate:
            name = "gelu_tanh_kernel"
        else:
            name = "gelu32_kernel" if x.dtype is _F32 else "gelu_kernel"
        return _unary_impl(name, None, 0, x)
    return _gelu_numpy(np.asarray(x), approximate)[()]


gelu_p.def_abstract_eval(_elementwise_aval(_gelu_numpy))
_def_symmetric_rule(gelu_p, lambda g, ans, x, approximate: gelu_grad(g, x, approximate))


def gelu(x, approximate=False):
    """Gaussian error linear unit ``x * Phi(x)``, elementwise.

    Parameters
    ----------
    x : array_like or tracer
        Float values (any shape).
    approximate : bool, optional
        False: the exact ``0.5 x (1 + erf(x / sqrt(2)))``; True: the tanh
        approximation ``0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x**3)))``
        (both from Hendrycks and Gimpel (2016), "Gaussian Error Linear Units").

    Returns
    -------
    array or tracer
        Same shape and dtype as ``x``.
    """
    return gelu_p.bind(x, approximate=bool(approximate))


# --------------------------------------------------------------------------
# gelu_grad(g, x) = g * gelu'(x)

gelu_grad_p = Primitive("gelu_grad")
gelu_grad_p.torch_name = "GeluBackwardBackward0"
defbatch_elementwise(gelu_grad_p)


@gelu_grad_p.def_impl
def _gelu_grad_impl(g, x, approximate):
    """``g * gelu'(x)`` in one Numba pass when ``g`` and ``x`` share a shape and
    a float dtype; else NumPy's formula (which broadcasts)."""
    if type(x) is np.ndarray and (x.dtype is _F32 or x.dtype is _F64):
        if approximate:
            name = "gelu_tanh_grad_kernel"
        else:
            name = "gelu32_grad_kernel" if x.dtype is _F32 else "gelu_grad_kernel"
        return _binary_impl(name, lambda g, x: g * _gelu_deriv_numpy(x, approximate), g, x)
    return (np.asarray(g) * _gelu_deriv_numpy(np.asarray(x), approximate))[()]


gelu_grad_p.def_abstract_eval(
    _elementwise_aval(lambda g, x, approximate: g * _gelu_deriv_numpy(x, approximate)))


def _gelu_second(x, approximate):
    """``gelu''(x)``, written with primitives (so it differentiates again).

    Exact form: ``phi(x) (2 - x**2)``.  Tanh form, with ``t = tanh(u)``,
    ``u' = c (1 + 3 a x**2)``, ``u'' = 6 c a x``:
    ``(1 - t**2) (u' + x (u'' / 2 - t u'**2))``.
    """
    if approximate:
        x2 = square(x)
        t = tanh(mul(_TANH_C, add(x, mul(_TANH_A, mul(x, x2)))))
        du = mul(_TANH_C, add(1.0, mul(3.0 * _TANH_A, x2)))
        inner = sub(mul(3.0 * _TANH_C * _TANH_A, x), mul(t, square(du)))
        return mul(sub(1.0, square(t)), add(du, mul(x, inner)))
    phi = mul(_INV_SQRT_2PI, exp(mul(-0.5, square(x))))
    return mul(phi, sub(2.0, square(x)))


def _gelu_grad_dx(ct, ans, g, x, approximate):
    return mul(ct, mul(g, _gelu_second(x, approximate)))


defjvp(
    gelu_grad_p,
    lambda tg, ans, g, x, approximate: gelu_grad(tg, x, approximate),
    _gelu_grad_dx,
)
defvjp_broadcasting(
    gelu_grad_p,
    lambda ct, ans, g, x, approximate: gelu_grad(ct, x, approximate),
    _gelu_grad_dx,
)


def gelu_grad(g, x, approximate=False):
    """``g * gelu'(x)``: ``g`` times the derivative of :func:`gelu` at ``x``."""
    return gelu_grad_p.bind(g, x, approximate=bool(approximate))


# ==========================================================================
# softmax over `axes`

def _softmax_numpy(x, axis):
    m = np.max(x, axis=axis, keepdims=True)
    e = np.exp(x - np.where(np.isfinite(m), m, 0))
    return e / np.sum(e, axis=axis, keepdims=True)


softmax_p = Primitive("softmax")
softmax_p.reads = ((), True)
softmax_p.torch_name = "SoftmaxBackward0"
defbatch_axes(softmax_p)


@softmax_p.def_impl
def _softmax_impl(x, *, axes):
    """``exp(x - max) / sum(exp(x - max))`` over ``axes``.

    One Numba kernel per row (max, exp, sum, scale while the row is in
    cache): 7.6x NumPy at (8, 2), 3.6x at (128, 10), 2.5x at (1000, 1000),
    2.1x at (1, 1e6).
    """
    return _rowwise_impl("softmax_kernel", _softmax_numpy, axes, x)


softmax_p.def_abstract_eval(_same_aval)
# The softmax Jacobian diag(y) - y y^T is symmetric: the JVP and the VJP are
# the same product.
_def_symmetric_rule(softmax_p, lambda g, ans, x, *, axes: softmax_grad(g, ans, axes))


def softmax(x, axes):
    """``exp(x) / sum(exp(x))`` over ``axes`` (a sorted tuple of non-negative ints)."""
    return softmax_p.bind(x, axes=tuple(axes))


# --------------------------------------------------------------------------
# softmax_grad(g, y) = y * (g - sum(g * y)): the softmax JVP/VJP at y = softmax(x)

softmax_grad_p = Primitive("softmax_grad")
defbatch_axes(softmax_grad_p)


@softmax_grad_p.def_impl
def _softmax_grad_impl(g, y, *, axes):
    """``y * (g - sum(g * y, axes))`` in one Numba kernel per row.

    Against NumPy's three passes: 2.9x at (8, 2) and (128, 10), 2.4x at
    (1000, 1000), 1.2x at (1, 1e6).
    """
    return _rowwise_impl("softmax_grad_kernel", _softmax_grad_numpy, axes, g, y)


def _softmax_grad_numpy(g, y, axes):
    return y * (g - np.sum(g * y, axis=axes, keepdims=True))


softmax_grad_p.def_abstract_eval(_same_aval)


def _softmax_grad_dy_jvp(ty, ans, g, y, *, axes):
    # d/dy [y (g - S(g y))] ty = ty (g - S(g y)) - y S(g ty)
    return sub(mul(ty, sub(g, _bsum(mul(g, y), axes))), mul(y, _bsum(mul(g, ty), axes)))


def _softmax_grad_dy_vjp(ct, ans, g, y, *, axes):
    # transpose of the above: ct (g - S(g y)) - g S(ct y)
    return sub(mul(ct, sub(g, _bsum(mul(g, y), axes))), mul(g, _bsum(mul(ct, y), axes)))


defjvp(
    softmax_grad_p,
    lambda tg, ans, g, y, *, axes: softmax_grad(tg, y, axes),
    _softmax_grad_dy_jvp,
)
defvjp(
    softmax_grad_p,
    lambda ct, ans, g, y, *, axes: softmax_grad(ct, y, axes),
    _softmax_grad_dy_vjp,
)


def softmax_grad(g, y, axes):
    """``y * (g - sum(g * y, axes))``: the softmax JVP (and VJP) at ``y = softmax(x)``."""
    return softmax_grad_p.bind(g, y, axes=tuple(axes))


# ==========================================================================
# log_softmax over `axes`

def _log_softmax_numpy(x, axis):
    m = np.max(x, axis=axis, keepdims=True)
    shifted = x - np.where(np.isfinite(m), m, 0)
    return shifted - np.log(np.sum(np.exp(shifted), axis=axis, keepdims=True))


log_softmax_p = Primitive("log_softmax")
log_softmax_p.reads = ((), True)
log_softmax_p.torch_name = "LogSoftmaxBackward0"
defbatch_axes(log_softmax_p)


@log_softmax_p.def_impl
def _log_softmax_impl(x, *, axes):
    """``(x - max) - log(sum(exp(x - max)))`` over ``axes``, one kernel per row.

    Against the same NumPy formulation: 7.9x at (8, 2), 3.6x at (128, 10),
    3.0x at (1000, 1000), 1.9x at (1, 1e6).
    """
    return _rowwise_impl("log_softmax_kernel", _log_softmax_numpy, axes, x)


log_softmax_p.def_abstract_eval(_same_aval)
# Jacobian J = I - 1 p^T with p = exp(y) = softmax(x): J t = t - sum(p t) and
# J^T c = c - p sum(c), two different fused products.
defjvp(log_softmax_p, lambda g, ans, x, *, axes: log_softmax_jvp(g, ans, axes))
defvjp(log_softmax_p, lambda ct, ans, x, *, axes: log_softmax_vjp(ct, ans, axes))


def log_softmax(x, axes):
    """``x - logsumexp(x, axes)`` (keeping dims), computed stably."""
    return log_softmax_p.bind(x, axes=tuple(axes))


# --------------------------------------------------------------------------
# log_softmax_vjp(c, y) = c - exp(y) * sum(c)

log_softmax_vjp_p = Primitive("log_softmax_vjp")
defbatch_axes(log_softmax_vjp_p)


@log_softmax_vjp_p.def_impl
def _log_softmax_vjp_impl(c, y, *, axes):
    """``c - exp(y) * sum(c, axes)`` in one Numba kernel per row.

    Against NumPy: 2.9x at (8, 2), 2.5x at (128, 10), 3.2x at (1000, 1000),
    2.9x at (1, 1e6).
    """
    return _rowwise_impl("log_softmax_vjp_kernel", _log_softmax_vjp_numpy, axes, c, y)


def _log_softmax_vjp_numpy(c, y, axes):
    return c - np.exp(y) * np.sum(c, axis=axes, keepdims=True)


log_softmax_vjp_p.def_abstract_eval(_same_aval)


def _log_softmax_vjp_dy(t, ans, c, y, *, axes):
    # d/dy_i [c_i - exp(y_i) S(c)] = -exp(y_i) S(c): diagonal, so JVP = VJP
    return neg(mul(t, mul(exp(y), _bsum(c, axes))))


defjvp(
    log_softmax_vjp_p,
    lambda tc, ans, c, y, *, axes: log_softmax_vjp(tc, y, axes),
    _log_softmax_vjp_dy,
)
defvjp(
    log_softmax_vjp_p,
    lambda ct, ans, c, y, *, axes: log_softmax_jvp(ct, y, axes),
    _log_softmax_vjp_dy,
)


def log_softmax_vjp(c, y, axes):
    """``c - exp(y) * sum(c, axes)``: the log-softmax VJP at ``y = log_softmax(x)``."""
    return log_softmax_vjp_p.bind(c, y, axes=tuple(axes))


# --------------------------------------------------------------------------
# log_softmax_jvp(t, y) = t - sum(exp(y) * t)

log_softmax_jvp_p = Primitive("log_softmax_jvp")
defbatch_axes(log_softmax_jvp_p)


@log_softmax_jvp_p.def_impl
def _log_softmax_jvp_impl(t, y, *, axes):
    """``t - sum(exp(y) * t, axes)`` in one Numba kernel per row.

    Against NumPy: 3.1x at (8, 2), 2.4x at (128, 10), 3.4x at (1000, 1000),
    2.5x at (1, 1e6).
    """
    return _rowwise_impl("log_softmax_jvp_kernel", _log_softmax_jvp_numpy, axes, t, y)


def _log_softmax_jvp_numpy(t, y, axes):
    return t - np.sum(np.exp(y) * t, axis=axes, keepdims=True)


log_softmax_jvp_p.def_abstract_eval(_same_aval)


defjvp(
    log_softmax_jvp_p,
    lambda tt, ans, t, y, *, axes: log_softmax_jvp(tt, y, axes),
    # d/dy_j [t_i - sum_k exp(y_k) t_k] = -exp(y_j) t_j
    lambda ty, ans, t, y, *, axes: neg(_bsum(mul(mul(exp(y), t), ty), axes)),
)
defvjp(
    log_softmax_jvp_p,
    lambda ct, ans, t, y, *, axes: log_softmax_vjp(ct, y, axes),
    lambda ct, ans, t, y, *, axes: neg(mul(mul(exp(y), t), _bsum(ct, axes))),
)


def log_softmax_jvp(t, y, axes):
    """``t - sum(exp(y) * t, axes)``: the log-softmax JVP at ``y = log_softmax(x)``."""
    return log_softmax_jvp_p.bind(t, y, axes=tuple(axes))


# ==========================================================================
# logsumexp over `axes` (the axes are removed)

def _logsumexp_numpy(x, axis):
    m = np.max(x, axis=axis, keepdims=True)
    m = np.where(np.isfinite(m), m, 0)
    with np.errstate(divide="ignore"):
        s = np.log(np.sum(np.exp(x - m), axis=axis, keepdims=True))
    return (s + m).reshape([d for i, d in enumerate(x.shape) if i not in axis])


logsumexp_p = Primitive("logsumexp")
logsumexp_p.torch_name = "LogsumexpBackward0"
defbatch_axes(logsumexp_p)


@logsumexp_p.def_impl
def _logsumexp_impl(x, *, axes):
    """``max + log(sum(exp(x - max)))`` over ``axes``, one kernel per row.

    A row of all ``-inf`` gives ``-inf``; a row holding ``+inf`` gives ``inf``.
    Against NumPy's ``max``/``exp``/``sum``/``log``: 9.7x at (8, 2), 4.2x at
    (128, 10), 2.4x at (1000, 1000), 2.8x at (1, 1e6).
    """
    if _trailing_rows(x, axes):
        k = x.ndim - len(axes)
        out = np.empty(x.shape[:k], x.dtype)
        if k == 1 and x.ndim == 2:
            (_nnk or _kernels()).logsumexp_kernel(x, out)
            return out
        (_nnk or _kernels()).logsumexp_kernel(x.reshape(out.size, -1), out.reshape(-1))
        return out if k else out[()]
    x = np.asarray(x)
    if x.size == 0:  # the sum of no terms is 0: log(0) = -inf
        return np.full(_logsumexp_aval(x, axes=axes).shape, -np.inf, x.dtype)[()]
    if not _same_float(x):
        return _logsumexp_numpy(x, axes)[()]
    rows, tshape = _to_rows(x, axes)
    out = np.empty(rows.shape[0], x.dtype)
    (_nnk or _kernels()).logsumexp_kernel(rows, out)
    return out.reshape(tshape[: x.ndim - len(axes)])[()]


@logsumexp_p.def_abstract_eval
def _logsumexp_aval(x, *, axes):
    return ShapedArray(tuple(s for i, s in enumerate(shape_of(x)) if i not in axes), dtype_of(x))


# d logsumexp(x) = softmax(x) . dx
defjvp(
    logsumexp_p,
    lambda t, ans, x, *, axes: reduce_sum(mul(t, softmax(x, axes)), axes),
)
defvjp(logsumexp_p, lambda ct, ans, x, *, axes: logsumexp_grad(ct, x, axes))


def logsumexp(x, axes):
    """``log(sum(exp(x), axes))``, computed stably; ``axes`` are removed."""
    return logsumexp_p.bind(x, axes=tuple(axes))


# --------------------------------------------------------------------------
# logsumexp_grad(c, x) = c * softmax(x), c broadcast over `axes`

logsumexp_grad_p = Primitive("logsumexp_grad")
defbatch_axes(logsumexp_grad_p)


@logsumexp_grad_p.def_impl
def _logsumexp_grad_impl(c, x, *, axes):
    """``c * exp(x - logsumexp(x))`` as ``c * exp(x - max) / sum(exp(x - max))``.

    One Numba kernel per row (the softmax kernel, scaled by ``c``).  Using
    the shifted exponentials rather than ``exp(x - out)`` avoids the rounding
    of ``out``: at ``[1000, 1000]`` the weights are exactly 0.5, where
    ``exp(x - out)`` gives 0.5000000000000275.  Against NumPy's (less
    accurate) ``c * exp(x - out)``, given ``out``: 1.8x at (8, 2), 1.6x at
    (128, 10), 2.8x at (1000, 1000), 2.2x at (1, 1e6).
    """
    if (
        _trailing_rows(x, axes)
        and type(c) is np.ndarray
        and c.dtype is x.dtype
        and c.flags.c_contiguous
        and c.shape == x.shape[: x.ndim - len(axes)]
    ):
        out = np.empty(x.shape, x.dtype)
        if c.ndim == 1 and x.ndim == 2:
            (_nnk or _kernels()).scaled_softmax_kernel(c, x, out)
        else:
            rows = (c.size, -1)
            (_nnk or _kernels()).scaled_softmax_kernel(
                c.reshape(-1), x.reshape(rows), out.reshape(rows)
            )
        return out
    c = np.asarray(c)
    x = np.asarray(x)
    if x.size == 0:
        return np.zeros(x.shape, x.dtype)
    if not _same_float(c, x):
        return c.reshape(_kept_shape(x.shape, axes)) * _softmax_numpy(x, axes)
    rows, tshape = _to_rows(x, axes)
    out = np.empty(rows.shape, x.dtype)
    (_nnk or _kernels()).scaled_softmax_kernel(c.ravel(), rows, out)
    return _from_rows(out, tshape, axes)


@logsumexp_grad_p.def_abstract_eval
def _logsumexp_grad_aval(c, x, *, axes):
    return ShapedArray(shape_of(x), dtype_of(x))


def _lse_grad_dx(t, ans, c, x, *, axes):
    # d/dx [c p] = c * softmax_grad(t, p) = softmax_grad(c t, p), p = softmax(x),
    # since c is constant along `axes`; symmetric, so also the VJP
    return softmax_grad(mul(_expand_reduced(c, shape_of(x), axes), t), softmax(x, axes), axes)


defjvp(
    logsumexp_grad_p,
    lambda tc, ans, c, x, *, axes: logsumexp_grad(tc, x, axes),
    _lse_grad_dx,
)
defvjp(
    logsumexp_grad_p,
    lambda ct, ans, c, x, *, axes: reduce_sum(mul(ct, softmax(x, axes)), axes),
    _lse_grad_dx,
)


def logsumexp_grad(c, x, axes):
    """``c * softmax(x, axes)`` with ``c`` of the reduced shape broadcast over ``axes``.

    This is the logsumexp VJP of the cotangent ``c``: ``c * exp(x - logsumexp(x))``.
    """
    return logsumexp_grad_p.bind(c, x, axes=tuple(axes))


# --------------------------------------------------------------------------
# lstm_cell(gates, c) = (h, c2): one LSTM step after the gate projections.
# gates (..., 4H) hold the pre-activations of the input, forget and output
# gates and the candidate, in that order (i, f, o, g); c (..., H) is the cell.
#   i, f, o = sigmoid(.), g = tanh(.);  c2 = f c + i g;  h = o tanh(c2)
# (Hochreiter and Schmidhuber 1997, with the forget gate of Gers et al. 2000:
# PyTorch's nn.LSTM cell, whose gate order is i, f, g, o.)
lstm_cell_p = Primitive("lstm_cell", multiple_results=True)
lstm_cell_p.torch_name = "LstmCellBackward0"


def _lstm_split(x):
    n = shape_of(x)[-1] // 4
    return ops.split(x, (n, n, n, n), len(shape_of(x)) - 1)


def _lstm_parts(gates, c):
    """``(i, f, o, g, c2, t = tanh(c2))`` with primitives (the rules' form)."""
    ai, af, ao, ag = _lstm_split(gates)
    i, f, o, g = sigmoid(ai), sigmoid(af), sigmoid(ao), ops.tanh(ag)
    c2 = ops.add(ops.mul(f, c), ops.mul(i, g))
    return i, f, o, g, c2, ops.tanh(c2)


@lstm_cell_p.def_impl
def _lstm_cell_impl(gates, c):
    """One fused Numba pass per row for C-contiguous float32/float64 operands of
    matching leading shape (the PyTorch layer's LSTM steps); the primitive
    composition otherwise."""
    gates, c = np.asarray(gates), np.asarray(c)
    if (_same_float(gates, c) and gates.shape[:-1] == c.shape[:-1] and gates.ndim >= 1
            and gates.shape[-1] == 4 * c.shape[-1] and c.size):
        n = c.shape[-1]
        g2 = np.ascontiguousarray(gates).reshape(-1, 4 * n)
        c_2 = np.ascontiguousarray(c).reshape(-1, n)
        h, c2 = np.empty_like(c_2), np.empty_like(c_2)
        _kernels().lstm_cell_kernel(g2, c_2, h, c2)
        return [h.reshape(c.shape), c2.reshape(c.shape)]
    n = c.shape[-1]
    sig = _sigmoid_numpy(gates[..., :3 * n])
    i, f, o = sig[..., :n], sig[..., n:2 * n], sig[..., 2 * n:]
    c2 = f * c + i * np.tanh(gates[..., 3 * n:])
    return [o * np.tanh(c2), c2]


@lstm_cell_p.def_abstract_eval
def _lstm_cell_aval(gates, c):
    if gates.shape[-1] != 4 * c.shape[-1]:
        raise ValueError(f"lstm_cell: gates of shape {gates.shape} need 4 x the cell's "
                         f"last axis {c.shape}")
    shape = np.broadcast_shapes(gates.shape[:-1], c.shape[:-1]) + (c.shape[-1],)
    dt = np.result_type(gates.dtype, c.dtype)
    return [ShapedArray(shape, dt), ShapedArray(shape, dt)]


def _lstm_cell_jvp(primals, tangents):
    gates, c = primals
    tg, tc = tangents
    h, c2 = lstm_cell_p.bind(gates, c)
    i, f, o, g, _, t = _lstm_parts(gates, c)
    t_c2 = None
    if tg is not None:
        ti, tf, to, tgg = _lstm_split(tg)
        ti = sigmoid_grad(ti, i)
        tf = sigmoid_grad(tf, f)
        to = sigmoid_grad(to, o)
        tgg = ops.tanh_grad(tgg, g)
        t_c2 = ops.add(ops.mul(tf, c), ops.add(ops.mul(ti, g), ops.mul(i, tgg)))
    if tc is not None:
        t_c2 = ops.mul(f, tc) if t_c2 is None else ops.add(t_c2, ops.mul(f, tc))
    t_h = ops.mul(o, ops.tanh_grad(t_c2, t))
    if tg is not None:
        t_h = ops.add(t_h, ops.mul(to, t))
    return [h, c2], [ops.match_aval(t_h, h), ops.match_aval(t_c2, c2)]


_lstm_memo = threading.local()


def _lstm_cell_cotangents(ct, gates, c):
    """``(d_gates, d_c)``: the fused kernel on concrete C-contiguous float arrays (the
    eager backward pass), the same formulas with primitives otherwise (so higher
    derivatives and transforms of the backward pass work).  The two per-argument
    rules of one node call this in turn with the same operands: the kernel's
    pair is kept for the second call (by identity, in this thread)."""
    ct_h, ct_c = ct
    memo = getattr(_lstm_memo, "last", None)
    if memo is not None and memo[0] is gates and memo[1] is c and memo[2] is ct_h and (
            memo[3] is ct_c):
        _lstm_memo.last = None
        return memo[4]
    plain = all(type(v) is np.ndarray for v in (gates, c, ct_h, ct_c) if v is not None)
    if plain and _same_float(gates, c) and gates.shape[:-1] == c.shape[:-1] and c.size and (
            all(v is None or (v.dtype == c.dtype and v.shape == c.shape)
                for v in (ct_h, ct_c))):
        n = c.shape[-1]
        zero = np.zeros(c.shape, dtype=c.dtype)
        d_g = np.empty(gates.shape, dtype=c.dtype)  # C order: the kernel writes them through
        d_c = np.empty(c.shape, dtype=c.dtype)  # reshapes (empty_like keeps a view's order)
        _kernels().lstm_cell_grad_kernel(
            np.ascontiguousarray(gates).reshape(-1, 4 * n), np.ascontiguousarray(c).reshape(-1, n),
            np.ascontiguousarray(zero if ct_h is None else ct_h).reshape(-1, n),
            np.ascontiguousarray(zero if ct_c is None else ct_c).reshape(-1, n),
            d_g.reshape(-1, 4 * n), d_c.reshape(-1, n))
        _lstm_memo.last = (gates, c, ct_h, ct_c, (d_g, d_c))
        return d_g, d_c
    i, f, o, g, _, t = _lstm_parts(gates, c)
    d_c2 = ct_c
    if ct_h is not None:
        via_h = ops.tanh_grad(ops.mul(ct_h, o), t)
        d_c2 = via_h if d_c2 is None else ops.add(d_c2, via_h)
    if d_c2 is None:
        d_c2 = ops.zeros_like(ops.mul(f, c))
    d_i = sigmoid_grad(ops.mul(d_c2, g), i)
    d_f = sigmoid_grad(ops.mul(d_c2, c), f)
    d_o = (ops.zeros_like(o) if ct_h is None else sigmoid_grad(ops.mul(ct_h, t), o))
    d_g = ops.tanh_grad(ops.mul(d_c2, i), g)
    return ops.concatenate([d_i, d_f, d_o, d_g], len(shape_of(gates)) - 1), ops.mul(d_c2, f)


defvjp_broadcasting(
    lstm_cell_p,
    lambda ct, ans, gates, c: _lstm_cell_cotangents(ct, gates, c)[0],
    lambda ct, ans, gates, c: _lstm_cell_cotangents(ct, gates, c)[1],
)
lstm_cell_p.jvp = _lstm_cell_jvp
lstm_cell_p.reads = ((0, 1), False)


def _lstm_cell_batch(args, bdims):
    (gates, c), (dg, dc) = args, bdims
    size = shape_of(gates)[dg] if dg is not None else shape_of(c)[dc]
    gates = bdim_to_front(gates, dg, size)
    c = bdim_to_front(c, dc, size)
    return lstm_cell_p.bind(gates, c), [0, 0]


lstm_cell_p.batch = _lstm_cell_batch


def lstm_cell(gates, c):
    """One LSTM step after the gate projections: ``(h, c2)``.

    Parameters
    ----------
    gates : array or tracer
        ``(..., 4 H)``: pre-activations of the input, forget and output gates
        and of the candidate, in that order.
    c : array or tracer
        ``(..., H)``: the cell state.

    Returns
    -------
    list of two arrays or tracers
        ``h = o * tanh(c2)`` and ``c2 = f * c + i * g``, with ``i, f, o``
        the sigmoids and ``g`` the tanh of the gate blocks.  The derivative
        rules are the same formulas written with primitives (any order); the
        eager backward pass on concrete arrays runs them as one fused
        kernel.
    """
    return lstm_cell_p.bind(gates, c)
