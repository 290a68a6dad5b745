"""The continuous uniform distribution."""
import math
import numbers

from .. import _ops
from .._tensor import Size
from . import constraints
from .distribution import Distribution, _expand_params
from .utils import _new, _rng, broadcast_all

__all__ = ["Uniform"]


class Uniform(Distribution):
    """The uniform distribution on the half-open interval ``[low, high)``.

    Parameters
    ----------
    low, high : float or Tensor
        Broadcast together; validation requires ``low < high``
        (``arg_constraints`` are ``less_than(high)`` and ``greater_than(low)``).
    validate_args : bool, optional

    Notes
    -----
    ``log_prob(x) = log(1[low <= x < high]) - log(high - low)``, ``cdf`` the
    clamped ratio, ``icdf(u) = low + u (high - low)``, ``entropy =
    log(high - low)``; ``rsample`` is ``low + u (high - low)`` with ``u``
    uniform on ``[0, 1)``.
    """

    has_rsample = True

    @property
    def arg_constraints(self):
        return {"low": constraints.less_than(self.high), "high": constraints.greater_than(self.low)}

    def __init__(self, low, high, validate_args=None):
        self.low, self.high = broadcast_all(low, high)
        if isinstance(low, numbers.Number) and isinstance(high, numbers.Number):
            batch_shape = Size()
        else:
            batch_shape = self.low.size()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return _expand_params(self, Uniform, batch_shape, _instance, ("low", "high"))

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self):
        return constraints.interval(self.low, self.high)

    @property
    def mean(self):
        return (self.high + self.low) / 2

    @property
    def mode(self):
        return math.nan * self.high

    @property
    def stddev(self):
        return (self.high - self.low) / 12 ** 0.5

    @property
    def variance(self):
        return (self.high - self.low).pow(2) / 12

    def rsample(self, sample_shape=Size()):
        shape = self._extended_shape(sample_shape)
        u = _new(_rng().random(tuple(shape)), self.low)
        return self.low + u * (self.high - self.low)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        lb = self.low.le(value).type_as(self.low)
        ub = self.high.gt(value).type_as(self.low)
        return _ops.log(lb.mul(ub)) - _ops.log(self.high - self.low)

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        result = (value - self.low) / (self.high - self.low)
        return result.clamp(min=0, max=1)

    def icdf(self, value):
        return value * (self.high - self.low) + self.low

    def entropy(self):
        return _ops.log(self.high - self.low)
