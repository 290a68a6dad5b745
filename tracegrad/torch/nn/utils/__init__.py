"""``tracegrad.torch.nn.utils``: gradient clipping and parameter flattening (PyTorch's API).

``clip_grad_norm_``, ``clip_grad_value_``, ``get_total_norm``,
``clip_grads_with_norm_``, ``parameters_to_vector``,
``vector_to_parameters``, and the ``rnn`` submodule (``pad_sequence``).
The clipping functions work in place on the gradients' data under
``no_grad``, with PyTorch's formulas: the total norm is the ``norm_type``
norm of the per-tensor norms, and every gradient is multiplied by
``min(1, max_norm / (total_norm + 1e-6))``.
"""
import math
import types
import warnings

import numpy as np

from ... import _grad_mode
from ... import _ops
from ..._tensor import Tensor
from . import rnn  # noqa: F401

__all__ = ["clip_grad_norm_", "clip_grad_norm", "clip_grad_value_", "get_total_norm",
           "clip_grads_with_norm_", "parameters_to_vector", "vector_to_parameters", "rnn"]


def _as_list(tensors):
    return [tensors] if isinstance(tensors, Tensor) else list(tensors)


def _vector_norm(values, norm_type):
    """The ``norm_type`` vector norm of a flat float array (``torch.linalg.vector_norm``)."""
    a = np.abs(values.astype(np.float64, copy=False))
    if a.size == 0:
        return 0.0
    if norm_type == math.inf:
        return float(a.max())
    if norm_type == -math.inf:
        return float(a.min())
    if norm_type == 0:
        return float(np.count_nonzero(a))
    if norm_type == 1:
        return float(a.sum())
    if norm_type == 2:
        return float(np.sqrt(np.dot(a, a)))
    return float(np.sum(a ** norm_type) ** (1.0 / norm_type))


def get_total_norm(tensors, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """The norm of the norms of ``tensors`` (as if they were concatenated).

    Parameters
    ----------
    tensors : Tensor or iterable of Tensor
        Usually gradients.
    norm_type : float or str, optional
        ``p`` of the p-norm; ``inf`` (or ``"inf"``) for the maximum.
    error_if_nonfinite : bool, optional
        Raise if the total norm is NaN or infinite.
    foreach : bool, optional
        Accepted for compatibility (no effect).

    Returns
    -------
    Tensor
        A scalar of the tensors' promoted dtype (float32 ``0.`` for none).

    Raises
    ------
    RuntimeError
        With ``error_if_nonfinite``, for a non-finite norm.
    """
    tensors = _as_list(tensors)
    norm_type = float(norm_type)
    if not tensors:
        return Tensor._wrap(np.array(0.0, np.float32))
    dtype = np.result_type(*[t._data.dtype for t in tensors])
    norms = np.array([_vector_norm(t._data.reshape(-1), norm_type) for t in tensors])
    total = np.array(_vector_norm(norms, norm_type), dtype=dtype)
    if error_if_nonfinite and not np.isfinite(total):
        raise RuntimeError(
            f"The total norm of order {norm_type} for gradients from `parameters` is "
            "non-finite, so it cannot be clipped. To disable this error and scale the "
            "gradients by the non-finite norm anyway, set `error_if_nonfinite=False`"
        )
    return Tensor._wrap(total)


def clip_grads_with_norm_(parameters, max_norm, total_norm, foreach=None):
    """Scale the gradients of ``parameters`` by ``min(1, max_norm / (total_norm + 1e-6))``.

    Parameters
    ----------
    parameters : Tensor or iterable of Tensor
    max_norm : float
    total_norm : Tensor
        From :func:`get_total_norm`.
    foreach : bool, optional
        Accepted for compatibility (no effect).
    """
    grads = [p._grad for p in _as_list(parameters) if p._grad is not None]
    max_norm = float(max_norm)
    if not grads:
        return
    total = total_norm._data if isinstance(total_norm, Tensor) else np.asarray(total_norm)
    coef = np.minimum(total.dtype.type(max_norm) / (total + total.dtype.type(1e-6)), 1.0)
    with _grad_mode.no_grad():
        for g in grads:
            data = g._data
            np.multiply(data, coef.astype(data.dtype), out=data)
            g._vc.value += 1


def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False,
                    foreach=None):
    """Rescale the gradients in place so that their total norm is at most ``max_norm``.

    Parameters
    ----------
    parameters : Tensor or iterable of Tensor
        Tensors whose ``.grad`` is clipped (those without one are skipped).
    max_norm : float
    norm_type : float or str, optional
        2 by default; ``inf`` for the largest absolute entry.
    error_if_nonfinite : bool, optional
        Raise instead of scaling by a NaN or infinite norm.
    foreach : bool, optional
        Accepted for compatibility (no effect).

    Returns
    -------
    Tensor
        The total norm before clipping (a scalar of the gradients' dtype).

    Raises
    ------
    RuntimeError
        With ``error_if_nonfinite``, for a non-finite total norm.

    Warns
    -----
    UserWarning
        If ``parameters`` is an empty generator.

    Notes
    -----
    Every gradient is multiplied by ``min(1, max_norm / (total + 1e-6))``,
    even when that is 1, as in PyTorch.
    """
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    else:
        generator = isinstance(parameters, types.GeneratorType)
        parameters = list(parameters)
        if generator and not parameters:
            warnings.warn("`parameters` is an empty generator, no gradient clipping will occur.",
                          UserWarning, stacklevel=2)
    grads = [p._grad for p in parameters if p._grad is not None]
    total = get_total_norm(grads, norm_type, error_if_nonfinite, foreach)
    clip_grads_with_norm_(parameters, max_norm, total, foreach)
    return total


def clip_grad_norm(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """Deprecated alias of :func:`clip_grad_norm_` (a FutureWarning, as in PyTorch)."""
    warnings.warn("`torch.nn.utils.clip_grad_norm` is now deprecated in favor of "
                  "`torch.nn.utils.clip_grad_norm_`.", FutureWarning, stacklevel=2)
    return clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite, foreach)


def clip_grad_value_(parameters, clip_value, foreach=None):
    """Clamp the gradients in place to ``[-clip_value, clip_value]``.

    Parameters
    ----------
    parameters : Tensor or iterable of Tensor
    clip_value : float
    foreach : bool, optional
        Accepted for compatibility (no effect).
    """
    clip_value = float(clip_value)
    for p in _as_list(parameters):
        g = p._grad
        if g is None:
            continue
        data = g._data
        dt = data.dtype.type
        np.clip(data, dt(-clip_value), dt(clip_value), out=data)
        g._vc.value += 1


def parameters_to_vector(parameters):
    """Concatenate the flattened parameters into one vector (differentiable).

    Parameters
    ----------
    parameters : iterable of Tensor

    Returns
    -------
    Tensor
        1-D, of the promoted dtype; its ``grad_fn`` is ``CatBackward0``.
    """
    return _ops.cat([p.view(-1) for p in parameters])


def vector_to_parameters(vec, parameters):
    """Copy consecutive slices of ``vec`` into the parameters' data (their ``.data``).

    Parameters
    ----------
    vec : Tensor
        1-D, at least as long as the parameters' total size.
    parameters : iterable of Tensor

    Raises
    ------
    TypeError
        If ``vec`` is not a tensor.

    Notes
    -----
    As in PyTorch, each parameter's data becomes a view of ``vec``
    (sharing its memory), outside autograd.
    """
    if not isinstance(vec, Tensor):
        raise TypeError(f"expected torch.Tensor, but got: {type(vec).__name__}")
    pointer = 0
    for param in parameters:
        n = param.numel()
        param.data = vec[pointer:pointer + n].view_as(param).data
        pointer += n
