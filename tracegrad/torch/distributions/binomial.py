"""The binomial distribution."""
import numpy as np

from .. import _creation, _ops
from .._tensor import Size
from . import constraints
from .distribution import Distribution, _size
from .utils import (_data, _lgamma, _new, _rng, broadcast_all, lazy_property, logits_to_probs,
                    probs_to_logits)

__all__ = ["Binomial"]


def _clamp_by_zero(x):
    # max(x, 0) with the gradient 1/2 at 0, as PyTorch writes it
    return (x.clamp(min=0) + x - x.clamp(max=0)) / 2


class Binomial(Distribution):
    """The number of successes in ``total_count`` Bernoulli trials of ``probs`` (or ``logits``).

    Parameters
    ----------
    total_count : int or Tensor, optional
        Nonnegative integers (default 1), broadcast with the probabilities.
    probs, logits : Tensor, optional
        Exactly one of them.
    validate_args : bool, optional

    Raises
    ------
    ValueError
        If both or neither of ``probs`` and ``logits`` are given.
    NotImplementedError
        From ``entropy``/``enumerate_support`` when ``total_count`` is not the
        same everywhere (PyTorch's messages).

    Notes
    -----
    ``log_prob(k) = k logits - lgamma(k + 1) - lgamma(n - k + 1) - (n
    max(logits, 0) + n log1p(exp(-|logits|)) - lgamma(n + 1))``; ``entropy``
    sums ``-p log p`` over the support.  Samples have no gradient.
    """

    arg_constraints = {"total_count": constraints.nonnegative_integer,
                       "probs": constraints.unit_interval, "logits": constraints.real}
    has_enumerate_support = True

    def __init__(self, total_count=1, probs=None, logits=None, validate_args=None):
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        if probs is not None:
            self.total_count, self.probs = broadcast_all(total_count, probs)
            self.total_count = self.total_count.type_as(self.probs)
        else:
            self.total_count, self.logits = broadcast_all(total_count, logits)
            self.total_count = self.total_count.type_as(self.logits)
        self._param = self.probs if probs is not None else self.logits
        super().__init__(self._param.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Binomial, _instance)
        batch_shape = _size(batch_shape)
        new.total_count = self.total_count.expand(batch_shape)
        if "probs" in self.__dict__:
            new.probs = self.probs.expand(batch_shape)
            new._param = new.probs
        if "logits" in self.__dict__:
            new.logits = self.logits.expand(batch_shape)
            new._param = new.logits
        Distribution.__init__(new, batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @constraints.dependent_property(is_discrete=True, event_dim=0)
    def support(self):
        return constraints.integer_interval(0, self.total_count)

    @property
    def mean(self):
        return self.total_count * self.probs

    @property
    def mode(self):
        return ((self.total_count + 1) * self.probs).floor().clamp(max=self.total_count)

    @property
    def variance(self):
        return self.total_count * self.probs * (1 - self.probs)

    @lazy_property
    def logits(self):
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self):
        return logits_to_probs(self.logits, is_binary=True)

    @property
    def param_shape(self):
        return self._param.size()

    def sample(self, sample_shape=Size()):
        shape = tuple(self._extended_shape(sample_shape))
        n = np.broadcast_to(_data(self.total_count), shape).astype(np.int64)
        p = np.broadcast_to(_data(self.probs), shape).astype(np.float64)
        return _new(_rng().binomial(n, p), self.probs)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        n = self.total_count
        log_factorial_n = _lgamma(n + 1)
        log_factorial_k = _lgamma(value + 1)
        log_factorial_nmk = _lgamma(n - value + 1)
        normalize_term = (n * _clamp_by_zero(self.logits)
                          + n * _ops.log1p(_ops.exp(-_ops.abs(self.logits))) - log_factorial_n)
        return value * self.logits - log_factorial_k - log_factorial_nmk - normalize_term

    def _homogeneous_count(self, what):
        total_count = int(self.total_count.max())
        if not self.total_count.min() == total_count:
            raise NotImplementedError(f"Inhomogeneous total count not supported by `{what}`.")
        return total_count

    def entropy(self):
        self._homogeneous_count("entropy")
        log_prob = self.log_prob(self.enumerate_support(False))
        return -(_ops.exp(log_prob) * log_prob).sum(0)

    def enumerate_support(self, expand=True):
        total_count = self._homogeneous_count("enumerate_support")
        values = _creation.arange(1 + total_count, dtype=self._param.dtype)
        values = values.view((-1,) + (1,) * len(self._batch_shape))
        if expand:
            values = values.expand((-1,) + tuple(self._batch_shape))
        return values
