"""PyTorch's tensor operations, as functions and as ``Tensor`` methods.

Every operation is computed by tracegrad's primitives (``tracegrad.primitives
.ops`` and ``tracegrad.numpy``), so its derivative is the primitives' VJP
rules.  An operation made of one primitive is recorded directly under
PyTorch's name for it; one made of several is recorded primitive by
primitive and then named with :func:`~._autograd.group`.  Binary operations
follow PyTorch's type promotion (``int_tensor * 2.5`` is float32, 0-d
tensors and Python scalars do not widen a dimensioned tensor's dtype).
"""
import builtins
import collections
import math
import numbers
import weakref

import numpy as np

from .. import nn as tnn
from .. import numpy as tnp
from ..numpy import _indexing as _np_indexing
from ..primitives import ops
from ..primitives import elementwise as _pel
from ..primitives import linalg as _pla
from ..primitives import nn as _pnn
from ..primitives import structural as _pst
from . import _creation, _dtype, _grad_mode
from ._autograd import _CONSTANT, group
from ._autograd import _EMPTY
from ._autograd import apply as _apply
from ..core import Tracer
from ._tensor import Size, Tensor, _dim, check_device

__all__ = []  # filled by _public


def _public(fn):
    __all__.append(fn.__name__)
    return fn


# --------------------------------------------------------------------------
# helpers


def _needs_grad(*args):
    if not _grad_mode._state.enabled:
        return False
    for a in args:
        if isinstance(a, Tensor) and a._requires_grad:
            return True
        if isinstance(a, (list, tuple)):
            for b in a:
                if isinstance(b, Tensor) and b._requires_grad:
                    return True
    return False


def _value(a):
    """A tensor's data (a tensor inside ``torch.func`` stays a tensor: its tracer
    must not meet tensors holding tracers in one operation)."""
    if isinstance(a, Tensor) and type(a._data) is np.ndarray:
        return a._data
    return a


def _is_traced(t):
    """True for a tensor inside a ``torch.func`` transform (its data is a tracer)."""
    return isinstance(t, Tensor) and type(t._data) is not np.ndarray


def _composite(name, fn, inputs, *args, scalar_slots=0, **kwargs):
    """``fn(*args, **kwargs)`` built from primitives, recorded as one operation."""
    if not _needs_grad(*inputs):
        with _grad_mode.no_grad():
            out = fn(*args, **kwargs)
        return _wrap_result(out)
    out = fn(*args, **kwargs)
    if isinstance(out, Tensor) and out._node is None and out._requires_grad:
        # ``fn`` returned a leaf input unchanged: the operation still gets its own node
        out = _pst.reshape_p.bind(out, shape=out._data.shape)
    return group(_wrap_result(out), name, inputs, scalar_slots)


def _wrap_result(out):
    if isinstance(out, Tensor):
        return out
    if isinstance(out, (list, tuple)):
        return type(out)(_wrap_result(o) for o in out)
    return Tensor._wrap(out if isinstance(out, Tracer) else np.asarray(out))


def _contiguous(t, src=None):
    """``t`` with C-contiguous data of its own, as PyTorch's result of the operation
    (the primitive may have returned another layout, or a view of ``src``)."""
    data = t._data
    if type(data) is not np.ndarray:
        return t
    if not data.flags.c_contiguous or (src is not None and np.may_share_memory(data, src._data)):
        t._data = np.array(data, order="C")
    return t


def _layout_of(out, *operands):
    """``out``, an elementwise result of ``operands``, laid out as PyTorch's
    TensorIterator lays it out: its dimensions ordered by the operands'
    strides, the first operand with an opinion deciding (broadcast dimensions
    have none).  So a transposed input gives a transposed result.  Only the
    layout changes (a copy when it differs), never the values."""
    data = out._data
    nd = data.ndim
    if nd < 2 or type(data) is not np.ndarray:
        return out
    shape = data.shape
    strides = []
    for x in operands:
        if isinstance(x, Tensor) and x._data.ndim and type(x._data) is np.ndarray:
            d, lead = x._data, nd - x._data.ndim
            st = [0] * nd
            for i, (n, b) in enumerate(zip(d.shape, d.strides)):
                st[lead + i] = 0 if n == 1 and shape[lead + i] != 1 else b
            strides.append(st)

    def should_swap(d0, d1):
        for st in strides:
            s0, s1 = st[d0], st[d1]
            if s0 == 0 or s1 == 0:
                continue
            if s0 != s1:
                return 1 if s0 > s1 else -1
            if shape[d0] > shape[d1]:
                return 1
        return 0

    perm = list(range(nd - 1, -1, -1))  # innermost dimension first
    for i in range(1, nd):  # PyTorch's insertion sort, ambiguous pairs kept in order
        d1 = i
        for d0 in range(i - 1, -1, -1):
            c = should_swap(perm[d0], perm[d1])
            if c > 0:
                perm[d0], perm[d1] = perm[d1], perm[d0]
                d1 = d0
            elif c < 0:
                break
    order = perm[::-1]
    if order == list(range(nd)):
        if not data.flags.c_contiguous:
            out._data = np.ascontiguousarray(data)
        return out
    target = np.empty([shape[d] for d in order], data.dtype).transpose(np.argsort(order))
    if target.strides != data.strides:
        target[...] = data
        out._data = target
    return out


def _tensor_arg(x, like=None):
    """A Tensor for a tensor-like argument (lists, scalars, arrays)."""
    if isinstance(x, Tensor):
        return x
    return _creation.tensor(x)


def _dims(dim, ndim):
    if dim is None:
        return None
    if isinstance(dim, (list, tuple)):
        return tuple(_dim(d, ndim) for d in dim)
    return _dim(dim, ndim)


# --------------------------------------------------------------------------
# type promotion (PyTorch's rules)

_CAT = {"b": 0, "u": 1, "i": 1, "f": 2, "c": 3}


def _category(dt):
    return _CAT[np.dtype(dt).kind]


def _combine(higher, lower):
    """PyTorch's combine_categories of two partial results (None: absent)."""
    if higher is None:
        return lower
    if lower is None:
        return higher
    h, lo = _category(higher), _category(lower)
    if h == 3:
        return higher
    if lo == 3:
        return np.result_type(higher, np.complex64) if h == 2 else lower
    if h == 2:
        return higher
    if h == 0 or lo == 2:
        return _promote_types(higher, lower)
    return higher


def _promote_types(a, b):
    """PyTorch's promote_types: across categories the higher category's type wins
    (``int64 + float32 -> float32``); within one, the wider type."""
    a, b = np.dtype(a), np.dtype(b)
    ca, cb = _category(a), _category(b)
    if ca == cb or {ca, cb} == {2, 3}:
        return np.promote_types(a, b)
    return a if ca > cb else b


def _scalar_dtype(x):
    if isinstance(x, (bool, np.bool_)):
        return np.dtype(np.bool_)
    if isinstance(x, numbers.Integral):
        return np.dtype(np.int64)
    if isinstance(x, numbers.Real):
        return _dtype.get_default_dtype().dtype
    if isinstance(x, numbers.Complex):
        return np.dtype(np.complex128 if _dtype.get_default_dtype() == _dtype.float64 else np.complex64)
    raise TypeError(f"unsupported operand {x!r}")


@_public
def result_type(tensor1, tensor2):
    """The dtype PyTorch's type promotion gives for the two operands."""
    return _dtype.as_dtype(_result_np_dtype(tensor1, tensor2))


def _result_np_dtype(*operands):
    dim = zero = wrapped = None
    for x in operands:
        if isinstance(x, Tensor):
            d = x._data.dtype
            if x._data.ndim:
                dim = d if dim is None else _promote_types(dim, d)
            else:
                zero = d if zero is None else _promote_types(zero, d)
        elif x is not None:
            d = _scalar_dtype(x)
            wrapped = d if wrapped is None else _promote_types(wrapped, d)
    return np.dtype(_combine(dim, _combine(zero, wrapped)))


def _cast(x, dt):
    """``x`` as a tensor of NumPy dtype ``dt`` (Python scalars stay scalars).

    The converted copy shares ``x``'s version counter: an operation that saves
    it saves ``x`` in PyTorch's eyes (PyTorch promotes inside the kernel), so
    modifying ``x`` in place must still be detected by the backward pass.
    """
    if isinstance(x, Tensor):
        if x._data.dtype == dt:
            return x
        c = ops.convert_element_type(x, dt)
        c._vc = x._vc
        return c
    return x


# --------------------------------------------------------------------------
# binary arithmetic

_FAST_SCALARS = {float: "f", int: "fiu"}


def _binary(prim, name, a, b, reflected=False):
    """``prim(a, b)`` with PyTorch's promotion; ``b`` may be a Python scalar."""
    try:
        # fast path: operands of one dtype, or a Python scalar that does not
        # change the tensor's dtype (the common case, decided without promotion)
        out = None
        if isinstance(a, Tensor):
            dt = a._data.dtype
            if isinstance(b, Tensor):
                if b._data.dtype == dt:
                    out = _apply(prim, name, (b, a) if reflected else (a, b))
            elif dt.kind in _FAST_SCALARS.get(type(b), ""):
                out = _apply(prim, name, (b, a) if reflected else (a, b), _EMPTY, 1)
        if out is None:
            out = _binary_op(prim, name, a, b, reflected)
    except ValueError:
        _broadcast_error(a, b)  # PyTorch's RuntimeError for shapes that do not broadcast
        raise
    try:
        data = out._data
        if data.ndim < 2 or (  # (_layout_of leaves results of rank < 2 as they are)
                data.flags.c_contiguous
                and (not isinstance(a, Tensor) or a._data.flags.c_contiguous)
                and (not isinstance(b, Tensor) or b._data.flags.c_contiguous)):
            return out
    except AttributeError:  # a tracer has no layout (inside torch.func)
        return out
    return _layout_of(out, *((b, a) if reflected else (a, b)))


def _broadcast_error(a, b):
    """Raise PyTorch's RuntimeError if the shapes of ``a`` and ``b`` do not broadcast."""
    sa = tuple(a._data.shape) if isinstance(a, Tensor) else ()
    sb = tuple(b._data.shape) if isinstance(b, Tensor) else ()
    n = len(sa) if len(sa) > len(sb) else len(sb)
    pa, pb = (1,) * (n - len(sa)) + sa, (1,) * (n - len(sb)) + sb
    for d in range(n - 1, -1, -1):
        if pa[d] != pb[d] and pa[d] != 1 and pb[d] != 1:
            raise RuntimeError(
                f"The size of tensor a ({pa[d]}) must match the size of tensor b ({pb[d]}) "
                f"at non-singleton dimension {d}") from None


def _binary_op(prim, name, a, b, reflected):
    """:func:`_binary` past its fast path: PyTorch's type promotion."""
    if not isinstance(b, Tensor) and not isinstance(b, numbers.Number):
        b = _tensor_arg(b)
    if not isinstance(a, Tensor) and not isinstance(a, numbers.Number):
        a = _tensor_arg(a)
    dt = _result_np_dtype(a, b)
    scalar_slots = int(not isinstance(b, Tensor) or not isinstance(a, Tensor))
    x, y = (b, a) if reflected else (a, b)
    if _dtype_matches(a, dt) and _dtype_matches(b, dt):
        return _apply(prim, name, (x, y), scalar_slots=scalar_slots)
    inputs = [t for t in (x, y) if isinstance(t, Tensor)]
    return _composite(name, lambda: prim.bind(_cast(x, dt), _cast(y, dt)), inputs,
                      scalar_slots=scalar_slots)


def _dtype_matches(x, dt):
    if isinstance(x, Tensor):
        return x._data.dtype == dt
    # weak Python scalars: NumPy 2 keeps the tensor's dtype within a category
    return _category(_scalar_dtype(x)) <= _category(dt)


def _true_div_dtype(a, b):
    dt = _result_np_dtype(a, b)
    if dt.kind in "biu":
        dt = _dtype.get_default_dtype().dtype
    return dt


@_public
def add(input, other, *, alpha=1, out=None):
    """``input + alpha * other`` with broadcasting and PyTorch's promotion."""
    if out is not None:
        _no_out(out, "add")
    if alpha != 1:
        return _scaled(_pel.add_p, "AddBackward0", input, other, alpha)
    return _binary(_pel.add_p, "AddBackward0", input, other)


def _scaled(prim, name, a, b, alpha):
    """``prim(a, alpha * b)`` as one operation (PyTorch's node has ``a`` and ``b`` as inputs)."""
    if isinstance(b, numbers.Number):
        return _binary(prim, name, a, b * alpha)
    a = a if isinstance(a, (Tensor, numbers.Number)) else _tensor_arg(a)
    b = _tensor_arg(b)
    dt = _result_np_dtype(a, b)
    out = _composite(name, lambda: prim.bind(_cast(a, dt), ops.mul(_cast(b, dt), alpha)),
                     [t if isinstance(t, Tensor) else None for t in (a, b)])
    return _layout_of(out, a, b)


@_public
def sub(input, other, *, alpha=1, out=None):
    """``input - alpha * other``."""
    if out is not None:
        _no_out(out, "sub")
    if alpha != 1:
        return _scaled(_pel.sub_p, "SubBackward0", input, other, alpha)
    return _binary(_pel.sub_p, "SubBackward0", input, other)


subtract = sub
__all__.append("subtract")


@_public
def rsub(input, other, *, alpha=1):
    """``other - alpha * input``."""
    x = _tensor_arg(input)
    dt = _result_np_dtype(x, other)
    xc = _cast(x, dt)
    scaled = xc if alpha == 1 else ops.mul(xc, alpha)
    return _composite("RsubBackward1", lambda: ops.sub(_cast(other, dt), scaled), [x])


@_public
def mul(input, other, *, out=None):
    """``input * other`` elementwise."""
    if out is not None:
        _no_out(out, "mul")
    return _binary(_pel.mul_p, "MulBackward0", input, other)


multiply = mul
__all__.append("multiply")


@_public
def div(input, other, *, rounding_mode=None, out=None):
    """``input / other``; ``rounding_mode`` ``"trunc"`` or ``"floor"`` rounds the quotient."""
    if out is not None:
        _no_out(out, "div")
    if rounding_mode is not None:
        if rounding_mode not in ("trunc", "floor"):
            raise ValueError(f"div expected rounding_mode to be one of None, 'trunc', or 'floor' but found '{rounding_mode}'")
        dt = _result_np_dtype(input, other)
        q = _binary(_pel.div_p, "DivBackward0", _cast_tensor_or_scalar(input, _true_div_dtype(input, other)), other)
        r = q.floor() if rounding_mode == "floor" else q.trunc()
        return r.to(_dtype.as_dtype(dt)) if dt.kind in "iu" else r
    dt = _true_div_dtype(input, other)
    # integer operands are divided as floats; float operands are promoted by _binary
    # (inside the operation, as PyTorch: no conversion node of its own)
    a = input if _result_np_dtype(input, other) == dt else _cast_tensor_or_scalar(input, dt)
    return _binary(_pel.div_p, "DivBackward0", a, other)


def _cast_tensor_or_scalar(x, dt):
    if isinstance(x, Tensor) and x._data.dtype != dt:
        if _needs_grad(x):
            return ops.convert_element_type(x, dt)
        return Tensor._wrap(x._data.astype(dt))
    if not isinstance(x, (Tensor, numbers.Number)):
        return _cast_tensor_or_scalar(_tensor_arg(x), dt)
    return x


true_divide = divide = div
__all__ += ["true_divide", "divide"]


@_public
def floor_divide(input, other):
    """``floor(input / other)`` (no derivative)."""
    return div(input, other, rounding_mode="floor")


@_public
def remainder(input, other):
    """Python's ``%``: remainder with the sign of ``other``."""
    return _binary(_pel.mod_p, "RemainderBackward0", input, other)


@_public
def fmod(input, other):
    """C's ``fmod``: remainder with the sign of ``input``."""
    a, b = input, other
    dt = _result_np_dtype(a, b)
    if dt.kind in "biu":  # integer operands: an integer result, no gradient
        return Tensor._wrap(np.asarray(np.fmod(np.asarray(_value(a)).astype(dt),
                                               np.asarray(_value(b)).astype(dt))))
    return _composite("FmodBackward0",
                      lambda: ops.sub(a, ops.mul(tnp.trunc(ops.div(a, b)), b)),
                      [t for t in (a, b) if isinstance(t, Tensor)])


@_public
def pow(input, exponent):  # noqa: A001 - PyTorch's name
    """``input ** exponent`` (either may be a Python scalar)."""
    if isinstance(input, numbers.Number) and not isinstance(exponent, numbers.Number):
        e = _tensor_arg(exponent)
        dt = _result_np_dtype(input, e)
        if dt.kind in "biu":  # integers stay integers (PyTorch's promotion; 2 ** -1 is 0)
            return Tensor._wrap(np.asarray(
                np.trunc(np.power(float(input), e._data.astype(np.float64))).astype(dt)))
        return _contiguous(_composite("PowBackward2", lambda: ops.pow(float(input), exponent),
                                      [exponent]))
    if isinstance(exponent, numbers.Number):
        x = input if isinstance(input, Tensor) else _tensor_arg(input)
        dt = _result_np_dtype(x, exponent)
        xc = _cast(x, dt)
        if isinstance(exponent, numbers.Integral) or float(exponent).is_integer():
            e = int(exponent)
            if dt.kind in "biu":
                _no_negative_int_powers(np.asarray(e))
            if e >= 0 or dt.kind == "f":
                if xc is x:
                    return _apply(_pel.integer_pow_p, "PowBackward0", (x,), {"y": e})
                return _composite("PowBackward0", lambda: ops.integer_pow(xc, e), [x])
        return _composite("PowBackward0", lambda: ops.pow(xc, float(exponent)), [x])
    return _binary(_pel.pow_p, "PowBackward1", input, exponent)


def _no_negative_int_powers(e):
    if np.any(np.asarray(e) < 0):
        raise RuntimeError("Integers to negative integer powers are not allowed.")


@_public
def float_power(input, exponent):
    """``input ** exponent`` in float64."""
    return pow(_as64(input), exponent if not isinstance(exponent, Tensor) else _as64(exponent))


def _as64(x):
    x = _tensor_arg(x)
    return x.to(_dtype.float64)


@_public
def atan2(input, other):
    """Angle of ``(other, input)`` elementwise (``arctan2(input, other)``)."""
    return _binary(_pel.arctan2_p, "Atan2Backward0", input, other)


arctan2 = atan2
__all__.append("arctan2")


@_public
def maximum(input, other):
    """Elementwise maximum; at ties the gradient is split evenly."""
    return _binary(_pel.maximum_p, "MaximumBackward0", input, other)


@_public
def minimum(input, other):
    """Elementwise minimum; at ties the gradient is split evenly."""
    return _binary(_pel.minimum_p, "MinimumBackward0", input, other)


fmax, fmin = maximum, minimum
__all__ += ["fmax", "fmin"]


@_public
def hypot(input, other):
    """``sqrt(input**2 + other**2)`` elementwise."""
    return _binary(_pel.hypot_p, "HypotBackward0", input, other)


@_public
def logaddexp(input, other):
    """``log(exp(input) + exp(other))`` computed stably."""
    return _binary(_pel.logaddexp_p, "LogaddexpBackward0", input, other)


def _compare(prim):
    def fn(input, other):
        return _binary(prim, None, input, other)

    return fn


eq = _compare(_pel.eq_p)
ne = not_equal = _compare(_pel.ne_p)
lt = less = _compare(_pel.lt_p)
le = less_equal = _compare(_pel.le_p)
gt = greater = _compare(_pel.gt_p)
ge = greater_equal = _compare(_pel.ge_p)
logical_and = _compare(_pel.logical_and_p)
logical_or = _compare(_pel.logical_or_p)
logical_xor = _compare(_pel.logical_xor_p)
__all__ += ["eq", "ne", "not_equal", "lt", "less", "le", "less_equal", "gt", "greater",
            "ge", "greater_equal", "logical_and", "logical_or", "logical_xor"]


@_public
def logical_not(input):
    """Elementwise logical not (bool result)."""
    return _apply(_pel.logical_not_p, None, (input,))


@_public
def equal(input, other):
    """True if both tensors have the same shape and elements."""
    return input.shape == other.shape and bool(np.array_equal(input._data, other._data))


@_public
def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """NumPy's ``allclose`` on the tensors' data."""
    return bool(np.allclose(input._data, _value(other), rtol=rtol, atol=atol, equal_nan=equal_nan))


@_public
def isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """Elementwise ``isclose`` (bool tensor)."""
    return Tensor._wrap(np.isclose(input._data, _value(other), rtol=rtol, atol=atol, equal_nan=equal_nan))


def _no_out(out, name):
    if out is not None:
        raise TypeError(f"{name}(..., out=...) is not supported by tracegrad.torch; use the return value")


# --------------------------------------------------------------------------
# unary elementwise


def _float_input(x):
    """Integer tensors become the default float dtype for float-valued functions."""
    x = _tensor_arg(x)
    if x._data.dtype.kind in "biu":
        return Tensor._wrap(x._data.astype(_dtype.get_default_dtype().dtype))
    return x


def _unary(prim, name, float_only=True, step=False):
    """The elementwise operation of primitive ``prim`` (``step``: a step
    function of its input, recorded with a zero gradient, see _step_function)."""
    prim_name = prim.name

    def fn(input, *, out=None):
        if out is not None:
            _no_out(out, prim_name)
        if isinstance(input, Tensor) and not (float_only and input._data.dtype.kind in "biu"):
            x = input  # (the common case, without the conversions' calls)
        else:
            x = _float_input(input) if float_only else _tensor_arg(input)
        if step:
            return _layout_of(_step_function(name, x, _apply(prim, None, (x,))), x)
        data = x._data
        try:
            if data.ndim < 2 or data.flags.c_contiguous:  # (_layout_of: nothing to do)
                return _apply(prim, name, (x,))
        except AttributeError:  # a tracer has no layout (inside torch.func)
            return _apply(prim, name, (x,))
        return _layout_of(_apply(prim, name, (x,)), x)

    fn.__name__ = prim_name
    fn.__doc__ = (f"Elementwise ``{prim_name}`` (grad_fn ``{name}``"
                  + (", a zero gradient)." if step else ")."))
    return fn


exp = _unary(_pel.exp_p, "ExpBackward0")
exp2 = _unary(_pel.exp2_p, "Exp2Backward0")
expm1 = _unary(_pel.expm1_p, "Expm1Backward0")
log = _unary(_pel.log_p, "LogBackward0")
log2 = _unary(_pel.log2_p, "Log2Backward0")
log10 = _unary(_pel.log10_p, "Log10Backward0")
log1p = _unary(_pel.log1p_p, "Log1PBackward0")
sqrt = _unary(_pel.sqrt_p, "SqrtBackward0")
sin = _unary(_pel.sin_p, "SinBackward0")
cos = _unary(_pel.cos_p, "CosBackward0")
tan = _unary(_pel.tan_p, "TanBackward0")
asin = arcsin = _unary(_pel.arcsin_p, "AsinBackward0")
acos = arccos = _unary(_pel.arccos_p, "AcosBackward0")
atan = arctan = _unary(_pel.arctan_p, "AtanBackward0")
sinh = _unary(_pel.sinh_p, "SinhBackward0")
cosh = _unary(_pel.cosh_p, "CoshBackward0")
tanh = _unary(_pel.tanh_p, "TanhBackward0")
asinh = arcsinh = _unary(_pel.arcsinh_p, "AsinhBackward0")
acosh = arccosh = _unary(_pel.arccosh_p, "AcoshBackward0")
atanh = arctanh = _unary(_pel.arctanh_p, "AtanhBackward0")
sigmoid = _unary(_pnn.sigmoid_p, "SigmoidBackward0")
neg = negative = _unary(_pel.neg_p, "NegBackward0", float_only=False)
abs = absolute = _unary(_pel.abs_p, "AbsBackward0", float_only=False)  # noqa: A001


def _step_function(name, x, out):
    """``out``, a step function of ``x`` (``sign``, ``floor``, ...), recorded as PyTorch
    records it: an operation whose gradient is zero."""
    if not _needs_grad(x) or x._data.dtype.kind not in "fc":
        return out
    # the constant values selected everywhere: ``x`` stays in the graph, with a zero gradient
    return _composite(name, lambda: ops.select(np.ones(x._data.shape, bool), out, x), [x])


sign = _unary(_pel.sign_p, "SignBackward0", float_only=False, step=True)
floor = _unary(_pel.floor_p, "FloorBackward0", float_only=False, step=True)
ceil = _unary(_pel.ceil_p, "CeilBackward0", float_only=False, step=True)
isnan = _unary(_pel.isnan_p, None, float_only=False)
isinf = _unary(_pel.isinf_p, None, float_only=False)
isfinite = _unary(_pel.isfinite_p, None, float_only=False)
__all__ += ["exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sqrt", "sin", "cos",
            "tan", "asin", "arcsin", "acos", "arccos", "atan", "arctan", "sinh", "cosh",
            "tanh", "asinh", "arcsinh", "acosh", "arccosh", "atanh", "arctanh", "sigmoid",
            "neg", "negative", "abs", "absolute", "sign", "floor", "ceil", "isnan", "isinf",
            "isfinite"]


@_public
def relu(input):
    """``max(input, 0)``; the gradient at 0 is 0."""
    x = _tensor_arg(input)
    return _layout_of(_apply(_pnn.relu_p, "ReluBackward0", (x,)), x)


@_public
def round(input, *, decimals=0):  # noqa: A001
    """Round half to even (a zero gradient)."""
    x = _tensor_arg(input)
    name = "RoundBackward0" if decimals == 0 else "RoundBackward1"
    out = _apply(_pel.round_p, None, (x,), {"decimals": int(decimals)})
    return _layout_of(_step_function(name, x, out), x)


@_public
def trunc(input):
    """Round toward zero (a zero gradient)."""
    x = _tensor_arg(input)
    return _layout_of(_step_function("TruncBackward0", x, Tensor._wrap(np.trunc(x._data))), x)


fix = trunc
__all__.append("fix")


@_public
def rsqrt(input):
    """``1 / sqrt(input)``."""
    x = _float_input(input)
    return _composite("RsqrtBackward0", lambda: ops.reciprocal(ops.sqrt(x)), [x])


@_public
def reciprocal(input):
    """``1 / input``."""
    x = _float_input(input)
    return _composite("ReciprocalBackward0", lambda: ops.reciprocal(x), [x])


@_public
def square(input):
    """``input * input`` (grad_fn ``PowBackward0``, as PyTorch's)."""
    return pow(input, 2)


@_public
def erf(input):
    """The error function."""
    x = _float_input(input)
    return _layout_of(_apply(_pnn.erf_p, "ErfBackward0", (x,)), x)


@_public
def clamp(input, min=None, max=None):  # noqa: A002
    """Clamp to ``[min, max]`` (bounds may be tensors); gradient 1 inside the closed interval."""
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    x = _tensor_arg(input)
    lo, hi = min, max
    if isinstance(lo, Tensor) or isinstance(hi, Tensor):
        # PyTorch's node has the three inputs (None for a missing bound)
        inputs = [t if isinstance(t, Tensor) else None for t in (x, lo, hi)]
        return _layout_of(_composite("ClampBackward0", lambda: ops.clip(x, lo, hi), inputs), *inputs)
    if x._data.dtype.kind in "biu":  # a float bound promotes (to the default float dtype)
        dt = _result_np_dtype(x, lo, hi)
        if dt != x._data.dtype:
            x = _cast(x, dt)
    return _apply(_pel.clip_p, "ClampBackward1", (x, lo, hi))


clip = clamp
__all__.append("clip")


@_public
def clamp_min(input, min):  # noqa: A002
    """``clamp(input, min=min)``."""
    return clamp(input, min=min)


@_public
def clamp_max(input, max):  # noqa: A002
    """``clamp(input, max=max)``."""
    return clamp(input, max=max)


@_public
def where(condition, input=None, other=None):
    """``input`` where ``condition`` else ``other`` (``where(cond)``: ``nonzero(cond, as_tuple=True)``)."""
    if input is None and other is None:
        return nonzero(condition, as_tuple=True)
    c = _value(condition)
    x, y = input, other
    dt = _result_np_dtype(*(v for v in (x, y)))
    inputs = [t if isinstance(t, Tensor) else None for t in (x, y)]
    out = _composite("WhereBackward0", lambda: ops.select(c, _cast(x, dt), _cast(y, dt)), inputs)
    return _layout_of(out, condition, x, y)  # (PyTorch's operand order: the condition first)


@_public
def masked_fill(input, mask, value):
    """``value`` where ``mask`` is true, else ``input``."""
    v = _value(value)
    return _contiguous(_composite("MaskedFillBackward0", lambda: ops.select(_value(mask), v, input),
                                  [input]))


# --------------------------------------------------------------------------
# reductions


def _dim_arg(dim, x):
    if dim is None or (isinstance(dim, (list, tuple)) and len(dim) == 0):
        return None
    return dim if isinstance(dim, (list, tuple)) else (dim,)


def _red_axes(dim, x):
    """The axes a reduction over ``dim`` reduces (None: all of them).

    ``dim`` is checked as PyTorch does (0 and -1 are valid for a 0-d
    tensor, whose reduction over them is the tensor itself).
    """
    axes = _dims(_dim_arg(dim, x), x._data.ndim)
    return None if x._data.ndim == 0 else axes


def _on_0d(fn, x):
    """``fn`` (an operation along axis 0) applied to 0-d ``x`` as to a 1-element vector."""
    inner = fn(ops.reshape(x, (1,)))
    out = ops.reshape(inner, ())
    if isinstance(out, Tensor) and isinstance(inner, Tensor):
        out._vc = inner._vc  # a view: writing the result in place changes what fn saved
    return out


@_public
def sum(input, dim=None, keepdim=False, *, dtype=None):  # noqa: A001
    """Sum over ``dim`` (all dimensions if None)."""
    x = _tensor_arg(input)
    if dtype is not None:
        x = x.to(dtype)
    elif x._data.dtype.kind in "bui":
        x = x.to(_dtype.int64)
    axes = _red_axes(dim, x)
    name = "SumBackward0" if dim is None else "SumBackward1"
    if axes is None and not keepdim:
        return _apply(_pst.reduce_sum_p, name, (x,), {"axes": tuple(range(x._data.ndim))})
    if not keepdim and len(axes) == 1:  # the one reduce_sum tnp.sum binds, directly
        return _contiguous(_apply(_pst.reduce_sum_p, name, (x,), {"axes": axes}))
    return _contiguous(_composite(name, tnp.sum, [x], x, axis=axes, keepdims=keepdim))


@_public
def mean(input, dim=None, keepdim=False, *, dtype=None):
    """Mean over ``dim`` (float or complex input).

    Raises
    ------
    RuntimeError
        For integer input (as PyTorch).
    """
    x = _tensor_arg(input)
    if dtype is not None:
        x = x.to(dtype)
    if x._data.dtype.kind not in "fc":
        raise RuntimeError(
            "mean(): could not infer output dtype. Input dtype must be either a floating "
            f"point or complex dtype. Got: {_dtype_name(x)}"
        )
    axes = _red_axes(dim, x)
    out = _contiguous(_composite("MeanBackward0" if dim is None else "MeanBackward1", tnp.mean,
                                 [x], x, axis=axes, keepdims=keepdim))
    if isinstance(out, Tensor) and out._node is not None:
        # the mean saves no value (PyTorch keeps only the sizes): drop the count
        # the final division read, so the graph can be walked twice
        meta = out._node.meta
        meta.saved = [e for e in meta.saved if e[1] is not _CONSTANT]
    return out


def _dtype_name(x):
    return repr(x.dtype).replace("torch.", "").capitalize()


@_public
def prod(input, dim=None, keepdim=False, *, dtype=None):
    """Product over ``dim`` (one dimension, or all if None)."""
    x = _tensor_arg(input)
    if dtype is not None:
        x = x.to(dtype)
    axes = None if dim is None else _dim(dim, x._data.ndim)
    if x._data.ndim == 0:
        axes = None  # dim 0 or -1 of a 0-d tensor: the tensor itself
    return _contiguous(_composite("ProdBackward0" if dim is None else "ProdBackward1", tnp.prod,
                                  [x], x, axis=axes, keepdims=keepdim))


_RETURN_TYPES = {}


def _return_type(name):
    """``torch.return_types.<name>``: a ``(values, indices)`` named tuple that
    prints as PyTorch's does."""
    cls = _RETURN_TYPES.get(name)
    if cls is None:
        base = collections.namedtuple(name, ["values", "indices"])

        def __repr__(self):
            return (f"torch.return_types.{name}(\nvalues={self.values!r},\n"
                    f"indices={self.indices!r})")

        cls = _RETURN_TYPES[name] = type(name, (base,), {
            "__slots__": (), "__repr__": __repr__, "__module__": "torch.return_types"})
    return cls


def _MinMax(values, indices, name="max"):  # noqa: N802 - a named-tuple factory
    return _return_type(name)(values, indices)


def _extremum(which, input, dim, keepdim, other):
    x = _tensor_arg(input)
    if other is not None and not isinstance(dim, numbers.Integral):
        other = dim if other is None else other
    if isinstance(dim, Tensor):  # torch.max(a, b): elementwise
        return (maximum if which == "max" else minimum)(x, dim)
    red = tnp.max if which == "max" else tnp.min
    argred = np.argmax if which == "max" else np.argmin
    if dim is None:
        if x._data.size == 0:
            raise RuntimeError(
                f"{which}(): Expected reduction dim to be specified for input.numel() == 0. "
                "Specify the reduction dim with the 'dim' argument."
            )
        return _composite(f"{which.capitalize()}Backward1", red, [x], x)
    d = _dim(dim, x._data.ndim)
    name = f"{which.capitalize()}Backward0"
    if x._data.ndim == 0:
        values = _composite(name, lambda: ops.add(x, 0), [x])
        return _MinMax(values, Tensor._wrap(np.zeros((), np.int64)), which)
    # the values are taken at the returned indices, so the whole gradient goes
    # to that element (PyTorch's rule at ties; amax/amin split it instead)
    idx = np.expand_dims(argred(x._data, axis=d), d)
    shape = x._data.shape[:d] + (() if not keepdim else (1,)) + x._data.shape[d + 1:]
    values = _contiguous(_composite(
        name, lambda: ops.reshape(tnp.take_along_axis(x, _index(idx), axis=d), shape), [x]))
    if not keepdim:
        idx = np.squeeze(idx, d)
    return _MinMax(values, _int64(idx), which)


@_public
def max(input, dim=None, keepdim=False, *, other=None):  # noqa: A001
    """Maximum: of all elements, or ``(values, indices)`` along ``dim``, or elementwise with a tensor."""
    return _extremum("max", input, dim, keepdim, other)


@_public
def min(input, dim=None, keepdim=False, *, other=None):  # noqa: A001
    """Minimum: of all elements, or ``(values, indices)`` along ``dim``, or elementwise with a tensor."""
    return _extremum("min", input, dim, keepdim, other)


@_public
def amax(input, dim=(), keepdim=False):
    """Maximum over ``dim`` (all dimensions for ``()``); ties split the gradient."""
    x = _tensor_arg(input)
    axes = _red_axes(dim, x)
    return _contiguous(_composite("AmaxBackward0", tnp.max, [x], x, axis=axes, keepdims=keepdim))


@_public
def amin(input, dim=(), keepdim=False):
    """Minimum over ``dim`` (all dimensions for ``()``); ties split the gradient."""
    x = _tensor_arg(input)
    axes = _red_axes(dim, x)
    return _contiguous(_composite("AminBackward0", tnp.min, [x], x, axis=axes, keepdims=keepdim))


@_public
def argmax(input, dim=None, keepdim=False):
    """Index of the maximum (flattened if ``dim`` is None)."""
    x = _tensor_arg(input)
    d = None if dim is None else _dim(dim, x._data.ndim)
    if x._data.ndim == 0:
        d = None
    r = np.argmax(x._data, axis=d, keepdims=keepdim if d is not None else False)
    return _int64(r)


@_public
def argmin(input, dim=None, keepdim=False):
    """Index of the minimum (flattened if ``dim`` is None)."""
    x = _tensor_arg(input)
    d = None if dim is None else _dim(dim, x._data.ndim)
    if x._data.ndim == 0:
        d = None
    r = np.argmin(x._data, axis=d, keepdims=keepdim if d is not None else False)
    return _int64(r)


def _int64(r):
    """Indices computed from a tensor's data as an int64 tensor (inside
    ``torch.func``, ``r`` is a tracer: NumPy dispatched to tracegrad.numpy)."""
    if isinstance(r, Tracer):
        return Tensor._wrap(ops.convert_element_type(r, np.dtype(np.int64)))
    return Tensor._wrap(np.asarray(r, dtype=np.int64))


def _index(idx):
    """An index array computed from a tensor's data, to use with tensors: inside
    ``torch.func`` (a tracer) wrapped as a tensor, so that the operation sees
    only tensors."""
    return Tensor._wrap(idx) if isinstance(idx, Tracer) else idx


def _correction(unbiased, correction):
    if correction is not None:
        return correction
    return 1 if unbiased is None or unbiased else 0


@_public
def var(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """Variance over ``dim`` (Bessel-corrected by default, as PyTorch)."""
    x = _tensor_arg(input)
    if isinstance(dim, bool):  # var(x, unbiased)
        unbiased, dim = dim, None
    axes = _red_axes(dim, x)
    return _contiguous(_composite("VarBackward0", tnp.var, [x], x, axis=axes,
                                  ddof=_correction(unbiased, correction), keepdims=keepdim))


@_public
def std(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """Standard deviation over ``dim`` (Bessel-corrected by default)."""
    x = _tensor_arg(input)
    if isinstance(dim, bool):
        unbiased, dim = dim, None
    axes = _red_axes(dim, x)
    return _contiguous(_composite("StdBackward0", tnp.std, [x], x, axis=axes,
                                  ddof=_correction(unbiased, correction), keepdims=keepdim))


@_public
def logsumexp(input, dim, keepdim=False):
    """``log(sum(exp(input), dim))`` computed stably."""
    x = _float_input(input)
    axes = _red_axes(dim, x)
    return _contiguous(_composite("LogsumexpBackward0", tnn.logsumexp, [x], x, axis=axes,
                                  keepdims=keepdim))


@_public
def norm(input, p="fro", dim=None, keepdim=False, dtype=None):
    """Vector/Frobenius norm (``p`` a number, ``'fro'`` or ``inf``); gradient 0 at zero."""
    x = _tensor_arg(input)
    if dtype is not None:
        x = x.to(dtype)
    ordv = None if p in ("fro", 2, None) else p
    axes = _red_axes(dim, x)
    if axes is None:
        return _composite("LinalgVectorNormBackward0",
                          lambda: tnp.linalg.norm(ops.reshape(x, (x._data.size,)), ord=ordv),
                          [x])
    return _contiguous(_composite("LinalgVectorNormBackward0", tnp.linalg.vector_norm, [x], x,
                                  ord=2 if ordv is None else ordv, axis=axes, keepdims=keepdim))


@_public
def all(input, dim=None, keepdim=False):  # noqa: A001
    """True if every element (along ``dim``) is nonzero (bool tensor)."""
    x = _tensor_arg(input)
    d = None if dim is None else _dims(dim, x._data.ndim)
    return Tensor._wrap(np.asarray(np.all(x._data, axis=d, keepdims=keepdim)))


@_public
def any(input, dim=None, keepdim=False):  # noqa: A001
    """True if any element (along ``dim``) is nonzero (bool tensor)."""
    x = _tensor_arg(input)
    d = None if dim is None else _dims(dim, x._data.ndim)
    return Tensor._wrap(np.asarray(np.any(x._data, axis=d, keepdims=keepdim)))


@_public
def count_nonzero(input, dim=None):
    """Number of nonzero elements (along ``dim``)."""
    x = _tensor_arg(input)
    return Tensor._wrap(np.asarray(np.count_nonzero(x._data, axis=_dims(dim, x._data.ndim)), np.int64))


@_public
def cumsum(input, dim, *, dtype=None):
    """Cumulative sum along ``dim``."""
    x = _tensor_arg(input)
    if dtype is not None:
        x = x.to(dtype)
    d = _dim(dim, x._data.ndim)
    if x._data.ndim == 0:
        return _composite("CumsumBackward0", _on_0d, [x], lambda v: tnp.cumsum(v, axis=0), x)
    return _contiguous(_composite("CumsumBackward0", tnp.cumsum, [x], x, axis=d))


@_public
def cumprod(input, dim, *, dtype=None):
    """Cumulative product along ``dim`` (gradient exact with zeros)."""
    x = _tensor_arg(input)
    if dtype is not None:
        x = x.to(dtype)
    d = _dim(dim, x._data.ndim)
    if x._data.ndim == 0:
        return _composite("CumprodBackward0", _on_0d, [x], lambda v: tnp.cumprod(v, axis=0), x)
    return _contiguous(_composite("CumprodBackward0", tnp.cumprod, [x], x, axis=d))


# --------------------------------------------------------------------------
# shape


def _shape_args(shape):
    if len(shape) == 1 and isinstance(shape[0], (list, tuple, Size)):
        shape = tuple(shape[0])
    return tuple(int(s) for s in shape)


def _infer(shape, size):
    shape = list(shape)
    if shape.count(-1) > 1:
        raise RuntimeError("only one dimension can be inferred")
    if -1 in shape:
        known = 1
        for s in shape:
            if s != -1:
                known *= s
        if known == 0 or size % known:
            raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {size}")
        shape[shape.index(-1)] = size // known
    n = 1
    for s in shape:
        n *= s
    if n != size:
        raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {size}")
    return tuple(shape)


def _view_of(out, src):
    """Mark ``out`` as sharing ``src``'s storage and version counter (a view).

    The view is also registered with its base, whose in-place updates
    regenerate the grad_fn of its live views (see ``_methods._rebase_views``).
    """
    if (isinstance(out, Tensor) and type(out._data) is np.ndarray
            and np.may_share_memory(out._data, src._data)):
        # (detach() and .data alias their source's whole array: not views for autograd)
        view = src._base is not None and src._data is not src._base._data
        base = out._base = src._base if view else src
        out._vc = src._vc
        views = base.__dict__.get("_views")
        if views is None:
            views = base.__dict__["_views"] = weakref.WeakSet()
        views.add(out)
    return out


def _viewable(data, shape):
    """True if ``data`` can take ``shape`` without a copy (the strides allow it)."""
    if type(data) is not np.ndarray:
        return True
    try:
        np.reshape(data, shape, copy=False)
    except ValueError:
        return False
    return True


@_public
def reshape(input, *shape):
    """The data with a new shape (``-1`` infers one dimension).

    A view when the strides allow it (grad_fn ``ViewBackward0`` for a
    contiguous input, ``ReshapeAliasBackward0`` otherwise), else a copy
    (``UnsafeViewBackward0`` of a ``CloneBackward0``), as PyTorch.
    """
    x = _tensor_arg(input)
    new = _infer(_shape_args(shape), x._data.size)
    if type(x._data) is not np.ndarray or x._data.flags.c_contiguous:
        name = "ViewBackward0"
    elif _viewable(x._data, new):
        name = "ReshapeAliasBackward0"
    else:
        return _apply(_pst.reshape_p, "UnsafeViewBackward0", (clone(x),), {"shape": new})
    out = _apply(_pst.reshape_p, name, (x,), {"shape": new})
    return _view_of(out, x)


def view(self, *shape):
    """The data with a new shape, sharing storage (``view(dtype)`` is not supported).

    Raises
    ------
    RuntimeError
        If the strides do not allow the shape without a copy (as PyTorch;
        use ``reshape``).
    """
    if len(shape) == 1 and isinstance(shape[0], _dtype.dtype):
        raise NotImplementedError("view(dtype) is not supported by tracegrad.torch")
    new = _infer(_shape_args(shape), self._data.size)
    if not _viewable(self._data, new):
        raise RuntimeError(
            "view size is not compatible with input tensor's size and stride (at least one "
            "dimension spans across two contiguous subspaces). Use .reshape(...) instead."
        )
    return _view_of(_apply(_pst.reshape_p, "ViewBackward0", (self,), {"shape": new}), self)


@_public
def flatten(input, start_dim=0, end_dim=-1):
    """Merge dimensions ``start_dim`` to ``end_dim`` into one."""
    x = _tensor_arg(input)
    nd = x._data.ndim
    if nd == 0:
        return reshape(x, 1)
    s, e = _dim(start_dim, nd), _dim(end_dim, nd)
    if s == e:
        return x  # as PyTorch: nothing to merge, the tensor itself
    shape = x._data.shape
    n = 1
    for d in shape[s:e + 1]:
        n *= d
    return reshape(x, shape[:s] + (n,) + shape[e + 1:])


@_public
def permute(input, *dims, name="PermuteBackward0"):
    """Reorder dimensions."""
    x = _tensor_arg(input)
    perm = tuple(_dim(d, x._data.ndim) for d in _shape_args(dims))
    if sorted(perm) != list(range(x._data.ndim)):
        raise RuntimeError("permute(): dims must be a permutation of the dimensions")
    out = _apply(_pst.transpose_p, name, (x,), {"axes": perm})
    return _view_of(out, x)


@_public
def transpose(input, dim0, dim1):
    """Swap two dimensions."""
    x = _tensor_arg(input)
    nd = x._data.ndim
    perm = list(range(nd))
    if nd:
        a, b = _dim(dim0, nd), _dim(dim1, nd)
        perm[a], perm[b] = perm[b], perm[a]
    return permute(x, tuple(perm), name="TransposeBackward0")


swapaxes = swapdims = transpose
__all__ += ["swapaxes", "swapdims"]


@_public
def t(input):
    """Transpose of a tensor with at most 2 dimensions."""
    x = _tensor_arg(input)
    if x._data.ndim > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {x._data.ndim}D")
    return permute(x, tuple(range(x._data.ndim - 1, -1, -1)), name="TBackward0")


@_public
def unsqueeze(input, dim):
    """Insert a dimension of size 1 at ``dim``."""
    x = _tensor_arg(input)
    d = _dim(dim, x._data.ndim + 1)
    shape = x._data.shape[:d] + (1,) + x._data.shape[d:]
    out = _apply(_pst.reshape_p, "UnsqueezeBackward0", (x,), {"shape": shape})
    return _view_of(out, x)


@_public
def squeeze(input, dim=None):
    """Remove dimensions of size 1 (only ``dim``, if given)."""
    x = _tensor_arg(input)
    shape = x._data.shape
    if dim is None:
        new = tuple(s for s in shape if s != 1)
        name = "SqueezeBackward0"
    else:
        dims = _dims(dim if isinstance(dim, (list, tuple)) else (dim,), x._data.ndim) if x._data.ndim else ()
        new = tuple(s for i, s in enumerate(shape) if not (i in dims and s == 1))
        name = "SqueezeBackward1" if not isinstance(dim, (list, tuple)) else "SqueezeBackward2"
    out = _apply(_pst.reshape_p, name, (x,), {"shape": new})
    return _view_of(out, x)


@_public
def expand(input, *sizes):
    """Broadcast to ``sizes`` (``-1`` keeps a dimension); a read-only view."""
    x = _tensor_arg(input)
    sizes = _shape_args(sizes)
    lead = len(sizes) - x._data.ndim
    if lead < 0:
        raise RuntimeError(
            f"expand(torch.FloatTensor{{{list(x._data.shape)}}}, size={list(sizes)}): the number of "
            "sizes provided must be greater or equal to the number of dimensions in the tensor"
        )
    shape = tuple(x._data.shape[i - lead] if s == -1 else s for i, s in enumerate(sizes))
    try:
        np.broadcast_shapes(x._data.shape, shape)
    except ValueError:
        raise RuntimeError(
            f"The expanded size of the tensor must match the existing size at non-singleton "
            f"dimensions. Target sizes: {list(sizes)}.  Tensor sizes: {list(x._data.shape)}"
        ) from None
    out = _apply(_pst.broadcast_to_p, "ExpandBackward0", (x,), {"shape": shape})
    return _view_of(out, x)


@_public
def broadcast_to(input, size):
    """Broadcast to ``size``."""
    return expand(input, tuple(size))


@_public
def repeat_interleave(input, repeats, dim=None):
    """Repeat elements (NumPy's ``repeat``)."""
    x = _tensor_arg(input)
    return _composite("RepeatInterleaveBackward0", tnp.repeat, [x], x, _value(repeats), axis=dim)


@_public
def cat(tensors, dim=0, *, out=None):
    """Concatenate along ``dim`` (PyTorch's promotion of the inputs' dtypes)."""
    _no_out(out, "cat")
    ts = [_tensor_arg(t) for t in tensors]
    if not ts:
        raise RuntimeError("torch.cat(): expected a non-empty list of Tensors")
    nonempty = [t for t in ts if not (t._data.ndim == 1 and t._data.size == 0)]
    ts_use = nonempty or ts
    d = _dim(dim, ts_use[0]._data.ndim)
    dt = _result_np_dtype(*ts_use) if len(ts_use) > 1 else ts_use[0]._data.dtype
    cast = [_cast(t, dt) for t in ts_use]
    if _needs_grad(*ts) or builtins.any(_is_traced(t) for t in ts):
        return _contiguous(_composite("CatBackward0", lambda: ops.concatenate(cast, d), ts))
    return Tensor._wrap(np.ascontiguousarray(np.concatenate([_value(c) for c in cast], axis=d)))


concat = concatenate = cat
__all__ += ["concat", "concatenate"]


@_public
def stack(tensors, dim=0, *, out=None):
    """Stack equally shaped tensors along a new dimension ``dim``."""
    _no_out(out, "stack")
    ts = [_tensor_arg(t) for t in tensors]
    if not ts:
        raise RuntimeError("stack expects a non-empty TensorList")
    shape = ts[0]._data.shape
    for i, t in enumerate(ts):
        if t._data.shape != shape:
            raise RuntimeError(
                f"stack expects each tensor to be equal size, but got {list(shape)} at entry 0 "
                f"and {list(t._data.shape)} at entry {i}"
            )
    d = _dim(dim, len(shape) + 1)
    dt = _result_np_dtype(*ts)
    new = shape[:d] + (1,) + shape[d:]
    return _contiguous(_composite(
        "StackBackward0",
        lambda: ops.concatenate([ops.reshape(_cast(t, dt), new) for t in ts], d), ts))


@_public
def hstack(tensors):
    """Concatenate along dimension 1 (0 for 1-D tensors)."""
    ts = [_tensor_arg(t) for t in tensors]
    return cat(ts, 0 if ts[0]._data.ndim == 1 else 1)


@_public
def vstack(tensors):
    """Concatenate along dimension 0 (1-D tensors become rows)."""
    ts = [_tensor_arg(t) for t in tensors]
    return cat([t.unsqueeze(0) if t._data.ndim == 1 else t for t in ts], 0)


@_public
def split(tensor, split_size_or_sections, dim=0):
    """Split into chunks of a size, or of the given sizes."""
    x = _tensor_arg(tensor)
    d = _dim(dim, x._data.ndim)
    n = x._data.shape[d]
    if isinstance(split_size_or_sections, numbers.Integral):
        step = int(split_size_or_sections)
        sizes = [builtins.min(step, n - i) for i in range(0, n, step)] if n else [0]
    else:
        sizes = [int(s) for s in split_size_or_sections]
        if builtins.sum(sizes) != n:
            raise RuntimeError(
                f"split_with_sizes expects split_sizes to sum exactly to {n} (input tensor's "
                f"size at dimension {d}), but got split_sizes={sizes}"
            )
    out, start = [], 0
    for s in sizes:
        out.append(narrow(x, d, start, s, name="SplitBackward0"))
        start += s
    return tuple(out)


@_public
def chunk(input, chunks, dim=0):
    """Split into ``chunks`` nearly equal pieces."""
    x = _tensor_arg(input)
    n = x._data.shape[_dim(dim, x._data.ndim)]
    size = -(-n // int(chunks)) if n else 0
    return split(x, builtins.max(size, 1), dim)


@_public
def unbind(input, dim=0):
    """The slices along ``dim``, as a tuple of tensors."""
    x = _tensor_arg(input)
    d = _dim(dim, x._data.ndim)
    return tuple(select(x, d, i) for i in range(x._data.shape[d]))


@_public
def narrow(input, dim, start, length, name="SliceBackward0"):
    """The slice ``start:start+length`` along ``dim`` (a view)."""
    x = _tensor_arg(input)
    d = _dim(dim, x._data.ndim)
    n = x._data.shape[d]
    start = int(start) + (n if int(start) < 0 else 0)
    starts = [0] * x._data.ndim
    limits = list(x._data.shape)
    starts[d], limits[d] = start, start + int(length)
    out = _apply(_pst.slice_p, name, (x,), {"start_indices": tuple(starts),
                                                 "limit_indices": tuple(limits),
                                                 "strides": (1,) * x._data.ndim})
    return _view_of(out, x)


@_public
def select(input, dim, index):
    """The slice at ``index`` along ``dim``, with that dimension removed."""
    x = _tensor_arg(input)
    d = _dim(dim, x._data.ndim)
    n = x._data.shape[d]
    i = int(index)
    if not -n <= i < n:
        raise IndexError(f"index {i} is out of bounds for dimension {d} with size {n}")
    out = _composite("SelectBackward0", _basic_index, [x], x, (slice(None),) * d + (i % n,))
    return _view_of(out, x)


def _basic_index(x, idx):
    return _np_indexing.getitem(x, idx)


@_public
def flip(input, dims):
    """Reverse the order of elements along ``dims``."""
    x = _tensor_arg(input)
    dims = dims if isinstance(dims, (list, tuple)) else (dims,)
    axes = tuple(_dim(d, x._data.ndim) for d in dims)
    out = _apply(_pst.rev_p, "FlipBackward0", (x,), {"axes": tuple(sorted(axes))})
    return _layout_of(_contiguous(out, x), x)  # a copy, laid out like x (as PyTorch)


@_public
def roll(input, shifts, dims=None):
    """Shift elements cyclically along ``dims`` (the flattened tensor if None)."""
    x = _tensor_arg(input)
    return _composite("RollBackward0", tnp.roll, [x], x, shifts, axis=dims)


@_public
def tril(input, diagonal=0):
    """Lower triangle (elements above the ``diagonal``-th diagonal zeroed)."""
    x = _tensor_arg(input)
    return _composite("TrilBackward0", tnp.tril, [x], x, k=diagonal)


@_public
def triu(input, diagonal=0):
    """Upper triangle (elements below the ``diagonal``-th diagonal zeroed)."""
    x = _tensor_arg(input)
    return _composite("TriuBackward0", tnp.triu, [x], x, k=diagonal)


@_public
def diag(input, diagonal=0):
    """A 1-D tensor's diagonal matrix, or a 2-D tensor's diagonal."""
    x = _tensor_arg(input)
    name = "DiagEmbedBackward0" if x._data.ndim == 1 else "DiagonalBackward0"
    return _composite(name, tnp.diag, [x], x, k=diagonal)


@_public
def diagonal(input, offset=0, dim1=0, dim2=1):
    """The diagonal over ``dim1``, ``dim2``, as the last dimension."""
    x = _tensor_arg(input)
    return _view_of(_composite("DiagonalBackward0", tnp.diagonal, [x], x, offset, dim1, dim2), x)


@_public
def trace(input):
    """Sum of the diagonal of a 2-D tensor."""
    x = _tensor_arg(input)
    return _composite("TraceBackward0", tnp.trace, [x], x)


@_public
def gather(input, dim, index):
    """``out[i][j] = input[i][index[i][j]]`` along ``dim``."""
    x = _tensor_arg(input)
    idx = index if _is_traced(index) else np.asarray(_value(index))
    d = _dim(dim, x._data.ndim)
    return _composite("GatherBackward0", tnp.take_along_axis, [x], x, idx, axis=d)


@_public
def index_select(input, dim, index):
    """The entries ``index`` (a 1-D integer tensor) along ``dim``."""
    x = _tensor_arg(input)
    d = _dim(dim, x._data.ndim)
    idx = index if _is_traced(index) else np.asarray(_value(index))
    return _composite("IndexSelectBackward0", tnp.take, [x], x, idx, axis=d)


@_public
def sort(input, dim=-1, descending=False, stable=False):
    """``(values, indices)`` sorted along ``dim``."""
    x = _tensor_arg(input)
    d = _dim(dim, x._data.ndim)
    idx = np.argsort(-x._data if descending else x._data, axis=d, kind="stable")
    values = _composite("SortBackward0", tnp.take_along_axis, [x], x, _index(idx), axis=d)
    return _MinMax(values, _int64(idx), "sort")


@_public
def argsort(input, dim=-1, descending=False, stable=False):
    """Indices that sort ``input`` along ``dim``."""
    return sort(input, dim, descending, stable)[1]


@_public
def topk(input, k, dim=-1, largest=True, sorted=True):  # noqa: A002
    """The ``k`` largest (or smallest) elements along ``dim``: ``(values, indices)``."""
    x = _tensor_arg(input)
    d = _dim(dim, x._data.ndim)
    order = np.argsort(-x._data if largest else x._data, axis=d, kind="stable")
    idx = np.take(order, np.arange(int(k)), axis=d)
    values = _composite("TopkBackward0", tnp.take_along_axis, [x], x, _index(idx), axis=d)
    return _MinMax(values, _int64(idx), "topk")


@_public
def nonzero(input, *, as_tuple=False):
    """Indices of nonzero elements (no derivative)."""
    x = _tensor_arg(input)
    nz = np.nonzero(x._data)
    if as_tuple:
        return tuple(Tensor._wrap(i.astype(np.int64)) for i in nz)
    return Tensor._wrap(np.stack(nz, axis=1).astype(np.int64) if nz else np.zeros((0, 0), np.int64))


@_public
def clone(input, *, memory_format=None):
    """A copy with its own storage (recorded: ``CloneBackward0``)."""
    x = _tensor_arg(input)
    if _is_traced(x):
        return _apply(_pst.reshape_p, None, (x,), {"shape": x._data.shape})
    if not _needs_grad(x):
        return Tensor._wrap(np.array(x._data))
    out = _composite("CloneBackward0", lambda: ops.add(x, 0), [x])
    if np.may_share_memory(out._data, x._data):
        out._data = np.array(out._data)
    return out


# --------------------------------------------------------------------------
# linear algebra


@_public
def matmul(input, other):
    """Matrix product with broadcasting (1-D operands as vectors)."""
    return _matmul(input, other)


def _matmul(input, other, name=None):
    a, b = _tensor_arg(input), _tensor_arg(other)
    dt = _result_np_dtype(a, b)
    na, nb = a._data.ndim, b._data.ndim
    name = name or _matmul_name(a, b)
    if na == 0 or nb == 0:
        raise RuntimeError("both arguments to matmul need to be at least 1D")
    _check_matmul_shapes(a._data.shape, b._data.shape)
    if a._data.dtype == dt and b._data.dtype == dt and na >= 2 and nb >= 2:
        return _apply(_pla.matmul_p, name, (a, b))  # the primitive takes rank >= 2
    return _composite(name, lambda: tnp.matmul(_cast(a, dt), _cast(b, dt)), [a, b])


def _check_matmul_shapes(sa, sb):
    """RuntimeError (PyTorch's type and, for 1-D and 2-D operands, message) for
    operands whose shapes do not multiply."""
    k = sb[0] if len(sb) == 1 else sb[-2]
    if sa[-1] != k:
        if len(sa) == 1 and len(sb) == 1:
            raise RuntimeError(
                f"inconsistent tensor size, expected tensor [{sa[0]}] and src [{sb[0]}] to have "
                f"the same number of elements, but got {sa[0]} and {sb[0]} elements respectively")
        if len(sa) == 2 and len(sb) == 1:
            raise RuntimeError(f"size mismatch, got input ({sa[0]}), mat ({sa[0]}x{sa[1]}), "
                               f"vec ({sb[0]})")
        rows = sa[-2] if len(sa) > 1 else 1
        cols = sb[-1] if len(sb) > 1 else 1
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({rows}x{sa[-1]} and "
                           f"{k}x{cols})")
    ba, bb = sa[:-2], sb[:-2]
    for i in range(1, builtins.min(len(ba), len(bb)) + 1):
        if ba[-i] != bb[-i] and 1 not in (ba[-i], bb[-i]):
            raise RuntimeError(
                f"The size of tensor a ({ba[-i]}) must match the size of tensor b ({bb[-i]}) at "
                f"non-singleton dimension {builtins.max(len(ba), len(bb)) - i}")


def _matmul_name(a, b):
    """The grad_fn name of PyTorch's ``matmul(a, b)``: the last of the operations
    its ``_matmul_impl`` reduces the product to (dot, mv, mm, a folded mm or
    mv, or a batched bmm, with views around them)."""
    da, db = a._data, b._data
    if type(da) is not np.ndarray or type(db) is not np.ndarray:
        return None  # inside torch.func: not recorded, no name
    ra, rb = a._requires_grad, b._requires_grad
    while True:
        na, nb = da.ndim, db.ndim
        if na <= 2 and nb <= 2:
            return {(1, 1): "DotBackward0", (2, 1): "MvBackward0", (1, 2): "SqueezeBackward4",
                    (2, 2): "MmBackward0"}[(na, nb)]
        if _should_fold(da, db, ra, rb):
            if nb > na and na == 2:  # (matrix) @ (batch): the transposed product, made contiguous
                n, p = da.shape[-2], db.shape[-1]
                return "CloneBackward0" if n > 1 and p > 1 else "TransposeBackward0"
            return "UnsafeViewBackward0"
        if na == 3 and nb == 3 and da.shape[0] != db.shape[0]:
            # a batch of one that requires grad is squeezed away first
            if da.shape[0] == 1 and ra:
                da = da[0]
                continue
            if db.shape[0] == 1 and rb:
                db = db[0]
                continue
        return "UnsafeViewBackward0"


def _should_fold(da, db, ra, rb):
    """PyTorch's ``should_fold``: fold the larger operand's batch into one mm/mv."""
    first_larger = da.ndim >= db.ndim
    t1 = da if first_larger else np.swapaxes(db, -1, -2)
    if not (t1.ndim >= 3 and (db.ndim if first_larger else da.ndim) <= 2):
        return False
    if rb if first_larger else ra:
        return True
    if da.ndim == 2:
        return False
    if t1.size == 0:
        return True
    strides = [st // t1.itemsize for st in t1.strides]
    return builtins.all(strides[i] == strides[i + 1] * t1.shape[i + 1]
                        for i in range(t1.ndim - 2))


@_public
def mm(input, mat2):
    """Product of two 2-D tensors."""
    a, b = _tensor_arg(input), _tensor_arg(mat2)
    if a._data.ndim != 2 or b._data.ndim != 2:
        raise RuntimeError("self must be a matrix" if a._data.ndim != 2 else "mat2 must be a matrix")
    return matmul(a, b)


@_public
def bmm(input, mat2):
    """Batched product of two 3-D tensors."""
    a, b = _tensor_arg(input), _tensor_arg(mat2)
    if a._data.ndim != 3 or b._data.ndim != 3:
        raise RuntimeError("batch1 must be a 3D tensor" if a._data.ndim != 3 else "batch2 must be a 3D tensor")
    return _matmul(a, b, "BmmBackward0")


@_public
def mv(input, vec):
    """Matrix-vector product."""
    return matmul(input, vec)


@_public
def dot(input, other):
    """Dot product of two 1-D tensors."""
    a, b = _tensor_arg(input), _tensor_arg(other)
    if a._data.ndim != 1 or b._data.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {a._data.ndim}D and {b._data.ndim}D tensors")
    return matmul(a, b)


inner = vdot = dot
__all__ += ["inner", "vdot"]


@_public
def outer(input, vec2):
    """Outer product of two 1-D tensors."""
    a, b = _tensor_arg(input), _tensor_arg(vec2)
    return mul(reshape(a, a._data.size, 1), b)  # PyTorch's graph: a reshape, then a product


ger = outer
__all__.append("ger")


@_public
def addmm(input, mat1, mat2, *, beta=1, alpha=1):
    """``beta * input + alpha * (mat1 @ mat2)``."""
    def fn():
        prod_ = ops.matmul(mat1, mat2)
        if alpha != 1:
            prod_ = ops.mul(prod_, alpha)
        base = input if beta == 1 else ops.mul(input, beta)
        return ops.add(base, prod_)

    return _composite("AddmmBackward0", fn, [input, mat1, mat2])


@_public
def einsum(equation, *operands):
    """Einstein summation (``einsum("ij,jk->ik", a, b)``)."""
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    ts = [_tensor_arg(o) for o in operands]
    return _composite(_einsum_name(equation), tnp.einsum, ts, equation, *ts)


def _einsum_name(equation):
    """The grad_fn name of PyTorch's einsum, which is built of other operations:
    the last one is a permute or a sum for one operand, and for more a product
    (``MulBackward0``) or, with summed indices, the view after a ``bmm``."""
    lhs, arrow, rhs = equation.replace(" ", "").partition("->")
    inputs = lhs.split(",")
    labels = "".join(inputs).replace(".", "")
    if not arrow:
        rhs = "".join(sorted(c for c in set(labels) if labels.count(c) == 1))
    summed = set(labels) - set(rhs.replace(".", ""))
    if len(inputs) == 1:
        return "SumBackward1" if summed else "PermuteBackward0"
    return "ViewBackward0" if summed else "MulBackward0"


@_public
def tensordot(a, b, dims=2):
    """Tensor contraction over ``dims`` (an int or a pair of lists)."""
    x, y = _tensor_arg(a), _tensor_arg(b)
    return _composite("TensordotBackward0", tnp.tensordot, [x, y], x, y, axes=dims)


# --------------------------------------------------------------------------
# softmax family (tensor methods and torch functions)


@_public
def softmax(input, dim, dtype=None):
    """Softmax along ``dim``."""
    x = _float_input(input)
    if dtype is not None:
        x = x.to(dtype)
    d = _dim(dim, x._data.ndim)
    if x._data.ndim == 0:
        return _composite("SoftmaxBackward0", _on_0d, [x], lambda v: tnn.softmax(v, axis=0), x)
    return _contiguous(_composite("SoftmaxBackward0", tnn.softmax, [x], x, axis=d))


@_public
def log_softmax(input, dim, dtype=None):
    """Log-softmax along ``dim`` (stable)."""
    x = _float_input(input)
    if dtype is not None:
        x = x.to(dtype)
    d = _dim(dim, x._data.ndim)
    if x._data.ndim == 0:
        return _composite("LogSoftmaxBackward0", _on_0d, [x],
                          lambda v: tnn.log_softmax(v, axis=0), x)
    return _contiguous(_composite("LogSoftmaxBackward0", tnn.log_softmax, [x], x, axis=d))


# --------------------------------------------------------------------------
# dtype conversion


def to(self, *args, dtype=None, device=None, copy=False, non_blocking=False, **kwargs):
    """Convert dtype (``to(torch.float64)``, ``to(other)``); devices: CPU only."""
    target = dtype
    for a in args:
        if isinstance(a, Tensor):
            target = a.dtype
        elif isinstance(a, (_dtype.dtype, type)) or (isinstance(a, np.dtype)):
            target = a
        else:
            check_device(a)
    check_device(device)
    if target is None:
        return clone(self) if copy else self
    target = _dtype.as_dtype(target)
    if target.dtype == self._data.dtype and not copy:
        return self
    if type(self._data) is not np.ndarray:  # inside torch.func
        return _apply(_pst.convert_element_type_p, None, (self,), {"dtype": target.dtype})
    if not _needs_grad(self) or target.dtype.kind not in "fc":
        return Tensor._wrap(self._data.astype(target.dtype))
    return _apply(_pst.convert_element_type_p, "ToCopyBackward0", (self,), {"dtype": target.dtype})


_TORCH_TYPE_NAMES = {"float16": "Half", "float32": "Float", "float64": "Double"}


def _bitwise(np_fn, name):
    def fn(input, other):
        a = _tensor_arg(input)
        dt = _result_np_dtype(a, other)
        if dt.kind not in "biu":
            raise NotImplementedError(
                f'"{name}_cpu" not implemented for '
                f"'{_TORCH_TYPE_NAMES.get(dt.name, dt.name)}'")
        b = other._data if isinstance(other, Tensor) else np.asarray(other)
        return Tensor._wrap(np.asarray(np_fn(a._data.astype(dt, copy=False),
                                             b.astype(dt, copy=False))))

    fn.__name__ = name
    fn.__doc__ = (f"Elementwise {name.split('_')[1].upper()} of the bits of integer or "
                  "bool tensors (no gradient).\n\n    Raises\n    ------\n"
                  "    NotImplementedError\n        For floating-point operands, as "
                  "in PyTorch.\n    ")
    return _public(fn)


bitwise_and = _bitwise(np.bitwise_and, "bitwise_and")
bitwise_or = _bitwise(np.bitwise_or, "bitwise_or")
bitwise_xor = _bitwise(np.bitwise_xor, "bitwise_xor")
