"""``nn.Parameter`` and ``nn.Buffer``: tensors that modules register by assignment.

A :class:`Parameter` is a leaf :class:`~tracegrad.torch.Tensor` (it requires
grad by default) that shares its storage and version counter with the tensor
it was made from, as PyTorch's does.  Operations on it give plain tensors.
Assigning one to an attribute of a :class:`~tracegrad.torch.nn.Module`
registers it, so ``parameters()``, ``state_dict()`` and the optimizers see it.

``nn.Buffer(t)`` marks a tensor to be registered as a buffer on assignment
(PyTorch 2.5's API); like PyTorch's it returns a plain tensor.
"""
import numpy as np

from .._creation import empty
from .._tensor import Tensor

__all__ = ["Parameter", "Buffer", "is_parameter"]


class Parameter(Tensor):
    """A tensor that is a module parameter.

    Parameters
    ----------
    data : Tensor, optional
        The values; the parameter shares their storage (default: an empty
        tensor of the default dtype).
    requires_grad : bool, optional
        Default True.

    Raises
    ------
    TypeError
        If ``data`` is not a tensor.
    RuntimeError
        If ``requires_grad`` is set for an integer or bool tensor.

    Notes
    -----
    The parameter is always a leaf: made from a tensor that has a
    ``grad_fn``, it holds the values only (as ``data.detach()``).
    """

    def __new__(cls, data=None, requires_grad=True):
        if data is None:
            data = empty(0)
        if not isinstance(data, Tensor):
            raise TypeError(
                f"nn.Parameter expects a Tensor as data, got {type(data).__name__}; "
                "convert it first, e.g. nn.Parameter(torch.tensor(values))."
            )
        if requires_grad and data._data.dtype.kind not in "fc":
            raise RuntimeError(
                "Only Tensors of floating point and complex dtype can require gradients"
            )
        p = object.__new__(cls)
        p._init(data._data, version=data._vc)
        if requires_grad:
            p.requires_grad_(True)
        return p

    def __init__(self, data=None, requires_grad=True):
        pass  # everything happens in __new__

    def __repr__(self):
        return "Parameter containing:\n" + Tensor.__repr__(self)

    __str__ = __repr__

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        p = Parameter(Tensor._wrap(np.array(self._data)), self._requires_grad)
        if self._grad is not None:
            p._grad = Tensor._wrap(np.array(self._grad._data))
        memo[id(self)] = p
        return p

    def __reduce_ex__(self, proto):
        return (_rebuild_parameter, (np.array(self._data), self._requires_grad))


def _rebuild_parameter(data, requires_grad):
    return Parameter(Tensor._wrap(data), requires_grad)


def is_parameter(obj):
    """True for a :class:`Parameter`."""
    return isinstance(obj, Parameter)


class _BufferMeta(type):
    # nn.Buffer(t) returns a plain Tensor flagged as a buffer; isinstance
    # checks the flag (PyTorch does the same)
    def __instancecheck__(cls, obj):
        return isinstance(obj, Tensor) and getattr(obj, "_is_buffer", False)


class Buffer(metaclass=_BufferMeta):
    """Mark a tensor to be registered as a module buffer when assigned.

    Parameters
    ----------
    data : Tensor, optional
        The values (shared, as ``data.detach()``); default an empty tensor.
    persistent : bool, optional
        Whether the buffer is part of the module's ``state_dict`` (default
        True).

    Returns
    -------
    Tensor
        A plain tensor carrying the buffer flag.
    """

    def __new__(cls, data=None, *, persistent=True):
        if data is None:
            data = empty(0)
        t = Tensor._wrap(data._data)  # shares storage and version counter
        t._vc = data._vc
        t._is_buffer = True
        t.persistent = persistent
        return t
