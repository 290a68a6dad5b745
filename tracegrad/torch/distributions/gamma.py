"""The gamma distribution (and the implicitly reparameterized gamma draw that
``Beta`` and ``Dirichlet`` share)."""
import numbers

import numpy as np

from .. import _ops
from .._tensor import Size, Tensor
from ..autograd.function import Function
from . import constraints
from .distribution import Distribution, _expand_params
from .utils import _data, _digamma, _gammainc, _lgamma, _np_dtype, _rng, _xlogy, broadcast_all

__all__ = ["Gamma"]


def _standard_gamma_grad(x, alpha):
    """``dx/dalpha`` of a standard-gamma draw ``x`` holding its CDF value fixed:
    ``-(dP(alpha, x)/dalpha) / p(x; alpha)`` (implicit reparameterization,
    Figurnov, Mohamed and Mnih 2018), the derivative of the regularized
    incomplete gamma function ``P`` in ``alpha`` by a central difference of
    SciPy's ``gammainc`` in float64."""
    import scipy.special as sc  # lazy: only for backward

    x = np.asarray(x, np.float64)
    a = np.asarray(alpha, np.float64)
    h = 1e-6 * np.maximum(a, 1e-3)
    dP = (sc.gammainc(a + h, x) - sc.gammainc(np.maximum(a - h, 0.5 * a), x)) \
        / (a + h - np.maximum(a - h, 0.5 * a))
    log_pdf = (a - 1) * np.log(x) - x - sc.gammaln(a)
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        out = -dP * np.exp(-log_pdf)
    return np.where(np.isfinite(out), out, 0.0)


class _StandardGamma(Function):
    """A standard-gamma draw of shape ``alpha.shape`` whose gradient in ``alpha``
    is the implicit reparameterization one (see :func:`_standard_gamma_grad`)."""

    @staticmethod
    def forward(ctx, alpha):
        a = _data(alpha)
        dt = _np_dtype(alpha)
        x = np.asarray(_rng().standard_gamma(a.astype(np.float64)), dtype=dt)
        x = np.maximum(x, np.finfo(dt).tiny)
        out = Tensor._wrap(np.ascontiguousarray(x))
        ctx.save_for_backward(out, alpha)
        return out

    @staticmethod
    def backward(ctx, grad):
        x, alpha = ctx.saved_tensors
        d = _standard_gamma_grad(_data(x), _data(alpha)).astype(_np_dtype(alpha))
        return grad * Tensor._wrap(np.ascontiguousarray(d))


def _standard_gamma(alpha):
    return _StandardGamma.apply(alpha)


class Gamma(Distribution):
    """The gamma distribution of shape ``concentration`` and rate ``rate``.

    Parameters
    ----------
    concentration, rate : float or Tensor
        Positive; broadcast together.
    validate_args : bool, optional

    Notes
    -----
    ``log_prob(x) = xlogy(c, rate) + xlogy(c - 1, x) - rate x - lgamma(c)``;
    ``entropy = c - log(rate) + lgamma(c) + (1 - c) digamma(c)``; ``cdf(x) =
    P(c, rate x)`` (the regularized incomplete gamma function, differentiable
    in ``x`` and ``rate`` but not in ``c``, as PyTorch's).  ``rsample`` is
    differentiable in both parameters: ``G / rate`` with ``G`` a standard
    gamma draw whose derivative in ``c`` is the implicit reparameterization
    gradient ``-(dP/dc) / p(G)`` (PyTorch's values are its own
    approximation of the same derivative; ``dP/dc`` is a central
    difference here).
    """

    arg_constraints = {"concentration": constraints.positive, "rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True

    def __init__(self, concentration, rate, validate_args=None):
        self.concentration, self.rate = broadcast_all(concentration, rate)
        if isinstance(concentration, numbers.Number) and isinstance(rate, numbers.Number):
            batch_shape = Size()
        else:
            batch_shape = self.concentration.size()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return _expand_params(self, Gamma, batch_shape, _instance, ("concentration", "rate"))

    @property
    def mean(self):
        return self.concentration / self.rate

    @property
    def mode(self):
        return ((self.concentration - 1) / self.rate).clamp(min=0)

    @property
    def variance(self):
        return self.concentration / self.rate.pow(2)

    def rsample(self, sample_shape=Size()):
        shape = self._extended_shape(sample_shape)
        value = _standard_gamma(self.concentration.expand(shape)) / self.rate.expand(shape)
        tiny = float(np.finfo(_np_dtype(value)).tiny)
        if bool((value._data < tiny).any()):
            value = _ops.where(Tensor._wrap(np.asarray(value._data < tiny)), tiny, value)
        return value

    def log_prob(self, value):
        if not isinstance(value, Tensor):
            value = Tensor._wrap(np.asarray(value, dtype=_np_dtype(self.rate)))
        elif value._data.dtype != self.rate._data.dtype:
            value = value.to(self.rate.dtype)
        if self._validate_args:
            self._validate_sample(value)
        c = self.concentration
        return _xlogy(c, self.rate) + _xlogy(c - 1, value) - self.rate * value - _lgamma(c)

    def entropy(self):
        c = self.concentration
        return c - _ops.log(self.rate) + _lgamma(c) + (1.0 - c) * _digamma(c)

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return _gammainc(self.concentration, self.rate * value)


