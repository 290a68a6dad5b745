"""Primitives of Bessel functions (for ``tracegrad.scipy.special``).

``bessel_j0``, ``bessel_j1``, ``bessel_y0``, ``bessel_y1`` (orders 0 and 1)
and ``bessel_jv``, ``bessel_yv``, ``bessel_iv``, ``bessel_ive`` (a real
order ``v``, a static Python float param): one block each, with its impl,
abstract eval, JVP and VJP written with these same primitives (so every
order of derivative in ``x`` works) and batching rule.  The order is not
differentiated: it is a param, not an operand.

The impls call SciPy's ufuncs (``scipy.special.j0`` ...; Cephes and AMOS
underneath; ``iv``/``ive`` of order 0 and 1 call Cephes' ``i0``, ``i1``,
``i0e``, ``i1e``): SciPy is an optional extra, and an impl without it raises an
ImportError naming ``pip install -e ".[scipy]"``.  Each impl computes in
float64 and rounds the result once to the operand's float type (float32
stays float32, integers give float64).

The derivatives are the recurrences of Abramowitz & Stegun 9.1.27 and
9.6.26 (DLMF 10.6.1, 10.29.1), written without a division by ``x`` so
they hold at ``x = 0`` too:

* ``J0' = -J1``, ``Y0' = -Y1``;
* ``C_v' = (C_{v-1} - C_{v+1}) / 2`` for ``C = J, Y`` (``J1' = (J0 - J2) / 2``,
  equal to ``J0 - J1 / x``);
* ``I_v' = (I_{v-1} + I_{v+1}) / 2``;
* ``ive(v, x) = I_v(x) exp(-|x|)``, so
  ``ive' = (ive(v-1) + ive(v+1)) / 2 - sign(x) ive(v, x)``.
"""
import numpy as np

from . import ops
from .batching import defbatch_elementwise
from .core import Primitive
from .elementwise import _elementwise_aval
from .special import _def_rule, _run_scipy

__all__ = ["bessel_iv", "bessel_ive", "bessel_j0", "bessel_j1", "bessel_jv", "bessel_y0",
           "bessel_y1", "bessel_yv"]

def _aval(x, **params):
    return np.sin(x)


def _prim(name, impl):
    prim = Primitive(name)
    prim.def_impl(impl)
    prim.def_abstract_eval(_elementwise_aval(_aval))
    defbatch_elementwise(prim)
    return prim


# ==========================================================================
# J0, J1, Y0, Y1: the orders 0 and 1 (Cephes j0, j1, y0, y1 in SciPy)

bessel_j0_p = _prim("bessel_j0", lambda x: _run_scipy("j0", x))
bessel_j1_p = _prim("bessel_j1", lambda x: _run_scipy("j1", x))
bessel_y0_p = _prim("bessel_y0", lambda x: _run_scipy("y0", x))
bessel_y1_p = _prim("bessel_y1", lambda x: _run_scipy("y1", x))

# J0' = -J1, Y0' = -Y1
_def_rule(bessel_j0_p, lambda ans, x: ops.neg(bessel_j1(x)))
_def_rule(bessel_y0_p, lambda ans, x: ops.neg(bessel_y1(x)))
# J1' = (J0 - J2) / 2 (= J0 - J1 / x, with its limit 1/2 at x = 0); the same for Y
_def_rule(bessel_j1_p, lambda ans, x: ops.mul(0.5, ops.sub(bessel_j0(x), bessel_jv(x, 2.0))))
_def_rule(bessel_y1_p, lambda ans, x: ops.mul(0.5, ops.sub(bessel_y0(x), bessel_yv(x, 2.0))))


def bessel_j0(x):
    """``J_0(x)``, the Bessel function of the first kind of order 0."""
    return bessel_j0_p.bind(x)


def bessel_j1(x):
    """``J_1(x)``, the Bessel function of the first kind of order 1."""
    return bessel_j1_p.bind(x)


def bessel_y0(x):
    """``Y_0(x)``, the Bessel function of the second kind of order 0 (NaN for x < 0)."""
    return bessel_y0_p.bind(x)


def bessel_y1(x):
    """``Y_1(x)``, the Bessel function of the second kind of order 1 (NaN for x < 0)."""
    return bessel_y1_p.bind(x)


# ==========================================================================
# J_v, Y_v of a real order v (SciPy's jv, yv: AMOS and Cephes)

bessel_jv_p = _prim("bessel_jv", lambda x, v: _run_scipy("jv", v, x))
bessel_yv_p = _prim("bessel_yv", lambda x, v: _run_scipy("yv", v, x))

# C_v' = (C_{v-1} - C_{v+1}) / 2, C = J or Y (A&S 9.1.27)
_def_rule(bessel_jv_p, lambda ans, x, v: ops.mul(
    0.5, ops.sub(bessel_jv(x, v - 1.0), bessel_jv(x, v + 1.0))))
_def_rule(bessel_yv_p, lambda ans, x, v: ops.mul(
    0.5, ops.sub(bessel_yv(x, v - 1.0), bessel_yv(x, v + 1.0))))


def bessel_jv(x, v):
    """``J_v(x)`` for a static real order ``v`` (a Python float)."""
    return bessel_jv_p.bind(x, v=float(v))


def bessel_yv(x, v):
    """``Y_v(x)`` for a static real order ``v`` (a Python float)."""
    return bessel_yv_p.bind(x, v=float(v))


# ==========================================================================
# I_v and the scaled ive(v, x) = I_v(x) exp(-|x|) (SciPy's iv, ive: AMOS)

# orders 0 and 1 go to SciPy's Cephes i0, i1, i0e, i1e, more accurate than
# AMOS' iv near 0 (iv(1, 1e-300) underflows to 0 there)
_IV_CEPHES = {0.0: "i0", 1.0: "i1"}


def _iv_impl(x, v, scaled):
    name = _IV_CEPHES.get(v)
    if name is not None:
        return _run_scipy(name + "e" if scaled else name, x)
    return _run_scipy("ive" if scaled else "iv", v, x)


bessel_iv_p = _prim("bessel_iv", lambda x, v: _iv_impl(x, v, False))
bessel_ive_p = _prim("bessel_ive", lambda x, v: _iv_impl(x, v, True))

# I_v' = (I_{v-1} + I_{v+1}) / 2 (A&S 9.6.26)
_def_rule(bessel_iv_p, lambda ans, x, v: ops.mul(
    0.5, ops.add(bessel_iv(x, v - 1.0), bessel_iv(x, v + 1.0))))
# ive' = (ive(v-1) + ive(v+1)) / 2 - sign(x) ive(v, x)
_def_rule(bessel_ive_p, lambda ans, x, v: ops.sub(
    ops.mul(0.5, ops.add(bessel_ive(x, v - 1.0), bessel_ive(x, v + 1.0))),
    ops.mul(ops.sign(x), ans)))


def bessel_iv(x, v):
    """``I_v(x)``, the modified Bessel function of the first kind, static real ``v``."""
    return bessel_iv_p.bind(x, v=float(v))


def bessel_ive(x, v):
    """``I_v(x) exp(-|x|)``, the exponentially scaled ``I_v``, static real ``v``."""
    return bessel_ive_p.bind(x, v=float(v))
