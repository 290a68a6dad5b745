"""The normal distribution."""
import math
import numbers

from .. import _ops
from .._tensor import Size
from . import constraints
from .distribution import Distribution, _expand_params
from .utils import _erfinv, _standard_normal, broadcast_all

__all__ = ["Normal"]


class Normal(Distribution):
    """The normal distribution of mean ``loc`` and standard deviation ``scale``.

    Parameters
    ----------
    loc : float or Tensor
    scale : float or Tensor
        Positive; broadcast with ``loc`` (the batch shape).
    validate_args : bool, optional

    Notes
    -----
    ``log_prob(x) = -(x - loc)**2 / (2 scale**2) - log(scale) - log(sqrt(2 pi))``;
    ``cdf(x) = (1 + erf((x - loc) / (scale sqrt(2)))) / 2``; ``entropy = 1/2 +
    log(2 pi)/2 + log(scale)``.  ``rsample`` is ``loc + scale * eps`` with
    ``eps`` standard normal, so its gradients reach ``loc`` and ``scale``.
    """

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        self.loc, self.scale = broadcast_all(loc, scale)
        if isinstance(loc, numbers.Number) and isinstance(scale, numbers.Number):
            batch_shape = Size()
        else:
            batch_shape = self.loc.size()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return _expand_params(self, Normal, batch_shape, _instance, ("loc", "scale"))

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    @property
    def stddev(self):
        return self.scale

    @property
    def variance(self):
        return self.stddev.pow(2)

    def rsample(self, sample_shape=Size()):
        shape = self._extended_shape(sample_shape)
        eps = _standard_normal(shape, self.loc)
        return self.loc + eps * self.scale

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        var = self.scale ** 2
        return (-((value - self.loc) ** 2) / (2 * var) - self.scale.log()
                - math.log(math.sqrt(2 * math.pi)))

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return 0.5 * (1 + _ops.erf((value - self.loc) * self.scale.reciprocal() / math.sqrt(2)))

    def icdf(self, value):
        return self.loc + self.scale * _erfinv(2 * value - 1) * math.sqrt(2)

    def entropy(self):
        return 0.5 + 0.5 * math.log(2 * math.pi) + _ops.log(self.scale)
