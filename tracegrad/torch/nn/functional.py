"""``nn.functional``: PyTorch's neural-network functions on tracegrad tensors.

Each function is computed with tracegrad primitives (``tracegrad.primitives
.ops``, ``tracegrad.numpy``, ``tracegrad.nn``) applied to tensors, so its
derivative comes from the primitives' VJP rules; an operation PyTorch
records as one node is recorded under PyTorch's name for it (``relu`` ->
``ReluBackward0``, ``cross_entropy`` -> ``NllLossBackward0`` after
``LogSoftmaxBackward0``, ``mse_loss`` -> ``MseLossBackward0``, ``linear``
-> ``AddmmBackward0``).  Softmax, log-softmax and softplus use tracegrad's
stable kernels, so large logits give finite values and gradients.
"""
import math
import numbers
import warnings

import numpy as np

from ... import nn as _tnn
from ... import numpy as _tnp
from ...primitives import ops
from .. import _creation, _ops
from .._methods import _inplace
from .._ops import _composite, _tensor_arg
from .._tensor import Size, Tensor

__all__ = [
    "linear", "relu", "relu_", "sigmoid", "tanh", "softmax", "log_softmax", "softplus",
    "leaky_relu", "gelu", "silu", "elu", "logsigmoid", "dropout", "one_hot",
    "cross_entropy", "nll_loss", "mse_loss", "l1_loss", "binary_cross_entropy",
    "binary_cross_entropy_with_logits",
]

_C_NAMES = {"float32": "float", "float64": "double", "float16": "c10::Half",
            "int64": "long int", "int32": "int", "bool": "bool"}


_TYPE_NAMES = {"float32": "Float", "float64": "Double", "float16": "Half", "bool": "Bool",
               "int64": "Long", "int32": "Int", "int16": "Short", "int8": "Char",
               "uint8": "Byte"}


def _scalar_type_name(t):
    return _C_NAMES.get(str(t._data.dtype), str(t._data.dtype))


# --------------------------------------------------------------------------
# linear


def linear(input, weight, bias=None):
    """``input @ weight.T + bias``: a fully connected layer.

    Parameters
    ----------
    input : Tensor
        Shape ``(*, in_features)``.
    weight : Tensor
        Shape ``(out_features, in_features)``.
    bias : Tensor, optional
        Shape ``(out_features,)``.

    Returns
    -------
    Tensor
        Shape ``(*, out_features)``.  As in PyTorch, a 2-D input gives
        ``grad_fn`` ``AddmmBackward0`` (``MmBackward0`` without bias) whose
        inputs are the bias, the input and ``weight.t()``; other ranks are
        folded to 2-D and viewed back.

    Raises
    ------
    RuntimeError
        If ``input`` and ``weight`` differ in dtype or ``in_features``.
    """
    x, w = _tensor_arg(input), _tensor_arg(weight)
    if x._data.dtype != w._data.dtype:
        raise RuntimeError(
            f"expected m1 and m2 to have the same dtype, but got: {_scalar_type_name(x)} "
            f"!= {_scalar_type_name(w)}"
        )
    nd = x._data.ndim
    in_f = w._data.shape[-1]
    out_f = w._data.shape[0] if w._data.ndim == 2 else 1
    if nd == 0 or x._data.shape[-1] != in_f:
        rows = x._data.size // max(x._data.shape[-1], 1) if nd else 1
        cols = x._data.shape[-1] if nd else 1
        raise RuntimeError(
            f"mat1 and mat2 shapes cannot be multiplied ({rows}x{cols} and "
            f"{in_f}x{out_f})"
        )
    wt = _ops.t(w)
    if nd == 2:
        return _ops.matmul(x, wt) if bias is None else _ops.addmm(bias, x, wt)
    lead = x._data.shape[:-1]
    x2 = _ops.reshape(x, -1, in_f)
    if bias is not None:
        return _ops.reshape(_ops.addmm(bias, x2, wt), *lead, out_f)
    out = _ops.matmul(x2, wt)
    name = "SqueezeBackward4" if nd == 1 else "UnsafeViewBackward0"
    return _composite(name, ops.reshape, [out], out, lead + (out_f,))


# --------------------------------------------------------------------------
# activations


def relu(input, inplace=False):
    """``max(input, 0)`` elementwise (gradient 0 at 0); ``inplace`` writes into ``input``.

    Parameters
    ----------
    input : Tensor
    inplace : bool, optional

    Returns
    -------
    Tensor
    """
    return input.relu_() if inplace else _ops.relu(input)


def relu_(input):
    """In-place :func:`relu`."""
    return input.relu_()


def sigmoid(input):
    """``1 / (1 + exp(-input))`` elementwise (stable for large ``|input|``).

    Parameters
    ----------
    input : Tensor

    Returns
    -------
    Tensor
    """
    return _ops.sigmoid(input)


def tanh(input):
    """Hyperbolic tangent, elementwise.

    Parameters
    ----------
    input : Tensor

    Returns
    -------
    Tensor
    """
    return _ops.tanh(input)


def _softmax_dim(name, ndim, stacklevel):
    warnings.warn(
        f"Implicit dimension choice for {name} has been deprecated. Change the call to "
        "include dim=X as an argument.",
        UserWarning, stacklevel=stacklevel,
    )
    return 0 if ndim in (0, 1, 3) else 1


def softmax(input, dim=None, _stacklevel=3, dtype=None):
    """``exp(input) / sum(exp(input), dim)``, computed stably.

    Parameters
    ----------
    input : Tensor
    dim : int, optional
        The dimension to normalize.  Omitting it is deprecated (a
        UserWarning) and picks PyTorch's legacy choice: 0 for 0-, 1- and
        3-D inputs, else 1.
    dtype : dtype, optional
        Convert ``input`` to this dtype first.

    Returns
    -------
    Tensor
        ``grad_fn`` ``SoftmaxBackward0``.
    """
    if dim is None:
        dim = _softmax_dim("softmax", input.dim(), _stacklevel)
    return _ops.softmax(input, dim, dtype)


def log_softmax(input, dim=None, _stacklevel=3, dtype=None):
    """``input - logsumexp(input, dim)``, computed stably.

    Parameters
    ----------
    input : Tensor
    dim : int, optional
        As for :func:`softmax`.
    dtype : dtype, optional

    Returns
    -------
    Tensor
        ``grad_fn`` ``LogSoftmaxBackward0``; ``[1000., 0.]`` gives
        ``[0., -1000.]``.
    """
    if dim is None:
        dim = _softmax_dim("log_softmax", input.dim(), _stacklevel)
    return _ops.log_softmax(input, dim, dtype)


def _softplus(x, beta, threshold):
    bx = x if beta == 1 else ops.mul(x, beta)
    sp = _tnn.softplus(bx)
    if beta != 1:
        sp = ops.div(sp, beta)
    return ops.select(ops.gt(bx, threshold), x, sp)


def softplus(input, beta=1.0, threshold=20.0):
    """``log(1 + exp(beta * input)) / beta``, and ``input`` where ``beta * input > threshold``.

    Parameters
    ----------
    input : Tensor
    beta : float, optional
    threshold : float, optional

    Returns
    -------
    Tensor
        ``grad_fn`` ``SoftplusBackward0``; the gradient is
        ``sigmoid(beta * input)`` below the threshold and 1 above.
    """
    x = _ops._float_input(input)
    return _composite("SoftplusBackward0", _softplus, [x], x, beta, threshold)


def _activation(name, fn, input, inplace, inplace_name=None):
    """``fn(input)`` recorded as ``name``; with ``inplace``, written into ``input``."""
    if inplace:
        return _inplace(input, lambda s: _composite(inplace_name or name, fn, [s], s),
                        name=inplace_name or name)
    x = _tensor_arg(input)
    return _composite(name, fn, [x], x)


def leaky_relu(input, negative_slope=0.01, inplace=False):
    """``input`` where positive, else ``negative_slope * input``.

    Parameters
    ----------
    input : Tensor
    negative_slope : float, optional
    inplace : bool, optional

    Returns
    -------
    Tensor
        ``grad_fn`` ``LeakyReluBackward0`` (``LeakyReluBackward1`` in
        place); the gradient at 0 is ``negative_slope``, as in PyTorch.
    """
    def fn(x):
        return ops.select(ops.gt(x, 0), x, ops.mul(x, negative_slope))

    return _activation("LeakyReluBackward0", fn, input, inplace, "LeakyReluBackward1")


def gelu(input, approximate="none"):
    """Gaussian error linear unit ``input * Phi(input)``.

    Parameters
    ----------
    input : Tensor
    approximate : {'none', 'tanh'}, optional
        ``'none'``: the exact form with ``erf``; ``'tanh'``: the tanh
        approximation (Hendrycks and Gimpel 2016).

    Returns
    -------
    Tensor
        ``grad_fn`` ``GeluBackward0``.

    Raises
    ------
    RuntimeError
        For another ``approximate``.
    """
    if approximate not in ("none", "tanh"):
        raise RuntimeError("approximate argument must be either none or tanh.")
    return _activation("GeluBackward0",
                       lambda x: _tnn.gelu(x, approximate=approximate == "tanh"), input, False)


def silu(input, inplace=False):
    """``input * sigmoid(input)`` (swish).

    Parameters
    ----------
    input : Tensor
    inplace : bool, optional

    Returns
    -------
    Tensor
        ``grad_fn`` ``SiluBackward0``.
    """
    return _activation("SiluBackward0", _tnn.silu, input, inplace)


def elu(input, alpha=1.0, inplace=False):
    """``input`` where positive, else ``alpha * (exp(input) - 1)``.

    Parameters
    ----------
    input : Tensor
    alpha : float, optional
    inplace : bool, optional

    Returns
    -------
    Tensor
        ``grad_fn`` ``EluBackward0`` (``EluBackward1`` in place).
    """
    return _activation("EluBackward0", lambda x: _tnn.elu(x, alpha), input, inplace,
                       "EluBackward1")


def logsigmoid(input):
    """``log(sigmoid(input))``, computed stably.

    Parameters
    ----------
    input : Tensor

    Returns
    -------
    Tensor
        ``grad_fn`` ``LogSigmoidBackward0``.
    """
    return _activation("LogSigmoidBackward0", _tnn.log_sigmoid, input, False)


def dropout(input, p=0.5, training=True, inplace=False):
    """Zero each element with probability ``p`` and scale the rest by ``1 / (1 - p)``.

    Parameters
    ----------
    input : Tensor
    p : float, optional
        Drop probability in ``[0, 1]``.
    training : bool, optional
        If False (or ``p == 0``), ``input`` is returned unchanged.
    inplace : bool, optional

    Returns
    -------
    Tensor
        ``input * mask`` (``grad_fn`` ``MulBackward0``); the mask is drawn
        from the default generator (:func:`~tracegrad.torch.manual_seed`).

    Raises
    ------
    ValueError
        If ``p`` is outside ``[0, 1]``.
    """
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not training or p == 0:
        return input
    keep = _creation.default_generator._rng.random(input.shape) >= p
    scale = 0.0 if p == 1 else 1.0 / (1.0 - p)
    mask = Tensor._wrap((keep * scale).astype(input._data.dtype))
    return input.mul_(mask) if inplace else _ops.mul(input, mask)


def one_hot(tensor, num_classes=-1):
    """One-hot encoding of an int64 tensor of class indices.

    Parameters
    ----------
    tensor : Tensor
        int64 class indices, any shape.
    num_classes : int, optional
        Number of classes; -1 (default) uses ``tensor.max() + 1``.

    Returns
    -------
    Tensor
        int64, shape ``tensor.shape + (num_classes,)``.

    Raises
    ------
    RuntimeError
        For a non-int64 tensor, a negative index, an index not below
        ``num_classes``, or an empty tensor with ``num_classes=-1``.
    """
    data = tensor._data
    if data.dtype != np.int64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    if num_classes == -1:
        if data.size == 0:
            raise RuntimeError("Can not infer total number of classes from empty tensor.")
        num_classes = int(data.max()) + 1
    if data.size:
        if data.min() < 0:
            raise RuntimeError("Class values must be non-negative.")
        if data.max() >= num_classes:
            raise RuntimeError("Class values must be smaller than num_classes.")
    return Tensor._wrap((data[..., None] == np.arange(num_classes)).astype(np.int64))


# --------------------------------------------------------------------------
# losses


def _reduction(size_average, reduce, reduction):
    """The ``reduction`` string, from the legacy ``size_average``/``reduce`` if given."""
    if size_average is not None or reduce is not None:
        size_average = True if size_average is None else size_average
        reduce = True if reduce is None else reduce
        reduction = "mean" if (size_average and reduce) else "sum" if reduce else "none"
        warnings.warn(
            f"size_average and reduce args will be deprecated, please use "
            f"reduction='{reduction}' instead.", UserWarning, stacklevel=3,
        )
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return reduction


def _reduce(loss, reduction):
    """Apply ``reduction`` to an elementwise loss (primitives, inside a composite)."""
    if reduction == "mean":
        return _tnp.mean(loss)
    if reduction == "sum":
        return ops.reduce_sum(loss, tuple(range(loss.ndim)))
    return loss


def _warn_target_size(input, target):
    if target.shape != input.shape:
        warnings.warn(
            f"Using a target size ({target.size()}) that is different to the input size "
            f"({input.size()}). This will likely lead to incorrect results due to "
            "broadcasting. Please ensure they have the same size.",
            UserWarning, stacklevel=3,
        )


def _weighted(loss, weight, reduction, input):
    """PyTorch's elementwise-weighted reduction: ``sum(w * l) / sum(w)`` for the mean."""
    if weight.shape != input.shape:
        raise ValueError("Weights and input must have the same size.")
    loss = _ops.mul(loss, weight)
    if reduction == "none":
        return loss
    total = _ops.sum(loss)
    return total if reduction == "sum" else _ops.div(total, weight.sum())


def mse_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    """Mean squared error ``(input - target) ** 2``, reduced.

    Parameters
    ----------
    input, target : Tensor
        Broadcastable (a shape mismatch warns, as in PyTorch).
    size_average, reduce : bool, optional
        Deprecated; use ``reduction``.
    reduction : {'mean', 'sum', 'none'}, optional
    weight : Tensor, optional
        Elementwise weights shaped like ``input``; the mean is then
        ``sum(weight * loss) / sum(weight)``.

    Returns
    -------
    Tensor
        ``grad_fn`` ``MseLossBackward0`` (without ``weight``).

    Raises
    ------
    ValueError
        For an unknown ``reduction`` or a ``weight`` of another shape.
    """
    reduction = _reduction(size_average, reduce, reduction)
    x, y = _tensor_arg(input), _tensor_arg(target)
    _warn_target_size(x, y)
    if weight is not None:
        return _weighted(_ops.pow(_ops.sub(x, y), 2), weight, reduction, x)

    def fn():
        return _reduce(ops.integer_pow(_ops.sub(x, y), 2), reduction)

    return _composite("MseLossBackward0", fn, [x, y])


def l1_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    """Mean absolute error ``|input - target|``, reduced.

    Parameters
    ----------
    input, target : Tensor
    size_average, reduce : bool, optional
        Deprecated; use ``reduction``.
    reduction : {'mean', 'sum', 'none'}, optional
    weight : Tensor, optional
        Elementwise weights shaped like ``input`` (mean: ``sum(w l) / sum(w)``).

    Returns
    -------
    Tensor
        ``grad_fn`` ``MeanBackward0`` after ``AbsBackward0`` (as PyTorch,
        which composes it); the gradient of ``|d|`` at 0 is 0.

    Raises
    ------
    ValueError
        For an unknown ``reduction`` or a ``weight`` of another shape.
    """
    reduction = _reduction(size_average, reduce, reduction)
    x, y = _tensor_arg(input), _tensor_arg(target)
    _warn_target_size(x, y)
    loss = _ops.abs(_ops.sub(x, y))
    if weight is not None:
        return _weighted(loss, weight, reduction, x)
    if reduction == "mean":
        return _ops.mean(loss)
    return _ops.sum(loss) if reduction == "sum" else loss


def _class_targets(input, target, weight, ignore_index):
    """Validated indices and per-element coefficients of an NLL loss.

    Returns ``(safe, coef, cdim)``: the targets with ignored entries set to
    class 0, ``weight[target]`` (1 without weights) zeroed at ignored
    entries, and the class dimension of ``input``.
    """
    t = target._data
    if t.dtype.kind not in "iu":
        raise RuntimeError(
            "expected target dtype to be Long or Byte, but got "
            f"{_TYPE_NAMES.get(str(t.dtype), str(t.dtype))}"
        )
    nd = input._data.ndim
    if nd < 1:
        raise ValueError(f"Expected 1 or more dimensions (got {nd})")
    cdim = 0 if nd == 1 else 1
    if nd >= 2 and t.ndim >= 1 and input._data.shape[0] != t.shape[0]:
        raise ValueError(
            f"Expected input batch_size ({input._data.shape[0]}) to match target "
            f"batch_size ({t.shape[0]})."
        )
    expected = input._data.shape[:cdim] + input._data.shape[cdim + 1:]
    if t.shape != expected:
        raise RuntimeError(
            f"expected target of shape {list(expected)} for input of shape "
            f"{list(input._data.shape)}, got {list(t.shape)}"
        )
    n_classes = input._data.shape[cdim]
    valid = t != ignore_index
    bad = valid & ((t < 0) | (t >= n_classes))
    if bad.any():
        raise IndexError(f"Target {int(t[bad].flat[0])} is out of bounds.")
    safe = np.where(valid, t, 0).astype(np.intp)
    dt = input._data.dtype
    if weight is not None:
        w = weight._data if isinstance(weight, Tensor) else np.asarray(weight)
        if w.shape != (n_classes,):
            raise RuntimeError(
                f"weight tensor should be defined either for all {n_classes} classes or no "
                f"classes but got weight tensor of shape: {list(w.shape)}"
            )
        coef = np.where(valid, w[safe], 0).astype(dt)
    else:
        coef = valid.astype(dt)
    return safe, coef, cdim


def _nll(x, safe, coef, cdim, reduction):
    picked = _tnp.take_along_axis(x, np.expand_dims(safe, cdim), axis=cdim)
    picked = ops.reshape(picked, safe.shape)
    loss = ops.neg(ops.mul(picked, coef))
    if reduction == "none":
        return loss
    total = ops.reduce_sum(loss, tuple(range(loss.ndim)))
    if reduction == "sum":
        return total
    return ops.div(total, np.asarray(coef.sum(), dtype=coef.dtype))


def nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
             reduction="mean"):
    """Negative log-likelihood of class indices: ``-weight[t] * input[n, t]``, reduced.

    Parameters
    ----------
    input : Tensor
        Log-probabilities, shape ``(C,)``, ``(N, C)`` or ``(N, C, d1, ...)``.
    target : Tensor
        int64 class indices, shape ``()``, ``(N,)`` or ``(N, d1, ...)``.
    weight : Tensor, optional
        Per-class weights, shape ``(C,)`` (no gradient).
    size_average, reduce : bool, optional
        Deprecated; use ``reduction``.
    ignore_index : int, optional
        Targets equal to it contribute nothing (default -100).
    reduction : {'mean', 'sum', 'none'}, optional
        ``'mean'`` divides by the summed weights of the non-ignored targets
        (NaN if every target is ignored, as in PyTorch).

    Returns
    -------
    Tensor
        ``grad_fn`` ``NllLossBackward0``.

    Raises
    ------
    RuntimeError
        For non-integer targets, a target of the wrong shape or a weight
        not of shape ``(C,)``.
    ValueError
        For mismatched batch sizes or an unknown ``reduction``.
    IndexError
        For a target outside ``[0, C)`` that is not ``ignore_index``.
    """
    reduction = _reduction(size_average, reduce, reduction)
    x, t = _tensor_arg(input), _tensor_arg(target)
    safe, coef, cdim = _class_targets(x, t, weight, ignore_index)
    return _composite("NllLossBackward0", _nll, [x], x, safe, coef, cdim, reduction)


def cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100,
                  reduce=None, reduction="mean", label_smoothing=0.0):
    """Softmax cross-entropy between logits and class indices or class probabilities.

    Parameters
    ----------
    input : Tensor
        Unnormalized logits, shape ``(C,)``, ``(N, C)`` or ``(N, C, d1, ...)``.
    target : Tensor
        int64 class indices (shape of ``input`` without the class
        dimension), or float class probabilities shaped like ``input``.
    weight : Tensor, optional
        Per-class weights, shape ``(C,)``.
    size_average, reduce : bool, optional
        Deprecated; use ``reduction``.
    ignore_index : int, optional
        For index targets: targets equal to it contribute nothing.
    reduction : {'mean', 'sum', 'none'}, optional
        For index targets the mean divides by the summed weights of the
        non-ignored targets; for probabilities by the batch size.
    label_smoothing : float, optional
        In ``[0, 1]``: mixes the target with the uniform distribution
        (Szegedy et al. 2016, "Rethinking the Inception Architecture").

    Returns
    -------
    Tensor
        For index targets without smoothing: ``nll_loss(log_softmax(input,
        1), target)``, ``grad_fn`` ``NllLossBackward0``.

    Raises
    ------
    RuntimeError, ValueError, IndexError
        As :func:`nll_loss`; ValueError also for ``label_smoothing``
        outside ``[0, 1]``.
    """
    reduction = _reduction(size_average, reduce, reduction)
    if not 0.0 <= label_smoothing <= 1.0:
        raise ValueError(f"label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing}")
    x, t = _tensor_arg(input), _tensor_arg(target)
    cdim = 0 if x.dim() == 1 else 1
    logp = _ops.log_softmax(x, cdim)
    n_classes = x.shape[cdim]
    if t._data.dtype.kind == "f":
        return _soft_cross_entropy(logp, t, weight, reduction, label_smoothing, cdim)
    if label_smoothing == 0:
        return nll_loss(logp, t, weight, None, ignore_index, None, reduction)
    safe, coef, _ = _class_targets(logp, t, weight, ignore_index)
    nll = _composite("NllLossBackward0", _nll, [logp], logp, safe, coef, cdim, reduction)
    terms = logp if weight is None else _ops.mul(logp, _class_shaped(weight, logp.dim(), cdim))
    smooth = _ops.neg(_ops.sum(terms, cdim))
    ignored = t._data == ignore_index
    if ignored.any():
        smooth = _ops.masked_fill(smooth, ignored, 0.0)
    if reduction == "mean":
        smooth = _ops.div(_ops.sum(smooth), float(coef.sum()))
    elif reduction == "sum":
        smooth = _ops.sum(smooth)
    return _ops.add(_ops.mul(nll, 1.0 - label_smoothing),
                    _ops.mul(smooth, label_smoothing / n_classes))


def _class_shaped(weight, ndim, cdim):
    """``weight`` (C,) reshaped to broadcast along the class dimension."""
    return _ops.reshape(weight, *[-1 if i == cdim else 1 for i in range(ndim)])


def _soft_cross_entropy(logp, target, weight, reduction, label_smoothing, cdim):
    if target.shape != logp.shape:
        raise RuntimeError(
            "Expected floating point target to have the same shape as input (class "
            f"probabilities), got target {list(target.shape)} and input {list(logp.shape)}"
        )
    n_classes = logp.shape[cdim]
    if label_smoothing > 0:
        target = _ops.add(_ops.mul(target, 1.0 - label_smoothing), label_smoothing / n_classes)
    terms = _ops.mul(logp, target)
    if weight is not None:
        terms = _ops.mul(terms, _class_shaped(weight, logp.dim(), cdim))
    if reduction == "none":
        return _ops.neg(_ops.sum(terms, cdim))
    total = _ops.neg(_ops.sum(terms))
    if reduction == "sum":
        return total
    return _ops.div(total, logp.numel() // n_classes)


def _clamped_log(fn, v, ok, safe):
    """``max(fn(v), -100)`` where ``ok``, -100 elsewhere; ``fn`` only sees valid
    arguments, so derivatives stay finite where ``v`` hits the edge (0 or 1)."""
    arg = ops.select(ok, v, safe)
    return ops.clip(ops.select(ok, fn(arg), -100.0), -100.0, None)


def _bce(x, y, w, reduction):
    # PyTorch's arrangement (t - 1) * log(1 - x) - t * log(x), logs clamped at -100
    log_x = _clamped_log(ops.log, x, ops.gt(x, 0), 1.0)
    log_1mx = _clamped_log(ops.log1p, ops.neg(x), ops.lt(x, 1), 0.0)
    loss = ops.sub(ops.mul(ops.sub(y, 1.0), log_1mx), ops.mul(y, log_x))
    if w is not None:
        loss = ops.mul(loss, w)
    return _reduce(loss, reduction)


def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None,
                         reduction="mean"):
    """``-(target * log(input) + (1 - target) * log(1 - input))``, reduced.

    Parameters
    ----------
    input : Tensor
        Probabilities in ``[0, 1]``.
    target : Tensor
        Same shape as ``input``.
    weight : Tensor, optional
        Broadcastable to ``input``; multiplies each element's loss.
    size_average, reduce : bool, optional
        Deprecated; use ``reduction``.
    reduction : {'mean', 'sum', 'none'}, optional

    Returns
    -------
    Tensor
        ``grad_fn`` ``BinaryCrossEntropyBackward0``.  Each log is clamped
        below at -100, as PyTorch does, so ``input`` of exactly 0 or 1 gives a
        finite loss (100 where the target disagrees).

    Notes
    -----
    The derivative is that of the clamped formula, ``(x - t) / (x (1 - x))``
    inside ``(0, 1)``.  At ``x`` exactly 0 or 1 it differs from PyTorch's
    hand-written rule ``(x - t) / max(x (1 - x), 1e-12)``: for ``x = 0`` it
    is ``1 - t`` (the derivative of the unclamped ``-(1 - t) log(1 - x)``
    term; PyTorch: ``-t * 1e12``), for ``x = 1`` it is ``-t``, and it also
    differs for ``0 < x (1 - x) < 1e-12`` (PyTorch divides by 1e-12).

    Raises
    ------
    ValueError
        If ``target`` and ``input`` differ in shape, or ``reduction`` is unknown.
    RuntimeError
        If an element of ``input`` is outside ``[0, 1]``.
    """
    reduction = _reduction(size_average, reduce, reduction)
    x, y = _tensor_arg(input), _tensor_arg(target)
    if y.shape != x.shape:
        raise ValueError(
            f"Using a target size ({y.size()}) that is different to the input size "
            f"({x.size()}) is deprecated. Please ensure they have the same size."
        )
    if x._data.size and not ((x._data >= 0) & (x._data <= 1)).all():
        raise RuntimeError("all elements of input should be between 0 and 1")
    w = None
    if weight is not None:
        w = np.broadcast_to(_ops._value(weight), x._data.shape)
    return _composite("BinaryCrossEntropyBackward0", _bce, [x, y], x, y, w, reduction)


def _bce_logits(x, y, w, pos_weight, reduction):
    # (1 - y) x + lw * softplus(-x), with lw = 1 + (pos_weight - 1) y
    sp = _tnn.softplus(ops.neg(x))
    if pos_weight is not None:
        sp = ops.mul(ops.add(1.0, ops.mul(ops.sub(pos_weight, 1.0), y)), sp)
    loss = ops.add(ops.mul(ops.sub(1.0, y), x), sp)
    if w is not None:
        loss = ops.mul(loss, w)
    return _reduce(loss, reduction)


def binary_cross_entropy_with_logits(input, target, weight=None, size_average=None,
                                     reduce=None, reduction="mean", pos_weight=None):
    """Binary cross-entropy of ``sigmoid(input)``, computed stably from the logits.

    Parameters
    ----------
    input : Tensor
        Logits.
    target : Tensor
        Same shape as ``input``, values in ``[0, 1]``.
    weight : Tensor, optional
        Broadcastable to ``input``; multiplies each element's loss.
    size_average, reduce : bool, optional
        Deprecated; use ``reduction``.
    reduction : {'mean', 'sum', 'none'}, optional
    pos_weight : Tensor, optional
        Weight of the positive term, broadcast along the last dimension.

    Returns
    -------
    Tensor
        ``(1 - t) x + (1 + (pos_weight - 1) t) softplus(-x)``, reduced;
        ``grad_fn`` ``BinaryCrossEntropyWithLogitsBackward0``.  Finite for
        logits of any size.

    Raises
    ------
    ValueError
        If ``target`` and ``input`` differ in shape, or ``reduction`` is unknown.
    """
    reduction = _reduction(size_average, reduce, reduction)
    x, y = _tensor_arg(input), _tensor_arg(target)
    if y.shape != x.shape:
        raise ValueError(f"Target size ({y.size()}) must be the same as input size ({x.size()})")
    w = None if weight is None else _ops._value(weight)
    pw = None if pos_weight is None else _ops._value(pos_weight)
    return _composite("BinaryCrossEntropyWithLogitsBackward0", _bce_logits, [x, y], x, y, w,
                      pw, reduction)
