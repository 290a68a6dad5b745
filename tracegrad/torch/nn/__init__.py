"""``tracegrad.torch.nn``: PyTorch's neural-network modules on tracegrad tensors.

``Module`` and the containers (``Sequential``, ``ModuleList``,
``ModuleDict``), ``Parameter``, layers (``Linear``, ``Flatten``,
``Dropout``), activations (``ReLU``, ``Tanh``, ``Sigmoid``, ``Softmax``,
``LogSoftmax``, ...) and losses (``MSELoss``, ``CrossEntropyLoss``, ...),
with ``functional`` and ``init`` as submodules.  Names, signatures,
defaults, parameter names and ``state_dict`` keys are PyTorch's.
"""
from . import functional, init  # noqa: F401
from . import utils  # noqa: F401  (clip_grad_norm_, parameters_to_vector, rnn)
from .containers import ModuleDict, ModuleList, Sequential  # noqa: F401
from .layers import (  # noqa: F401
    ELU, GELU, Dropout, Flatten, Identity, LeakyReLU, Linear, LogSigmoid, LogSoftmax, ReLU,
    SiLU, Sigmoid, Softmax, Softplus, Tanh, Unflatten,
)
from .loss import (  # noqa: F401
    BCELoss, BCEWithLogitsLoss, CrossEntropyLoss, L1Loss, MSELoss, NLLLoss,
)
from .loss import (  # noqa: F401
    CosineEmbeddingLoss, GaussianNLLLoss, HingeEmbeddingLoss, HuberLoss, KLDivLoss,
    MarginRankingLoss, MultiLabelMarginLoss, MultiLabelSoftMarginLoss, MultiMarginLoss,
    PoissonNLLLoss, SmoothL1Loss, SoftMarginLoss, TripletMarginLoss,
)
from .activation import (  # noqa: F401
    CELU, GLU, SELU, Hardshrink, Hardsigmoid, Hardswish, Hardtanh, Mish, PReLU, ReLU6,
    Softmin, Softshrink, Softsign, Tanhshrink, Threshold,
)
from .normalization import (  # noqa: F401
    BatchNorm1d, BatchNorm2d, BatchNorm3d, GroupNorm, InstanceNorm1d, InstanceNorm2d,
    LayerNorm, LocalResponseNorm,
)
from .sparse import Embedding, EmbeddingBag  # noqa: F401
from .conv import *  # noqa: F401,F403  (convolution, pooling, padding, resampling)
from .conv import __all__ as _conv_all
from .rnn import GRU, LSTM, RNN, GRUCell, LSTMCell, RNNBase, RNNCell, RNNCellBase  # noqa: F401
from .transformer import (  # noqa: F401
    MultiheadAttention, TransformerEncoder, TransformerEncoderLayer,
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
__all__ += [
    "SmoothL1Loss", "HuberLoss", "KLDivLoss", "PoissonNLLLoss", "GaussianNLLLoss",
    "CosineEmbeddingLoss", "MarginRankingLoss", "HingeEmbeddingLoss", "SoftMarginLoss",
    "MultiLabelSoftMarginLoss", "TripletMarginLoss", "MultiMarginLoss", "MultiLabelMarginLoss",
]
__all__ += [
    "BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "InstanceNorm1d", "InstanceNorm2d",
    "LayerNorm", "GroupNorm", "LocalResponseNorm", "Embedding", "EmbeddingBag", "PReLU",
    "SELU", "CELU", "Mish", "Hardtanh", "ReLU6", "Hardswish", "Hardsigmoid", "Softsign",
    "Tanhshrink", "Threshold", "GLU", "Softmin", "Softshrink", "Hardshrink",
]
__all__ += ["utils"]
__all__ += ["RNNBase", "RNN", "LSTM", "GRU", "RNNCellBase", "RNNCell", "LSTMCell", "GRUCell",
            "MultiheadAttention", "TransformerEncoderLayer", "TransformerEncoder"]
__all__ += _conv_all
