"""``tracegrad.torch``: PyTorch's tensor and autograd API on tracegrad.

``import tracegrad.torch as torch`` gives tensors with ``requires_grad``,
``grad_fn``, ``.backward()``, ``.grad``, ``no_grad``, ``autograd.grad``, and
(in submodules) ``nn``, ``optim`` and ``testing``.  The derivatives are
tracegrad's: every operation is made of tracegrad primitives, recorded by the
same reverse-mode machinery as ``tracegrad.vjp``.  CPU only.  The submodules
``autograd``, ``cuda``, ``func``, ``linalg``, ``nn``, ``optim``, ``special``, ``testing``,
``utils`` and ``viz`` are imported with the package, as PyTorch's.  See the README
section "PyTorch compatibility" for what is supported and the differences.
"""
from . import _dtype
from ._dtype import (  # noqa: F401
    bool, cdouble, cfloat, complex64, complex128, double, dtype, float, float16,
    float32, float64, get_default_dtype, half, int, int8, int16, int32, int64, long,
    set_default_dtype, short, uint8,
)
from ._grad_mode import (  # noqa: F401
    enable_grad, inference_mode, is_anomaly_check_nan_enabled, is_anomaly_enabled,
    is_grad_enabled, is_inference_mode_enabled, no_grad, set_grad_enabled,
)
from . import _autograd  # noqa: F401  (first: it imports ._tensor at its end)
from ._tensor import Size, Tensor, device  # noqa: F401
from . import _methods  # noqa: F401  (installs the Tensor methods)
from ._ops import *  # noqa: F401,F403
from ._ops import __all__ as _ops_all
from ._creation import *  # noqa: F401,F403
from ._creation import __all__ as _creation_all
from ._ops_more import *  # noqa: F401,F403
from ._ops_more import __all__ as _ops_more_all
from . import autograd  # noqa: F401

class _LegacyTensorType(type):
    """``isinstance(t, torch.FloatTensor)``: a Tensor of that dtype, as in PyTorch."""

    def __instancecheck__(cls, obj):
        return isinstance(obj, Tensor) and obj.dtype == cls.dtype


def _legacy_tensor_type(name, dt):
    def __new__(cls, *args, device=None):
        # FloatTensor([1, 2]) copies data; FloatTensor(2, 3) is uninitialized (zeros here)
        return Tensor(*args, device=device, dtype=dt)

    return _LegacyTensorType(name, (), {"__new__": __new__, "dtype": dt, "__doc__":
                                        f"Legacy constructor of {dt} tensors "
                                        f"(``torch.{name}``)."})


FloatTensor = _legacy_tensor_type("FloatTensor", float32)
DoubleTensor = _legacy_tensor_type("DoubleTensor", float64)
HalfTensor = _legacy_tensor_type("HalfTensor", float16)
LongTensor = _legacy_tensor_type("LongTensor", int64)
IntTensor = _legacy_tensor_type("IntTensor", int32)
ShortTensor = _legacy_tensor_type("ShortTensor", int16)
ByteTensor = _legacy_tensor_type("ByteTensor", uint8)
BoolTensor = _legacy_tensor_type("BoolTensor", bool)


from ._format import get_printoptions, printoptions, set_printoptions  # noqa: F401,E402


def _inplace_function(name):
    def fn(input, *args, **kwargs):
        return getattr(input, name)(*args, **kwargs)

    fn.__name__ = name
    fn.__doc__ = f"``input.{name}(...)``: the in-place operation as a function."
    return fn


for _name in (
    "abs_", "clamp_", "clip_", "detach_", "exp_", "fill_", "log_", "neg_", "relu_",
    "sigmoid_", "sqrt_", "tanh_", "zero_", "sin_", "cos_", "tan_", "asin_", "arcsin_",
    "acos_", "arccos_", "atan_", "arctan_", "sinh_", "cosh_", "asinh_", "arcsinh_", "acosh_",
    "arccosh_", "atanh_", "arctanh_", "exp2_", "expm1_", "log2_", "log10_", "log1p_",
    "rsqrt_", "reciprocal_", "square_", "floor_", "ceil_", "round_", "trunc_", "fix_",
    "erf_", "negative_", "clamp_min_", "clamp_max_",
):
    globals()[_name] = _inplace_function(_name)
del _name


def is_floating_point(input):
    """True for a floating-point tensor."""
    return input.is_floating_point()


def is_complex(input):
    """True for a complex tensor."""
    return input.is_complex()


# The submodules, loaded with the package as PyTorch's (together they add about
# a tenth to the import time); a name that is not here is an AttributeError, so
# hasattr(torch, "jit") is False.
from . import cuda, distributions, func, linalg, nn, optim, special, testing, utils, viz  # noqa: E402,F401
from .serialization import load, save  # noqa: E402,F401


from ._compile import compile  # noqa: E402,F401  (after nn: it compiles modules)

__version__ = "2.13.0+tracegrad"
