"""Convolution, pooling, padding and resampling functions of ``nn.functional``.

Everything here is made of the ``im2col``/``col2im`` primitives
(:mod:`tracegrad.primitives.conv`), ``matmul`` and elementwise primitives,
so every derivative (of any order, under ``torch.func`` transforms too)
comes from their rules:

* ``conv{1,2,3}d``: ``weight @ im2col(input)`` per example and group;
  ``conv_transpose{1,2,3}d``: ``col2im(weight^T @ input)``, the exact
  transpose;
* ``max_pool*``: the first maximum of each window (``argmax`` of the
  columns, so ties and NaN behave as PyTorch's: the first maximal or NaN
  element gets the gradient); ``avg_pool*``: window sums over PyTorch's
  divisor (``count_include_pad``, ``ceil_mode``, ``divisor_override``);
* ``adaptive_avg_pool*`` and ``interpolate`` (``linear``, ``bilinear``,
  ``trilinear``, ``nearest``, ``nearest-exact``): one small averaging or
  interpolation matrix per spatial axis applied with ``matmul`` (both are
  separable), which is exact and needs no windows;
* ``pad`` (constant, reflect, replicate, circular), ``unfold``/``fold``,
  ``pixel_shuffle``/``pixel_unshuffle``, and the channel dropouts.

Each records one node under PyTorch's ``grad_fn`` name
(``ConvolutionBackward0``, ``MaxPool2DWithIndicesBackward0``, ...).
"""
import math

import numpy as np

from ...primitives import ops
from ...primitives.conv import conv_output_shape
from .. import _creation, _ops
from .._ops import _composite, _tensor_arg
from .._tensor import Tensor

__all__ = [
    "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d",
    "max_pool1d", "max_pool2d", "max_pool3d", "avg_pool1d", "avg_pool2d", "avg_pool3d",
    "adaptive_avg_pool1d", "adaptive_avg_pool2d", "adaptive_avg_pool3d",
    "adaptive_max_pool1d", "adaptive_max_pool2d", "lp_pool1d", "lp_pool2d", "unfold", "fold",
    "pad", "interpolate", "upsample", "pixel_shuffle", "pixel_unshuffle", "dropout1d",
    "dropout2d", "dropout3d", "alpha_dropout",
]

_TYPE_NAMES = {"float32": "float", "float64": "double", "float16": "c10::Half"}
_SCALAR_NAMES = {"float32": "Float", "float64": "Double", "float16": "Half"}


def _ntuple(v, n, name="argument"):
    if isinstance(v, (int, np.integer)):
        return (int(v),) * n
    v = tuple(int(a) for a in v)
    if len(v) == 1 and n > 1:
        return v * n
    if len(v) != n:
        raise RuntimeError(f"{name} must have {n} elements, got {list(v)}")
    return v


def _unbatch(t, unbatched, dim=0):
    """``t`` without the batch axis :func:`_batched` added (``SqueezeBackward1``)."""
    return _ops.squeeze(t, dim) if unbatched else t


def _lift(x, unbatched):
    """Inside a composite: ``x`` with a batch axis of 1 when it had none."""
    return ops.reshape(x, (1,) + tuple(x.shape)) if unbatched else x


def _drop(res, unbatched):
    """Inside a composite: ``res`` without the batch axis :func:`_lift` added."""
    return ops.reshape(res, tuple(res.shape)[1:]) if unbatched else res


def _batched(x, n, name):
    """``x`` with a batch axis (unbatched ``(C, S...)`` inputs get one) and
    whether one was added."""
    nd = x.dim()
    if nd == n + 1:
        return _ops.unsqueeze(x, 0), True
    if nd != n + 2:
        raise RuntimeError(
            f"Expected {n + 1}D (unbatched) or {n + 2}D (batched) input to {name}, but got "
            f"input of size: {list(x.shape)}"
        )
    return x, False


# --------------------------------------------------------------------------
# convolution


def _conv_padding(padding, n, kernel, dilation, stride):
    if isinstance(padding, str):
        if padding == "valid":
            return ((0, 0),) * n
        if padding != "same":
            raise RuntimeError(f"Invalid padding string: '{padding}'")
        if any(s != 1 for s in stride):
            raise RuntimeError("padding='same' is not supported for strided convolutions")
        pads = []
        for k, d in zip(kernel, dilation):  # the extra element of an even kernel goes after
            total = d * (k - 1)
            pads.append((total // 2, total - total // 2))
        return tuple(pads)
    p = _ntuple(padding, n, "padding")
    if any(v < 0 for v in p):
        raise RuntimeError("negative padding is not supported")
    return tuple((v, v) for v in p)


def _check_conv(name, x, w, b, groups, stride, transposed=False):
    n = w.dim() - 2
    if w.dim() != x.dim():
        raise RuntimeError(
            f"weight should have at least three dimensions" if w.dim() < 3 else
            f"Expected {w.dim() - 1}D (unbatched) or {w.dim()}D (batched) input to {name}, "
            f"but got input of size: {list(x.shape)}"
        )
    if x._data.dtype != w._data.dtype:
        raise RuntimeError(f"expected scalar type {_SCALAR_NAMES.get(str(x._data.dtype))} but "
                           f"found {_SCALAR_NAMES.get(str(w._data.dtype))}")
    if b is not None and b._data.dtype != x._data.dtype:
        raise RuntimeError(
            f"Input type ({_TYPE_NAMES.get(str(x._data.dtype), x._data.dtype)}) and bias type "
            f"({_TYPE_NAMES.get(str(b._data.dtype), b._data.dtype)}) should be the same")
    if any(s <= 0 for s in stride):
        raise RuntimeError("non-positive stride is not supported")
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    c = x.shape[1]
    ws = list(w.shape)
    if transposed:
        if c != ws[0]:
            raise RuntimeError(
                f"Given transposed=1, weight of size {ws}, expected input{list(x.shape)} to "
                f"have {ws[0]} channels, but got {c} channels instead")
        out_c = ws[1] * groups
    else:
        if c != ws[1] * groups:
            raise RuntimeError(
                f"Given groups={groups}, weight of size {ws}, expected input{list(x.shape)} to "
                f"have {ws[1] * groups} channels, but got {c} channels instead")
        if ws[0] % groups:
            raise RuntimeError(f"Given groups={groups}, expected weight to be divisible by "
                               f"{groups} at dimension 0, but got weight of size {ws} instead")
        out_c = ws[0]
    if b is not None and (b.dim() != 1 or b.shape[0] != out_c):
        raise RuntimeError(
            f"Given weight of size {ws}, expected bias to be 1-dimensional with {out_c} "
            f"elements, but got bias of size {list(b.shape)} instead")
    return n


def _add_bias(out, b, n):
    return out if b is None else ops.add(out, ops.reshape(b, (1, b.shape[0]) + (1,) * n))


def _conv(name, input, weight, bias, stride, padding, dilation, groups):
    x, w = _tensor_arg(input), _tensor_arg(weight)
    b = None if bias is None else _tensor_arg(bias)
    n = w.dim() - 2
    xb, unbatched = _batched(x, n, name)
    stride = _ntuple(stride, n, "stride")
    dilation = _ntuple(dilation, n, "dilation")
    _check_conv(name, xb, w, b, groups, stride)
    kernel = tuple(w.shape[2:])
    pads = _conv_padding(padding, n, kernel, dilation, stride)
    padded = tuple(s + lo + hi for s, (lo, hi) in zip(xb.shape[2:], pads))
    if any(p < (k - 1) * d + 1 for p, k, d in zip(padded, kernel, dilation)):
        sizes = " x ".join(str(p) for p in padded)
        ks = " x ".join(str((k - 1) * d + 1) for k, d in zip(kernel, dilation))
        raise RuntimeError(
            f"Calculated padded input size per channel: ({sizes}). Kernel size: ({ks}). "
            "Kernel size can't be greater than actual input size")
    N, C = xb.shape[:2]
    O = w.shape[0]
    G = groups

    def fn():
        cols = ops.im2col(xb, kernel, stride, pads, dilation)
        out_sp = tuple(cols.shape[2 + n:])
        K, L = math.prod(kernel), math.prod(out_sp)
        if G == 1:
            out = ops.matmul(ops.reshape(w, (O, C * K)), ops.reshape(cols, (N, C * K, L)))
        else:
            out = ops.matmul(ops.reshape(w, (G, O // G, C // G * K)),
                             ops.reshape(cols, (N, G, C // G * K, L)))
        return _add_bias(ops.reshape(out, (N, O) + out_sp), b, n)

    inputs = [xb, w] + ([b] if b is not None else [None])
    return _unbatch(_composite("ConvolutionBackward0", fn, inputs), unbatched)


def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """1-D convolution (cross-correlation) over ``(N, C_in, L)`` inputs.

    Parameters
    ----------
    input : Tensor
        ``(N, C_in, L)`` or unbatched ``(C_in, L)``.
    weight : Tensor
        ``(C_out, C_in / groups, k)``.
    bias : Tensor, optional
        ``(C_out,)``.
    stride, dilation : int or tuple, optional
    padding : int, tuple, 'valid' or 'same', optional
        Zero padding on both sides; ``'same'`` keeps the length (stride 1
        only; an even kernel's extra padding goes at the end, as in
        PyTorch).
    groups : int, optional

    Returns
    -------
    Tensor
        ``(N, C_out, L_out)`` with ``L_out = (L + 2 p - d (k - 1) - 1) // s
        + 1``; ``grad_fn`` ``ConvolutionBackward0``.

    Raises
    ------
    RuntimeError
        PyTorch's messages for a wrong rank, channel count, bias shape,
        dtype mismatch, non-positive stride, negative padding, a kernel
        larger than the padded input, or ``'same'`` with a stride.
    """
    return _conv("conv1d", input, weight, bias, stride, padding, dilation, groups)


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """2-D convolution (cross-correlation) over ``(N, C_in, H, W)`` inputs.

    Parameters
    ----------
    input : Tensor
        ``(N, C_in, H, W)`` or unbatched ``(C_in, H, W)``.
    weight : Tensor
        ``(C_out, C_in / groups, kH, kW)``.
    bias : Tensor, optional
        ``(C_out,)``.
    stride, padding, dilation, groups
        As in :func:`conv1d`, per spatial axis.

    Returns
    -------
    Tensor
        ``(N, C_out, H_out, W_out)``, each size by :func:`conv1d`'s formula.
    """
    return _conv("conv2d", input, weight, bias, stride, padding, dilation, groups)


def conv3d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """3-D convolution over ``(N, C_in, D, H, W)`` inputs.

    Parameters
    ----------
    input : Tensor
        ``(N, C_in, D, H, W)`` or unbatched ``(C_in, D, H, W)``.
    weight : Tensor
        ``(C_out, C_in / groups, kD, kH, kW)``.
    bias : Tensor, optional
    stride, padding, dilation, groups
        As in :func:`conv1d`, per spatial axis.

    Returns
    -------
    Tensor
        ``(N, C_out, D_out, H_out, W_out)``.
    """
    return _conv("conv3d", input, weight, bias, stride, padding, dilation, groups)


def _conv_transpose(name, input, weight, bias, stride, padding, output_padding, groups,
                    dilation):
    x, w = _tensor_arg(input), _tensor_arg(weight)
    b = None if bias is None else _tensor_arg(bias)
    n = w.dim() - 2
    xb, unbatched = _batched(x, n, name)
    stride = _ntuple(stride, n, "stride")
    dilation = _ntuple(dilation, n, "dilation")
    padding = _ntuple(padding, n, "padding")
    output_padding = _ntuple(output_padding, n, "output_padding")
    _check_conv(name, xb, w, b, groups, stride, transposed=True)
    if any(p < 0 for p in padding):
        raise RuntimeError("negative padding is not supported")
    if any(op >= s and op >= d for op, s, d in zip(output_padding, stride, dilation)):
        raise RuntimeError(
            f"output padding must be smaller than either stride or dilation, but got "
            f"output_padding: {list(output_padding)}, stride: {list(stride)}, dilation: "
            f"{list(dilation)}")
    kernel = tuple(w.shape[2:])
    N, Cin = xb.shape[:2]
    G = groups
    Og = w.shape[1]
    spatial_in = tuple(xb.shape[2:])
    out_sp = tuple((s - 1) * st - 2 * p + d * (k - 1) + op + 1 for s, st, p, d, k, op in zip(
        spatial_in, stride, padding, dilation, kernel, output_padding))
    if any(o <= 0 for o in out_sp):
        raise RuntimeError(f"Given input size per channel: {list(spatial_in)}. Calculated "
                           f"output size per channel: {list(out_sp)}. Output size is too small")
    pads = tuple((p, p) for p in padding)
    # col2im's windows must cover exactly the input positions: the extra output
    # elements (output_padding) sit in a high padding that col2im crops away
    cover = conv_output_shape(out_sp, kernel, stride, pads, dilation)
    extra = tuple(ci - c for ci, c in zip(spatial_in, cover))
    pads = tuple((lo, hi + e * st) for (lo, hi), e, st in zip(pads, extra, stride))
    K, L = math.prod(kernel), math.prod(spatial_in)

    def fn():
        wm = ops.reshape(w, (G, Cin // G, Og * K))
        wt = ops.transpose(wm, (0, 2, 1))
        cols = ops.matmul(wt, ops.reshape(xb, (N, G, Cin // G, L)))
        cols = ops.reshape(cols, (N, G * Og) + kernel + spatial_in)
        out = ops.col2im(cols, out_sp, kernel, stride, pads, dilation)
        return _add_bias(out, b, n)

    inputs = [xb, w] + ([b] if b is not None else [None])
    return _unbatch(_composite("ConvolutionBackward0", fn, inputs), unbatched)


def conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0,
                     groups=1, dilation=1):
    """Transposed 1-D convolution (the adjoint of :func:`conv1d`'s input map).

    Parameters
    ----------
    input : Tensor
        ``(N, C_in, L)`` or unbatched ``(C_in, L)``.
    weight : Tensor
        ``(C_in, C_out / groups, k)``.
    bias : Tensor, optional
        ``(C_out,)``.
    stride, padding, output_padding, groups, dilation : int or tuple, optional
        ``padding`` removes ``dilation * (k - 1) - padding`` ... as in
        PyTorch: ``L_out = (L - 1) s - 2 p + d (k - 1) + output_padding +
        1``.

    Returns
    -------
    Tensor
        ``(N, C_out, L_out)``; ``grad_fn`` ``ConvolutionBackward0``.

    Raises
    ------
    RuntimeError
        PyTorch's messages for wrong ranks, channels, bias, an
        ``output_padding`` not smaller than the stride or dilation, or an
        output size below 1.
    """
    return _conv_transpose("conv_transpose1d", input, weight, bias, stride, padding,
                           output_padding, groups, dilation)


def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0,
                     groups=1, dilation=1):
    """Transposed 2-D convolution (the adjoint of :func:`conv2d`'s input map).

    Parameters
    ----------
    input : Tensor
        ``(N, C_in, H, W)`` or unbatched.
    weight : Tensor
        ``(C_in, C_out / groups, kH, kW)``.
    bias : Tensor, optional
    stride, padding, output_padding, groups, dilation
        As in :func:`conv_transpose1d`, per spatial axis.

    Returns
    -------
    Tensor
        ``(N, C_out, H_out, W_out)``.
    """
    return _conv_transpose("conv_transpose2d", input, weight, bias, stride, padding,
                           output_padding, groups, dilation)


def conv_transpose3d(input, weight, bias=None, stride=1, padding=0, output_padding=0,
                     groups=1, dilation=1):
    """Transposed 3-D convolution.

    Parameters
    ----------
    input : Tensor
        ``(N, C_in, D, H, W)`` or unbatched.
    weight : Tensor
        ``(C_in, C_out / groups, kD, kH, kW)``.
    bias : Tensor, optional
    stride, padding, output_padding, groups, dilation
        As in :func:`conv_transpose1d`.

    Returns
    -------
    Tensor
        ``(N, C_out, D_out, H_out, W_out)``.
    """
    return _conv_transpose("conv_transpose3d", input, weight, bias, stride, padding,
                           output_padding, groups, dilation)


# --------------------------------------------------------------------------
# pooling


def _pool_geometry(x, n, kernel_size, stride, padding, dilation, ceil_mode):
    kernel = _ntuple(kernel_size, n, "kernel_size")
    stride = kernel if stride is None or (not isinstance(stride, int) and len(stride) == 0) \
        else _ntuple(stride, n, "stride")
    padding = _ntuple(padding, n, "padding")
    dilation = _ntuple(dilation, n, "dilation")
    if any(s <= 0 for s in stride):
        raise RuntimeError("stride should be greater than zero, but got "
                           + ", ".join(f"stride{'HWD'[i] if n > 1 else ''}: {s}"
                                       for i, s in enumerate(stride)))
    for p, k, d in zip(padding, kernel, dilation):
        if p > ((k - 1) * d + 1) // 2:
            raise RuntimeError(f"pad should be at most half of effective kernel size, but got "
                               f"pad={p}, kernel_size={k} and dilation={d}")
    spatial = tuple(x.shape[2:])
    out, pads = [], []
    for s, k, st, p, d in zip(spatial, kernel, stride, padding, dilation):
        eff = d * (k - 1) + 1
        if ceil_mode:
            o = -(-(s + 2 * p - eff) // st) + 1
            if (o - 1) * st >= s + p:  # the last window would start in the right padding
                o -= 1
        else:
            o = (s + 2 * p - eff) // st + 1
        out.append(o)
        pads.append((p, max((o - 1) * st + eff - s - p, p)))
    if any(o < 1 for o in out):
        raise RuntimeError(
            f"Given input size: ({'x'.join(str(v) for v in x.shape[1:])}). Calculated output "
            f"size: ({'x'.join(str(v) for v in (x.shape[1],) + tuple(max(o, 0) for o in out))})."
            " Output size is too small")
    return kernel, stride, tuple(pads), dilation, tuple(out)


def _pool_input(x, n, name):
    if x.dim() not in (n + 1, n + 2) or x.numel() == 0:
        dims = {1: "2D or 3D", 2: "3D or 4D", 3: "4D or 5D"}[n]
        raise RuntimeError(f"non-empty {dims} (batch mode) tensor expected for input")
    if not x.is_floating_point():
        raise RuntimeError(f'"{name}" not implemented for '
                           f"'{_SCALAR_NAMES.get(str(x._data.dtype), x._data.dtype)}'")
    return _batched(x, n, name)


def _max_pool(n, input, kernel_size, stride, padding, dilation, ceil_mode, return_indices,
              name):
    x = _tensor_arg(input)
    xb, unbatched = _pool_input(x, n, f"max_pool{n}d")
    kernel, stride, pads, dilation, out = _pool_geometry(xb, n, kernel_size, stride, padding,
                                                         dilation, ceil_mode)
    N, C = xb.shape[:2]
    K, L = math.prod(kernel), math.prod(out)
    box = {}
    padded = any(lo or hi for lo, hi in pads)
    if padded:
        # which window positions are padding, and each window's first input element:
        # a window whose inputs are all -inf must still pick an input (PyTorch's
        # index and gradient), not the -inf padding before it
        inside = np.asarray(ops.im2col(np.ones((1, 1) + tuple(xb.shape[2:])), kernel, stride,
                                       pads, dilation)).reshape(1, 1, K, L) > 0
        on_padding = ~inside
        first_inside = np.argmax(inside, axis=2).astype(np.int64)  # (1, 1, L)

    def fn():
        xl = _lift(x, unbatched)
        cols = ops.reshape(ops.im2col(xl, kernel, stride, pads, dilation, pad_value=-np.inf),
                           (N, C, K, L))
        arg = ops.argmax(cols, 2)  # the first maximum (or NaN) of each window
        if padded:
            hit = ops.eq(ops.reshape(arg, (N, C, 1, L)),
                         np.arange(K, dtype=np.int64).reshape(1, 1, K, 1))
            picked_padding = ops.reduce_any(ops.logical_and(hit, on_padding), (2,))
            arg = ops.select(picked_padding, np.broadcast_to(first_inside, (N, C, L)), arg)
        box["arg"] = arg
        hit = ops.eq(ops.reshape(arg, (N, C, 1, L)),
                     np.arange(K, dtype=np.int64).reshape(1, 1, K, 1))
        res = ops.reduce_sum(ops.select(hit, cols, ops.zeros_like(cols)), (2,))
        return _drop(ops.reshape(res, (N, C) + out), unbatched)

    res = _composite(name, fn, [x])
    if not return_indices:
        return res
    arg = np.asarray(box["arg"]._data if isinstance(box["arg"], Tensor) else box["arg"])
    arg = arg.reshape((N, C) + out)
    # the flat index (over the input's spatial axes) of each window's maximum
    offs = np.unravel_index(arg, kernel)
    pos = np.indices(out).reshape((1, 1, n) + out)
    flat = np.zeros(arg.shape, dtype=np.int64)
    spatial = xb.shape[2:]
    for i in range(n):
        coord = pos[:, :, i] * stride[i] - pads[i][0] + offs[i] * dilation[i]
        flat = flat * spatial[i] + coord
    if unbatched:
        flat = flat[0]
    return res, Tensor._wrap(flat)


def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    """Maximum over sliding windows of ``(N, C, L)`` (or ``(C, L)``) inputs.

    Parameters
    ----------
    input : Tensor
        Floating point.
    kernel_size : int or tuple
    stride : int or tuple, optional
        Default ``kernel_size``.
    padding : int or tuple, optional
        Implicit ``-inf`` padding, at most half the dilated kernel.
    dilation : int or tuple, optional
    ceil_mode : bool, optional
        Round the output size up (a last partial window, if it starts
        inside the input or the left padding).
    return_indices : bool, optional
        Also return the int64 flat index of each maximum in its channel.

    Returns
    -------
    Tensor or (Tensor, Tensor)
        ``(N, C, L_out)``; the gradient goes to the first maximal element
        of each window (NaN counts as maximal and propagates).

    Raises
    ------
    RuntimeError
        PyTorch's messages for a wrong rank or empty input, a non-positive
        stride, too much padding, or an output size below 1.
    """
    x = _tensor_arg(input)
    _pool_input(x, 1, "max_pool1d")
    res = max_pool2d(_ops.unsqueeze(x, -2), (1, _ntuple(kernel_size, 1)[0]),
                     (1, _ntuple(kernel_size if stride is None else stride, 1)[0]),
                     (0, _ntuple(padding, 1)[0]), (1, _ntuple(dilation, 1)[0]), ceil_mode,
                     return_indices)
    if return_indices:
        return _ops.squeeze(res[0], -2), _ops.squeeze(res[1], -2)
    return _ops.squeeze(res, -2)


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    """2-D max pooling over ``(N, C, H, W)`` (or unbatched) inputs.

    Parameters
    ----------
    input : Tensor
    kernel_size, stride, padding, dilation, ceil_mode, return_indices
        As in :func:`max_pool1d`, per spatial axis.

    Returns
    -------
    Tensor or (Tensor, Tensor)
        The maxima, and with ``return_indices`` their flat int64 indices
        over the input's spatial axes.
    """
    return _max_pool(2, input, kernel_size, stride, padding, dilation, ceil_mode,
                     return_indices, "MaxPool2DWithIndicesBackward0")


def max_pool3d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    """3-D max pooling over ``(N, C, D, H, W)`` (or unbatched) inputs.

    Parameters
    ----------
    input : Tensor
    kernel_size, stride, padding, dilation, ceil_mode, return_indices
        As in :func:`max_pool1d`, per spatial axis.

    Returns
    -------
    Tensor or (Tensor, Tensor)
        As :func:`max_pool2d`.
    """
    return _max_pool(3, input, kernel_size, stride, padding, dilation, ceil_mode,
                     return_indices, "MaxPool3DWithIndicesBackward0")


def _avg_pool(n, input, kernel_size, stride, padding, ceil_mode, count_include_pad,
              divisor_override, name):
    x = _tensor_arg(input)
    xb, unbatched = _pool_input(x, n, f"avg_pool{n}d")
    kernel, stride, pads, dilation, out = _pool_geometry(xb, n, kernel_size, stride, padding,
                                                         1, ceil_mode)
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    N, C = xb.shape[:2]
    K, L = math.prod(kernel), math.prod(out)
    spatial = tuple(xb.shape[2:])
    if divisor_override is not None:
        divisor = np.full(out, float(divisor_override))
    else:
        # PyTorch's divisor: the window clipped to the input plus its explicit
        # padding (count_include_pad) or to the input alone
        if count_include_pad:
            p = _ntuple(padding, n)
            ones = np.ones((1, 1) + tuple(s + 2 * q for s, q in zip(spatial, p)))
            inner = tuple((0, hi - q) for q, (_, hi) in zip(p, pads))
        else:
            ones = np.ones((1, 1) + spatial)
            inner = pads
        counts = ops.im2col(ones, kernel, stride, inner, dilation)
        divisor = np.asarray(counts).reshape(K, *out).sum(axis=0)
    scale = (1.0 / divisor).astype(x._data.dtype)

    def fn():
        xl = _lift(x, unbatched)
        cols = ops.reshape(ops.im2col(xl, kernel, stride, pads, dilation), (N, C, K, L))
        return _drop(ops.mul(ops.reshape(ops.reduce_sum(cols, (2,)), (N, C) + out), scale),
                     unbatched)

    return _composite(name, fn, [x])


def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True):
    """Average over sliding windows of ``(N, C, L)`` (or ``(C, L)``) inputs.

    Parameters
    ----------
    input : Tensor
    kernel_size, stride, padding : int or tuple
        ``stride`` defaults to ``kernel_size``; zero padding.
    ceil_mode : bool, optional
    count_include_pad : bool, optional
        Count the padding in the divisor (default True).

    Returns
    -------
    Tensor
        ``(N, C, L_out)``.

    Raises
    ------
    RuntimeError
        As :func:`max_pool1d`.
    """
    x = _tensor_arg(input)
    _pool_input(x, 1, "avg_pool1d")
    return _ops.squeeze(avg_pool2d(
        _ops.unsqueeze(x, -2), (1, _ntuple(kernel_size, 1)[0]),
        (1, _ntuple(kernel_size if stride is None else stride, 1)[0]),
        (0, _ntuple(padding, 1)[0]), ceil_mode, count_include_pad), -2)


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=None):
    """2-D average pooling over ``(N, C, H, W)`` (or unbatched) inputs.

    Parameters
    ----------
    input : Tensor
    kernel_size, stride, padding, ceil_mode, count_include_pad
        As in :func:`avg_pool1d`, per spatial axis.
    divisor_override : int, optional
        Divide every window sum by this instead of the window size.

    Returns
    -------
    Tensor
        ``(N, C, H_out, W_out)``.
    """
    return _avg_pool(2, input, kernel_size, stride, padding, ceil_mode, count_include_pad,
                     divisor_override, "AvgPool2DBackward0")


def avg_pool3d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=None):
    """3-D average pooling over ``(N, C, D, H, W)`` (or unbatched) inputs.

    Parameters
    ----------
    input : Tensor
    kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override
        As in :func:`avg_pool2d`.

    Returns
    -------
    Tensor
    """
    return _avg_pool(3, input, kernel_size, stride, padding, ceil_mode, count_include_pad,
                     divisor_override, "AvgPool3DBackward0")


def lp_pool1d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """Power-average pooling ``(sum x**p)**(1/p)`` over windows of ``(N, C, L)``.

    Parameters
    ----------
    input : Tensor
    norm_type : float
        ``p``.
    kernel_size : int
    stride : int, optional
        Default ``kernel_size``.
    ceil_mode : bool, optional

    Returns
    -------
    Tensor
        ``(N, C, L_out)`` (a negative window sum gives 0, as in PyTorch).
    """
    k = _ntuple(kernel_size, 1)
    s = avg_pool1d(_ops.pow(input, norm_type), k, stride, 0, ceil_mode)
    return _ops.pow(_ops.mul(_ops.mul(_ops.sign(s), _ops.relu(_ops.abs(s))), math.prod(k)),
                    1.0 / norm_type)


def lp_pool2d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """Power-average pooling over windows of ``(N, C, H, W)``.

    Parameters
    ----------
    input : Tensor
    norm_type : float
    kernel_size : int or tuple
    stride : int or tuple, optional
    ceil_mode : bool, optional

    Returns
    -------
    Tensor
        As :func:`lp_pool1d`, per spatial axis.
    """
    k = _ntuple(kernel_size, 2)
    s = avg_pool2d(_ops.pow(input, norm_type), k, stride, 0, ceil_mode)
    return _ops.pow(_ops.mul(_ops.mul(_ops.sign(s), _ops.relu(_ops.abs(s))), math.prod(k)),
                    1.0 / norm_type)


def _adaptive_bounds(size, out):
    """PyTorch's adaptive windows: ``[floor(i S / O), ceil((i + 1) S / O))``."""
    return [((i * size) // out, -(-((i + 1) * size) // out)) for i in range(out)]


def _out_size(output_size, spatial, n):
    sizes = _ntuple(output_size, n, "output_size") if not (
        isinstance(output_size, (tuple, list)) and any(o is None for o in output_size)) else \
        tuple(s if o is None else int(o) for o, s in zip(output_size, spatial))
    return sizes


def _axis_matrices(x, mats, n):
    """Apply one matrix per spatial axis: ``out[..., i, ...] = sum_s M[i, s] x[..., s, ...]``."""
    out = x
    nd = n + 2
    for axis, m in zip(range(2, nd), mats):
        if m is None:
            continue
        mt = Tensor._wrap(np.ascontiguousarray(m.T.astype(x._data.dtype)))
        if axis == nd - 1:
            out = ops.matmul(out, mt)
        else:
            perm = list(range(nd))
            perm[axis], perm[-1] = perm[-1], perm[axis]
            out = ops.transpose(ops.matmul(ops.transpose(out, tuple(perm)), mt), tuple(perm))
    return out


def _adaptive_avg(n, input, output_size, name):
    x = _tensor_arg(input)
    xb, unbatched = _pool_input(x, n, f"adaptive_avg_pool{n}d")
    spatial = tuple(xb.shape[2:])
    out = _out_size(output_size, spatial, n)
    mats = []
    for s, o in zip(spatial, out):
        if s == o:
            mats.append(None)
            continue
        m = np.zeros((o, s))
        for i, (a, b) in enumerate(_adaptive_bounds(s, o)):
            m[i, a:b] = 1.0 / (b - a)
        mats.append(m)

    def fn():
        xl = _lift(x, unbatched)
        res = _axis_matrices(xl, mats, n)
        return _drop(ops.reshape(xl, tuple(xl.shape)) if res is xl else res, unbatched)

    return _composite(name, fn, [x])


def adaptive_avg_pool1d(input, output_size):
    """Average pooling to a fixed output length (PyTorch's adaptive windows
    ``[floor(i L / O), ceil((i + 1) L / O))``).

    Parameters
    ----------
    input : Tensor
        ``(N, C, L)`` or ``(C, L)``.
    output_size : int

    Returns
    -------
    Tensor
        ``(N, C, output_size)``.
    """
    x = _tensor_arg(input)
    _pool_input(x, 1, "adaptive_avg_pool1d")
    return _ops.squeeze(adaptive_avg_pool2d(_ops.unsqueeze(x, -2),
                                            (1, _ntuple(output_size, 1)[0])), -2)


def adaptive_avg_pool2d(input, output_size):
    """Average pooling to a fixed output size (PyTorch's adaptive windows).

    Parameters
    ----------
    input : Tensor
        ``(N, C, H, W)`` or ``(C, H, W)``.
    output_size : int or tuple
        ``(H_out, W_out)``; ``None`` keeps that axis's size.

    Returns
    -------
    Tensor
        ``(N, C, H_out, W_out)``.
    """
    return _adaptive_avg(2, input, output_size, "AdaptiveAvgPool2DBackward0")


def adaptive_avg_pool3d(input, output_size):
    """Average pooling to a fixed ``(D_out, H_out, W_out)``.

    Parameters
    ----------
    input : Tensor
        ``(N, C, D, H, W)`` or unbatched.
    output_size : int or tuple

    Returns
    -------
    Tensor
    """
    return _adaptive_avg(3, input, output_size, "AdaptiveAvgPool3DBackward0")


def _adaptive_max(n, input, output_size, return_indices, name):
    x = _tensor_arg(input)
    xb, unbatched = _pool_input(x, n, f"adaptive_max_pool{n}d")
    spatial = tuple(xb.shape[2:])
    out = _out_size(output_size, spatial, n)
    bounds = [_adaptive_bounds(s, o) for s, o in zip(spatial, out)]
    kernel = tuple(max(b - a for a, b in bd) for bd in bounds)
    N, C = xb.shape[:2]
    K, L = math.prod(kernel), math.prod(out)
    # gather every (possibly ragged) window into a K-column block through one
    # constant index array; positions past a window's end repeat its first element
    idx = np.zeros(out + kernel, dtype=np.int64)
    valid = np.zeros(out + kernel, dtype=bool)
    for o in np.ndindex(*out):
        for j in np.ndindex(*kernel):
            coord = [bounds[i][o[i]][0] + j[i] for i in range(n)]
            ok = all(coord[i] < bounds[i][o[i]][1] for i in range(n))
            coord = [c if ok else bounds[i][o[i]][0] for i, c in enumerate(coord)]
            idx[o + j] = np.ravel_multi_index(coord, spatial)
            valid[o + j] = ok
    idx = idx.reshape(L, K).T.reshape(-1)  # (K, L) flattened
    box = {}

    def fn():
        xl = _lift(x, unbatched)
        flat = ops.reshape(xl, (N, C, math.prod(spatial)))
        cols = ops.reshape(_ops.index_select(flat, 2, Tensor._wrap(idx)), (N, C, K, L))
        arg = ops.argmax(cols, 2)
        box["arg"] = arg
        hit = ops.eq(ops.reshape(arg, (N, C, 1, L)),
                     np.arange(K, dtype=np.int64).reshape(1, 1, K, 1))
        return _drop(ops.reshape(ops.reduce_sum(ops.select(hit, cols, ops.zeros_like(cols)),
                                                (2,)), (N, C) + out), unbatched)

    res = _composite(name, fn, [x])
    if not return_indices:
        return res
    arg = np.asarray(box["arg"]._data if isinstance(box["arg"], Tensor) else box["arg"])
    flat = idx.reshape(K, L)[arg, np.arange(L)].reshape((N, C) + out)
    return res, Tensor._wrap(flat[0] if unbatched else flat)


def adaptive_max_pool1d(input, output_size, return_indices=False):
    """Max pooling to a fixed output length (adaptive windows as
    :func:`adaptive_avg_pool1d`).

    Parameters
    ----------
    input : Tensor
        ``(N, C, L)`` or ``(C, L)``.
    output_size : int
    return_indices : bool, optional

    Returns
    -------
    Tensor or (Tensor, Tensor)
        The maxima (the gradient goes to the first maximal element of each
        window), and with ``return_indices`` their int64 indices.
    """
    x = _tensor_arg(input)
    _pool_input(x, 1, "adaptive_max_pool1d")
    res = adaptive_max_pool2d(_ops.unsqueeze(x, -2), (1, _ntuple(output_size, 1)[0]),
                              return_indices)
    if return_indices:
        return _ops.squeeze(res[0], -2), _ops.squeeze(res[1], -2)
    return _ops.squeeze(res, -2)


def adaptive_max_pool2d(input, output_size, return_indices=False):
    """Max pooling to a fixed ``(H_out, W_out)``.

    Parameters
    ----------
    input : Tensor
        ``(N, C, H, W)`` or ``(C, H, W)``.
    output_size : int or tuple
    return_indices : bool, optional

    Returns
    -------
    Tensor or (Tensor, Tensor)
        As :func:`adaptive_max_pool1d`; indices are flat over ``(H, W)``.
    """
    return _adaptive_max(2, input, output_size, return_indices, "AdaptiveMaxPool2DBackward0")


# --------------------------------------------------------------------------
# unfold / fold


def unfold(input, kernel_size, dilation=1, padding=0, stride=1):
    """Sliding local blocks of a batched image as columns (im2col).

    Parameters
    ----------
    input : Tensor
        ``(N, C, H, W)`` or unbatched ``(C, H, W)``.
    kernel_size, dilation, padding, stride : int or tuple of 2

    Returns
    -------
    Tensor
        ``(N, C * kH * kW, L)`` with ``L`` the number of windows; row ``c *
        kH * kW + j`` is channel ``c`` at kernel offset ``j``.
        ``grad_fn`` ``Im2ColBackward0``.

    Raises
    ------
    RuntimeError
        For an input that is not 3-D or 4-D.
    """
    x = _tensor_arg(input)
    if x.dim() not in (3, 4):
        raise RuntimeError("Expected 3D or 4D (batch mode) tensor with possibly 0 batch size "
                           "and other non-zero dimensions for input, but got: "
                           f"{list(x.shape)}")
    xb, unbatched = _batched(x, 2, "unfold")
    k, d = _ntuple(kernel_size, 2), _ntuple(dilation, 2)
    p, s = _ntuple(padding, 2), _ntuple(stride, 2)
    N, C = xb.shape[:2]

    def fn():
        cols = ops.im2col(_lift(x, unbatched), k, s, tuple((v, v) for v in p), d)
        return _drop(ops.reshape(cols, (N, C * k[0] * k[1], math.prod(cols.shape[4:]))),
                     unbatched)

    return _composite("Im2ColBackward0", fn, [x])


def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):
    """Sum sliding local blocks back into an image (col2im), the adjoint of :func:`unfold`.

    Parameters
    ----------
    input : Tensor
        ``(N, C * kH * kW, L)`` or unbatched ``(C * kH * kW, L)``.
    output_size : int or tuple of 2
        The image's ``(H, W)``.
    kernel_size, dilation, padding, stride : int or tuple of 2

    Returns
    -------
    Tensor
        ``(N, C, H, W)``; overlapping entries are summed.  ``grad_fn``
        ``Col2ImBackward0``.

    Raises
    ------
    RuntimeError
        If the column count is not a multiple of ``kH * kW`` or ``L`` does
        not match the number of windows.
    """
    c = _tensor_arg(input)
    if c.dim() not in (2, 3):
        raise RuntimeError(f"Input Error: Only unbatched (2D) or batched (3D) input Tensors "
                           f"are supported (got {c.dim()}D)")
    unbatched = c.dim() == 2
    cb = c if not unbatched else c[None]
    out_sz, k = _ntuple(output_size, 2), _ntuple(kernel_size, 2)
    d, p, s = _ntuple(dilation, 2), _ntuple(padding, 2), _ntuple(stride, 2)
    pads = tuple((v, v) for v in p)
    blocks = conv_output_shape(out_sz, k, s, pads, d)
    N, CK, L = cb.shape
    K = k[0] * k[1]
    if CK % K:
        raise RuntimeError(
            f"Expected size of input's dimension 1 to be divisible by the product of "
            f"kernel_size, but got input.size(1)={CK} and kernel_size=({k[0]}, {k[1]})")
    if L != math.prod(blocks):
        raise RuntimeError(
            f"Given output_size=({out_sz[0]}, {out_sz[1]}), kernel_size=({k[0]}, {k[1]}), "
            f"dilation=({d[0]}, {d[1]}), padding=({p[0]}, {p[1]}), stride=({s[0]}, {s[1]}), "
            f"expected size of input's dimension 2 to match the calculated number of sliding "
            f"blocks {blocks[0]} * {blocks[1]} = {math.prod(blocks)}, but got "
            f"input.size(2)={L}.")

    def fn():
        cols = ops.reshape(c, (N, CK // K) + k + blocks)
        return _drop(ops.col2im(cols, out_sz, k, s, pads, d), unbatched)

    return _composite("Col2ImBackward0", fn, [c])


# --------------------------------------------------------------------------
# padding


def _edge_index(size, lo, hi, mode):
    """Source index along one axis of each padded position."""
    i = np.arange(-lo, size + hi)
    if mode == "replicate":
        return np.clip(i, 0, size - 1)
    if mode == "circular":  # a negative side crops first; the rest wraps what is left
        start, kept = max(-lo, 0), size - max(-lo, 0) - max(-hi, 0)
        return start + np.mod(np.arange(-max(lo, 0), kept + max(hi, 0)), kept)
    # reflect: mirror without repeating the edge
    period = 2 * (size - 1)
    j = np.mod(i, period) if period else np.zeros_like(i)
    return np.where(j >= size, period - j, j)


def pad(input, pad, mode="constant", value=None):
    """Pad (or, with negative amounts, crop) the last dimensions of ``input``.

    Parameters
    ----------
    input : Tensor
    pad : tuple of int
        ``(left, right)`` for the last dimension, then ``(top, bottom)`` for
        the one before, and so on (an even number of entries).
    mode : {'constant', 'reflect', 'replicate', 'circular'}, optional
        ``reflect`` mirrors without repeating the edge, ``replicate``
        repeats the edge, ``circular`` wraps around.  The non-constant
        modes pad the last 1, 2 or 3 dimensions of a 2-5 dimensional input
        (as PyTorch's).
    value : float, optional
        Fill value of ``constant`` mode (default 0).

    Returns
    -------
    Tensor
        ``grad_fn`` ``ConstantPadNdBackward0``, ``ReflectionPad{1,2,3}DBackward0``
        or ``ReplicationPad{1,2,3}DBackward0`` (circular: ``IndexBackward0``).

    Raises
    ------
    RuntimeError, NotImplementedError, ValueError
        An odd-length ``pad`` or one longer than twice the rank, a
        non-constant mode with an unsupported rank, reflection padding not
        smaller than the dimension, or an unknown mode.
    """
    x = _tensor_arg(input)
    pad = tuple(int(p) for p in pad)
    if len(pad) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    if len(pad) // 2 > x.dim():
        raise RuntimeError("Padding length should be less than or equal to two times the "
                           "input dimension but got padding length "
                           f"{len(pad)} and input of dimension {x.dim()}")
    m = len(pad) // 2
    pairs = [(pad[2 * i], pad[2 * i + 1]) for i in range(m)][::-1]  # first padded axis first
    axes = list(range(x.dim() - m, x.dim()))
    if mode == "constant":
        v = 0.0 if value is None else float(value)

        def fn():
            out = xb = x
            crop = [(max(-lo, 0), max(-hi, 0)) for lo, hi in pairs]
            if any(a or b for a, b in crop):
                shape = tuple(xb.shape)
                start = [0] * x.dim()
                limit = list(shape)
                for ax, (a, b) in zip(axes, crop):
                    start[ax], limit[ax] = a, shape[ax] - b
                out = ops.slice(out, tuple(start), tuple(limit))
            config = [(0, 0, 0)] * x.dim()
            for ax, (lo, hi) in zip(axes, pairs):
                config[ax] = (max(lo, 0), max(hi, 0), 0)
            if any(c != (0, 0, 0) for c in config):
                out = ops.pad(out, tuple(config), v)
            if out is x:
                out = ops.reshape(x, tuple(x.shape))
            return out

        return _composite("ConstantPadNdBackward0", fn, [x])
    if mode not in ("reflect", "replicate", "circular"):
        raise NotImplementedError(f"Unrecognised padding mode {mode}") if isinstance(
            mode, str) and mode else ValueError(f"Unrecognised padding mode {mode}")
    if value not in (None, 0, 0.0):
        raise RuntimeError(f"Padding mode \"{mode}\" doesn't take in value argument.")
    if not (m in (1, 2, 3) and m + 1 <= x.dim() <= m + 2):
        combos = ("  - 2D or 3D input: padding size = 2 (pads last dimension)\n"
                  "  - 3D or 4D input: padding size = 4 (pads last 2 dimensions)\n"
                  "  - 4D or 5D input: padding size = 6 (pads last 3 dimensions)")
        raise NotImplementedError(
            f"Padding size {len(pad)} is not supported for {x.dim()}D input tensor.\n"
            f"Supported combinations for non-constant padding:\n{combos}")
    index = []
    for ax, (lo, hi) in zip(axes, pairs):
        size = x.shape[ax]
        if mode == "reflect" and (lo >= size or hi >= size):
            raise RuntimeError(
                f"Argument #4: Padding size should be less than the corresponding input "
                f"dimension, but got: padding ({lo}, {hi}) at dimension {ax} of input "
                f"{list(x.shape)}")
        if mode == "circular" and (lo > size or hi > size):
            raise RuntimeError("Padding value causes wrapping around more than once.")
        index.append(_edge_index(size, lo, hi, mode))

    def fn():
        out = x
        for ax, idx in zip(axes, index):
            out = _ops.index_select(out, ax, Tensor._wrap(idx.astype(np.int64)))
        return out

    name = {"reflect": f"ReflectionPad{m}DBackward0", "replicate": f"ReplicationPad{m}DBackward0",
            "circular": "IndexBackward0"}[mode]
    return _composite(name, fn, [x])


# --------------------------------------------------------------------------
# resampling


def _interp_matrix(s, o, mode, align_corners, scale):
    """``(o, s)`` matrix of 1-D interpolation weights, PyTorch's source-index rules."""
    m = np.zeros((o, s))
    dst = np.arange(o)
    if mode in ("nearest", "nearest-exact"):
        r = (1.0 / scale) if scale else s / o
        src = np.floor((dst + (0.5 if mode == "nearest-exact" else 0.0)) * r).astype(np.int64)
        m[dst, np.minimum(src, s - 1)] = 1.0
        return m
    if align_corners:
        src = dst * ((s - 1) / (o - 1)) if o > 1 else np.zeros(o)
    else:
        r = (1.0 / scale) if scale else s / o
        src = np.maximum((dst + 0.5) * r - 0.5, 0.0)
    i0 = np.minimum(np.floor(src).astype(np.int64), s - 1)
    i1 = np.minimum(i0 + 1, s - 1)
    w1 = src - i0
    np.add.at(m, (dst, i0), 1.0 - w1)
    np.add.at(m, (dst, i1), w1)
    return m


_MODES = {"nearest": (None, "UpsampleNearest{n}DBackward0"),
          "nearest-exact": (None, "UpsampleNearestExact{n}DBackward0"),
          "linear": (1, "UpsampleLinear1DBackward0"),
          "bilinear": (2, "UpsampleBilinear2DBackward0"),
          "trilinear": (3, "UpsampleTrilinear3DBackward0")}


def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None,
                recompute_scale_factor=None, antialias=False):
    """Resample the spatial axes of ``(N, C, *spatial)`` inputs.

    Parameters
    ----------
    input : Tensor
        3-D, 4-D or 5-D (1, 2 or 3 spatial axes).
    size : int or tuple, optional
        Output spatial size (exactly one of ``size`` and ``scale_factor``).
    scale_factor : float or tuple, optional
        Output size ``floor(S * scale_factor)``; the source coordinates use
        ``1 / scale_factor`` unless ``recompute_scale_factor`` is True (then
        ``S / S_out``), as in PyTorch.
    mode : {'nearest', 'nearest-exact', 'linear', 'bilinear', 'trilinear'}
        ``linear``/``bilinear``/``trilinear`` need 1/2/3 spatial axes.
    align_corners : bool, optional
        Linear modes only: map corner centres onto each other (default
        False: half-pixel centres, clamped at 0).
    antialias : bool, optional
        Only False is supported.

    Returns
    -------
    Tensor
        ``(N, C, *size)``; each output is a fixed weighted sum of inputs
        (one interpolation matrix per axis applied with ``matmul``).

    Raises
    ------
    ValueError
        Both or neither of ``size`` and ``scale_factor``, ``align_corners``
        with a nearest mode, or a size of the wrong length.
    NotImplementedError
        Other modes (bicubic, area), a mode that does not fit the rank, or
        ``antialias=True``.
    """
    x = _tensor_arg(input)
    n = x.dim() - 2
    if mode not in _MODES:
        raise NotImplementedError(
            f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {x.dim()}D) for "
            f"the modes: nearest | linear | bilinear | bicubic | trilinear | area | "
            f"nearest-exact (got {mode})")
    need, name = _MODES[mode]
    if n < 1 or n > 3 or (need is not None and need != n):
        raise NotImplementedError(
            f"Got {x.dim()}D input, but {mode} mode needs {need + 2 if need else '3D-5D'}D "
            "input")
    if antialias:
        raise NotImplementedError("interpolate: antialias=True is not supported")
    if need is None and align_corners is not None:
        raise ValueError("align_corners option can only be set with the interpolating modes: "
                         "linear | bilinear | bicubic | trilinear")
    if (size is None) == (scale_factor is None):
        raise ValueError("only one of size or scale_factor should be defined" if size is not None
                         else "either size or scale_factor should be defined")
    spatial = tuple(x.shape[2:])
    if size is not None:
        out = _ntuple(size, n, "size") if not isinstance(size, (list, tuple)) or len(
            size) == n else None
        if out is None:
            raise ValueError(f"Input and output must have the same number of spatial "
                             f"dimensions, but got input with spatial dimensions of "
                             f"{list(spatial)} and output size of {list(size)}. Please "
                             f"provide input tensor in (N, C, d1, d2, ...,dK) format and "
                             f"output size in (o1, o2, ...,oK) format.")
        scales = (None,) * n
    else:
        sf = (float(scale_factor),) * n if not isinstance(scale_factor, (list, tuple)) else \
            tuple(float(v) for v in scale_factor)
        out = tuple(int(math.floor(s * f)) for s, f in zip(spatial, sf))
        scales = (None,) * n if recompute_scale_factor else sf
    # an axis whose output size is its input size is copied unchanged, whatever
    # the scale factor (as PyTorch's kernels do)
    mats = [None if o == s else _interp_matrix(s, o, mode, bool(align_corners), sc)
            for s, o, sc in zip(spatial, out, scales)]

    def fn():
        res = _axis_matrices(x, mats, n)
        return ops.reshape(x, tuple(x.shape)) if res is x else res

    return _composite(name.format(n=n), fn, [x])


def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None):
    """Deprecated alias of :func:`interpolate`.

    Parameters
    ----------
    input, size, scale_factor, mode, align_corners
        As in :func:`interpolate`.

    Returns
    -------
    Tensor
    """
    return interpolate(input, size, scale_factor, mode, align_corners)


def pixel_shuffle(input, upscale_factor):
    """Rearrange ``(*, C r^2, H, W)`` into ``(*, C, H r, W r)``.

    Parameters
    ----------
    input : Tensor
        At least 3-D.
    upscale_factor : int
        ``r``.

    Returns
    -------
    Tensor

    Raises
    ------
    RuntimeError
        An input of fewer than 3 dimensions or a channel count not
        divisible by ``upscale_factor ** 2``.
    """
    x = _tensor_arg(input)
    r = int(upscale_factor)
    if x.dim() < 3:
        raise RuntimeError(f"pixel_shuffle expects input to have at least 3 dimensions, but "
                           f"got input with {x.dim()} dimension(s)")
    *lead, c, h, w = x.shape
    if c % (r * r):
        raise RuntimeError(f"pixel_shuffle expects its input's 'channel' dimension to be "
                           f"divisible by the square of upscale_factor, but input.size(-3)={c} "
                           f"is not divisible by {r * r}")
    lead = tuple(lead)
    k = len(lead)

    def fn():
        y = ops.reshape(x, lead + (c // (r * r), r, r, h, w))
        y = ops.transpose(y, tuple(range(k)) + (k, k + 3, k + 1, k + 4, k + 2))
        return ops.reshape(y, lead + (c // (r * r), h * r, w * r))

    return _composite("PixelShuffleBackward0", fn, [x])


def pixel_unshuffle(input, downscale_factor):
    """Rearrange ``(*, C, H r, W r)`` into ``(*, C r^2, H, W)`` (inverse of
    :func:`pixel_shuffle`).

    Parameters
    ----------
    input : Tensor
        At least 3-D.
    downscale_factor : int
        ``r``.

    Returns
    -------
    Tensor

    Raises
    ------
    RuntimeError
        Fewer than 3 dimensions or spatial sizes not divisible by ``r``.
    """
    x = _tensor_arg(input)
    r = int(downscale_factor)
    if x.dim() < 3:
        raise RuntimeError(f"pixel_unshuffle expects input to have at least 3 dimensions, but "
                           f"got input with {x.dim()} dimension(s)")
    *lead, c, h, w = x.shape
    if h % r or w % r:
        raise RuntimeError(f"pixel_unshuffle expects height and width to be divisible by "
                           f"downscale_factor, but input.size(-2)={h} and input.size(-1)={w} "
                           f"is not divisible by {r}")
    lead = tuple(lead)
    k = len(lead)

    def fn():
        y = ops.reshape(x, lead + (c, h // r, r, w // r, r))
        y = ops.transpose(y, tuple(range(k)) + (k, k + 2, k + 4, k + 1, k + 3))
        return ops.reshape(y, lead + (c * r * r, h // r, w // r))

    return _composite("PixelUnshuffleBackward0", fn, [x])


# --------------------------------------------------------------------------
# channel dropout


def _check_p(p):
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def _channel_dropout(input, p, training, inplace, n, name):
    _check_p(p)
    x = _tensor_arg(input)
    if x.dim() not in (n + 1, n + 2):
        raise RuntimeError(f"{name}: Expected {n + 1}D or {n + 2}D input, but received a "
                           f"{x.dim()}D input.")
    if not training or p == 0:
        return x
    batched = x.dim() == n + 2
    shape = tuple(x.shape[:2] if batched else x.shape[:1]) + (1,) * n
    keep = _creation.default_generator._rng.random(shape) >= p
    scale = 0.0 if p == 1 else 1.0 / (1.0 - p)
    mask = Tensor._wrap((keep * scale).astype(x._data.dtype))
    return x.mul_(mask) if inplace else _ops.mul(x, mask)


def dropout1d(input, p=0.5, training=True, inplace=False):
    """Zero whole channels of ``(N, C, L)`` (or ``(C, L)``) with probability ``p``,
    scaling the rest by ``1 / (1 - p)``; the mask comes from the default generator.

    Parameters
    ----------
    input : Tensor
    p : float, optional
    training : bool, optional
        If False (or ``p == 0``), ``input`` is returned unchanged.
    inplace : bool, optional

    Returns
    -------
    Tensor

    Raises
    ------
    ValueError
        ``p`` outside ``[0, 1]``.
    RuntimeError
        An input that is not 2-D or 3-D.
    """
    return _channel_dropout(input, p, training, inplace, 1, "dropout1d")


def dropout2d(input, p=0.5, training=True, inplace=False):
    """Zero whole channels of ``(N, C, H, W)`` (or ``(C, H, W)``).

    Parameters
    ----------
    input : Tensor
    p, training, inplace
        As in :func:`dropout1d`.

    Returns
    -------
    Tensor
    """
    return _channel_dropout(input, p, training, inplace, 2, "dropout2d")


def dropout3d(input, p=0.5, training=True, inplace=False):
    """Zero whole channels of ``(N, C, D, H, W)`` (or ``(C, D, H, W)``).

    Parameters
    ----------
    input : Tensor
    p, training, inplace
        As in :func:`dropout1d`.

    Returns
    -------
    Tensor
    """
    return _channel_dropout(input, p, training, inplace, 3, "dropout3d")


_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


def alpha_dropout(input, p=0.5, training=False, inplace=False):
    """Dropout for SELU networks (Klambauer et al. 2017, "Self-Normalizing Neural
    Networks", eq. 10): dropped elements are set to ``-alpha * scale`` and the
    result is ``a * x + b`` with ``a = (q + alpha'^2 q p)^(-1/2)``, ``b = -a
    alpha' p``, ``q = 1 - p``, ``alpha' = -alpha * scale``, so the mean and
    variance of unit-Gaussian inputs are kept.

    Parameters
    ----------
    input : Tensor
    p : float, optional
    training : bool, optional
        Default False (identity), as in PyTorch.
    inplace : bool, optional

    Returns
    -------
    Tensor

    Raises
    ------
    ValueError
        ``p`` outside ``[0, 1]``.
    """
    _check_p(p)
    x = _tensor_arg(input)
    if not training or p == 0:
        return x
    if p == 1:
        return _ops.mul(x, 0.0)
    q = 1.0 - p
    alpha_p = -_SELU_ALPHA * _SELU_SCALE
    a = (q + alpha_p ** 2 * q * p) ** -0.5
    b = -a * alpha_p * p
    keep = _creation.default_generator._rng.random(tuple(x.shape)) >= p
    dt = x._data.dtype
    mul = Tensor._wrap((keep * a).astype(dt))
    add = Tensor._wrap((np.where(keep, 0.0, alpha_p * a) + b).astype(dt))
    out = _ops.add(_ops.mul(x, mul), add)
    if inplace:
        x.copy_(out.detach())
        return x
    return out
