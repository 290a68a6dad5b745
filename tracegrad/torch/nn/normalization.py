"""Normalization layers: ``BatchNorm1d/2d/3d``, ``InstanceNorm1d/2d``, ``LayerNorm``,
``GroupNorm``, ``LocalResponseNorm``.

PyTorch's constructor signatures, attribute names, ``extra_repr``, parameter
and buffer names (``weight``, ``bias``, ``running_mean``, ``running_var``,
``num_batches_tracked``, so ``state_dict`` keys match) and initialization
(weight ones, bias zeros, running mean 0, running variance 1).
"""
import numbers
import warnings

from .. import _creation
from .. import _dtype
from .._tensor import check_device
from . import _functional_norm as F
from . import init
from .module import Module
from .parameter import Parameter

__all__ = [
    "BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "InstanceNorm1d", "InstanceNorm2d",
    "LayerNorm", "GroupNorm", "LocalResponseNorm",
]


class _NormBase(Module):
    """Parameters and running-statistics buffers shared by batch and instance norm."""

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True,
                 track_running_stats=True, device=None, dtype=None, *, bias=True):
        super().__init__()
        check_device(device)
        self.num_features = num_features
        self.eps = eps
        self.momentum = momentum
        self.affine = affine
        self.track_running_stats = track_running_stats
        if affine:
            self.weight = Parameter(_creation.empty(num_features, dtype=dtype))
            if bias:
                self.bias = Parameter(_creation.empty(num_features, dtype=dtype))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        if track_running_stats:
            self.register_buffer("running_mean", _creation.zeros(num_features, dtype=dtype))
            self.register_buffer("running_var", _creation.ones(num_features, dtype=dtype))
            self.register_buffer("num_batches_tracked",
                                 _creation.tensor(0, dtype=_dtype.int64))
        else:
            self.register_buffer("running_mean", None)
            self.register_buffer("running_var", None)
            self.register_buffer("num_batches_tracked", None)
        self.reset_parameters()

    def reset_running_stats(self):
        """Running mean 0, running variance 1, ``num_batches_tracked`` 0 (in place)."""
        if self.track_running_stats:
            self.running_mean.zero_()
            self.running_var.fill_(1)
            self.num_batches_tracked.zero_()

    def reset_parameters(self):
        """Reset the running statistics; weight ones, bias zeros."""
        self.reset_running_stats()
        if self.affine:
            init.ones_(self.weight)
            if self.bias is not None:
                init.zeros_(self.bias)

    def _check_input_dim(self, input):
        raise NotImplementedError

    def extra_repr(self):
        return (f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, "
                f"affine={self.affine}, bias={self.bias is not None}, "
                f"track_running_stats={self.track_running_stats}")


class _BatchNorm(_NormBase):
    def forward(self, input):
        """``F.batch_norm`` with the batch's statistics in training mode (updating the
        running ones, ``num_batches_tracked`` and, for ``momentum=None``, the
        cumulative average), the running statistics in evaluation mode."""
        self._check_input_dim(input)
        factor = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats and self.num_batches_tracked is not None:
            self.num_batches_tracked.add_(1)
            if self.momentum is None:
                factor = 1.0 / float(self.num_batches_tracked.item())
        use_batch = self.training or (self.running_mean is None and self.running_var is None)
        pass_stats = not self.training or self.track_running_stats
        return F.batch_norm(input, self.running_mean if pass_stats else None,
                            self.running_var if pass_stats else None, self.weight, self.bias,
                            use_batch, factor, self.eps)


class BatchNorm1d(_BatchNorm):
    """Batch normalization of ``(N, C)`` or ``(N, C, L)`` inputs over all but dimension 1.

    Parameters
    ----------
    num_features : int
        ``C``.
    eps : float, optional
        Added to the variance (default 1e-5).
    momentum : float or None, optional
        Weight of the new batch in the running statistics (default 0.1);
        None: the cumulative average of all batches.
    affine : bool, optional
        Learn ``weight`` (ones) and ``bias`` (zeros), shape ``(C,)``.
    track_running_stats : bool, optional
        Keep ``running_mean`` (zeros), ``running_var`` (ones) and
        ``num_batches_tracked`` (int64 0) buffers, used in evaluation mode;
        without them the batch's statistics are always used.
    device : 'cpu' or None, optional
    dtype : dtype, optional
    bias : bool, optional
        Keyword only (PyTorch 2.13): with ``affine``, also learn ``bias``.

    Raises
    ------
    ValueError
        In ``forward``, for an input of another rank, or a single value per
        channel in training (PyTorch's messages).
    """

    def _check_input_dim(self, input):
        if input.dim() not in (2, 3):
            raise ValueError(f"expected 2D or 3D input (got {input.dim()}D input)")


class BatchNorm2d(_BatchNorm):
    """Batch normalization of ``(N, C, H, W)`` inputs, statistics over ``(N, H, W)``.

    Parameters as :class:`BatchNorm1d`.

    Raises
    ------
    ValueError
        In ``forward``, for an input that is not 4-D, or a single value per
        channel in training.
    """

    def _check_input_dim(self, input):
        if input.dim() != 4:
            raise ValueError(f"expected 4D input (got {input.dim()}D input)")


class BatchNorm3d(_BatchNorm):
    """Batch normalization of ``(N, C, D, H, W)`` inputs.

    Parameters as :class:`BatchNorm1d`.

    Raises
    ------
    ValueError
        In ``forward``, for an input that is not 5-D, or a single value per
        channel in training.
    """

    def _check_input_dim(self, input):
        if input.dim() != 5:
            raise ValueError(f"expected 5D input (got {input.dim()}D input)")


class _InstanceNorm(_NormBase):
    _no_batch_dim = None
    _dims = None

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=False,
                 track_running_stats=False, device=None, dtype=None, *, bias=True):
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device,
                         dtype, bias=bias)

    def _check_input_dim(self, input):
        if input.dim() not in self._dims:
            raise ValueError(f"expected {self._dims[0]}D or {self._dims[1]}D input (got "
                             f"{input.dim()}D input)")

    def forward(self, input):
        """``F.instance_norm``; an unbatched input gets a batch dimension of 1 for the call."""
        self._check_input_dim(input)
        feature_dim = input.dim() - self._no_batch_dim
        if input.size(feature_dim) != self.num_features:
            if self.affine:
                raise ValueError(
                    f"expected input's size at dim={feature_dim} to match num_features "
                    f"({self.num_features}), but got: {input.size(feature_dim)}.")
            warnings.warn(f"input's size at dim={feature_dim} does not match num_features. You "
                          "can silence this warning by not passing in num_features, which is "
                          "not used because affine=False", stacklevel=3)
        unbatched = input.dim() == self._no_batch_dim
        x = input.unsqueeze(0) if unbatched else input
        out = F.instance_norm(x, self.running_mean, self.running_var, self.weight, self.bias,
                              self.training or not self.track_running_stats,
                              self.momentum if self.momentum is not None else 0.0, self.eps)
        return out.squeeze(0) if unbatched else out


class InstanceNorm1d(_InstanceNorm):
    """Instance normalization of ``(N, C, L)`` or unbatched ``(C, L)`` inputs.

    Parameters as :class:`BatchNorm1d`, with the defaults ``affine=False``
    and ``track_running_stats=False``.

    Raises
    ------
    ValueError
        In ``forward``, for an input that is not 2-D or 3-D, a channel count
        other than ``num_features`` with ``affine``, or a single spatial
        element (PyTorch's messages).
    """

    _no_batch_dim = 2
    _dims = (2, 3)


class InstanceNorm2d(_InstanceNorm):
    """Instance normalization of ``(N, C, H, W)`` or unbatched ``(C, H, W)`` inputs.

    Parameters as :class:`InstanceNorm1d`.

    Raises
    ------
    ValueError
        As :class:`InstanceNorm1d`, for inputs that are not 3-D or 4-D.
    """

    _no_batch_dim = 3
    _dims = (3, 4)


class LayerNorm(Module):
    """Layer normalization over the trailing dimensions ``normalized_shape``.

    Parameters
    ----------
    normalized_shape : int or sequence of int
    eps : float, optional
    elementwise_affine : bool, optional
        Learn ``weight`` (ones) and ``bias`` (zeros) of shape
        ``normalized_shape`` (default True).
    bias : bool, optional
        With ``elementwise_affine``, also learn ``bias`` (default True).
    device : 'cpu' or None, optional
    dtype : dtype, optional
    """

    def __init__(self, normalized_shape, eps=1e-5, elementwise_affine=True, bias=True,
                 device=None, dtype=None):
        super().__init__()
        check_device(device)
        if isinstance(normalized_shape, numbers.Integral):
            normalized_shape = (normalized_shape,)
        self.normalized_shape = tuple(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        if elementwise_affine:
            self.weight = Parameter(_creation.empty(*self.normalized_shape, dtype=dtype))
            if bias:
                self.bias = Parameter(_creation.empty(*self.normalized_shape, dtype=dtype))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        """Weight ones, bias zeros."""
        if self.elementwise_affine:
            init.ones_(self.weight)
            if self.bias is not None:
                init.zeros_(self.bias)

    def forward(self, input):
        """``F.layer_norm(input, normalized_shape, weight, bias, eps)``."""
        return F.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self):
        return (f"{self.normalized_shape}, eps={self.eps}, "
                f"elementwise_affine={self.elementwise_affine}, bias={self.bias is not None}")


class GroupNorm(Module):
    """Group normalization: ``num_channels`` split into ``num_groups`` normalized groups.

    Parameters
    ----------
    num_groups, num_channels : int
    eps : float, optional
    affine : bool, optional
        Learn per-channel ``weight`` (ones) and ``bias`` (zeros).
    device : 'cpu' or None, optional
    dtype : dtype, optional
    bias : bool, optional
        Keyword only; with ``affine``, also learn ``bias``.

    Raises
    ------
    ValueError
        If ``num_channels`` is not divisible by ``num_groups``.
    """

    def __init__(self, num_groups, num_channels, eps=1e-5, affine=True, device=None,
                 dtype=None, *, bias=True):
        super().__init__()
        check_device(device)
        if num_channels % num_groups != 0:
            raise ValueError(f"num_channels ({num_channels}) must be divisible by num_groups "
                             f"({num_groups})")
        self.num_groups = num_groups
        self.num_channels = num_channels
        self.eps = eps
        self.affine = affine
        if affine:
            self.weight = Parameter(_creation.empty(num_channels, dtype=dtype))
            if bias:
                self.bias = Parameter(_creation.empty(num_channels, dtype=dtype))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        """Weight ones, bias zeros."""
        if self.affine:
            init.ones_(self.weight)
            if self.bias is not None:
                init.zeros_(self.bias)

    def forward(self, input):
        """``F.group_norm(input, num_groups, weight, bias, eps)``."""
        return F.group_norm(input, self.num_groups, self.weight, self.bias, self.eps)

    def extra_repr(self):
        return (f"{self.num_groups}, {self.num_channels}, eps={self.eps}, "
                f"affine={self.affine}, bias={self.bias is not None}")


class LocalResponseNorm(Module):
    """Local response normalization across channels (see ``F.local_response_norm``).

    Parameters
    ----------
    size : int
    alpha, beta, k : float, optional
    """

    def __init__(self, size, alpha=1e-4, beta=0.75, k=1.0):
        super().__init__()
        self.size = size
        self.alpha = alpha
        self.beta = beta
        self.k = k

    def forward(self, input):
        """``F.local_response_norm(input, size, alpha, beta, k)``."""
        return F.local_response_norm(input, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self):
        return f"{self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"
