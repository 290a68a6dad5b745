"""Helpers of ``torch.distributions``: broadcasting, probabilities and logits,
cached properties, random draws and the special functions the densities use.

The special functions (``lgamma``, ``digamma``, ``xlogy``, ``erfinv``,
``gammainc``) are :mod:`tracegrad.torch.special`'s, so the derivatives are
those of tracegrad's primitives.
"""
import numbers

import numpy as np

from .. import _creation, _grad_mode, _ops
from .. import special as _special
from .._tensor import Size, Tensor

__all__ = [
    "broadcast_all", "logits_to_probs", "clamp_probs", "probs_to_logits", "lazy_property",
    "euler_constant",
]

euler_constant = 0.57721566490153286060  # the Euler-Mascheroni constant


def _is_number(v):
    return isinstance(v, numbers.Number) and not isinstance(v, Tensor)


def _broadcast_shape(*shapes):
    """The broadcast of ``shapes`` as a :class:`Size` (PyTorch's error otherwise)."""
    try:
        return Size(np.broadcast_shapes(*[tuple(s) for s in shapes]))
    except ValueError:
        raise RuntimeError(
            "shape mismatch: objects cannot be broadcast to a single shape") from None


def _broadcast_tensors(*tensors):
    """``torch.broadcast_tensors``: each tensor expanded to the common shape."""
    shape = _broadcast_shape(*[t.shape for t in tensors])
    return tuple(t if tuple(t.shape) == tuple(shape) else t.expand(shape) for t in tensors)


def broadcast_all(*values):
    """The arguments as tensors broadcast to one shape.

    Parameters
    ----------
    *values : Tensor or numbers.Number
        Numbers become tensors of the dtype of the first tensor argument (the
        default dtype if there is none).

    Returns
    -------
    tuple of Tensor
        Expanded views of a common shape (the dtypes are not promoted).

    Raises
    ------
    ValueError
        If an argument is neither a tensor nor a number (PyTorch's message).
    RuntimeError
        If the shapes do not broadcast.
    """
    if not all(isinstance(v, Tensor) or _is_number(v) for v in values):
        raise ValueError(
            "Input arguments must all be instances of Number, "
            "torch.Tensor or objects implementing __torch_function__.")
    if not all(isinstance(v, Tensor) for v in values):
        dtype = None
        for v in values:
            if isinstance(v, Tensor):
                dtype = v.dtype
                break
        values = [v if isinstance(v, Tensor) else _creation.tensor(v, dtype=dtype)
                  if dtype is not None else _creation.tensor(float(v)) for v in values]
    return _broadcast_tensors(*values)


def _fmt(x):
    """``f"{x}"`` as PyTorch formats it: a 0-d tensor as its Python number."""
    if isinstance(x, Tensor) and x.dim() == 0:
        return format(x.item())
    return f"{x}"


def _np_dtype(t):
    return np.dtype(t._data.dtype)


def _finfo(t):
    return np.finfo(_np_dtype(t))


def _sum_rightmost(value, dim):
    """``value`` summed over its ``dim`` rightmost dimensions."""
    if dim == 0:
        return value
    return value.reshape(tuple(value.shape[:-dim]) + (-1,)).sum(-1)


def logits_to_probs(logits, is_binary=False):
    """``sigmoid(logits)`` (binary) or ``softmax(logits, -1)``."""
    if is_binary:
        return _ops.sigmoid(logits)
    return _ops.softmax(logits, -1)


def clamp_probs(probs):
    """``probs`` clamped to ``[eps, 1 - eps]`` (``eps`` of its dtype)."""
    eps = float(_finfo(probs).eps)
    return probs.clamp(min=eps, max=1 - eps)


def probs_to_logits(probs, is_binary=False):
    """``log(p) - log1p(-p)`` (binary) or ``log(p)`` of the clamped probabilities."""
    ps = clamp_probs(probs)
    if is_binary:
        return _ops.log(ps) - _ops.log1p(-ps)
    return _ops.log(ps)


class lazy_property:  # noqa: N801 - PyTorch's name
    """A property computed once (with gradients enabled) and stored on the instance.

    Parameters
    ----------
    wrapped : callable
        The getter; its result replaces the descriptor in the instance's
        ``__dict__``, so later reads are plain attribute reads.
    """

    def __init__(self, wrapped):
        self.wrapped = wrapped
        self.__doc__ = wrapped.__doc__
        self.__name__ = wrapped.__name__

    def __get__(self, instance, owner=None):
        if instance is None:
            return self
        with _grad_mode.enable_grad():
            value = self.wrapped(instance)
        setattr(instance, self.wrapped.__name__, value)
        return value


def _rng():
    """The NumPy generator of ``tracegrad.torch``'s default generator."""
    return _creation.default_generator._rng


def _new(array, like):
    """A tensor (no grad) of ``array`` in ``like``'s dtype."""
    return Tensor._wrap(np.ascontiguousarray(np.asarray(array, dtype=_np_dtype(like))))


def _standard_normal(shape, like):
    return _new(_rng().standard_normal(tuple(shape)), like)


def _data(t):
    return np.asarray(t._data)


# --------------------------------------------------------------------------
# special functions on tensors (tracegrad.torch.special: tracegrad.scipy.special
# on the tensor layer, recorded under PyTorch's names)


def _lgamma(x):
    return _special.gammaln(x)


def _digamma(x):
    return _special.digamma(x)


def _xlogy(x, y):
    return _special.xlogy(x, y)


def _erfinv(x):
    return _special.erfinv(x)


def _gammainc(a, x):
    return _special.gammainc(a, x)
