"""Embedding layers: ``Embedding`` and ``EmbeddingBag``.

PyTorch's constructor signatures, attribute names, ``extra_repr``, the
parameter ``weight`` (so ``state_dict`` keys match) and initialization
(``N(0, 1)``, the ``padding_idx`` row zeroed).  ``sparse=True`` is refused:
tracegrad has no sparse tensors.
"""
from .. import _grad_mode
from .. import _creation
from .._tensor import check_device
from . import _functional_norm as F
from . import init
from .module import Module
from .parameter import Parameter

__all__ = ["Embedding", "EmbeddingBag"]


def _padding_index(padding_idx, num_embeddings):
    if padding_idx is None:
        return None
    if padding_idx > 0:
        assert padding_idx < num_embeddings, "Padding_idx must be within num_embeddings"
    elif padding_idx < 0:
        assert padding_idx >= -num_embeddings, "Padding_idx must be within num_embeddings"
        padding_idx = num_embeddings + padding_idx
    return padding_idx


def _make_weight(num_embeddings, embedding_dim, _weight, _freeze, dtype):
    if _weight is None:
        return Parameter(_creation.empty(num_embeddings, embedding_dim, dtype=dtype),
                         requires_grad=not _freeze), True
    assert list(_weight.shape) == [num_embeddings, embedding_dim], \
        "Shape of weight does not match num_embeddings and embedding_dim"
    return Parameter(_weight, requires_grad=not _freeze), False


class Embedding(Module):
    """A lookup table: ``forward(idx)`` returns ``weight[idx]``.

    Parameters
    ----------
    num_embeddings, embedding_dim : int
    padding_idx : int, optional
        This row is initialized to zeros and gets no gradient (negative
        values count from the end).
    max_norm : float, optional
        Rows looked up are first rescaled in place to at most this norm.
    norm_type : float, optional
        The norm for ``max_norm`` (default 2).
    scale_grad_by_freq : bool, optional
        Divide gradients by the frequency of the indices in the batch.
    sparse : bool, optional
        Must be False (NotImplementedError: no sparse gradients).
    _weight : Tensor, optional
        Initial weight of shape ``(num_embeddings, embedding_dim)``.
    _freeze : bool, optional
        The weight does not require grad.
    device : 'cpu' or None, optional
    dtype : dtype, optional

    Attributes
    ----------
    weight : Parameter
        Shape ``(num_embeddings, embedding_dim)``, from ``N(0, 1)``.

    Raises
    ------
    AssertionError
        For a ``padding_idx`` out of range or a ``_weight`` of another shape
        (PyTorch's messages).
    NotImplementedError
        For ``sparse=True``.
    """

    def __init__(self, num_embeddings, embedding_dim, padding_idx=None, max_norm=None,
                 norm_type=2.0, scale_grad_by_freq=False, sparse=False, _weight=None,
                 _freeze=False, device=None, dtype=None):
        super().__init__()
        check_device(device)
        F._no_sparse(sparse)
        self.num_embeddings = num_embeddings
        self.embedding_dim = embedding_dim
        self.padding_idx = _padding_index(padding_idx, num_embeddings)
        self.max_norm = max_norm
        self.norm_type = norm_type
        self.scale_grad_by_freq = scale_grad_by_freq
        self.sparse = sparse
        self.weight, fresh = _make_weight(num_embeddings, embedding_dim, _weight, _freeze, dtype)
        if fresh:
            self.reset_parameters()

    def reset_parameters(self):
        """Draw the weight from ``N(0, 1)``; zero the ``padding_idx`` row."""
        init.normal_(self.weight)
        self._fill_padding_idx_with_zero()

    def _fill_padding_idx_with_zero(self):
        if self.padding_idx is not None:
            with _grad_mode.no_grad():
                self.weight[self.padding_idx].fill_(0)

    def forward(self, input):
        """``F.embedding(input, weight, padding_idx, max_norm, norm_type, ...)``."""
        return F.embedding(input, self.weight, self.padding_idx, self.max_norm, self.norm_type,
                           self.scale_grad_by_freq, self.sparse)

    def extra_repr(self):
        s = f"{self.num_embeddings}, {self.embedding_dim}"
        if self.padding_idx is not None:
            s += f", padding_idx={self.padding_idx}"
        if self.max_norm is not None:
            s += f", max_norm={self.max_norm}"
        if self.norm_type != 2:
            s += f", norm_type={self.norm_type}"
        if self.scale_grad_by_freq is not False:
            s += f", scale_grad_by_freq={self.scale_grad_by_freq}"
        if self.sparse is not False:
            s += ", sparse=True"
        return s

    @classmethod
    def from_pretrained(cls, embeddings, freeze=True, padding_idx=None, max_norm=None,
                        norm_type=2.0, scale_grad_by_freq=False, sparse=False):
        """An ``Embedding`` whose weight is ``embeddings`` (2-D; shares its storage).

        Parameters
        ----------
        embeddings : Tensor
            Shape ``(num_embeddings, embedding_dim)``.
        freeze : bool, optional
            The weight does not require grad (default True).
        padding_idx, max_norm, norm_type, scale_grad_by_freq, sparse
            As for the constructor (the padding row keeps its values).

        Returns
        -------
        Embedding

        Raises
        ------
        AssertionError
            If ``embeddings`` is not 2-D.
        """
        assert embeddings.dim() == 2, "Embeddings parameter is expected to be 2-dimensional"
        rows, cols = embeddings.shape
        return cls(num_embeddings=rows, embedding_dim=cols, _weight=embeddings, _freeze=freeze,
                   padding_idx=padding_idx, max_norm=max_norm, norm_type=norm_type,
                   scale_grad_by_freq=scale_grad_by_freq, sparse=sparse)


class EmbeddingBag(Module):
    """Sums, means or maxima of bags of embeddings (see ``F.embedding_bag``).

    Parameters
    ----------
    num_embeddings, embedding_dim : int
    max_norm, norm_type, scale_grad_by_freq : optional
        As for :class:`Embedding` (``scale_grad_by_freq`` unsupported).
    mode : {'mean', 'sum', 'max'}, optional
    sparse : bool, optional
        Must be False.
    _weight : Tensor, optional
    include_last_offset : bool, optional
    padding_idx : int, optional
        Entries equal to it are left out of the bags; its row starts at zero.
    device : 'cpu' or None, optional
    dtype : dtype, optional

    Attributes
    ----------
    weight : Parameter
        Shape ``(num_embeddings, embedding_dim)``, from ``N(0, 1)``.
    """

    def __init__(self, num_embeddings, embedding_dim, max_norm=None, norm_type=2.0,
                 scale_grad_by_freq=False, mode="mean", sparse=False, _weight=None,
                 include_last_offset=False, padding_idx=None, device=None, dtype=None):
        super().__init__()
        check_device(device)
        F._no_sparse(sparse)
        self.num_embeddings = num_embeddings
        self.embedding_dim = embedding_dim
        self.max_norm = max_norm
        self.norm_type = norm_type
        self.scale_grad_by_freq = scale_grad_by_freq
        self.padding_idx = _padding_index(padding_idx, num_embeddings)
        self.weight, fresh = _make_weight(num_embeddings, embedding_dim, _weight, False, dtype)
        self.mode = mode
        self.sparse = sparse
        self.include_last_offset = include_last_offset
        if fresh:
            self.reset_parameters()

    def reset_parameters(self):
        """Draw the weight from ``N(0, 1)``; zero the ``padding_idx`` row."""
        init.normal_(self.weight)
        if self.padding_idx is not None:
            with _grad_mode.no_grad():
                self.weight[self.padding_idx].fill_(0)

    def forward(self, input, offsets=None, per_sample_weights=None):
        """``F.embedding_bag(input, weight, offsets, ..., mode, ...)``."""
        return F.embedding_bag(input, self.weight, offsets, self.max_norm, self.norm_type,
                               self.scale_grad_by_freq, self.mode, self.sparse,
                               per_sample_weights, self.include_last_offset, self.padding_idx)

    def extra_repr(self):
        s = f"{self.num_embeddings}, {self.embedding_dim}"
        if self.max_norm is not None:
            s += f", max_norm={self.max_norm}"
        if self.norm_type != 2:
            s += f", norm_type={self.norm_type}"
        if self.scale_grad_by_freq is not False:
            s += f", scale_grad_by_freq={self.scale_grad_by_freq}"
        s += f", mode={self.mode!r}"
        if self.padding_idx is not None:
            s += f", padding_idx={self.padding_idx}"
        return s

    @classmethod
    def from_pretrained(cls, embeddings, freeze=True, max_norm=None, norm_type=2.0,
                        scale_grad_by_freq=False, mode="mean", sparse=False,
                        include_last_offset=False, padding_idx=None):
        """An ``EmbeddingBag`` whose weight is ``embeddings`` (2-D).

        Parameters
        ----------
        embeddings : Tensor
        freeze : bool, optional
        max_norm, norm_type, scale_grad_by_freq, mode, sparse, include_last_offset, padding_idx
            As for the constructor.

        Returns
        -------
        EmbeddingBag

        Raises
        ------
        AssertionError
            If ``embeddings`` is not 2-D.
        """
        assert embeddings.dim() == 2, "Embeddings parameter is expected to be 2-dimensional"
        rows, cols = embeddings.shape
        bag = cls(num_embeddings=rows, embedding_dim=cols, _weight=embeddings,
                  max_norm=max_norm, norm_type=norm_type, scale_grad_by_freq=scale_grad_by_freq,
                  mode=mode, sparse=sparse, include_last_offset=include_last_offset,
                  padding_idx=padding_idx)
        bag.weight.requires_grad = not freeze
        return bag
