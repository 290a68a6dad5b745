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
"""
import math

import numba
import numpy as np

from ..primitives import _vecmath_kernels as _vk
from ..primitives._vecmath_kernels import fexp

__all__ = ["NAMESPACE", "fexp", "fsin", "fcos", "ftanh"]

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


@numba.njit(inline="always")
def ftanh(x):
    """``tanh(x)`` for every float64 ``x`` (vecmath's tanh kernel, one element):
    ``expm1(2|x|) / (expm1(2|x|) + 2)`` with the sign put back."""
    xf = np.float64(x)
    a = min(abs(xf), 20.0)  # tanh(20) rounds to 1
    y = a + a
    t = y * _vk._LOG2E + _vk._SHIFT
    kf = t - _vk._SHIFT
    r = (y - kf * _vk._LN2_HI) - kf * _vk._LN2_LO
    s = _vk._pow2_of_shifted(t)
    e = s * _vk._expm1_reduced(r) + (s - 1.0)
    v = e / (e + 2.0)
    v = -v if xf < 0.0 else v
    v = xf if xf == 0.0 else v
    return xf if xf != xf else v


#: The globals of every generated module.
NAMESPACE = {"math": math, "np": np, "fexp": fexp, "fsin": fsin, "fcos": fcos, "ftanh": ftanh,
             "TRIG_MAX": _TRIG_MAX}
