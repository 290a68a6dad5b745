"""Convolution, pooling, padding and resampling modules.

``Conv1d``/``Conv2d``/``Conv3d``, ``ConvTranspose1d/2d/3d``, the pooling
layers (``MaxPool*``, ``AvgPool*``, ``AdaptiveAvgPool*``,
``AdaptiveMaxPool*``, ``LPPool*``), padding layers (``ZeroPad*``,
``ConstantPad*``, ``ReflectionPad*``, ``ReplicationPad*``,
``CircularPad*``), ``Upsample``, ``PixelShuffle``/``PixelUnshuffle``,
``Unfold``/``Fold`` and the channel dropouts ``Dropout1d/2d/3d``, with
PyTorch's constructor arguments, attribute names, ``extra_repr``,
parameter shapes, ``state_dict`` keys and default initialization; each
calls its function in :mod:`.functional`.
"""
import math

import numpy as np

from .. import _creation
from .._tensor import check_device
from . import functional as F
from . import init
from .module import Module
from .parameter import Parameter

__all__ = [
    "Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d",
    "MaxPool1d", "MaxPool2d", "MaxPool3d", "AvgPool1d", "AvgPool2d", "AvgPool3d",
    "AdaptiveAvgPool1d", "AdaptiveAvgPool2d", "AdaptiveAvgPool3d", "AdaptiveMaxPool1d",
    "AdaptiveMaxPool2d", "LPPool1d", "LPPool2d", "ZeroPad1d", "ZeroPad2d", "ZeroPad3d",
    "ConstantPad1d", "ConstantPad2d", "ConstantPad3d", "ReflectionPad1d", "ReflectionPad2d",
    "ReflectionPad3d", "ReplicationPad1d", "ReplicationPad2d", "ReplicationPad3d",
    "CircularPad1d", "CircularPad2d", "CircularPad3d", "Upsample", "UpsamplingNearest2d",
    "UpsamplingBilinear2d", "PixelShuffle", "PixelUnshuffle", "Unfold", "Fold", "Dropout1d",
    "Dropout2d", "Dropout3d", "AlphaDropout",
]


def _ntuple(v, n):
    if isinstance(v, (int, np.integer)):
        return (int(v),) * n
    v = tuple(v)
    return v * n if len(v) == 1 and n > 1 else v


# --------------------------------------------------------------------------
# convolution


class _ConvNd(Module):
    """Shared constructor, initialization and ``extra_repr`` of the convolutions."""

    _n = 2
    _transposed = False

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 dilation=1, groups=1, bias=True, padding_mode="zeros", device=None,
                 dtype=None, output_padding=0):
        super().__init__()
        check_device(device)
        n = self._n
        if groups <= 0:
            raise ValueError("groups must be a positive integer")
        if in_channels % groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        if out_channels % groups != 0:
            raise ValueError("out_channels must be divisible by groups")
        valid_modes = {"zeros", "reflect", "replicate", "circular"}
        if padding_mode not in valid_modes:
            raise ValueError(f"padding_mode must be one of {valid_modes}, but got "
                             f"padding_mode='{padding_mode}'")
        if isinstance(padding, str):
            if padding not in ("valid", "same"):
                raise ValueError(f"Invalid padding string {padding!r}, should be one of "
                                 f"{ {'same', 'valid'} }")
            if padding == "same" and any(s != 1 for s in _ntuple(stride, n)):
                raise ValueError("padding='same' is not supported for strided convolutions")
        if self._transposed and padding_mode != "zeros":
            raise ValueError(f'Only "zeros" padding mode is supported for '
                             f"{type(self).__name__}")
        self.in_channels = in_channels
        self.out_channels = out_channels
        self.kernel_size = _ntuple(kernel_size, n)
        self.stride = _ntuple(stride, n)
        self.padding = padding if isinstance(padding, str) else _ntuple(padding, n)
        self.dilation = _ntuple(dilation, n)
        self.transposed = self._transposed
        self.output_padding = _ntuple(output_padding, n)
        self.groups = groups
        self.padding_mode = padding_mode
        # F.pad's order (last axis first, (left, right) each) of the module's padding
        if isinstance(self.padding, str):
            pads = []
            if self.padding == "same":
                for d, k in zip(self.dilation, self.kernel_size):
                    total = d * (k - 1)
                    pads.append((total // 2, total - total // 2))
            else:
                pads = [(0, 0)] * n
        else:
            pads = [(p, p) for p in self.padding]
        self._reversed_padding_repeated_twice = tuple(v for pair in pads[::-1] for v in pair)
        if self._transposed:
            shape = (in_channels, out_channels // groups) + self.kernel_size
        else:
            shape = (out_channels, in_channels // groups) + self.kernel_size
        self.weight = Parameter(_creation.empty(*shape, dtype=dtype))
        if bias:
            self.bias = Parameter(_creation.empty(out_channels, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        """PyTorch's default: ``kaiming_uniform_(a=sqrt(5))`` for the weight (so
        ``U(-1/sqrt(fan_in), 1/sqrt(fan_in))``), the same bound for the bias."""
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            if fan_in != 0:
                bound = 1 / math.sqrt(fan_in)
                init.uniform_(self.bias, -bound, bound)

    def extra_repr(self):
        n = self._n
        s = (f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, "
             f"stride={self.stride}")
        if self.padding != (0,) * n:
            s += f", padding={self.padding}"
        if self.dilation != (1,) * n:
            s += f", dilation={self.dilation}"
        if self.output_padding != (0,) * n:
            s += f", output_padding={self.output_padding}"
        if self.groups != 1:
            s += f", groups={self.groups}"
        if self.bias is None:
            s += ", bias=False"
        if self.padding_mode != "zeros":
            s += f", padding_mode={self.padding_mode}"
        return s

    def _conv_forward(self, input, weight, bias):
        fn = (F.conv1d, F.conv2d, F.conv3d)[self._n - 1]
        if self.padding_mode != "zeros":
            return fn(F.pad(input, self._reversed_padding_repeated_twice, mode=self.padding_mode),
                      weight, bias, self.stride, 0, self.dilation, self.groups)
        return fn(input, weight, bias, self.stride, self.padding, self.dilation, self.groups)

    def forward(self, input):
        """The convolution of ``input`` with ``self.weight`` (plus ``self.bias``)."""
        return self._conv_forward(input, self.weight, self.bias)


class Conv1d(_ConvNd):
    """1-D convolution over ``(N, C_in, L)`` inputs.

    Parameters
    ----------
    in_channels, out_channels : int
    kernel_size : int or tuple
    stride, dilation, groups : int or tuple, optional
    padding : int, tuple, 'valid' or 'same', optional
    bias : bool, optional
    padding_mode : {'zeros', 'reflect', 'replicate', 'circular'}, optional
    device, dtype : optional

    Attributes
    ----------
    weight : Parameter
        ``(out_channels, in_channels / groups, k)``, from ``U(-b, b)`` with
        ``b = 1 / sqrt(in_channels / groups * k)``.
    bias : Parameter or None
        ``(out_channels,)``, same distribution.

    Raises
    ------
    ValueError
        Channels not divisible by ``groups``, an unknown padding mode or
        string, or ``'same'`` with a stride.
    """

    _n = 1


class Conv2d(_ConvNd):
    """2-D convolution over ``(N, C_in, H, W)`` inputs; see :class:`Conv1d`
    (weight ``(out_channels, in_channels / groups, kH, kW)``)."""

    _n = 2


class Conv3d(_ConvNd):
    """3-D convolution over ``(N, C_in, D, H, W)`` inputs; see :class:`Conv1d`."""

    _n = 3


class _ConvTransposeNd(_ConvNd):
    _transposed = True

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 output_padding=0, groups=1, bias=True, dilation=1, padding_mode="zeros",
                 device=None, dtype=None):
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation,
                         groups, bias, padding_mode, device, dtype, output_padding)

    def _output_padding(self, input, output_size):
        if output_size is None:
            return self.output_padding
        n = self._n
        size = list(output_size)[-n:]
        spatial = input.shape[-n:]
        pads = []
        for i in range(n):
            smallest = ((spatial[i] - 1) * self.stride[i] - 2 * self.padding[i]
                        + self.dilation[i] * (self.kernel_size[i] - 1) + 1)
            largest = smallest + self.stride[i] - 1
            if not smallest <= size[i] <= largest:
                raise ValueError(
                    f"requested an output size of {size}, but valid sizes range from "
                    f"{smallest} to {largest} (for an input of {list(spatial)})")
            pads.append(size[i] - smallest)
        return tuple(pads)

    def forward(self, input, output_size=None):
        """The transposed convolution of ``input`` (``output_size`` picks the
        output padding, as in PyTorch)."""
        fn = (F.conv_transpose1d, F.conv_transpose2d, F.conv_transpose3d)[self._n - 1]
        return fn(input, self.weight, self.bias, self.stride, self.padding,
                  self._output_padding(input, output_size), self.groups, self.dilation)


class ConvTranspose1d(_ConvTransposeNd):
    """Transposed 1-D convolution; weight ``(in_channels, out_channels / groups, k)``
    (initialized as :class:`Conv1d`'s, from its own fan-in)."""

    _n = 1


class ConvTranspose2d(_ConvTransposeNd):
    """Transposed 2-D convolution; see :class:`ConvTranspose1d`."""

    _n = 2


class ConvTranspose3d(_ConvTransposeNd):
    """Transposed 3-D convolution; see :class:`ConvTranspose1d`."""

    _n = 3


# --------------------------------------------------------------------------
# pooling


class _MaxPoolNd(Module):
    _fn = None

    def __init__(self, kernel_size, stride=None, padding=0, dilation=1, return_indices=False,
                 ceil_mode=False):
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding = padding
        self.dilation = dilation
        self.return_indices = return_indices
        self.ceil_mode = ceil_mode

    def forward(self, input):
        """Max pooling of ``input`` (and the indices with ``return_indices``)."""
        return type(self)._fn(input, self.kernel_size, self.stride, self.padding,
                              self.dilation, ceil_mode=self.ceil_mode,
                              return_indices=self.return_indices)

    def extra_repr(self):
        return (f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}, "
                f"dilation={self.dilation}, ceil_mode={self.ceil_mode}")


class MaxPool1d(_MaxPoolNd):
    """Max pooling over ``(N, C, L)``; arguments as :func:`.functional.max_pool1d`."""

    _fn = staticmethod(F.max_pool1d)


class MaxPool2d(_MaxPoolNd):
    """Max pooling over ``(N, C, H, W)``; arguments as :func:`.functional.max_pool2d`."""

    _fn = staticmethod(F.max_pool2d)


class MaxPool3d(_MaxPoolNd):
    """Max pooling over ``(N, C, D, H, W)``; arguments as :func:`.functional.max_pool3d`."""

    _fn = staticmethod(F.max_pool3d)


class AvgPool1d(Module):
    """Average pooling over ``(N, C, L)``; arguments as :func:`.functional.avg_pool1d`."""

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False,
                 count_include_pad=True):
        super().__init__()
        self.kernel_size = _ntuple(kernel_size, 1)
        self.stride = _ntuple(stride if stride is not None else kernel_size, 1)
        self.padding = _ntuple(padding, 1)
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad

    def forward(self, input):
        """Average pooling of ``input``."""
        return F.avg_pool1d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.count_include_pad)

    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class _AvgPoolNd(Module):
    _fn = None

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False,
                 count_include_pad=True, divisor_override=None):
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding = padding
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad
        self.divisor_override = divisor_override

    def forward(self, input):
        """Average pooling of ``input``."""
        return type(self)._fn(input, self.kernel_size, self.stride, self.padding,
                              self.ceil_mode, self.count_include_pad, self.divisor_override)

    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class AvgPool2d(_AvgPoolNd):
    """Average pooling over ``(N, C, H, W)``; arguments as :func:`.functional.avg_pool2d`."""

    _fn = staticmethod(F.avg_pool2d)


class AvgPool3d(_AvgPoolNd):
    """Average pooling over ``(N, C, D, H, W)``; arguments as :func:`.functional.avg_pool3d`."""

    _fn = staticmethod(F.avg_pool3d)


class _AdaptivePool(Module):
    _fn = None
    _max = False

    def __init__(self, output_size, return_indices=False):
        super().__init__()
        self.output_size = output_size
        if self._max:
            self.return_indices = return_indices

    def forward(self, input):
        """Adaptive pooling of ``input`` to ``output_size``."""
        if self._max:
            return type(self)._fn(input, self.output_size, self.return_indices)
        return type(self)._fn(input, self.output_size)

    def extra_repr(self):
        return f"output_size={self.output_size}"


class AdaptiveAvgPool1d(_AdaptivePool):
    """Average pooling to a fixed length; see :func:`.functional.adaptive_avg_pool1d`."""

    _fn = staticmethod(F.adaptive_avg_pool1d)

    def __init__(self, output_size):
        super().__init__(output_size)


class AdaptiveAvgPool2d(_AdaptivePool):
    """Average pooling to a fixed ``(H, W)``; see :func:`.functional.adaptive_avg_pool2d`."""

    _fn = staticmethod(F.adaptive_avg_pool2d)

    def __init__(self, output_size):
        super().__init__(output_size)


class AdaptiveAvgPool3d(_AdaptivePool):
    """Average pooling to a fixed ``(D, H, W)``; see :func:`.functional.adaptive_avg_pool3d`."""

    _fn = staticmethod(F.adaptive_avg_pool3d)

    def __init__(self, output_size):
        super().__init__(output_size)


class AdaptiveMaxPool1d(_AdaptivePool):
    """Max pooling to a fixed length; see :func:`.functional.adaptive_max_pool1d`."""

    _fn = staticmethod(F.adaptive_max_pool1d)
    _max = True


class AdaptiveMaxPool2d(_AdaptivePool):
    """Max pooling to a fixed ``(H, W)``; see :func:`.functional.adaptive_max_pool2d`."""

    _fn = staticmethod(F.adaptive_max_pool2d)
    _max = True


class _LPPool(Module):
    _fn = None

    def __init__(self, norm_type, kernel_size, stride=None, ceil_mode=False):
        super().__init__()
        self.norm_type = norm_type
        self.kernel_size = kernel_size
        self.stride = stride
        self.ceil_mode = ceil_mode

    def forward(self, input):
        """Power-average pooling of ``input``."""
        return type(self)._fn(input, float(self.norm_type), self.kernel_size, self.stride,
                              self.ceil_mode)

    def extra_repr(self):
        return (f"norm_type={self.norm_type}, kernel_size={self.kernel_size}, "
                f"stride={self.stride}, ceil_mode={self.ceil_mode}")


class LPPool1d(_LPPool):
    """Power-average pooling over ``(N, C, L)``; see :func:`.functional.lp_pool1d`."""

    _fn = staticmethod(F.lp_pool1d)


class LPPool2d(_LPPool):
    """Power-average pooling over ``(N, C, H, W)``; see :func:`.functional.lp_pool2d`."""

    _fn = staticmethod(F.lp_pool2d)


# --------------------------------------------------------------------------
# padding


class _PadNd(Module):
    _n = 1
    _mode = "constant"

    def __init__(self, padding, value=0.0):
        super().__init__()
        self.padding = _ntuple(padding, 2 * self._n)
        if self._mode == "constant":
            self.value = value

    def forward(self, input):
        """``F.pad(input, self.padding, mode)``."""
        if self._mode == "constant":
            return F.pad(input, self.padding, "constant", self.value)
        return F.pad(input, self.padding, self._mode)

    def extra_repr(self):
        if self._mode == "constant" and type(self).__name__.startswith("Constant"):
            return f"padding={self.padding}, value={self.value}"
        return f"{self.padding}"


def _pad_class(name, n, mode, zero=False):
    doc = (f"Pad the last {n} dimension(s) with {'zeros' if zero else mode} "
           f"(``F.pad(input, padding, {mode!r})``); ``padding`` is an int or a "
           f"{2 * n}-tuple ``(left, right{', top, bottom' if n > 1 else ''}"
           f"{', front, back' if n > 2 else ''})``.")
    if zero:
        def __init__(self, padding):
            _PadNd.__init__(self, padding, 0.0)
    elif mode == "constant":
        def __init__(self, padding, value):
            _PadNd.__init__(self, padding, value)
    else:
        def __init__(self, padding):
            _PadNd.__init__(self, padding)
    return type(name, (_PadNd,), {"_n": n, "_mode": mode, "__init__": __init__,
                                  "__doc__": doc, "__module__": __name__})


ZeroPad1d = _pad_class("ZeroPad1d", 1, "constant", zero=True)
ZeroPad2d = _pad_class("ZeroPad2d", 2, "constant", zero=True)
ZeroPad3d = _pad_class("ZeroPad3d", 3, "constant", zero=True)
ConstantPad1d = _pad_class("ConstantPad1d", 1, "constant")
ConstantPad2d = _pad_class("ConstantPad2d", 2, "constant")
ConstantPad3d = _pad_class("ConstantPad3d", 3, "constant")
ReflectionPad1d = _pad_class("ReflectionPad1d", 1, "reflect")
ReflectionPad2d = _pad_class("ReflectionPad2d", 2, "reflect")
ReflectionPad3d = _pad_class("ReflectionPad3d", 3, "reflect")
ReplicationPad1d = _pad_class("ReplicationPad1d", 1, "replicate")
ReplicationPad2d = _pad_class("ReplicationPad2d", 2, "replicate")
ReplicationPad3d = _pad_class("ReplicationPad3d", 3, "replicate")
CircularPad1d = _pad_class("CircularPad1d", 1, "circular")
CircularPad2d = _pad_class("CircularPad2d", 2, "circular")
CircularPad3d = _pad_class("CircularPad3d", 3, "circular")


# --------------------------------------------------------------------------
# resampling and rearrangement


class Upsample(Module):
    """Resample the spatial axes; arguments as :func:`.functional.interpolate`."""

    def __init__(self, size=None, scale_factor=None, mode="nearest", align_corners=None,
                 recompute_scale_factor=None):
        super().__init__()
        self.name = type(self).__name__
        self.size = size
        self.scale_factor = float(scale_factor) if isinstance(scale_factor, (int, float)) \
            else (tuple(float(v) for v in scale_factor) if scale_factor else None)
        self.mode = mode
        self.align_corners = align_corners
        self.recompute_scale_factor = recompute_scale_factor

    def forward(self, input):
        """``F.interpolate`` of ``input``."""
        return F.interpolate(input, self.size, self.scale_factor, self.mode, self.align_corners,
                             recompute_scale_factor=self.recompute_scale_factor)

    def extra_repr(self):
        if self.scale_factor is not None:
            info = f"scale_factor={self.scale_factor!r}"
        else:
            info = f"size={self.size!r}"
        return f"{info}, mode={self.mode!r}"


class UpsamplingNearest2d(Upsample):
    """Nearest-neighbour upsampling of ``(N, C, H, W)`` (deprecated alias)."""

    def __init__(self, size=None, scale_factor=None):
        super().__init__(size, scale_factor, mode="nearest")


class UpsamplingBilinear2d(Upsample):
    """Bilinear upsampling with ``align_corners=True`` (deprecated alias)."""

    def __init__(self, size=None, scale_factor=None):
        super().__init__(size, scale_factor, mode="bilinear", align_corners=True)


class PixelShuffle(Module):
    """``(*, C r^2, H, W) -> (*, C, H r, W r)``; see :func:`.functional.pixel_shuffle`."""

    def __init__(self, upscale_factor):
        super().__init__()
        self.upscale_factor = upscale_factor

    def forward(self, input):
        """``F.pixel_shuffle(input, upscale_factor)``."""
        return F.pixel_shuffle(input, self.upscale_factor)

    def extra_repr(self):
        return f"upscale_factor={self.upscale_factor}"


class PixelUnshuffle(Module):
    """``(*, C, H r, W r) -> (*, C r^2, H, W)``; see :func:`.functional.pixel_unshuffle`."""

    def __init__(self, downscale_factor):
        super().__init__()
        self.downscale_factor = downscale_factor

    def forward(self, input):
        """``F.pixel_unshuffle(input, downscale_factor)``."""
        return F.pixel_unshuffle(input, self.downscale_factor)

    def extra_repr(self):
        return f"downscale_factor={self.downscale_factor}"


class Unfold(Module):
    """Sliding blocks as columns; see :func:`.functional.unfold`."""

    def __init__(self, kernel_size, dilation=1, padding=0, stride=1):
        super().__init__()
        self.kernel_size = kernel_size
        self.dilation = dilation
        self.padding = padding
        self.stride = stride

    def forward(self, input):
        """``F.unfold(input, ...)``."""
        return F.unfold(input, self.kernel_size, self.dilation, self.padding, self.stride)

    def extra_repr(self):
        return (f"kernel_size={self.kernel_size}, dilation={self.dilation}, "
                f"padding={self.padding}, stride={self.stride}")


class Fold(Module):
    """Columns summed back into an image; see :func:`.functional.fold`."""

    def __init__(self, output_size, kernel_size, dilation=1, padding=0, stride=1):
        super().__init__()
        self.output_size = output_size
        self.kernel_size = kernel_size
        self.dilation = dilation
        self.padding = padding
        self.stride = stride

    def forward(self, input):
        """``F.fold(input, ...)``."""
        return F.fold(input, self.output_size, self.kernel_size, self.dilation, self.padding,
                      self.stride)

    def extra_repr(self):
        return (f"output_size={self.output_size}, kernel_size={self.kernel_size}, "
                f"dilation={self.dilation}, padding={self.padding}, stride={self.stride}")


# --------------------------------------------------------------------------
# channel dropout


class _DropoutNd(Module):
    _fn = None

    def __init__(self, p=0.5, inplace=False):
        super().__init__()
        if p < 0 or p > 1:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p = p
        self.inplace = inplace

    def forward(self, input):
        """Channel dropout of ``input`` in training mode (identity in eval mode)."""
        return type(self)._fn(input, self.p, self.training, self.inplace)

    def extra_repr(self):
        return f"p={self.p}, inplace={self.inplace}"


class Dropout1d(_DropoutNd):
    """Zero whole channels of ``(N, C, L)`` (or ``(C, L)``) with probability ``p``."""

    _fn = staticmethod(F.dropout1d)


class Dropout2d(_DropoutNd):
    """Zero whole channels of ``(N, C, H, W)`` with probability ``p``."""

    _fn = staticmethod(F.dropout2d)


class Dropout3d(_DropoutNd):
    """Zero whole channels of ``(N, C, D, H, W)`` with probability ``p``."""

    _fn = staticmethod(F.dropout3d)


class AlphaDropout(_DropoutNd):
    """Dropout that keeps the mean and variance of SELU activations."""

    _fn = staticmethod(F.alpha_dropout)


