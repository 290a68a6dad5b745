"""``tracegrad.torch.compile`` over ``tracegrad.jit``: compiled calls give eager's values
and gradients (functions, modules with parameters and BatchNorm buffers), trace once per
input signature, fall back to eager at a graph break, and raise with ``fullgraph=True``.

The oracle is tracegrad's own eager execution (real PyTorch's ``torch.compile``
needs a C compiler for its default backend).
"""
import numpy as np
import pytest

import tracegrad.torch as torch
from tracegrad.errors import ConcretizationTypeError, TracerBoolConversionError

nn = torch.nn


def test_function_values_gradients_and_one_trace_per_signature():
    traces = []

    def f(x, w, scale=2.0):
        traces.append(1)
        return (torch.tanh(x @ w) ** 2).sum() * scale

    cf = torch.compile(f)
    torch.manual_seed(0)
    x = torch.randn(4, 3, dtype=torch.float64, requires_grad=True)
    w = torch.randn(3, 2, dtype=torch.float64, requires_grad=True)
    y = cf(x, w)
    y.backward()
    gx, gw = x.grad.clone(), w.grad.clone()
    x.grad = w.grad = None
    want = f(x, w)
    want.backward()
    np.testing.assert_allclose(y.item(), want.item(), rtol=1e-14)
    np.testing.assert_allclose(gx.numpy(), x.grad.numpy(), rtol=1e-13)
    np.testing.assert_allclose(gw.numpy(), w.grad.numpy(), rtol=1e-13)
    assert y.grad_fn is not None
    n = len(traces)
    cf(x, w)
    cf(x + 1, w)  # same signature: no new trace
    assert len(traces) == n
    cf(torch.randn(5, 3, dtype=torch.float64), w)  # a new shape traces again
    assert len(traces) == n + 1
    with torch.no_grad():
        assert cf(x, w).grad_fn is None


def test_decorator_forms_and_disable():
    @torch.compile
    def g(x):
        return x * 3

    @torch.compile(fullgraph=True)
    def h(x):
        return x.exp()

    x = torch.arange(3.0)
    np.testing.assert_array_equal(g(x).numpy(), [0, 3, 6])
    np.testing.assert_allclose(h(x).numpy(), np.exp([0.0, 1.0, 2.0]), rtol=1e-6)
    assert torch.compile(g.__wrapped__, disable=True) is g.__wrapped__


def _twins(make):
    torch.manual_seed(0)
    eager = make()
    compiled_mod = make()
    compiled_mod.load_state_dict(eager.state_dict())
    return eager, compiled_mod, torch.compile(compiled_mod)


def test_module_parameters_get_gradients():
    eager, mod, cm = _twins(lambda: nn.Sequential(nn.Linear(3, 5), nn.GELU(), nn.Linear(5, 2)))
    x = torch.randn(7, 3)
    out = cm(x)
    out.square().mean().backward()
    eager(x).square().mean().backward()
    np.testing.assert_allclose(out.detach().numpy(), eager(x).detach().numpy(), rtol=1e-6)
    for (name, p), q in zip(mod.named_parameters(), eager.parameters()):
        np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(), rtol=1e-5, atol=1e-7,
                                   err_msg=name)
    # PyTorch's OptimizedModule: the original module is the child _orig_mod
    assert list(cm.state_dict()) == ["_orig_mod." + k for k in mod.state_dict()]
    assert cm._orig_mod is mod and cm.training
    assert "OptimizedModule" in repr(cm)


def test_cnn_training_step_updates_batchnorm_statistics_as_eager():
    def make():
        return nn.Sequential(nn.Conv2d(1, 2, 3), nn.BatchNorm2d(2), nn.ReLU(), nn.MaxPool2d(2),
                             nn.Flatten(), nn.Linear(2 * 3 * 3, 2))

    eager, mod, cm = _twins(make)
    x = torch.randn(5, 1, 8, 8)
    y = torch.tensor([0, 1, 1, 0, 1])
    for model in (eager, cm):
        loss = nn.functional.cross_entropy(model(x), y)
        loss.backward()
    for (name, a), b in zip(mod.state_dict().items(), eager.state_dict().values()):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-5, atol=1e-6, err_msg=name)
    for (name, p), q in zip(mod.named_parameters(), eager.parameters()):
        np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(), rtol=1e-4, atol=1e-6,
                                   err_msg=name)
    assert int(mod[1].num_batches_tracked) == 1
    # (eval mode is another signature, using these statistics: not compiled here,
    # to keep the suite's compile time down)


def test_graph_break_runs_eagerly_and_fullgraph_raises():
    calls = []

    def g(x):
        calls.append(1)
        if x.sum() > 0:  # needs a concrete value: cannot be staged
            return x * 2
        return x * 3

    cg = torch.compile(g)
    np.testing.assert_array_equal(cg(torch.ones(3)).numpy(), [2, 2, 2])
    np.testing.assert_array_equal(cg(-torch.ones(3)).numpy(), [-3, -3, -3])
    with pytest.raises(TracerBoolConversionError):
        torch.compile(g, fullgraph=True)(torch.ones(3))
    assert issubclass(TracerBoolConversionError, ConcretizationTypeError)


def test_non_tensor_output_is_a_graph_break():
    def k(x):
        return x.sum(), "label"

    out = torch.compile(k)(torch.ones(2))
    assert out[1] == "label" and out[0].item() == 2.0


def test_random_numbers_and_dropout_break_the_graph():
    torch.manual_seed(0)
    drop = torch.compile(nn.Dropout(0.5))
    masks = [drop(torch.ones(64)).numpy() for _ in range(3)]
    assert not np.array_equal(masks[0], masks[1])  # a new mask per call, as eagerly
    g = torch.compile(lambda x: x + torch.randn(3))
    assert not np.array_equal(g(torch.zeros(3)).numpy(), g(torch.zeros(3)).numpy())
    with pytest.raises(ConcretizationTypeError, match="random numbers"):
        torch.compile(lambda x: x * torch.rand(3), fullgraph=True)(torch.ones(3))


def test_in_place_writes_reach_the_caller_and_double_backward_raises():
    t = torch.tensor([1.0, 2.0])
    torch.compile(lambda x: x.mul_(2))(t)
    np.testing.assert_array_equal(t.numpy(), [2.0, 4.0])
    buf = torch.zeros(2)
    torch.compile(lambda x: buf.add_(x))(torch.ones(2))  # a closed-over tensor: eagerly
    np.testing.assert_array_equal(buf.numpy(), [1.0, 1.0])
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = torch.compile(lambda v: (v ** 3).sum())(x)
    with pytest.raises(RuntimeError, match="does not currently support double backward"):
        torch.autograd.grad(y, x, create_graph=True)


def test_against_pytorch_compile():
    """The same model compiled by both libraries (PyTorch's TorchDynamo with its
    "eager" backend, which needs no C compiler): outputs, parameter gradients,
    the compiled module's state_dict keys and class name, a graph break."""
    real = pytest.importorskip("torch")
    real.set_num_threads(1)
    # TorchDynamo turns off torch.distributions' argument validation for the whole
    # process; later tests in this worker use PyTorch's validation as an oracle
    validate = real.distributions.Distribution._validate_args
    try:
        _compare_with_pytorch_compile(real)
    finally:
        real.distributions.Distribution.set_default_validate_args(validate)


def _compare_with_pytorch_compile(real):
    rng = np.random.default_rng(0)
    shapes = {"0.weight": (5, 3), "0.bias": (5,), "2.weight": (2, 5), "2.bias": (2,)}
    state = {k: rng.normal(size=s) for k, s in shapes.items()}
    x = rng.normal(size=(7, 3))
    results = []
    for lib, kw in ((torch, {}), (real, {"backend": "eager"})):
        model = lib.nn.Sequential(lib.nn.Linear(3, 5), lib.nn.Tanh(), lib.nn.Linear(5, 2)).double()
        model.load_state_dict({k: lib.tensor(v) for k, v in state.items()})
        cm = lib.compile(model, **kw)
        out = cm(lib.tensor(x))
        out.square().mean().backward()
        results.append((out.detach().numpy(), [p.grad.numpy() for p in model.parameters()],
                        list(cm.state_dict()), type(cm).__name__))

        def branchy(t):
            if t.sum() > 0:
                return t * 2
            return t * 3

        cb = lib.compile(branchy, **kw)
        results[-1] += (cb(lib.ones(2)).numpy(), cb(-lib.ones(2)).numpy())
    (ya, ga, ka, na, b1a, b2a), (yb, gb, kb, nb, b1b, b2b) = results
    np.testing.assert_allclose(ya, yb, rtol=1e-13)
    for a, b in zip(ga, gb):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-14)
    assert ka == kb and na == nb == "OptimizedModule"
    np.testing.assert_array_equal(b1a, b1b)
    np.testing.assert_array_equal(b2a, b2b)
