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
rest of ``scipy.special`` (``gammainc``, ``betainc``, ``zeta``, ...) is not
written yet.  The Bessel functions (``j0`` ... ``ive``, at the end) are
primitives of :mod:`tracegrad.primitives.bessel` whose values are SciPy's.
"""
import math

import numpy as np

from .. import nn
from .. import numpy as tnp
from ..core import Tracer
from ..numpy._core import arg
from ..primitives import ops

__all__ = [
    "beta", "betaln", "digamma", "entr", "erf", "erfc", "erfcinv", "erfcx", "erfinv", "expit",
    "gamma", "gammaln", "gammasgn", "kl_div", "loggamma", "log_expit", "log_ndtr", "log_softmax", "logit", "logsumexp",
    "multigammaln", "ndtr", "ndtri", "polygamma", "psi", "rel_entr", "sinc", "softmax",
    "xlog1py", "xlogy",
    # Bessel functions (primitives/bessel.py)
    "bessel_jn", "i0", "i0e", "i1", "i1e", "iv", "ive", "j0", "j1", "jn", "jv", "y0", "y1", "yn",
    "yv",
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
        The broadcast shape and float dtype; ``sign * exp(betaln(a, b))``
        (relative error about ``|betaln| * eps``, as Cephes' ``beta`` for
        large arguments).

    Raises
    ------
    TypeError
        If an operand is complex.
    """
    a, b = _reals("beta", a, b)
    sign = ops.mul(ops.mul(_gamma_sign(a), _gamma_sign(b)), _gamma_sign(ops.add(a, b)))
    return ops.mul(sign, ops.exp(ops.betaln(a, b)))


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
    x, y = _reals("xlogy", x, y)
    # y is replaced by 1 only where x == 0 would meet log(y) = -inf or NaN from y <= 0 or inf
    safe = ops.logical_and(ops.eq(x, 0.0), ops.logical_or(ops.le(y, 0.0), ops.isinf(y)))
    return ops.mul(x, ops.log(ops.select(safe, 1.0, y)))


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
    x, y = _reals("xlog1py", x, y)
    safe = ops.logical_and(ops.eq(x, 0.0), ops.logical_or(ops.le(y, -1.0), ops.isinf(y)))
    return ops.mul(x, ops.log1p(ops.select(safe, 0.0, y)))


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
    x = _real(x, "entr")
    negative = ops.lt(x, 0.0)
    return ops.select(negative, -np.inf, ops.neg(xlogy(x, x)))


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
    x = _real(x, "logit")
    near_half = ops.logical_and(ops.gt(x, 0.3), ops.lt(x, 0.65))
    xc = ops.select(near_half, x, 0.5)
    s = ops.sub(ops.mul(2.0, xc), 1.0)
    centre = ops.sub(ops.log1p(s), ops.log1p(ops.neg(s)))
    xo = ops.select(near_half, 0.25, x)
    outer = ops.log(ops.div(xo, ops.sub(1.0, xo)))
    return ops.select(near_half, centre, outer)


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




def i0(x):
    """``I_0(x)``, the modified Bessel function of order 0.

    ``jax.scipy.special.i0`` and SciPy's ``i0``: ``iv(0, x)``.

    Parameters
    ----------
    x : array_like or tracer
        Real, any shape; integers and booleans give float64, float32 stays
        float32.

    Returns
    -------
    array or tracer
        ``x``'s shape and float dtype (SciPy's values).  Derivative
        ``i1(x)``.

    Raises
    ------
    TypeError
        If ``x`` is complex.
    ImportError
        If SciPy (``pip install -e ".[scipy]"``) is missing.
    """
    return ops.bessel_iv(_real(x, "i0"), 0.0)


def i0e(x):
    """``I_0(x) exp(-|x|)``, the exponentially scaled modified Bessel function of order 0.

    ``jax.scipy.special.i0e`` and SciPy's ``i0e``: ``ive(0, x)``.

    Parameters
    ----------
    x : array_like or tracer
        Real, any shape; integers and booleans give float64, float32 stays
        float32.

    Returns
    -------
    array or tracer
        ``x``'s shape and float dtype (SciPy's values).  Derivative
        ``i1e(x) - sign(x) i0e(x)``.

    Raises
    ------
    TypeError
        If ``x`` is complex.
    ImportError
        If SciPy (``pip install -e ".[scipy]"``) is missing.
    """
    return ops.bessel_ive(_real(x, "i0e"), 0.0)


def i1(x):
    """``I_1(x)``, the modified Bessel function of order 1.

    ``jax.scipy.special.i1`` and SciPy's ``i1``: ``iv(1, x)``.

    Parameters
    ----------
    x : array_like or tracer
        Real, any shape; integers and booleans give float64, float32 stays
        float32.

    Returns
    -------
    array or tracer
        ``x``'s shape and float dtype (SciPy's values).  Derivative
        ``(i0(x) + iv(2, x)) / 2``.

    Raises
    ------
    TypeError
        If ``x`` is complex.
    ImportError
        If SciPy (``pip install -e ".[scipy]"``) is missing.
    """
    return ops.bessel_iv(_real(x, "i1"), 1.0)


def i1e(x):
    """``I_1(x) exp(-|x|)``, the exponentially scaled modified Bessel function of order 1.

    ``jax.scipy.special.i1e`` and SciPy's ``i1e``: ``ive(1, x)``.

    Parameters
    ----------
    x : array_like or tracer
        Real, any shape; integers and booleans give float64, float32 stays
        float32.

    Returns
    -------
    array or tracer
        ``x``'s shape and float dtype (SciPy's values).  Derivative
        ``(i0e(x) + ive(2, x)) / 2 - sign(x) i1e(x)``.

    Raises
    ------
    TypeError
        If ``x`` is complex.
    ImportError
        If SciPy (``pip install -e ".[scipy]"``) is missing.
    """
    return ops.bessel_ive(_real(x, "i1e"), 1.0)
