"""The log-normal distribution."""
from .. import _ops
from .._tensor import Size
from . import constraints
from .distribution import Distribution
from .normal import Normal

__all__ = ["LogNormal"]


class LogNormal(Distribution):
    """The distribution of ``exp(X)`` for ``X ~ Normal(loc, scale)``.

    Parameters
    ----------
    loc, scale : float or Tensor
        The parameters of the underlying normal distribution (``base_dist``,
        which validates them, so errors name ``Normal`` as in PyTorch).
    validate_args : bool, optional

    Notes
    -----
    PyTorch builds it as a ``TransformedDistribution`` of ``Normal`` by
    ``ExpTransform``; here the same formulas are written out:
    ``log_prob(y) = Normal.log_prob(log y) - log y``, ``cdf(y) =
    Normal.cdf(log y)``, ``icdf(u) = exp(Normal.icdf(u))``, ``mean =
    exp(loc + scale**2/2)``, ``variance = expm1(scale**2) exp(2 loc +
    scale**2)``, ``entropy = Normal.entropy + loc``.  ``rsample`` is
    ``exp(base_dist.rsample())``.
    """

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.positive
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        self.base_dist = Normal(loc, scale, validate_args=validate_args)
        super().__init__(self.base_dist.batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(LogNormal, _instance)
        new.base_dist = self.base_dist.expand(batch_shape)
        Distribution.__init__(new, new.base_dist.batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def loc(self):
        return self.base_dist.loc

    @property
    def scale(self):
        return self.base_dist.scale

    @property
    def mean(self):
        return (self.loc + self.scale.pow(2) / 2).exp()

    @property
    def mode(self):
        return (self.loc - self.scale.square()).exp()

    @property
    def variance(self):
        scale_sq = self.scale.pow(2)
        return scale_sq.expm1() * (2 * self.loc + scale_sq).exp()

    def rsample(self, sample_shape=Size()):
        return self.base_dist.rsample(sample_shape).exp()

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        x = _ops.log(value)
        return -x + self.base_dist.log_prob(x)

    def cdf(self, value):
        return self.base_dist.cdf(_ops.log(value))

    def icdf(self, value):
        return self.base_dist.icdf(value).exp()

    def entropy(self):
        return self.base_dist.entropy() + self.loc
