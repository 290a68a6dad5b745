"""More of ``nn.functional``'s losses: robust regression, divergences, likelihoods, margins.

``smooth_l1_loss``, ``huber_loss``, ``kl_div``, ``poisson_nll_loss``,
``gaussian_nll_loss``, ``cosine_embedding_loss``, ``margin_ranking_loss``,
``hinge_embedding_loss``, ``soft_margin_loss``,
``multilabel_soft_margin_loss`` and ``triplet_margin_loss``, with PyTorch's
signatures, defaults, formulas (from PyTorch's documentation of each loss)
and errors.  Each is made of tracegrad primitives, so its derivative comes
from the primitives' rules.  A loss PyTorch computes with one kernel is
recorded as one node under PyTorch's name (``SmoothL1LossBackward0``,
``HuberLossBackward0``, ``SoftMarginLossBackward0``); for a loss PyTorch
composes, the elementwise loss is one node named after PyTorch's last
elementwise operation (``SubBackward0``, ``AddBackward0``,
``ClampMinBackward0``, ...) and the reduction is ``MeanBackward0`` or
``SumBackward0``, as in PyTorch.  These functions are re-exported by
:mod:`tracegrad.torch.nn.functional`.
"""
import math
import numbers
import warnings

import numpy as np

from ... import nn as _tnn
from ... import numpy as _tnp
from ...primitives import ops
from .. import _ops
from .._ops import _composite, _tensor_arg
from .._tensor import Tensor
from . import functional as _F  # (attributes read at call time: it imports this module)

__all__ = [
    "smooth_l1_loss", "huber_loss", "kl_div", "poisson_nll_loss", "gaussian_nll_loss",
    "cosine_embedding_loss", "margin_ranking_loss", "hinge_embedding_loss",
    "soft_margin_loss", "multilabel_soft_margin_loss", "triplet_margin_loss",
    "multi_margin_loss", "multilabel_margin_loss",
]


def _reduced(loss, reduction):
    """``loss`` (a tensor) reduced as PyTorch's ``apply_loss_reduction``."""
    if reduction == "mean":
        return _ops.mean(loss)
    if reduction == "sum":
        return _ops.sum(loss)
    return loss


def _elementwise(name, fn, inputs, reduction, *args):
    """The elementwise loss ``fn(*args)`` recorded as ``name``, then reduced."""
    return _reduced(_composite(name, fn, inputs, *args), reduction)


def _clamp_min0(a):
    """``max(a, 0)`` with PyTorch's ``clamp_min`` gradient (1 where ``a >= 0``)."""
    return ops.select(ops.ge(a, 0), a, ops.zeros_like(a))


def _value(t):
    return _ops._value(t) if isinstance(t, Tensor) else np.asarray(t)


def _prepared_pair(input, target, size_average, reduce, reduction):
    x, y = _tensor_arg(input), _tensor_arg(target)
    _F._warn_target_size(x, y)
    reduction = _F._reduction(size_average, reduce, reduction)
    return x, y, reduction


# --------------------------------------------------------------------------
# robust regression


def _smooth_l1(xe, ye, beta, reduction):
    d = ops.sub(xe, ye)
    ad = ops.abs(d)
    quad = ops.div(ops.mul(ops.integer_pow(d, 2), 0.5), beta)
    return _F._reduce(ops.select(ops.lt(ad, beta), quad, ops.sub(ad, 0.5 * beta)), reduction)


def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction="mean",
                   beta=1.0):
    """Smooth L1 loss: ``0.5 d**2 / beta`` where ``|d| < beta``, else ``|d| - 0.5 beta``.

    ``d = input - target`` (Girshick 2015, "Fast R-CNN"; PyTorch's
    ``SmoothL1Loss`` documentation).

    Parameters
    ----------
    input, target : Tensor
        Broadcastable (a shape mismatch warns, as in PyTorch).
    size_average, reduce : bool, optional
        Deprecated; use ``reduction``.
    reduction : {'mean', 'sum', 'none'}, optional
    beta : float, optional
        Where the loss changes from quadratic to linear, non-negative; 0
        gives :func:`l1_loss`.

    Returns
    -------
    Tensor
        ``grad_fn`` ``SmoothL1LossBackward0`` (for ``beta = 0`` that of
        ``l1_loss``); the gradient is ``d / beta`` inside, ``sign(d)``
        outside.

    Raises
    ------
    RuntimeError
        For a negative ``beta`` or shapes that do not broadcast (PyTorch's
        messages).
    ValueError
        For an unknown ``reduction``.
    """
    x, y, reduction = _prepared_pair(input, target, size_average, reduce, reduction)
    xe, ye = _F._broadcast_pair(x, y)
    if beta == 0.0:
        return _F.l1_loss(xe, ye, reduction=reduction)
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    return _composite("SmoothL1LossBackward0", _smooth_l1, [xe, ye], xe, ye, beta, reduction)


def _huber(xe, ye, delta, reduction):
    d = ops.sub(xe, ye)
    ad = ops.abs(d)
    quad = ops.mul(ops.integer_pow(d, 2), 0.5)
    lin = ops.mul(ops.sub(ad, 0.5 * delta), delta)
    return _F._reduce(ops.select(ops.lt(ad, delta), quad, lin), reduction)


def huber_loss(input, target, reduction="mean", delta=1.0, weight=None):
    """Huber loss: ``0.5 d**2`` where ``|d| < delta``, else ``delta (|d| - 0.5 delta)``.

    ``d = input - target`` (Huber 1964; PyTorch's ``HuberLoss``
    documentation).  ``huber_loss(x, t, delta=b) == b * smooth_l1_loss(x, t,
    beta=b)``.

    Parameters
    ----------
    input, target : Tensor
        Broadcastable (a shape mismatch warns, as in PyTorch).
    reduction : {'mean', 'sum', 'none'}, optional
    delta : float, optional
        Positive.
    weight : Tensor, optional
        Elementwise weights shaped like ``input``; the loss is multiplied by
        them before the reduction (the mean stays ``mean(w * l)``, as in
        PyTorch).

    Returns
    -------
    Tensor
        ``grad_fn`` ``HuberLossBackward0`` (without ``weight``).

    Raises
    ------
    RuntimeError
        For a ``delta`` that is not positive (PyTorch's message).
    ValueError
        For an unknown ``reduction`` or a ``weight`` of another shape.
    """
    x, y = _tensor_arg(input), _tensor_arg(target)
    _F._warn_target_size(x, y)
    xe, ye = _F._broadcast_pair(x, y)
    if weight is None:
        reduction = _F._reduction(None, None, reduction)
    if not delta > 0:
        raise RuntimeError("huber_loss does not support non-positive values for delta.")
    if weight is None:
        return _composite("HuberLossBackward0", _huber, [xe, ye], xe, ye, delta, reduction)
    w = _tensor_arg(weight)
    if w.shape != x.shape:
        raise ValueError("Weights and input must have the same size.")
    loss = _ops.mul(_composite("HuberLossBackward0", _huber, [xe, ye], xe, ye, delta, "none"),
                    w)
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(
            f"Invalid reduction mode: {reduction}. Expected one of 'none', 'mean', 'sum'."
        )
    return _reduced(loss, reduction)


# --------------------------------------------------------------------------
# divergences and likelihoods


def _check_kl_dtypes(x, y):
    for t in (x, y):
        if t._data.dtype.kind == "c":
            raise RuntimeError("kl_div: Complex inputs not supported.")
    for t in (x, y):
        if t._data.dtype.kind in "biu":
            raise RuntimeError("kl_div: Integral inputs not supported.")


def _kl(x, t, log_target):
    if log_target:
        return ops.mul(ops.exp(t), ops.sub(t, x))
    return ops.sub(ops.xlogy(t, t), ops.mul(t, x))


def kl_div(input, target, size_average=None, reduce=None, reduction="mean",
           log_target=False):
    """Kullback-Leibler divergence with log-probabilities as ``input``.

    Elementwise ``target * (log(target) - input)`` (0 where ``target`` is 0),
    or with ``log_target`` ``exp(target) * (target - input)``.

    Parameters
    ----------
    input : Tensor
        Log-probabilities.
    target : Tensor
        Probabilities (log-probabilities with ``log_target``), broadcastable
        to ``input``.
    size_average, reduce : bool, optional
        Deprecated; use ``reduction``.
    reduction : {'mean', 'batchmean', 'sum', 'none'}, optional
        ``'batchmean'`` divides the sum by ``input.size(0)`` (the divergence's
        definition); ``'mean'`` divides by the number of elements and warns
        (a UserWarning with PyTorch's text), as PyTorch does.
    log_target : bool, optional

    Returns
    -------
    Tensor
        The elementwise loss is ``SubBackward0`` (``MulBackward0`` with
        ``log_target``), reduced by ``MeanBackward0``/``SumBackward0``
        (``DivBackward0`` after it for ``'batchmean'``).

    Raises
    ------
    RuntimeError
        For integer or complex operands (PyTorch's messages).
    ValueError
        For an unknown ``reduction``.
    """
    x, y = _tensor_arg(input), _tensor_arg(target)
    if size_average is not None or reduce is not None:
        reduction = _F._reduction(size_average, reduce, reduction)
        red = reduction
    else:
        if reduction == "mean":
            warnings.warn(
                "reduction: 'mean' divides the total loss by both the batch size and the "
                "support size.'batchmean' divides only by the batch size, and aligns with the "
                "KL div math definition.'mean' will be changed to behave the same as "
                "'batchmean' in the next major release.", UserWarning, stacklevel=2,
            )
        red = "sum" if reduction == "batchmean" else _F._reduction(None, None, reduction)
    _check_kl_dtypes(x, y)
    name = "MulBackward0" if log_target else "SubBackward0"
    out = _elementwise(name, _kl, [x, y], red, x, y, log_target)
    if reduction == "batchmean" and x._data.ndim != 0:
        n = x._data.shape[0]
        out = _composite("DivBackward0", lambda: ops.div(out, n), [out])
    return out


def _poisson_nll(x, t, log_input, full, eps):
    if log_input:
        loss = ops.sub(ops.exp(x), ops.mul(t, x))
    else:
        loss = ops.sub(x, ops.mul(t, ops.log(ops.add(x, eps))))
    if full:
        big = ops.gt(t, 1)
        ts = ops.select(big, t, ops.full_like(t, 2.0))
        stirling = ops.add(ops.sub(ops.mul(ts, ops.log(ts)), ts),
                           ops.mul(ops.log(ops.mul(ts, 2 * math.pi)), 0.5))
        loss = ops.add(loss, ops.select(big, stirling, ops.zeros_like(stirling)))
    return loss


def poisson_nll_loss(input, target, log_input=True, full=False, size_average=None, eps=1e-8,
                     reduce=None, reduction="mean"):
    """Negative log-likelihood of a Poisson distribution with mean ``exp(input)`` or ``input``.

    ``exp(input) - target * input`` with ``log_input``, else ``input -
    target * log(input + eps)``; with ``full`` Stirling's approximation of
    ``log(target!)``, ``target log(target) - target + 0.5 log(2 pi
    target)``, is added where ``target > 1`` (PyTorch's ``PoissonNLLLoss``
    documentation).

    Parameters
    ----------
    input, target : Tensor
        Broadcastable.
    log_input : bool, optional
    full : bool, optional
    size_average, reduce : bool, optional
        Deprecated; use ``reduction``.
    eps : float, optional
        Added to ``input`` under the log when ``log_input`` is False.
    reduction : {'mean', 'sum', 'none'}, optional

    Returns
    -------
    Tensor
        The elementwise loss is ``SubBackward0`` (``AddBackward0`` with
        ``full``), then ``MeanBackward0``/``SumBackward0``.  The Stirling
        term is evaluated only where ``target > 1``, so a ``target`` that
        requires grad gets 0 (PyTorch: NaN) from it at ``target = 0``.

    Raises
    ------
    ValueError
        For an unknown ``reduction``.
    """
    reduction = _F._reduction(size_average, reduce, reduction)
    x, y = _tensor_arg(input), _tensor_arg(target)
    _F._broadcast_shape(x._data.shape, y._data.shape)
    name = "AddBackward0" if full else "SubBackward0"
    return _elementwise(name, _poisson_nll, [x, y], reduction, x, y, log_input, full, eps)


def _gaussian_nll(x, t, v, unsqueeze, eps, full):
    if unsqueeze:
        v = ops.reshape(v, tuple(v.shape) + (1,))
    # PyTorch clamps a copy of var below at eps without recording it: the
    # clamped value is used, and the gradient passes through unchanged
    clamped = _tnp.maximum(ops.stop_gradient(v), eps)
    v = ops.add(ops.sub(v, ops.stop_gradient(v)), clamped)
    loss = ops.mul(ops.add(ops.log(v), ops.div(ops.integer_pow(ops.sub(x, t), 2), v)), 0.5)
    if full:
        loss = ops.add(loss, 0.5 * math.log(2 * math.pi))
    return loss


def gaussian_nll_loss(input, target, var, full=False, eps=1e-6, reduction="mean"):
    """Negative log-likelihood of ``target`` under a normal distribution ``N(input, var)``.

    ``0.5 (log(max(var, eps)) + (input - target)**2 / max(var, eps))``, plus
    ``0.5 log(2 pi)`` with ``full`` (Nix and Weigend 1994; PyTorch's
    ``GaussianNLLLoss`` documentation).

    Parameters
    ----------
    input, target : Tensor
        Means and observations, broadcastable.
    var : Tensor or float
        Non-negative variances: shaped like ``input``, or like ``input``
        without its last dimension (one variance per row: homoscedastic),
        or with exactly one dimension of size 1 where ``input``'s differs;
        a float is used for every element.
    full : bool, optional
    eps : float, optional
        Variances are clamped below at ``eps``; as in PyTorch, the clamp is
        not recorded, so the gradient of ``var`` passes through it
        unchanged (evaluated at the clamped value).
    reduction : {'mean', 'sum', 'none'}, optional

    Returns
    -------
    Tensor
        The elementwise loss is ``MulBackward0`` (``AddBackward0`` with
        ``full``), then ``MeanBackward0``/``SumBackward0``.

    Raises
    ------
    ValueError
        With PyTorch's messages: a negative variance, a ``var`` of another
        size, or an unknown ``reduction`` (checked in this order).
    """
    x, y = _tensor_arg(input), _tensor_arg(target)
    if isinstance(var, numbers.Real) and not isinstance(var, Tensor):
        if var < 0:
            raise ValueError("var has negative entry/entries")
        v = Tensor._wrap(np.full(x._data.shape, var, x._data.dtype))
    else:
        v = _tensor_arg(var)
        vd = _value(v)
        if type(vd) is np.ndarray and (vd < 0).any():
            raise ValueError("var has negative entry/entries")
    unsqueeze = False
    xs, vs = tuple(x._data.shape), tuple(v._data.shape)
    if vs != xs:
        if xs[:-1] == vs:
            unsqueeze = True
        elif not (len(xs) == len(vs) and sum(b for a, b in zip(xs, vs) if a != b) == 1):
            raise ValueError("var is of incorrect size")
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not valid")
    name = "AddBackward0" if full else "MulBackward0"
    return _elementwise(name, _gaussian_nll, [x, y, v], reduction, x, y, v, unsqueeze, eps,
                        full)


# --------------------------------------------------------------------------
# margins and embeddings

_COS_EPS = 1e-12  # added to each squared magnitude (PyTorch's cosine_embedding_loss)


def _cosine_embedding(x1, x2, pos_mask, neg_mask, margin, dim):
    prod = ops.reduce_sum(ops.mul(x1, x2), (dim,))
    m1 = ops.add(ops.reduce_sum(ops.mul(x1, x1), (dim,)), _COS_EPS)
    m2 = ops.add(ops.reduce_sum(ops.mul(x2, x2), (dim,)), _COS_EPS)
    cos = ops.div(prod, ops.sqrt(ops.mul(m1, m2)))
    zero = ops.zeros_like(cos)
    pos = _tnp.where(pos_mask, ops.sub(1.0, cos), zero)
    neg = _tnp.where(neg_mask, _clamp_min0(ops.sub(cos, margin)), zero)
    return ops.add(pos, neg)


def _sizes(t):
    return str(list(t._data.shape))


def cosine_embedding_loss(input1, input2, target, margin=0, size_average=None, reduce=None,
                          reduction="mean"):
    """``1 - cos(input1, input2)`` where ``target == 1``, ``max(0, cos - margin)`` where it is -1.

    ``cos`` is taken along the last dimension as ``<x1, x2> / sqrt((|x1|**2
    + 1e-12) (|x2|**2 + 1e-12))``, PyTorch's formula; other target values
    give 0.

    Parameters
    ----------
    input1, input2 : Tensor
        Shape ``(N, D)`` with ``target`` of shape ``(N,)``, or ``(D,)`` with a
        0-D ``target``.
    target : Tensor
        1 or -1 (no gradient).
    margin : float, optional
        In ``[-1, 1]``; PyTorch suggests ``[0, 0.5]``.
    size_average, reduce : bool, optional
        Deprecated; use ``reduction``.
    reduction : {'mean', 'sum', 'none'}, optional

    Returns
    -------
    Tensor
        Shape ``(N,)`` (or ``()``) for ``'none'``, ``grad_fn``
        ``AddBackward0``, then ``MeanBackward0``/``SumBackward0``.

    Raises
    ------
    RuntimeError
        For a target of more than one dimension or inputs of the wrong rank
        (PyTorch's messages).
    ValueError
        For an unknown ``reduction``.
    """
    reduction = _F._reduction(size_average, reduce, reduction)
    x1, x2, t = _tensor_arg(input1), _tensor_arg(input2), _tensor_arg(target)
    td = t._data.ndim
    if td not in (0, 1):
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    if td == 1 and not (x1._data.ndim == 2 and x2._data.ndim == 2):
        raise RuntimeError("1D target tensor expects 2D input tensors, but found inputs with "
                           f"sizes {_sizes(x1)} and {_sizes(x2)}.")
    if td == 0 and not (x1._data.ndim == 1 and x2._data.ndim == 1):
        raise RuntimeError("0D target tensor expects 1D input tensors, but found inputs with "
                           f"sizes {_sizes(x1)} and {_sizes(x2)}.")
    _F._broadcast_shape(x1._data.shape, x2._data.shape)
    tv = _value(t)
    pos_mask, neg_mask = _tnp.equal(tv, 1), _tnp.equal(tv, -1)
    return _elementwise("AddBackward0", _cosine_embedding, [x1, x2], reduction, x1, x2,
                        pos_mask, neg_mask, margin, td)


def _margin_ranking(x1, x2, t, margin):
    return _clamp_min0(ops.add(ops.mul(ops.neg(t), ops.sub(x1, x2)), margin))


def margin_ranking_loss(input1, input2, target, margin=0, size_average=None, reduce=None,
                        reduction="mean"):
    """``max(0, -target * (input1 - input2) + margin)``: ranking of pairs.

    Parameters
    ----------
    input1, input2 : Tensor
        Scores, of one rank with ``target`` (sizes broadcast).
    target : Tensor
        1 where ``input1`` should rank higher, -1 where ``input2`` should.
    margin : float, optional
    size_average, reduce : bool, optional
        Deprecated; use ``reduction``.
    reduction : {'mean', 'sum', 'none'}, optional

    Returns
    -------
    Tensor
        ``grad_fn`` ``ClampMinBackward0``, then ``MeanBackward0``/``SumBackward0``;
        the gradient at the hinge (exactly 0) is that of the linear part, as
        PyTorch's ``clamp_min``.

    Raises
    ------
    RuntimeError
        If the three operands differ in rank, or do not broadcast (PyTorch's
        messages).
    ValueError
        For an unknown ``reduction``.
    """
    reduction = _F._reduction(size_average, reduce, reduction)
    x1, x2, t = _tensor_arg(input1), _tensor_arg(input2), _tensor_arg(target)
    if not (x1._data.ndim == x2._data.ndim == t._data.ndim):
        raise RuntimeError(
            "margin_ranking_loss : All input tensors should have same dimension but got sizes: "
            f"input1: {x1.size()}, input2: {x2.size()}, target: {t.size()} "
        )
    _F._broadcast_shape(_F._broadcast_shape(x1._data.shape, x2._data.shape), t._data.shape)
    return _elementwise("ClampMinBackward0", _margin_ranking, [x1, x2, t], reduction, x1, x2, t,
                        margin)


def _hinge_embedding(x, not_pos, not_neg, margin):
    zero = ops.zeros_like(x)
    margin_part = _tnp.where(not_pos, _clamp_min0(ops.sub(margin, x)), zero)
    self_part = _tnp.where(not_neg, x, zero)
    return ops.add(margin_part, self_part)


def hinge_embedding_loss(input, target, margin=1.0, size_average=None, reduce=None,
                         reduction="mean"):
    """``input`` where ``target == 1``, ``max(0, margin - input)`` where ``target == -1``.

    PyTorch's arrangement: the margin term counts wherever ``target != 1``
    and ``input`` wherever ``target != -1`` (both for other values).

    Parameters
    ----------
    input : Tensor
        Typically distances (non-negative).
    target : Tensor
        1 or -1, broadcastable to ``input`` (no gradient).
    margin : float, optional
    size_average, reduce : bool, optional
        Deprecated; use ``reduction``.
    reduction : {'mean', 'sum', 'none'}, optional

    Returns
    -------
    Tensor
        ``grad_fn`` ``AddBackward0``, then ``MeanBackward0``/``SumBackward0``.

    Raises
    ------
    RuntimeError
        If ``input`` and ``target`` do not broadcast.
    ValueError
        For an unknown ``reduction``.
    """
    reduction = _F._reduction(size_average, reduce, reduction)
    x, t = _tensor_arg(input), _tensor_arg(target)
    _F._broadcast_shape(x._data.shape, t._data.shape)
    tv = _value(t)
    return _elementwise("AddBackward0", _hinge_embedding, [x], reduction, x,
                        _tnp.not_equal(tv, 1), _tnp.not_equal(tv, -1), margin)


def _soft_margin(x, t, reduction):
    return _F._reduce(_tnn.softplus(ops.neg(ops.mul(x, t))), reduction)


def soft_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """Logistic loss of two classes: ``log(1 + exp(-target * input))``, reduced.

    Parameters
    ----------
    input : Tensor
    target : Tensor
        1 or -1, broadcastable to ``input``.
    size_average, reduce : bool, optional
        Deprecated; use ``reduction``.
    reduction : {'mean', 'sum', 'none'}, optional

    Returns
    -------
    Tensor
        ``grad_fn`` ``SoftMarginLossBackward0``.  Computed stably (as
        ``softplus``): where ``-target * input`` is so large that PyTorch's
        ``log1p(exp(.))`` overflows (about 89 in float32, 710 in float64)
        PyTorch gives ``inf``, tracegrad the finite value.

    Raises
    ------
    RuntimeError
        If ``input`` and ``target`` do not broadcast.
    ValueError
        For an unknown ``reduction``.
    """
    reduction = _F._reduction(size_average, reduce, reduction)
    x, t = _tensor_arg(input), _tensor_arg(target)
    _F._broadcast_shape(x._data.shape, t._data.shape)
    return _composite("SoftMarginLossBackward0", _soft_margin, [x, t], x, t, reduction)


def _multilabel_soft_margin(x, t, w):
    ls_pos = ops.neg(_tnn.softplus(ops.neg(x)))  # log(sigmoid(x))
    ls_neg = ops.neg(_tnn.softplus(x))  # log(sigmoid(-x))
    loss = ops.neg(ops.add(ops.mul(t, ls_pos), ops.mul(ops.sub(1.0, t), ls_neg)))
    if w is not None:
        loss = ops.mul(loss, w)
    n_classes = x.shape[-1]
    return ops.div(ops.reduce_sum(loss, (len(loss.shape) - 1,)), n_classes)


def multilabel_soft_margin_loss(input, target, weight=None, size_average=None, reduce=None,
                                reduction="mean"):
    """Multi-label one-versus-all logistic loss, averaged over the classes.

    ``-(t log sigmoid(x) + (1 - t) log sigmoid(-x))``, times ``weight``,
    summed over the last (class) dimension and divided by the number of
    classes ``C``, then reduced over the samples.

    Parameters
    ----------
    input : Tensor
        Logits, shape ``(N, C)`` or ``(C,)``.
    target : Tensor
        0/1 labels (or probabilities), broadcastable to ``input``.
    weight : Tensor, optional
        Per-class (or elementwise) weights, broadcastable to ``input``.
    size_average, reduce : bool, optional
        Deprecated; use ``reduction``.
    reduction : {'mean', 'sum', 'none'}, optional

    Returns
    -------
    Tensor
        Shape ``(N,)`` for ``'none'`` (``grad_fn`` ``DivBackward0``), then
        ``MeanBackward0``/``SumBackward0``.

    Raises
    ------
    ValueError
        For an unknown ``reduction`` (after computing the loss, as PyTorch).
    """
    reduction = _F._reduction(size_average, reduce, reduction, check=False)
    x, t = _tensor_arg(input), _tensor_arg(target)
    w = None if weight is None else _tensor_arg(weight)
    inputs = [x, t] if w is None else [x, t, w]
    loss = _composite("DivBackward0", _multilabel_soft_margin, inputs, x, t, w)
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not valid")
    return _reduced(loss, reduction)


def _pairwise_distance(x1, x2, p, eps):
    """``norm(x1 - x2 + eps, p)`` over the last dimension (PyTorch's ``pairwise_distance``)."""
    d = ops.add(ops.sub(x1, x2), eps)
    axis = max(len(x1.shape), len(x2.shape)) - 1
    return _tnp.linalg.vector_norm(d, ord=p, axis=axis)


def _triplet(a, pos, neg, margin, p, eps, swap):
    d_pos = _pairwise_distance(a, pos, p, eps)
    d_neg = _pairwise_distance(a, neg, p, eps)
    if swap:
        d_neg = _tnp.minimum(d_neg, _pairwise_distance(pos, neg, p, eps))
    return _clamp_min0(ops.sub(ops.add(d_pos, margin), d_neg))


def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-6, swap=False,
                        size_average=None, reduce=None, reduction="mean"):
    """``max(d(a, p) - d(a, n) + margin, 0)`` with ``d`` the ``p``-norm distance.

    ``d(x, y) = ||x - y + eps||_p`` along the last dimension (PyTorch's
    ``pairwise_distance``); with ``swap`` the negative distance is
    ``min(d(a, n), d(p, n))`` (Balntas et al. 2016, "Learning shallow
    convolutional feature descriptors with triplet losses").

    Parameters
    ----------
    anchor, positive, negative : Tensor
        Shape ``(N, D)`` or ``(D,)``, all of one rank (sizes broadcast).
    margin : float, optional
        Positive.
    p : float, optional
        The norm's degree.
    eps : float, optional
    swap : bool, optional
    size_average, reduce : bool, optional
        Deprecated; use ``reduction``.
    reduction : {'mean', 'sum', 'none'}, optional

    Returns
    -------
    Tensor
        Shape ``(N,)`` for ``'none'`` (``grad_fn`` ``ClampMinBackward0``),
        then ``MeanBackward0``/``SumBackward0``.

    Raises
    ------
    ValueError
        For a ``margin`` that is not positive or an unknown ``reduction``.
    RuntimeError
        If the operands differ in rank (PyTorch's message).
    """
    reduction = _F._reduction(size_average, reduce, reduction)
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    a, po, ne = _tensor_arg(anchor), _tensor_arg(positive), _tensor_arg(negative)
    da, dp, dn = a._data.ndim, po._data.ndim, ne._data.ndim
    if not (da == dp == dn):
        raise RuntimeError(
            "The anchor, positive, and negative tensors are expected to have the same number "
            f"of dimensions, but got: anchor {da}D, positive {dp}D, and negative {dn}D inputs"
        )
    return _elementwise("ClampMinBackward0", _triplet, [a, po, ne], reduction, a, po, ne,
                        margin, p, eps, swap)


def _check_margin_input(x):
    shape = x._data.shape
    if not ((x._data.ndim == 1 and shape[0] > 0) or (x._data.ndim == 2 and shape[1] > 0)):
        raise RuntimeError("Expected non-empty vector or matrix with optional 0-dim batch size, "
                           f"but got: {list(shape)}")


def _check_long(t):
    if t._data.dtype != np.int64:
        raise RuntimeError(f"expected scalar type Long but found {_F._type_name(t)}")


def _multi_margin(x2, tgt, not_target, coef, p, margin, reduction, out_shape):
    # x2: (N, C); tgt: (N, 1) class indices; coef: (N, 1) weight of each target class
    picked = _tnp.take_along_axis(x2, tgt, axis=1)
    z = ops.add(ops.sub(margin, picked), x2)
    h = z if p == 1 else ops.integer_pow(z, 2)
    h = _tnp.where(_tnp.logical_and(not_target, ops.gt(z, 0)), h, 0.0)
    if coef is not None:
        h = ops.mul(h, coef)
    loss = ops.div(ops.reduce_sum(h, (1,)), x2.shape[1])
    return _F._reduce(ops.reshape(loss, out_shape), reduction)


def multi_margin_loss(input, target, p=1, margin=1.0, weight=None, size_average=None,
                      reduce=None, reduction="mean"):
    """Multi-class hinge loss: ``sum_{j != y} max(0, margin - x[y] + x[j])**p / C`` per sample.

    With ``weight``, each sample's terms are multiplied by ``weight[y]``
    (PyTorch's ``MultiMarginLoss`` documentation).

    Parameters
    ----------
    input : Tensor
        Scores, shape ``(N, C)`` or ``(C,)``.
    target : Tensor
        int64 class indices, shape ``(N,)`` (``()`` or ``(1,)`` for 1-D
        ``input``).
    p : {1, 2}, optional
    margin : float, optional
    weight : Tensor, optional
        Per-class weights, 1-D with ``C`` elements.
    size_average, reduce : bool, optional
        Deprecated; use ``reduction``.
    reduction : {'mean', 'sum', 'none'}, optional

    Returns
    -------
    Tensor
        Shaped like ``target`` for ``'none'``; ``grad_fn``
        ``MultiMarginLossBackward0``.  The hinge's gradient at exactly 0 is 0.

    Raises
    ------
    ValueError
        For ``p`` other than 1 and 2, a ``weight`` that is not 1-D, or an
        unknown ``reduction``.
    RuntimeError
        With PyTorch's messages: an input that is not a non-empty vector or
        matrix, a target of the wrong size or dtype, a weight of the wrong
        size, a target out of range.
    """
    reduction = _F._reduction(size_average, reduce, reduction)
    if p != 1 and p != 2:
        raise ValueError("only p == 1 and p == 2 supported")
    w = None if weight is None else _tensor_arg(weight)
    if w is not None and w._data.ndim != 1:
        raise ValueError("weight must be one-dimensional")
    x, t = _tensor_arg(input), _tensor_arg(target)
    _check_margin_input(x)
    nframe = 1 if x._data.ndim == 1 else x._data.shape[0]
    n_classes = x._data.shape[-1]
    if not (t._data.ndim <= 1 and t._data.size == nframe):
        raise RuntimeError(
            "multi_margin_loss: target tensor should be 1-D with size equal to the number of "
            f"input samples (batch size). Expected target size [{nframe}], but got "
            f"{list(t._data.shape)}. Input has shape {list(x._data.shape)}.")
    if w is not None and w._data.size != n_classes:
        raise RuntimeError(f"inconsistent weight size, expected {n_classes} but got "
                           f"{list(w._data.shape)}")
    _check_long(t)
    tv = np.asarray(_value(t)).reshape(nframe, 1)
    if ((tv < 0) | (tv >= n_classes)).any():
        raise RuntimeError("target out of range")
    not_target = tv != np.arange(n_classes)
    coef = None if w is None else np.asarray(_value(w)).astype(x._data.dtype)[tv]
    x2 = x if x._data.ndim == 2 else _ops.reshape(x, 1, n_classes)

    def fn():
        return _multi_margin(x2, tv, not_target, coef, p, margin, reduction, t._data.shape)

    return _composite("MultiMarginLossBackward0", fn, [x])


def _multilabel_margin(x2, count, not_target, reduction, out_shape):
    # z[n, a, k] = 1 - x[n, a] + x[n, k], summed over target classes a (with
    # their multiplicity) and non-target classes k where positive
    z = ops.add(ops.sub(1.0, _tnp.expand_dims(x2, 2)), _tnp.expand_dims(x2, 1))
    mask = (count[:, :, None] > 0) & not_target[:, None, :]
    times = count[:, :, None].astype(x2.dtype)
    h = _tnp.where(_tnp.logical_and(mask, ops.gt(z, 0)), ops.mul(z, times), 0.0)
    loss = ops.div(ops.reduce_sum(h, (1, 2)), x2.shape[1])
    return _F._reduce(ops.reshape(loss, out_shape), reduction)


def multilabel_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """Multi-label hinge loss: ``sum_{j, k} max(0, 1 - (x[y_j] - x[k])) / C`` per sample.

    ``y_j`` runs over the target classes (the entries of ``target`` before
    its first negative value), ``k`` over the classes not among them
    (PyTorch's ``MultiLabelMarginLoss`` documentation).

    Parameters
    ----------
    input : Tensor
        Scores, shape ``(N, C)`` or ``(C,)``.
    target : Tensor
        int64, shaped like ``input``: class indices padded with -1.
    size_average, reduce : bool, optional
        Deprecated; use ``reduction``.
    reduction : {'mean', 'sum', 'none'}, optional

    Returns
    -------
    Tensor
        Shape ``(N,)`` (``()`` for 1-D input) for ``'none'``; ``grad_fn``
        ``MultilabelMarginLossBackward0``.

    Raises
    ------
    ValueError
        For an unknown ``reduction``.
    RuntimeError
        With PyTorch's messages: an input that is not a non-empty vector or
        matrix, a target of another shape or dtype, or out of range.
    """
    reduction = _F._reduction(size_average, reduce, reduction)
    x, t = _tensor_arg(input), _tensor_arg(target)
    _check_margin_input(x)
    if t._data.shape != x._data.shape:
        raise RuntimeError(f"inconsistent target size: {list(t._data.shape)} for input of "
                           f"size: {list(x._data.shape)}")
    _check_long(t)
    n_classes = x._data.shape[-1]
    tv = np.asarray(_value(t)).reshape(-1, n_classes)
    if ((tv < -1) | (tv >= n_classes)).any():
        raise RuntimeError("argument #2 'target' is out of range")
    valid = np.cumprod(tv >= 0, axis=1).astype(bool)  # the entries before the first -1
    count = np.zeros(tv.shape, np.int64)
    rows = np.nonzero(valid)[0]
    np.add.at(count, (rows, tv[valid]), 1)
    not_target = count == 0
    x2 = x if x._data.ndim == 2 else _ops.reshape(x, 1, n_classes)
    out_shape = x._data.shape[:-1]

    def fn():
        return _multilabel_margin(x2, count, not_target, reduction, out_shape)

    return _composite("MultilabelMarginLossBackward0", fn, [x])
