"""``tracegrad.torch.autograd``: ``grad``, ``backward``, ``Variable``, ``Function``.

``functional`` (jacobian, hessian, vjp, jvp, hvp, vhp) and ``function``
(``Function``, ``FunctionCtx``, ``once_differentiable``) are submodules.
"""
import warnings

from .._autograd import grad, run_backward
from .._grad_mode import enable_grad, no_grad, set_grad_enabled  # noqa: F401
from .._grad_mode import detect_anomaly, set_detect_anomaly  # noqa: F401
from .._creation import tensor as _tensor
from .._tensor import Tensor
from . import function, functional  # noqa: F401
from ._gradcheck import gradcheck, gradgradcheck  # noqa: F401  (the functions, as PyTorch's)
from .function import Function, FunctionCtx, once_differentiable  # noqa: F401

__all__ = ["grad", "backward", "Variable", "Function", "FunctionCtx", "no_grad",
           "enable_grad", "set_grad_enabled", "functional", "function", "gradcheck",
           "gradgradcheck", "detect_anomaly", "set_detect_anomaly"]


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False,
             grad_variables=None, inputs=None):
    """Accumulate the gradients of ``tensors`` into the leaves' ``.grad``.

    Parameters
    ----------
    tensors : Tensor or sequence of Tensors
    grad_tensors : sequence, optional
        One per tensor (None: ones, only for one-element tensors).
    retain_graph, create_graph : bool, optional
    inputs : sequence of Tensors, optional
        Accumulate only into these.

    Raises
    ------
    RuntimeError
        As :meth:`Tensor.backward`.
    """
    ts = (tensors,) if isinstance(tensors, Tensor) else tuple(tensors)
    if grad_tensors is None:
        gs = (None,) * len(ts)
    elif isinstance(grad_tensors, Tensor):
        gs = (grad_tensors,)
    else:
        gs = tuple(grad_tensors)
    if len(gs) != len(ts):
        raise RuntimeError(f"got {len(gs)} grad_tensors for {len(ts)} tensors")
    if inputs is not None and isinstance(inputs, Tensor):
        inputs = (inputs,)
    run_backward(ts, gs, retain_graph, create_graph, inputs=inputs)


def Variable(data, requires_grad=False, volatile=None):  # noqa: N802 - PyTorch's name
    """Legacy alias: returns ``data`` as a Tensor (with ``requires_grad``).

    ``volatile`` is accepted with a UserWarning: it has no effect (use
    ``no_grad``), as in PyTorch.
    """
    if volatile is not None:
        warnings.warn(
            "volatile was removed and now has no effect. Use `with torch.no_grad():` instead.",
            UserWarning, stacklevel=2,
        )
    t = data if isinstance(data, Tensor) else _tensor(data)
    if requires_grad:
        t.requires_grad_(True)
    return t
