"""The categorical distribution over ``{0, ..., K - 1}``."""
import math

import numpy as np

from .. import _creation, _dtype
from .._tensor import Size, Tensor
from . import constraints
from .distribution import Distribution, _size
from .utils import _data, _finfo, _rng, lazy_property, logits_to_probs, probs_to_logits

__all__ = ["Categorical"]


def _draw_categorical(probs, sample_shape, extended_shape):
    """Indices drawn by inverting the cumulative probabilities of each row of
    ``probs`` (``(..., K)``), shaped ``extended_shape``."""
    p = _data(probs).astype(np.float64)
    k = p.shape[-1]
    rows = p.reshape(-1, k)
    cdf = np.cumsum(rows, -1)
    cdf /= cdf[:, -1:]
    n = int(np.prod(tuple(sample_shape), dtype=np.int64))
    u = _rng().random((n, rows.shape[0]))
    idx = (u[..., None] >= cdf[None]).sum(-1)
    idx = np.minimum(idx, k - 1).astype(np.int64)
    return Tensor._wrap(np.ascontiguousarray(idx.reshape(tuple(extended_shape))))


class Categorical(Distribution):
    """The categorical distribution of ``probs`` or ``logits`` (one of them).

    Parameters
    ----------
    probs : Tensor, optional
        ``batch_shape + (K,)``, nonnegative; normalized along the last dimension.
    logits : Tensor, optional
        ``batch_shape + (K,)`` unnormalized log-probabilities (normalized by
        subtracting their ``logsumexp``).
    validate_args : bool, optional

    Raises
    ------
    ValueError
        If both or neither of ``probs`` and ``logits`` are given, or the one
        given is 0-d (PyTorch's messages).

    Notes
    -----
    Samples are int64 indices of shape ``sample_shape + batch_shape``
    (no gradient); ``log_prob(k) = logits[..., k]``; ``entropy = -sum(p
    log p)``; ``mean`` and ``variance`` are NaN, as in PyTorch.
    """

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    has_enumerate_support = True

    def __init__(self, probs=None, logits=None, validate_args=None):
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        if probs is not None:
            if probs.dim() < 1:
                raise ValueError("`probs` parameter must be at least one-dimensional.")
            self.probs = probs / probs.sum(-1, keepdim=True)
        else:
            if logits.dim() < 1:
                raise ValueError("`logits` parameter must be at least one-dimensional.")
            self.logits = logits - logits.logsumexp(dim=-1, keepdim=True)
        self._param = self.probs if probs is not None else self.logits
        self._num_events = self._param.size()[-1]
        batch_shape = self._param.size()[:-1] if self._param.dim() > 1 else Size()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Categorical, _instance)
        batch_shape = _size(batch_shape)
        param_shape = tuple(batch_shape) + (self._num_events,)
        if "probs" in self.__dict__:
            new.probs = self.probs.expand(param_shape)
            new._param = new.probs
        if "logits" in self.__dict__:
            new.logits = self.logits.expand(param_shape)
            new._param = new.logits
        new._num_events = self._num_events
        Distribution.__init__(new, batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @constraints.dependent_property(is_discrete=True, event_dim=0)
    def support(self):
        return constraints.integer_interval(0, self._num_events - 1)

    @lazy_property
    def logits(self):
        return probs_to_logits(self.probs)

    @lazy_property
    def probs(self):
        return logits_to_probs(self.logits)

    @property
    def param_shape(self):
        return self._param.size()

    @property
    def mean(self):
        return _creation.full(tuple(self._extended_shape()), math.nan, dtype=self.probs.dtype)

    @property
    def mode(self):
        return self.probs.argmax(dim=-1)

    @property
    def variance(self):
        return _creation.full(tuple(self._extended_shape()), math.nan, dtype=self.probs.dtype)

    def sample(self, sample_shape=Size()):
        sample_shape = _size(sample_shape)
        return _draw_categorical(self.probs, sample_shape, self._extended_shape(sample_shape))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        v = value.long().unsqueeze(-1)
        logits = self.logits
        batch = np.broadcast_shapes(tuple(v.shape[:-1]), tuple(logits.shape[:-1]))
        v = v.expand(batch + (1,))
        log_pmf = logits.expand(batch + (self._num_events,))
        return log_pmf.gather(-1, v).squeeze(-1)

    def entropy(self):
        min_real = float(_finfo(self.logits).min)
        logits = self.logits.clamp(min=min_real)
        return -(logits * self.probs).sum(-1)

    def enumerate_support(self, expand=True):
        values = _creation.arange(self._num_events, dtype=_dtype.int64)
        values = values.view((-1,) + (1,) * len(self._batch_shape))
        if expand:
            values = values.expand((-1,) + tuple(self._batch_shape))
        return values


