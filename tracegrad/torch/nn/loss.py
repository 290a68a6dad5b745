"""Loss modules: ``MSELoss``, ``L1Loss``, ``CrossEntropyLoss``, ``NLLLoss``, ``BCELoss``,
``BCEWithLogitsLoss``.

Each stores its options (``reduction``, ``weight``, ``ignore_index``, ...)
with PyTorch's names and defaults and calls the function of
:mod:`.functional`; class weights are registered as buffers, as in PyTorch,
so they follow ``to()`` and appear in ``state_dict``.
"""
from . import functional as F
from .module import Module

__all__ = ["MSELoss", "L1Loss", "NLLLoss", "CrossEntropyLoss", "BCELoss", "BCEWithLogitsLoss"]


class _Loss(Module):
    def __init__(self, size_average=None, reduce=None, reduction="mean"):
        super().__init__()
        if size_average is not None or reduce is not None:
            reduction = F._reduction(size_average, reduce, reduction)
        self.reduction = reduction


class _WeightedLoss(_Loss):
    def __init__(self, weight=None, size_average=None, reduce=None, reduction="mean"):
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", weight)


class _ElementwiseLoss(_Loss):
    _fn = None  # the functional form, taking (input, target, reduction=...)

    def forward(self, input, target):
        """The loss of ``input`` against ``target``."""
        return type(self)._fn(input, target, reduction=self.reduction)


class MSELoss(_ElementwiseLoss):
    """Mean squared error: ``F.mse_loss(input, target, reduction=...)``.

    Parameters
    ----------
    size_average, reduce : bool, optional
        Deprecated; use ``reduction``.
    reduction : {'mean', 'sum', 'none'}, optional
    """

    _fn = staticmethod(F.mse_loss)


class L1Loss(_ElementwiseLoss):
    """Mean absolute error: ``F.l1_loss(input, target, reduction=...)``.

    Parameters
    ----------
    size_average, reduce : bool, optional
        Deprecated; use ``reduction``.
    reduction : {'mean', 'sum', 'none'}, optional
    """

    _fn = staticmethod(F.l1_loss)


class NLLLoss(_WeightedLoss):
    """Negative log-likelihood of class indices (input: log-probabilities).

    Parameters
    ----------
    weight : Tensor, optional
        Per-class weights, shape ``(C,)`` (a buffer).
    size_average, reduce : bool, optional
    ignore_index : int, optional
        Default -100.
    reduction : {'mean', 'sum', 'none'}, optional
    """

    def __init__(self, weight=None, size_average=None, ignore_index=-100, reduce=None,
                 reduction="mean"):
        super().__init__(weight, size_average, reduce, reduction)
        self.ignore_index = ignore_index

    def forward(self, input, target):
        """``F.nll_loss`` with the stored options."""
        return F.nll_loss(input, target, weight=self.weight, ignore_index=self.ignore_index,
                          reduction=self.reduction)


class CrossEntropyLoss(_WeightedLoss):
    """Softmax cross-entropy of logits against class indices or probabilities.

    Parameters
    ----------
    weight : Tensor, optional
        Per-class weights, shape ``(C,)`` (a buffer).
    size_average, reduce : bool, optional
    ignore_index : int, optional
        Default -100.
    reduction : {'mean', 'sum', 'none'}, optional
    label_smoothing : float, optional
        In ``[0, 1]``.
    """

    def __init__(self, weight=None, size_average=None, ignore_index=-100, reduce=None,
                 reduction="mean", label_smoothing=0.0):
        super().__init__(weight, size_average, reduce, reduction)
        self.ignore_index = ignore_index
        self.label_smoothing = label_smoothing

    def forward(self, input, target):
        """``F.cross_entropy`` with the stored options."""
        return F.cross_entropy(input, target, weight=self.weight,
                               ignore_index=self.ignore_index, reduction=self.reduction,
                               label_smoothing=self.label_smoothing)


class BCELoss(_WeightedLoss):
    """Binary cross-entropy of probabilities.

    Parameters
    ----------
    weight : Tensor, optional
        Broadcastable to the input (a buffer).
    size_average, reduce : bool, optional
    reduction : {'mean', 'sum', 'none'}, optional
    """

    def forward(self, input, target):
        """``F.binary_cross_entropy`` with the stored options."""
        return F.binary_cross_entropy(input, target, weight=self.weight,
                                      reduction=self.reduction)


class BCEWithLogitsLoss(_Loss):
    """Binary cross-entropy of logits (``sigmoid`` folded in, stable).

    Parameters
    ----------
    weight : Tensor, optional
        Broadcastable to the input (a buffer).
    size_average, reduce : bool, optional
    reduction : {'mean', 'sum', 'none'}, optional
    pos_weight : Tensor, optional
        Weight of positive examples, per class (a buffer).
    """

    def __init__(self, weight=None, size_average=None, reduce=None, reduction="mean",
                 pos_weight=None):
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", weight)
        self.register_buffer("pos_weight", pos_weight)

    def forward(self, input, target):
        """``F.binary_cross_entropy_with_logits`` with the stored options."""
        return F.binary_cross_entropy_with_logits(input, target, self.weight,
                                                  pos_weight=self.pos_weight,
                                                  reduction=self.reduction)
