"""Attention functions of ``nn.functional``: ``scaled_dot_product_attention`` and
``multi_head_attention_forward``.

Both are compositions of tensor operations (``matmul``, ``softmax``, ``add``,
``mul``, ...), so their derivatives are those operations' primitives' VJP
rules.  Formulas: Vaswani et al. 2017, "Attention Is All You Need" (eq. 1,
multi-head attention in section 3.2.2); masks, scaling and shapes as PyTorch
documents them for ``torch.nn.functional.scaled_dot_product_attention`` and
``torch.nn.MultiheadAttention``.
"""
import math
import warnings

import numpy as np

from .. import _ops
from .._ops import _tensor_arg
from .._tensor import Tensor
# functional imports this module at its end, after defining these two
from .functional import dropout, linear

__all__ = ["scaled_dot_product_attention", "multi_head_attention_forward"]


def _dtype_word(t):
    return {"float32": "float", "float64": "double", "float16": "c10::Half"}.get(
        str(t._data.dtype), str(t._data.dtype))


def _mask_data(mask):
    """A mask's values as a NumPy array (None inside ``torch.func``: traced)."""
    d = mask._data if isinstance(mask, Tensor) else np.asarray(mask)
    return d if type(d) is np.ndarray else None


def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0,
                                 is_causal=False, scale=None, enable_gqa=False):
    """``softmax(query @ key^T * scale + mask) @ value``.

    Parameters
    ----------
    query : Tensor
        ``(..., L, E)``.
    key : Tensor
        ``(..., S, E)``.
    value : Tensor
        ``(..., S, Ev)``.
    attn_mask : Tensor, optional
        Broadcastable to ``(..., L, S)``.  Boolean: True marks the positions
        that take part (False ones get ``-inf``); floating point: added to the
        scores.
    dropout_p : float, optional
        Dropout probability on the attention weights (always applied when
        positive, as in PyTorch: pass 0 in evaluation).
    is_causal : bool, optional
        Query ``i`` attends to keys ``j <= i`` (the upper-left aligned lower
        triangle of the ``L x S`` matrix).
    scale : float, optional
        Default ``1 / sqrt(E)``.
    enable_gqa : bool, optional
        Grouped-query attention: ``key``/``value`` have fewer heads (dimension
        -3) than ``query``, each shared by ``Hq / Hk`` consecutive query heads.

    Returns
    -------
    Tensor
        ``(..., L, Ev)``.  A query row whose keys are all masked gives zeros
        (PyTorch 2.13's behaviour), with zero gradient.

    Raises
    ------
    RuntimeError
        With PyTorch's messages: ``attn_mask`` together with ``is_causal``,
        operands of different dtypes, shapes that do not multiply or
        broadcast.
    """
    q, k, v = _tensor_arg(query), _tensor_arg(key), _tensor_arg(value)
    if not (q._data.dtype == k._data.dtype == v._data.dtype):
        raise RuntimeError(
            "Expected query, key, and value to have the same dtype, but got query.dtype: "
            f"{_dtype_word(q)} key.dtype: {_dtype_word(k)} and value.dtype: {_dtype_word(v)} "
            "instead.")
    if is_causal and attn_mask is not None:
        raise RuntimeError("_scaled_dot_product_attention: Explicit attn_mask should not be set "
                           "when is_causal=True")
    L, S, E = q.shape[-2], k.shape[-2], q.shape[-1]
    factor = 1.0 / math.sqrt(E) if scale is None else float(scale)
    if enable_gqa and q.dim() >= 3 and k.dim() >= 3 and k.shape[-3] != q.shape[-3]:
        rep = q.shape[-3] // k.shape[-3]
        k = _ops.repeat_interleave(k, rep, k.dim() - 3)
        v = _ops.repeat_interleave(v, rep, v.dim() - 3)
    scores = _ops.mul(_ops.matmul(q, _ops.transpose(k, -2, -1)), factor)
    dead = None  # rows with every key masked (a constant boolean array)
    if is_causal:
        allowed = np.tril(np.ones((L, S), dtype=bool))
        scores = _ops.masked_fill(scores, Tensor._wrap(~allowed), float("-inf"))
        dead = ~allowed.any(-1, keepdims=True)
    elif attn_mask is not None:
        mask = _tensor_arg(attn_mask)
        data = _mask_data(mask)
        if mask._data.dtype == np.bool_:
            scores = _ops.masked_fill(scores, _ops.logical_not(mask), float("-inf"))
            if data is not None:
                dead = ~data.any(-1, keepdims=True)
        else:
            scores = _ops.add(scores, mask)
            if data is not None:
                dead = np.isneginf(data).all(-1, keepdims=True)
    if dead is not None and dead.any():
        d = Tensor._wrap(dead)
        scores = _ops.masked_fill(scores, d, 0.0)
        weights = _ops.masked_fill(_ops.softmax(scores, -1), d, 0.0)
    else:
        weights = _ops.softmax(scores, -1)
    if dropout_p > 0.0:
        weights = dropout(weights, dropout_p, True)
    return _ops.matmul(weights, v)


def _canonical_mask(mask, name, other=None, other_name="", target_dtype=None):
    """A bool mask as a float one (``-inf`` where True); a float mask unchanged."""
    if mask is None:
        return None
    mask = _tensor_arg(mask)
    kind = mask._data.dtype.kind
    if mask._data.dtype != np.bool_ and kind != "f":
        raise AssertionError(f"only bool and floating types of {name} are supported")
    if mask._data.dtype == np.bool_:
        data = np.zeros(mask._data.shape, target_dtype)
        if type(mask._data) is np.ndarray:
            data[mask._data] = -np.inf
            return Tensor._wrap(data)
        return _ops.masked_fill(Tensor._wrap(data), mask, float("-inf"))
    return mask


def multi_head_attention_forward(query, key, value, embed_dim_to_check, num_heads,
                                 in_proj_weight, in_proj_bias, bias_k, bias_v, add_zero_attn,
                                 dropout_p, out_proj_weight, out_proj_bias, training=True,
                                 key_padding_mask=None, need_weights=True, attn_mask=None,
                                 use_separate_proj_weight=False, q_proj_weight=None,
                                 k_proj_weight=None, v_proj_weight=None, static_k=None,
                                 static_v=None, average_attn_weights=True, is_causal=False):
    """Multi-head attention of sequence-first inputs (what ``nn.MultiheadAttention`` runs).

    Parameters
    ----------
    query : Tensor
        ``(L, N, E)`` or unbatched ``(L, E)``.
    key, value : Tensor
        ``(S, N, kdim)``, ``(S, N, vdim)`` (or unbatched ``(S, ...)``).
    embed_dim_to_check : int
        ``E``, checked against ``query``.
    num_heads : int
    in_proj_weight, in_proj_bias : Tensor or None
        ``(3E, E)`` and ``(3E,)``: the stacked query, key and value projections.
    bias_k, bias_v : Tensor or None
        ``(1, 1, E)``: a learned key and value appended to the sequence.
    add_zero_attn : bool
        Append a zero key and value.
    dropout_p : float
        Dropout on the attention weights (only with ``training``).
    out_proj_weight, out_proj_bias : Tensor
        The output projection ``(E, E)``, ``(E,)``.
    training : bool, optional
    key_padding_mask : Tensor, optional
        ``(N, S)`` (``(S,)`` unbatched): True (or ``-inf``) marks keys to ignore.
    need_weights : bool, optional
        Also return the attention weights.
    attn_mask : Tensor, optional
        ``(L, S)`` or ``(N * num_heads, L, S)``: True (or a float added to the
        scores) marks positions that may not attend.
    use_separate_proj_weight : bool, optional
        Use ``q_proj_weight``, ``k_proj_weight``, ``v_proj_weight`` instead of
        ``in_proj_weight``.
    static_k, static_v : Tensor, optional
        ``(N * num_heads, S, E / num_heads)``: keys/values used as given.
    average_attn_weights : bool, optional
        Average the returned weights over the heads.
    is_causal : bool, optional
        A hint that ``attn_mask`` is the causal mask (it must be given).

    Returns
    -------
    attn_output : Tensor
        ``(L, N, E)`` (``(L, E)`` unbatched).
    attn_weights : Tensor or None
        ``(N, L, S)`` averaged, ``(N, num_heads, L, S)`` per head; None
        without ``need_weights``.

    Raises
    ------
    AssertionError, RuntimeError
        With PyTorch's messages, for sizes that do not match.
    """
    q, k, v = _tensor_arg(query), _tensor_arg(key), _tensor_arg(value)
    batched = q.dim() == 3
    if not batched:
        q, k, v = (_ops.unsqueeze(t, 1) for t in (q, k, v))
        if key_padding_mask is not None:
            key_padding_mask = _ops.unsqueeze(_tensor_arg(key_padding_mask), 0)
    tgt_len, bsz, embed_dim = q.shape
    src_len = k.shape[0]
    dt = q._data.dtype
    if key_padding_mask is not None and attn_mask is not None and (
            _tensor_arg(key_padding_mask)._data.dtype == np.bool_) != (
            _tensor_arg(attn_mask)._data.dtype == np.bool_):
        warnings.warn("Support for mismatched key_padding_mask and attn_mask is deprecated. "
                      "Use same type for both instead.", UserWarning, stacklevel=3)
    key_padding_mask = _canonical_mask(key_padding_mask, "key_padding_mask", target_dtype=dt)
    if is_causal and attn_mask is None:
        raise RuntimeError(
            "Need attn_mask if specifying the is_causal hint. You may use the Transformer "
            "module method `generate_square_subsequent_mask` to create this mask.")
    if is_causal and key_padding_mask is None and not need_weights:
        attn_mask = None  # the causal mask is made by scaled_dot_product_attention
    else:
        attn_mask = _canonical_mask(attn_mask, "attn_mask", target_dtype=dt)
        if key_padding_mask is not None:
            is_causal = False
    if embed_dim != embed_dim_to_check:
        raise AssertionError(f"was expecting embedding dimension of {embed_dim_to_check}, but "
                             f"got {embed_dim}")
    head_dim = embed_dim // num_heads
    if head_dim * num_heads != embed_dim:
        raise AssertionError(f"embed_dim {embed_dim} not divisible by num_heads {num_heads}")
    if use_separate_proj_weight:
        if key.shape[:2] != value.shape[:2]:
            raise AssertionError(f"key's sequence and batch dims {tuple(key.shape[:2])} do not "
                                 f"match value's {tuple(value.shape[:2])}")
    elif tuple(k.shape) != tuple(v.shape):
        raise AssertionError(f"key shape {k.shape} does not match value shape {v.shape}")

    # input projections
    if use_separate_proj_weight:
        ws = (q_proj_weight, k_proj_weight, v_proj_weight)
    else:
        ws = _ops.chunk(in_proj_weight, 3, 0)
    bs = (None, None, None) if in_proj_bias is None else _ops.chunk(in_proj_bias, 3, 0)
    q = linear(q, ws[0], bs[0])
    k = linear(k, ws[1], bs[1])
    v = linear(v, ws[2], bs[2])

    if attn_mask is not None:
        if attn_mask.dim() == 2:
            if tuple(attn_mask.shape) != (tgt_len, src_len):
                raise RuntimeError(f"The shape of the 2D attn_mask is {attn_mask.shape}, but "
                                   f"should be {(tgt_len, src_len)}.")
            attn_mask = _ops.unsqueeze(attn_mask, 0)
        elif attn_mask.dim() == 3:
            if tuple(attn_mask.shape) != (bsz * num_heads, tgt_len, src_len):
                raise RuntimeError(f"The shape of the 3D attn_mask is {attn_mask.shape}, but "
                                   f"should be {(bsz * num_heads, tgt_len, src_len)}.")
        else:
            raise RuntimeError(f"attn_mask's dimension {attn_mask.dim()} is not supported")

    def pad_last(m):
        return None if m is None else _ops.cat(
            [m, Tensor._wrap(np.zeros(tuple(m.shape[:-1]) + (1,), m._data.dtype))], -1)

    if bias_k is not None and bias_v is not None:
        if static_k is not None or static_v is not None:
            raise AssertionError("bias cannot be added to static key/value.")
        k = _ops.cat([k, _ops.expand(bias_k, 1, bsz, embed_dim)], 0)
        v = _ops.cat([v, _ops.expand(bias_v, 1, bsz, embed_dim)], 0)
        attn_mask, key_padding_mask = pad_last(attn_mask), pad_last(key_padding_mask)

    q = _ops.transpose(_ops.reshape(q, tgt_len, bsz * num_heads, head_dim), 0, 1)
    if static_k is None:
        k = _ops.transpose(_ops.reshape(k, k.shape[0], bsz * num_heads, head_dim), 0, 1)
    else:
        k = _tensor_arg(static_k)
    if static_v is None:
        v = _ops.transpose(_ops.reshape(v, v.shape[0], bsz * num_heads, head_dim), 0, 1)
    else:
        v = _tensor_arg(static_v)
    if add_zero_attn:
        zeros = Tensor._wrap(np.zeros((bsz * num_heads, 1, head_dim), dt))
        k, v = _ops.cat([k, zeros], 1), _ops.cat([v, zeros], 1)
        attn_mask, key_padding_mask = pad_last(attn_mask), pad_last(key_padding_mask)
    src_len = k.shape[1]

    if key_padding_mask is not None:
        if tuple(key_padding_mask.shape) != (bsz, src_len):
            raise AssertionError(f"expecting key_padding_mask shape of {(bsz, src_len)}, but "
                                 f"got {key_padding_mask.shape}")
        kpm = _ops.reshape(_ops.expand(_ops.view(key_padding_mask, bsz, 1, 1, src_len),
                                       bsz, num_heads, 1, src_len),
                           bsz * num_heads, 1, src_len)
        attn_mask = kpm if attn_mask is None else _ops.add(attn_mask, kpm)
    if not training:
        dropout_p = 0.0

    if need_weights:
        scaled = _ops.mul(q, math.sqrt(1.0 / head_dim))
        w = _ops.matmul(scaled, _ops.transpose(k, -2, -1))
        if attn_mask is not None:
            w = _ops.add(attn_mask, w)
        w = _ops.softmax(w, -1)
        if dropout_p > 0.0:
            w = dropout(w, dropout_p, True)
        out = _ops.matmul(w, v)
        out = _ops.reshape(_ops.transpose(out, 0, 1), tgt_len * bsz, embed_dim)
        out = _ops.view(linear(out, out_proj_weight, out_proj_bias), tgt_len, bsz, embed_dim)
        w = _ops.view(w, bsz, num_heads, tgt_len, src_len)
        if average_attn_weights:
            w = _ops.mean(w, 1)
        if not batched:
            out, w = _ops.squeeze(out, 1), _ops.squeeze(w, 0)
        return out, w
    if attn_mask is not None:
        if attn_mask.shape[0] == 1 and attn_mask.dim() == 3:
            attn_mask = _ops.unsqueeze(attn_mask, 0)
        else:
            attn_mask = _ops.view(attn_mask, bsz, num_heads, -1, src_len)
    q = _ops.view(q, bsz, num_heads, tgt_len, head_dim)
    k = _ops.view(k, bsz, num_heads, src_len, head_dim)
    v = _ops.view(v, bsz, num_heads, src_len, head_dim)
    out = scaled_dot_product_attention(q, k, v, attn_mask, dropout_p, is_causal)
    out = _ops.reshape(_ops.permute(out, 2, 0, 1, 3), bsz * tgt_len, embed_dim)
    out = _ops.view(linear(out, out_proj_weight, out_proj_bias), tgt_len, bsz, embed_dim)
    if not batched:
        out = _ops.squeeze(out, 1)
    return out, None
