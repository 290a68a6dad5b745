"""The scalar functions generated loops call (imports Numba: loaded by the
code generator only).

The lowering of a primitive names its scalar function in its
``Elementwise`` expression (``exp_p.lowering = Elementwise("fexp({0})")``);
the names resolve here.  ``math.*`` is the C library (exact, but a call per
element: the loop does not vectorize); the ``f*`` functions are the
branch-free polynomial versions of :mod:`tracegrad.primitives.vecmath`
(LLVM vectorizes them), valid where the lowering's ``check`` is false.
Switching a primitive to another helper's function is the one-line change
of its expression, plus the name here.

In use: ``fexp``, ``fsin``/``fcos`` (with the trig ``check``), ``ftanh``,
``flog``, ``flog1p``, ``fexpm1``, ``fpow`` (float64 only: in a loop float32
``powf`` is faster), ``ferf`` and ``fsigmoid``; each lowering keeps the
``math.*`` form as its ``exact`` expression (``sgamma`` is
:func:`tracegrad.primitives._special_kernels.gamma`, the eager kernel's
scalar function, so jit and eager give the same values), which clusters below
``codegen.FAST_MATH_MIN_SIZE`` elements use.  Inlining the polynomials
costs compile time: ``tg.jit(tg.grad(f))`` of a 1e6-element mix of all of
them took 3.8-4.1 s of CPU for its first call against 2.4-2.6 s with
``math.*``, and its calls 33-35 ms against 71-75 ms.
"""
import math

import numba
import numpy as np

from ..primitives import _special_kernels as _sk
from ..primitives import _vecmath_kernels as _vk
from ..primitives._vecmath_kernels import fexp

__all__ = ["NAMESPACE", "fexp", "fsin", "fcos", "ftanh", "flog", "flog1p", "fexpm1", "fpow",
           "ferf", "fsigmoid"]

_TRIG_MAX = _vk._TRIG_MAX


@numba.njit(inline="always")
def fsin(x):
    """``sin(x)`` for ``|x| <= 1e5`` (vecmath's range reduction); ``sin(+-0) = +-0``."""
    v = _vk._trig(x, 0)
    return x if x == 0.0 else v


@numba.njit(inline="always")
def fcos(x):
    """``cos(x)`` for ``|x| <= 1e5``."""
    return _vk._trig(x, 1)


#: ``tanh``, ``log``, ``log1p``, ``expm1``, ``pow`` (``x ** y``), ``erf`` and
#: the logistic sigmoid for every float64 argument (NumPy's special values
#: included; :mod:`tracegrad.primitives.vecmath` documents their accuracy,
#: within 2 ulp): no ``check`` needed.
ftanh = _vk.tanh_f64
flog = _vk.log_f64
flog1p = _vk.log1p_f64
fexpm1 = _vk.expm1_f64
fpow = _vk.pow_f64
ferf = _vk.erf_f64
fsigmoid = _vk.sigmoid_f64


#: The globals of every generated module.
NAMESPACE = {"math": math, "np": np, "fexp": fexp, "fsin": fsin, "fcos": fcos, "ftanh": ftanh,
             "flog": flog, "flog1p": flog1p, "fexpm1": fexpm1, "fpow": fpow, "ferf": ferf,
             "fsigmoid": fsigmoid, "TRIG_MAX": _TRIG_MAX, "sgamma": _sk.gamma,
             "slogit": _sk.logit, "sentr": _sk.entr, "sxlog1py": _sk.xlog1py,
             "sxlogy": _sk.xlogy, "sbeta": _sk.beta,
             "spoch": _sk.poch}
