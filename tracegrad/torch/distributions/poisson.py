"""The Poisson distribution."""
import numbers

from .. import _grad_mode
from .._tensor import Size
from . import constraints
from .distribution import Distribution, _expand_params
from .utils import _data, _lgamma, _new, _rng, _xlogy, broadcast_all

__all__ = ["Poisson"]


class Poisson(Distribution):
    """The Poisson distribution of rate ``rate``: ``P(k) = rate**k exp(-rate) / k!``.

    Parameters
    ----------
    rate : float or Tensor
        Nonnegative.
    validate_args : bool, optional

    Notes
    -----
    ``log_prob(k) = xlogy(k, rate) - rate - lgamma(k + 1)``.  ``sample``
    has no gradient (no ``rsample``); ``entropy`` is not implemented (PyTorch
    derives it from its exponential-family base, which lacks the carrier
    measure for the Poisson, so it raises there too).
    """

    arg_constraints = {"rate": constraints.nonnegative}
    support = constraints.nonnegative_integer

    def __init__(self, rate, validate_args=None):
        (self.rate,) = broadcast_all(rate)
        batch_shape = Size() if isinstance(rate, numbers.Number) else self.rate.size()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return _expand_params(self, Poisson, batch_shape, _instance, ("rate",))

    @property
    def mean(self):
        return self.rate

    @property
    def mode(self):
        return self.rate.floor()

    @property
    def variance(self):
        return self.rate

    def sample(self, sample_shape=Size()):
        shape = tuple(self._extended_shape(sample_shape))
        with _grad_mode.no_grad():
            return _new(_rng().poisson(_data(self.rate.expand(shape))), self.rate)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        rate, value = broadcast_all(self.rate, value)
        return _xlogy(value, rate) - rate - _lgamma(value + 1)
