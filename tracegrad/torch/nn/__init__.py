"""``tracegrad.torch.nn``: PyTorch's neural-network modules on tracegrad tensors.

``Module`` and the containers (``Sequential``, ``ModuleList``,
``ModuleDict``), ``Parameter``, layers (``Linear``, ``Flatten``,
``Dropout``), activations (``ReLU``, ``Tanh``, ``Sigmoid``, ``Softmax``,
``LogSoftmax``, ...) and losses (``MSELoss``, ``CrossEntropyLoss``, ...),
with ``functional`` and ``init`` as submodules.  Names, signatures,
defaults, parameter names and ``state_dict`` keys are PyTorch's.
"""
from . import functional, init  # noqa: F401
from .containers import ModuleDict, ModuleList, Sequential  # noqa: F401
from .layers import (  # noqa: F401
    ELU, GELU, Dropout, Flatten, Identity, LeakyReLU, Linear, LogSigmoid, LogSoftmax, ReLU,
    SiLU, Sigmoid, Softmax, Softplus, Tanh, Unflatten,
)
from .loss import (  # noqa: F401
    BCELoss, BCEWithLogitsLoss, CrossEntropyLoss, L1Loss, MSELoss, NLLLoss,
)
from .module import Module  # noqa: F401
from .parameter import Buffer, Parameter  # noqa: F401

__all__ = [
    "Module", "Sequential", "ModuleList", "ModuleDict", "Parameter", "Buffer", "Identity",
    "Linear", "Flatten", "Unflatten", "Dropout", "ReLU", "Tanh", "Sigmoid", "Softmax",
    "LogSoftmax", "LeakyReLU", "GELU", "SiLU", "ELU", "Softplus", "LogSigmoid", "MSELoss",
    "L1Loss", "NLLLoss", "CrossEntropyLoss", "BCELoss", "BCEWithLogitsLoss", "functional",
    "init",
]
