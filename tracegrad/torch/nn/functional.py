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
import warnings

import numpy as np

from ... import nn as _tnn
from ... import numpy as _tnp
from ...primitives import ops
from .. import _creation, _ops
from .._methods import _inplace
from .._ops import _composite, _tensor_arg
from .._tensor import Tensor
from ._functional_loss import *  # noqa: F401,F403,E402  (more losses)
from ._functional_loss import __all__ as _loss_all
from ._functional_norm import *  # noqa: F401,F403,E402  (norms, embeddings, activations)
from ._functional_norm import __all__ as _norm_all
from ._functional_conv import *  # noqa: F401,F403,E402  (convolution, pooling, pad, resampling)
from ._functional_conv import __all__ as _conv_all

__all__ = [
    "linear", "relu", "relu_", "sigmoid", "tanh", "softmax", "log_softmax", "softplus",
    "leaky_relu", "gelu", "silu", "elu", "logsigmoid", "dropout", "one_hot",
    "cross_entropy", "nll_loss", "mse_loss", "l1_loss", "binary_cross_entropy",
    "binary_cross_entropy_with_logits",
]
__all__ += _loss_all
__all__ += _norm_all
__all__ += _conv_all

_C_NAMES = {"float32": "float", "float64": "double", "float16": "c10::Half",
            "int64": "long int", "int32": "int", "bool": "bool"}


_TYPE_NAMES = {"float32": "Float", "float64": "Double", "float16": "Half", "bool": "Bool",
               "int64": "Long", "int32": "Int", "int16": "Short", "int8": "Char",
               "uint8": "Byte"}


def _scalar_type_name(t):
    return _C_NAMES.get(str(t._data.dtype), str(t._data.dtype))


# --------------------------------------------------------------------------
# linear


def _check_expand(shape, target):
    """PyTorch's errors for ``expand`` of a tensor of ``shape`` to ``target``."""
    if len(shape) > len(target):
        raise RuntimeError(
            f"expand(torch.FloatTensor{{{list(shape)}}}, size={list(target)}): the number of "
            f"sizes provided ({len(target)}) must be greater or equal to the number of "
            f"dimensions in the tensor ({len(shape)})"
        )
    for k in range(1, len(shape) + 1):  # PyTorch checks from the last dimension
        if shape[-k] != target[-k] and shape[-k] != 1:
            raise RuntimeError(
                f"The expanded size of the tensor ({target[-k]}) must match the existing size "
                f"({shape[-k]}) at non-singleton dimension {len(target) - k}.  Target sizes: "
                f"{list(target)}.  Tensor sizes: {list(shape)}"
            )


def _broadcast_shape(a, b):
    """The broadcast of shapes ``a`` and ``b``, with PyTorch's error when they do not."""
    n = max(len(a), len(b))
    out = []
    for k in range(n, 0, -1):
        sa = a[-k] if k <= len(a) else 1
        sb = b[-k] if k <= len(b) else 1
        if sa != sb and sa != 1 and sb != 1:
            raise RuntimeError(
                f"The size of tensor a ({sa}) must match the size of tensor b ({sb}) at "
                f"non-singleton dimension {n - k}"
            )
        out.append(sa if sb == 1 else sb)
    return tuple(out)


def _type_name(t):
    return _TYPE_NAMES.get(str(t._data.dtype), str(t._data.dtype))


def _linear_matmul(x, wt):
    """``x @ wt`` with the graph and errors of PyTorch's ``matmul`` for ``linear``."""
    xd, wd = x._data.ndim, wt._data.ndim
    k = x._data.shape[-1]
    rows = x._data.size // k if k else int(np.prod(x._data.shape[:-1]))
    if wd == 1:  # a 1-D weight: dot or matrix-vector product
        if xd == 1:
            if x._data.dtype != wt._data.dtype:
                raise RuntimeError("dot : expected both vectors to have same dtype, but found "
                                   f"{_type_name(x)} and {_type_name(wt)}")
            if wt._data.shape[0] != k:
                raise RuntimeError(
                    f"inconsistent tensor size, expected tensor [{k}] and src "
                    f"[{wt._data.shape[0]}] to have the same number of elements, but got {k} and "
                    f"{wt._data.shape[0]} elements respectively"
                )
            return _ops.matmul(x, wt)
        if x._data.dtype != wt._data.dtype:
            raise RuntimeError(
                f"addmv input tensors must have the same dtype, but got {_type_name(wt)}, "
                f"{_type_name(x)}, and {_type_name(wt)}"
            )
        if wt._data.shape[0] != k:
            raise RuntimeError(f"size mismatch, got input ({rows}), mat ({rows}x{k}), vec "
                               f"({wt._data.shape[0]})")
        if xd == 2:
            return _ops.matmul(x, wt)
        out = _ops.matmul(_ops.reshape(x, rows, k), wt)
        return _composite("UnsafeViewBackward0", ops.reshape, [out], out, x._data.shape[:-1])
    if x._data.dtype != wt._data.dtype:
        raise RuntimeError(
            f"expected m1 and m2 to have the same dtype, but got: {_scalar_type_name(x)} != "
            f"{_scalar_type_name(wt)}"
        )
    if wt._data.shape[0] != k:
        raise RuntimeError(
            f"mat1 and mat2 shapes cannot be multiplied ({rows}x{k} and "
            f"{wt._data.shape[0]}x{wt._data.shape[1]})"
        )
    if xd == 2:
        return _ops.matmul(x, wt)
    n_out = wt._data.shape[1]
    if xd == 1:
        out = _ops.matmul(_ops.unsqueeze(x, 0), wt)
        return _composite("SqueezeBackward4", ops.reshape, [out], out, (n_out,))
    out = _ops.matmul(_ops.reshape(x, rows, k), wt)
    return _composite("UnsafeViewBackward0", ops.reshape, [out], out,
                      x._data.shape[:-1] + (n_out,))


def linear(input, weight, bias=None):
    """``input @ weight.T + bias``: a fully connected layer.

    Parameters
    ----------
    input : Tensor
        Shape ``(*, in_features)``, at least 1-D.
    weight : Tensor
        Shape ``(out_features, in_features)`` (or ``(in_features,)``: one
        output, the last dimension dropped).
    bias : Tensor, optional
        Shape ``(out_features,)`` (anything that broadcasts to the output).

    Returns
    -------
    Tensor
        Shape ``(*, out_features)``.  The graph is PyTorch's: a 2-D input
        with a bias gives ``AddmmBackward0`` (inputs: the bias, the input and
        ``weight.t()``); other ranks, with a bias of one non-trivial
        dimension, fold the input to 2-D (``ViewBackward0`` after
        ``AddmmBackward0``); without a bias the product is ``MmBackward0``
        (``UnsafeViewBackward0`` or ``SqueezeBackward4`` around it for other
        ranks, ``MvBackward0`` or ``DotBackward0`` for a 1-D weight), and
        other biases are added after it (``AddBackward0``).

    Raises
    ------
    RuntimeError
        With PyTorch's messages: a 0-D operand, ``input``, ``weight`` and
        ``bias`` of different dtypes, ``in_features`` that do not match, a
        bias that does not broadcast to the output, a weight of more than 2
        dimensions, or a 1-D weight with a 1-D bias.
    """
    x, w = _tensor_arg(input), _tensor_arg(weight)
    b = None if bias is None else _tensor_arg(bias)
    xd, wd = x._data.ndim, w._data.ndim
    if xd == 0 or wd == 0:
        raise RuntimeError(
            f"both arguments to linear need to be at least 1D, but they are {xd}D and {wd}D"
        )
    wt = _ops.t(w)
    # PyTorch's fused path (addmm of the input folded to 2-D, viewed back) for a
    # 2-D input, or a bias with one non-trivial dimension and a contiguous input
    fused = b is not None and (xd == 2 or (
        sum(n != 1 for n in b._data.shape) == 1 or b._data.ndim == 1)
        and (type(x._data) is not np.ndarray or x._data.flags.c_contiguous))
    if not fused:
        out = _linear_matmul(x, wt)
        return out if b is None else _ops.add(out, b)
    if wd != 2:
        raise RuntimeError(f"mat2 must be a matrix, got {wd}-D tensor")
    lead = x._data.shape[:-1]
    k = x._data.shape[-1]
    rows = int(np.prod(lead))
    x2 = x if xd == 2 else _ops.reshape(x, rows, k)
    if b._data.dtype != w._data.dtype:
        raise RuntimeError(f"self and mat2 must have the same dtype, but got {_type_name(b)} "
                           f"and {_type_name(w)}")
    if x._data.dtype != w._data.dtype:
        raise RuntimeError(f"mat1 and mat2 must have the same dtype, but got {_type_name(x)} "
                           f"and {_type_name(w)}")
    out_f = w._data.shape[0]
    if w._data.shape[1] != k:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({rows}x{k} and "
                           f"{w._data.shape[1]}x{out_f})")
    _check_expand(b._data.shape, (rows, out_f))
    out = _ops.addmm(b, x2, wt)
    return out if xd == 2 else _ops.view(out, *lead, out_f)


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
    """In-place :func:`relu`.

    Parameters
    ----------
    input : Tensor

    Returns
    -------
    Tensor
        ``input`` itself, rectified.
    """
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

    Raises
    ------
    NotImplementedError
        For an integer or bool ``input`` (PyTorch's message).
    """
    x = _floating(input, "softplus_cpu")
    return _composite("SoftplusBackward0", _softplus, [x], x, beta, threshold)


def _floating(input, kernel):
    """``input`` as a tensor; PyTorch's NotImplementedError if it is not floating point."""
    x = _tensor_arg(input)
    if x._data.dtype.kind not in "fc":
        raise NotImplementedError(f'"{kernel}" not implemented for \'{_type_name(x)}\'')
    return x


def _activation(name, fn, input, inplace, kernel, inplace_name=None):
    """``fn(input)`` recorded as ``name``; with ``inplace``, written into ``input``.

    ``kernel`` is PyTorch's kernel name, for the error on non-float inputs.
    """
    x = _floating(input, kernel)
    if inplace:
        return _inplace(x, lambda s: _composite(inplace_name or name, fn, [s], s),
                        name=inplace_name or name)
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

    Raises
    ------
    NotImplementedError
        For an integer or bool ``input`` (PyTorch's message).
    """
    def fn(x):
        return ops.select(ops.gt(x, 0), x, ops.mul(x, negative_slope))

    return _activation("LeakyReluBackward0", fn, input, inplace, "leaky_relu_cpu",
                       "LeakyReluBackward1")


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
    NotImplementedError
        For an integer or bool ``input`` (PyTorch's message).
    """
    if approximate not in ("none", "tanh"):
        raise RuntimeError("approximate argument must be either none or tanh.")
    return _activation("GeluBackward0",
                       lambda x: ops.gelu(x, approximate=approximate == "tanh"), input, False,
                       "GeluKernelImpl")


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

    Raises
    ------
    NotImplementedError
        For an integer or bool ``input`` (PyTorch's message).
    """
    return _activation("SiluBackward0", _tnn.silu, input, inplace, "silu_cpu")


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

    Raises
    ------
    NotImplementedError
        For an integer or bool ``input`` (PyTorch's message).
    """
    return _activation("EluBackward0", lambda x: _tnn.elu(x, alpha), input, inplace, "elu_cpu",
                       "EluBackward1")


def logsigmoid(input):
    """``log(sigmoid(input))``, computed stably.

    Parameters
    ----------
    input : Tensor

    Returns
    -------
    Tensor
        ``grad_fn`` ``LogSigmoidBackward0``; ``+0.0`` (not ``-0.0``) for large
        inputs, as PyTorch.

    Raises
    ------
    NotImplementedError
        For an integer or bool ``input`` (PyTorch's message).
    """
    return _activation("LogSigmoidBackward0", _log_sigmoid, input, False, "log_sigmoid_cpu")


def _log_sigmoid(x):
    # 0 - softplus(-x): +0.0 (not -0.0) for large x, as PyTorch prints it
    return ops.sub(0.0, _tnn.softplus(ops.neg(x)))


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


def _reduction(size_average, reduce, reduction, check=True):
    """The ``reduction`` string, from the legacy ``size_average``/``reduce`` if given.

    ``check=False`` leaves an unknown string to be reported later (the
    weighted losses report it after their other checks, as PyTorch does).
    """
    if size_average is not None or reduce is not None:
        size_average = True if size_average is None else size_average
        reduce = True if reduce is None else reduce
        reduction = "mean" if (size_average and reduce) else "sum" if reduce else "none"
        warnings.warn(
            f"size_average and reduce args will be deprecated, please use "
            f"reduction='{reduction}' instead.", UserWarning, stacklevel=3,
        )
    if check and reduction not in ("none", "mean", "sum"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return reduction


def _reduce(loss, reduction):
    """Apply ``reduction`` to an elementwise loss (primitives, inside a composite)."""
    if reduction == "mean":
        return _tnp.mean(loss)
    if reduction == "sum":
        return ops.reduce_sum(loss, tuple(range(loss.ndim)))
    return loss


def _scalar_op(name, fn, x, scalar):
    """``fn(x, scalar)`` recorded as PyTorch's Scalar overload (one edge: ``MulBackward1``)."""
    return _composite(name, fn, [x], x, scalar)


def _warn_target_size(input, target):
    if target.shape != input.shape:
        warnings.warn(
            f"Using a target size ({target.size()}) that is different to the input size "
            f"({input.size()}). This will likely lead to incorrect results due to "
            "broadcasting. Please ensure they have the same size.",
            UserWarning, stacklevel=3,
        )


def _broadcast_pair(x, y):
    """``torch.broadcast_tensors(x, y)``: whichever differs from the common shape is expanded."""
    shape = _broadcast_shape(x._data.shape, y._data.shape)
    if x._data.shape != shape:
        x = _ops.expand(x, *shape)
    if y._data.shape != shape:
        y = _ops.expand(y, *shape)
    return x, y


def _weighted(loss, weight, reduction, input):
    """PyTorch's elementwise-weighted reduction: ``sum(w * l) / sum(w)`` for the mean."""
    if weight.shape != input.shape:
        raise ValueError("Weights and input must have the same size.")
    loss = _ops.mul(loss, weight)
    if reduction == "none":
        return loss
    if reduction == "sum":
        return _ops.sum(loss)
    if reduction == "mean":
        return _ops.div(_ops.sum(loss), weight.sum())
    raise ValueError(
        f"Invalid reduction mode: {reduction}. Expected one of 'none', 'mean', 'sum'."
    )


def mse_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    """Mean squared error ``(input - target) ** 2``, reduced.

    Parameters
    ----------
    input, target : Tensor
        Broadcastable (a shape mismatch warns, as in PyTorch; the one that
        differs from the common shape is expanded, ``ExpandBackward0``).
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
    RuntimeError
        If ``input`` and ``target`` do not broadcast (PyTorch's message).
    """
    x, y = _tensor_arg(input), _tensor_arg(target)
    _warn_target_size(x, y)
    reduction = _reduction(size_average, reduce, reduction, check=weight is None)
    xe, ye = _broadcast_pair(x, y)
    if weight is not None:
        return _weighted(_ops.pow(_ops.sub(xe, ye), 2), weight, reduction, x)

    def fn():
        return _reduce(ops.integer_pow(_ops.sub(xe, ye), 2), reduction)

    return _composite("MseLossBackward0", fn, [xe, ye])


def l1_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    """Mean absolute error ``|input - target|``, reduced.

    Parameters
    ----------
    input, target : Tensor
        Broadcastable (a shape mismatch warns, as in PyTorch).
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
    RuntimeError
        If ``input`` and ``target`` do not broadcast (PyTorch's message).
    """
    x, y = _tensor_arg(input), _tensor_arg(target)
    _warn_target_size(x, y)
    reduction = _reduction(size_average, reduce, reduction, check=weight is None)
    xe, ye = _broadcast_pair(x, y)
    loss = _ops.abs(_ops.sub(xe, ye))
    if weight is not None:
        return _weighted(loss, weight, reduction, x)
    if reduction == "mean":
        return _ops.mean(loss)
    return _ops.sum(loss) if reduction == "sum" else loss


def _check_nll_operands(x, t, weight):
    """PyTorch's checks of an NLL loss's input, target and weight, in its order."""
    xs, ts = x._data.shape, t._data.shape
    nd = len(xs)
    if nd < 1:
        raise ValueError(f"Expected 1 or more dimensions (got {nd})")
    if nd != 1 and (ts[0] if ts else 0) != xs[0]:
        raise ValueError(
            f"Expected input batch_size ({xs[0]}) to match target batch_size "
            f"({ts[0] if ts else 0})."
        )
    if nd > 2 and ts[1:] != xs[2:]:
        raise RuntimeError(f"Expected target size {[xs[0], *xs[2:]]}, got {list(ts)}")
    if nd <= 2 and len(ts) > 1:
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    if nd == 1 and len(ts) == 1 and ts[0] != 1:
        raise ValueError(f"For 1D input, 1D target must have size 1, but got target size: {ts[0]}")
    tdt = t._data.dtype
    if nd > 2 and tdt == np.uint8:
        raise RuntimeError("expected scalar type Long but found Byte")
    if tdt not in (np.int64, np.uint8):
        raise RuntimeError(f"expected target dtype to be Long or Byte, but got {_type_name(t)}")
    if weight is None:
        return None
    w = _tensor_arg(weight)
    if w._data.dtype != x._data.dtype:
        raise RuntimeError(f"expected scalar type {_type_name(x)} but found {_type_name(w)}")
    n_classes = xs[0 if nd == 1 else 1]
    if w._data.shape != (n_classes,):
        if nd > 2:
            raise RuntimeError("weight tensor should be defined either for all or no classes")
        raise RuntimeError(
            f"weight tensor should be defined either for all {n_classes} classes or no "
            f"classes but got weight tensor of shape: {list(w._data.shape)}"
        )
    return w._data


def _class_targets(x, t, weight, ignore_index):
    """Checked class indices of an NLL loss and their coefficients.

    Returns ``(safe, coef)``: the targets (shaped like the loss) with ignored
    entries set to class 0, and ``weight[target]`` (1 without weights),
    zero at ignored entries, in the input's dtype.
    """
    w = _check_nll_operands(x, t, weight)
    if type(t._data) is not np.ndarray:
        return _traced_class_targets(x, t, w, ignore_index)
    tv = t._data.reshape(()) if x._data.ndim == 1 else t._data
    n_classes = x._data.shape[0 if x._data.ndim == 1 else 1]
    valid = tv != ignore_index
    bad = valid & ((tv < 0) | (tv >= n_classes))
    if bad.any():
        raise IndexError(f"Target {int(tv[bad].flat[0])} is out of bounds.")
    safe = np.where(valid, tv, 0).astype(np.intp)
    dt = x._data.dtype
    coef = valid.astype(dt) if w is None else np.where(valid, w[safe], 0).astype(dt)
    return safe, coef


def _traced_class_targets(x, t, w, ignore_index):
    """:func:`_class_targets` for targets that are a transform's tracers
    (``torch.func.vmap`` over labels): the same arithmetic with
    ``tracegrad.numpy``; out-of-range targets are not checked (their values
    differ per example)."""
    tv = _tnp.reshape(t._data, ()) if x._data.ndim == 1 else t._data
    valid = _tnp.not_equal(tv, ignore_index)
    safe = _tnp.where(valid, tv, 0)
    dt = x._data.dtype
    if w is None:
        coef = ops.convert_element_type(valid, dt)
    else:
        coef = ops.convert_element_type(_tnp.where(valid, _tnp.take(w, safe), 0), dt)
    # as tensors: one operation must not mix a transform's raw tracer with a
    # tensor holding another one of its tracers (the input)
    return Tensor._wrap(safe), Tensor._wrap(coef)


def _nll(x, safe, coef, cdim, reduction):
    if cdim == 1 and x.ndim == 2 and type(safe) is np.ndarray:
        # the gather take_along_axis binds (rows of the flattened input),
        # without its general indexing machinery: the common (N, C) case
        n, c = x.shape
        lin = np.arange(0, n * c, c, dtype=np.intp)[:, None] + safe[:, None]
        picked = ops.gather(ops.reshape(x, (n * c,)), lin, 0)
    else:
        picked = _tnp.take_along_axis(x, _tnp.expand_dims(safe, cdim), axis=cdim)
    picked = ops.reshape(picked, safe.shape)
    loss = ops.neg(ops.mul(picked, coef))
    if reduction == "none":
        return loss
    total = ops.reduce_sum(loss, tuple(range(loss.ndim)))
    if reduction == "sum":
        return total
    if not isinstance(coef, np.ndarray):  # traced targets: 0/0 gives PyTorch's NaN
        return ops.div(total, ops.reduce_sum(coef, tuple(range(coef.ndim))))
    denom = coef.sum()
    if denom == 0:
        # every target ignored: PyTorch's 0/0 is NaN, with a zero gradient
        return ops.add(total, np.asarray(np.nan, coef.dtype))
    return ops.div(total, np.asarray(denom, dtype=coef.dtype))


def nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
             reduction="mean"):
    """Negative log-likelihood of class indices: ``-weight[t] * input[n, t]``, reduced.

    Parameters
    ----------
    input : Tensor
        Log-probabilities, shape ``(C,)``, ``(N, C)`` or ``(N, C, d1, ...)``.
    target : Tensor
        int64 (or uint8) class indices, shape ``()``, ``(N,)`` or
        ``(N, d1, ...)``.
    weight : Tensor, optional
        Per-class weights, shape ``(C,)``, of the input's dtype (no gradient).
    size_average, reduce : bool, optional
        Deprecated; use ``reduction``.
    ignore_index : int, optional
        Targets equal to it contribute nothing (default -100).
    reduction : {'mean', 'sum', 'none'}, optional
        ``'mean'`` divides by the summed weights of the non-ignored targets
        (NaN, with a zero gradient, if every target is ignored, as in
        PyTorch).

    Returns
    -------
    Tensor
        ``grad_fn`` ``NllLossBackward0`` for 1-D and 2-D inputs,
        ``NllLoss2DBackward0`` for more dimensions (PyTorch folds other ranks
        to 4-D, ``ViewBackward0``, and views ``'none'`` results back).

    Raises
    ------
    RuntimeError
        With PyTorch's messages: a target that is not int64/uint8 or of the
        wrong shape, a weight not of shape ``(C,)`` or of another dtype.
    ValueError
        For mismatched batch sizes, a 0-D input or an unknown ``reduction``.
    IndexError
        For a target outside ``[0, C)`` that is not ``ignore_index``.
    """
    reduction = _reduction(size_average, reduce, reduction)
    x, t = _tensor_arg(input), _tensor_arg(target)
    safe, coef = _class_targets(x, t, weight, ignore_index)
    nd = x._data.ndim
    if nd <= 2:
        return _composite("NllLossBackward0", _nll, [x], x, safe, coef, 0 if nd == 1 else 1,
                          reduction)
    shape = x._data.shape
    if nd != 4:  # PyTorch's nll_loss_nd folds the spatial dimensions into one
        rest = int(np.prod(shape[2:]))
        x = _ops.view(x, shape[0], shape[1], 1 if rest else 0, rest)
        safe = safe.reshape(x._data.shape[:1] + x._data.shape[2:])
        coef = coef.reshape(safe.shape)
    out = _composite("NllLoss2DBackward0", _nll, [x], x, safe, coef, 1, reduction)
    if reduction == "none" and nd != 4:
        out = _ops.view(out, shape[0], *shape[2:])
    return out


def cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100,
                  reduce=None, reduction="mean", label_smoothing=0.0):
    """Softmax cross-entropy between logits and class indices or class probabilities.

    Parameters
    ----------
    input : Tensor
        Unnormalized logits, shape ``(C,)``, ``(N, C)`` or ``(N, C, d1, ...)``.
    target : Tensor
        Class probabilities (floating point) when shaped like ``input``,
        otherwise int64 class indices (the shape of ``input`` without the
        class dimension), as PyTorch decides.
    weight : Tensor, optional
        Per-class weights, shape ``(C,)``.
    size_average, reduce : bool, optional
        Deprecated; use ``reduction``.
    ignore_index : int, optional
        For index targets: targets equal to it contribute nothing.  Must be
        negative for probability targets.
    reduction : {'mean', 'sum', 'none'}, optional
        For index targets the mean divides by the summed weights of the
        non-ignored targets; for probabilities by the number of samples
        (``input.numel() // C``; NaN for an empty batch).
    label_smoothing : float, optional
        At most 1; mixes the target with the uniform distribution (Szegedy et
        al. 2016, "Rethinking the Inception Architecture").  Values <= 0 mean
        no smoothing.

    Returns
    -------
    Tensor
        For index targets without smoothing: ``nll_loss(log_softmax(input,
        1), target)``, ``grad_fn`` ``NllLossBackward0``.  With smoothing or
        probabilities, PyTorch's composition (``AddBackward0``,
        ``MulBackward1``, ``DivBackward1``, ...).

    Raises
    ------
    RuntimeError
        As :func:`nll_loss`; for non-float probability targets, a
        non-negative ``ignore_index`` with probabilities, a weight not of
        shape ``(C,)`` and ``label_smoothing`` above 1.
    ValueError, IndexError
        As :func:`nll_loss`.
    """
    reduction = _reduction(size_average, reduce, reduction)
    x, t = _tensor_arg(input), _tensor_arg(target)
    cdim = 0 if x.dim() == 1 else 1
    if x._data.shape == t._data.shape:
        return _soft_cross_entropy(x, t, weight, ignore_index, reduction, label_smoothing, cdim)
    if label_smoothing <= 0:
        return nll_loss(_ops.log_softmax(x, cdim), t, weight, None, ignore_index, None,
                        reduction)
    _check_smoothing(label_smoothing)
    logp = _ops.log_softmax(x, cdim)
    nll = nll_loss(logp, t, weight, None, ignore_index, None, reduction)
    safe, coef = _class_targets(logp, t, weight, ignore_index)
    terms = logp if weight is None else _ops.mul(logp, _class_shaped(weight, logp.dim(), cdim))
    ignored = t._data.reshape(safe.shape) == ignore_index
    smooth = _ops.masked_fill(_ops.neg(_ops.sum(terms, cdim)), ignored, 0.0)
    if reduction == "mean":
        smooth = _ops.div(_ops.sum(smooth), Tensor._wrap(np.asarray(coef.sum(), coef.dtype)))
    elif reduction == "sum":
        smooth = _ops.sum(smooth)
    n_classes = x.shape[cdim]
    return _ops.add(_scalar_op("MulBackward1", ops.mul, nll, 1.0 - label_smoothing),
                    _scalar_op("MulBackward1", ops.mul, smooth, label_smoothing / n_classes))


def _check_smoothing(label_smoothing):
    if label_smoothing > 1.0:
        raise RuntimeError(
            f"label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing}"
        )


def _class_shaped(weight, ndim, cdim):
    """``weight`` (C,) viewed to broadcast along the class dimension."""
    if ndim <= 1:
        return weight
    return _ops.view(weight, *[-1 if i == cdim else 1 for i in range(ndim)])


def _soft_cross_entropy(x, target, weight, ignore_index, reduction, label_smoothing, cdim):
    if target._data.dtype.kind != "f":
        raise RuntimeError("Expected floating point type for target with class probabilities, "
                           f"got {_type_name(target)}")
    if ignore_index >= 0:
        raise RuntimeError("ignore_index is not supported for floating point target")
    n_classes = x._data.shape[cdim] if x._data.ndim else 1
    if weight is not None and tuple(weight.shape) != (n_classes,):
        raise RuntimeError(
            f"cross_entropy: weight tensor should be defined either for all {n_classes} classes "
            f"or no classes but got weight tensor of shape: {list(weight.shape)}"
        )
    logp = _ops.log_softmax(x, cdim)
    if label_smoothing > 0:
        _check_smoothing(label_smoothing)
        target = _scalar_op("AddBackward1", ops.add,
                            _scalar_op("MulBackward1", ops.mul, target, 1.0 - label_smoothing),
                            label_smoothing / n_classes)
    terms = _ops.mul(logp, target)
    if weight is not None:
        terms = _ops.mul(terms, _class_shaped(weight, logp.dim(), cdim))
    if reduction == "none":
        return _ops.neg(_ops.sum(terms, cdim))
    total = _ops.sum(terms)
    if reduction == "sum":
        return _ops.neg(total)
    if logp.numel() == 0:  # PyTorch fills the empty sum with NaN
        nan = np.asarray(np.nan, total._data.dtype)
        filled = _composite("FillBackward2", lambda: ops.add(ops.mul(total, 0.0), nan), [total])
        return _ops.neg(filled)
    return _scalar_op("DivBackward1", ops.div, _ops.neg(total), logp.numel() // n_classes)


def _check_bce_weight(weight_shape, shape):
    """PyTorch's error for a BCE ``weight`` that does not broadcast to the input."""
    for k in range(1, len(weight_shape) + 1):
        ws, ts = weight_shape[-k], (shape[-k] if k <= len(shape) else 1)
        if ws != ts and ws != 1 and ts != 1:
            raise RuntimeError(
                f"Attempting to broadcast a dimension of length {ws} at -{k}! Mismatching "
                f"argument at index 1 had torch.Size({list(weight_shape)}); but expected shape "
                f"should be broadcastable to {list(shape)}"
            )


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
        If an element of ``input`` is outside ``[0, 1]``, ``target`` has
        another dtype or ``weight`` does not broadcast (PyTorch's messages).
    """
    reduction = _reduction(size_average, reduce, reduction)
    x, y = _tensor_arg(input), _tensor_arg(target)
    if y.shape != x.shape:
        raise ValueError(
            f"Using a target size ({y.size()}) that is different to the input size "
            f"({x.size()}) is deprecated. Please ensure they have the same size."
        )
    w = None
    if weight is not None:
        w = np.asarray(_ops._value(weight))
        _check_bce_weight(w.shape, x._data.shape)
        w = np.broadcast_to(w.astype(x._data.dtype), x._data.shape)
    if y._data.dtype != x._data.dtype:
        raise RuntimeError(f"Found dtype {_type_name(y)} but expected {_type_name(x)}")
    if x._data.size and not ((x._data >= 0) & (x._data <= 1)).all():
        raise RuntimeError("all elements of input should be between 0 and 1")
    return _composite("BinaryCrossEntropyBackward0", _bce, [x, y], x, y, w, reduction)


def _bce_logits(x, y, w, pos_weight, reduction):
    # (1 - y) x + lw * softplus(-x), with lw = 1 + (pos_weight - 1) y
    sp = _tnn.softplus(ops.neg(x))
    if pos_weight is not None:
        sp = ops.mul(ops.add(1.0, ops.mul(ops.sub(pos_weight, 1.0), y)), sp)
    loss = ops.add(ops.mul(ops.sub(1.0, y), x), sp)
    if loss.dtype != y.dtype:  # PyTorch accumulates into (1 - target): its dtype wins
        loss = ops.convert_element_type(loss, y.dtype)
    if w is not None:
        loss = ops.mul(loss, w)
    return _reduce(loss, reduction)


def _check_in_place_broadcast(a, b, out_shape):
    """PyTorch's errors when ``b`` multiplies a tensor of shape ``out_shape`` in place."""
    shape = _broadcast_shape(a, b)
    if shape != tuple(out_shape):
        raise RuntimeError(f"output with shape {list(out_shape)} doesn't match the broadcast "
                           f"shape {list(shape)}")


def binary_cross_entropy_with_logits(input, target, weight=None, size_average=None,
                                     reduce=None, reduction="mean", pos_weight=None):
    """Binary cross-entropy of ``sigmoid(input)``, computed stably from the logits.

    Parameters
    ----------
    input : Tensor
        Logits.
    target : Tensor
        Same shape as ``input``, floating point, values in ``[0, 1]``.
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
        logits of any size (``±1000`` included).

    Raises
    ------
    ValueError
        If ``target`` and ``input`` differ in shape, or ``reduction`` is unknown.
    RuntimeError
        For an integer ``target``, or a ``weight``/``pos_weight`` that does not
        broadcast to the input (PyTorch's messages).
    """
    reduction = _reduction(size_average, reduce, reduction)
    x, y = _tensor_arg(input), _tensor_arg(target)
    if y.shape != x.shape:
        raise ValueError(f"Target size ({y.size()}) must be the same as input size ({x.size()})")
    if y._data.dtype.kind != "f":
        raise RuntimeError(f"result type {_type_name(x)} can't be cast to the desired output "
                           f"type {_type_name(y)}")
    dt = y._data.dtype  # the result's dtype (PyTorch's in-place accumulation)
    w = None if weight is None else np.asarray(_ops._value(weight))
    pw = None if pos_weight is None else np.asarray(_ops._value(pos_weight))
    if pw is not None:
        _check_in_place_broadcast(pw.shape, y._data.shape, x._data.shape)
        pw = pw.astype(dt)
    if w is not None:
        _check_in_place_broadcast(x._data.shape, w.shape, x._data.shape)
        w = w.astype(dt)
    return _composite("BinaryCrossEntropyWithLogitsBackward0", _bce_logits, [x, y], x, y, w,
                      pw, reduction)


# Attention last: it is built on linear and dropout above (imported from this module).
from ._functional_attention import *  # noqa: F401,F403,E402
from ._functional_attention import __all__ as _attn_all  # noqa: E402

__all__ += _attn_all
