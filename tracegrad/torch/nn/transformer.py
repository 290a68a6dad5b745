"""Attention modules: ``MultiheadAttention``, ``TransformerEncoderLayer``, ``TransformerEncoder``.

Constructor signatures, defaults, parameter names (``in_proj_weight``,
``in_proj_bias``, ``out_proj.weight``, ``self_attn.*``, ``linear1``,
``norm1``, ...), initialization and ``forward`` arguments are PyTorch's; the
computation is :func:`.functional.multi_head_attention_forward` and
ordinary tensor operations (Vaswani et al. 2017, "Attention Is All You Need").
"""
import copy

from .. import _creation, _ops
from .._tensor import check_device
from . import _functional_attention as FA
from . import functional as F
from . import init
from .containers import ModuleList
from .layers import Dropout, Linear
from .module import Module
from .normalization import LayerNorm
from .parameter import Parameter

__all__ = ["NonDynamicallyQuantizableLinear", "MultiheadAttention", "TransformerEncoderLayer",
           "TransformerEncoder"]


class NonDynamicallyQuantizableLinear(Linear):
    """``Linear`` under the name PyTorch gives ``MultiheadAttention.out_proj``."""


class MultiheadAttention(Module):
    """Multi-head attention: ``concat(head_1, ..., head_h) W_o`` with
    ``head_i = softmax(q W_qi (k W_ki)^T / sqrt(d)) v W_vi`` (Vaswani et al. 2017).

    Parameters
    ----------
    embed_dim : int
    num_heads : int
        Must divide ``embed_dim``.
    dropout : float, optional
        Dropout on the attention weights in training mode.
    bias : bool, optional
        ``in_proj_bias`` and ``out_proj.bias``.
    add_bias_kv : bool, optional
        Learned ``bias_k``, ``bias_v`` ``(1, 1, embed_dim)`` appended to the keys
        and values.
    add_zero_attn : bool, optional
        Append a zero key and value.
    kdim, vdim : int, optional
        Features of ``key``/``value`` (default ``embed_dim``); if either differs,
        the projections are ``q_proj_weight``, ``k_proj_weight``,
        ``v_proj_weight`` instead of ``in_proj_weight``.
    batch_first : bool, optional
        Inputs and output are ``(N, L, E)`` instead of ``(L, N, E)``.
    device, dtype : optional

    Attributes
    ----------
    in_proj_weight : Parameter or None
        ``(3 * embed_dim, embed_dim)``, Xavier-uniform.
    in_proj_bias : Parameter or None
        ``(3 * embed_dim,)``, zeros.
    out_proj : NonDynamicallyQuantizableLinear
        ``embed_dim -> embed_dim`` (bias zeros).

    Raises
    ------
    AssertionError
        If ``num_heads`` does not divide ``embed_dim`` (PyTorch's message).
    ValueError
        For a non-positive ``embed_dim`` or ``num_heads``.
    """

    def __init__(self, embed_dim, num_heads, dropout=0.0, bias=True, add_bias_kv=False,
                 add_zero_attn=False, kdim=None, vdim=None, batch_first=False, device=None,
                 dtype=None):
        if embed_dim <= 0 or num_heads <= 0:
            raise ValueError(f"embed_dim and num_heads must be greater than 0, got "
                             f"embed_dim={embed_dim} and num_heads={num_heads} instead")
        super().__init__()
        check_device(device)
        self.embed_dim = embed_dim
        self.kdim = kdim if kdim is not None else embed_dim
        self.vdim = vdim if vdim is not None else embed_dim
        self._qkv_same_embed_dim = self.kdim == embed_dim and self.vdim == embed_dim
        self.num_heads = num_heads
        self.dropout = dropout
        self.batch_first = batch_first
        self.head_dim = embed_dim // num_heads
        if self.head_dim * num_heads != embed_dim:
            raise AssertionError("embed_dim must be divisible by num_heads")
        if not self._qkv_same_embed_dim:
            self.q_proj_weight = Parameter(_creation.empty(embed_dim, embed_dim, dtype=dtype))
            self.k_proj_weight = Parameter(_creation.empty(embed_dim, self.kdim, dtype=dtype))
            self.v_proj_weight = Parameter(_creation.empty(embed_dim, self.vdim, dtype=dtype))
            self.register_parameter("in_proj_weight", None)
        else:
            self.in_proj_weight = Parameter(_creation.empty(3 * embed_dim, embed_dim,
                                                            dtype=dtype))
            self.register_parameter("q_proj_weight", None)
            self.register_parameter("k_proj_weight", None)
            self.register_parameter("v_proj_weight", None)
        if bias:
            self.in_proj_bias = Parameter(_creation.empty(3 * embed_dim, dtype=dtype))
        else:
            self.register_parameter("in_proj_bias", None)
        self.out_proj = NonDynamicallyQuantizableLinear(embed_dim, embed_dim, bias=bias,
                                                        dtype=dtype)
        if add_bias_kv:
            self.bias_k = Parameter(_creation.empty(1, 1, embed_dim, dtype=dtype))
            self.bias_v = Parameter(_creation.empty(1, 1, embed_dim, dtype=dtype))
        else:
            self.bias_k = self.bias_v = None
        self.add_zero_attn = add_zero_attn
        self._reset_parameters()

    def _reset_parameters(self):
        if self._qkv_same_embed_dim:
            init.xavier_uniform_(self.in_proj_weight)
        else:
            init.xavier_uniform_(self.q_proj_weight)
            init.xavier_uniform_(self.k_proj_weight)
            init.xavier_uniform_(self.v_proj_weight)
        if self.in_proj_bias is not None:
            init.constant_(self.in_proj_bias, 0.0)
            init.constant_(self.out_proj.bias, 0.0)
        if self.bias_k is not None:
            init.xavier_normal_(self.bias_k)
        if self.bias_v is not None:
            init.xavier_normal_(self.bias_v)

    def forward(self, query, key, value, key_padding_mask=None, need_weights=True,
                attn_mask=None, average_attn_weights=True, is_causal=False):
        """Attend from ``query`` to ``key``/``value``.

        Parameters
        ----------
        query : Tensor
            ``(L, N, E)`` (``(N, L, E)`` with ``batch_first``) or ``(L, E)``.
        key, value : Tensor
            ``(S, N, kdim)``/``(S, N, vdim)`` likewise.
        key_padding_mask : Tensor, optional
            ``(N, S)``: True (or ``-inf``) for keys to ignore.
        need_weights : bool, optional
            Return the attention weights too (default True).
        attn_mask : Tensor, optional
            ``(L, S)`` or ``(N * num_heads, L, S)``: True (or a float added to
            the scores) where attention is not allowed.
        average_attn_weights : bool, optional
            Average the weights over the heads (default True).
        is_causal : bool, optional
            Hint that ``attn_mask`` is the causal mask.

        Returns
        -------
        attn_output : Tensor
            Shaped like ``query`` (``embed_dim`` features).
        attn_weights : Tensor or None
            ``(N, L, S)`` (``(N, num_heads, L, S)`` per head, ``(L, S)``
            unbatched), or None without ``need_weights``.

        Raises
        ------
        AssertionError, RuntimeError
            For inconsistent sizes (PyTorch's messages).
        """
        query, key, value = (_ops._tensor_arg(t) for t in (query, key, value))
        batched = query.dim() == 3
        if self.batch_first and batched:
            query, key, value = (_ops.transpose(t, 1, 0) for t in (query, key, value))
        common = dict(training=self.training, key_padding_mask=key_padding_mask,
                      need_weights=need_weights, attn_mask=attn_mask,
                      average_attn_weights=average_attn_weights, is_causal=is_causal)
        if not self._qkv_same_embed_dim:
            out, w = FA.multi_head_attention_forward(
                query, key, value, self.embed_dim, self.num_heads, self.in_proj_weight,
                self.in_proj_bias, self.bias_k, self.bias_v, self.add_zero_attn, self.dropout,
                self.out_proj.weight, self.out_proj.bias, use_separate_proj_weight=True,
                q_proj_weight=self.q_proj_weight, k_proj_weight=self.k_proj_weight,
                v_proj_weight=self.v_proj_weight, **common)
        else:
            out, w = FA.multi_head_attention_forward(
                query, key, value, self.embed_dim, self.num_heads, self.in_proj_weight,
                self.in_proj_bias, self.bias_k, self.bias_v, self.add_zero_attn, self.dropout,
                self.out_proj.weight, self.out_proj.bias, **common)
        if self.batch_first and batched:
            out = _ops.transpose(out, 1, 0)
        return out, w


def _activation(name):
    if name == "relu":
        return F.relu
    if name == "gelu":
        return F.gelu
    raise RuntimeError(f"activation should be relu/gelu, not {name}")


class TransformerEncoderLayer(Module):
    """Self-attention and a feed-forward block, each with a residual and a LayerNorm.

    ``norm_first=False`` (post-norm): ``x = norm1(x + sa(x))``, ``x = norm2(x +
    ff(x))``; ``norm_first=True``: ``x = x + sa(norm1(x))``, ``x = x +
    ff(norm2(x))``, with ``ff(x) = linear2(dropout(activation(linear1(x))))``.

    Parameters
    ----------
    d_model : int
    nhead : int
    dim_feedforward : int, optional
        Default 2048.
    dropout : float, optional
        Default 0.1.
    activation : {'relu', 'gelu'} or callable, optional
    layer_norm_eps : float, optional
        Default 1e-5.
    batch_first : bool, optional
    norm_first : bool, optional
    bias : bool, optional
        Biases of the linear layers, the attention and the LayerNorms.
    device, dtype : optional

    Raises
    ------
    RuntimeError
        For an ``activation`` string other than ``'relu'``/``'gelu'``.
    """

    def __init__(self, d_model, nhead, dim_feedforward=2048, dropout=0.1, activation=F.relu,
                 layer_norm_eps=1e-5, batch_first=False, norm_first=False, bias=True,
                 device=None, dtype=None):
        super().__init__()
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout, bias=bias,
                                            batch_first=batch_first, device=device, dtype=dtype)
        self.linear1 = Linear(d_model, dim_feedforward, bias=bias, device=device, dtype=dtype)
        self.dropout = Dropout(dropout)
        self.linear2 = Linear(dim_feedforward, d_model, bias=bias, device=device, dtype=dtype)
        self.norm_first = norm_first
        self.norm1 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, device=device,
                               dtype=dtype)
        self.norm2 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, device=device,
                               dtype=dtype)
        self.dropout1 = Dropout(dropout)
        self.dropout2 = Dropout(dropout)
        if isinstance(activation, str):
            activation = _activation(activation)
        self.activation = activation

    def forward(self, src, src_mask=None, src_key_padding_mask=None, is_causal=False):
        """One encoder layer on ``src`` ``(S, N, E)`` (``(N, S, E)`` with ``batch_first``).

        Parameters
        ----------
        src : Tensor
        src_mask : Tensor, optional
            Attention mask, as for :meth:`MultiheadAttention.forward`.
        src_key_padding_mask : Tensor, optional
            ``(N, S)``.
        is_causal : bool, optional
            Hint that ``src_mask`` is causal.

        Returns
        -------
        Tensor
            Shaped like ``src``.
        """
        x = src
        if self.norm_first:
            x = _ops.add(x, self._sa_block(self.norm1(x), src_mask, src_key_padding_mask,
                                           is_causal))
            x = _ops.add(x, self._ff_block(self.norm2(x)))
        else:
            x = self.norm1(_ops.add(x, self._sa_block(x, src_mask, src_key_padding_mask,
                                                      is_causal)))
            x = self.norm2(_ops.add(x, self._ff_block(x)))
        return x

    def _sa_block(self, x, attn_mask, key_padding_mask, is_causal=False):
        x = self.self_attn(x, x, x, attn_mask=attn_mask, key_padding_mask=key_padding_mask,
                           need_weights=False, is_causal=is_causal)[0]
        return self.dropout1(x)

    def _ff_block(self, x):
        x = self.linear2(self.dropout(self.activation(self.linear1(x))))
        return self.dropout2(x)


class TransformerEncoder(Module):
    """A stack of ``num_layers`` copies of ``encoder_layer`` (then ``norm``, if given).

    Parameters
    ----------
    encoder_layer : TransformerEncoderLayer
        Deep-copied ``num_layers`` times (``layers.0``, ``layers.1``, ...).
    num_layers : int
    norm : Module, optional
        Applied to the last layer's output.
    enable_nested_tensor, mask_check : bool, optional
        Accepted for compatibility (PyTorch's fast paths).
    """

    def __init__(self, encoder_layer, num_layers, norm=None, enable_nested_tensor=True,
                 mask_check=True):
        super().__init__()
        self.layers = ModuleList([copy.deepcopy(encoder_layer) for _ in range(num_layers)])
        self.num_layers = num_layers
        self.norm = norm
        self.enable_nested_tensor = enable_nested_tensor
        self.mask_check = mask_check

    def forward(self, src, mask=None, src_key_padding_mask=None, is_causal=None):
        """Run the layers in order.

        Parameters
        ----------
        src : Tensor
        mask : Tensor, optional
        src_key_padding_mask : Tensor, optional
        is_causal : bool, optional
            Hint that ``mask`` is causal (None: False).

        Returns
        -------
        Tensor
        """
        x = src
        for layer in self.layers:
            x = layer(x, src_mask=mask, src_key_padding_mask=src_key_padding_mask,
                      is_causal=bool(is_causal))
        if self.norm is not None:
            x = self.norm(x)
        return x
