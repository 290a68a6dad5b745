"""Loss modules: ``MSELoss``, ``L1Loss``, ``CrossEntropyLoss``, ``NLLLoss``, ``BCELoss``,
``BCEWithLogitsLoss``, ``SmoothL1Loss``, ``HuberLoss``, ``KLDivLoss``, ``PoissonNLLLoss``,
``GaussianNLLLoss``, ``CosineEmbeddingLoss``, ``MarginRankingLoss``,
``HingeEmbeddingLoss``, ``SoftMarginLoss``, ``MultiLabelSoftMarginLoss``,
``TripletMarginLoss``, ``MultiMarginLoss``, ``MultiLabelMarginLoss``.

Each stores its options (``reduction``, ``weight``, ``ignore_index``, ...)
with PyTorch's names and defaults and calls the function of
:mod:`.functional`; class weights are registered as buffers, as in PyTorch,
so they follow ``to()`` and appear in ``state_dict``.
"""
from . import functional as F
from .module import Module

__all__ = [
    "MSELoss", "L1Loss", "NLLLoss", "CrossEntropyLoss", "BCELoss", "BCEWithLogitsLoss",
    "SmoothL1Loss", "HuberLoss", "KLDivLoss", "PoissonNLLLoss", "GaussianNLLLoss",
    "CosineEmbeddingLoss", "MarginRankingLoss", "HingeEmbeddingLoss", "SoftMarginLoss",
    "MultiLabelSoftMarginLoss", "TripletMarginLoss", "MultiMarginLoss", "MultiLabelMarginLoss",
]


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


class SmoothL1Loss(_Loss):
    """Smooth L1 loss: ``F.smooth_l1_loss(input, target, reduction=..., beta=...)``.

    Parameters
    ----------
    size_average, reduce : bool, optional
        Deprecated; use ``reduction``.
    reduction : {'mean', 'sum', 'none'}, optional
    beta : float, optional
        Where the loss changes from quadratic to linear (default 1).
    """

    def __init__(self, size_average=None, reduce=None, reduction="mean", beta=1.0):
        super().__init__(size_average, reduce, reduction)
        self.beta = beta

    def forward(self, input, target):
        """``F.smooth_l1_loss`` with the stored options."""
        return F.smooth_l1_loss(input, target, reduction=self.reduction, beta=self.beta)


class HuberLoss(_Loss):
    """Huber loss: ``F.huber_loss(input, target, reduction=..., delta=...)``.

    Parameters
    ----------
    reduction : {'mean', 'sum', 'none'}, optional
    delta : float, optional
        Where the loss changes from quadratic to linear (default 1).
    """

    def __init__(self, reduction="mean", delta=1.0):
        super().__init__(reduction=reduction)
        self.delta = delta

    def forward(self, input, target):
        """``F.huber_loss`` with the stored options."""
        return F.huber_loss(input, target, reduction=self.reduction, delta=self.delta)


class KLDivLoss(_Loss):
    """Kullback-Leibler divergence of log-probabilities: ``F.kl_div``.

    Parameters
    ----------
    size_average, reduce : bool, optional
        Deprecated; use ``reduction``.
    reduction : {'mean', 'batchmean', 'sum', 'none'}, optional
        ``'mean'`` warns at each call, as in PyTorch; ``'batchmean'`` is the
        divergence's definition.
    log_target : bool, optional
        ``target`` holds log-probabilities.
    """

    def __init__(self, size_average=None, reduce=None, reduction="mean", log_target=False):
        super().__init__(size_average, reduce, reduction)
        self.log_target = log_target

    def forward(self, input, target):
        """``F.kl_div`` with the stored options."""
        return F.kl_div(input, target, reduction=self.reduction, log_target=self.log_target)


class PoissonNLLLoss(_Loss):
    """Poisson negative log-likelihood: ``F.poisson_nll_loss``.

    Parameters
    ----------
    log_input : bool, optional
        ``input`` is the log of the rate (default True).
    full : bool, optional
        Add the Stirling term.
    size_average, reduce : bool, optional
        Deprecated; use ``reduction``.
    eps : float, optional
    reduction : {'mean', 'sum', 'none'}, optional
    """

    def __init__(self, log_input=True, full=False, size_average=None, eps=1e-8, reduce=None,
                 reduction="mean"):
        super().__init__(size_average, reduce, reduction)
        self.log_input = log_input
        self.full = full
        self.eps = eps

    def forward(self, log_input, target):
        """``F.poisson_nll_loss`` with the stored options."""
        return F.poisson_nll_loss(log_input, target, log_input=self.log_input, full=self.full,
                                  eps=self.eps, reduction=self.reduction)


class GaussianNLLLoss(_Loss):
    """Gaussian negative log-likelihood: ``F.gaussian_nll_loss(input, target, var)``.

    Parameters
    ----------
    full : bool, optional
        Add the constant ``0.5 log(2 pi)``.
    eps : float, optional
        Lower clamp of the variances.
    reduction : {'mean', 'sum', 'none'}, optional
    """

    def __init__(self, *, full=False, eps=1e-6, reduction="mean"):
        super().__init__(None, None, reduction)
        self.full = full
        self.eps = eps

    def forward(self, input, target, var):
        """``F.gaussian_nll_loss`` with the stored options."""
        return F.gaussian_nll_loss(input, target, var, full=self.full, eps=self.eps,
                                   reduction=self.reduction)


class _MarginLoss(_Loss):
    def __init__(self, margin, size_average=None, reduce=None, reduction="mean"):
        super().__init__(size_average, reduce, reduction)
        self.margin = margin


class CosineEmbeddingLoss(_MarginLoss):
    """Cosine embedding loss: ``F.cosine_embedding_loss(input1, input2, target)``.

    Parameters
    ----------
    margin : float, optional
        Default 0.
    size_average, reduce : bool, optional
        Deprecated; use ``reduction``.
    reduction : {'mean', 'sum', 'none'}, optional
    """

    def __init__(self, margin=0.0, size_average=None, reduce=None, reduction="mean"):
        super().__init__(margin, size_average, reduce, reduction)

    def forward(self, input1, input2, target):
        """``F.cosine_embedding_loss`` with the stored options."""
        return F.cosine_embedding_loss(input1, input2, target, margin=self.margin,
                                       reduction=self.reduction)


class MarginRankingLoss(_MarginLoss):
    """Margin ranking loss: ``F.margin_ranking_loss(input1, input2, target)``.

    Parameters
    ----------
    margin : float, optional
        Default 0.
    size_average, reduce : bool, optional
        Deprecated; use ``reduction``.
    reduction : {'mean', 'sum', 'none'}, optional
    """

    def __init__(self, margin=0.0, size_average=None, reduce=None, reduction="mean"):
        super().__init__(margin, size_average, reduce, reduction)

    def forward(self, input1, input2, target):
        """``F.margin_ranking_loss`` with the stored options."""
        return F.margin_ranking_loss(input1, input2, target, margin=self.margin,
                                     reduction=self.reduction)


class HingeEmbeddingLoss(_MarginLoss):
    """Hinge embedding loss: ``F.hinge_embedding_loss(input, target)``.

    Parameters
    ----------
    margin : float, optional
        Default 1.
    size_average, reduce : bool, optional
        Deprecated; use ``reduction``.
    reduction : {'mean', 'sum', 'none'}, optional
    """

    def __init__(self, margin=1.0, size_average=None, reduce=None, reduction="mean"):
        super().__init__(margin, size_average, reduce, reduction)

    def forward(self, input, target):
        """``F.hinge_embedding_loss`` with the stored options."""
        return F.hinge_embedding_loss(input, target, margin=self.margin,
                                      reduction=self.reduction)


class SoftMarginLoss(_ElementwiseLoss):
    """Two-class logistic loss: ``F.soft_margin_loss(input, target, reduction=...)``.

    Parameters
    ----------
    size_average, reduce : bool, optional
        Deprecated; use ``reduction``.
    reduction : {'mean', 'sum', 'none'}, optional
    """

    _fn = staticmethod(F.soft_margin_loss)


class MultiLabelSoftMarginLoss(_WeightedLoss):
    """Multi-label one-versus-all logistic loss: ``F.multilabel_soft_margin_loss``.

    Parameters
    ----------
    weight : Tensor, optional
        Per-class weights, shape ``(C,)`` (a buffer).
    size_average, reduce : bool, optional
        Deprecated; use ``reduction``.
    reduction : {'mean', 'sum', 'none'}, optional
    """

    def forward(self, input, target):
        """``F.multilabel_soft_margin_loss`` with the stored options."""
        return F.multilabel_soft_margin_loss(input, target, weight=self.weight,
                                             reduction=self.reduction)


class TripletMarginLoss(_MarginLoss):
    """Triplet margin loss: ``F.triplet_margin_loss(anchor, positive, negative)``.

    Parameters
    ----------
    margin : float, optional
        Positive (default 1).
    p : float, optional
        The distance's norm degree (default 2).
    eps : float, optional
    swap : bool, optional
        Use the distance swap (Balntas et al. 2016).
    size_average, reduce : bool, optional
        Deprecated; use ``reduction``.
    reduction : {'mean', 'sum', 'none'}, optional
    """

    def __init__(self, margin=1.0, p=2.0, eps=1e-6, swap=False, size_average=None,
                 reduce=None, reduction="mean"):
        super().__init__(margin, size_average, reduce, reduction)
        if margin <= 0:
            raise ValueError(
                f"TripletMarginLoss: expected margin to be greater than 0, got {margin} instead"
            )
        self.p = p
        self.eps = eps
        self.swap = swap

    def forward(self, anchor, positive, negative):
        """``F.triplet_margin_loss`` with the stored options."""
        return F.triplet_margin_loss(anchor, positive, negative, margin=self.margin, p=self.p,
                                     eps=self.eps, swap=self.swap, reduction=self.reduction)


class MultiMarginLoss(_WeightedLoss):
    """Multi-class hinge loss: ``F.multi_margin_loss``.

    Parameters
    ----------
    p : {1, 2}, optional
    margin : float, optional
    weight : Tensor, optional
        Per-class weights, shape ``(C,)`` (a buffer).
    size_average, reduce : bool, optional
        Deprecated; use ``reduction``.
    reduction : {'mean', 'sum', 'none'}, optional

    Raises
    ------
    ValueError
        For ``p`` other than 1 and 2, or a ``weight`` that is not 1-D.
    """

    def __init__(self, p=1, margin=1.0, weight=None, size_average=None, reduce=None,
                 reduction="mean"):
        super().__init__(weight, size_average, reduce, reduction)
        if p != 1 and p != 2:
            raise ValueError("only p == 1 and p == 2 supported")
        if weight is not None and weight.dim() != 1:
            raise ValueError(
                f"MultiMarginLoss: expected weight to be None or 1D tensor, got "
                f"{weight.dim()}D instead"
            )
        self.p = p
        self.margin = margin

    def forward(self, input, target):
        """``F.multi_margin_loss`` with the stored options."""
        return F.multi_margin_loss(input, target, p=self.p, margin=self.margin,
                                   weight=self.weight, reduction=self.reduction)


class MultiLabelMarginLoss(_ElementwiseLoss):
    """Multi-label hinge loss: ``F.multilabel_margin_loss(input, target, reduction=...)``.

    Parameters
    ----------
    size_average, reduce : bool, optional
        Deprecated; use ``reduction``.
    reduction : {'mean', 'sum', 'none'}, optional
    """

    _fn = staticmethod(F.multilabel_margin_loss)
