"""Layers and activation modules: ``Linear``, ``Flatten``, ``Dropout``, ``ReLU``, ...

Each module keeps PyTorch's constructor signature, attribute names
(``in_features``, ``weight``, ``bias``, ``p``, ``dim``), ``extra_repr`` and
default initialization, and calls the function of the same name in
:mod:`.functional`.
"""
import math

from .. import _creation, _ops
from .._tensor import check_device
from . import functional as F
from . import init
from .module import Module
from .parameter import Parameter

__all__ = [
    "Identity", "Linear", "Flatten", "Unflatten", "Dropout", "ReLU", "Tanh", "Sigmoid",
    "Softmax", "LogSoftmax", "LeakyReLU", "GELU", "SiLU", "ELU", "Softplus", "LogSigmoid",
]


class Identity(Module):
    """Returns its input unchanged (arguments to the constructor are ignored)."""

    def __init__(self, *args, **kwargs):
        super().__init__()

    def forward(self, input):
        """Return ``input`` itself."""
        return input


class Linear(Module):
    """``y = x @ weight.T + bias``.

    Parameters
    ----------
    in_features, out_features : int
    bias : bool, optional
        Learn an additive bias (default True).
    device : 'cpu' or None, optional
    dtype : dtype, optional
        Default: the default dtype (float32).

    Attributes
    ----------
    weight : Parameter
        Shape ``(out_features, in_features)``, initialized from
        ``U(-1/sqrt(in_features), 1/sqrt(in_features))`` (PyTorch's
        ``kaiming_uniform_(a=sqrt(5))``).
    bias : Parameter or None
        Shape ``(out_features,)``, from the same distribution.
    """

    def __init__(self, in_features, out_features, bias=True, device=None, dtype=None):
        super().__init__()
        check_device(device)
        self.in_features = in_features
        self.out_features = out_features
        self.weight = Parameter(_creation.empty(out_features, in_features, dtype=dtype))
        if bias:
            self.bias = Parameter(_creation.empty(out_features, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        """Draw new weights and bias from PyTorch's default distributions."""
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input):
        """``F.linear(input, self.weight, self.bias)``."""
        return F.linear(input, self.weight, self.bias)

    def extra_repr(self):
        return (f"in_features={self.in_features}, out_features={self.out_features}, "
                f"bias={self.bias is not None}")


class Flatten(Module):
    """Flatten dimensions ``start_dim`` to ``end_dim`` (default: all but the batch dimension).

    Parameters
    ----------
    start_dim : int, optional
        Default 1.
    end_dim : int, optional
        Default -1.
    """

    def __init__(self, start_dim=1, end_dim=-1):
        super().__init__()
        self.start_dim = start_dim
        self.end_dim = end_dim

    def forward(self, input):
        """``input.flatten(start_dim, end_dim)``."""
        return _ops.flatten(input, self.start_dim, self.end_dim)

    def extra_repr(self):
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"


class Unflatten(Module):
    """Expand dimension ``dim`` into the shape ``unflattened_size``.

    Parameters
    ----------
    dim : int
    unflattened_size : tuple of int
    """

    def __init__(self, dim, unflattened_size):
        super().__init__()
        self.dim = dim
        self.unflattened_size = unflattened_size

    def forward(self, input):
        """``input`` with dimension ``dim`` reshaped to ``unflattened_size``."""
        shape = list(input.shape)
        d = self.dim % len(shape)
        return _ops.reshape(input, *shape[:d], *self.unflattened_size, *shape[d + 1:])

    def extra_repr(self):
        return f"dim={self.dim}, unflattened_size={self.unflattened_size}"


class Dropout(Module):
    """Randomly zero elements with probability ``p`` in training mode (identity in eval mode).

    Parameters
    ----------
    p : float, optional
        Default 0.5.
    inplace : bool, optional

    Raises
    ------
    ValueError
        If ``p`` is outside ``[0, 1]``.
    """

    def __init__(self, p=0.5, inplace=False):
        super().__init__()
        if p < 0 or p > 1:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p = p
        self.inplace = inplace

    def forward(self, input):
        """``F.dropout(input, p, self.training, inplace)``."""
        return F.dropout(input, self.p, self.training, self.inplace)

    def extra_repr(self):
        return f"p={self.p}, inplace={self.inplace}"


class _Inplace(Module):
    """An activation with PyTorch's ``inplace`` flag."""

    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def extra_repr(self):
        return "inplace=True" if self.inplace else ""


class ReLU(_Inplace):
    """``max(x, 0)`` elementwise."""

    def forward(self, input):
        """``F.relu(input, inplace)``."""
        return F.relu(input, inplace=self.inplace)


class SiLU(_Inplace):
    """``x * sigmoid(x)`` elementwise."""

    def forward(self, input):
        """``F.silu(input, inplace)``."""
        return F.silu(input, inplace=self.inplace)


class Tanh(Module):
    """``tanh(x)`` elementwise."""

    def forward(self, input):
        """``torch.tanh(input)``."""
        return _ops.tanh(input)


class Sigmoid(Module):
    """``1 / (1 + exp(-x))`` elementwise."""

    def forward(self, input):
        """``torch.sigmoid(input)``."""
        return _ops.sigmoid(input)


class LogSigmoid(Module):
    """``log(sigmoid(x))`` elementwise, computed stably."""

    def forward(self, input):
        """``F.logsigmoid(input)``."""
        return F.logsigmoid(input)


class Softmax(Module):
    """Softmax along ``dim``.

    Parameters
    ----------
    dim : int, optional
        None (deprecated) picks PyTorch's legacy dimension with a warning.
    """

    def __init__(self, dim=None):
        super().__init__()
        self.dim = dim

    def forward(self, input):
        """``F.softmax(input, self.dim)``."""
        return F.softmax(input, self.dim, _stacklevel=5)

    def extra_repr(self):
        return f"dim={self.dim}"


class LogSoftmax(Softmax):
    """Log-softmax along ``dim``, computed stably.

    Parameters
    ----------
    dim : int, optional
    """

    def forward(self, input):
        """``F.log_softmax(input, self.dim)``."""
        return F.log_softmax(input, self.dim, _stacklevel=5)


class LeakyReLU(Module):
    """``x`` where positive, else ``negative_slope * x``.

    Parameters
    ----------
    negative_slope : float, optional
        Default 0.01.
    inplace : bool, optional
    """

    def __init__(self, negative_slope=0.01, inplace=False):
        super().__init__()
        self.negative_slope = negative_slope
        self.inplace = inplace

    def forward(self, input):
        """``F.leaky_relu(input, negative_slope, inplace)``."""
        return F.leaky_relu(input, self.negative_slope, self.inplace)

    def extra_repr(self):
        return f"negative_slope={self.negative_slope}" + (", inplace=True" if self.inplace else "")


class GELU(Module):
    """Gaussian error linear unit.

    Parameters
    ----------
    approximate : {'none', 'tanh'}, optional
    """

    def __init__(self, approximate="none"):
        super().__init__()
        self.approximate = approximate

    def forward(self, input):
        """``F.gelu(input, approximate)``."""
        return F.gelu(input, approximate=self.approximate)

    def extra_repr(self):
        return f"approximate={self.approximate!r}"


class ELU(Module):
    """``x`` where positive, else ``alpha * (exp(x) - 1)``.

    Parameters
    ----------
    alpha : float, optional
    inplace : bool, optional
    """

    def __init__(self, alpha=1.0, inplace=False):
        super().__init__()
        self.alpha = alpha
        self.inplace = inplace

    def forward(self, input):
        """``F.elu(input, alpha, inplace)``."""
        return F.elu(input, self.alpha, self.inplace)

    def extra_repr(self):
        return f"alpha={self.alpha}" + (", inplace=True" if self.inplace else "")


class Softplus(Module):
    """``log(1 + exp(beta * x)) / beta`` (``x`` above ``threshold``).

    Parameters
    ----------
    beta : float, optional
    threshold : float, optional
    """

    def __init__(self, beta=1.0, threshold=20.0):
        super().__init__()
        self.beta = beta
        self.threshold = threshold

    def forward(self, input):
        """``F.softplus(input, beta, threshold)``."""
        return F.softplus(input, self.beta, self.threshold)

    def extra_repr(self):
        return f"beta={self.beta}, threshold={self.threshold}"

