"""Special functions with SciPy's signatures (``jax.scipy.special``'s layout).

Every function takes array_likes or tracers (integers and booleans give
float64, float32 stays float32), broadcasts as NumPy does, and is
differentiable to any order in every float argument: the functions are
primitives of :mod:`tracegrad.primitives.special` (whose kernels cite their
methods) or compositions of primitives, with ``where`` guarding both sides
of each branch so no NaN leaks into a derivative.

>>> import tracegrad as tg
>>> from tracegrad.scipy.special import gammaln, log_ndtr
>>> float(tg.grad(gammaln)(1.0))  # digamma(1) = -Euler's gamma
-0.5772156649015329
>>> float(log_ndtr(-40.0))  # Phi(-40) underflows; its log does not
-804.6084420137538

Part of issue 11 (in progress): this module has the functions below; the
rest of ``scipy.special`` (``lambertw``, ``sici``, ``fresnel``, the
hypergeometric functions, ...) is not written yet.
``gammainc``, ``gammaincc``, ``betainc`` and ``betaincc`` take their values
from SciPy and are differentiable in ``x`` only.  The Bessel functions
``j0`` ... ``ive`` (at the end) are primitives of
:mod:`tracegrad.primitives.bessel` whose values are SciPy's; ``i0``,
``i0e``, ``i1``, ``i1e`` have their own kernel.
"""
import math
from fractions import Fraction

import numpy as np

from .. import nn
from .. import numpy as tnp
from ..core import Tracer
from ..numpy._core import arg
from ..primitives import ops

__all__ = [
    "beta", "betainc", "betaincc", "betaln", "digamma", "entr", "erf", "erfc", "erfcinv", "erfcx", "erfinv", "expit",
    "gamma", "gammainc", "gammaincc", "gammaln", "gammasgn", "kl_div", "loggamma", "log_expit", "log_ndtr", "log_softmax", "logit", "logsumexp",
    "multigammaln", "ndtr", "ndtri", "polygamma", "psi", "rel_entr", "rgamma", "sinc", "softmax",
    "xlog1py", "xlogy",
    # spmore (issue 11)
    "boxcox", "boxcox1p", "exp1", "expi", "expn", "i0", "i0e", "i1", "i1e", "zeta",
    # factorials, combinations, Bernoulli numbers, Dawson, Spence (issue 11)
    "bernoulli", "comb", "dawsn", "factorial", "poch", "spence",
    # Bessel functions (primitives/bessel.py)
    "bessel_jn", "iv", "ive", "j0", "j1", "jn", "jv", "y0", "y1", "yn", "yv",
]

_SQRT1_2 = math.sqrt(0.5)


def _real(x, name):
    """``x`` as an array or tracer of a float dtype (ints and bools -> float64)."""
    x = arg(x)
    if not isinstance(x, Tracer):
        x = np.asarray(x)
    kind = np.dtype(x.dtype).kind
    if kind == "c":
        full = name if name.startswith("tracegrad.") else f"tracegrad.scipy.special.{name}"
        raise TypeError(f"{full} takes real arrays, got dtype {x.dtype}")
    if kind != "f":
        x = ops.convert_element_type(x, np.float64)
    return x


def _reals(name, *values):
    """Each of ``values`` as a float array or tracer; Python scalars take the
    float dtype of the array operands (as NumPy 2 treats them: a float32
    array with the default ``loc=0.0`` stays float32), float64 if none is
    an array."""
    is_scalar = [isinstance(v, (bool, int, float)) for v in values]
    arrays = [_real(v, name) if not s else None for v, s in zip(values, is_scalar)]
    dtype = np.result_type(*[a.dtype for a in arrays if a is not None], np.float16) \
        if not all(is_scalar) else np.dtype(np.float64)
    return tuple(np.asarray(v, dtype) if s else a for v, s, a in zip(values, is_scalar, arrays))


# --------------------------------------------------------------------------
# error functions and the normal distribution


def erf(z):
    """The error function ``2/sqrt(pi) * integral_0^z exp(-t**2) dt``.

    Parameters
    ----------
    z : array_like or tracer
        Real, any shape.

    Returns
    -------
    array or tracer
        ``z``'s shape and float dtype; the derivative is
        ``2/sqrt(pi) exp(-z**2)``.

    Raises
    ------
    TypeError
        If ``z`` is complex.
    """
    return ops.erf(_real(z, "erf"))


def erfc(x):
    """The complementary error function ``1 - erf(x)``, accurate in the upper tail.

    Parameters
    ----------
    x : array_like or tracer
        Real, any shape.

    Returns
    -------
    array or tracer
        ``x``'s shape and float dtype (the C library's ``erfc``, within 2 ulp
        of the exact value; ``erfc(inf) = 0``, ``erfc(-inf) = 2``).

    Raises
    ------
    TypeError
        If ``x`` is complex.
    """
    return ops.erfc(_real(x, "erfc"))


def erfcx(x):
    """The scaled complementary error function ``exp(x**2) erfc(x)``.

    Parameters
    ----------
    x : array_like or tracer
        Real, any shape.

    Returns
    -------
    array or tracer
        ``x``'s shape and float dtype; ``inf`` below ``x = -26.7`` (overflow),
        ``~1 / (x sqrt(pi))`` for large ``x``.  Derivative ``2 x erfcx(x) -
        2/sqrt(pi)``.

    Raises
    ------
    TypeError
        If ``x`` is complex.

    Notes
    -----
    ``math.erfc`` times ``exp(x**2)`` computed with ``x**2`` as an exact
    double-length product, below 25; Laplace's continued fraction (Abramowitz
    and Stegun 7.1.14) above.
    """
    return ops.erfcx(_real(x, "erfcx"))


def erfinv(y):
    """The inverse error function, ``erf(erfinv(y)) = y`` on ``[-1, 1]``.

    Parameters
    ----------
    y : array_like or tracer
        Real, any shape.

    Returns
    -------
    array or tracer
        ``y``'s shape and float dtype; ``+-inf`` at ``+-1``, NaN outside
        ``[-1, 1]``.  Derivative ``sqrt(pi)/2 exp(erfinv(y)**2)``.

    Raises
    ------
    TypeError
        If ``y`` is complex.
    """
    return ops.erf_inv(_real(y, "erfinv"))


def erfcinv(y):
    """The inverse complementary error function, ``erfc(erfcinv(y)) = y`` on ``[0, 2]``.

    Parameters
    ----------
    y : array_like or tracer
        Real, any shape.

    Returns
    -------
    array or tracer
        ``y``'s shape and float dtype: ``-ndtri(y / 2) / sqrt 2`` (``y / 2``
        is exact, so the tail near ``y = 0`` keeps its relative accuracy);
        ``inf`` at 0, ``-inf`` at 2, NaN outside ``[0, 2]``.

    Raises
    ------
    TypeError
        If ``y`` is complex.
    """
    y = _real(y, "erfcinv")
    return ops.mul(ops.ndtri(ops.mul(y, 0.5)), -_SQRT1_2)


def ndtr(x):
    """The standard normal CDF ``Phi(x) = (1 + erf(x / sqrt 2)) / 2``.

    Parameters
    ----------
    x : array_like or tracer
        Real, any shape.

    Returns
    -------
    array or tracer
        ``x``'s shape and float dtype.

    Raises
    ------
    TypeError
        If ``x`` is complex.

    Notes
    -----
    As Cephes ``ndtr``: ``(1 + erf(z)) / 2`` for ``|z| < 1/sqrt 2``, else
    ``erfc(|z|) / 2`` (or one minus it, for ``x > 0``), ``z = x / sqrt 2``;
    so the lower tail keeps its relative accuracy.  ``erfc`` is corrected
    for the rounding of ``z`` (which costs SciPy ``x**2 / 2`` ulp far in the
    tail).  Derivative ``exp(-x**2/2) / sqrt(2 pi)``.
    """
    return ops.ndtr(_real(x, "ndtr"))


def log_ndtr(x):
    """``log(Phi(x))``, Phi the standard normal CDF, accurate in both tails.

    Parameters
    ----------
    x : array_like or tracer
        Real, any shape.

    Returns
    -------
    array or tracer
        ``x``'s shape and float dtype: ``~ -x**2/2`` far left, ``~ -Phi(-x)``
        far right (no underflow to ``-inf`` or rounding to 0 before the
        true value does).

    Raises
    ------
    TypeError
        If ``x`` is complex.

    Notes
    -----
    ``log1p(-Phi(-x))`` for ``x > 0``, ``log(Phi(x))`` on ``[-1, 0]``,
    ``log(erfcx(-x/sqrt 2) / 2) - x**2/2`` below.  The derivative
    ``phi(x) / Phi(x)`` is computed as ``exp(-x**2/2 - log_ndtr(x)) /
    sqrt(2 pi)``, finite everywhere.
    """
    return ops.log_ndtr(_real(x, "log_ndtr"))


def ndtri(y):
    """The standard normal quantile, ``ndtr(ndtri(y)) = y``.

    Parameters
    ----------
    y : array_like or tracer
        Probabilities, any shape.

    Returns
    -------
    array or tracer
        ``y``'s shape and float dtype; ``-inf`` at 0, ``inf`` at 1, NaN
        outside ``[0, 1]``.  Derivative ``sqrt(2 pi) exp(ndtri(y)**2 / 2)``.

    Raises
    ------
    TypeError
        If ``y`` is complex.

    Notes
    -----
    M. Giles' single-precision ``erfinv`` polynomials (GPU Computing Gems,
    2010) as the start, then Newton steps on ``erf`` (central) or on ``log
    erfc`` (tails), in float64.
    """
    return ops.ndtri(_real(y, "ndtri"))


# --------------------------------------------------------------------------
# gamma and beta functions


def gamma(x):
    """The gamma function.

    Parameters
    ----------
    x : array_like or tracer
        Real, any shape.

    Returns
    -------
    array or tracer
        ``x``'s shape and float dtype: ``+-inf`` at ``+-0``, NaN at the
        negative integers and ``-inf``, ``inf`` above 171.6 (overflow).
        Derivative ``gamma(x) digamma(x)``.

    Raises
    ------
    TypeError
        If ``x`` is complex.
    """
    return ops.gamma(_real(x, "gamma"))


def rgamma(x):
    """The reciprocal gamma function ``1 / Gamma(x)``.

    Parameters
    ----------
    x : array_like or tracer
        Real, any shape.

    Returns
    -------
    array or tracer
        ``x``'s shape and float dtype: 0 at the poles of ``Gamma`` (0 and
        the negative integers) and at ``+-inf``, NaN at NaN, as SciPy (which
        gives ``-0.0`` at ``-0.0``; this gives ``0.0``).  Derivative ``-digamma(x) / Gamma(x)``; at the poles
        themselves the derivative is NaN (its limit, ``(-1)**n n!`` at
        ``-n``, is not taken).

    Raises
    ------
    TypeError
        If ``x`` is complex.
    """
    x = _real(x, "rgamma")
    pole = ops.logical_and(ops.le(x, 0.0), ops.eq(x, ops.floor(x)))
    safe = ops.select(pole, ops.ones_like(x), x)
    return ops.select(pole, ops.zeros_like(safe), ops.div(1.0, ops.gamma(safe)))


def gammaln(x):
    """``log|Gamma(x)|``.

    Parameters
    ----------
    x : array_like or tracer
        Real, any shape.

    Returns
    -------
    array or tracer
        ``x``'s shape and float dtype; ``inf`` at the poles 0, -1, -2, ...
        and at ``+-inf`` (C99's ``lgamma``; SciPy gives ``-inf`` at
        ``-inf``).  Derivative ``digamma(x)``.

    Raises
    ------
    TypeError
        If ``x`` is complex.
    """
    return ops.lgamma(_real(x, "gammaln"))


def loggamma(x):
    """The principal branch of ``log(Gamma(x))`` for real ``x``.

    Parameters
    ----------
    x : array_like or tracer
        Real, any shape.

    Returns
    -------
    array or tracer
        ``gammaln(x)`` for ``x >= 0`` (``inf`` at 0); NaN for ``x < 0``
        (where ``Gamma`` can be negative; complex inputs are not supported
        yet), as SciPy's ``loggamma`` of a real array.

    Raises
    ------
    TypeError
        If ``x`` is complex.
    """
    x = _real(x, "loggamma")
    negative = ops.lt(x, 0.0)
    return ops.select(negative, np.nan, ops.lgamma(ops.select(negative, ops.ones_like(x), x)))


def gammasgn(x):
    """The sign of ``Gamma(x)``.

    Parameters
    ----------
    x : array_like or tracer
        Real, any shape.

    Returns
    -------
    array or tracer
        1 for ``x > 0`` and ``+0``, -1 for ``-0``, ``(-1)**ceil(-x)`` between
        the negative poles, NaN at the poles, ``-inf`` and NaN; ``x``'s float
        dtype (derivative 0).

    Raises
    ------
    TypeError
        If ``x`` is complex.
    """
    x = _real(x, "gammasgn")
    one = ops.ones_like(x)
    zero = ops.eq(x, 0.0)
    # -0 is the zero whose reciprocal is negative
    negative_zero = ops.logical_and(zero, ops.lt(ops.div(one, ops.select(zero, x, one)), 0.0))
    pole = ops.logical_and(ops.lt(x, 0.0), ops.eq(x, ops.floor(x)))  # (-inf included)
    sign = ops.select(negative_zero, ops.neg(one), _gamma_sign(x))
    return ops.select(ops.logical_or(pole, ops.isnan(x)), np.nan, sign)


def digamma(x):
    """The digamma function ``psi(x) = Gamma'(x) / Gamma(x)``.

    Parameters
    ----------
    x : array_like or tracer
        Real, any shape.

    Returns
    -------
    array or tracer
        ``x``'s shape and float dtype; ``-inf`` at ``+0``, ``inf`` at
        ``-0``, NaN at the negative integers (SciPy's conventions).
        Derivative ``polygamma(1, x)``.

    Raises
    ------
    TypeError
        If ``x`` is complex.

    Notes
    -----
    Taylor series at the positive root on [1, 2], recurrence elsewhere
    below 10, asymptotic series above (Abramowitz and Stegun 6.3.18),
    reflection below 0 (see ``primitives/_special_kernels.py``).
    """
    return ops.digamma(_real(x, "digamma"))


psi = digamma


def polygamma(n, x):
    """The ``n``-th derivative of digamma, ``psi^(n)(x)``.

    Parameters
    ----------
    n : int
        The order, a non-negative Python int (static: it selects the
        function, so it cannot be traced).
    x : array_like or tracer
        Real, any shape.

    Returns
    -------
    array or tracer
        ``x``'s shape and float dtype; ``(-1)**(n+1) n! zeta(n+1, x)`` for
        ``n >= 1`` (``inf`` at the poles).  Derivative ``polygamma(n + 1, x)``.

    Raises
    ------
    TypeError
        If ``n`` is a tracer or not an integer, or ``x`` is complex.
    ValueError
        If ``n < 0``.
    """
    if isinstance(n, Tracer):
        raise TypeError("polygamma's order n must be a concrete integer, not a traced value")
    if np.ndim(n) != 0 or int(n) != n:
        raise TypeError(f"polygamma's order n must be one non-negative integer, got {n!r}")
    if n < 0:
        raise ValueError(f"polygamma's order n must be >= 0, got {n}")
    return ops.polygamma(int(n), _real(x, "polygamma"))


def betaln(a, b):
    """``log|B(a, b)|``, ``B(a, b) = Gamma(a) Gamma(b) / Gamma(a + b)``.

    Parameters
    ----------
    a, b : array_like or tracer
        Real, broadcast together.

    Returns
    -------
    array or tracer
        The broadcast shape, the operands' float dtype.  Derivatives
        ``digamma(a) - digamma(a + b)`` and ``digamma(b) - digamma(a + b)``.

    Raises
    ------
    TypeError
        If an operand is complex.

    Notes
    -----
    For ``max(a, b) >= 10`` Stirling's series is written out so that the
    large ``lgamma`` terms cancel exactly (DiDonato and Morris, ACM TOMS
    18, 1992); SciPy's ``betaln`` loses up to 7 digits there.
    """
    return ops.betaln(*_reals("betaln", a, b))


_INCOMPLETE_NOTES = """
    Raises
    ------
    TypeError
        If an operand is complex.
    ImportError
        If SciPy is not installed (the values are SciPy's).
    NotImplementedError
        When differentiated in a shape parameter (JAX differentiates
        ``gammainc`` in ``a`` too; tracegrad does not yet).  Hold it
        constant with ``tracegrad.lax.stop_gradient`` to differentiate in
        ``x`` alone.

    Notes
    -----
    The values are SciPy's, computed in float64 and rounded once to the
    operands' float type.  """


def gammainc(a, x):
    """The regularized lower incomplete gamma function
    ``P(a, x) = integral_0^x t**(a-1) exp(-t) dt / Gamma(a)``.

    Parameters
    ----------
    a : array_like or tracer
        Shape, ``a >= 0``.
    x : array_like or tracer
        Upper limit, ``x >= 0``; broadcast with ``a``.

    Returns
    -------
    array or tracer
        The broadcast shape and float dtype.  As SciPy: ``P(a, 0) = 0`` for
        ``a > 0``, ``P(a, inf) = 1``, ``P(0, x) = 1`` for ``x > 0``, NaN for
        ``a < 0``, ``x < 0``, ``a = x = 0`` and NaN operands.  Derivative in
        ``x``: ``x**(a-1) exp(-x) / Gamma(a)`` (written with primitives, so
        every order works).
    <incomplete-notes>SciPy's ``gammainc`` is Cephes'
    ``igam`` (power series below ``x = a``-ish, the continued fraction of
    ``Q`` above, Temme's uniform asymptotic expansion for large ``a`` near
    ``x = a``).
    """
    return ops.igamma(*_reals("gammainc", a, x))


def gammaincc(a, x):
    """The regularized upper incomplete gamma function ``Q(a, x) = 1 - P(a, x)``,
    accurate where ``Q`` is small.

    Parameters
    ----------
    a : array_like or tracer
        Shape, ``a >= 0``.
    x : array_like or tracer
        Lower limit, ``x >= 0``; broadcast with ``a``.

    Returns
    -------
    array or tracer
        The broadcast shape and float dtype.  As SciPy: ``Q(a, 0) = 1`` for
        ``a > 0``, ``Q(a, inf) = 0``, ``Q(0, x) = 0`` for ``x > 0``, NaN for
        ``a < 0``, ``x < 0``, ``a = x = 0`` and NaN operands.  Derivative in
        ``x``: ``-x**(a-1) exp(-x) / Gamma(a)``.
    <incomplete-notes>SciPy's ``gammaincc`` is Cephes'
    ``igamc`` (the same methods as ``gammainc``, summing the small side).
    """
    return ops.igammac(*_reals("gammaincc", a, x))


def betainc(a, b, x):
    """The regularized incomplete beta function
    ``I_x(a, b) = integral_0^x t**(a-1) (1-t)**(b-1) dt / B(a, b)``.

    Parameters
    ----------
    a, b : array_like or tracer
        Shape parameters, ``>= 0`` (not both 0).
    x : array_like or tracer
        Upper limit in ``[0, 1]``; the three broadcast together.

    Returns
    -------
    array or tracer
        The broadcast shape and float dtype.  As SciPy: ``I_0 = 0``, ``I_1 =
        1``, NaN for ``x`` outside ``[0, 1]``, negative ``a`` or ``b``, and
        NaN operands; ``a = 0`` puts all mass at 0 (``I_x = 1`` for ``x >
        0``), ``b = 0`` at 1.  Derivative in ``x``: ``x**(a-1) (1-x)**(b-1) /
        B(a, b)``.
    <incomplete-notes>SciPy's ``betainc`` is Boost's ``ibeta``
    (DiDonato and Morris, ACM TOMS 18, 1992; Cephes ``incbet``'s continued
    fractions among its methods).
    """
    return ops.betainc(*_reals("betainc", a, b, x))


def betaincc(a, b, x):
    """The complement ``1 - I_x(a, b)`` of the regularized incomplete beta
    function, accurate where it is small (near ``x = 1``).

    Parameters
    ----------
    a, b : array_like or tracer
        Shape parameters, ``>= 0`` (not both 0).
    x : array_like or tracer
        Lower limit in ``[0, 1]``; the three broadcast together.

    Returns
    -------
    array or tracer
        The broadcast shape and float dtype; ``1`` at ``x = 0``, ``0`` at
        ``x = 1``, NaN where ``betainc`` is.  Derivative in ``x``:
        ``-x**(a-1) (1-x)**(b-1) / B(a, b)``.
    <incomplete-notes>SciPy's ``betaincc`` (Boost's ``ibetac``).
    """
    return ops.betaincc(*_reals("betaincc", a, b, x))


for _fn in (gammainc, gammaincc, betainc, betaincc):  # the sections the four share
    _fn.__doc__ = _fn.__doc__.replace("    <incomplete-notes>", _INCOMPLETE_NOTES.rstrip() + " ")


def _gamma_sign(x):
    """The sign of ``Gamma(x)`` (1 for ``x > 0``; ``(-1)**ceil(-x)`` below)."""
    even = ops.eq(ops.mod(ops.floor(x), 2.0), 0.0)
    one = ops.ones_like(x)
    return ops.select(ops.logical_or(ops.gt(x, 0.0), even), one, ops.neg(one))


def beta(a, b):
    """The beta function ``B(a, b) = Gamma(a) Gamma(b) / Gamma(a + b)``.

    Parameters
    ----------
    a, b : array_like or tracer
        Real, broadcast together.

    Returns
    -------
    array or tracer
        The broadcast shape and float dtype: ``Gamma(a) Gamma(b) / Gamma(a +
        b)`` when both are in ``(1e-200, 10)`` (about 3 ulp), else ``sign *
        exp(betaln(a, b))`` (relative error about ``|betaln| * eps``, as
        Cephes' ``beta`` for large arguments).  One Numba kernel.

    Raises
    ------
    TypeError
        If an operand is complex.
    """
    return ops.beta(*_reals("beta", a, b))


def multigammaln(a, d):
    """The log of the multivariate gamma function of dimension ``d``.

    Parameters
    ----------
    a : array_like or tracer
        Real, any shape; finite values need ``a > (d - 1) / 2``.
    d : int
        The dimension, a positive Python int.

    Returns
    -------
    array or tracer
        ``d (d-1)/4 log(pi) + sum_{j<d} gammaln(a - j/2)``, ``a``'s shape and
        float dtype.

    Raises
    ------
    ValueError
        If ``d`` is not a positive integer, or (for a concrete ``a``) some
        ``a <= (d - 1) / 2``, as SciPy.
    """
    if isinstance(d, Tracer) or np.ndim(d) != 0 or int(d) != d or d < 1:
        raise ValueError(f"multigammaln's d must be a positive integer, got {d!r}")
    d = int(d)
    a = _real(a, "multigammaln")
    if not isinstance(a, Tracer) and np.any(a <= 0.5 * (d - 1)):
        raise ValueError(f"multigammaln needs a > (d - 1) / 2 = {0.5 * (d - 1)}")
    out = ops.lgamma(a)
    for j in range(1, d):
        out = ops.add(out, ops.lgamma(ops.sub(a, 0.5 * j)))
    return ops.add(out, 0.25 * d * (d - 1) * math.log(math.pi))


# --------------------------------------------------------------------------
# logarithms that are 0 where their factor is


def xlogy(x, y):
    """``x * log(y)``, 0 where ``x == 0`` (unless ``y`` is NaN).

    Parameters
    ----------
    x, y : array_like or tracer
        Real, broadcast together.

    Returns
    -------
    array or tracer
        The broadcast shape and float dtype.  Derivatives ``log(y)`` and
        ``x / y`` (at ``x == 0`` and ``y <= 0`` both are taken as 0).

    Raises
    ------
    TypeError
        If an operand is complex.
    """
    # one primitive: y is taken as 1 only where x == 0 would meet log(y) = -inf
    # or NaN from y <= 0 or inf
    return ops.xlogy(*_reals("xlogy", x, y))


def xlog1py(x, y):
    """``x * log1p(y)``, 0 where ``x == 0`` (unless ``y`` is NaN).

    Parameters
    ----------
    x, y : array_like or tracer
        Real, broadcast together.

    Returns
    -------
    array or tracer
        The broadcast shape and float dtype.  Derivatives ``log1p(y)`` and
        ``x / (1 + y)``.

    Raises
    ------
    TypeError
        If an operand is complex.
    """
    return ops.xlog1py(*_reals("xlog1py", x, y))


def entr(x):
    """Elementwise entropy ``-x log x`` (0 at 0, ``-inf`` for ``x < 0``).

    Parameters
    ----------
    x : array_like or tracer
        Real, any shape.

    Returns
    -------
    array or tracer
        ``x``'s shape and float dtype.  Derivative ``-(log x + 1)``.

    Raises
    ------
    TypeError
        If ``x`` is complex.
    """
    return ops.entr(_real(x, "entr"))


def rel_entr(x, y):
    """Elementwise relative entropy ``x log(x / y)``.

    Parameters
    ----------
    x, y : array_like or tracer
        Real, broadcast together.

    Returns
    -------
    array or tracer
        ``x log(x / y)`` for ``x, y > 0``; 0 for ``x == 0, y >= 0``; ``inf``
        otherwise (NaN propagates).  The broadcast shape and float dtype.

    Raises
    ------
    TypeError
        If an operand is complex.
    """
    return _entropy_terms(x, y, "rel_entr", lambda x, y, v: v, ops.zeros_like)


def kl_div(x, y):
    """Elementwise ``x log(x / y) - x + y`` (a term of the KL divergence).

    Parameters
    ----------
    x, y : array_like or tracer
        Real, broadcast together.

    Returns
    -------
    array or tracer
        The value above for ``x, y > 0``; ``y`` for ``x == 0, y >= 0``;
        ``inf`` otherwise (NaN propagates).  The broadcast shape and float
        dtype.

    Raises
    ------
    TypeError
        If an operand is complex.
    """
    return _entropy_terms(x, y, "kl_div", lambda x, y, v: ops.add(ops.sub(v, x), y),
                          lambda y: y)


def _entropy_terms(x, y, name, finish, at_zero):
    """``finish(x, y, x log(x/y))`` for ``x, y > 0``, ``at_zero(y)`` for
    ``x == 0 <= y``, ``inf`` elsewhere, NaN kept (``rel_entr``, ``kl_div``)."""
    x, y = _reals(name, x, y)
    both = ops.logical_and(ops.gt(x, 0.0), ops.gt(y, 0.0))
    sx, sy = ops.select(both, x, 1.0), ops.select(both, y, 1.0)
    inside = finish(sx, sy, ops.mul(sx, ops.log(ops.div(sx, sy))))
    zero = ops.logical_and(ops.eq(x, 0.0), ops.ge(y, 0.0))
    nan = ops.logical_or(ops.isnan(x), ops.isnan(y))
    out = ops.select(zero, at_zero(ops.select(zero, y, 0.0)), np.inf)
    return ops.select(both, inside, ops.select(nan, np.nan, out))


# --------------------------------------------------------------------------
# the logistic function and the softmax family


def logit(x):
    """The log-odds ``log(x / (1 - x))``.

    Parameters
    ----------
    x : array_like or tracer
        Probabilities, any shape.

    Returns
    -------
    array or tracer
        ``x``'s shape and float dtype; ``-inf`` at 0, ``inf`` at 1, NaN
        outside ``[0, 1]``.  Derivative ``1 / (x (1 - x))``.

    Raises
    ------
    TypeError
        If ``x`` is complex.

    Notes
    -----
    As SciPy: on ``(0.3, 0.65)``, ``log1p(s) - log1p(-s)`` with ``s = 2x - 1``
    (exact), which keeps the relative accuracy near ``x = 1/2``; elsewhere
    ``log(x / (1 - x))``.
    """
    return ops.logit(_real(x, "logit"))


def expit(x):
    """The logistic sigmoid ``1 / (1 + exp(-x))``.

    Parameters
    ----------
    x : array_like or tracer
        Real, any shape.

    Returns
    -------
    array or tracer
        ``x``'s shape and float dtype; 0 at ``-inf``, 1 at ``inf``.

    Raises
    ------
    TypeError
        If ``x`` is complex.
    """
    return ops.sigmoid(_real(x, "expit"))


def log_expit(x):
    """``log(expit(x))``, computed as ``-softplus(-x)``: exact in both tails.

    Parameters
    ----------
    x : array_like or tracer
        Real, any shape.

    Returns
    -------
    array or tracer
        ``x``'s shape and float dtype; ``x`` for very negative ``x``,
        ``-exp(-x)`` for large ``x``.

    Raises
    ------
    TypeError
        If ``x`` is complex.
    """
    return ops.neg(ops.softplus(ops.neg(_real(x, "log_expit"))))


def logsumexp(a, axis=None, b=None, keepdims=False, return_sign=False):
    """``log(sum(b * exp(a), axis))``, computed stably (SciPy's signature).

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
        Also return the sign of the sum; the result is then ``log|sum|``.

    Returns
    -------
    out : array or tracer
        ``a``'s float dtype, the reduced shape.
    sign : array
        Only with ``return_sign=True`` (no derivative).

    Raises
    ------
    numpy.exceptions.AxisError
        If an axis is out of range.
    """
    return nn.logsumexp(a, axis=axis, b=b, keepdims=keepdims, return_sign=return_sign)


def softmax(x, axis=None):
    """``exp(x) / sum(exp(x), axis)``, computed stably.

    Parameters
    ----------
    x : array_like or tracer
    axis : int, tuple of ints or None, optional
        Axes to normalize over; None (SciPy's default) means all of them.

    Returns
    -------
    array or tracer
        ``x``'s shape and float dtype.

    Raises
    ------
    numpy.exceptions.AxisError
        If an axis is out of range.
    """
    return nn.softmax(x, axis=axis)


def log_softmax(x, axis=None):
    """``x - logsumexp(x, axis, keepdims=True)``, computed stably.

    Parameters
    ----------
    x : array_like or tracer
    axis : int, tuple of ints or None, optional
        Axes to normalize over; None (SciPy's default) means all of them.

    Returns
    -------
    array or tracer
        ``x``'s shape and float dtype.

    Raises
    ------
    numpy.exceptions.AxisError
        If an axis is out of range.
    """
    return nn.log_softmax(x, axis=axis)


def sinc(x):
    """The normalized sinc ``sin(pi x) / (pi x)`` (``jax.scipy.special``'s
    spelling of :func:`tracegrad.numpy.sinc`).

    Parameters
    ----------
    x : array_like or tracer
        Real, any shape.

    Returns
    -------
    array or tracer
        ``x``'s shape and float dtype; 1 at 0.
    """
    return tnp.sinc(x)


# --------------------------------------------------------------------------
# spmore (issue 11): modified Bessel functions, exponential integrals, zeta


def i0(x):
    """The modified Bessel function of the first kind of order 0, ``I_0(x)``.

    Parameters
    ----------
    x : array_like or tracer
        Real, any shape.

    Returns
    -------
    array or tracer
        ``x``'s shape and float dtype; even, 1 at 0, ``inf`` at ``+-inf``
        (SciPy: NaN) and beyond ``|x| = 713.98`` (overflow; SciPy already
        overflows past 709.78, where ``exp(x)`` does).  Derivative ``i1(x)``.

    Raises
    ------
    TypeError
        If ``x`` is complex.

    Notes
    -----
    The power series (Abramowitz and Stegun 9.6.10) up to ``|x| = 20``, the
    asymptotic expansion (A&S 9.7.1) above, in place of Cephes' Chebyshev
    fits of the same pieces; within 8 ulp of mpmath (SciPy: 7).
    """
    return ops.bessel_i(0, _real(x, "i0"))


def i0e(x):
    """The exponentially scaled ``I_0``: ``exp(-|x|) I_0(x)``.

    Parameters
    ----------
    x : array_like or tracer
        Real, any shape.

    Returns
    -------
    array or tracer
        ``x``'s shape and float dtype; 1 at 0, 0 at ``+-inf``, no overflow.
        Derivative ``i1e(x) - sign(x) i0e(x)`` (JAX's: 0 at ``x = 0``, where
        the function has a corner).

    Raises
    ------
    TypeError
        If ``x`` is complex.
    """
    return ops.bessel_i(0, _real(x, "i0e"), scaled=True)


def i1(x):
    """The modified Bessel function of the first kind of order 1, ``I_1(x)``.

    Parameters
    ----------
    x : array_like or tracer
        Real, any shape.

    Returns
    -------
    array or tracer
        ``x``'s shape and float dtype; odd, 0 at 0, ``+-inf`` at ``+-inf``
        (SciPy: NaN) and beyond ``|x| = 713.98``.
        Derivative ``i0(x) - i1(x) / x`` (1/2 at 0).

    Raises
    ------
    TypeError
        If ``x`` is complex.

    Notes
    -----
    Computed as ``x * (I_1(x) / x)``; ``I_n(x) / x**n`` is an entire function
    whose derivative is ``x I_{n+1}(x) / x**(n+1)`` (A&S 9.6.28), so every
    derivative order is exact at ``x = 0`` too (no ``0 / 0``).
    """
    x = _real(x, "i1")
    return ops.mul(x, ops.bessel_i(1, x))


def i1e(x):
    """The exponentially scaled ``I_1``: ``exp(-|x|) I_1(x)``.

    Parameters
    ----------
    x : array_like or tracer
        Real, any shape.

    Returns
    -------
    array or tracer
        ``x``'s shape and float dtype; 0 at 0, ``+-0`` at ``+-inf``;
        underflows to 0 past ``|x| ~ 1e205`` (it is computed as ``x`` times
        ``exp(-|x|) I_1(x) / x``, whose ``|x|**-1.5`` underflows; SciPy keeps
        ``1/sqrt(2 pi |x|)``).  Derivative ``i0e(x) - i1e(x) (sign(x) +
        1/x)`` (1/2 at 0).

    Raises
    ------
    TypeError
        If ``x`` is complex.
    """
    x = _real(x, "i1e")
    infinite = ops.isinf(x)
    finite_x = ops.select(infinite, ops.zeros_like(x), x)
    return ops.select(infinite, ops.mul(ops.sign(x), 0.0),
                      ops.mul(finite_x, ops.bessel_i(1, finite_x, scaled=True)))


def expn(n, x):
    """The generalized exponential integral ``E_n(x) = int_1^inf exp(-x t) t**-n dt``.

    Parameters
    ----------
    n : array_like or tracer
        Non-negative integers (any integer or float dtype), broadcast with
        ``x``; no derivative.
    x : array_like or tracer
        Real, ``x >= 0``.

    Returns
    -------
    array or tracer
        The broadcast shape, ``x``'s float dtype (SciPy's values: Cephes
        ``expn``).  ``inf`` at ``x = 0`` for ``n <= 1`` (``1 / (n - 1)``
        above); NaN for ``x < 0``, ``n < 0`` and (unlike SciPy, which
        truncates with a warning) non-integer ``n``.  Derivative
        ``-expn(n - 1, x)`` (``-E_0(x) (1 + 1/x)`` for ``n = 0``).

    Raises
    ------
    TypeError
        If an operand is complex.
    ImportError
        Without SciPy (the values are SciPy's).
    """
    x = _real(x, "expn")
    n = arg(n)
    if isinstance(n, Tracer):
        n = ops.convert_element_type(n, x.dtype) if n.dtype != x.dtype else n
    else:
        n = np.asarray(n, x.dtype)
    return ops.expn(n, x)


def exp1(x):
    """The exponential integral ``E_1(x) = int_x^inf exp(-t) / t dt``.

    Parameters
    ----------
    x : array_like or tracer
        Real, ``x >= 0``.

    Returns
    -------
    array or tracer
        ``x``'s shape and float dtype; ``inf`` at 0, 0 at ``inf``, NaN for
        ``x < 0`` (SciPy's real ``exp1``, whose values these are; within
        about 12 ulp).  Derivative ``-exp(-x) / x``.

    Raises
    ------
    TypeError
        If ``x`` is complex.
    ImportError
        Without SciPy.
    """
    return ops.exp1(_real(x, "exp1"))


def expi(x):
    """The exponential integral ``Ei(x)`` (principal value of ``int_-inf^x e**t / t dt``).

    Parameters
    ----------
    x : array_like or tracer
        Real, any shape.

    Returns
    -------
    array or tracer
        ``x``'s shape and float dtype (SciPy's values); ``-inf`` at 0, ``-0``
        at ``-inf``, ``inf`` at ``inf``.  Derivative ``exp(x) / x``.

    Raises
    ------
    TypeError
        If ``x`` is complex.
    ImportError
        Without SciPy.
    """
    return ops.expi(_real(x, "expi"))


def zeta(x, q=None):
    """The Hurwitz zeta function ``sum_{k>=0} (k + q)**-x``; Riemann's without ``q``.

    Parameters
    ----------
    x : array_like or tracer
        Real; broadcast with ``q``.
    q : array_like or tracer, optional
        Real.  None (the default) gives Riemann's zeta, defined for all ``x``.

    Returns
    -------
    array or tracer
        The broadcast shape and float dtype.  With ``q``: NaN for ``x < 1``
        and for ``q < 0`` with non-integer ``x``, ``inf`` at ``x = 1`` and at
        the poles ``q = 0, -1, ...`` (as SciPy); ``zeta(inf, q > 1) = 0``
        (SciPy: NaN).  Derivative in ``q``: ``-x zeta(x + 1, q)``.

    Raises
    ------
    TypeError
        If an operand is complex.
    NotImplementedError
        When differentiated with respect to ``x`` (JAX has no such
        derivative either).
    ImportError
        For ``q=None`` without SciPy (Riemann's zeta is SciPy's).

    Notes
    -----
    Direct summation to ``q + N >= 9``, then Euler-Maclaurin summation with
    Bernoulli numbers up to ``B_24`` (the method of Cephes ``zeta.c``).
    """
    if q is None:
        return ops.riemann_zeta(_real(x, "zeta"))
    return ops.zeta(*_reals("zeta", x, q))


def _boxcox(x, lmbda, name, log):
    x, lmbda = _reals(name, x, lmbda)
    zero = ops.eq(lmbda, 0.0)
    safe = ops.select(zero, ops.ones_like(lmbda), lmbda)
    logx = log(x)
    return ops.select(zero, ops.add(logx, ops.mul(lmbda, 0.0)),
                      ops.div(ops.expm1(ops.mul(safe, logx)), safe))


def boxcox(x, lmbda):
    """The Box-Cox transform ``(x**lmbda - 1) / lmbda`` (``log(x)`` at ``lmbda = 0``).

    Parameters
    ----------
    x, lmbda : array_like or tracer
        Real, broadcast together.

    Returns
    -------
    array or tracer
        The broadcast shape and float dtype, as SciPy: ``expm1(lmbda
        log x) / lmbda``; NaN for ``x < 0``, ``-1/lmbda`` or ``-inf`` at
        ``x = 0``.  Differentiable in both (the derivative in ``lmbda`` at
        exactly ``lmbda = 0`` is taken as 0, not its limit ``log(x)**2 / 2``).

    Raises
    ------
    TypeError
        If an operand is complex.
    """
    return _boxcox(x, lmbda, "boxcox", ops.log)


def boxcox1p(x, lmbda):
    """The Box-Cox transform of ``1 + x``: ``((1 + x)**lmbda - 1) / lmbda``.

    Parameters
    ----------
    x, lmbda : array_like or tracer
        Real, broadcast together.

    Returns
    -------
    array or tracer
        As :func:`boxcox` with ``log1p(x)`` for ``log(x)`` (accurate for
        small ``x``); NaN for ``x < -1``.

    Raises
    ------
    TypeError
        If an operand is complex.
    """
    return _boxcox(x, lmbda, "boxcox1p", ops.log1p)


# ==========================================================================
# factorials, binomial coefficients, Pochhammer's symbol, Bernoulli numbers,
# Dawson's integral and Spence's function


def factorial(n, exact=False):
    """``n!`` as ``Gamma(n + 1)`` (SciPy's ``exact=False``), 0 for ``n < 0``.

    Parameters
    ----------
    n : array_like or tracer
        Real, any shape (non-integers give ``Gamma(n + 1)``, as SciPy).
    exact : bool
        Must be False: exact integer factorials are not differentiable
        (use ``math.factorial``).

    Returns
    -------
    array or tracer
        ``n``'s shape, float dtype; ``inf`` from 171 on (overflow).
        Derivative ``Gamma(n + 1) digamma(n + 1)`` (0 below 0).

    Raises
    ------
    NotImplementedError
        If ``exact`` is True.
    TypeError
        If ``n`` is complex.
    """
    if exact:
        raise NotImplementedError("tracegrad.scipy.special.factorial computes Gamma(n + 1) "
                                  "(exact=False); for exact integers use math.factorial")
    n = _real(n, "factorial")
    negative = ops.lt(n, 0.0)
    safe = ops.select(negative, ops.zeros_like(n), n)
    return ops.select(negative, ops.zeros_like(safe), ops.gamma(ops.add(safe, 1.0)))


def comb(N, k, *, exact=False, repetition=False):  # noqa: N803 - SciPy's name
    """The binomial coefficient ``N choose k`` as ``Gamma`` ratios (``exact=False``).

    Parameters
    ----------
    N, k : array_like or tracer
        Real, broadcast together.
    exact : bool
        Must be False (exact integers are not differentiable: ``math.comb``).
    repetition : bool
        ``N + k - 1 choose k`` (combinations with repetition), as SciPy
        (for ``N >= 1``; below, SciPy's own values are NaN for some ``k``).

    Returns
    -------
    array or tracer
        The broadcast shape, float dtype: ``exp(gammaln(N + 1) - gammaln(k
        + 1) - gammaln(N - k + 1))`` with the Gamma functions' signs, 0 where
        ``k > N``, ``k < 0`` or ``N < 0`` (SciPy's conventions).
        Differentiable in ``N`` and ``k``.

    Raises
    ------
    NotImplementedError
        If ``exact`` is True.
    TypeError
        If an operand is complex.
    """
    if exact:
        raise NotImplementedError("tracegrad.scipy.special.comb computes Gamma ratios "
                                  "(exact=False); for exact integers use math.comb")
    N, k = _reals("comb", N, k)
    if repetition:
        N = ops.sub(ops.add(N, k), 1.0)
    zero = ops.logical_or(ops.logical_or(ops.gt(k, N), ops.lt(k, 0.0)), ops.lt(N, 0.0))
    ns = ops.select(zero, ops.add(ops.zeros_like(N), 2.0), N)
    ks = ops.select(zero, ops.ones_like(k), k)
    top, kk, rest = ops.add(ns, 1.0), ops.add(ks, 1.0), ops.add(ops.sub(ns, ks), 1.0)
    sign = ops.mul(ops.mul(_gamma_sign(top), _gamma_sign(kk)), _gamma_sign(rest))
    value = ops.exp(ops.sub(ops.sub(ops.lgamma(top), ops.lgamma(kk)), ops.lgamma(rest)))
    return ops.select(zero, ops.zeros_like(value), ops.mul(sign, value))


def poch(z, m):
    """Pochhammer's rising factorial ``(z)_m = Gamma(z + m) / Gamma(z)``.

    Parameters
    ----------
    z, m : array_like or tracer
        Real, broadcast together.

    Returns
    -------
    array or tracer
        The broadcast shape and float dtype, ``gamma(z + m) * rgamma(z)``
        (so 0 where ``z`` is a pole and ``z + m`` is not; ``inf`` the other
        way round; where both are poles the limit ``(-1)**m Gamma(1 - z) /
        Gamma(1 - z - m)``, as SciPy), 1 at ``m = 0``.  Differentiable in
        both away from the poles.

    Raises
    ------
    TypeError
        If an operand is complex.
    """
    return ops.poch(*_reals("poch", z, m))


def bernoulli(n):
    """The Bernoulli numbers ``B_0, ..., B_n`` (``B_1 = -1/2``), as SciPy.

    Parameters
    ----------
    n : int
        A non-negative integer (static: the result's length).

    Returns
    -------
    ndarray
        Shape ``(n + 1,)``, float64, computed exactly (rationals) by the
        Akiyama-Tanigawa algorithm, then rounded once.

    Raises
    ------
    ValueError
        If ``n`` is negative or not an integer.
    """
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 0:
        raise ValueError(f"bernoulli: n must be a non-negative integer, got {n!r}")
    a, out = [], []
    for m in range(int(n) + 1):
        a.append(Fraction(1, m + 1))
        for j in range(m, 0, -1):
            a[j - 1] = j * (a[j - 1] - a[j])
        out.append(a[0])
    if n >= 1:
        out[1] = -out[1]  # (the algorithm gives B_1 = +1/2; SciPy's convention is -1/2)
    return np.array([float(b) for b in out])


def dawsn(x):
    """Dawson's integral ``F(x) = exp(-x**2) int_0^x exp(t**2) dt``.

    Parameters
    ----------
    x : array_like or tracer
        Real, any shape.

    Returns
    -------
    array or tracer
        ``x``'s shape and float dtype (SciPy's values: needs SciPy).
        Derivative ``1 - 2 x F(x)`` (Abramowitz and Stegun 7.1.17).

    Raises
    ------
    TypeError
        If ``x`` is complex.
    ImportError
        If SciPy is not installed.
    """
    return ops.dawsn(_real(x, "dawsn"))


def spence(z):
    """Spence's function (the dilogarithm ``Li2(1 - z)``), ``int_1^z log t / (1 - t) dt``.

    Parameters
    ----------
    z : array_like or tracer
        Real, any shape; NaN below 0, as SciPy.

    Returns
    -------
    array or tracer
        ``z``'s shape and float dtype (SciPy's values: needs SciPy).
        Derivative ``log(z) / (1 - z)``, ``-1`` at ``z = 1`` (its limit; the
        second derivative there is taken as 0, not its limit 1/2).

    Raises
    ------
    TypeError
        If ``z`` is complex.
    ImportError
        If SciPy is not installed.
    """
    return ops.spence(_real(z, "spence"))


# --------------------------------------------------------------------------
# Bessel functions (primitives/bessel.py)
#
# The functions of x are primitives calling SciPy's ufuncs (SciPy is an
# optional extra); their derivatives in x are the recurrences written with
# the same primitives, so every order works.  The order v is a concrete
# value, never differentiated: one primitive per distinct order.


def _bessel_order(v, name):
    """The order ``v`` as a float64 array (not a tracer: orders are not differentiated)."""
    if isinstance(v, Tracer):
        raise TypeError(
            f"tracegrad.scipy.special.{name} is not differentiable in (and cannot trace) its "
            f"order v: pass a concrete number or array as v, and differentiate in x only"
        )
    v = np.asarray(v)
    if v.dtype.kind not in "biuf":
        raise TypeError(f"tracegrad.scipy.special.{name}'s order v must be real, got dtype {v.dtype}")
    return v.astype(np.float64)


def _bessel_of_order(prim_fn, name, v, x):
    """``prim_fn(x, v)`` broadcast over an array of orders: one primitive per
    distinct order, the results combined with ``where`` on ``v == order``."""
    v = _bessel_order(v, name)
    x = _real(x, name)
    if v.ndim == 0:
        return prim_fn(x, float(v))
    shape = np.broadcast_shapes(v.shape, tuple(np.shape(x)))
    x = tnp.broadcast_to(x, shape)
    v = np.broadcast_to(v, shape)
    orders = np.unique(v)  # NaN orders (if any) come last, each apart
    out = prim_fn(x, float(orders[0]))
    for u in orders[1:]:
        mask = np.isnan(v) if np.isnan(u) else v == u
        out = tnp.where(mask, prim_fn(x, float(u)), out)
    return out


def j0(x):
    """The Bessel function of the first kind of order 0, ``J_0(x)``.

    Parameters
    ----------
    x : array_like or tracer
        Real, any shape; integers and booleans give float64, float32 stays
        float32.

    Returns
    -------
    array or tracer
        ``x``'s shape and float dtype; 1 at 0, 0 at +-inf, NaN at NaN.
        Derivative ``-j1(x)``.

    Raises
    ------
    TypeError
        If ``x`` is complex.
    ImportError
        If SciPy (the optional extra ``pip install -e ".[scipy]"``) is
        missing: the values are SciPy's.
    """
    return ops.bessel_j0(_real(x, "j0"))


def j1(x):
    """The Bessel function of the first kind of order 1, ``J_1(x)``.

    Parameters
    ----------
    x : array_like or tracer
        Real, any shape; integers and booleans give float64, float32 stays
        float32.

    Returns
    -------
    array or tracer
        ``x``'s shape and float dtype; odd, 0 at 0 and +-inf.  Derivative
        ``j0(x) - j1(x) / x`` (limit 1/2 at 0), computed as
        ``(j0(x) - jv(2, x)) / 2`` (A&S 9.1.27), which holds at 0 too.

    Raises
    ------
    TypeError
        If ``x`` is complex.
    ImportError
        If SciPy (``pip install -e ".[scipy]"``) is missing.
    """
    return ops.bessel_j1(_real(x, "j1"))


def y0(x):
    """The Bessel function of the second kind of order 0, ``Y_0(x)``.

    Parameters
    ----------
    x : array_like or tracer
        Real, any shape; integers and booleans give float64, float32 stays
        float32.

    Returns
    -------
    array or tracer
        ``x``'s shape and float dtype; ``-inf`` at 0, NaN for ``x < 0`` (as
        SciPy).  Derivative ``-y1(x)``.

    Raises
    ------
    TypeError
        If ``x`` is complex.
    ImportError
        If SciPy (``pip install -e ".[scipy]"``) is missing.
    """
    return ops.bessel_y0(_real(x, "y0"))


def y1(x):
    """The Bessel function of the second kind of order 1, ``Y_1(x)``.

    Parameters
    ----------
    x : array_like or tracer
        Real, any shape; integers and booleans give float64, float32 stays
        float32.

    Returns
    -------
    array or tracer
        ``x``'s shape and float dtype; ``-inf`` at 0, NaN for ``x < 0`` (as
        SciPy).  Derivative ``y0(x) - y1(x) / x = (y0(x) - yv(2, x)) / 2``.

    Raises
    ------
    TypeError
        If ``x`` is complex.
    ImportError
        If SciPy (``pip install -e ".[scipy]"``) is missing.
    """
    return ops.bessel_y1(_real(x, "y1"))


def jv(v, x):
    """The Bessel function of the first kind of real order ``v``, ``J_v(x)``.

    Parameters
    ----------
    v : array_like
        The real order: a concrete number or array (not a tracer: the
        order is not differentiated), broadcast against ``x``.
    x : array_like or tracer
        Real; integers and booleans give float64, float32 stays float32.

    Returns
    -------
    array or tracer
        The broadcast shape, ``x``'s float dtype; SciPy's values (NaN for
        ``x < 0`` and non-integer ``v``, where ``J_v`` is complex; ``+-inf``
        at 0 for negative non-integer ``v``).  Derivative in ``x``
        ``(jv(v - 1, x) - jv(v + 1, x)) / 2`` (A&S 9.1.27).

    Raises
    ------
    TypeError
        If ``v`` is a tracer (differentiating in the order) or not real, or
        ``x`` is complex.
    ImportError
        If SciPy (``pip install -e ".[scipy]"``) is missing.
    """
    return _bessel_of_order(ops.bessel_jv, "jv", v, x)


def jn(n, x):
    """``J_n(x)`` of integer order: SciPy's ``jn``, an alias of :func:`jv`.

    Parameters
    ----------
    n : array_like
        The order (concrete, not traced); SciPy's ``jn`` is ``jv`` and
        accepts any real order, and so does this one.
    x : array_like or tracer
        Real.

    Returns
    -------
    array or tracer
        ``jv(n, x)``.

    Raises
    ------
    TypeError
        As :func:`jv`.
    """
    return _bessel_of_order(ops.bessel_jv, "jn", n, x)


def yv(v, x):
    """The Bessel function of the second kind of real order ``v``, ``Y_v(x)``.

    Parameters
    ----------
    v : array_like
        The real order: a concrete number or array (not a tracer: the
        order is not differentiated), broadcast against ``x``.
    x : array_like or tracer
        Real; integers and booleans give float64, float32 stays float32.

    Returns
    -------
    array or tracer
        The broadcast shape, ``x``'s float dtype; SciPy's values (``-inf``
        at 0 for ``v >= 0``, NaN for ``x < 0``).  Derivative in ``x``
        ``(yv(v - 1, x) - yv(v + 1, x)) / 2`` (A&S 9.1.27).

    Raises
    ------
    TypeError
        If ``v`` is a tracer or not real, or ``x`` is complex.
    ImportError
        If SciPy (``pip install -e ".[scipy]"``) is missing.
    """
    return _bessel_of_order(ops.bessel_yv, "yv", v, x)


def yn(n, x):
    """``Y_n(x)`` of integer order (SciPy's ``yn``).

    Parameters
    ----------
    n : array_like
        The integer order (concrete, not traced); a non-integer float is
        truncated toward zero, as SciPy's ``yn`` does.
    x : array_like or tracer
        Real.

    Returns
    -------
    array or tracer
        ``yv(trunc(n), x)``.

    Raises
    ------
    TypeError
        As :func:`yv`.
    """
    return _bessel_of_order(ops.bessel_yv, "yn", np.trunc(_bessel_order(n, "yn")), x)


def iv(v, x):
    """The modified Bessel function of the first kind of real order ``v``, ``I_v(x)``.

    Parameters
    ----------
    v : array_like
        The real order: a concrete number or array (not a tracer: the
        order is not differentiated), broadcast against ``x``.
    x : array_like or tracer
        Real; integers and booleans give float64, float32 stays float32.

    Returns
    -------
    array or tracer
        The broadcast shape, ``x``'s float dtype; SciPy's values (NaN for
        ``x < 0`` and non-integer ``v``; ``inf`` past overflow, near
        ``x = 713`` -- use :func:`ive` there).  Derivative in ``x``
        ``(iv(v - 1, x) + iv(v + 1, x)) / 2`` (A&S 9.6.26).

    Raises
    ------
    TypeError
        If ``v`` is a tracer or not real, or ``x`` is complex.
    ImportError
        If SciPy (``pip install -e ".[scipy]"``) is missing.
    """
    return _bessel_of_order(ops.bessel_iv, "iv", v, x)


def ive(v, x):
    """The exponentially scaled modified Bessel function ``I_v(x) exp(-|x|)``.

    Parameters
    ----------
    v : array_like
        The real order: a concrete number or array (not a tracer: the
        order is not differentiated), broadcast against ``x``.
    x : array_like or tracer
        Real; integers and booleans give float64, float32 stays float32.

    Returns
    -------
    array or tracer
        The broadcast shape, ``x``'s float dtype; finite for large ``|x|``
        (about ``1 / sqrt(2 pi x)``).  Derivative in ``x``
        ``(ive(v - 1, x) + ive(v + 1, x)) / 2 - sign(x) ive(v, x)``.

    Raises
    ------
    TypeError
        If ``v`` is a tracer or not real, or ``x`` is complex.
    ImportError
        If SciPy (``pip install -e ".[scipy]"``) is missing.
    """
    return _bessel_of_order(ops.bessel_ive, "ive", v, x)


def bessel_jn(z, *, v, n_iter=50):
    """``J_0(z), ..., J_v(z)`` stacked on a leading axis (``jax.scipy.special.bessel_jn``).

    Parameters
    ----------
    z : array_like or tracer
        Real, any shape.
    v : int
        The largest order, a non-negative Python int.
    n_iter : int, optional
        Accepted for JAX's signature; unused (JAX runs that many steps of a
        backward recurrence, here each order is SciPy's ``jv``).

    Returns
    -------
    array or tracer
        Shape ``(v + 1,) + z.shape``, ``z``'s float dtype; row ``k`` is
        ``jv(k, z)``.

    Raises
    ------
    TypeError
        If ``v`` is not a concrete integer or ``z`` is complex.
    ValueError
        If ``v < 0``.
    """
    if isinstance(v, Tracer) or np.ndim(v) != 0 or int(v) != v:
        raise TypeError(f"bessel_jn's v must be one concrete non-negative integer, got {v!r}")
    if v < 0:
        raise ValueError(f"bessel_jn's v must be >= 0, got {v}")
    z = _real(z, "bessel_jn")
    return tnp.stack([ops.bessel_jv(z, float(k)) for k in range(int(v) + 1)])
