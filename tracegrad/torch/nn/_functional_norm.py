"""``nn.functional``'s normalization, embedding, distance and further activation functions.

Re-exported by :mod:`tracegrad.torch.nn.functional`.  As there, every
function is made of tracegrad primitives applied to tensors, so derivatives
of any order come from the primitives' VJP rules, and an operation PyTorch
records as one node is recorded as one node under PyTorch's name
(``batch_norm`` -> ``NativeBatchNormBackward0``, ``embedding`` ->
``EmbeddingBackward0``, ``hardtanh`` -> ``HardtanhBackward0``, ...).

The normalizations compute the mean first and then the variance of the
centered values (two passes over the input, as PyTorch's CPU kernels), and
apply the per-channel factor ``weight / sqrt(var + eps)`` to the centered
input in one product, which keeps the recorded graph and its backward
small.  Running statistics are updated in place under ``no_grad`` (they do
not enter the graph), with the unbiased batch variance, as in PyTorch.
"""
import math
import warnings

import numpy as np

from ... import nn as _tnn
from ...primitives import ops
from .. import _grad_mode, _ops
from .._methods import _inplace
from .._ops import _composite, _tensor_arg
from .._tensor import Tensor, _dim

__all__ = [
    "batch_norm", "layer_norm", "group_norm", "instance_norm", "embedding", "embedding_bag",
    "normalize", "cosine_similarity", "pairwise_distance", "prelu", "selu", "celu", "mish",
    "hardtanh", "relu6", "hardswish", "hardsigmoid", "softsign", "tanhshrink", "threshold",
    "glu", "softmin", "softshrink", "hardshrink", "local_response_norm",
]

_TYPE_NAMES = {"float32": "Float", "float64": "Double", "float16": "Half", "bool": "Bool",
               "int64": "Long", "int32": "Int", "int16": "Short", "int8": "Char",
               "uint8": "Byte"}


def _type_name(t):
    return _TYPE_NAMES.get(str(t._data.dtype), str(t._data.dtype))


def _floating(input, kernel):
    """``input`` as a tensor; PyTorch's NotImplementedError if it is not floating point."""
    x = _tensor_arg(input)
    if x._data.dtype.kind not in "fc":
        raise NotImplementedError(f'"{kernel}" not implemented for \'{_type_name(x)}\'')
    return x


def _activation(name, fn, input, inplace=False, kernel=None, inplace_name=None):
    """``fn(input)`` recorded as ``name``; with ``inplace``, written into ``input``."""
    x = _floating(input, kernel) if kernel else _tensor_arg(input)
    if inplace:
        iname = inplace_name or name
        return _inplace(x, lambda s: _composite(iname, fn, [s], s), name=iname)
    return _composite(name, fn, [x], x)


def _numel(t):
    return int(np.prod(t._data.shape))


# --------------------------------------------------------------------------
# batch, instance, layer and group normalization


_LETTERS = "abcdefghijklmnopqrstuvwxyz"


def _sum_of_squares(xc, axes):
    """``sum(xc * xc, axes)`` by one ``einsum`` (no squared intermediate)."""
    nd = len(xc.shape)
    if nd > len(_LETTERS) or not axes:
        return ops.reduce_sum(ops.mul(xc, xc), axes)
    sub = _LETTERS[:nd]
    out = "".join(c for i, c in enumerate(sub) if i not in axes)
    return ops.einsum(f"{sub},{sub}->{out}", xc, xc)


def _normalize_axes(x, axes, keep_shape, w, b, eps, affine_shape, stats=None):
    """``(x - mean) / sqrt(var + eps) * w + b`` with the statistics over ``axes``.

    ``keep_shape`` is the statistics' shape broadcastable to ``x``;
    ``affine_shape`` that of ``w`` and ``b`` broadcastable to ``x``, or None
    when they are per channel like the statistics (batch norm: the weight
    then joins the per-channel factor, one product with ``x``).  The biased
    mean and variance are appended to ``stats`` if given.
    """
    n = 1
    for a in axes:
        n *= x.shape[a]
    mean = ops.reshape(ops.div(ops.reduce_sum(x, axes), float(n)), keep_shape)
    xc = ops.sub(x, mean)
    var = ops.div(_sum_of_squares(xc, axes), float(max(n, 1)))
    inv = ops.div(1.0, ops.sqrt(ops.add(var, eps)))
    if stats is not None:
        stats.append((mean, var, n))
    inv = ops.reshape(inv, keep_shape)
    if affine_shape is None:
        affine_shape = keep_shape
        if w is not None:
            inv = ops.mul(inv, ops.reshape(w, keep_shape))
            w = None
    y = ops.mul(xc, inv)
    if w is not None:
        y = ops.mul(y, ops.reshape(w, affine_shape))
    if b is not None:
        y = ops.add(y, ops.reshape(b, affine_shape))
    return y


def _bn_eval(x, mean, var, w, b, shape, eps):
    # PyTorch's inference transform: y = x * alpha + beta, alpha = w / sqrt(var + eps),
    # beta = b - mean * alpha (per channel)
    alpha = ops.div(1.0, ops.sqrt(ops.add(var, eps)))
    if w is not None:
        alpha = ops.mul(alpha, w)
    beta = ops.neg(ops.mul(mean, alpha))
    if b is not None:
        beta = ops.add(beta, b)
    return ops.add(ops.mul(x, ops.reshape(alpha, shape)), ops.reshape(beta, shape))


def _check_channel_vector(t, what, c):
    if t is not None and _numel(t) != c:
        raise RuntimeError(f"{what} should contain {c} elements not {_numel(t)}")


def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False,
               momentum=0.1, eps=1e-5):
    """Batch normalization over all dimensions but the channel dimension 1.

    ``y = (x - mean) / sqrt(var + eps) * weight + bias`` per channel, with the
    batch's statistics (``training=True``) or the running ones.

    Parameters
    ----------
    input : Tensor
        Shape ``(N, C, *)``, floating point.
    running_mean, running_var : Tensor or None
        Shape ``(C,)``.  In training they are updated in place (under
        ``no_grad``): ``r = (1 - momentum) * r + momentum * s`` with ``s``
        the batch mean and the *unbiased* batch variance.  Needed in
        evaluation mode.
    weight, bias : Tensor, optional
        Shape ``(C,)``.
    training : bool, optional
        Use the batch's statistics (default False).
    momentum : float, optional
        Default 0.1.
    eps : float, optional
        Added to the variance (default 1e-5).

    Returns
    -------
    Tensor
        ``input``'s shape and dtype; ``grad_fn`` ``NativeBatchNormBackward0``
        with the edges ``(input, weight, bias)``.

    Raises
    ------
    ValueError
        In training, for a single value per channel (PyTorch's message,
        "Expected more than 1 value per channel when training, ...").
    RuntimeError
        If a vector does not have ``C`` elements, or ``running_mean`` is
        missing in evaluation mode (PyTorch's messages).

    Notes
    -----
    Ioffe and Szegedy (2015), "Batch Normalization: Accelerating Deep
    Network Training by Reducing Internal Covariate Shift".
    """
    x = _tensor_arg(input)
    shape = tuple(x._data.shape)
    if training:
        size = shape[0] * int(np.prod(shape[2:], dtype=np.int64)) if shape else 1
        if size == 1:
            raise ValueError("Expected more than 1 value per channel when training, got input "
                             f"size {x.size()}")
    c = shape[1] if len(shape) > 1 else 1
    _check_channel_vector(running_mean, "running_mean", c)
    _check_channel_vector(running_var, "running_var", c)
    _check_channel_vector(weight, "weight", c)
    _check_channel_vector(bias, "bias", c)
    keep = (1, c) + (1,) * (len(shape) - 2)
    w = None if weight is None else _tensor_arg(weight)
    b = None if bias is None else _tensor_arg(bias)
    if not training:
        if running_mean is None:
            raise RuntimeError("running_mean must be defined in evaluation mode")
        if running_var is None:
            raise RuntimeError("running_var must be defined in evaluation mode")
        mean, var = _ops._value(running_mean), _ops._value(running_var)
        return _composite("NativeBatchNormBackward0", _bn_eval, [x, w, b], x, mean, var, w, b,
                          keep, eps)
    axes = (0,) + tuple(range(2, len(shape)))
    stats = []
    out = _composite("NativeBatchNormBackward0", _normalize_axes, [x, w, b], x, axes, keep, w,
                     b, eps, None, stats)
    if running_mean is not None or running_var is not None:
        mean, var, n = stats[0]
        _update_running(running_mean, running_var, mean, var, n, momentum)
    return out


def _stat(v, like):
    """A statistic computed inside a composite, as a tensor of ``like``'s dtype."""
    data = v._data if isinstance(v, Tensor) else v
    if type(data) is np.ndarray:
        data = data.reshape(like._data.shape).astype(like._data.dtype, copy=False)
        return Tensor._wrap(data)
    return Tensor._wrap(ops.convert_element_type(ops.reshape(data, like._data.shape),
                                                 like._data.dtype))


def _blend(running, stat, momentum):
    """``running = (1 - momentum) * running + momentum * stat`` in place; like
    PyTorch's kernel, the buffer's version counter does not change."""
    if type(running._data) is np.ndarray and type(stat._data) is np.ndarray:
        running._data[...] = running._data * (1 - momentum) + stat._data * momentum
    else:
        running.mul_(1 - momentum).add_(stat, alpha=momentum)


def _update_running(running_mean, running_var, mean, var, n, momentum):
    with _grad_mode.no_grad():
        if running_mean is not None:
            _blend(running_mean, _stat(mean, running_mean), momentum)
        if running_var is not None:
            unbiased = _stat(var, running_var) * (n / (n - 1) if n > 1 else float("nan"))
            _blend(running_var, unbiased, momentum)


def instance_norm(input, running_mean=None, running_var=None, weight=None, bias=None,
                  use_input_stats=True, momentum=0.1, eps=1e-5):
    """Instance normalization: each channel of each sample normalized over its spatial dimensions.

    Parameters
    ----------
    input : Tensor
        Shape ``(N, C, *)``.
    running_mean, running_var : Tensor, optional
        Shape ``(C,)``; updated in place (averaged over the batch) when
        ``use_input_stats``, used instead of the input's statistics otherwise.
    weight, bias : Tensor, optional
        Shape ``(C,)``.
    use_input_stats : bool, optional
        Default True.
    momentum, eps : float, optional

    Returns
    -------
    Tensor
        PyTorch's composition: the input viewed as ``(1, N*C, *)``
        (``ViewBackward0``), :func:`batch_norm` with the repeated weight and
        bias (``RepeatBackward0``), viewed back.

    Raises
    ------
    ValueError
        With ``use_input_stats``, if there is a single spatial element
        (PyTorch's message).
    """
    x = _tensor_arg(input)
    shape = tuple(x._data.shape)
    if use_input_stats and int(np.prod(shape[2:], dtype=np.int64)) == 1:
        raise ValueError("Expected more than 1 spatial element when training, got input size "
                         f"{x.size()}")
    n, c = shape[0], shape[1]
    xv = _ops.view(x, 1, n * c, *shape[2:])
    w = None if weight is None else _tensor_arg(weight).repeat(n)
    b = None if bias is None else _tensor_arg(bias).repeat(n)
    with _grad_mode.no_grad():
        rm = None if running_mean is None else running_mean.repeat(n)
        rv = None if running_var is None else running_var.repeat(n)
    out = batch_norm(xv, rm, rv, w, b, use_input_stats, momentum, eps)
    if use_input_stats:
        with _grad_mode.no_grad():
            if running_mean is not None:
                running_mean.copy_(rm.view(n, c).mean(0))
            if running_var is not None:
                running_var.copy_(rv.view(n, c).mean(0))
    return _ops.view(out, *shape)


def _shape_list(shape):
    return "[" + ", ".join(str(int(s)) for s in shape) + "]"


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):
    """Layer normalization over the last ``len(normalized_shape)`` dimensions.

    Parameters
    ----------
    input : Tensor
        Shape ``(*, *normalized_shape)``.
    normalized_shape : tuple or list of int
    weight, bias : Tensor, optional
        Shape ``normalized_shape``, applied elementwise.
    eps : float, optional

    Returns
    -------
    Tensor
        ``(x - mean) / sqrt(var + eps) * weight + bias``, biased variance;
        ``grad_fn`` ``NativeLayerNormBackward0`` with edges ``(input, weight,
        bias)``.

    Raises
    ------
    TypeError
        If ``normalized_shape`` is an int (PyTorch's functional form wants a
        sequence).
    RuntimeError
        If the input's trailing dimensions, the weight or the bias do not
        match ``normalized_shape`` (PyTorch's messages).

    Notes
    -----
    Ba, Kiros and Hinton (2016), "Layer Normalization".
    """
    if isinstance(normalized_shape, int):
        raise TypeError("layer_norm(): argument 'normalized_shape' (position 2) must be tuple "
                        "of ints, not int")
    ns = tuple(int(s) for s in normalized_shape)
    x = _tensor_arg(input)
    shape = tuple(x._data.shape)
    k = len(ns)
    if k == 0 or len(shape) < k or shape[len(shape) - k:] != ns:
        raise RuntimeError(
            f"Given normalized_shape={_shape_list(ns)}, expected input with shape "
            f"[*{''.join(', ' + str(s) for s in ns)}], but got input of size"
            f"{_shape_list(shape)}")
    w = None if weight is None else _tensor_arg(weight)
    b = None if bias is None else _tensor_arg(bias)
    for t, what in ((w, "weight"), (b, "bias")):
        if t is not None and tuple(t._data.shape) != ns:
            raise RuntimeError(
                f"Expected {what} to be of same shape as normalized_shape, but got {what} of "
                f"shape {_shape_list(t._data.shape)} and normalized_shape = {_shape_list(ns)}")
    nd = len(shape)
    axes = tuple(range(nd - k, nd))
    keep = shape[:nd - k] + (1,) * k
    return _composite("NativeLayerNormBackward0", _normalize_axes, [x, w, b], x, axes, keep, w,
                      b, eps, ns)


def _group_norm(x, g, w, b, eps):
    shape = x.shape
    n, c = shape[0], shape[1]
    xr = ops.reshape(x, (n, g, int(np.prod(shape[1:], dtype=np.int64)) // g if g else 0))
    y = ops.reshape(_normalize_axes(xr, (2,), (n, g, 1), None, None, eps, (1,)), shape)
    affine = (1, c) + (1,) * (len(shape) - 2)
    if w is not None:
        y = ops.mul(y, ops.reshape(w, affine))
    if b is not None:
        y = ops.add(y, ops.reshape(b, affine))
    return y


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5):
    """Group normalization: the channels split into ``num_groups`` groups, each normalized.

    Parameters
    ----------
    input : Tensor
        Shape ``(N, C, *)``, ``C`` divisible by ``num_groups``.
    num_groups : int
    weight, bias : Tensor, optional
        Shape ``(C,)``, per channel.
    eps : float, optional

    Returns
    -------
    Tensor
        ``grad_fn`` ``NativeGroupNormBackward0`` with edges ``(input, weight,
        bias)``.

    Raises
    ------
    RuntimeError
        If ``C`` is not divisible by ``num_groups``, or ``weight``/``bias`` is
        not a vector of ``C`` elements (PyTorch's messages).

    Notes
    -----
    Wu and He (2018), "Group Normalization".
    """
    x = _tensor_arg(input)
    shape = tuple(x._data.shape)
    c = shape[1] if len(shape) > 1 else 0
    if num_groups <= 0 or c % num_groups:
        raise RuntimeError(
            "Expected number of channels in input to be divisible by num_groups, but got input "
            f"of shape {_shape_list(shape)} and num_groups={num_groups}")
    w = None if weight is None else _tensor_arg(weight)
    b = None if bias is None else _tensor_arg(bias)
    for t, what in ((w, "weight"), (b, "bias")):
        if t is not None and (t._data.ndim != 1 or t._data.shape[0] != c):
            raise RuntimeError(
                f"Expected {what} to be a vector of size equal to the number of channels in "
                f"input, but got {what} of shape {_shape_list(t._data.shape)} and input of "
                f"shape {_shape_list(shape)}")
    return _composite("NativeGroupNormBackward0", _group_norm, [x, w, b], x, num_groups, w, b,
                      eps)


def local_response_norm(input, size, alpha=1e-4, beta=0.75, k=1.0):
    """Local response normalization across channels (Krizhevsky et al. 2012, "ImageNet ...").

    ``y = x / (k + alpha / size * sum_{c' near c} x_{c'}^2) ** beta``, the sum
    over a window of ``size`` channels (``size // 2`` before, ``(size - 1) // 2``
    after, zero-padded).

    Parameters
    ----------
    input : Tensor
        Shape ``(N, C, *)``, at least 3-D.
    size : int
    alpha, beta, k : float, optional

    Returns
    -------
    Tensor

    Raises
    ------
    ValueError
        For fewer than 3 dimensions (PyTorch's message).
    """
    x = _tensor_arg(input)
    dim = x._data.ndim
    if dim < 3:
        raise ValueError("Expected 3D or higher dimensionality" + " " * 26
                         + f"input (got {dim} dimensions)")
    if x._data.size == 0:
        return x
    c = x.shape[1]
    sq = _ops.mul(x, x)
    before, after = size // 2, (size - 1) // 2

    def zeros(m):
        return Tensor._wrap(np.zeros((x.shape[0], m) + tuple(x.shape[2:]), x._data.dtype))

    parts = ([zeros(before)] if before else []) + [sq] + ([zeros(after)] if after else [])
    padded = _ops.cat(parts, 1) if len(parts) > 1 else sq
    total = None
    for i in range(size):
        part = _ops.narrow(padded, 1, i, c)
        total = part if total is None else _ops.add(total, part)
    div = _ops.pow(_ops.add(_ops.mul(total, alpha / size), k), beta)
    return _ops.div(x, div)


# --------------------------------------------------------------------------
# embeddings


def _check_indices(idx, name="embedding"):
    if idx._data.dtype not in (np.int64, np.int32):
        raise RuntimeError(
            "Expected tensor for argument #1 'indices' to have one of the following scalar "
            f"types: Long, Int; but got torch.{_type_name(idx)}Tensor instead (while checking "
            f"arguments for {name})")


def _no_sparse(sparse):
    if sparse:
        raise NotImplementedError("sparse=True: tracegrad.torch has no sparse tensors, so "
                                  "sparse gradients are not supported; use sparse=False")


def _renorm_rows(weight, idx, max_norm, norm_type):
    """PyTorch's ``embedding_renorm_``: rows ``idx`` of ``weight`` with a ``norm_type``-norm
    above ``max_norm`` scaled (in place, under no_grad) to ``max_norm / (norm + 1e-7)``."""
    rows = np.unique(np.asarray(idx).reshape(-1))
    if rows.size == 0:
        return
    data = weight._data[rows]
    norms = np.linalg.norm(data.astype(np.float64), ord=norm_type, axis=1) \
        if norm_type not in (np.inf, -np.inf) else np.abs(data).max(axis=1)
    big = norms > max_norm
    if not big.any():
        return
    scale = (max_norm / (norms[big] + 1e-7)).astype(data.dtype)
    with _grad_mode.no_grad():
        sel = Tensor._wrap(rows[big].astype(np.int64))
        weight[sel] = Tensor._wrap(data[big] * scale[:, None])


def _embedding(w, idx, pad_mask, freq):
    out = ops.gather(w, idx, 0)
    if pad_mask is not None:
        out = ops.select(pad_mask, ops.stop_gradient(out), out)
    if freq is not None:
        # the gradient divided by the index's count; the forward value unchanged
        const = ops.stop_gradient(out)
        out = ops.add(const, ops.mul(ops.sub(out, const), freq))
    return out


def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0,
              scale_grad_by_freq=False, sparse=False):
    """Rows of ``weight`` looked up by index: ``weight[input]``.

    Parameters
    ----------
    input : Tensor
        int64 or int32 indices, any shape.
    weight : Tensor
        Shape ``(num_embeddings, embedding_dim)``.
    padding_idx : int, optional
        Lookups of this row get no gradient (negative values count from the end).
    max_norm : float, optional
        Rows looked up whose ``norm_type``-norm exceeds it are rescaled in
        place to norm ``max_norm`` first (PyTorch's ``embedding_renorm_``).
    norm_type : float, optional
        Default 2.
    scale_grad_by_freq : bool, optional
        Divide each row's gradient by the number of times its index occurs
        in ``input``.
    sparse : bool, optional
        Must be False.

    Returns
    -------
    Tensor
        Shape ``input.shape + (embedding_dim,)``; ``grad_fn``
        ``EmbeddingBackward0``.

    Raises
    ------
    RuntimeError
        If ``weight`` is not 2-D or the indices are not integers (PyTorch's
        messages).
    IndexError
        For an index out of range ("index out of range in self").
    AssertionError
        If ``padding_idx`` is outside ``[-num_embeddings, num_embeddings)``.
    NotImplementedError
        For ``sparse=True``, or ``padding_idx``/``max_norm``/
        ``scale_grad_by_freq`` with indices batched by a ``torch.func``
        transform (plain lookups of such indices work).
    """
    _no_sparse(sparse)
    w = _tensor_arg(weight)
    idx = _tensor_arg(input)
    num = w._data.shape[0] if w._data.ndim else 0
    if padding_idx is not None:
        if padding_idx >= 0:
            assert padding_idx < num, "Padding_idx must be within num_embeddings"
        else:
            assert padding_idx >= -num, "Padding_idx must be within num_embeddings"
            padding_idx += num
    if w._data.ndim != 2:
        raise RuntimeError("'weight' must be 2-D")
    _check_indices(idx)
    if _ops._is_traced(idx):
        # indices batched by a torch.func transform: a plain lookup (their values
        # are not known, so they are not range-checked, and the row options need them)
        if max_norm is not None or scale_grad_by_freq or padding_idx is not None:
            raise NotImplementedError(
                "embedding: padding_idx, max_norm and scale_grad_by_freq need concrete "
                "indices; they are not supported for indices traced by torch.func")
        return _composite("EmbeddingBackward0", lambda w, i: ops.gather(w, i, 0), [w], w,
                          Tensor._wrap(ops.convert_element_type(idx._data, np.int64)))
    iv = np.asarray(_ops._value(idx))
    if iv.size and (iv.min() < 0 or iv.max() >= num):
        raise IndexError("index out of range in self")
    iv = iv.astype(np.intp)
    if max_norm is not None:
        _renorm_rows(w, iv, max_norm, norm_type)
    pad_mask = None
    if padding_idx is not None and (iv == padding_idx).any():
        pad_mask = (iv == padding_idx)[..., None]
    freq = None
    if scale_grad_by_freq and iv.size:
        counts = np.bincount(iv.reshape(-1), minlength=num)
        freq = (1.0 / counts[iv]).astype(w._data.dtype)[..., None]
    return _composite("EmbeddingBackward0", _embedding, [w], w, iv, pad_mask, freq)


def _embedding_bag(w, psw, idx, bag_of, n_bags, mode, keep, counts, max_layout):
    if mode == "max":
        pos, valid = max_layout
        rows = ops.gather(w, pos, 0)  # (B, Lmax, D)
        neg = np.asarray(-np.inf, w.dtype)
        rows = ops.select(valid[..., None], rows, neg)
        out = ops.reduce_max(rows, (1,))
        nonempty = valid.any(axis=1)[:, None]
        return ops.select(nonempty, out, np.zeros((), w.dtype))
    rows = ops.gather(w, idx, 0)  # (L, D)
    coef = keep.astype(w.dtype)
    if mode == "mean":
        coef = coef / np.maximum(counts[bag_of], 1).astype(w.dtype)
    m = np.zeros((n_bags, idx.shape[0]), w.dtype)
    m[bag_of, np.arange(idx.shape[0])] = coef
    if psw is not None:
        rows = ops.mul(rows, ops.reshape(psw, (idx.shape[0], 1)))
    return ops.matmul(m, rows)


def embedding_bag(input, weight, offsets=None, max_norm=None, norm_type=2, scale_grad_by_freq=False,
                  mode="mean", sparse=False, per_sample_weights=None, include_last_offset=False,
                  padding_idx=None):
    """Sums, means or maxima of bags of embedding rows, without the intermediate lookup.

    Parameters
    ----------
    input : Tensor
        int64 indices: 2-D ``(B, N)`` (B bags of N) with ``offsets=None``, or
        1-D with ``offsets``.
    weight : Tensor
        Shape ``(num_embeddings, embedding_dim)``.
    offsets : Tensor, optional
        1-D starting positions of the bags in a 1-D ``input``; with
        ``include_last_offset`` the last entry is the end of the last bag.
    max_norm, norm_type : float, optional
        As for :func:`embedding`.
    scale_grad_by_freq : bool, optional
        Not supported (NotImplementedError when True, except for ``max``,
        which PyTorch refuses too).
    mode : {'mean', 'sum', 'max'}, optional
    sparse : bool, optional
        Must be False.
    per_sample_weights : Tensor, optional
        Shaped like ``input``, weights of the rows (``mode='sum'`` only).
    include_last_offset : bool, optional
    padding_idx : int, optional
        Entries equal to it are left out of their bag (and of the mean's count).

    Returns
    -------
    Tensor
        Shape ``(B, embedding_dim)``, empty bags give zeros; ``grad_fn``
        ``EmbeddingBagBackward0`` (edges: ``weight``,
        ``per_sample_weights``).

    Raises
    ------
    ValueError
        For the argument combinations PyTorch refuses (its messages).
    NotImplementedError
        For ``per_sample_weights`` with a mode other than ``'sum'``,
        ``sparse=True`` or ``scale_grad_by_freq=True``.
    """
    _no_sparse(sparse)
    w = _tensor_arg(weight)
    idx = _tensor_arg(input)
    psw = None if per_sample_weights is None else _tensor_arg(per_sample_weights)
    if psw is not None and tuple(idx.shape) != tuple(psw.shape):
        raise ValueError(f"embedding_bag: If per_sample_weights ({psw.shape}) is not None, then "
                         f"it must have the same shape as the input ({idx.shape})")
    if w._data.ndim != 2:
        raise ValueError(
            f"weight has to be a 2D Tensor, but got Tensor of dimension {w._data.ndim}")
    iv = np.asarray(_ops._value(idx))
    if iv.ndim == 2:
        if offsets is not None:
            raise ValueError(
                "if input is 2D, then offsets has to be None, as input is treated is a "
                "mini-batch of fixed length sequences. However, found offsets of type "
                f"{type(offsets)}")
        starts = np.arange(0, iv.size, iv.shape[1]) if iv.shape[1] else np.zeros(iv.shape[0],
                                                                                  np.int64)
        iv = iv.reshape(-1)
        if psw is not None:
            psw = _ops.reshape(psw, -1)
        include_last_offset = False
    elif iv.ndim == 1:
        if offsets is None:
            raise ValueError("offsets has to be a 1D Tensor but got None")
        starts = np.asarray(_ops._value(_tensor_arg(offsets)))
        if starts.ndim != 1:
            raise ValueError("offsets has to be a 1D Tensor")
    else:
        raise ValueError(f"input has to be 1D or 2D Tensor, but got Tensor of dimension {iv.ndim}")
    if mode not in ("sum", "mean", "max"):
        raise ValueError("mode has to be one of sum, mean or max")
    if mode == "max" and scale_grad_by_freq:
        raise ValueError("max mode does not support scaling the gradient by the frequency")
    if scale_grad_by_freq:
        raise NotImplementedError("embedding_bag: scale_grad_by_freq=True is not supported by "
                                  "tracegrad.torch")
    if psw is not None and mode != "sum":
        raise NotImplementedError(
            "embedding_bag: per_sample_weights was not None. per_sample_weights is only "
            f"supported for mode='sum' (got mode='{mode}'). Please open a feature request on "
            "GitHub.")
    _check_indices(idx, "embedding_bag")
    num = w._data.shape[0]
    if iv.size and (iv.min() < 0 or iv.max() >= num):
        raise IndexError("index out of range in self")
    iv = iv.astype(np.intp)
    if max_norm is not None:
        _renorm_rows(w, iv, max_norm, norm_type)
    if padding_idx is not None and padding_idx < 0:
        padding_idx += num
    starts = starts.astype(np.intp)
    n_bags = len(starts) - 1 if include_last_offset else len(starts)
    ends = np.append(starts[1:], iv.size)[:n_bags] if not include_last_offset else starts[1:]
    starts = starts[:n_bags]
    bag_of = np.zeros(iv.size, np.intp)
    for i, (s, e) in enumerate(zip(starts, ends)):
        bag_of[s:e] = i
    keep = np.ones(iv.size, bool) if padding_idx is None else iv != padding_idx
    counts = np.bincount(bag_of[keep], minlength=n_bags) if n_bags else np.zeros(0, np.intp)
    max_layout = None
    if mode == "max":
        lmax = int(max(counts.max(), 1)) if n_bags else 1
        pos = np.zeros((n_bags, lmax), np.intp)
        valid = np.zeros((n_bags, lmax), bool)
        for i, (s, e) in enumerate(zip(starts, ends)):
            members = iv[s:e][keep[s:e]]
            pos[i, :len(members)] = members
            valid[i, :len(members)] = True
        max_layout = (pos, valid)
    return _composite("EmbeddingBagBackward0", _embedding_bag, [w, psw], w, psw, iv, bag_of,
                      n_bags, mode, keep, counts, max_layout)


# --------------------------------------------------------------------------
# distances


def normalize(input, p=2.0, dim=1, eps=1e-12, out=None):
    """``input / max(||input||_p, eps)`` along ``dim``.

    Parameters
    ----------
    input : Tensor
    p : float, optional
        Norm order (default 2).
    dim : int or tuple of int, optional
        Default 1.
    eps : float, optional
        Lower bound of the denominator (default 1e-12).
    out : None
        Not supported (must be None).

    Returns
    -------
    Tensor
        PyTorch's composition ``input / norm.clamp_min(eps).expand_as(input)``.
    """
    if out is not None:
        raise NotImplementedError("normalize: out= is not supported by tracegrad.torch")
    x = _tensor_arg(input)
    denom = _ops.clamp_min(_ops.norm(x, p, dim, keepdim=True), eps).expand_as(x)
    return _ops.div(x, denom)


def _clamped_norm(x, dim, eps):
    """``||x||_2`` along ``dim`` (kept) raised to ``eps``; the raise has no derivative
    (PyTorch clamps in place under no_grad)."""
    n = _ops.norm(x, 2, dim, keepdim=True)
    with _grad_mode.no_grad():
        lift = _ops.sub(_ops.clamp_min(n, eps), n)
    return _ops.add(n, lift)


def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    """Cosine of the angle between ``x1`` and ``x2`` along ``dim``.

    ``sum(x1 / max(||x1||, eps) * x2 / max(||x2||, eps), dim)``: each vector is
    divided by its norm first (as PyTorch does, for accuracy); the lower
    bound ``eps`` does not enter the derivative, as in PyTorch.

    Parameters
    ----------
    x1, x2 : Tensor
        Broadcastable.
    dim : int, optional
        Default 1.
    eps : float, optional
        Default 1e-8.

    Returns
    -------
    Tensor
        The broadcast shape without ``dim``.
    """
    a, b = _tensor_arg(x1), _tensor_arg(x2)
    shape = np.broadcast_shapes(tuple(a.shape), tuple(b.shape))
    if tuple(a.shape) != shape:
        a = _ops.expand(a, *shape)
    if tuple(b.shape) != shape:
        b = _ops.expand(b, *shape)
    return _ops.sum(_ops.mul(_ops.div(a, _clamped_norm(a, dim, eps)),
                             _ops.div(b, _clamped_norm(b, dim, eps))), dim)


def pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    """``||x1 - x2 + eps||_p`` along the last dimension.

    Parameters
    ----------
    x1, x2 : Tensor
        Broadcastable.
    p : float, optional
    eps : float, optional
        Added to the difference, avoiding a zero norm (default 1e-6).
    keepdim : bool, optional

    Returns
    -------
    Tensor
    """
    a, b = _tensor_arg(x1), _tensor_arg(x2)
    nd = max(a.dim(), b.dim())
    return _ops.norm(_ops.add(_ops.sub(a, b), eps), p, nd - 1 if nd else None, keepdim=keepdim)


# --------------------------------------------------------------------------
# activations


def prelu(input, weight):
    """``input`` where positive, else ``weight * input``, with a learned slope per channel.

    Parameters
    ----------
    input : Tensor
        The channels along dimension 1 (dimension 0 for a 1-D input).
    weight : Tensor
        0-D or 1-D: one slope, or one per channel.

    Returns
    -------
    Tensor
        ``grad_fn`` ``PreluKernelBackward0`` with edges ``(input, weight
        viewed)``; at 0 the input's gradient is ``weight`` and the weight's 0.

    Raises
    ------
    RuntimeError
        For a weight of more than 1 dimension, or a number of slopes other
        than 1 and the number of channels (PyTorch's messages).
    """
    x, w = _tensor_arg(input), _tensor_arg(weight)
    if w.dim() > 1:
        raise RuntimeError(
            f"prelu: Expected `weight` to be a scalar or 1D tensor, but got: ndim = {w.dim()}")
    nd = x.dim()
    k = _numel(w)
    channels = (x.shape[1] if nd >= 2 else x.shape[0] if nd == 1 else 1)
    if k != 1 and k != channels:
        raise RuntimeError(
            "Mismatch of parameter numbers and input channel size. Found parameter numbers = "
            f"{k} and channel size = {channels}.")
    view = [1] * nd
    if k != 1:
        view[1 if nd >= 2 else 0] = k
    wv = _ops.view(w, *view) if nd else _ops.view(w, ())

    def fn(x, wv):
        return ops.select(ops.gt(x, 0), x, ops.mul(wv, x))

    return _composite("PreluKernelBackward0", fn, [x, wv], x, wv)


def selu(input, inplace=False):
    """Scaled ELU ``scale * elu(input, alpha)`` (Klambauer et al. 2017, "Self-Normalizing ...").

    Parameters
    ----------
    input : Tensor
    inplace : bool, optional

    Returns
    -------
    Tensor
        ``grad_fn`` ``EluBackward0`` (``EluBackward1`` in place), as PyTorch.

    Raises
    ------
    NotImplementedError
        For an integer or bool input (PyTorch's message).
    """
    return _activation("EluBackward0", _tnn.selu, input, inplace, "elu_cpu", "EluBackward1")


def celu(input, alpha=1.0, inplace=False):
    """``max(0, x) + min(0, alpha * (exp(x / alpha) - 1))`` (Barron 2017).

    Parameters
    ----------
    input : Tensor
    alpha : float, optional
    inplace : bool, optional

    Returns
    -------
    Tensor
        ``grad_fn`` ``CeluBackward0`` (``CeluBackward1`` in place); the
        derivative at 0 is 1 (the left branch, as PyTorch).

    Raises
    ------
    NotImplementedError
        For an integer or bool input.
    """
    def fn(x):
        pos = ops.gt(x, 0)
        neg = ops.mul(alpha, ops.expm1(ops.div(ops.select(pos, 0.0, x), alpha)))
        return ops.select(pos, x, neg)

    return _activation("CeluBackward0", fn, input, inplace, "elu_cpu", "CeluBackward1")


def mish(input, inplace=False):
    """``input * tanh(softplus(input))`` (Misra 2019).

    Parameters
    ----------
    input : Tensor
    inplace : bool, optional

    Returns
    -------
    Tensor
        ``grad_fn`` ``MishBackward0``.

    Raises
    ------
    NotImplementedError
        For an integer or bool input (PyTorch's message).
    """
    return _activation("MishBackward0", _tnn.mish, input, inplace, "mish_cpu")


def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):
    """``input`` clipped to ``[min_val, max_val]``.

    Parameters
    ----------
    input : Tensor
    min_val, max_val : float, optional
    inplace : bool, optional

    Returns
    -------
    Tensor
        ``grad_fn`` ``HardtanhBackward0``; the derivative is 1 strictly
        inside the interval and 0 at its ends and outside, as PyTorch.

    Raises
    ------
    ValueError
        If ``min_val > max_val``.
    """
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")

    def fn(x):
        return ops.select(ops.ge(x, max_val), max_val, ops.select(ops.le(x, min_val), min_val, x))

    return _activation("HardtanhBackward0", fn, input, inplace)


def relu6(input, inplace=False):
    """``hardtanh(input, 0, 6)``; ``grad_fn`` ``HardtanhBackward0`` as in PyTorch.

    Parameters
    ----------
    input : Tensor
    inplace : bool, optional

    Returns
    -------
    Tensor
    """
    return hardtanh(input, 0.0, 6.0, inplace)


def hardsigmoid(input, inplace=False):
    """``relu6(input + 3) / 6``; derivative 1/6 strictly inside ``(-3, 3)``, else 0.

    Parameters
    ----------
    input : Tensor
    inplace : bool, optional

    Returns
    -------
    Tensor
        ``grad_fn`` ``HardsigmoidBackward0``.

    Raises
    ------
    NotImplementedError
        For an integer or bool input.
    """
    return _activation("HardsigmoidBackward0", _tnn.hard_sigmoid, input, inplace,
                       "hardsigmoid_cpu")


def _hardswish(x):
    # 0 up to -3, x (x + 3) / 6 strictly between, x from 3 on: the derivative at the
    # kinks is 0 (at -3) and 1 (at 3), as PyTorch's backward gives
    mid = ops.div(ops.mul(x, ops.add(x, 3.0)), 6.0)
    return ops.select(ops.le(x, -3.0), 0.0, ops.select(ops.lt(x, 3.0), mid, x))


def hardswish(input, inplace=False):
    """``input * relu6(input + 3) / 6`` (Howard et al. 2019, "Searching for MobileNetV3").

    Parameters
    ----------
    input : Tensor
    inplace : bool, optional

    Returns
    -------
    Tensor
        ``grad_fn`` ``HardswishBackward0``; the derivative at -3 is 0 and at
        3 is 1 (PyTorch's values).

    Raises
    ------
    NotImplementedError
        For an integer or bool input (PyTorch's message).
    """
    return _activation("HardswishBackward0", _hardswish, input, inplace, "hardswish_cpu")


def softsign(input):
    """``input / (1 + |input|)``, PyTorch's composition (``DivBackward0``).

    Parameters
    ----------
    input : Tensor

    Returns
    -------
    Tensor
    """
    x = _tensor_arg(input)
    return _ops.div(x, _ops.add(_ops.abs(x), 1))


def tanhshrink(input):
    """``input - tanh(input)``, PyTorch's composition (``SubBackward0``).

    Parameters
    ----------
    input : Tensor

    Returns
    -------
    Tensor
    """
    x = _tensor_arg(input)
    return _ops.sub(x, _ops.tanh(x))


def threshold(input, threshold, value, inplace=False):
    """``input`` where ``input > threshold``, else ``value``.

    Parameters
    ----------
    input : Tensor
    threshold, value : float
    inplace : bool, optional

    Returns
    -------
    Tensor
        ``grad_fn`` ``ThresholdBackward0`` (``ThresholdBackward1`` in place).
    """
    def fn(x):
        return ops.select(ops.gt(x, threshold), x, value)

    return _activation("ThresholdBackward0", fn, input, inplace, None, "ThresholdBackward1")


def glu(input, dim=-1):
    """Gated linear unit ``a * sigmoid(b)``, ``a, b`` the halves of ``input`` along ``dim``.

    Parameters
    ----------
    input : Tensor
    dim : int, optional

    Returns
    -------
    Tensor
        ``grad_fn`` ``GluBackward0``.

    Raises
    ------
    RuntimeError
        For a 0-D input or an odd length of ``dim`` (PyTorch's messages).
    IndexError
        For ``dim`` out of range.
    """
    x = _tensor_arg(input)
    if x.dim() == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    d = _dim(dim, x.dim())
    if x.shape[d] % 2:
        raise RuntimeError(
            f"Halving dimension must be even, but dimension {d} is size {x.shape[d]}")
    return _composite("GluBackward0", lambda x: _tnn.glu(x, axis=d), [x], x)


def softmin(input, dim=None, _stacklevel=3, dtype=None):
    """``softmax(-input, dim)``.

    Parameters
    ----------
    input : Tensor
    dim : int, optional
        Omitting it is deprecated (a UserWarning, PyTorch's legacy choice of
        dimension).
    dtype : dtype, optional

    Returns
    -------
    Tensor
        ``SoftmaxBackward0`` after ``NegBackward0``.
    """
    x = _tensor_arg(input)
    if dim is None:
        warnings.warn("Implicit dimension choice for softmin has been deprecated. Change the "
                      "call to include dim=X as an argument.", UserWarning,
                      stacklevel=_stacklevel)
        dim = 0 if x.dim() in (0, 1, 3) else 1
    return _ops.softmax(_ops.neg(x), dim, dtype)


def _check_lambd(x, lambd):
    if lambd < 0:
        hi = float(np.finfo(x._data.dtype).max) if x._data.dtype.kind == "f" else math.inf
        raise RuntimeError(f"lambda must be in range [0, {hi:g}] for input dtype "
                           f"{_type_name(x)}, but found {lambd:g}")


def softshrink(input, lambd=0.5):
    """``input - lambd`` above ``lambd``, ``input + lambd`` below ``-lambd``, else 0.

    Parameters
    ----------
    input : Tensor
    lambd : float, optional
        At least 0 (default 0.5).

    Returns
    -------
    Tensor
        ``grad_fn`` ``SoftshrinkBackward0``.

    Raises
    ------
    RuntimeError
        For a negative ``lambd`` (PyTorch's message).
    """
    x = _tensor_arg(input)
    _check_lambd(x, lambd)

    def fn(x):
        return ops.select(ops.gt(x, lambd), ops.sub(x, lambd),
                          ops.select(ops.lt(x, -lambd), ops.add(x, lambd), 0.0))

    return _composite("SoftshrinkBackward0", fn, [x], x)


def hardshrink(input, lambd=0.5):
    """``input`` where ``|input| > lambd``, else 0.

    Parameters
    ----------
    input : Tensor
    lambd : float, optional

    Returns
    -------
    Tensor
        ``grad_fn`` ``HardshrinkBackward0``.
    """
    x = _tensor_arg(input)

    def fn(x):
        return ops.select(ops.logical_or(ops.gt(x, lambd), ops.lt(x, -lambd)), x, 0.0)

    return _composite("HardshrinkBackward0", fn, [x], x)
