"""``tracegrad.torch.optim``: PyTorch's optimizers (``SGD``, ``Adam``, ``AdamW``,
``RMSprop``, ``Adagrad``, ``Adadelta``, ``Adamax``, ``NAdam``, ``RAdam``, ``ASGD``,
``LBFGS``) and
learning-rate schedulers (``optim.lr_scheduler``).

Updates are PyTorch's formulas applied in place to the parameters' data
under ``no_grad``; see :mod:`.optimizer`.
"""
from . import lr_scheduler  # noqa: F401
from ._more import ASGD, LBFGS, Adadelta, Adagrad, Adamax, NAdam, RAdam, RMSprop  # noqa: F401
from .optimizer import SGD, Adam, AdamW, Optimizer  # noqa: F401

__all__ = ["Optimizer", "SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "Adadelta", "Adamax",
           "NAdam", "RAdam", "ASGD", "LBFGS", "lr_scheduler"]
