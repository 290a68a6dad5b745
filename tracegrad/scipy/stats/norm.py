"""The normal distribution ``N(loc, scale**2)`` (``scipy.stats.norm``'s functions).

Every function broadcasts ``x`` (or ``q``), ``loc`` and ``scale`` together,
keeps float32 float32, and is differentiable to any order in all three.
The CDF family goes through :func:`tracegrad.scipy.special.ndtr`,
``log_ndtr`` and ``ndtri`` of the standardized value, so the log-CDF and
log-survival functions stay accurate far in the tails.  ``scale`` must be
positive (no check: a non-positive scale gives NaN or a meaningless value,
as in ``jax.scipy.stats``).
"""
import math

from .. import special
from ...primitives import ops
from ..special import _real

__all__ = ["logpdf", "pdf", "cdf", "logcdf", "sf", "logsf", "ppf", "isf"]

_HALF_LOG_2PI = 0.5 * math.log(2.0 * math.pi)


def _standardize(x, loc, scale, name):
    x, loc, scale = (_real(v, name) for v in (x, loc, scale))
    return ops.div(ops.sub(x, loc), scale), scale


def logpdf(x, loc=0.0, scale=1.0):
    """Log of the normal density, ``-z**2/2 - log(scale) - log(2 pi)/2``.

    Parameters
    ----------
    x, loc, scale : array_like or tracer
        Real, broadcast together (``z = (x - loc) / scale``).

    Returns
    -------
    array or tracer
        The broadcast shape and float dtype.

    Raises
    ------
    TypeError
        If an operand is complex.
    """
    z, scale = _standardize(x, loc, scale, "norm.logpdf")
    return ops.sub(ops.mul(-0.5, ops.square(z)), ops.add(ops.log(scale), _HALF_LOG_2PI))


def pdf(x, loc=0.0, scale=1.0):
    """The normal density ``exp(logpdf(x, loc, scale))``.

    Parameters
    ----------
    x, loc, scale : array_like or tracer
        Real, broadcast together.

    Returns
    -------
    array or tracer
        The broadcast shape and float dtype.

    Raises
    ------
    TypeError
        If an operand is complex.
    """
    return ops.exp(logpdf(x, loc, scale))


def cdf(x, loc=0.0, scale=1.0):
    """The normal CDF ``ndtr((x - loc) / scale)``.

    Parameters
    ----------
    x, loc, scale : array_like or tracer
        Real, broadcast together.

    Returns
    -------
    array or tracer
        The broadcast shape and float dtype.

    Raises
    ------
    TypeError
        If an operand is complex.
    """
    return special.ndtr(_standardize(x, loc, scale, "norm.cdf")[0])


def logcdf(x, loc=0.0, scale=1.0):
    """Log of the normal CDF, ``log_ndtr((x - loc) / scale)``.

    Parameters
    ----------
    x, loc, scale : array_like or tracer
        Real, broadcast together.

    Returns
    -------
    array or tracer
        The broadcast shape and float dtype.

    Raises
    ------
    TypeError
        If an operand is complex.
    """
    return special.log_ndtr(_standardize(x, loc, scale, "norm.logcdf")[0])


def sf(x, loc=0.0, scale=1.0):
    """The survival function ``1 - cdf``, as ``ndtr(-(x - loc) / scale)``.

    Parameters
    ----------
    x, loc, scale : array_like or tracer
        Real, broadcast together.

    Returns
    -------
    array or tracer
        The broadcast shape and float dtype (accurate in the upper tail).

    Raises
    ------
    TypeError
        If an operand is complex.
    """
    return special.ndtr(ops.neg(_standardize(x, loc, scale, "norm.sf")[0]))


def logsf(x, loc=0.0, scale=1.0):
    """Log of the survival function, ``log_ndtr(-(x - loc) / scale)``.

    Parameters
    ----------
    x, loc, scale : array_like or tracer
        Real, broadcast together.

    Returns
    -------
    array or tracer
        The broadcast shape and float dtype.

    Raises
    ------
    TypeError
        If an operand is complex.
    """
    return special.log_ndtr(ops.neg(_standardize(x, loc, scale, "norm.logsf")[0]))


def ppf(q, loc=0.0, scale=1.0):
    """The quantile function ``loc + scale * ndtri(q)``.

    Parameters
    ----------
    q : array_like or tracer
        Probabilities in ``[0, 1]``.
    loc, scale : array_like or tracer
        Real, broadcast with ``q``.

    Returns
    -------
    array or tracer
        The broadcast shape and float dtype; ``-inf`` at 0, ``inf`` at 1,
        NaN outside ``[0, 1]``.

    Raises
    ------
    TypeError
        If an operand is complex.
    """
    q, loc, scale = (_real(v, "norm.ppf") for v in (q, loc, scale))
    return ops.add(loc, ops.mul(scale, special.ndtri(q)))


def isf(q, loc=0.0, scale=1.0):
    """The inverse survival function ``loc - scale * ndtri(q)``.

    Parameters
    ----------
    q : array_like or tracer
        Probabilities in ``[0, 1]``.
    loc, scale : array_like or tracer
        Real, broadcast with ``q``.

    Returns
    -------
    array or tracer
        The broadcast shape and float dtype.

    Raises
    ------
    TypeError
        If an operand is complex.
    """
    q, loc, scale = (_real(v, "norm.isf") for v in (q, loc, scale))
    return ops.sub(loc, ops.mul(scale, special.ndtri(q)))
