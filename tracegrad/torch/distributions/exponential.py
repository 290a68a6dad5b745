"""The exponential distribution."""
import numbers

from .. import _creation, _ops
from .._tensor import Size
from . import constraints
from .distribution import Distribution, _expand_params
from .utils import _new, _rng, broadcast_all

__all__ = ["Exponential"]


class Exponential(Distribution):
    """The exponential distribution of rate ``rate`` (mean ``1 / rate``).

    Parameters
    ----------
    rate : float or Tensor
        Positive.
    validate_args : bool, optional

    Notes
    -----
    ``log_prob(x) = log(rate) - rate x``, ``cdf(x) = 1 - exp(-rate x)``,
    ``icdf(u) = -log1p(-u) / rate``, ``entropy = 1 - log(rate)``; ``rsample``
    is ``E / rate`` with ``E`` standard exponential.
    """

    arg_constraints = {"rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True

    def __init__(self, rate, validate_args=None):
        (self.rate,) = broadcast_all(rate)
        batch_shape = Size() if isinstance(rate, numbers.Number) else self.rate.size()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return _expand_params(self, Exponential, batch_shape, _instance, ("rate",))

    @property
    def mean(self):
        return self.rate.reciprocal()

    @property
    def mode(self):
        return _creation.zeros_like(self.rate)

    @property
    def stddev(self):
        return self.rate.reciprocal()

    @property
    def variance(self):
        return self.rate.pow(-2)

    def rsample(self, sample_shape=Size()):
        shape = self._extended_shape(sample_shape)
        return _new(_rng().standard_exponential(tuple(shape)), self.rate) / self.rate

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return self.rate.log() - self.rate * value

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return 1 - _ops.exp(-self.rate * value)

    def icdf(self, value):
        return -_ops.log1p(-value) / self.rate

    def entropy(self):
        return 1.0 - _ops.log(self.rate)
