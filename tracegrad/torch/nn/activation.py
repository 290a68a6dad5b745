"""Further activation modules: ``PReLU``, ``SELU``, ``CELU``, ``Mish``, ``Hardtanh``, ...

Each keeps PyTorch's constructor signature, attributes and ``extra_repr``,
and calls the function of the same name in :mod:`.functional`.  (``ReLU``,
``SiLU``, ``ELU``, ... are in :mod:`.layers`.)
"""
import warnings

from .. import _creation
from .._tensor import check_device
from . import _functional_norm as F
from . import init as _init
from .module import Module
from .parameter import Parameter

__all__ = [
    "PReLU", "SELU", "CELU", "Mish", "Hardtanh", "ReLU6", "Hardswish", "Hardsigmoid",
    "Softsign", "Tanhshrink", "Threshold", "GLU", "Softmin", "Softshrink", "Hardshrink",
]


class _Inplace(Module):
    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def extra_repr(self):
        return "inplace=True" if self.inplace else ""


class PReLU(Module):
    """``x`` where positive, else ``weight * x``, with learned slopes.

    Parameters
    ----------
    num_parameters : int, optional
        1 (one slope) or the number of channels (dimension 1 of the input).
    init : float, optional
        Initial slope (default 0.25).
    device : 'cpu' or None, optional
    dtype : dtype, optional

    Attributes
    ----------
    weight : Parameter
        Shape ``(num_parameters,)``, filled with ``init``.
    """

    def __init__(self, num_parameters=1, init=0.25, device=None, dtype=None):
        super().__init__()
        check_device(device)
        self.num_parameters = num_parameters
        self.init = init
        self.weight = Parameter(_creation.empty(num_parameters, dtype=dtype))
        self.reset_parameters()

    def reset_parameters(self):
        """Fill the weight with ``init``."""
        _init.constant_(self.weight, self.init)

    def forward(self, input):
        """``F.prelu(input, weight)``."""
        return F.prelu(input, self.weight)

    def extra_repr(self):
        return f"num_parameters={self.num_parameters}"


class SELU(_Inplace):
    """Scaled exponential linear unit (``F.selu``)."""

    def forward(self, input):
        """``F.selu(input, inplace)``."""
        return F.selu(input, self.inplace)


class CELU(Module):
    """Continuously differentiable ELU (``F.celu``).

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
        """``F.celu(input, alpha, inplace)``."""
        return F.celu(input, self.alpha, self.inplace)

    def extra_repr(self):
        return f"alpha={self.alpha}" + (", inplace=True" if self.inplace else "")


class Mish(_Inplace):
    """``x * tanh(softplus(x))`` (``F.mish``)."""

    def forward(self, input):
        """``F.mish(input, inplace)``."""
        return F.mish(input, self.inplace)


class Hardtanh(Module):
    """``x`` clipped to ``[min_val, max_val]``.

    Parameters
    ----------
    min_val, max_val : float, optional
    inplace : bool, optional
    min_value, max_value : float, optional
        Deprecated aliases of ``min_val``/``max_val`` (a warning).

    Raises
    ------
    AssertionError
        If ``max_val <= min_val``.
    """

    def __init__(self, min_val=-1.0, max_val=1.0, inplace=False, min_value=None,
                 max_value=None):
        super().__init__()
        if min_value is not None:
            warnings.warn("keyword argument `min_value` is deprecated and rename to `min_val`",
                          FutureWarning, stacklevel=2)
            min_val = min_value
        if max_value is not None:
            warnings.warn("keyword argument `max_value` is deprecated and rename to `max_val`",
                          FutureWarning, stacklevel=2)
            max_val = max_value
        self.min_val = min_val
        self.max_val = max_val
        self.inplace = inplace
        assert self.max_val > self.min_val

    def forward(self, input):
        """``F.hardtanh(input, min_val, max_val, inplace)``."""
        return F.hardtanh(input, self.min_val, self.max_val, self.inplace)

    def extra_repr(self):
        return (f"min_val={self.min_val}, max_val={self.max_val}"
                + (", inplace=True" if self.inplace else ""))


class ReLU6(Hardtanh):
    """``min(max(x, 0), 6)``.

    Parameters
    ----------
    inplace : bool, optional
    """

    def __init__(self, inplace=False):
        super().__init__(0.0, 6.0, inplace)

    def extra_repr(self):
        return "inplace=True" if self.inplace else ""


class Hardswish(_Inplace):
    """``x * relu6(x + 3) / 6`` (``F.hardswish``)."""

    def forward(self, input):
        """``F.hardswish(input, inplace)``."""
        return F.hardswish(input, self.inplace)


class Hardsigmoid(_Inplace):
    """``relu6(x + 3) / 6`` (``F.hardsigmoid``)."""

    def forward(self, input):
        """``F.hardsigmoid(input, inplace)``."""
        return F.hardsigmoid(input, self.inplace)


class Softsign(Module):
    """``x / (1 + |x|)``."""

    def forward(self, input):
        """``F.softsign(input)``."""
        return F.softsign(input)


class Tanhshrink(Module):
    """``x - tanh(x)``."""

    def forward(self, input):
        """``F.tanhshrink(input)``."""
        return F.tanhshrink(input)


class Threshold(Module):
    """``x`` where ``x > threshold``, else ``value``.

    Parameters
    ----------
    threshold, value : float
    inplace : bool, optional
    """

    def __init__(self, threshold, value, inplace=False):
        super().__init__()
        self.threshold = threshold
        self.value = value
        self.inplace = inplace

    def forward(self, input):
        """``F.threshold(input, threshold, value, inplace)``."""
        return F.threshold(input, self.threshold, self.value, self.inplace)

    def extra_repr(self):
        return (f"threshold={self.threshold}, value={self.value}"
                + (", inplace=True" if self.inplace else ""))


class GLU(Module):
    """Gated linear unit along ``dim`` (``F.glu``).

    Parameters
    ----------
    dim : int, optional
        Default -1.
    """

    def __init__(self, dim=-1):
        super().__init__()
        self.dim = dim

    def forward(self, input):
        """``F.glu(input, dim)``."""
        return F.glu(input, self.dim)

    def extra_repr(self):
        return f"dim={self.dim}"


class Softmin(Module):
    """``softmax(-x, dim)``.

    Parameters
    ----------
    dim : int, optional
    """

    def __init__(self, dim=None):
        super().__init__()
        self.dim = dim

    def forward(self, input):
        """``F.softmin(input, dim)``."""
        return F.softmin(input, self.dim, _stacklevel=5)

    def extra_repr(self):
        return f"dim={self.dim}"


class Softshrink(Module):
    """Soft shrinkage by ``lambd`` (``F.softshrink``).

    Parameters
    ----------
    lambd : float, optional
        Default 0.5.
    """

    def __init__(self, lambd=0.5):
        super().__init__()
        self.lambd = lambd

    def forward(self, input):
        """``F.softshrink(input, lambd)``."""
        return F.softshrink(input, self.lambd)

    def extra_repr(self):
        return str(self.lambd)


class Hardshrink(Softshrink):
    """Hard shrinkage: ``x`` where ``|x| > lambd``, else 0.

    Parameters
    ----------
    lambd : float, optional
        Default 0.5.
    """

    def forward(self, input):
        """``F.hardshrink(input, lambd)``."""
        return F.hardshrink(input, self.lambd)
