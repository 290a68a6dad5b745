"""The Dirichlet distribution."""
import numpy as np

from .. import _creation, _ops
from . import constraints
from .distribution import Distribution, _expand_params
from .gamma import _standard_gamma
from .utils import _digamma, _lgamma, _xlogy

__all__ = ["Dirichlet"]


class Dirichlet(Distribution):
    """The Dirichlet distribution of concentration ``concentration`` on the simplex.

    Parameters
    ----------
    concentration : Tensor
        ``batch_shape + (k,)``, positive, at least one-dimensional.
    validate_args : bool, optional

    Raises
    ------
    ValueError
        For a 0-d ``concentration`` (PyTorch's message).

    Notes
    -----
    ``log_prob(x) = sum(xlogy(a - 1, x)) + lgamma(sum a) - sum lgamma(a)``;
    ``entropy = sum lgamma(a) - lgamma(a0) - (k - a0) digamma(a0) - sum((a -
    1) digamma(a))``.  ``rsample`` normalizes independent gamma draws, each
    implicitly reparameterized (see :class:`~.gamma.Gamma`), so it is
    differentiable in ``concentration``.
    """

    arg_constraints = {"concentration": constraints.independent(constraints.positive, 1)}
    support = constraints.simplex
    has_rsample = True

    def __init__(self, concentration, validate_args=None):
        if concentration.dim() < 1:
            raise ValueError("`concentration` parameter must be at least one-dimensional.")
        self.concentration = concentration
        batch_shape, event_shape = concentration.shape[:-1], concentration.shape[-1:]
        super().__init__(batch_shape, event_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return _expand_params(self, Dirichlet, batch_shape, _instance, ("concentration",),
                              self.event_shape)

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        g = _standard_gamma(self.concentration.expand(shape))
        return g / g.sum(-1, keepdim=True)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        a = self.concentration
        return _xlogy(a - 1.0, value).sum(-1) + _lgamma(a.sum(-1)) - _lgamma(a).sum(-1)

    @property
    def mean(self):
        return self.concentration / self.concentration.sum(-1, True)

    @property
    def mode(self):
        cm1 = (self.concentration - 1).clamp(min=0.0)
        mode = cm1 / cm1.sum(-1, True)
        mask = np.asarray((self.concentration._data < 1).all(-1))
        if mask.any():
            # every concentration below 1: the mode is the vertex of the largest one
            k = cm1.shape[-1]
            vertex = np.eye(k, dtype=mode._data.dtype)[np.argmax(mode._data, -1)]
            mode = _ops.where(_creation.tensor(np.broadcast_to(mask[..., None], mode.shape)),
                              _creation.tensor(vertex), mode)
        return mode

    @property
    def variance(self):
        con0 = self.concentration.sum(-1, True)
        return self.concentration * (con0 - self.concentration) / (con0.pow(2) * (con0 + 1))

    def entropy(self):
        a = self.concentration
        k = a.size(-1)
        a0 = a.sum(-1)
        return (_lgamma(a).sum(-1) - _lgamma(a0) - (k - a0) * _digamma(a0)
                - ((a - 1.0) * _digamma(a)).sum(-1))


