"""tracegrad.torch attention (``scaled_dot_product_attention``, ``MultiheadAttention``,
``TransformerEncoderLayer``, ``TransformerEncoder``) against PyTorch 2.13.

Values and the gradients of the inputs and every parameter are compared, with
PyTorch's parameters copied through ``load_state_dict``; masks (boolean,
float, causal, key padding), ``need_weights`` and per-head weights included.
"""
import re
import warnings

import numpy as np
import pytest

import tracegrad.torch as tt


@pytest.fixture(scope="module")
def real():
    torch = pytest.importorskip("torch")
    torch.set_num_threads(1)
    return torch


DTYPES = ["float32", "float64"]
TOL = {"float32": dict(rtol=2e-5, atol=2e-6), "float64": dict(rtol=1e-10, atol=1e-12)}


def raises(exc_type, message):
    return pytest.raises(exc_type, match="^" + re.escape(message) + r"\Z")


def _leaves(real, *arrays):
    return ([real.tensor(a, requires_grad=True) for a in arrays],
            [tt.tensor(a, requires_grad=True) for a in arrays])


def _check(real, po, to, ps, ts, dtype, rng, params=()):
    assert tuple(to.shape) == tuple(po.shape)
    np.testing.assert_allclose(to.detach().numpy(), po.detach().numpy(), **TOL[dtype])
    w = rng.standard_normal(tuple(po.shape)).astype(dtype)
    (po * real.tensor(w)).sum().backward()
    (to * tt.tensor(w)).sum().backward()
    for p, t in zip(ps, ts):
        np.testing.assert_allclose(t.grad.numpy(), p.grad.numpy(), **TOL[dtype])
    for name, t, p in params:
        np.testing.assert_allclose(t.grad.numpy(), p.grad.numpy(), err_msg=name, **TOL[dtype])


def _mask(kind, rng, L, S):
    if kind == "bool":
        m = rng.random((L, S)) > 0.3
        m[:, 0] = True
        return m
    if kind == "bool_dead_row":
        m = rng.random((L, S)) > 0.3
        m[1] = False
        return m
    if kind == "float":
        return rng.standard_normal((L, S))
    if kind == "float_dead_row":
        m = rng.standard_normal((L, S))
        m[2] = -np.inf
        return m
    return None


# --------------------------------------------------------------------------
# scaled_dot_product_attention


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("kw", [{}, {"is_causal": True}, {"mask": "bool"}, {"mask": "float"},
                                {"mask": "bool_dead_row"}, {"mask": "float_dead_row"},
                                {"scale": 0.3}, {"is_causal": True, "scale": 2.0}])
def test_sdpa_matches_pytorch(real, kw, dtype):
    rng = np.random.default_rng(0)
    q, k, v = (rng.standard_normal(s).astype(dtype) for s in [(2, 3, 4, 5), (2, 3, 6, 5),
                                                                 (2, 3, 6, 7)])
    ps, ts = _leaves(real, q, k, v)
    kw = dict(kw)
    m = _mask(kw.pop("mask", None), rng, 4, 6)
    if m is not None and m.dtype != bool:
        m = m.astype(dtype)
    po = real.nn.functional.scaled_dot_product_attention(
        *ps, attn_mask=None if m is None else real.tensor(m), **kw)
    to = tt.nn.functional.scaled_dot_product_attention(
        *ts, attn_mask=None if m is None else tt.tensor(m), **kw)
    _check(real, po, to, ps, ts, dtype, rng)


def test_sdpa_float_mask_gradient_and_broadcasting(real):
    rng = np.random.default_rng(1)
    q, k, v = (rng.standard_normal(s) for s in [(2, 2, 3, 4), (2, 2, 5, 4), (2, 2, 5, 4)])
    m = rng.standard_normal((2, 1, 3, 5))
    ps, ts = _leaves(real, q, k, v, m)
    po = real.nn.functional.scaled_dot_product_attention(*ps[:3], attn_mask=ps[3])
    to = tt.nn.functional.scaled_dot_product_attention(*ts[:3], attn_mask=ts[3])
    _check(real, po, to, ps, ts, "float64", rng)


def test_sdpa_causal_rectangular_unbatched_and_gqa(real):
    rng = np.random.default_rng(2)
    for shapes, kw in [([(3, 5), (6, 5), (6, 2)], {"is_causal": True}),
                       ([(2, 6, 4, 5), (2, 3, 4, 5), (2, 3, 4, 5)], {"enable_gqa": True}),
                       ([(2, 6, 4, 5), (2, 2, 4, 5), (2, 2, 4, 5)],
                        {"enable_gqa": True, "is_causal": True})]:
        ps, ts = _leaves(real, *(rng.standard_normal(s) for s in shapes))
        po = real.nn.functional.scaled_dot_product_attention(*ps, **kw)
        to = tt.nn.functional.scaled_dot_product_attention(*ts, **kw)
        _check(real, po, to, ps, ts, "float64", rng)


def test_sdpa_dropout():
    tt.manual_seed(0)
    q, k, v = tt.randn(2, 3, 4), tt.randn(2, 5, 4), tt.randn(2, 5, 4)
    out = tt.nn.functional.scaled_dot_product_attention(q, k, v, dropout_p=1.0)
    np.testing.assert_array_equal(out.numpy(), np.zeros((2, 3, 4), np.float32))
    same = tt.nn.functional.scaled_dot_product_attention(q, k, v, dropout_p=0.0)
    ref = tt.nn.functional.scaled_dot_product_attention(q, k, v)
    np.testing.assert_array_equal(same.numpy(), ref.numpy())


def test_sdpa_errors(real):
    for torch in (real, tt):
        F = torch.nn.functional
        q, k, v = torch.randn(2, 3, 4, 5), torch.randn(2, 3, 6, 5), torch.randn(2, 3, 6, 7)
        with raises(RuntimeError, "_scaled_dot_product_attention: Explicit attn_mask should "
                                  "not be set when is_causal=True"):
            F.scaled_dot_product_attention(q, k, v, attn_mask=torch.ones(4, 6, dtype=torch.bool),
                                           is_causal=True)
        with raises(RuntimeError, "Expected query, key, and value to have the same dtype, but "
                                  "got query.dtype: double key.dtype: float and value.dtype: "
                                  "float instead."):
            F.scaled_dot_product_attention(q.double(), k, v)


# --------------------------------------------------------------------------
# MultiheadAttention


def _mha_pair(real, dtype, *args, **kwargs):
    pm = real.nn.MultiheadAttention(*args, **kwargs).to(getattr(real, dtype))
    tm = tt.nn.MultiheadAttention(*args, **kwargs, dtype=getattr(tt, dtype))
    assert list(tm.state_dict()) == list(pm.state_dict())
    assert [tuple(v.shape) for v in tm.state_dict().values()] == \
        [tuple(v.shape) for v in pm.state_dict().values()]
    tm.load_state_dict({k: tt.tensor(v.detach().numpy()) for k, v in pm.state_dict().items()})
    return pm, tm


MHA_CASES = [
    ({}, {}),
    ({"batch_first": True}, {}),
    ({"add_bias_kv": True}, {}),
    ({"add_zero_attn": True}, {"attn_mask": "float"}),
    ({"kdim": 3, "vdim": 5}, {}),
    ({"bias": False}, {"need_weights": False}),
    ({}, {"average_attn_weights": False}),
    ({}, {"attn_mask": "causal", "is_causal": True, "need_weights": False}),
    ({}, {"attn_mask": "bool"}),
    ({}, {"attn_mask": "bool", "need_weights": False}),
    ({}, {"key_padding_mask": "bool"}),
    ({}, {"key_padding_mask": "bool", "need_weights": False, "attn_mask": "float"}),
    ({"batch_first": True}, {"key_padding_mask": "float", "attn_mask": "3d"}),
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("kw,fkw", MHA_CASES)
def test_multihead_attention_matches_pytorch(real, kw, fkw, dtype):
    rng = np.random.default_rng(3)
    pm, tm = _mha_pair(real, dtype, 8, 2, **kw)
    L, S, N = 4, 5, 2
    kd, vd = kw.get("kdim", 8), kw.get("vdim", 8)
    bf = kw.get("batch_first", False)

    def shape(n, d):
        return (N, n, d) if bf else (n, N, d)

    arrays = [rng.standard_normal(s).astype(dtype) for s in (shape(L, 8), shape(S, kd),
                                                               shape(S, vd))]
    ps, ts = _leaves(real, *arrays)
    masks = {}
    for name, kind in fkw.items():
        if kind == "causal":
            m = np.triu(np.ones((L, S), bool), 1)
        elif name == "key_padding_mask":
            m = np.zeros((N, S), bool)
            m[0, -2:] = True
            if kind == "float":
                m = np.where(m, -np.inf, 0.0).astype(dtype)
        elif kind == "bool":
            m = rng.random((L, S)) > 0.7
            m[:, 0] = False
        elif kind == "float":
            m = rng.standard_normal((L, S)).astype(dtype)
        elif kind == "3d":
            m = rng.standard_normal((N * 2, L, S)).astype(dtype)
        else:
            m = kind
        masks[name] = m
    pk = {a: real.tensor(b) if isinstance(b, np.ndarray) else b for a, b in masks.items()}
    tk = {a: tt.tensor(b) if isinstance(b, np.ndarray) else b for a, b in masks.items()}
    mixed = "key_padding_mask" in masks and "attn_mask" in masks and (
        masks["key_padding_mask"].dtype == bool) != (masks["attn_mask"].dtype == bool)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        po, pw = pm(*ps, **pk)
        to, tw = tm(*ts, **tk)
    texts = [str(w.message) for w in caught if "mismatched" in str(w.message)]
    assert texts == (["Support for mismatched key_padding_mask and attn_mask is deprecated. "
                      "Use same type for both instead."] * 2 if mixed else [])
    if pw is None:
        assert tw is None
    else:
        assert tuple(tw.shape) == tuple(pw.shape)
        np.testing.assert_allclose(tw.detach().numpy(), pw.detach().numpy(), **TOL[dtype])
    params = [(n, t, p) for (n, t), (_, p) in zip(tm.named_parameters(), pm.named_parameters())]
    _check(real, po, to, ps, ts, dtype, rng, params)


def test_multihead_attention_self_attention_unbatched(real):
    rng = np.random.default_rng(4)
    pm, tm = _mha_pair(real, "float64", 6, 3)
    ps, ts = _leaves(real, rng.standard_normal((4, 6)))
    po, pw = pm(ps[0], ps[0], ps[0])
    to, tw = tm(ts[0], ts[0], ts[0])
    np.testing.assert_allclose(tw.detach().numpy(), pw.detach().numpy(), **TOL["float64"])
    params = [(n, t, p) for (n, t), (_, p) in zip(tm.named_parameters(), pm.named_parameters())]
    _check(real, po, to, ps, ts, "float64", rng, params)


def test_multihead_attention_structure(real):
    for kw in [{}, {"add_bias_kv": True}, {"kdim": 3, "vdim": 5, "bias": False}]:
        pm = real.nn.MultiheadAttention(8, 2, **kw)
        tm = tt.nn.MultiheadAttention(8, 2, **kw)
        assert repr(tm) == repr(pm)
        assert list(tm.state_dict()) == list(pm.state_dict())
        assert [n for n, _ in tm.named_parameters()] == [n for n, _ in pm.named_parameters()]
    tm = tt.nn.MultiheadAttention(8, 2)
    assert isinstance(tm.out_proj, tt.nn.Linear)
    assert type(tm.out_proj).__name__ == "NonDynamicallyQuantizableLinear"
    np.testing.assert_array_equal(tm.in_proj_bias.detach().numpy(), np.zeros(24, np.float32))
    np.testing.assert_array_equal(tm.out_proj.bias.detach().numpy(), np.zeros(8, np.float32))
    bound = np.sqrt(6 / (8 + 24))  # xavier_uniform_ of (3E, E)
    w = tm.in_proj_weight.detach().numpy()
    assert np.abs(w).max() <= bound and np.abs(w).max() > 0.8 * bound


def test_multihead_attention_errors(real):
    for torch in (real, tt):
        torch.manual_seed(0)
        with raises(AssertionError, "embed_dim must be divisible by num_heads"):
            torch.nn.MultiheadAttention(8, 3)
        mha = torch.nn.MultiheadAttention(8, 2)
        x = torch.randn(4, 2, 8)
        with raises(RuntimeError, "Need attn_mask if specifying the is_causal hint. You may use "
                                  "the Transformer module method "
                                  "`generate_square_subsequent_mask` to create this mask."):
            mha(x, x, x, is_causal=True)
        with raises(RuntimeError, "The shape of the 2D attn_mask is torch.Size([3, 4]), but "
                                  "should be (4, 4)."):
            mha(x, x, x, attn_mask=torch.zeros(3, 4))
        with raises(RuntimeError, "The shape of the 3D attn_mask is torch.Size([3, 4, 4]), but "
                                  "should be (4, 4, 4)."):
            mha(x, x, x, attn_mask=torch.zeros(3, 4, 4))
        with raises(AssertionError, "was expecting embedding dimension of 8, but got 7"):
            mha(torch.randn(4, 2, 7), x, x)


def test_multihead_attention_dropout_modes():
    tt.manual_seed(0)
    mha = tt.nn.MultiheadAttention(4, 2, dropout=1.0)
    x = tt.randn(3, 2, 4)
    _, w = mha(x, x, x)
    np.testing.assert_array_equal(w.detach().numpy(), np.zeros((2, 3, 3), np.float32))
    mha.eval()
    _, w = mha(x, x, x)
    np.testing.assert_allclose(w.detach().numpy().sum(-1), np.ones((2, 3)), rtol=1e-6)


# --------------------------------------------------------------------------
# TransformerEncoderLayer / TransformerEncoder


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("kw", [{}, {"norm_first": True, "activation": "gelu",
                                     "batch_first": True}])
def test_transformer_encoder_matches_pytorch(real, kw, dtype):
    rng = np.random.default_rng(5)
    pdt, tdt = getattr(real, dtype), getattr(tt, dtype)
    pl = real.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, **kw).to(pdt)
    pe = real.nn.TransformerEncoder(pl, 2, norm=real.nn.LayerNorm(8).to(pdt),
                                    enable_nested_tensor=False)
    tl = tt.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, **kw, dtype=tdt)
    te = tt.nn.TransformerEncoder(tl, 2, norm=tt.nn.LayerNorm(8, dtype=tdt))
    assert list(te.state_dict()) == list(pe.state_dict())
    te.load_state_dict({a: tt.tensor(b.detach().numpy()) for a, b in pe.state_dict().items()})
    shape = (2, 4, 8) if kw.get("batch_first") else (4, 2, 8)
    ps, ts = _leaves(real, rng.standard_normal(shape).astype(dtype))
    m = np.triu(np.ones((4, 4), bool), 1)
    kpm = np.zeros((2, 4), bool)
    kpm[1, -1] = True
    po = pe(ps[0], mask=real.tensor(m), src_key_padding_mask=real.tensor(kpm))
    to = te(ts[0], mask=tt.tensor(m), src_key_padding_mask=tt.tensor(kpm))
    params = [(n, t, p) for (n, t), (_, p) in zip(te.named_parameters(), pe.named_parameters())]
    _check(real, po, to, ps, ts, dtype, rng, params)


def test_transformer_encoder_layer_structure(real):
    pl = real.nn.TransformerEncoderLayer(8, 2, 16)
    tl = tt.nn.TransformerEncoderLayer(8, 2, 16)
    assert repr(tl) == repr(pl)
    assert list(tl.state_dict()) == list(pl.state_dict())
    assert [tuple(v.shape) for v in tl.state_dict().values()] == \
        [tuple(v.shape) for v in pl.state_dict().values()]
    enc = tt.nn.TransformerEncoder(tl, 3)
    assert [k for k in enc.state_dict()][:2] == ["layers.0.self_attn.in_proj_weight",
                                                 "layers.0.self_attn.in_proj_bias"]
    assert enc.layers[0] is not tl and enc.layers[0].linear1.weight is not tl.linear1.weight
    np.testing.assert_array_equal(enc.layers[2].linear1.weight.detach().numpy(),
                                  tl.linear1.weight.detach().numpy())
    with raises(RuntimeError, "activation should be relu/gelu, not tanh"):
        tt.nn.TransformerEncoderLayer(8, 2, activation="tanh")
    with raises(RuntimeError, "activation should be relu/gelu, not tanh"):
        real.nn.TransformerEncoderLayer(8, 2, activation="tanh")
