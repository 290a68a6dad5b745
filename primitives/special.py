"""Primitives of special functions (for ``tracegrad.scipy.special``).

``erfc``, ``lgamma``, ``gamma``, ``polygamma`` (digamma at ``n = 0``),
``erfcx``, ``ndtr``, ``log_ndtr``, ``ndtri``, ``betaln`` and the incomplete
gamma and beta functions ``igamma``, ``igammac``, ``betainc``, ``betaincc``
(values from SciPy, derivatives in ``x`` only): one block each, with its
impl (a Numba loop of :mod:`._special_kernels`, which holds the methods
and their sources), abstract eval, JVP and VJP written with primitives (so
every order works: ``polygamma(n)' = polygamma(n + 1)``), batching rule and,
where the scalar function is one C-library call, its ``lowering`` for jit.

``bessel_i`` (``I_n(x) / x**n``, optionally scaled by ``exp(-|x|)``) and
``zeta`` (Hurwitz) have Numba kernels too; ``exp1``, ``expi``, ``expn`` and
``riemann_zeta`` call SciPy in their impls (an optional extra), with their
derivatives written with primitives.

Each impl computes in float64 and rounds the result once to the operands'
float type (NumPy's promotion: float32 stays float32, integers give
float64).
"""
import math

import numpy as np

from . import ops
from .batching import defbatch_elementwise
from .core import Primitive, defjvp, defvjp
from .elementwise import _elementwise_aval
from .kernels import call_ufunc, ensure_numba, launch
from .lowering import Elementwise, same_float
from .structural import defvjp_broadcasting

__all__ = ["erfc", "lgamma", "gamma", "digamma", "polygamma", "erfcx", "ndtr", "log_ndtr",
           "ndtri",
           "betaln",
           # spmore (issue 11)
           "bessel_i", "expn", "exp1", "expi", "zeta", "riemann_zeta",
           # spinc (issue 11)
           "igamma", "igammac", "betainc", "betaincc", "dawsn", "spence",
           # compositions fused into one kernel (issue 11)
           "logit", "entr", "xlog1py", "xlogy", "beta", "poch"]

_sk = None  # the module primitives._special_kernels, once imported

#: Calls on at least this many elements are split over :func:`.kernels.num_threads`
#: threads (the Numba kernels release the GIL, and so do SciPy's ufuncs).  A
#: special function costs 10-500 ns per element, so from 16384 elements a
#: thread's start (about 50 us) is repaid; results do not depend on the split.
PARALLEL_MIN_SIZE = 1 << 14


def _kernels():
    """The kernel module :mod:`._special_kernels` (imports Numba on first use)."""
    global _sk
    if _sk is None:
        ensure_numba()
        from . import _special_kernels  # lazy: imports Numba (and compiles) on first use

        _sk = _special_kernels
    return _sk


def _sample(x):
    """A 0-d stand-in of ``x`` for NumPy's promotion (Python scalars stay weak)."""
    return x if isinstance(x, (int, float)) else np.zeros((), np.asarray(x).dtype)


def _run(name, *xs, leading=()):
    """``kernel(*leading, *flat float64 operands, flat out)`` over the broadcast
    operands, rounded to their NumPy float result type (``np.sin``'s for
    one operand, ``np.arctan2``'s for two)."""
    dtype = (np.sin if len(xs) == 1 else np.arctan2)(*map(_sample, xs)).dtype
    arrays = np.broadcast_arrays(*[np.asarray(x, np.float64) for x in xs])
    flat = [np.ascontiguousarray(a).reshape(-1) for a in arrays]
    out = np.empty(flat[0].size, np.float64)
    launch(getattr(_sk or _kernels(), name), flat, out, PARALLEL_MIN_SIZE, leading=leading)
    return out.reshape(arrays[0].shape).astype(dtype, copy=False)[()]


def _unary(name, kernel, lowering=None):
    prim = Primitive(name)
    prim.def_impl(lambda x: _run(kernel, x))
    prim.def_abstract_eval(_elementwise_aval(np.sin))
    if lowering is not None:
        prim.lowering = Elementwise(lowering, accepts=same_float)
    defbatch_elementwise(prim)
    return prim


def _def_rule(prim, deriv):
    """JVP and VJP ``g * deriv(ans, x)`` of a unary elementwise ``prim``."""
    defjvp(prim, lambda g, ans, x, **p: ops.mul(g, deriv(ans, x, **p)))
    defvjp(prim, lambda g, ans, x, **p: ops.mul(g, deriv(ans, x, **p)))


def _scipy_special(name):
    try:
        import scipy.special as scipy_special  # lazy: SciPy is optional
    except ImportError as e:
        raise ImportError(f"tracegrad.scipy.special.{name} computes its values with SciPy: "
                          'install SciPy (pip install -e ".[scipy]" or pip install scipy)') from e
    return getattr(scipy_special, name)


def _run_scipy(name, *xs):
    """SciPy's ``name`` of the broadcast operands in float64, rounded to
    their NumPy float result type."""
    dtype = _float_type(*map(_sample, xs))
    arrays = [np.asarray(x, np.float64) for x in xs]
    out = call_ufunc(_scipy_special(name), arrays, PARALLEL_MIN_SIZE)
    return np.asarray(out).astype(dtype, copy=False)[()]


def _float_type(*samples):
    """NumPy 2's float result type of ``samples`` (Python scalars weak, ints -> float64)."""
    if all(isinstance(s, (bool, int, float)) for s in samples):
        return np.dtype(np.float64)
    return np.result_type(*samples, np.float16)


_aval_of_reals = _elementwise_aval(lambda *xs: np.zeros((), _float_type(*xs)))


def _scipy_elementwise(name, scipy_name):
    """An elementwise primitive whose impl is SciPy's ufunc ``scipy_name``."""
    prim = Primitive(name)
    prim.def_impl(lambda *xs: _run_scipy(scipy_name, *xs))
    prim.def_abstract_eval(_aval_of_reals)
    defbatch_elementwise(prim)
    return prim


_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)
_SQRT_2PI = math.sqrt(2.0 * math.pi)
_INV_SQRT_2PI = 1.0 / _SQRT_2PI


# ==========================================================================
# erfc = 1 - erf, accurate in the upper tail

erfc_p = _unary("erfc", "erfc_kernel", "math.erfc({0})")
# erfc'(x) = -2 / sqrt(pi) exp(-x**2)
_def_rule(erfc_p, lambda ans, x: ops.mul(-_TWO_OVER_SQRT_PI, ops.exp(ops.neg(ops.square(x)))))


def erfc(x):
    """Complementary error function ``1 - erf(x)`` (the C library's ``erfc``)."""
    return erfc_p.bind(x)


# ==========================================================================
# polygamma(x, n): the n-th derivative of digamma (n = 0: digamma itself)

polygamma_p = Primitive("polygamma")
polygamma_p.def_impl(lambda x, n: _run("polygamma_kernel", x, leading=(n,)))
polygamma_p.def_abstract_eval(_elementwise_aval(lambda x, n: np.sin(x)))
defbatch_elementwise(polygamma_p)
_def_rule(polygamma_p, lambda ans, x, n: polygamma(n + 1, x))


def polygamma(n, x):
    """``psi^(n)(x)``, the ``n``-th derivative of digamma, elementwise.

    ``n`` is a static non-negative Python int (0 gives digamma); the
    derivative in ``x`` is ``polygamma(n + 1, x)``.
    """
    return polygamma_p.bind(x, n=int(n))


def digamma(x):
    """``psi(x) = Gamma'(x) / Gamma(x)``, elementwise (``polygamma(0, x)``)."""
    return polygamma_p.bind(x, n=0)


# ==========================================================================
# lgamma = log|Gamma|, gamma

lgamma_p = _unary("lgamma", "lgamma_kernel", "math.lgamma({0})")
_def_rule(lgamma_p, lambda ans, x: digamma(x))


def lgamma(x):
    """``log|Gamma(x)|`` (the C library's ``lgamma``; ``inf`` at 0, -1, -2, ...)."""
    return lgamma_p.bind(x)


gamma_p = _unary("gamma", "gamma_kernel", "sgamma({0})")
_def_rule(gamma_p, lambda ans, x: ops.mul(ans, digamma(x)))


def gamma(x):
    """``Gamma(x)`` (``+-inf`` at ``+-0``, NaN at the negative integers and
    ``-inf``, as SciPy; a Numba kernel, :func:`._special_kernels.gamma`)."""
    return gamma_p.bind(x)


# ==========================================================================
# erfcx(x) = exp(x**2) erfc(x)

erfcx_p = _unary("erfcx", "erfcx_kernel")
# erfcx'(x) = 2 x erfcx(x) - 2 / sqrt(pi)
_def_rule(erfcx_p, lambda ans, x: ops.sub(ops.mul(ops.mul(2.0, x), ans), _TWO_OVER_SQRT_PI))


def erfcx(x):
    """The scaled complementary error function ``exp(x**2) erfc(x)``."""
    return erfcx_p.bind(x)


# ==========================================================================
# ndtr = Phi, the standard normal CDF

ndtr_p = _unary("ndtr", "ndtr_kernel")
# Phi'(x) = phi(x) = exp(-x**2 / 2) / sqrt(2 pi)
_def_rule(ndtr_p, lambda ans, x: ops.mul(_INV_SQRT_2PI, ops.exp(ops.mul(-0.5, ops.square(x)))))


def ndtr(x):
    """The standard normal CDF ``Phi(x)``, accurate in the lower tail."""
    return ndtr_p.bind(x)


# ==========================================================================
# log_ndtr = log Phi

log_ndtr_p = _unary("log_ndtr", "log_ndtr_kernel")
# (log Phi)'(x) = phi(x) / Phi(x) = exp(-x**2 / 2 - log Phi(x)) / sqrt(2 pi): no underflow
_def_rule(log_ndtr_p, lambda ans, x: ops.mul(
    _INV_SQRT_2PI, ops.exp(ops.sub(ops.mul(-0.5, ops.square(x)), ans))))


def log_ndtr(x):
    """``log(Phi(x))``, Phi the standard normal CDF, accurate in both tails."""
    return log_ndtr_p.bind(x)


# ==========================================================================
# ndtri = Phi**-1

ndtri_p = _unary("ndtri", "ndtri_kernel")
# (Phi**-1)'(p) = 1 / phi(Phi**-1(p)) = sqrt(2 pi) exp(ans**2 / 2)
_def_rule(ndtri_p, lambda ans, x: ops.mul(_SQRT_2PI, ops.exp(ops.mul(0.5, ops.square(ans)))))


def ndtri(p):
    """The standard normal quantile ``Phi**-1(p)`` (``-inf`` at 0, ``inf`` at 1)."""
    return ndtri_p.bind(p)


# ==========================================================================
# betaln(a, b) = log|B(a, b)|

betaln_p = Primitive("betaln")
betaln_p.def_impl(lambda a, b: _run("betaln_kernel", a, b))
betaln_p.def_abstract_eval(_elementwise_aval(np.arctan2))
defbatch_elementwise(betaln_p)


# d/da log B(a, b) = psi(a) - psi(a + b), and symmetrically in b
def _betaln_da(g, ans, a, b):
    return ops.mul(g, ops.sub(digamma(a), digamma(ops.add(a, b))))


def _betaln_db(g, ans, a, b):
    return ops.mul(g, ops.sub(digamma(b), digamma(ops.add(a, b))))


defjvp(betaln_p, _betaln_da, _betaln_db)
defvjp_broadcasting(betaln_p, _betaln_da, _betaln_db)


def betaln(a, b):
    """``log|B(a, b)|``, ``B = Gamma(a) Gamma(b) / Gamma(a + b)``, broadcast."""
    return betaln_p.bind(a, b)


# ==========================================================================
# spmore (issue 11): modified Bessel functions, exponential integrals, zeta

# bessel_i(x, n, scaled) = I_n(x) / x**n (times exp(-|x|) when scaled): even,
# entire, and d/dx = x bessel_i(n + 1) (minus sign(x) bessel_i(n) when
# scaled), so every derivative order is a bessel_i with no 0/0 at x = 0
bessel_i_p = Primitive("bessel_i")
bessel_i_p.def_impl(lambda x, n, scaled: _run("bessel_i_kernel", x, leading=(n, scaled)))
bessel_i_p.def_abstract_eval(_elementwise_aval(lambda x, n, scaled: np.sin(x)))
defbatch_elementwise(bessel_i_p)


def _bessel_i_deriv(ans, x, n, scaled):
    up = ops.mul(x, bessel_i(n + 1, x, scaled))
    return ops.sub(up, ops.mul(ops.sign(x), ans)) if scaled else up


_def_rule(bessel_i_p, _bessel_i_deriv)


def bessel_i(n, x, scaled=False):
    """``I_n(x) / x**n`` (``n`` a static int >= 0), times ``exp(-|x|)`` if ``scaled``.

    Even in ``x``, finite at 0 (``1 / (2**n n!)``); ``inf`` at ``+-inf``
    unscaled, 0 scaled.  Power series / asymptotic expansion (see
    :mod:`._special_kernels`).
    """
    return bessel_i_p.bind(x, n=int(n), scaled=bool(scaled))


# expn(n, x): SciPy's (Cephes expn.c) in the impl; d/dx E_n = -E_{n-1}
# (n >= 1), d/dx E_0 = d/dx e**-x / x = -E_0 (1 + 1/x); no derivative in n


def _expn_impl(n, x):
    dtype = np.arctan2(_sample(n), _sample(x)).dtype
    n64 = np.asarray(n, np.float64)
    valid = np.isfinite(n64) & (n64 == np.floor(n64))
    out = _run_scipy("expn", np.where(valid, n64, -1.0), x)  # (SciPy would truncate n)
    return np.where(valid, out, np.nan).astype(dtype, copy=False)[()]


expn_p = Primitive("expn")
expn_p.def_impl(_expn_impl)
expn_p.def_abstract_eval(_elementwise_aval(np.arctan2))
defbatch_elementwise(expn_p)


def _expn_dx(g, ans, n, x):
    zero = ops.eq(n, 0.0)
    lower = expn(ops.select(zero, ops.ones_like(n), ops.sub(n, 1.0)), x)
    at_zero = ops.mul(ans, ops.add(1.0, ops.div(1.0, x)))
    return ops.mul(g, ops.neg(ops.select(zero, at_zero, lower)))


defjvp(expn_p, None, _expn_dx)
defvjp_broadcasting(expn_p, None, _expn_dx)


def expn(n, x):
    """``E_n(x) = int_1^inf exp(-x t) / t**n dt`` (SciPy's values), broadcast."""
    return expn_p.bind(n, x)


# exp1(x) = E_1(x): SciPy's (its own routine, not expn's) in the impl;
# E_1'(x) = -e**-x / x

exp1_p = _scipy_elementwise("exp1", "exp1")
_def_rule(exp1_p, lambda ans, x: ops.neg(ops.div(ops.exp(ops.neg(x)), x)))


def exp1(x):
    """The exponential integral ``E_1(x)`` (SciPy's values; NaN for ``x < 0``)."""
    return exp1_p.bind(x)


# expi(x) = Ei(x): SciPy's (Cephes expn.c's ei) in the impl; Ei'(x) = e**x / x

expi_p = _scipy_elementwise("expi", "expi")
_def_rule(expi_p, lambda ans, x: ops.div(ops.exp(x), x))


def expi(x):
    """The exponential integral ``Ei(x)`` (SciPy's values)."""
    return expi_p.bind(x)


# zeta(x, q) = sum_k (q + k)**-x (Hurwitz; the kernel of polygamma's);
# d/dq = -x zeta(x + 1, q); no derivative in x (an error, as JAX has none)

def _zeta_impl(x, q):
    return _run("zeta_kernel", x, q)


zeta_p = Primitive("zeta")
zeta_p.def_impl(_zeta_impl)
zeta_p.def_abstract_eval(_elementwise_aval(np.arctan2))
defbatch_elementwise(zeta_p)


def _zeta_dx(g, ans, x, q):
    raise NotImplementedError(
        "tracegrad.scipy.special.zeta has no derivative in its first argument x (JAX has none "
        "either); differentiate with respect to q only, or hold x constant")


def _zeta_dq(g, ans, x, q):
    return ops.mul(g, ops.neg(ops.mul(x, zeta(ops.add(x, 1.0), q))))


defjvp(zeta_p, _zeta_dx, _zeta_dq)
defvjp_broadcasting(zeta_p, _zeta_dx, _zeta_dq)


def zeta(x, q):
    """The Hurwitz zeta function ``sum_k (q + k)**-x``, broadcast (NaN for x < 1)."""
    return zeta_p.bind(x, q)


# riemann_zeta(x) = zeta(x, 1) continued to every real x: SciPy's (Cephes
# zeta.c / zetac.c) in the impl; no derivative (as zeta's in x)

riemann_zeta_p = _scipy_elementwise("riemann_zeta", "zeta")
defjvp(riemann_zeta_p, lambda g, ans, x: _zeta_dx(g, ans, x, None))
defvjp(riemann_zeta_p, lambda g, ans, x: _zeta_dx(g, ans, x, None))


def riemann_zeta(x):
    """Riemann's zeta function of real ``x`` (SciPy's ``zeta(x)``; 0 at -2, -4, ...)."""
    return riemann_zeta_p.bind(x)
# Incomplete gamma and beta functions (values from SciPy; the x-derivatives
# are written with primitives, so every order in x works; the derivative in
# a shape parameter is not implemented and says so).
#
# igamma(a, x) = P(a, x), igammac(a, x) = Q(a, x) = 1 - P, betainc(a, b, x)
# = I_x(a, b), betaincc(a, b, x) = 1 - I_x(a, b).  The impls call
# scipy.special.gammainc / gammaincc (Cephes igam.c / igamc.c: series,
# continued fraction and Temme's uniform asymptotic expansion for large a)
# and betainc / betaincc (Boost's ibeta, DiDonato and Morris, ACM TOMS 18,
# 1992); Numba versions of these are left for later.

def _no_shape_derivative(fn, arg):
    def rule(*args, **params):
        raise NotImplementedError(
            f"tracegrad.scipy.special.{fn} is differentiable in x only: its derivative in the "
            f"shape parameter {arg} (a series of the integrand's log-weighted moments, as JAX "
            f"computes it) is not implemented. Differentiate with respect to x, or hold {arg} "
            f"constant (tracegrad.lax.stop_gradient)")

    return rule


def _log_gamma_density(a, x):
    """``log(x**(a-1) exp(-x) / Gamma(a))``, with ``(a-1) log x = 0`` at ``a = 1``."""
    one = ops.eq(a, 1.0)
    power = ops.mul(ops.sub(a, 1.0), ops.log(ops.select(one, ops.ones_like(x), x)))
    return ops.sub(ops.sub(ops.select(one, ops.zeros_like(power), power), x), lgamma(a))


def _gamma_density(a, x):
    return ops.exp(_log_gamma_density(a, x))


igamma_p = _scipy_elementwise("igamma", "gammainc")
igammac_p = _scipy_elementwise("igammac", "gammaincc")
# dP/dx = x**(a-1) exp(-x) / Gamma(a) = -dQ/dx
_igamma_dx = lambda g, ans, a, x: ops.mul(g, _gamma_density(a, x))  # noqa: E731
_igammac_dx = lambda g, ans, a, x: ops.neg(ops.mul(g, _gamma_density(a, x)))  # noqa: E731
defjvp(igamma_p, _no_shape_derivative("gammainc", "a"), _igamma_dx)
defvjp_broadcasting(igamma_p, _no_shape_derivative("gammainc", "a"), _igamma_dx)
defjvp(igammac_p, _no_shape_derivative("gammaincc", "a"), _igammac_dx)
defvjp_broadcasting(igammac_p, _no_shape_derivative("gammaincc", "a"), _igammac_dx)


def igamma(a, x):
    """The regularized lower incomplete gamma function ``P(a, x)`` (SciPy's ``gammainc``)."""
    return igamma_p.bind(a, x)


def igammac(a, x):
    """The regularized upper incomplete gamma function ``Q(a, x) = 1 - P(a, x)``."""
    return igammac_p.bind(a, x)


def _beta_density(a, b, x):
    """``x**(a-1) (1-x)**(b-1) / B(a, b)``, the power taken as 1 where its exponent is 0."""
    one_a, one_b = ops.eq(a, 1.0), ops.eq(b, 1.0)
    pa = ops.mul(ops.sub(a, 1.0), ops.log(ops.select(one_a, ops.ones_like(x), x)))
    pb = ops.mul(ops.sub(b, 1.0), ops.log1p(ops.neg(ops.select(one_b, ops.zeros_like(x), x))))
    log = ops.add(ops.select(one_a, ops.zeros_like(pa), pa), ops.select(one_b, ops.zeros_like(pb), pb))
    return ops.exp(ops.sub(log, betaln(a, b)))


betainc_p = _scipy_elementwise("betainc", "betainc")
betaincc_p = _scipy_elementwise("betaincc", "betaincc")
_betainc_dx = lambda g, ans, a, b, x: ops.mul(g, _beta_density(a, b, x))  # noqa: E731
_betaincc_dx = lambda g, ans, a, b, x: ops.neg(ops.mul(g, _beta_density(a, b, x)))  # noqa: E731
for _prim, _fn, _dx in ((betainc_p, "betainc", _betainc_dx), (betaincc_p, "betaincc", _betaincc_dx)):
    defjvp(_prim, _no_shape_derivative(_fn, "a"), _no_shape_derivative(_fn, "b"), _dx)
    defvjp_broadcasting(_prim, _no_shape_derivative(_fn, "a"), _no_shape_derivative(_fn, "b"), _dx)


def betainc(a, b, x):
    """The regularized incomplete beta function ``I_x(a, b)``."""
    return betainc_p.bind(a, b, x)


def betaincc(a, b, x):
    """The complement ``1 - I_x(a, b)`` of the regularized incomplete beta function."""
    return betaincc_p.bind(a, b, x)


# ==========================================================================
# dawsn and spence: SciPy's values (Cephes dawsn.c, spence.c); derivatives
# written with primitives: D'(x) = 1 - 2 x D(x) (A&S 7.1.17 with 7.1.16),
# spence'(z) = log(z) / (1 - z), -1 at z = 1 (its limit)

dawsn_p = _scipy_elementwise("dawsn", "dawsn")
_def_rule(dawsn_p, lambda ans, x: ops.sub(1.0, ops.mul(ops.mul(2.0, x), ans)))


def dawsn(x):
    """Dawson's integral ``exp(-x**2) int_0^x exp(t**2) dt`` (SciPy's values)."""
    return dawsn_p.bind(x)


spence_p = _scipy_elementwise("spence", "spence")


def _spence_deriv(ans, z):
    one = ops.eq(z, 1.0)
    zs = ops.select(one, ops.add(ops.zeros_like(z), 2.0), z)
    return ops.select(one, ops.add(ops.zeros_like(z), -1.0),
                      ops.div(ops.log(zs), ops.sub(1.0, zs)))


_def_rule(spence_p, _spence_deriv)


def spence(z):
    """Spence's function ``int_1^z log(t) / (1 - t) dt`` for real ``z >= 0`` (SciPy's values)."""
    return spence_p.bind(z)


# ==========================================================================
# logit, entr, xlog1py, xlogy, beta, poch: compositions of several primitives fused
# into one kernel each (one memory pass instead of one per primitive; the
# kernels do the compositions' arithmetic, so the values and the derivatives'
# conventions at the edges stay those of the compositions)

def _binary(name, kernel, lowering):
    prim = Primitive(name)
    prim.def_impl(lambda x, y: _run(kernel, x, y))
    prim.def_abstract_eval(_elementwise_aval(np.arctan2))
    prim.lowering = Elementwise(lowering, accepts=same_float)
    defbatch_elementwise(prim)
    return prim


logit_p = _unary("logit", "logit_kernel", "slogit(np.float64({0}))")
# logit'(x) = 1 / (x (1 - x))
_def_rule(logit_p, lambda ans, x: ops.div(1.0, ops.mul(x, ops.sub(1.0, x))))


def logit(x):
    """``log(x / (1 - x))`` (SciPy's ``log1p(s) - log1p(-s)``, ``s = 2x - 1``, near 1/2)."""
    return logit_p.bind(x)


entr_p = _unary("entr", "entr_kernel", "sentr(np.float64({0}))")


def _entr_deriv(ans, x):
    # -(log x + 1) for x > 0; 0 at and below 0 (where the value is a constant branch)
    zero = ops.le(x, 0.0)
    xs = ops.select(zero, ops.ones_like(x), x)
    return ops.select(zero, ops.zeros_like(x), ops.neg(ops.add(ops.log(xs), 1.0)))


_def_rule(entr_p, _entr_deriv)


def entr(x):
    """``-x log x``: -0 at 0, ``-inf`` below 0."""
    return entr_p.bind(x)


xlog1py_p = _binary("xlog1py", "xlog1py_kernel", "sxlog1py(np.float64({0}), np.float64({1}))")


def _xlog1py_y(x, y):
    """``y``, or 0 where ``x == 0`` meets ``y <= -1`` or an infinite ``y``."""
    safe = ops.logical_and(ops.eq(x, 0.0), ops.logical_or(ops.le(y, -1.0), ops.isinf(y)))
    return ops.select(safe, ops.zeros_like(y), y)


# d/dx = log1p(y), d/dy = x / (1 + y), both at the substituted y (so 0 where x = 0 meets y = -1)
def _xlog1py_dx(g, ans, x, y):
    return ops.mul(g, ops.log1p(_xlog1py_y(x, y)))


def _xlog1py_dy(g, ans, x, y):
    return ops.mul(g, ops.div(x, ops.add(1.0, _xlog1py_y(x, y))))


defjvp(xlog1py_p, _xlog1py_dx, _xlog1py_dy)
defvjp_broadcasting(xlog1py_p, _xlog1py_dx, _xlog1py_dy)


def xlog1py(x, y):
    """``x log1p(y)``, 0 where ``x == 0`` (unless ``y`` is NaN), broadcast."""
    return xlog1py_p.bind(x, y)


xlogy_p = _binary("xlogy", "xlogy_kernel", "sxlogy(np.float64({0}), np.float64({1}))")


def _xlogy_y(x, y):
    """``y``, or 1 where ``x == 0`` meets ``y <= 0`` or an infinite ``y``."""
    safe = ops.logical_and(ops.eq(x, 0.0), ops.logical_or(ops.le(y, 0.0), ops.isinf(y)))
    return ops.select(safe, ops.ones_like(y), y)


# d/dx = log(y), d/dy = x / y, both at the substituted y (so 0 where x = 0 meets y <= 0)
def _xlogy_dx(g, ans, x, y):
    return ops.mul(g, ops.log(_xlogy_y(x, y)))


def _xlogy_dy(g, ans, x, y):
    return ops.mul(g, ops.div(x, _xlogy_y(x, y)))


defjvp(xlogy_p, _xlogy_dx, _xlogy_dy)
defvjp_broadcasting(xlogy_p, _xlogy_dx, _xlogy_dy)


def xlogy(x, y):
    """``x log(y)``, 0 where ``x == 0`` (unless ``y`` is NaN), broadcast."""
    return xlogy_p.bind(x, y)


beta_p = _binary("beta", "beta_kernel", "sbeta(np.float64({0}), np.float64({1}))")


# d/da B(a, b) = B(a, b) (psi(a) - psi(a + b)), and symmetrically in b
def _beta_da(g, ans, a, b):
    return ops.mul(ans, _betaln_da(g, ans, a, b))


def _beta_db(g, ans, a, b):
    return ops.mul(ans, _betaln_db(g, ans, a, b))


defjvp(beta_p, _beta_da, _beta_db)
defvjp_broadcasting(beta_p, _beta_da, _beta_db)


def beta(a, b):
    """``B(a, b) = Gamma(a) Gamma(b) / Gamma(a + b)``, broadcast."""
    return beta_p.bind(a, b)


poch_p = _binary("poch", "poch_kernel", "spoch(np.float64({0}), np.float64({1}))")


# (z)_m = Gamma(z + m) / Gamma(z): d/dz = (z)_m (psi(z + m) - psi(z)), d/dm = (z)_m psi(z + m)
def _poch_dz(g, ans, z, m):
    return ops.mul(ops.mul(g, ans), ops.sub(digamma(ops.add(z, m)), digamma(z)))


def _poch_dm(g, ans, z, m):
    return ops.mul(ops.mul(g, ans), digamma(ops.add(z, m)))


defjvp(poch_p, _poch_dz, _poch_dm)
defvjp_broadcasting(poch_p, _poch_dz, _poch_dm)


def poch(z, m):
    """Pochhammer's ``(z)_m = Gamma(z + m) / Gamma(z)``, broadcast."""
    return poch_p.bind(z, m)
