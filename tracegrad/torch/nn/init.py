"""``nn.init``: fill a tensor in place with PyTorch's initialization schemes.

Each function writes into its tensor under ``no_grad`` (so it works on
parameters that require grad), bumps the tensor's version counter as any
in-place write does, and returns the tensor.  The formulas (fans, gains,
bounds) are PyTorch's; the random numbers come from tracegrad's generator
(:func:`~tracegrad.torch.manual_seed`, or the ``generator`` argument), so
the values differ from PyTorch's while the distributions are the same.
"""
import math
import numbers
import warnings

import numpy as np

from .. import _creation, _grad_mode
from .._methods import _write

__all__ = [
    "calculate_gain", "uniform_", "normal_", "trunc_normal_", "constant_", "ones_",
    "zeros_", "eye_", "xavier_uniform_", "xavier_normal_", "kaiming_uniform_",
    "kaiming_normal_", "orthogonal_", "dirac_", "sparse_",
]

_LINEAR_LIKE = ("linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d",
                "conv_transpose2d", "conv_transpose3d", "sigmoid")


def calculate_gain(nonlinearity, param=None):
    """The recommended gain (scale of the weights' standard deviation) for a nonlinearity.

    Parameters
    ----------
    nonlinearity : str
        ``'linear'``, the ``'conv*'`` names and ``'sigmoid'`` (gain 1),
        ``'tanh'`` (5/3), ``'relu'`` (sqrt 2), ``'leaky_relu'``
        (``sqrt(2 / (1 + slope**2))``) or ``'selu'`` (3/4).
    param : float, optional
        The negative slope of ``'leaky_relu'`` (default 0.01).

    Returns
    -------
    float

    Raises
    ------
    ValueError
        For an unknown nonlinearity or a slope that is not a number.

    Notes
    -----
    The values are PyTorch's (``torch.nn.init.calculate_gain``); the ReLU
    gain keeps the variance of activations constant through layers (He et
    al. 2015, "Delving Deep into Rectifiers").
    """
    if nonlinearity in _LINEAR_LIKE:
        return 1
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        if param is None:
            slope = 0.01
        elif isinstance(param, numbers.Number) and not isinstance(param, bool):
            slope = param
        else:
            raise ValueError(f"negative_slope {param} not a valid number")
        return math.sqrt(2.0 / (1 + slope ** 2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError(f"Unsupported nonlinearity {nonlinearity}")


def _calculate_fan_in_and_fan_out(tensor):
    """``(fan_in, fan_out)`` of a weight: ``size(1) * receptive``, ``size(0) * receptive``."""
    if tensor.dim() < 2:
        raise ValueError(
            "Fan in and fan out can not be computed for tensor with fewer than 2 dimensions"
        )
    receptive = 1
    for s in tensor.shape[2:]:
        receptive *= s
    return tensor.shape[1] * receptive, tensor.shape[0] * receptive


def _calculate_correct_fan(tensor, mode):
    mode = mode.lower()
    if mode not in ("fan_in", "fan_out"):
        raise ValueError(f"Mode {mode} not supported, please use one of ['fan_in', 'fan_out']")
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return fan_in if mode == "fan_in" else fan_out


def _rng(generator):
    return (generator or _creation.default_generator)._rng


def _fill(tensor, values):
    with _grad_mode.no_grad():
        _write(tensor, np.asarray(values))
    return tensor


def uniform_(tensor, a=0.0, b=1.0, generator=None):
    """Fill ``tensor`` with samples of the uniform distribution on ``[a, b)``.

    Parameters
    ----------
    tensor : Tensor
    a, b : float, optional
        The bounds (default 0 and 1).
    generator : Generator, optional

    Returns
    -------
    Tensor
        ``tensor`` itself.
    """
    return _fill(tensor, _rng(generator).uniform(a, b, tensor.shape))


def normal_(tensor, mean=0.0, std=1.0, generator=None):
    """Fill ``tensor`` with samples of the normal distribution ``N(mean, std**2)``.

    Parameters
    ----------
    tensor : Tensor
    mean, std : float, optional
    generator : Generator, optional

    Returns
    -------
    Tensor
        ``tensor`` itself.
    """
    return _fill(tensor, _rng(generator).normal(mean, std, tensor.shape))


def trunc_normal_(tensor, mean=0.0, std=1.0, a=-2.0, b=2.0, generator=None):
    """Fill ``tensor`` with ``N(mean, std**2)`` samples conditioned on ``[a, b]``.

    Parameters
    ----------
    tensor : Tensor
    mean, std : float, optional
    a, b : float, optional
        The truncation bounds, in the units of the samples (default -2, 2).
    generator : Generator, optional

    Returns
    -------
    Tensor
        ``tensor`` itself.

    Notes
    -----
    Sampled by rejection: draws outside ``[a, b]`` are redrawn.
    """
    rng = _rng(generator)
    n = tensor.numel()
    out = np.empty(n)
    filled = 0
    for _ in range(1000):
        if filled == n:
            break
        draw = rng.normal(mean, std, max(2 * (n - filled), 16))
        draw = draw[(draw >= a) & (draw <= b)][: n - filled]
        out[filled:filled + draw.size] = draw
        filled += draw.size
    else:
        raise ValueError(
            f"trunc_normal_: the interval [{a}, {b}] has almost no probability under "
            f"N({mean}, {std}**2); widen it or move the mean inside."
        )
    return _fill(tensor, out.reshape(tensor.shape))


def constant_(tensor, val):
    """Fill ``tensor`` with the value ``val``; returns ``tensor``.

    Parameters
    ----------
    tensor : Tensor
    val : float

    Returns
    -------
    Tensor
    """
    return _fill(tensor, val)


def ones_(tensor):
    """Fill ``tensor`` with ones; returns ``tensor``.

    Parameters
    ----------
    tensor : Tensor

    Returns
    -------
    Tensor
    """
    return _fill(tensor, 1)


def zeros_(tensor):
    """Fill ``tensor`` with zeros; returns ``tensor``.

    Parameters
    ----------
    tensor : Tensor

    Returns
    -------
    Tensor
    """
    return _fill(tensor, 0)


def eye_(tensor):
    """Fill a 2-D ``tensor`` with the identity matrix; returns ``tensor``.

    Parameters
    ----------
    tensor : Tensor
        2-D.

    Returns
    -------
    Tensor

    Raises
    ------
    ValueError
        If ``tensor`` is not 2-D.
    """
    if tensor.dim() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    return _fill(tensor, np.eye(*tensor.shape))


def _xavier_std(tensor, gain):
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return gain * math.sqrt(2.0 / float(fan_in + fan_out))


def xavier_uniform_(tensor, gain=1.0, generator=None):
    """Glorot/Xavier uniform: ``U(-a, a)``, ``a = gain * sqrt(6 / (fan_in + fan_out))``.

    Parameters
    ----------
    tensor : Tensor
        At least 2-D (``fan_in = size(1) * receptive field``,
        ``fan_out = size(0) * receptive field``).
    gain : float, optional
    generator : Generator, optional

    Returns
    -------
    Tensor
        ``tensor`` itself.

    Raises
    ------
    ValueError
        If ``tensor`` has fewer than 2 dimensions.

    Notes
    -----
    Glorot and Bengio (2010), "Understanding the difficulty of training deep
    feedforward neural networks".
    """
    a = math.sqrt(3.0) * _xavier_std(tensor, gain)
    return uniform_(tensor, -a, a, generator)


def xavier_normal_(tensor, gain=1.0, generator=None):
    """Glorot/Xavier normal: ``N(0, std**2)``, ``std = gain * sqrt(2 / (fan_in + fan_out))``.

    Parameters
    ----------
    tensor : Tensor
        At least 2-D.
    gain : float, optional
    generator : Generator, optional

    Returns
    -------
    Tensor
        ``tensor`` itself.

    Raises
    ------
    ValueError
        If ``tensor`` has fewer than 2 dimensions.
    """
    return normal_(tensor, 0.0, _xavier_std(tensor, gain), generator)


def _kaiming_std(tensor, a, mode, nonlinearity):
    fan = _calculate_correct_fan(tensor, mode)
    return calculate_gain(nonlinearity, a) / math.sqrt(fan)


def _empty_noop(tensor):
    if 0 in tensor.shape:
        warnings.warn("Initializing zero-element tensors is a no-op", UserWarning, stacklevel=3)
        return True
    return False


def kaiming_uniform_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu", generator=None):
    """He/Kaiming uniform: ``U(-bound, bound)``, ``bound = gain * sqrt(3 / fan)``.

    Parameters
    ----------
    tensor : Tensor
        At least 2-D.
    a : float, optional
        Negative slope of the rectifier after this layer (for
        ``'leaky_relu'``; default 0).
    mode : {'fan_in', 'fan_out'}, optional
        Preserve the variance of the forward pass (``fan_in``, default) or of
        the backward pass (``fan_out``).
    nonlinearity : str, optional
        See :func:`calculate_gain` (default ``'leaky_relu'``).
    generator : Generator, optional

    Returns
    -------
    Tensor
        ``tensor`` itself (unchanged, with a warning, if it has no elements).

    Raises
    ------
    ValueError
        For fewer than 2 dimensions, an unknown mode or nonlinearity.

    Notes
    -----
    He et al. (2015), "Delving Deep into Rectifiers".  ``nn.Linear`` uses
    ``a = sqrt(5)``, which makes ``bound = 1 / sqrt(fan_in)``.
    """
    if _empty_noop(tensor):
        return tensor
    bound = math.sqrt(3.0) * _kaiming_std(tensor, a, mode, nonlinearity)
    return uniform_(tensor, -bound, bound, generator)


def kaiming_normal_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu", generator=None):
    """He/Kaiming normal: ``N(0, std**2)``, ``std = gain / sqrt(fan)``.

    Parameters
    ----------
    tensor : Tensor
        At least 2-D.
    a : float, optional
    mode : {'fan_in', 'fan_out'}, optional
    nonlinearity : str, optional
    generator : Generator, optional

    Returns
    -------
    Tensor
        ``tensor`` itself (unchanged, with a warning, if it has no elements).

    Raises
    ------
    ValueError
        For fewer than 2 dimensions, an unknown mode or nonlinearity.
    """
    if _empty_noop(tensor):
        return tensor
    return normal_(tensor, 0.0, _kaiming_std(tensor, a, mode, nonlinearity), generator)


def orthogonal_(tensor, gain=1, generator=None):
    """Fill ``tensor`` with a (semi-)orthogonal matrix times ``gain``.

    Parameters
    ----------
    tensor : Tensor
        At least 2-D; the trailing dimensions are flattened.
    gain : float, optional
    generator : Generator, optional

    Returns
    -------
    Tensor
        ``tensor`` itself.

    Raises
    ------
    ValueError
        If ``tensor`` has fewer than 2 dimensions.

    Notes
    -----
    The Q factor of the QR decomposition of a Gaussian matrix, with the
    signs fixed by R's diagonal so the result is uniformly distributed
    (Saxe et al. 2013, "Exact solutions to the nonlinear dynamics of
    learning in deep linear neural networks").
    """
    if tensor.dim() < 2:
        raise ValueError("Only tensors with 2 or more dimensions are supported")
    if tensor.numel() == 0:
        return tensor
    rows = tensor.shape[0]
    cols = tensor.numel() // rows
    flat = _rng(generator).standard_normal((rows, cols))
    if rows < cols:
        flat = flat.T
    q, r = np.linalg.qr(flat)
    q = q * np.sign(np.diag(r))
    if rows < cols:
        q = q.T
    return _fill(tensor, (gain * q).reshape(tensor.shape))


def dirac_(tensor, groups=1):
    """Fill a 3-, 4- or 5-D convolution weight with the Dirac delta (an identity filter).

    Each of the ``groups`` blocks of ``size(0) // groups`` output channels maps
    input channel ``d`` to output channel ``d`` through a single 1 at the
    centre of the kernel (index ``size(k) // 2`` in each spatial dimension);
    everything else is 0.

    Parameters
    ----------
    tensor : Tensor
        3-, 4- or 5-D: ``(out_channels, in_channels, *kernel)``.
    groups : int, optional
        Number of groups (default 1); must divide ``size(0)``.

    Returns
    -------
    Tensor
        ``tensor`` itself.

    Raises
    ------
    ValueError
        For another rank, or ``size(0)`` not divisible by ``groups``.
    """
    if tensor.dim() not in (3, 4, 5):
        raise ValueError("Only tensors with 3, 4, or 5 dimensions are supported")
    shape = tuple(tensor.shape)
    if shape[0] % groups != 0:
        raise ValueError("dim 0 must be divisible by groups")
    per_group = shape[0] // groups
    centre = tuple(n // 2 for n in shape[2:])
    values = np.zeros(shape)
    for g in range(groups):
        for d in range(min(per_group, shape[1])):
            values[(g * per_group + d, d) + centre] = 1
    return _fill(tensor, values)


def sparse_(tensor, sparsity, std=0.01, generator=None):
    """Fill a 2-D tensor with ``N(0, std**2)`` samples, then zero a fraction of each column.

    In each column, ``ceil(sparsity * rows)`` entries chosen at random are set
    to 0 (Martens 2010, "Deep learning via Hessian-free optimization").

    Parameters
    ----------
    tensor : Tensor
        2-D.
    sparsity : float
        Fraction of each column to zero.
    std : float, optional
        Standard deviation of the nonzero entries (default 0.01).
    generator : Generator, optional

    Returns
    -------
    Tensor
        ``tensor`` itself.

    Raises
    ------
    ValueError
        If ``tensor`` is not 2-D.
    """
    if tensor.dim() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    rows, cols = tuple(tensor.shape)
    n_zeros = int(math.ceil(sparsity * rows))
    rng = _rng(generator)
    values = rng.normal(0.0, std, (rows, cols))
    for c in range(cols):
        values[rng.permutation(rows)[:n_zeros], c] = 0
    return _fill(tensor, values)
