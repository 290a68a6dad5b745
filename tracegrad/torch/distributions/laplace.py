"""The Laplace distribution."""
import numbers

from .. import _ops
from .._tensor import Size
from . import constraints
from .distribution import Distribution, _expand_params
from .utils import _finfo, _new, _rng, broadcast_all

__all__ = ["Laplace"]


class Laplace(Distribution):
    """The Laplace (double exponential) distribution of location ``loc`` and scale ``scale``.

    Parameters
    ----------
    loc : float or Tensor
    scale : float or Tensor
        Positive.
    validate_args : bool, optional

    Notes
    -----
    ``log_prob(x) = -log(2 scale) - |x - loc| / scale``, ``variance = 2
    scale**2``, ``entropy = 1 + log(2 scale)``; ``rsample`` is ``loc - scale
    sign(u) log1p(-|u|)`` with ``u`` uniform on ``(eps - 1, 1)``.
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
        return _expand_params(self, Laplace, batch_shape, _instance, ("loc", "scale"))

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        return 2 * self.scale.pow(2)

    @property
    def stddev(self):
        return (2 ** 0.5) * self.scale

    def rsample(self, sample_shape=Size()):
        shape = self._extended_shape(sample_shape)
        eps = float(_finfo(self.loc).eps)
        u = _new(_rng().uniform(eps - 1, 1, tuple(shape)), self.loc)
        return self.loc - self.scale * u.sign() * _ops.log1p(-u.abs())

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return -_ops.log(2 * self.scale) - _ops.abs(value - self.loc) / self.scale

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        d = value - self.loc
        return 0.5 - 0.5 * d.sign() * _ops.expm1(-d.abs() / self.scale)

    def icdf(self, value):
        term = value - 0.5
        return self.loc - self.scale * term.sign() * _ops.log1p(-2 * term.abs())

    def entropy(self):
        return 1 + _ops.log(2 * self.scale)
