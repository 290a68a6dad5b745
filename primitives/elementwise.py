"""Elementwise primitives: unary math, broadcasting binary math, selection.

Each block declares one primitive and, right below it, its impl, abstract
eval, JVP and VJP.  Unary derivatives are given once as ``f'(x)`` (written
with primitives) by :func:`_def_derivative`, which sets both the JVP
(``g * f'(x)``) and the VJP (``ct * f'(x)``).  Broadcasting binary primitives
declare their VJP through :func:`~.structural.defvjp_broadcasting`, which applies
``unbroadcast`` to every cotangent.

Impls (chosen by measurement; see the kernel table in the README): ``exp``,
``sin``, ``cos`` and ``tanh`` run the vectorized Numba kernels of
:mod:`.vecmath` on float arrays of 128+ elements (NumPy's float64 versions
are scalar C-library loops on these machines).  Single-pass arithmetic
(add, mul, ...) stays with NumPy's SIMD ufunc loops, which a Numba loop only
matches.  Fused multi-step derivative formulas (for example ``tanh_grad``)
are Numba kernels declared as primitives of their own.
"""
import builtins

import numpy as np

from .core import (
    Primitive,
    ShapedArray,
    def_nondifferentiable,
    defjvp,
    defvjp,
    dtype_of,
    shape_of,
)
from . import ops, vecmath
from .batching import defbatch_elementwise, elementwise_batch_rule
from .kernels import FLOAT_DTYPES, kernel
from .lowering import Elementwise, float_only, same_float
from .structural import convert_element_type, defvjp_broadcasting

__all__ = [
    "neg", "abs", "sign", "exp", "exp2", "expm1", "log", "log2", "log10",
    "log1p", "sqrt", "cbrt", "sin", "cos", "tan", "arcsin", "arccos",
    "arctan", "sinh", "cosh", "tanh", "tanh_grad", "arcsinh", "arccosh",
    "arctanh", "sin_grad", "cos_grad", "floor", "ceil", "round", "add", "sub", "mul", "div", "pow",
    "integer_pow", "maximum", "minimum", "arctan2", "hypot", "mod",
    "logaddexp", "select", "clip", "eq", "ne", "lt", "le", "gt", "ge",
    "logical_and", "logical_or", "logical_xor", "logical_not", "isnan",
    "isfinite", "isinf", "floor_divide", "stop_gradient", "square",
    "reciprocal", "real", "imag", "conj", "complex",
]

_LN2 = float(np.log(2.0))
_LN10 = float(np.log(10.0))


def _elementwise_aval(np_fn):
    """Abstract eval of an elementwise op: NumPy's broadcast and promotion."""

    def rule(*avals, **params):
        shapes = [a.shape for a in avals if isinstance(a, ShapedArray)]
        samples = [
            np.zeros((), a.dtype) if isinstance(a, ShapedArray) else a for a in avals
        ]
        with np.errstate(all="ignore"):
            dtype = np.result_type(np_fn(*samples, **params))
        return ShapedArray(np.broadcast_shapes(*shapes), dtype)

    return rule


def _small_arrays_to_numpy(np_fn, kernel_fn):
    """Impl calling ``np_fn`` straight away on arrays too small for a kernel.

    ``kernel_fn`` (a :mod:`.vecmath` function) sends such arrays to NumPy
    itself, after two more Python calls; this check keeps them off the
    per-operation path of small-array workloads.  The first argument decides:
    the kernels run only on same-shape operands.
    """

    def impl(x, *rest):
        if type(x) is not np.ndarray or x.size < vecmath.MIN_KERNEL_SIZE:
            return np_fn(x, *rest)
        return kernel_fn(x, *rest)

    impl.__name__ = impl.__qualname__ = getattr(kernel_fn, "__name__", "impl")
    impl.__doc__ = kernel_fn.__doc__
    return impl


def _primitive(name, np_fn, kernel=None):
    """An elementwise primitive computing NumPy's ``np_fn``.

    With ``kernel`` (a :mod:`.vecmath` function), arrays of
    ``vecmath.MIN_KERNEL_SIZE`` elements or more run through it.
    """
    prim = Primitive(name)
    prim.def_impl(np_fn if kernel is None else _small_arrays_to_numpy(np_fn, kernel))
    prim.def_abstract_eval(_elementwise_aval(np_fn))
    prim.batch = elementwise_batch_rule(prim)
    return prim


def _def_derivative(prim, deriv):
    """Set JVP and VJP of a unary elementwise ``prim`` from ``deriv(ans, x)``."""
    defjvp(prim, lambda g, ans, x: mul(g, deriv(ans, x)))
    defvjp(prim, lambda ct, ans, x: mul(ct, deriv(ans, x)))


def _def_fused_derivative(prim, fn, deriv, on_value=False):
    """As :func:`_def_derivative`, the product ``g * deriv(ans, x)`` fused into
    one pass (``ops.unary_grad(g, x, fn)``, or of ``ans`` with ``on_value``:
    the same formula) for real ``x``; complex ``x`` keeps the composite
    ``mul(g, deriv(ans, x))``."""

    def rule(g, ans, x):
        if _is_complex(x):
            return mul(g, deriv(ans, x))
        return ops.unary_grad(g, ans if on_value else x, fn)

    defjvp(prim, rule)
    defvjp(prim, rule)


# code generation (Primitive.lowering): the range check of the fast sine and cosine
_TRIG_CHECK = "not (-TRIG_MAX <= {0} <= TRIG_MAX)"
_TRIG_CHECK_1 = "not (-TRIG_MAX <= {1} <= TRIG_MAX)"


def _not_bool(in_dtypes, out_dtype, params):
    return out_dtype.kind != "b"


def _float_operands(in_dtypes, out_dtype, params):
    return all(d.kind == "f" for d in in_dtypes)


# ==========================================================================
# unary math

neg_p = _primitive("neg", np.negative)
neg_p.lowering = Elementwise("-{0}")
neg_p.reads = ((), False)
neg_p.torch_name = "NegBackward0"
defjvp(neg_p, lambda g, ans, x: neg(g))
defvjp(neg_p, lambda ct, ans, x: neg(ct))


def neg(x):
    """``-x`` elementwise."""
    return neg_p.bind(x)


def _is_complex(x):
    return np.dtype(dtype_of(x)).kind == "c"


def _abs_unit(x):
    """``conj(x) / |x|`` for complex ``x``, 0 where ``x == 0`` (JAX's value).

    ``|x|`` is recomputed (the rule reads ``x`` only, as ``abs_p.reads`` says).
    """
    return conj(_safe_div(x, abs(x)))


abs_p = _primitive("abs", np.abs)
abs_p.lowering = Elementwise("abs({0})")
abs_p.reads = ((0,), False)
abs_p.torch_name = "AbsBackward0"
# Real x: abs'(x) = sign(x), 0 at 0.  Complex x (a real result):
# d|x| = Re(conj(x) dx) / |x|, whose transpose sends a real cotangent c to
# c * conj(x) / |x|; both are 0 at x = 0, as in JAX.
defjvp(
    abs_p,
    lambda g, ans, x: real(mul(g, _abs_unit(x))) if _is_complex(x)
    else mul(g, sign(x)),
)
defvjp(
    abs_p,
    lambda ct, ans, x: mul(ct, _abs_unit(x)) if _is_complex(x)
    else mul(ct, sign(x)),
)


def abs(x):  # noqa: A001 - NumPy's name
    """``|x|`` elementwise; the derivative at 0 is 0.

    For complex ``x`` the result is real (float64 for complex128, float32
    for complex64); its derivative is ``Re(conj(x) dx) / |x|``, and the
    gradient of ``abs`` at ``x`` is ``conj(x) / |x|`` (JAX's convention).
    """
    return abs_p.bind(x)


# --------------------------------------------------------------------------
# complex parts (primitives "real_part", "imag_part", "conjugate": the torch
# layer's method table uses the plain names).  Cotangents of complex values follow JAX's convention: a
# VJP rule is the transpose of the tangent map for the real bilinear pairing
# <a, b> = Re(sum(a * b)) (no conjugation), so a holomorphic f has VJP
# ct * f'(x), exactly as for real x, and the gradient of a real-valued
# f(x + iy) is df/dx - i df/dy.


def _real_impl(x):
    x = np.asarray(x)
    return np.real(x).copy()[()] if x.dtype.kind == "c" else x


real_p = _primitive("real_part", _real_impl)
real_p.reads = ((), False)
defjvp(real_p, lambda g, ans, x: real(g))
# transpose of Re: a real cotangent c goes back as c + 0j
defvjp(real_p, lambda ct, ans, x: convert_element_type(ct, dtype_of(x)))


def real(x):
    """Real part elementwise (NumPy's ``real``): float for complex ``x``,
    ``x`` itself for real ``x``.  Its VJP sends ``c`` to ``c + 0j``."""
    if not _is_complex(x) and hasattr(x, "dtype"):
        return x
    return real_p.bind(x)


def _imag_impl(x):
    x = np.asarray(x)
    return np.imag(x).copy()[()] if x.dtype.kind == "c" else np.zeros_like(x)[()]


imag_p = _primitive("imag_part", _imag_impl)
imag_p.reads = ((), False)
defjvp(imag_p, lambda g, ans, x: imag(g) if _is_complex(x) else None)
# transpose of Im: Re(Im(t) c) = Re(t * (-i c)), so c goes back as -i c
defvjp(
    imag_p,
    lambda ct, ans, x: mul(convert_element_type(ct, dtype_of(x)), -1j)
    if _is_complex(x) else None,
)


def imag(x):
    """Imaginary part elementwise (NumPy's ``imag``): float for complex
    ``x``, zeros (no derivative) for real ``x``.  Its VJP sends ``c`` to
    ``-1j * c`` (JAX's convention)."""
    return imag_p.bind(x)


def _conj_impl(x):
    x = np.asarray(x)
    return np.conjugate(x)[()] if x.dtype.kind == "c" else x


conj_p = _primitive("conjugate", _conj_impl)
conj_p.reads = ((), False)
defjvp(conj_p, lambda g, ans, x: conj(g))
defvjp(conj_p, lambda ct, ans, x: conj(ct))


def conj(x):
    """Complex conjugate elementwise; ``x`` itself for real ``x``.  Linear
    over the reals: its JVP and VJP conjugate the tangent and cotangent."""
    if not _is_complex(x) and hasattr(x, "dtype"):
        return x
    return conj_p.bind(x)


def complex(x, y):  # noqa: A001 - lax's name
    """``x + 1j * y`` for real ``x`` and ``y``, with broadcasting.

    Parameters
    ----------
    x, y : array, tracer or scalar
        Real (float, integer or bool) parts, broadcast together.

    Returns
    -------
    array or tracer
        complex64 when both parts are at most float32, else complex128
        (NumPy's promotion with complex64).  Differentiable in both parts: a
        cotangent ``c`` goes back as ``Re(c)`` to ``x`` and ``-Im(c)`` to
        ``y`` (JAX's convention).

    Raises
    ------
    TypeError
        If a part is complex.
    """
    if _is_complex(x) or _is_complex(y):
        raise TypeError(
            "complex(x, y) takes real arrays (the real and imaginary parts); got dtypes "
            f"{dtype_of(x)} and {dtype_of(y)}. Use x + 1j * y for complex operands."
        )
    dtype = np.result_type(dtype_of(x), dtype_of(y), np.complex64)
    return add(convert_element_type(x, dtype), mul(convert_element_type(y, dtype), 1j))


exp_p = _primitive("exp", np.exp, vecmath.exp)
exp_p.lowering = Elementwise("fexp({0})", exact="math.exp({0})", accepts=float_only)
exp_p.reads = ((), True)
exp_p.torch_name = "ExpBackward0"
_def_derivative(exp_p, lambda ans, x: ans)


def exp(x):
    """``e**x`` elementwise."""
    return exp_p.bind(x)


exp2_p = _primitive("exp2", np.exp2)
exp2_p.reads = ((), True)
_def_fused_derivative(exp2_p, "exp2", lambda ans, x: mul(ans, _LN2), on_value=True)


def exp2(x):
    """``2**x`` elementwise."""
    return exp2_p.bind(x)


expm1_p = _primitive("expm1", np.expm1)
expm1_p.lowering = Elementwise("fexpm1({0})", exact="math.expm1({0})", accepts=float_only)
expm1_p.reads = ((), True)
_def_fused_derivative(expm1_p, "expm1", lambda ans, x: add(ans, 1.0), on_value=True)


def expm1(x):
    """``exp(x) - 1`` elementwise, accurate for small ``x``."""
    return expm1_p.bind(x)


log_p = _primitive("log", np.log)
log_p.lowering = Elementwise("flog({0})", exact="math.log({0})", accepts=float_only)
log_p.reads = ((0,), False)
log_p.torch_name = "LogBackward0"
_def_derivative(log_p, lambda ans, x: reciprocal(x))


def log(x):
    """Natural logarithm elementwise."""
    return log_p.bind(x)


log2_p = _primitive("log2", np.log2)
_def_derivative(log2_p, lambda ans, x: reciprocal(mul(x, _LN2)))


def log2(x):
    """Base-2 logarithm elementwise."""
    return log2_p.bind(x)


log10_p = _primitive("log10", np.log10)
_def_derivative(log10_p, lambda ans, x: reciprocal(mul(x, _LN10)))


def log10(x):
    """Base-10 logarithm elementwise."""
    return log10_p.bind(x)


log1p_p = _primitive("log1p", np.log1p)
log1p_p.lowering = Elementwise("flog1p({0})", exact="math.log1p({0})", accepts=float_only)
log1p_p.reads = ((0,), False)
_def_fused_derivative(log1p_p, "log1p", lambda ans, x: reciprocal(add(x, 1.0)))


def log1p(x):
    """``log(1 + x)`` elementwise, accurate for small ``x``."""
    return log1p_p.bind(x)


sqrt_p = _primitive("sqrt", np.sqrt)
sqrt_p.lowering = Elementwise("math.sqrt({0})", accepts=float_only)
sqrt_p.reads = ((), True)
sqrt_p.torch_name = "SqrtBackward0"
_def_derivative(sqrt_p, lambda ans, x: div(0.5, ans))  # sqrt'(0) = inf


def sqrt(x):
    """Square root elementwise; the derivative at 0 is ``inf``."""
    return sqrt_p.bind(x)


cbrt_p = _primitive("cbrt", np.cbrt)
# 1/(3 cbrt(x)**2) written as (1/cbrt(x))**2 / 3: its own derivative is then
# -2/(3 cbrt(x)**3) * cbrt'(x), the signed infinity at +-0 and 0 at +-inf, where
# 1/(3 ans*ans) differentiates through 2 * ans * ans' = 0 * inf = NaN.
# (fused: ops.cbrt_grad computes this formula in one pass and differentiates it so)
defjvp(cbrt_p, lambda g, ans, x: ops.cbrt_grad(g, ans))
defvjp(cbrt_p, lambda ct, ans, x: ops.cbrt_grad(ct, ans))


def cbrt(x):
    """Cube root elementwise (real, defined for negative ``x``)."""
    return cbrt_p.bind(x)


sin_p = _primitive("sin", np.sin, vecmath.sin)
sin_p.lowering = Elementwise("fsin({0})", exact="math.sin({0})", check=_TRIG_CHECK, accepts=float_only)
sin_p.reads = ((0,), False)
sin_p.torch_name = "SinBackward0"
defjvp(sin_p, lambda g, ans, x: sin_grad(g, x))
defvjp(sin_p, lambda ct, ans, x: sin_grad(ct, x))


def sin(x):
    """Sine elementwise (radians)."""
    return sin_p.bind(x)


cos_p = _primitive("cos", np.cos, vecmath.cos)
cos_p.lowering = Elementwise("fcos({0})", exact="math.cos({0})", check=_TRIG_CHECK, accepts=float_only)
cos_p.reads = ((0,), False)
cos_p.torch_name = "CosBackward0"
defjvp(cos_p, lambda g, ans, x: cos_grad(g, x))
defvjp(cos_p, lambda ct, ans, x: cos_grad(ct, x))


def cos(x):
    """Cosine elementwise (radians)."""
    return cos_p.bind(x)


# ``g * cos(x)`` and ``-g * sin(x)``: the derivatives of sin and cos applied
# to a tangent or cotangent, fused into one pass (primitives with own rules;
# each is the other's derivative in x).
sin_grad_p = _primitive("sin_grad", lambda g, x: g * np.cos(x), vecmath.sin_grad)
sin_grad_p.lowering = Elementwise("{0} * fcos({1})", exact="{0} * math.cos({1})",
                                check=_TRIG_CHECK_1, accepts=float_only)
defjvp(
    sin_grad_p,
    lambda tg, ans, g, x: sin_grad(tg, x),
    lambda tx, ans, g, x: mul(tx, cos_grad(g, x)),
)
defvjp_broadcasting(
    sin_grad_p,
    lambda ct, ans, g, x: sin_grad(ct, x),
    lambda ct, ans, g, x: mul(ct, cos_grad(g, x)),
)


def sin_grad(g, x):
    """``g * cos(x)`` (sin's derivative applied to ``g``), fused."""
    return sin_grad_p.bind(g, x)


cos_grad_p = _primitive("cos_grad", lambda g, x: -(g * np.sin(x)), vecmath.cos_grad)
cos_grad_p.lowering = Elementwise("-({0} * fsin({1}))", exact="-({0} * math.sin({1}))",
                                check=_TRIG_CHECK_1, accepts=float_only)
defjvp(
    cos_grad_p,
    lambda tg, ans, g, x: cos_grad(tg, x),
    lambda tx, ans, g, x: neg(mul(tx, sin_grad(g, x))),
)
defvjp_broadcasting(
    cos_grad_p,
    lambda ct, ans, g, x: cos_grad(ct, x),
    lambda ct, ans, g, x: neg(mul(ct, sin_grad(g, x))),
)


def cos_grad(g, x):
    """``-(g * sin(x))`` (cos's derivative applied to ``g``), fused."""
    return cos_grad_p.bind(g, x)


tan_p = _primitive("tan", np.tan)
tan_p.lowering = Elementwise("math.tan({0})", accepts=float_only)
_def_derivative(tan_p, lambda ans, x: add(1.0, mul(ans, ans)))


def tan(x):
    """Tangent elementwise (radians)."""
    return tan_p.bind(x)


arcsin_p = _primitive("arcsin", np.arcsin)
_def_fused_derivative(arcsin_p, "arcsin", lambda ans, x: rsqrt_one_minus_sq(x))


def rsqrt_one_minus_sq(x):
    return reciprocal(sqrt(sub(1.0, mul(x, x))))


def arcsin(x):
    """Inverse sine elementwise; derivative ``1/sqrt(1 - x**2)``."""
    return arcsin_p.bind(x)


arccos_p = _primitive("arccos", np.arccos)
_def_fused_derivative(arccos_p, "arccos", lambda ans, x: neg(rsqrt_one_minus_sq(x)))


def arccos(x):
    """Inverse cosine elementwise; derivative ``-1/sqrt(1 - x**2)``."""
    return arccos_p.bind(x)


arctan_p = _primitive("arctan", np.arctan)
arctan_p.lowering = Elementwise("math.atan({0})", accepts=float_only)
_def_fused_derivative(arctan_p, "arctan", lambda ans, x: reciprocal(add(1.0, mul(x, x))))


def arctan(x):
    """Inverse tangent elementwise; derivative ``1/(1 + x**2)``."""
    return arctan_p.bind(x)


sinh_p = _primitive("sinh", np.sinh)
sinh_p.lowering = Elementwise("math.sinh({0})", accepts=float_only)
_def_derivative(sinh_p, lambda ans, x: cosh(x))


def sinh(x):
    """Hyperbolic sine elementwise."""
    return sinh_p.bind(x)


cosh_p = _primitive("cosh", np.cosh)
cosh_p.lowering = Elementwise("math.cosh({0})", accepts=float_only)
_def_derivative(cosh_p, lambda ans, x: sinh(x))


def cosh(x):
    """Hyperbolic cosine elementwise."""
    return cosh_p.bind(x)


# tanh: the derivative ``g * (1 - tanh(x)**2)`` is three passes in NumPy; it
# runs as one fused kernel, ``tanh_grad``, a primitive with its own rules.
tanh_p = _primitive("tanh", np.tanh, vecmath.tanh)
tanh_p.lowering = Elementwise("ftanh({0})", exact="math.tanh({0})", accepts=float_only)
tanh_p.reads = ((), True)
tanh_p.torch_name = "TanhBackward0"
defjvp(tanh_p, lambda g, ans, x: tanh_grad(g, ans))
defvjp(tanh_p, lambda ct, ans, x: tanh_grad(ct, ans))


def tanh(x):
    """Hyperbolic tangent elementwise."""
    return tanh_p.bind(x)


@kernel
def _tanh_grad_kernel(g, y, out):
    for i in range(out.size):
        out[i] = g[i] * (1.0 - y[i] * y[i])


tanh_grad_p = Primitive("tanh_grad")
tanh_grad_p.lowering = Elementwise("{0} * ({T}(1.0) - {1} * {1})", accepts=same_float)


@tanh_grad_p.def_impl
def _tanh_grad_impl(g, y):
    """``g * (1 - y**2)`` in one Numba pass when shapes and dtypes agree."""
    g = np.asarray(g)
    y = np.asarray(y)
    if (
        g.shape == y.shape
        and g.dtype == y.dtype
        and g.dtype in FLOAT_DTYPES
        and g.size >= vecmath.MIN_KERNEL_SIZE
    ):
        out = np.empty(g.shape, g.dtype)
        _tanh_grad_kernel(
            np.ascontiguousarray(g).reshape(-1),
            np.ascontiguousarray(y).reshape(-1),
            out.reshape(-1),
        )
        return out[()]
    return g * (1.0 - y * y)


tanh_grad_p.def_abstract_eval(_elementwise_aval(lambda g, y: g * (1.0 - y * y)))
defbatch_elementwise(tanh_grad_p)
# d/dg: linear; d/dy: -2 g y
defjvp(
    tanh_grad_p,
    lambda tg, ans, g, y: tanh_grad(tg, y),
    lambda ty, ans, g, y: mul(ty, mul(-2.0, mul(g, y))),
)
defvjp_broadcasting(
    tanh_grad_p,
    lambda ct, ans, g, y: tanh_grad(ct, y),
    lambda ct, ans, g, y: mul(ct, mul(-2.0, mul(g, y))),
)


def tanh_grad(g, y):
    """``g * (1 - y**2)``: the tanh derivative at ``y = tanh(x)``, fused."""
    return tanh_grad_p.bind(g, y)


arcsinh_p = _primitive("arcsinh", np.arcsinh)
_def_fused_derivative(arcsinh_p, "arcsinh", lambda ans, x: reciprocal(sqrt(add(mul(x, x), 1.0))))


def arcsinh(x):
    """Inverse hyperbolic sine elementwise; derivative ``1/sqrt(x**2 + 1)``."""
    return arcsinh_p.bind(x)


arccosh_p = _primitive("arccosh", np.arccosh)
# 1/sqrt(x**2 - 1) for real x > 1; on complex x the principal branch of
# arccosh has derivative 1/(sqrt(x - 1) sqrt(x + 1)), which differs in sign
# where Re(x) < 0
_def_fused_derivative(
    arccosh_p,
    "arccosh",
    lambda ans, x: reciprocal(mul(sqrt(sub(x, 1.0)), sqrt(add(x, 1.0)))) if _is_complex(x)
    else reciprocal(sqrt(sub(mul(x, x), 1.0))),
)


def arccosh(x):
    """Inverse hyperbolic cosine elementwise; derivative ``1/sqrt(x**2 - 1)``."""
    return arccosh_p.bind(x)


arctanh_p = _primitive("arctanh", np.arctanh)
_def_fused_derivative(arctanh_p, "arctanh", lambda ans, x: reciprocal(sub(1.0, mul(x, x))))


def arctanh(x):
    """Inverse hyperbolic tangent elementwise; derivative ``1/(1 - x**2)``."""
    return arctanh_p.bind(x)


# Piecewise-constant functions: their derivative is zero almost everywhere,
# so they carry no derivative at all (outputs are constants to every trace).
sign_p = def_nondifferentiable(_primitive("sign", np.sign))
floor_p = def_nondifferentiable(_primitive("floor", np.floor))
floor_p.lowering = Elementwise("np.floor({0})", accepts=float_only)
ceil_p = def_nondifferentiable(_primitive("ceil", np.ceil))
ceil_p.lowering = Elementwise("np.ceil({0})", accepts=float_only)
round_p = def_nondifferentiable(_primitive("round", np.round))
floor_divide_p = def_nondifferentiable(_primitive("floor_divide", np.floor_divide))


def sign(x):
    """Sign elementwise (-1, 0 or 1); zero derivative."""
    return sign_p.bind(x)


def floor(x):
    """Floor elementwise; zero derivative."""
    return floor_p.bind(x)


def ceil(x):
    """Ceiling elementwise; zero derivative."""
    return ceil_p.bind(x)


def round(x, decimals=0):  # noqa: A001 - NumPy's name
    """Round half to even (NumPy's rule) to ``decimals``; zero derivative."""
    return round_p.bind(x, decimals=int(decimals))


def floor_divide(x, y):
    """``x // y`` elementwise; zero derivative."""
    return floor_divide_p.bind(x, y)


# ==========================================================================
# binary math (broadcasting)

add_p = _primitive("add", np.add)
add_p.lowering = Elementwise("{0} + {1}")
add_p.reads = ((), False)
add_p.torch_name = "AddBackward0"
defjvp(add_p, lambda g, ans, x, y: g, lambda g, ans, x, y: g)
defvjp_broadcasting(add_p, lambda ct, ans, x, y: ct, lambda ct, ans, x, y: ct)


def add(x, y):
    """``x + y`` with broadcasting."""
    return add_p.bind(x, y)


sub_p = _primitive("sub", np.subtract)
sub_p.lowering = Elementwise("{0} - {1}", accepts=_not_bool)
sub_p.reads = ((), False)
sub_p.torch_name = "SubBackward0"
defjvp(sub_p, lambda g, ans, x, y: g, lambda g, ans, x, y: neg(g))
defvjp_broadcasting(sub_p, lambda ct, ans, x, y: ct, lambda ct, ans, x, y: neg(ct))


def sub(x, y):
    """``x - y`` with broadcasting."""
    return sub_p.bind(x, y)


mul_p = _primitive("mul", np.multiply)
mul_p.lowering = Elementwise("{0} * {1}")
# d(x*y) = y dx + x dy: each side's rule reads the other operand only (x * 2
# keeps nothing of x); ``has`` flags the differentiated arguments
mul_p.reads = lambda has: (((1,) if has[0] else ()) + ((0,) if has[1] else ()), False)
mul_p.torch_name = "MulBackward0"
defjvp(mul_p, lambda g, ans, x, y: mul(g, y), lambda g, ans, x, y: mul(x, g))
defvjp_broadcasting(
    mul_p, lambda ct, ans, x, y: mul(ct, y), lambda ct, ans, x, y: mul(x, ct)
)


def mul(x, y):
    """``x * y`` with broadcasting."""
    return mul_p.bind(x, y)


div_p = _primitive("div", np.true_divide)
div_p.lowering = Elementwise("{0} / {1}", accepts=float_only)
# d(x/y) = dx / y - (x/y) dy / y: both rules read y, only y's reads the output
div_p.reads = lambda has: ((1,), bool(has[1]))
div_p.torch_name = "DivBackward0"
defjvp(
    div_p,
    lambda g, ans, x, y: div(g, y),
    lambda g, ans, x, y: neg(mul(g, div(ans, y))),
)
defvjp_broadcasting(
    div_p,
    lambda ct, ans, x, y: div(ct, y),
    lambda ct, ans, x, y: neg(mul(ct, div(ans, y))),
)


def div(x, y):
    """``x / y`` (true division) with broadcasting."""
    return div_p.bind(x, y)


def _is_python_scalar(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _pow_dx(ans, x, y):
    # y * x**(y-1), taken as 0 wherever y == 0 (so x**0 has derivative 0 even
    # at x = 0, where x**-1 is inf).
    if _is_python_scalar(y):
        return None if y == 0 else mul(float(y), pow(x, y - 1))
    # Guard only where x == 0 and y == 0 (double where: x**(0 - 1) is inf
    # there and would poison higher derivatives through the unselected
    # branch).  Elsewhere y * x**(y-1) is finite and already 0 at y == 0, and
    # keeping it unguarded keeps the mixed partial d/dy = 1/x at y == 0 (a
    # guard on y == 0 alone made it 0).
    guard = logical_and(eq(y, 0), eq(x, 0))
    d = mul(y, pow(x, sub(select(guard, 1.0, y), 1)))
    return select(guard, 0.0, d)


def _pow_dy(ans, x, y):
    # x**y * log(x), with log(x) taken as 0 where x == 0 (so 0**y has
    # derivative 0 with respect to y for y > 0, the one-sided limit).
    if _is_python_scalar(x) or isinstance(x, builtins.complex):
        return mul(ans, np.log(x).item() if x != 0 else 0.0)
    return mul(ans, log(select(eq(x, 0), 1.0, x)))


def _times(deriv):
    """Linear rule ``g * deriv(ans, x, y)``; a ``None`` derivative is zero."""

    def rule(g, ans, x, y):
        d = deriv(ans, x, y)
        return None if d is None else mul(g, d)

    return rule


def _pow_rule_x(g, ans, x, y):
    # array exponents: g * _pow_dx(ans, x, y) fused into one pass (ops.pow_grad_x)
    if _is_python_scalar(y) or _is_complex(x) or _is_complex(y):
        return _times(_pow_dx)(g, ans, x, y)
    return ops.pow_grad_x(g, x, y, ans)


def _pow_rule_y(g, ans, x, y):
    # array bases: g * _pow_dy(ans, x, y), the product fused (ops.pow_grad_y)
    if _is_python_scalar(x) or isinstance(x, builtins.complex) or _is_complex(x) \
            or _is_complex(y):
        return _times(_pow_dy)(g, ans, x, y)
    return ops.pow_grad_y(g, ans, x)


pow_p = _primitive("pow", np.power)
pow_p.lowering = Elementwise(  # float32: powf (4.5 ns/element) beats fpow (5.5 ns)
    lambda x, y, *, T: f"{x} ** {y}" if T == "np.float32" else f"fpow({x}, {y})",
    exact="{0} ** {1}", accepts=float_only)
pow_p.torch_name = "PowBackward1"
defjvp(pow_p, _pow_rule_x, _pow_rule_y)
defvjp_broadcasting(pow_p, _pow_rule_x, _pow_rule_y)


def pow(x, y):  # noqa: A001 - NumPy's power
    """``x ** y`` with broadcasting (NumPy's ``power``).

    Derivatives: ``d/dx = y * x**(y-1)``, taken as 0 where ``y == 0``;
    ``d/dy = x**y * log(x)``, taken as 0 where ``x == 0``.  A constant
    exponent never contributes ``log(x)`` terms, so ``x**3.0`` at ``x = -2``
    has derivative 12.
    """
    return pow_p.bind(x, y)


integer_pow_p = Primitive("integer_pow")
integer_pow_p.reads = ((0,), False)
integer_pow_p.torch_name = "PowBackward0"
integer_pow_p.lowering = Elementwise(
    lambda x, *, T, y: f"{x} * {x}" if y == 2 else f"{x} ** {y}",
    accepts=lambda ins, out, params: out.kind == "f" or params["y"] >= 0)


@integer_pow_p.def_impl
def _integer_pow_impl(x, *, y):
    if y == 2:
        return np.square(x)
    return np.power(x, y)


@integer_pow_p.def_abstract_eval
def _integer_pow_aval(x, *, y):
    if not isinstance(x, ShapedArray):  # a weakly typed Python scalar
        return ShapedArray((), np.result_type(np.power(x, y)))
    return ShapedArray(x.shape, np.result_type(np.power(np.zeros((), x.dtype), y)))


defbatch_elementwise(integer_pow_p)


def _integer_pow_deriv(ans, x, *, y):
    if y == 0:  # a zero derivative that still reaches x (PyTorch's x ** 0 gives x.grad 0)
        return np.zeros(shape_of(x), dtype_of(x))
    if y == 1:
        return np.ones(shape_of(x), dtype_of(x))
    if y == 2:
        return mul(x, 2.0)
    return mul(float(y), integer_pow(x, y - 1))


def _integer_pow_rule(g, ans, x, *, y):
    d = _integer_pow_deriv(ans, x, y=y)
    return None if d is None else mul(g, d)


defjvp(integer_pow_p, _integer_pow_rule)
defvjp(integer_pow_p, _integer_pow_rule)


def integer_pow(x, y):
    """``x ** y`` for a static Python integer ``y`` (``x**0`` has derivative 0)."""
    return integer_pow_p.bind(x, y=int(y))


def square(x):
    """``x * x`` elementwise."""
    return integer_pow(x, 2)


def reciprocal(x):
    """``1 / x`` elementwise."""
    return div(1.0, x)


def _tie_share(wins):
    """Share of the cotangent that ``maximum``/``minimum`` send to one argument.

    ``wins(a, b)`` says where ``a`` is strictly selected.  The share is 1
    there, 0.5 at ties (the derivative is split evenly) and 0 elsewhere; it
    is a constant mask and carries no derivative.
    """

    def rule(g, ans, x, y, first):
        a, b = (x, y) if first else (y, x)
        share = select(eq(a, b), 0.5, select(wins(a, b), 1.0, 0.0))
        return mul(g, convert_element_type(share, dtype_of(g)))

    return (
        lambda g, ans, x, y: rule(g, ans, x, y, True),
        lambda g, ans, x, y: rule(g, ans, x, y, False),
    )


maximum_p = _primitive("maximum", np.maximum)
maximum_p.lowering = Elementwise("{0} if ({0} > {1} or {0} != {0}) else {1}")  # ties: {1}, as NumPy
maximum_p.reads = ((0, 1), False)
maximum_p.torch_name = "MaximumBackward0"
defjvp(maximum_p, *_tie_share(lambda a, b: gt(a, b)))
defvjp_broadcasting(maximum_p, *_tie_share(lambda a, b: gt(a, b)))


def maximum(x, y):
    """Elementwise maximum; at ties the derivative is split evenly (0.5 each)."""
    return maximum_p.bind(x, y)


minimum_p = _primitive("minimum", np.minimum)
minimum_p.lowering = Elementwise("{0} if ({0} < {1} or {0} != {0}) else {1}")  # ties: {1}, as NumPy
minimum_p.reads = ((0, 1), False)
minimum_p.torch_name = "MinimumBackward0"
defjvp(minimum_p, *_tie_share(lambda a, b: lt(a, b)))
defvjp_broadcasting(minimum_p, *_tie_share(lambda a, b: lt(a, b)))


def minimum(x, y):
    """Elementwise minimum; at ties the derivative is split evenly (0.5 each)."""
    return minimum_p.bind(x, y)


arctan2_p = _primitive("arctan2", np.arctan2)
# d/dy atan2(y, x) = x / (x**2 + y**2); d/dx = -y / (x**2 + y**2)
_atan2_denom = lambda y, x: add(mul(x, x), mul(y, y))  # noqa: E731
# (real operands: ops.arctan2_grad, the same formulas in one pass each)


def _atan2_rule(wrt_x):
    def rule(g, ans, y, x):
        if _is_complex(y) or _is_complex(x) or _is_python_scalar(y) or _is_python_scalar(x):
            num = neg(y) if wrt_x else x
            return mul(g, div(num, _atan2_denom(y, x)))
        return ops.arctan2_grad(g, y, x, wrt_x)

    return rule


defjvp(arctan2_p, _atan2_rule(False), _atan2_rule(True))
defvjp_broadcasting(arctan2_p, _atan2_rule(False), _atan2_rule(True))


def arctan2(y, x):
    """Angle of the point ``(x, y)``, in radians, elementwise."""
    return arctan2_p.bind(y, x)


def _safe_div(a, b):
    """``a / b`` with 0 where ``b == 0``; both branches stay finite (double where)."""
    zero = eq(b, 0)
    return select(zero, 0.0, div(a, select(zero, 1.0, b)))


hypot_p = _primitive("hypot", np.hypot)
# d/dx hypot = x / hypot; taken as 0 at the origin (as for linalg.norm)
# (ops.hypot_grad(g, x, ans) = mul(g, _safe_div(x, ans)) in one pass)
defjvp(
    hypot_p,
    lambda g, ans, x, y: ops.hypot_grad(g, x, ans),
    lambda g, ans, x, y: ops.hypot_grad(g, y, ans),
)
defvjp_broadcasting(
    hypot_p,
    lambda ct, ans, x, y: ops.hypot_grad(ct, x, ans),
    lambda ct, ans, x, y: ops.hypot_grad(ct, y, ans),
)


def hypot(x, y):
    """``sqrt(x**2 + y**2)`` without overflow; gradient 0 at the origin."""
    return hypot_p.bind(x, y)


mod_p = _primitive("mod", np.mod)
# mod(x, y) = x - floor(x / y) * y
defjvp(
    mod_p,
    lambda g, ans, x, y: g,
    lambda g, ans, x, y: mul(g, neg(floor_divide(x, y))),
)
defvjp_broadcasting(
    mod_p,
    lambda ct, ans, x, y: ct,
    lambda ct, ans, x, y: mul(ct, neg(floor_divide(x, y))),
)


def mod(x, y):
    """Remainder with the sign of ``y`` (Python's ``%``, NumPy's ``mod``)."""
    return mod_p.bind(x, y)


logaddexp_p = _primitive("logaddexp", np.logaddexp)


# d/dx log(e^x + e^y) = e^x / (e^x + e^y) = sigmoid(x - y): finite at
# +-1000, and exactly 0.5 at every finite tie (x - y == 0); 0.5 also at the
# tie inf == inf, where x - y is NaN.  The second derivative s (1 - s) is 1/4
# at finite ties and 0 at the infinite one (see logaddexp_grad's rules).
# g * sigmoid(x - y) in one fused pass (logaddexp_grad, primitives/elementwise_fused.py)
defjvp(
    logaddexp_p,
    lambda g, ans, x, y: ops.logaddexp_grad(g, x, y),
    lambda g, ans, x, y: ops.logaddexp_grad(g, y, x),
)
defvjp_broadcasting(
    logaddexp_p,
    lambda ct, ans, x, y: ops.logaddexp_grad(ct, x, y),
    lambda ct, ans, x, y: ops.logaddexp_grad(ct, y, x),
)


def logaddexp(x, y):
    """``log(exp(x) + exp(y))`` computed stably; gradient ``(0.5, 0.5)`` at a tie."""
    return logaddexp_p.bind(x, y)


# ==========================================================================
# selection

select_p = _primitive("select", np.where)
select_p.lowering = Elementwise("{1} if {0} else {2}")
select_p.reads = ((0,), False)
select_p.torch_name = "WhereBackward0"
defvjp_broadcasting(
    select_p,
    None,
    lambda ct, ans, c, x, y: select(c, ct, 0.0),
    lambda ct, ans, c, x, y: select(c, 0.0, ct),
)
defjvp(
    select_p,
    None,
    lambda g, ans, c, x, y: select(c, g, 0.0),
    lambda g, ans, c, x, y: select(c, 0.0, g),
)


def select(condition, x, y):
    """``x`` where ``condition`` else ``y`` (NumPy's three-argument ``where``).

    Derivatives flow only through the selected branch, but a NaN or inf
    *derivative* in the unselected branch still propagates (``0 * nan``);
    see the double-``where`` idiom in the README.
    """
    return select_p.bind(condition, x, y)


clip_p = Primitive("clip")
clip_p.reads = ("all", False)
clip_p.torch_name = "ClampBackward1"


@clip_p.def_impl
def _clip_impl(x, lo, hi):
    return np.clip(x, lo, hi)


clip_p.def_abstract_eval(_elementwise_aval(np.clip))
defbatch_elementwise(clip_p)


def _clip_pass(x, lo, hi):
    """True where ``x`` passes through unclipped: ``lo <= x <= hi``."""
    inside = True if lo is None else ge(x, lo)
    if hi is not None:
        inside = le(x, hi) if inside is True else logical_and(inside, le(x, hi))
    return inside


def _clip_to_lo(x, lo, hi):
    """True where the result is ``lo``: ``x < lo`` and the bounds are ordered."""
    below = lt(x, lo)
    return below if hi is None else logical_and(below, le(lo, hi))


def _clip_to_hi(x, lo, hi):
    """True where the result is ``hi``: ``x > hi``, or ``lo > hi`` (NumPy returns hi)."""
    above = gt(x, hi)
    return above if lo is None else logical_or(above, gt(lo, hi))


defjvp(
    clip_p,
    lambda g, ans, x, lo, hi: select(_clip_pass(x, lo, hi), g, 0.0),
    lambda g, ans, x, lo, hi: select(_clip_to_lo(x, lo, hi), g, 0.0),
    lambda g, ans, x, lo, hi: select(_clip_to_hi(x, lo, hi), g, 0.0),
)
defvjp_broadcasting(
    clip_p,
    lambda ct, ans, x, lo, hi: select(_clip_pass(x, lo, hi), ct, 0.0),
    lambda ct, ans, x, lo, hi: select(_clip_to_lo(x, lo, hi), ct, 0.0),
    lambda ct, ans, x, lo, hi: select(_clip_to_hi(x, lo, hi), ct, 0.0),
)


def clip(x, lo, hi):
    """Clamp ``x`` to ``[lo, hi]`` (either bound may be None).

    At a bound the derivative goes to ``x`` (1) and not to the bound (0): the
    interval is closed, as in PyTorch's ``clamp``.  With ``lo > hi`` the result
    is ``hi`` (NumPy's rule) and so is the derivative.
    """
    return clip_p.bind(x, lo, hi)


# ==========================================================================
# comparisons, logic, predicates: no derivative

def _nondiff(name, np_fn):
    return def_nondifferentiable(_primitive(name, np_fn))


eq_p = _nondiff("eq", np.equal)
eq_p.lowering = Elementwise("{0} == {1}")
ne_p = _nondiff("ne", np.not_equal)
ne_p.lowering = Elementwise("{0} != {1}")
lt_p = _nondiff("lt", np.less)
lt_p.lowering = Elementwise("{0} < {1}")
le_p = _nondiff("le", np.less_equal)
le_p.lowering = Elementwise("{0} <= {1}")
gt_p = _nondiff("gt", np.greater)
gt_p.lowering = Elementwise("{0} > {1}")
ge_p = _nondiff("ge", np.greater_equal)
ge_p.lowering = Elementwise("{0} >= {1}")
logical_and_p = _nondiff("logical_and", np.logical_and)
logical_and_p.lowering = Elementwise("{0} != 0 and {1} != 0")
logical_or_p = _nondiff("logical_or", np.logical_or)
logical_or_p.lowering = Elementwise("{0} != 0 or {1} != 0")
logical_xor_p = _nondiff("logical_xor", np.logical_xor)
logical_not_p = _nondiff("logical_not", np.logical_not)
logical_not_p.lowering = Elementwise("{0} == 0")
isnan_p = _nondiff("isnan", np.isnan)
isnan_p.lowering = Elementwise("{0} != {0}")
isfinite_p = _nondiff("isfinite", np.isfinite)
isfinite_p.lowering = Elementwise("abs({0}) < np.inf", accepts=_float_operands)
isinf_p = _nondiff("isinf", np.isinf)
isinf_p.lowering = Elementwise("abs({0}) == np.inf", accepts=_float_operands)


def eq(x, y):
    """``x == y`` elementwise (bool, no derivative)."""
    return eq_p.bind(x, y)


def ne(x, y):
    """``x != y`` elementwise (bool, no derivative)."""
    return ne_p.bind(x, y)


def lt(x, y):
    """``x < y`` elementwise (bool, no derivative)."""
    return lt_p.bind(x, y)


def le(x, y):
    """``x <= y`` elementwise (bool, no derivative)."""
    return le_p.bind(x, y)


def gt(x, y):
    """``x > y`` elementwise (bool, no derivative)."""
    return gt_p.bind(x, y)


def ge(x, y):
    """``x >= y`` elementwise (bool, no derivative)."""
    return ge_p.bind(x, y)


def logical_and(x, y):
    """Elementwise logical and (bool, no derivative)."""
    return logical_and_p.bind(x, y)


def logical_or(x, y):
    """Elementwise logical or (bool, no derivative)."""
    return logical_or_p.bind(x, y)


def logical_xor(x, y):
    """Elementwise logical xor (bool, no derivative)."""
    return logical_xor_p.bind(x, y)


def logical_not(x):
    """Elementwise logical not (bool, no derivative)."""
    return logical_not_p.bind(x)


def isnan(x):
    """True where ``x`` is NaN (no derivative)."""
    return isnan_p.bind(x)


def isfinite(x):
    """True where ``x`` is neither inf nor NaN (no derivative)."""
    return isfinite_p.bind(x)


def isinf(x):
    """True where ``x`` is +inf or -inf (no derivative)."""
    return isinf_p.bind(x)


# ==========================================================================
# stop_gradient: identity on values, zero derivative under every transform

stop_gradient_p = Primitive("stop_gradient")
stop_gradient_p.lowering = Elementwise("{0}")
stop_gradient_p.def_impl(lambda x: x)
stop_gradient_p.def_abstract_eval(lambda x: x)
def_nondifferentiable(stop_gradient_p)
defbatch_elementwise(stop_gradient_p)


def stop_gradient(x):
    """Return ``x`` unchanged, but as a constant to every enclosing transform.

    Parameters
    ----------
    x : array, tracer or scalar
        Any shape and dtype; one array (``tracegrad.stop_gradient`` maps
        this over the leaves of a pytree).

    Returns
    -------
    array or scalar
        ``x``'s value, with ``x``'s shape and dtype, never a tracer of an
        enclosing transform: outside every transform it is ``x`` itself
        (not a copy).

    Notes
    -----
    No derivative: under ``grad``, ``jvp``, ``vjp`` and the Jacobians the
    result is a constant, so its derivative with respect to ``x`` is 0 to
    every order.  Use it to treat a value as fixed (a target, a
    normalization constant, a shift for numerical stability), or to store a
    traced value outside its transform without leaking the tracer.

    Examples
    --------
    >>> import tracegrad as tg
    >>> from tracegrad.primitives import ops
    >>> float(tg.grad(lambda x: x * ops.stop_gradient(x))(3.0))
    3.0
    """
    return stop_gradient_p.bind(x)

