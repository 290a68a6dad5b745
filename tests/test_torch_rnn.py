"""tracegrad.torch.nn recurrent layers (RNN, LSTM, GRU and their cells) against PyTorch 2.13.

Each module gets PyTorch's parameters through ``load_state_dict`` of
NumPy-converted tensors and the same inputs; outputs, final states and the
gradients of the inputs, the initial states and every parameter are compared
in float32 and float64.  Errors are compared by type and message.
"""
import math
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


def _pair(real, name, dtype, *args, **kwargs):
    """The PyTorch module and its tracegrad twin holding the same parameters."""
    pm = getattr(real.nn, name)(*args, **kwargs).to(getattr(real, dtype))
    tm = getattr(tt.nn, name)(*args, **kwargs, dtype=getattr(tt, dtype))
    assert list(tm.state_dict()) == list(pm.state_dict())
    for (k, a), b in zip(tm.state_dict().items(), pm.state_dict().values()):
        assert tuple(a.shape) == tuple(b.shape), k
    missing = tm.load_state_dict({k: tt.tensor(v.detach().numpy())
                                  for k, v in pm.state_dict().items()})
    assert not missing.missing_keys and not missing.unexpected_keys
    return pm, tm


def _leaf(real, a):
    return real.tensor(a, requires_grad=True), tt.tensor(a, requires_grad=True)


def _flat(out):
    if isinstance(out, tuple):
        return [t for o in out for t in _flat(o)]
    return [out]


def _compare(real, pm, tm, p_args, t_args, dtype, rng):
    po, to = _flat(pm(*p_args)), _flat(tm(*t_args))
    assert len(po) == len(to)
    for a, b in zip(to, po):
        assert tuple(a.shape) == tuple(b.shape)
        assert str(a.dtype) == str(b.dtype)
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), **TOL[dtype])
    # one backward through every output
    ws = [rng.standard_normal(tuple(b.shape)).astype(dtype) for b in po]
    sum((b * real.tensor(w)).sum() for b, w in zip(po, ws)).backward()
    loss = None
    for a, w in zip(to, ws):
        term = (a * tt.tensor(w)).sum()
        loss = term if loss is None else loss + term
    loss.backward()
    grads = [(n, p.grad, q.grad) for (n, p), (_, q) in
             zip(tm.named_parameters(), pm.named_parameters())]
    for n, g, h in grads:
        assert h is not None and g is not None, n
        np.testing.assert_allclose(g.numpy(), h.numpy(), err_msg=n, **TOL[dtype])


def _tensors(real, rng, dtype, *shapes):
    out_p, out_t = [], []
    for s in shapes:
        p, t = _leaf(real, rng.standard_normal(s).astype(dtype))
        out_p.append(p)
        out_t.append(t)
    return out_p, out_t


def _check_input_grads(ps, ts, dtype):
    for p, t in zip(ps, ts):
        np.testing.assert_allclose(t.grad.numpy(), p.grad.numpy(), **TOL[dtype])


# --------------------------------------------------------------------------
# full layers


CONFIGS = [
    ("LSTM", {}),
    ("GRU", {}),
    ("RNN", {}),
    ("RNN", {"nonlinearity": "relu"}),
    ("LSTM", {"num_layers": 2, "bidirectional": True}),
    ("GRU", {"num_layers": 2, "bidirectional": True, "batch_first": True}),
    ("RNN", {"num_layers": 2, "bias": False, "batch_first": True}),
    ("LSTM", {"proj_size": 2, "num_layers": 2}),
    ("LSTM", {"proj_size": 2, "bidirectional": True, "bias": False}),
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name,kw", CONFIGS)
def test_layer_matches_pytorch(real, name, kw, dtype):
    rng = np.random.default_rng(0)
    pm, tm = _pair(real, name, dtype, 4, 3, **kw)
    seq, batch = 5, 2
    shape = (batch, seq, 4) if kw.get("batch_first") else (seq, batch, 4)
    (px,), (tx,) = _tensors(real, rng, dtype, shape)
    _compare(real, pm, tm, (px,), (tx,), dtype, rng)
    _check_input_grads([px], [tx], dtype)


@pytest.mark.parametrize("name,kw", CONFIGS)
def test_layer_with_initial_state(real, name, kw):
    dtype = "float64"
    rng = np.random.default_rng(1)
    pm, tm = _pair(real, name, dtype, 4, 3, **kw)
    seq, batch = 4, 3
    dirs = 2 if kw.get("bidirectional") else 1
    layers = kw.get("num_layers", 1)
    shape = (batch, seq, 4) if kw.get("batch_first") else (seq, batch, 4)
    h_size = kw.get("proj_size") or 3
    shapes = [shape, (layers * dirs, batch, h_size)]
    if name == "LSTM":
        shapes.append((layers * dirs, batch, 3))
    ps, ts = _tensors(real, rng, dtype, *shapes)
    if name == "LSTM":
        p_args, t_args = (ps[0], (ps[1], ps[2])), (ts[0], (ts[1], ts[2]))
    else:
        p_args, t_args = (ps[0], ps[1]), (ts[0], ts[1])
    _compare(real, pm, tm, p_args, t_args, dtype, rng)
    _check_input_grads(ps, ts, dtype)


@pytest.mark.parametrize("name", ["LSTM", "GRU", "RNN"])
def test_unbatched_input(real, name):
    dtype = "float64"
    rng = np.random.default_rng(2)
    pm, tm = _pair(real, name, dtype, 4, 3, num_layers=2)
    shapes = [(5, 4), (2, 3)] + ([(2, 3)] if name == "LSTM" else [])
    ps, ts = _tensors(real, rng, dtype, *shapes)
    if name == "LSTM":
        p_args, t_args = (ps[0], (ps[1], ps[2])), (ts[0], (ts[1], ts[2]))
    else:
        p_args, t_args = (ps[0], ps[1]), (ts[0], ts[1])
    _compare(real, pm, tm, p_args, t_args, dtype, rng)
    _check_input_grads(ps, ts, dtype)
    # and without states
    out = tm(ts[0])
    assert tuple(out[0].shape) == (5, 3)


def test_lstm_output_shapes_with_projection():
    m = tt.nn.LSTM(4, 5, num_layers=3, bidirectional=True, proj_size=2, batch_first=True)
    out, (h, c) = m(tt.randn(2, 7, 4))
    assert tuple(out.shape) == (2, 7, 4)
    assert tuple(h.shape) == (6, 2, 2)
    assert tuple(c.shape) == (6, 2, 5)
    assert tuple(m.weight_hr_l2_reverse.shape) == (2, 5)
    assert tuple(m.weight_ih_l1.shape) == (20, 4)
    assert tuple(m.weight_hh_l0.shape) == (20, 2)


def test_no_grad_and_eval_dropout(real):
    rng = np.random.default_rng(3)
    pm, tm = _pair(real, "GRU", "float32", 4, 3, num_layers=2, dropout=0.5)
    pm.eval()
    tm.eval()
    x = rng.standard_normal((5, 2, 4)).astype("float32")
    with tt.no_grad():
        out, h = tm(tt.tensor(x))
    assert not out.requires_grad
    with real.no_grad():
        pout, ph = pm(real.tensor(x))
    np.testing.assert_allclose(out.numpy(), pout.numpy(), **TOL["float32"])
    np.testing.assert_allclose(h.numpy(), ph.numpy(), **TOL["float32"])


def test_dropout_between_layers_in_training():
    tt.manual_seed(0)
    m = tt.nn.LSTM(3, 4, num_layers=2, dropout=1.0)
    x = tt.randn(5, 2, 3)
    out, _ = m(x)
    m2 = tt.nn.LSTM(4, 4, num_layers=1)
    m2.load_state_dict({k[:-1] + "0": v for k, v in m.state_dict().items() if k.endswith("l1")})
    # dropout=1 zeroes the first layer's output: the second layer sees only zeros
    ref, _ = m2(tt.zeros(5, 2, 4))
    np.testing.assert_allclose(out.detach().numpy(), ref.detach().numpy(), rtol=1e-6)


def test_second_derivative(real):
    rng = np.random.default_rng(4)
    pm, tm = _pair(real, "LSTM", "float64", 2, 2)
    (px,), (tx,) = _tensors(real, rng, "float64", (3, 1, 2))
    (pg,) = real.autograd.grad(pm(px)[0].sum(), px, create_graph=True)
    (tg,) = tt.autograd.grad(tm(tx)[0].sum(), tx, create_graph=True)
    np.testing.assert_allclose(tg.detach().numpy(), pg.detach().numpy(), rtol=1e-10)
    (pgg,) = real.autograd.grad((pg ** 2).sum(), px)
    (tgg,) = tt.autograd.grad((tg ** 2).sum(), tx)
    np.testing.assert_allclose(tgg.numpy(), pgg.numpy(), rtol=1e-9, atol=1e-12)


def test_func_grad_through_gru(real):
    rng = np.random.default_rng(5)
    pm, tm = _pair(real, "GRU", "float64", 2, 3)
    x = rng.standard_normal((4, 2, 2))
    params = {k: v.detach() for k, v in tm.named_parameters()}

    def loss(p, inp):
        return tt.func.functional_call(tm, p, (inp,))[0].sum()

    g = tt.func.grad(loss)(params, tt.tensor(x))
    pm(real.tensor(x))[0].sum().backward()
    for (k, p) in pm.named_parameters():
        np.testing.assert_allclose(g[k].numpy(), p.grad.numpy(), rtol=1e-10, atol=1e-12,
                                   err_msg=k)


def test_state_dict_and_repr(real):
    for name, kw in [("LSTM", dict(num_layers=2, bias=False, batch_first=True, dropout=0.1,
                                   bidirectional=True, proj_size=2)),
                     ("RNN", dict(nonlinearity="relu")), ("GRU", dict(num_layers=3))]:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            pm = getattr(real.nn, name)(4, 3, **kw)
            tm = getattr(tt.nn, name)(4, 3, **kw)
        assert repr(tm) == repr(pm)
        assert list(tm.state_dict()) == list(pm.state_dict())
        assert [tuple(v.shape) for v in tm.state_dict().values()] == \
            [tuple(v.shape) for v in pm.state_dict().values()]
        assert [[n for n in w] for w in tm._all_weights] == pm._all_weights
    for name, kw in [("LSTMCell", dict(bias=False)), ("RNNCell", dict(nonlinearity="relu")),
                     ("GRUCell", {})]:
        pm = getattr(real.nn, name)(4, 3, **kw)
        tm = getattr(tt.nn, name)(4, 3, **kw)
        assert repr(tm) == repr(pm)
        assert list(tm.state_dict()) == list(pm.state_dict())
        assert [tuple(v.shape) for v in tm.state_dict().values()] == \
            [tuple(v.shape) for v in pm.state_dict().values()]


def test_initialization_bounds():
    tt.manual_seed(0)
    m = tt.nn.LSTM(30, 16, num_layers=2)
    bound = 1 / math.sqrt(16)
    values = np.concatenate([p.detach().numpy().ravel() for p in m.parameters()])
    assert values.min() >= -bound and values.max() <= bound
    assert values.min() < -0.9 * bound and values.max() > 0.9 * bound
    assert abs(values.mean()) < 0.01
    c = tt.nn.GRUCell(5, 25)
    w = c.weight_hh.detach().numpy()
    assert np.abs(w).max() <= 0.2 and np.abs(w).max() > 0.18


# --------------------------------------------------------------------------
# cells


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name,kw", [("LSTMCell", {}), ("GRUCell", {}), ("RNNCell", {}),
                                     ("RNNCell", {"nonlinearity": "relu"}),
                                     ("GRUCell", {"bias": False})])
def test_cell_matches_pytorch(real, name, kw, dtype):
    rng = np.random.default_rng(6)
    pm, tm = _pair(real, name, dtype, 4, 3, **kw)
    shapes = [(2, 4), (2, 3)] + ([(2, 3)] if name == "LSTMCell" else [])
    ps, ts = _tensors(real, rng, dtype, *shapes)
    if name == "LSTMCell":
        p_args, t_args = (ps[0], (ps[1], ps[2])), (ts[0], (ts[1], ts[2]))
    else:
        p_args, t_args = (ps[0], ps[1]), (ts[0], ts[1])
    _compare(real, pm, tm, p_args, t_args, dtype, rng)
    _check_input_grads(ps, ts, dtype)


@pytest.mark.parametrize("name", ["LSTMCell", "GRUCell", "RNNCell"])
def test_cell_unbatched_and_default_state(real, name):
    rng = np.random.default_rng(7)
    pm, tm = _pair(real, name, "float64", 4, 3)
    ps, ts = _tensors(real, rng, "float64", (4,))
    _compare(real, pm, tm, (ps[0],), (ts[0],), "float64", rng)
    _check_input_grads(ps, ts, "float64")


# --------------------------------------------------------------------------
# errors


def test_constructor_errors(real):
    for torch in (real, tt):
        with raises(ValueError, "Unknown nonlinearity 'x'. Select from 'tanh' or 'relu'."):
            torch.nn.RNN(4, 3, nonlinearity="x")
        with raises(ValueError, "dropout should be a number in range [0, 1] representing the "
                                "probability of an element being zeroed"):
            torch.nn.RNN(4, 3, dropout=2)
        with raises(ValueError, "proj_size has to be smaller than hidden_size"):
            torch.nn.LSTM(4, 3, proj_size=3)
        with raises(ValueError, "proj_size should be a positive integer or zero to disable "
                                "projections"):
            torch.nn.LSTM(4, 3, proj_size=-1)
        with raises(ValueError, "proj_size argument is only supported for LSTM, not RNN or GRU"):
            torch.nn.GRU(4, 3, proj_size=1)
        with raises(ValueError, "hidden_size must be greater than zero"):
            torch.nn.GRU(4, 0)
        with raises(ValueError, "num_layers must be greater than zero"):
            torch.nn.GRU(4, 3, 0)
        with raises(TypeError, "hidden_size should be of type int, got: float"):
            torch.nn.GRU(4, 3.0)
        with raises(TypeError, "input_size should be of type int, got: float"):
            torch.nn.GRU(4.0, 3)
        with pytest.warns(UserWarning, match="non-zero dropout expects num_layers greater "
                                             "than 1, but got dropout=0.5 and num_layers=1"):
            torch.nn.RNN(4, 3, dropout=0.5)


def test_forward_errors(real):
    for torch in (real, tt):
        torch.manual_seed(0)
        m = torch.nn.LSTM(4, 3, 2)
        g = torch.nn.GRU(4, 3, 2)
        with raises(RuntimeError, "input.size(-1) must be equal to input_size. Expected 4, "
                                  "got 6"):
            m(torch.randn(5, 2, 6))
        with raises(ValueError, "LSTM: Expected input to be 2D or 3D, got 4D instead"):
            m(torch.randn(5, 2, 4, 1))
        with raises(RuntimeError, "Expected hidden[0] size (2, 2, 3), got [1, 2, 3]"):
            m(torch.randn(5, 2, 4), (torch.randn(1, 2, 3), torch.randn(2, 2, 3)))
        with raises(RuntimeError, "Expected hidden[1] size (2, 2, 3), got [1, 2, 3]"):
            m(torch.randn(5, 2, 4), (torch.randn(2, 2, 3), torch.randn(1, 2, 3)))
        with raises(RuntimeError, "For unbatched 2-D input, hx and cx should also be 2-D but "
                                  "got (3-D, 3-D) tensors"):
            m(torch.randn(5, 4), (torch.randn(2, 2, 3), torch.randn(2, 2, 3)))
        with raises(RuntimeError, "For batched 3-D input, hx and cx should also be 3-D but got "
                                  "(2-D, 2-D) tensors"):
            m(torch.randn(5, 2, 4), (torch.randn(2, 3), torch.randn(2, 3)))
        with raises(ValueError, "RNN input dtype (torch.float64) does not match weight dtype "
                                "(torch.float32). Convert input: input.to(torch.float32), or "
                                "convert model: model.to(torch.float64)"):
            m(torch.randn(5, 2, 4, dtype=torch.float64))
        with raises(RuntimeError, "Expected hidden size (2, 2, 3), got [1, 2, 3]"):
            g(torch.randn(5, 2, 4), torch.randn(1, 2, 3))
        with raises(RuntimeError, "For unbatched 2-D input, hx should also be 2-D but got 3-D "
                                  "tensor"):
            g(torch.randn(5, 4), torch.randn(2, 2, 3))
        c = torch.nn.LSTMCell(4, 3)
        with raises(RuntimeError, "input has inconsistent input_size: got 5 expected 4"):
            c(torch.randn(2, 5))
        with raises(ValueError, "LSTMCell: Expected input to be 1D or 2D, got 3D instead"):
            c(torch.randn(2, 2, 4))
        with raises(RuntimeError, "Input batch size 2 doesn't match hidden0 batch size 3"):
            c(torch.randn(2, 4), (torch.randn(3, 3), torch.randn(3, 3)))
        with raises(RuntimeError, "hidden0 has inconsistent hidden_size: got 4, expected 3"):
            c(torch.randn(2, 4), (torch.randn(2, 4), torch.randn(2, 3)))
        gc = torch.nn.GRUCell(4, 3)
        with raises(RuntimeError, "Input batch size 2 doesn't match hidden0 batch size 3"):
            gc(torch.randn(2, 4), torch.randn(3, 3))
