"""The beta distribution."""
import numbers

from .. import _creation, _ops

from . import constraints
from .dirichlet import Dirichlet
from .distribution import Distribution
from .utils import broadcast_all

__all__ = ["Beta"]


class Beta(Distribution):
    """The beta distribution of ``concentration1`` (alpha) and ``concentration0`` (beta).

    Parameters
    ----------
    concentration1, concentration0 : float or Tensor
        Positive; broadcast together.
    validate_args : bool, optional
        Passed to the underlying :class:`~.dirichlet.Dirichlet` of
        ``stack([concentration1, concentration0], -1)``, which checks the
        parameters first (so the error names ``Dirichlet``, as in PyTorch).

    Notes
    -----
    ``log_prob(x)`` is the Dirichlet's at ``(x, 1 - x)``; ``rsample`` the first
    coordinate of the Dirichlet's (differentiable in both concentrations).
    """

    arg_constraints = {"concentration1": constraints.positive,
                       "concentration0": constraints.positive}
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, concentration1, concentration0, validate_args=None):
        if isinstance(concentration1, numbers.Number) and isinstance(concentration0,
                                                                     numbers.Number):
            c = _creation.tensor([float(concentration1), float(concentration0)])
        else:
            concentration1, concentration0 = broadcast_all(concentration1, concentration0)
            c = _ops.stack([concentration1, concentration0], -1)
        self._dirichlet = Dirichlet(c, validate_args=validate_args)
        super().__init__(self._dirichlet._batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Beta, _instance)
        new._dirichlet = self._dirichlet.expand(batch_shape)
        Distribution.__init__(new, new._dirichlet.batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def concentration1(self):
        return self._dirichlet.concentration[..., 0]

    @property
    def concentration0(self):
        return self._dirichlet.concentration[..., 1]

    @property
    def mean(self):
        return self.concentration1 / (self.concentration1 + self.concentration0)

    @property
    def mode(self):
        return self._dirichlet.mode[..., 0]

    @property
    def variance(self):
        total = self.concentration1 + self.concentration0
        return self.concentration1 * self.concentration0 / (total.pow(2) * (total + 1))

    def rsample(self, sample_shape=()):
        return self._dirichlet.rsample(sample_shape).select(-1, 0)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return self._dirichlet.log_prob(_ops.stack([value, 1.0 - value], -1))

    def entropy(self):
        return self._dirichlet.entropy()


