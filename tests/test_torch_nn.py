"""tracegrad.torch.nn against PyTorch 2.13.

Three kinds of tests:

* differential (fixture ``real``, skipped without PyTorch): each module and
  function of ``tracegrad.torch.nn`` and its PyTorch twin get the same
  parameters (copied through NumPy) and the same inputs; the forward values
  and dtypes, the whole ``grad_fn`` graph (node names along
  ``next_functions``), and the gradients of the inputs and parameters are
  compared, in float32 and float64; errors and warnings are compared by type
  and message;
* API tests (fixture ``torch``) run once with each library against
  expectations hard-coded from PyTorch 2.13, as in
  ``tests/test_torch_autograd.py``: a test failing only for ``[tracegrad]``
  is a difference from PyTorch;
* tracegrad-only pins: the documented values where tracegrad differs on
  purpose (binary cross-entropy's derivative at inputs of exactly 0 and 1),
  and ``nn.init`` statistics (the random streams differ by design, so the
  distributions are checked, not the numbers).
"""
import collections
import copy
import math
import pickle
import re
import warnings

import numpy as np
import pytest

import tracegrad.torch as tt


def import_torch():
    """Real PyTorch (the test skips without it), on one thread: the tensors here are tiny,
    and PyTorch's thread pool only costs time on a busy machine."""
    real_torch = pytest.importorskip("torch")
    real_torch.set_num_threads(1)
    return real_torch


@pytest.fixture(scope="module")
def real():
    return import_torch()


@pytest.fixture(params=["tracegrad", "torch"])
def torch(request):
    return import_torch() if request.param == "torch" else tt


DTYPES = ["float32", "float64"]
TOL = {"float32": dict(rtol=1e-5, atol=1e-6), "float64": dict(rtol=1e-11, atol=1e-12)}


def raises(exc_type, message):
    """``pytest.raises`` pinning the whole message."""
    return pytest.raises(exc_type, match="^" + re.escape(message) + r"\Z")


def graph(t):
    """The names of the graph behind ``t``: ``(name, (parents...))``, None for absent edges."""
    def walk(fn):
        if fn is None:
            return None
        return (fn.name(), tuple(walk(f) for f, _ in fn.next_functions))

    return walk(t.grad_fn)


def lib_tensor(T, value, dtype, requires_grad=False):
    """``value`` as a tensor of library ``T``: floating arrays in ``dtype``, others as they are."""
    a = np.asarray(value)
    if a.dtype.kind == "f":
        a = a.astype(dtype)
    t = T.tensor(a)
    return t.requires_grad_() if requires_grad else t


def numpy_of(t):
    return None if t is None else t.detach().numpy()


def assert_same_tensor(ours, theirs, dtype, what):
    """Same shape, dtype and values (NaN where PyTorch has NaN)."""
    assert isinstance(ours, tt.Tensor), f"{what}: {type(ours).__name__}"
    assert tuple(ours.shape) == tuple(theirs.shape), f"{what}: {ours.shape} vs {theirs.shape}"
    assert str(ours.dtype) == str(theirs.dtype), f"{what}: {ours.dtype} vs {theirs.dtype}"
    np.testing.assert_allclose(numpy_of(ours), numpy_of(theirs), equal_nan=True, err_msg=what,
                               **TOL[dtype])


def assert_same_grads(ours, theirs, dtype, what):
    """Two lists of ``.grad`` values (None included) agree."""
    assert len(ours) == len(theirs)
    for i, (a, b) in enumerate(zip(ours, theirs)):
        assert (a is None) == (b is None), f"{what}[{i}]: {a} vs {b}"
        if a is not None:
            assert_same_tensor(a, b, dtype, f"{what}[{i}]")


def assert_same_run(ours, theirs, dtype):
    """Two ``(output, graph, gradients)`` results, of tracegrad and of PyTorch, agree."""
    assert_same_tensor(ours[0], theirs[0], dtype, "output")
    assert ours[1] == theirs[1], "graph"
    assert_same_grads(ours[2], theirs[2], dtype, "gradients")


def copy_parameters(src, dst):
    """Give PyTorch module ``dst`` the parameter values of tracegrad module ``src``."""
    ours, theirs = dict(src.named_parameters()), dict(dst.named_parameters())
    assert list(ours) == list(theirs)
    import torch as real_torch

    with real_torch.no_grad():
        for name, p in ours.items():
            theirs[name].copy_(real_torch.from_numpy(p.detach().numpy().copy()))


def cotangent(like, offset=0.0):
    """A fixed cotangent for ``like`` (a tensor of either library), in its dtype."""
    dtype = str(like.dtype).split(".")[-1]
    values = np.random.default_rng(7).standard_normal(tuple(like.shape)) + offset
    return values.astype(dtype)


# ---------------------------------------------------------------------------
# modules, differential

rng = np.random.default_rng(0)
AT_ZERO = np.array([[-1.5, 0.0, 2.0], [0.0, -0.25, 0.5]])
LARGE = np.array([[1000.0, -1000.0, 0.0], [30.0, -30.0, 19.5]])

# (id, make(nn), input: shape or array)
MODULES = [
    ("Identity", lambda nn: nn.Identity(3, unused=True), (3, 4)),
    ("Linear", lambda nn: nn.Linear(4, 3), (5, 4)),
    ("Linear-1d-input", lambda nn: nn.Linear(4, 3), (4,)),
    ("Linear-3d-input", lambda nn: nn.Linear(4, 3), (2, 5, 4)),
    ("Linear-no-bias", lambda nn: nn.Linear(4, 3, bias=False), (5, 4)),
    ("Linear-no-bias-1d", lambda nn: nn.Linear(4, 3, bias=False), (4,)),
    ("Linear-no-bias-3d", lambda nn: nn.Linear(4, 3, bias=False), (2, 5, 4)),
    ("Linear-empty-batch", lambda nn: nn.Linear(4, 3), (0, 4)),
    ("Flatten", lambda nn: nn.Flatten(), (2, 3, 4)),
    ("Flatten-all", lambda nn: nn.Flatten(0, -1), (2, 3, 4)),
    ("Flatten-middle", lambda nn: nn.Flatten(1, 2), (2, 3, 4, 2)),
    ("Unflatten", lambda nn: nn.Unflatten(1, (2, 2)), (3, 4)),
    ("Unflatten-last", lambda nn: nn.Unflatten(-1, (2, 3)), (2, 6)),
    ("ReLU", lambda nn: nn.ReLU(), (3, 4)),
    ("ReLU-at-0", lambda nn: nn.ReLU(), AT_ZERO),
    ("Tanh", lambda nn: nn.Tanh(), (3, 4)),
    ("Tanh-large", lambda nn: nn.Tanh(), LARGE),
    ("Sigmoid", lambda nn: nn.Sigmoid(), (3, 4)),
    ("Sigmoid-large", lambda nn: nn.Sigmoid(), LARGE),
    ("Softmax-dim1", lambda nn: nn.Softmax(dim=1), (3, 4)),
    ("Softmax-dim0", lambda nn: nn.Softmax(dim=0), (3, 4)),
    ("Softmax-3d", lambda nn: nn.Softmax(dim=-1), (2, 3, 4)),
    ("Softmax-large", lambda nn: nn.Softmax(dim=1), LARGE),
    ("LogSoftmax", lambda nn: nn.LogSoftmax(dim=-1), (3, 4)),
    ("LogSoftmax-large", lambda nn: nn.LogSoftmax(dim=1), LARGE),
    ("LeakyReLU", lambda nn: nn.LeakyReLU(), (3, 4)),
    ("LeakyReLU-slope-at-0", lambda nn: nn.LeakyReLU(0.2), AT_ZERO),
    ("GELU", lambda nn: nn.GELU(), (3, 4)),
    ("GELU-tanh", lambda nn: nn.GELU(approximate="tanh"), (3, 4)),
    ("SiLU", lambda nn: nn.SiLU(), (3, 4)),
    ("ELU", lambda nn: nn.ELU(), (3, 4)),
    ("ELU-alpha", lambda nn: nn.ELU(alpha=0.7), AT_ZERO),
    ("Softplus", lambda nn: nn.Softplus(), (3, 4)),
    ("Softplus-beta-threshold", lambda nn: nn.Softplus(beta=2.0, threshold=1.0), (3, 4)),
    ("Softplus-large", lambda nn: nn.Softplus(), LARGE),
    ("LogSigmoid", lambda nn: nn.LogSigmoid(), (3, 4)),
    ("LogSigmoid-large", lambda nn: nn.LogSigmoid(), LARGE),
    ("Dropout-eval", lambda nn: nn.Dropout(0.5).eval(), (3, 4)),
    ("Dropout-p0", lambda nn: nn.Dropout(0.0), (3, 4)),
    ("ReLU-inplace", lambda nn: nn.Sequential(nn.Linear(4, 5), nn.ReLU(inplace=True)), (3, 4)),
    ("LeakyReLU-inplace",
     lambda nn: nn.Sequential(nn.Linear(4, 5), nn.LeakyReLU(0.1, inplace=True)), (3, 4)),
    ("ELU-inplace", lambda nn: nn.Sequential(nn.Linear(4, 5), nn.ELU(inplace=True)), (3, 4)),
    ("SiLU-inplace", lambda nn: nn.Sequential(nn.Linear(4, 5), nn.SiLU(inplace=True)), (3, 4)),
    ("MLP", lambda nn: nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 8), nn.GELU(),
                                     nn.Linear(8, 3), nn.LogSoftmax(dim=1)), (6, 4)),
    ("Sequential-OrderedDict", lambda nn: nn.Sequential(collections.OrderedDict(
        [("fc", nn.Linear(4, 3)), ("act", nn.Sigmoid()), ("out", nn.Linear(3, 1))])), (5, 4)),
    ("Sequential-flatten", lambda nn: nn.Sequential(nn.Flatten(), nn.Linear(6, 2), nn.SiLU()),
     (4, 2, 3)),
]


def _module_input(spec, dtype):
    if isinstance(spec, tuple):
        return np.random.default_rng(len(spec) + sum(spec)).standard_normal(spec).astype(dtype)
    return np.asarray(spec, dtype=dtype)


def record(T, y, offset=0.0):
    """``y``'s value and graph, after backpropagating a fixed cotangent from it."""
    g = graph(y)
    out = y.detach().clone()
    if y.requires_grad:
        y.backward(T.tensor(cotangent(y, offset)))
    return out, g


def _run_module(T, module, x, dtype):
    xt = lib_tensor(T, x, dtype, requires_grad=True)
    out, g = record(T, module(xt))
    return out, g, [xt.grad] + [p.grad for p in module.parameters()]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("case", MODULES, ids=[c[0] for c in MODULES])
def test_module_matches_torch(real, case, dtype):
    _, make, spec = case
    ours, theirs = make(tt.nn), make(real.nn)
    ours.to(getattr(tt, dtype))
    theirs.to(getattr(real, dtype))
    copy_parameters(ours, theirs)
    assert repr(ours) == repr(theirs)
    x = _module_input(spec, dtype)
    assert_same_run(_run_module(tt, ours, x, dtype), _run_module(real, theirs, x, dtype), dtype)


# ---------------------------------------------------------------------------
# functions, differential


def _inplace(fn):
    """``fn`` applied to a non-leaf copy (in-place functions refuse leaves that require grad)."""
    return lambda T, x, *rest: fn(T, x * 1, *rest)


X34 = rng.standard_normal((3, 4))
X4 = rng.standard_normal(4)
X234 = rng.standard_normal((2, 3, 4))
W24 = rng.standard_normal((2, 4))
W4 = rng.standard_normal(4)
B2 = rng.standard_normal(2)
B0 = np.array(0.3)
B1 = rng.standard_normal(1)
B32 = rng.standard_normal((3, 2))

# (id, fn(T, *tensors), arguments (each differentiated))
FUNCTIONS = [
    ("linear", lambda T, x, w, b: T.nn.functional.linear(x, w, b), [X34, W24, B2]),
    ("linear-no-bias", lambda T, x, w: T.nn.functional.linear(x, w), [X34, W24]),
    ("linear-1d", lambda T, x, w, b: T.nn.functional.linear(x, w, b), [X4, W24, B2]),
    ("linear-1d-no-bias", lambda T, x, w: T.nn.functional.linear(x, w), [X4, W24]),
    ("linear-3d", lambda T, x, w, b: T.nn.functional.linear(x, w, b), [X234, W24, B2]),
    ("linear-3d-no-bias", lambda T, x, w: T.nn.functional.linear(x, w), [X234, W24]),
    ("linear-1d-weight", lambda T, x, w: T.nn.functional.linear(x, w), [X34, W4]),
    ("linear-1d-weight-1d-input", lambda T, x, w: T.nn.functional.linear(x, w), [X4, W4]),
    ("linear-1d-weight-3d-input", lambda T, x, w: T.nn.functional.linear(x, w), [X234, W4]),
    ("linear-1d-weight-scalar-bias", lambda T, x, w, b: T.nn.functional.linear(x, w, b),
     [X4, W4, B0]),
    ("linear-3d-2d-bias", lambda T, x, w, b: T.nn.functional.linear(x, w, b), [X234, W24, B32]),
    ("linear-broadcast-bias", lambda T, x, w, b: T.nn.functional.linear(x, w, b),
     [X34, W24, B1]),
    ("linear-1d-row-bias", lambda T, x, w, b: T.nn.functional.linear(x, w, b),
     [X4, W24, B2[None]]),
    ("linear-3d-row-bias", lambda T, x, w, b: T.nn.functional.linear(x, w, b),
     [X234, W24, B2[None]]),
    ("linear-transposed-input", lambda T, x, w, b: T.nn.functional.linear(x.transpose(0, 1), w,
                                                                          b),
     [X234.transpose(1, 0, 2), W24, B2]),
    ("relu", lambda T, x: T.nn.functional.relu(x), [X34]),
    ("relu-inplace", _inplace(lambda T, x: T.nn.functional.relu(x, inplace=True)), [X34]),
    ("relu_", _inplace(lambda T, x: T.nn.functional.relu_(x)), [X34]),
    ("sigmoid", lambda T, x: T.nn.functional.sigmoid(x), [X34]),
    ("tanh", lambda T, x: T.nn.functional.tanh(x), [X34]),
    ("softmax", lambda T, x: T.nn.functional.softmax(x, dim=0), [X34]),
    ("softmax-dtype", lambda T, x: T.nn.functional.softmax(x, 1, dtype=T.float64), [X34]),
    ("log_softmax", lambda T, x: T.nn.functional.log_softmax(x, dim=-1), [X234]),
    ("log_softmax-dtype", lambda T, x: T.nn.functional.log_softmax(x, 1, dtype=T.float64),
     [X34]),
    ("softplus", lambda T, x: T.nn.functional.softplus(x, beta=0.5, threshold=0.3), [X34]),
    ("leaky_relu", lambda T, x: T.nn.functional.leaky_relu(x, 0.3), [AT_ZERO]),
    ("leaky_relu-inplace",
     _inplace(lambda T, x: T.nn.functional.leaky_relu(x, 0.3, inplace=True)), [X34]),
    ("gelu", lambda T, x: T.nn.functional.gelu(x), [X34]),
    ("gelu-tanh", lambda T, x: T.nn.functional.gelu(x, approximate="tanh"), [X34]),
    ("silu", lambda T, x: T.nn.functional.silu(x), [X34]),
    ("silu-inplace", _inplace(lambda T, x: T.nn.functional.silu(x, inplace=True)), [X34]),
    ("elu", lambda T, x: T.nn.functional.elu(x, alpha=1.5), [X34]),
    ("elu-inplace", _inplace(lambda T, x: T.nn.functional.elu(x, 0.5, inplace=True)), [X34]),
    ("logsigmoid", lambda T, x: T.nn.functional.logsigmoid(x), [LARGE]),
    ("dropout-not-training", lambda T, x: T.nn.functional.dropout(x, 0.5, training=False), [X34]),
    ("dropout-p0", lambda T, x: T.nn.functional.dropout(x, 0.0), [X34]),
]


def _run_function(T, fn, args, dtype):
    ts = [lib_tensor(T, a, dtype, requires_grad=True) for a in args]
    out, g = record(T, fn(T, *ts))
    return out, g, [t.grad for t in ts]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("case", FUNCTIONS, ids=[c[0] for c in FUNCTIONS])
def test_function_matches_torch(real, case, dtype):
    _, fn, args = case
    assert_same_run(_run_function(tt, fn, args, dtype), _run_function(real, fn, args, dtype),
                    dtype)


def test_one_hot_matches_torch(real):
    for T in (tt, real):
        F = T.nn.functional
        idx = T.tensor([[0, 2], [1, 0]])
        assert F.one_hot(idx).tolist() == [[[1, 0, 0], [0, 0, 1]], [[0, 1, 0], [1, 0, 0]]]
        assert F.one_hot(idx, 4).shape == (2, 2, 4)
        assert F.one_hot(idx).dtype is T.int64
        assert F.one_hot(T.zeros(0, dtype=T.long), 3).shape == (0, 3)


def test_dropout_training_statistics(torch):
    torch.manual_seed(0)
    p = 0.25
    x = torch.ones(4000, requires_grad=True)
    y = torch.nn.functional.dropout(x, p)
    kept = (y != 0).numpy()
    assert abs(kept.mean() - (1 - p)) < 0.03
    values = np.unique(y.detach().numpy())
    np.testing.assert_allclose(values, [0.0, 1 / (1 - p)], rtol=1e-6)
    assert y.grad_fn.name() == "MulBackward0"
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy() != 0, kept)
    np.testing.assert_allclose(x.grad.numpy()[kept], 1 / (1 - p), rtol=1e-6)


def test_dropout_extremes_and_in_place(torch):
    F = torch.nn.functional
    x = torch.ones(5, requires_grad=True)
    y = F.dropout(x, 1.0)
    assert y.tolist() == [0.0] * 5
    y.sum().backward()
    assert x.grad.tolist() == [0.0] * 5
    assert F.dropout(x, 0.5, training=False) is x
    z = torch.ones(5)
    version = z._version
    assert F.dropout(z, 0.5, inplace=True) is z
    assert z._version == version + 1


# ---------------------------------------------------------------------------
# errors and warnings, differential

ERRORS = [
    ("linear-0d-input", lambda T: T.nn.functional.linear(T.tensor(1.0), T.ones(2, 4))),
    ("linear-0d-weight", lambda T: T.nn.functional.linear(T.ones(4), T.tensor(1.0))),
    ("linear-in-features", lambda T: T.nn.functional.linear(T.ones(3, 4), T.ones(2, 5))),
    ("linear-in-features-1d", lambda T: T.nn.functional.linear(T.ones(4), T.ones(2, 5))),
    ("linear-in-features-3d", lambda T: T.nn.functional.linear(T.ones(2, 3, 4), T.ones(2, 5))),
    ("linear-in-features-bias",
     lambda T: T.nn.functional.linear(T.ones(3, 4), T.ones(2, 5), T.ones(2))),
    ("linear-1d-weight-mismatch", lambda T: T.nn.functional.linear(T.ones(3, 4), T.ones(5))),
    ("linear-dot-mismatch", lambda T: T.nn.functional.linear(T.ones(4), T.ones(5))),
    ("linear-1d-weight-with-bias",
     lambda T: T.nn.functional.linear(T.ones(3, 4), T.ones(4), T.ones(3))),
    ("linear-3d-weight", lambda T: T.nn.functional.linear(T.ones(3, 4), T.ones(2, 4, 1))),
    ("linear-dtype", lambda T: T.nn.functional.linear(T.ones(3, 4, dtype=T.float64),
                                                      T.ones(2, 4))),
    ("linear-dtype-3d", lambda T: T.nn.functional.linear(T.ones(2, 3, 4, dtype=T.float64),
                                                         T.ones(2, 4))),
    ("linear-dtype-bias", lambda T: T.nn.functional.linear(T.ones(3, 4, dtype=T.float64),
                                                           T.ones(2, 4), T.ones(2))),
    ("linear-bias-dtype", lambda T: T.nn.functional.linear(T.ones(3, 4), T.ones(2, 4),
                                                           T.ones(2, dtype=T.float64))),
    ("linear-dot-dtype", lambda T: T.nn.functional.linear(T.ones(4, dtype=T.float64),
                                                          T.ones(4))),
    ("linear-int-weight", lambda T: T.nn.Linear(2, 2)(T.ones(1, 2, dtype=T.int64))),
    ("linear-bias-shape", lambda T: T.nn.functional.linear(T.ones(3, 4), T.ones(2, 4),
                                                           T.ones(3))),
    ("linear-bias-shape-3d", lambda T: T.nn.functional.linear(T.ones(2, 3, 4), T.ones(2, 4),
                                                              T.ones(3))),
    ("linear-bias-shape-2d", lambda T: T.nn.functional.linear(T.ones(3, 4), T.ones(2, 4),
                                                              T.ones(2, 2))),
    ("linear-bias-3d", lambda T: T.nn.functional.linear(T.ones(2, 3, 4), T.ones(2, 4),
                                                        T.ones(2, 1, 1))),
    ("linear-1d-weight-row-bias", lambda T: T.nn.functional.linear(T.ones(4), T.ones(4),
                                                                   T.ones(1))),
    ("gelu-approximate", lambda T: T.nn.functional.gelu(T.ones(2), approximate="exact")),
    ("dropout-p", lambda T: T.nn.functional.dropout(T.ones(2), 1.5)),
    ("Dropout-p", lambda T: T.nn.Dropout(-0.1)),
    ("one_hot-float", lambda T: T.nn.functional.one_hot(T.tensor([0.0, 1.0]))),
    ("one_hot-negative", lambda T: T.nn.functional.one_hot(T.tensor([0, -1]))),
    ("one_hot-too-few", lambda T: T.nn.functional.one_hot(T.tensor([0, 3]), 2)),
    ("one_hot-empty", lambda T: T.nn.functional.one_hot(T.zeros(0, dtype=T.long))),
    ("relu-leaf-inplace", lambda T: T.nn.functional.relu(T.ones(2, requires_grad=True),
                                                         inplace=True)),
] + [
    (f"{name}-{dtype}", (lambda name, dtype: lambda T: getattr(T.nn.functional, name)(
        T.tensor([1, 0, -2]).to(getattr(T, dtype))))(name, dtype))
    for name in ("softplus", "leaky_relu", "gelu", "silu", "elu", "logsigmoid")
    for dtype in ("long", "bool")
]

# loss errors: class targets, probabilities, shapes, dtypes, options
L = [0, 1, 2]
ERRORS += [
    ("ce-target-out-of-range", lambda T: T.nn.functional.cross_entropy(T.ones(3, 4),
                                                                        T.tensor([0, 1, 4]))),
    ("ce-target-negative", lambda T: T.nn.functional.cross_entropy(T.ones(3, 4),
                                                                    T.tensor([0, 1, -1]))),
    ("ce-batch-size", lambda T: T.nn.functional.cross_entropy(T.ones(3, 4), T.tensor([0, 1]))),
    ("ce-float-indices", lambda T: T.nn.functional.cross_entropy(T.ones(3, 4),
                                                                  T.tensor([0.0, 1.0, 2.0]))),
    ("ce-int32-indices", lambda T: T.nn.functional.cross_entropy(
        T.ones(3, 4), T.tensor(L, dtype=T.int32))),
    ("ce-reduction", lambda T: T.nn.functional.cross_entropy(T.ones(3, 4), T.tensor(L),
                                                              reduction="avg")),
    ("ce-smoothing", lambda T: T.nn.functional.cross_entropy(T.ones(3, 4), T.tensor(L),
                                                              label_smoothing=1.5)),
    ("ce-smoothing-probs", lambda T: T.nn.functional.cross_entropy(
        T.ones(3, 4), T.full((3, 4), 0.25), label_smoothing=1.5)),
    ("ce-weight-size", lambda T: T.nn.functional.cross_entropy(T.ones(3, 4), T.tensor(L),
                                                                weight=T.ones(3))),
    ("ce-weight-dtype", lambda T: T.nn.functional.cross_entropy(
        T.ones(3, 4), T.tensor(L), weight=T.ones(4, dtype=T.float64))),
    ("ce-weight-size-probs", lambda T: T.nn.functional.cross_entropy(
        T.ones(3, 4), T.full((3, 4), 0.25), weight=T.ones(3))),
    ("ce-kdim-target-size", lambda T: T.nn.functional.cross_entropy(
        T.ones(2, 4, 3), T.zeros(2, 4, dtype=T.long))),
    ("ce-kdim-weight", lambda T: T.nn.functional.cross_entropy(
        T.ones(2, 4, 3), T.zeros(2, 3, dtype=T.long), weight=T.ones(3))),
    ("ce-probs-int", lambda T: T.nn.functional.cross_entropy(T.ones(3, 4),
                                                              T.ones(3, 4, dtype=T.long))),
    ("ce-probs-ignore-index", lambda T: T.nn.functional.cross_entropy(
        T.ones(3, 4), T.full((3, 4), 0.25), ignore_index=1)),
    ("ce-multi-target", lambda T: T.nn.functional.cross_entropy(T.ones(3, 4), T.ones(3, 5))),
    ("ce-0d", lambda T: T.nn.functional.cross_entropy(T.tensor(1.0), T.tensor(0))),
    ("nll-1d-target-size", lambda T: T.nn.functional.nll_loss(T.ones(4), T.tensor([1, 2]))),
    ("nll-0d-target", lambda T: T.nn.functional.nll_loss(T.ones(3, 4), T.tensor(1))),
    ("nll-2d-target", lambda T: T.nn.functional.nll_loss(T.ones(3, 4), T.tensor([L]))),
    ("nll-weight-shape", lambda T: T.nn.functional.nll_loss(T.ones(3, 4), T.tensor(L),
                                                             weight=T.ones(2, 2))),
    ("nll-kdim-uint8", lambda T: T.nn.functional.nll_loss(T.ones(2, 4, 3),
                                                           T.zeros(2, 3, dtype=T.uint8))),
    ("nll-kdim-out-of-range", lambda T: T.nn.functional.nll_loss(
        T.ones(2, 4, 3), T.tensor([[0, 1, 5], [0, 0, 0]]))),
    ("mse-broadcast", lambda T: T.nn.functional.mse_loss(T.ones(3, 4), T.ones(2, 4))),
    ("mse-reduction", lambda T: T.nn.functional.mse_loss(T.ones(3, 4), T.ones(3, 4),
                                                          reduction="bad")),
    ("mse-weight-shape", lambda T: T.nn.functional.mse_loss(T.ones(3, 4), T.ones(3, 4),
                                                             weight=T.ones(4))),
    ("mse-weight-reduction", lambda T: T.nn.functional.mse_loss(
        T.ones(3, 4), T.ones(3, 4), weight=T.ones(3, 4), reduction="bad")),
    ("l1-broadcast", lambda T: T.nn.functional.l1_loss(T.ones(3, 4), T.ones(3, 1, 2))),
    ("l1-weight-reduction", lambda T: T.nn.functional.l1_loss(
        T.ones(3, 4), T.ones(3, 4), weight=T.ones(3, 4), reduction="bad")),
    ("bce-target-size", lambda T: T.nn.functional.binary_cross_entropy(T.full((3, 4), 0.5),
                                                                        T.ones(2, 4))),
    ("bce-input-range", lambda T: T.nn.functional.binary_cross_entropy(T.full((3, 4), 1.5),
                                                                        T.ones(3, 4))),
    ("bce-weight-shape", lambda T: T.nn.functional.binary_cross_entropy(
        T.full((3, 4), 0.5), T.ones(3, 4), weight=T.ones(3))),
    ("bce-target-dtype", lambda T: T.nn.functional.binary_cross_entropy(
        T.full((3, 4), 0.5), T.ones(3, 4, dtype=T.float64))),
    ("bce-target-long", lambda T: T.nn.functional.binary_cross_entropy(
        T.full((3, 4), 0.5), T.ones(3, 4, dtype=T.long))),
    ("bce-reduction", lambda T: T.nn.functional.binary_cross_entropy(
        T.full((3, 4), 0.5), T.ones(3, 4), reduction="bad")),
    ("bcel-target-size", lambda T: T.nn.functional.binary_cross_entropy_with_logits(
        T.ones(3, 4), T.ones(2, 4))),
    ("bcel-pos-weight-shape", lambda T: T.nn.functional.binary_cross_entropy_with_logits(
        T.ones(3, 4), T.ones(3, 4), pos_weight=T.ones(3))),
    ("bcel-weight-shape", lambda T: T.nn.functional.binary_cross_entropy_with_logits(
        T.ones(3, 4), T.ones(3, 4), weight=T.ones(3))),
    ("bcel-target-long", lambda T: T.nn.functional.binary_cross_entropy_with_logits(
        T.ones(3, 4), T.ones(3, 4, dtype=T.long))),
    ("bcel-reduction", lambda T: T.nn.functional.binary_cross_entropy_with_logits(
        T.ones(3, 4), T.ones(3, 4), reduction="bad")),
    ("CrossEntropyLoss-reduction", lambda T: T.nn.CrossEntropyLoss(reduction="bad")(
        T.ones(3, 4), T.tensor(L))),
]


def _error_of(fn):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # target-size warnings before the errors
            fn()
    except Exception as exc:  # noqa: BLE001 - the exception is the result
        return type(exc), str(exc)
    return None


@pytest.mark.parametrize("case", ERRORS, ids=[c[0] for c in ERRORS])
def test_error_matches_torch(real, case):
    ours, theirs = _error_of(lambda: case[1](tt)), _error_of(lambda: case[1](real))
    assert theirs is not None, "PyTorch raised nothing"
    assert ours is not None, f"tracegrad raised nothing; PyTorch: {theirs}"
    assert issubclass(ours[0], theirs[0]) and ours[1] == theirs[1]


def _warnings_of(fn):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fn()
    return [(w.category, str(w.message)) for w in caught]


WARNINGS = [
    ("softmax-implicit-dim", lambda T: T.nn.functional.softmax(T.ones(2, 3))),
    ("log_softmax-implicit-dim", lambda T: T.nn.functional.log_softmax(T.ones(2, 3, 4))),
    ("Softmax-no-dim", lambda T: T.nn.Softmax()(T.ones(2, 3))),
    ("size_average", lambda T: T.nn.functional.cross_entropy(T.ones(3, 4), T.tensor(L),
                                                              size_average=False)),
    ("reduce", lambda T: T.nn.functional.nll_loss(T.ones(3, 4), T.tensor(L), reduce=False)),
    ("MSELoss-size_average", lambda T: T.nn.MSELoss(size_average=True, reduce=True)),
    ("mse-target-size", lambda T: T.nn.functional.mse_loss(T.ones(3, 4), T.ones(4))),
    ("l1-target-size", lambda T: T.nn.functional.l1_loss(T.ones(4), T.ones(3, 4))),
    ("kaiming-empty", lambda T: T.nn.init.kaiming_uniform_(T.empty(0, 3))),
]


@pytest.mark.parametrize("case", WARNINGS, ids=[c[0] for c in WARNINGS])
def test_warning_matches_torch(real, case):
    ours, theirs = _warnings_of(lambda: case[1](tt)), _warnings_of(lambda: case[1](real))
    assert theirs and ours == theirs


# ---------------------------------------------------------------------------
# losses, differential

N, C = 5, 4
XL = rng.standard_normal((N, C))
IDX = np.array([1, 0, 3, 3, 2])
IDX_IGNORED = np.array([1, -100, 3, 0, 2])
PROBS = rng.dirichlet(np.ones(C), N)
WC = rng.uniform(0.5, 2.0, C)
XK = rng.standard_normal((2, C, 3))
IDXK = np.array([[0, 3, 1], [2, -100, 1]])
X4D = rng.standard_normal((2, C, 2, 3))
IDX4D = rng.integers(0, C, (2, 2, 3))
X5D = rng.standard_normal((2, C, 2, 1, 2))
IDX5D = rng.integers(0, C, (2, 2, 1, 2))
PROBSK = rng.dirichlet(np.ones(C), (2, 3)).transpose(0, 2, 1)
HUGE = np.array([[1000.0, -1000.0, 0.0, 3.0], [-1000.0, 1000.0, 20.0, -20.0]])
Y = rng.standard_normal((N, C))
P = rng.uniform(0.05, 0.95, (N, C))
SOFT = rng.uniform(0.0, 1.0, (N, C))
HARD = rng.integers(0, 2, (N, C)).astype(float)
EMPTY = np.zeros((0, C))
EMPTY_IDX = np.zeros(0, np.int64)

# (id, functional name, module name, input, target, options, differentiate the target)
LOSSES = [
    ("ce", "cross_entropy", "CrossEntropyLoss", XL, IDX, {}, False),
    ("ce-weight", "cross_entropy", "CrossEntropyLoss", XL, IDX, {"weight": WC}, False),
    ("ce-ignore-index", "cross_entropy", "CrossEntropyLoss", XL, IDX, {"ignore_index": 3},
     False),
    ("ce-ignored-weighted", "cross_entropy", "CrossEntropyLoss", XL, IDX_IGNORED,
     {"weight": WC}, False),
    ("ce-smoothing", "cross_entropy", "CrossEntropyLoss", XL, IDX, {"label_smoothing": 0.3},
     False),
    ("ce-smoothing-weight-ignored", "cross_entropy", "CrossEntropyLoss", XL, IDX_IGNORED,
     {"label_smoothing": 0.2, "weight": WC}, False),
    ("ce-smoothing-one", "cross_entropy", "CrossEntropyLoss", XL, IDX, {"label_smoothing": 1.0},
     False),
    ("ce-smoothing-negative", "cross_entropy", "CrossEntropyLoss", XL, IDX,
     {"label_smoothing": -0.5}, False),
    ("ce-kdim", "cross_entropy", "CrossEntropyLoss", XK, IDXK, {}, False),
    ("ce-kdim-weight-smoothing", "cross_entropy", "CrossEntropyLoss", XK, IDXK,
     {"weight": WC, "label_smoothing": 0.1}, False),
    ("ce-4d", "cross_entropy", "CrossEntropyLoss", X4D, IDX4D, {"weight": WC}, False),
    ("ce-5d", "cross_entropy", "CrossEntropyLoss", X5D, IDX5D, {}, False),
    ("ce-1d", "cross_entropy", "CrossEntropyLoss", XL[0], np.array(2), {}, False),
    ("ce-1d-smoothing", "cross_entropy", "CrossEntropyLoss", XL[0], np.array(2),
     {"label_smoothing": 0.4}, False),
    ("ce-logits-1000", "cross_entropy", "CrossEntropyLoss", HUGE, np.array([1, 0]), {}, False),
    ("ce-logits-1000-smoothing", "cross_entropy", "CrossEntropyLoss", HUGE, np.array([1, 3]),
     {"label_smoothing": 0.1}, False),
    ("ce-empty", "cross_entropy", "CrossEntropyLoss", EMPTY, EMPTY_IDX, {}, False),
    ("ce-empty-smoothing", "cross_entropy", "CrossEntropyLoss", EMPTY, EMPTY_IDX,
     {"label_smoothing": 0.2}, False),
    ("ce-all-ignored", "cross_entropy", "CrossEntropyLoss", XL, np.full(N, -100), {}, False),
    ("ce-all-ignored-smoothing", "cross_entropy", "CrossEntropyLoss", XL, np.full(N, 7),
     {"ignore_index": 7, "label_smoothing": 0.2}, False),
    ("ce-probs", "cross_entropy", "CrossEntropyLoss", XL, PROBS, {}, True),
    ("ce-probs-weight", "cross_entropy", "CrossEntropyLoss", XL, PROBS, {"weight": WC}, True),
    ("ce-probs-smoothing", "cross_entropy", "CrossEntropyLoss", XL, PROBS,
     {"label_smoothing": 0.3}, True),
    ("ce-probs-kdim", "cross_entropy", "CrossEntropyLoss", XK, PROBSK, {"weight": WC}, True),
    ("ce-probs-1d", "cross_entropy", "CrossEntropyLoss", XL[0], PROBS[0], {}, True),
    ("ce-probs-empty", "cross_entropy", "CrossEntropyLoss", EMPTY, EMPTY, {}, False),
    ("ce-probs-logits-1000", "cross_entropy", "CrossEntropyLoss", HUGE, PROBS[:2], {}, False),
    ("nll", "nll_loss", "NLLLoss", XL, IDX, {}, False),
    ("nll-weight", "nll_loss", "NLLLoss", XL, IDX, {"weight": WC}, False),
    ("nll-ignore-index", "nll_loss", "NLLLoss", XL, IDX, {"ignore_index": 3}, False),
    ("nll-ignored-weighted", "nll_loss", "NLLLoss", XL, IDX_IGNORED, {"weight": WC}, False),
    ("nll-uint8", "nll_loss", "NLLLoss", XL, IDX.astype(np.uint8), {}, False),
    ("nll-kdim", "nll_loss", "NLLLoss", XK, IDXK, {"weight": WC}, False),
    ("nll-4d", "nll_loss", "NLLLoss", X4D, IDX4D, {}, False),
    ("nll-5d", "nll_loss", "NLLLoss", X5D, IDX5D, {"weight": WC}, False),
    ("nll-1d", "nll_loss", "NLLLoss", XL[0], np.array(3), {}, False),
    ("nll-empty", "nll_loss", "NLLLoss", EMPTY, EMPTY_IDX, {}, False),
    ("nll-kdim-empty", "nll_loss", "NLLLoss", np.zeros((0, C, 3)), np.zeros((0, 3), np.int64),
     {}, False),
    ("nll-all-ignored", "nll_loss", "NLLLoss", XL, np.full(N, -100), {}, False),
    ("mse", "mse_loss", "MSELoss", XL, Y, {}, True),
    ("mse-broadcast-target", "mse_loss", "MSELoss", XL, Y[0], {}, True),
    ("mse-broadcast-input", "mse_loss", "MSELoss", XL[:1], Y, {}, True),
    ("mse-weight", "mse_loss", None, XL, Y, {"weight": P}, True),
    ("mse-empty", "mse_loss", "MSELoss", EMPTY, EMPTY, {}, True),
    ("l1", "l1_loss", "L1Loss", XL, Y, {}, True),
    ("l1-broadcast-target", "l1_loss", "L1Loss", XL, Y[:, :1], {}, True),
    ("l1-weight", "l1_loss", None, XL, Y, {"weight": P}, True),
    ("l1-empty", "l1_loss", "L1Loss", EMPTY, EMPTY, {}, True),
    ("bce", "binary_cross_entropy", "BCELoss", P, SOFT, {}, True),
    ("bce-hard", "binary_cross_entropy", "BCELoss", P, HARD, {}, True),
    ("bce-weight-classes", "binary_cross_entropy", "BCELoss", P, SOFT, {"weight": WC}, False),
    ("bce-weight-elements", "binary_cross_entropy", "BCELoss", P, HARD, {"weight": SOFT}, False),
    ("bce-empty", "binary_cross_entropy", "BCELoss", EMPTY, EMPTY, {}, False),
    ("bcel", "binary_cross_entropy_with_logits", "BCEWithLogitsLoss", XL, SOFT, {}, True),
    ("bcel-hard", "binary_cross_entropy_with_logits", "BCEWithLogitsLoss", XL, HARD, {}, True),
    ("bcel-weight", "binary_cross_entropy_with_logits", "BCEWithLogitsLoss", XL, SOFT,
     {"weight": WC}, True),
    ("bcel-pos-weight", "binary_cross_entropy_with_logits", "BCEWithLogitsLoss", XL, HARD,
     {"pos_weight": 1 + WC}, True),
    ("bcel-both-weights", "binary_cross_entropy_with_logits", "BCEWithLogitsLoss", XL, SOFT,
     {"weight": SOFT, "pos_weight": WC}, True),
    ("bcel-logits-1000", "binary_cross_entropy_with_logits", "BCEWithLogitsLoss", HUGE,
     HARD[:2], {}, True),
    ("bcel-logits-1000-pos-weight", "binary_cross_entropy_with_logits", "BCEWithLogitsLoss",
     HUGE, SOFT[:2], {"pos_weight": 1 + WC}, True),
    ("bcel-empty", "binary_cross_entropy_with_logits", "BCEWithLogitsLoss", EMPTY, EMPTY, {},
     False),
]


def _run_loss(T, case, form, reduction, dtype):
    _, fname, mname, x, t, options, grad_target = case
    xt = lib_tensor(T, x, dtype, requires_grad=True)
    tt_ = lib_tensor(T, t, dtype, requires_grad=grad_target)
    kw = {k: lib_tensor(T, v, dtype) if isinstance(v, np.ndarray) else v
          for k, v in options.items()}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the broadcasting cases warn (pinned above)
        if form == "functional":
            loss = getattr(T.nn.functional, fname)(xt, tt_, reduction=reduction, **kw)
        else:
            loss = getattr(T.nn, mname)(reduction=reduction, **kw)(xt, tt_)
    out, g = record(T, loss, offset=1.5)
    return out, g, [xt.grad, tt_.grad if grad_target else None]


def _compare_loss(real, case, form, reduction, dtype):
    assert_same_run(_run_loss(tt, case, form, reduction, dtype),
                    _run_loss(real, case, form, reduction, dtype), dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("case", LOSSES, ids=[c[0] for c in LOSSES])
def test_loss_matches_torch(real, case, reduction, dtype):
    _compare_loss(real, case, "functional", reduction, dtype)


MODULE_LOSSES = [c for c in LOSSES if c[2] is not None]


@pytest.mark.parametrize("case", MODULE_LOSSES, ids=[c[0] for c in MODULE_LOSSES])
def test_loss_module_matches_torch(real, case):
    # the modules pass their options to the functions: one reduction each suffices
    reduction = ("none", "mean", "sum")[MODULE_LOSSES.index(case) % 3]
    _compare_loss(real, case, "module", reduction, "float32")


# ---------------------------------------------------------------------------
# losses: documented values, on both libraries


def test_cross_entropy_of_logits_1000(torch):
    x = torch.tensor([[1000.0, -1000.0], [0.0, 1000.0]], requires_grad=True)
    loss = torch.nn.functional.cross_entropy(x, torch.tensor([1, 1]), reduction="sum")
    assert loss.item() == 2000.0
    loss.backward()
    assert x.grad.tolist() == [[1.0, -1.0], [0.0, 0.0]]


def test_bce_with_logits_of_1000(torch):
    x = torch.tensor([1000.0, -1000.0, 1000.0, -1000.0], requires_grad=True)
    t = torch.tensor([0.0, 1.0, 1.0, 0.0])
    loss = torch.nn.functional.binary_cross_entropy_with_logits(x, t, reduction="none")
    assert loss.tolist() == [1000.0, 1000.0, 0.0, 0.0]
    loss.sum().backward()
    assert x.grad.tolist() == [1.0, -1.0, 0.0, 0.0]


def test_empty_batch(torch):
    F = torch.nn.functional
    x = torch.zeros(0, 3, requires_grad=True)
    t = torch.zeros(0, dtype=torch.long)
    assert math.isnan(F.cross_entropy(x, t).item())
    assert F.cross_entropy(x, t, reduction="sum").item() == 0.0
    assert F.cross_entropy(x, t, reduction="none").shape == (0,)
    assert math.isnan(F.mse_loss(x, torch.zeros(0, 3)).item())
    assert math.isnan(F.cross_entropy(x, torch.zeros(0, 3)).item())
    F.cross_entropy(x, t, reduction="sum").backward()
    assert x.grad.shape == (0, 3)


def test_every_target_ignored_gives_nan_with_zero_gradient(torch):
    x = torch.tensor([[0.5, -1.0], [2.0, 0.0]], requires_grad=True)
    loss = torch.nn.functional.cross_entropy(x, torch.tensor([-100, -100]))
    assert math.isnan(loss.item())
    loss.backward()
    assert x.grad.tolist() == [[0.0, 0.0], [0.0, 0.0]]


def test_bce_clamps_logs_at_minus_100(torch):
    x = torch.tensor([0.0, 0.0, 1.0, 1.0], requires_grad=True)
    t = torch.tensor([0.0, 1.0, 0.0, 1.0])
    loss = torch.nn.functional.binary_cross_entropy(x, t, reduction="none")
    assert loss.tolist() == [0.0, 100.0, 100.0, 0.0]


def test_bce_derivative_at_0_and_1_is_tracegrad_documented():
    # tracegrad differentiates the clamped formula: 1 - t at x = 0 and -t at
    # x = 1 (PyTorch's rule divides by max(x (1 - x), 1e-12) instead)
    x = tt.tensor([0.0, 0.0, 1.0, 1.0, 0.0], requires_grad=True)
    t = tt.tensor([0.0, 1.0, 0.0, 1.0, 0.25])
    tt.nn.functional.binary_cross_entropy(x, t, reduction="sum").backward()
    assert x.grad.tolist() == [1.0, 0.0, 0.0, -1.0, 0.75]
    # inside (0, 1) it is (x - t) / (x (1 - x)), also where x (1 - x) < 1e-12
    x = tt.tensor([1e-13, 0.5], dtype=tt.float64, requires_grad=True)
    t = tt.tensor([0.0, 1.0], dtype=tt.float64)
    tt.nn.functional.binary_cross_entropy(x, t, reduction="sum").backward()
    np.testing.assert_allclose(x.grad.numpy(), [1 / (1 - 1e-13), -2.0], rtol=1e-12)


def test_bce_derivative_at_0_and_1_in_pytorch(real):
    # the documented difference: PyTorch's guarded rule at the same points
    x = real.tensor([0.0, 0.0, 1.0, 1.0], requires_grad=True)
    t = real.tensor([0.0, 1.0, 0.0, 1.0])
    real.nn.functional.binary_cross_entropy(x, t, reduction="sum").backward()
    big = float(np.float32(1e12))
    assert x.grad.tolist() == [0.0, -big, big, 0.0]


def test_loss_modules_store_options(torch):
    nn = torch.nn
    loss = nn.CrossEntropyLoss(weight=torch.ones(3), ignore_index=2, reduction="sum",
                               label_smoothing=0.1)
    assert (loss.ignore_index, loss.reduction, loss.label_smoothing) == (2, "sum", 0.1)
    assert [k for k, _ in loss.named_buffers()] == ["weight"]
    assert list(loss.state_dict()) == ["weight"]
    assert list(nn.CrossEntropyLoss().state_dict()) == []
    assert list(nn.BCEWithLogitsLoss(pos_weight=torch.ones(2)).state_dict()) == ["pos_weight"]
    assert nn.NLLLoss().ignore_index == -100
    with pytest.warns(UserWarning):
        assert nn.L1Loss(size_average=False).reduction == "sum"
    assert nn.CrossEntropyLoss(weight=torch.ones(3)).double().weight.dtype == torch.float64
    assert repr(loss) == "CrossEntropyLoss()"
    assert repr(nn.MSELoss(reduction="none")) == "MSELoss()"


# ---------------------------------------------------------------------------
# Module API, on both libraries


def _net(torch):
    nn = torch.nn

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(3, 2)
            self.register_buffer("running", torch.zeros(2))
            self.register_buffer("scratch", torch.ones(1), persistent=False)
            self.scale = nn.Parameter(torch.ones(1))

        def forward(self, x):
            return self.fc(x) * self.scale + self.running

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.block = Block()
            self.seq = nn.Sequential(nn.Linear(2, 4), nn.ReLU(), nn.Dropout(0.3), nn.Linear(4, 1))
            self.heads = nn.ModuleList([nn.Tanh(), nn.Linear(1, 1)])
            self.named = nn.ModuleDict({"act": nn.Sigmoid(), "out": nn.Linear(1, 1, bias=False)})
            self.shared = self.seq[0]

        def forward(self, x):
            return self.named["out"](self.heads[1](self.seq(self.block(x))))

    return Net()


NET_PARAMETERS = ["block.scale", "block.fc.weight", "block.fc.bias", "seq.0.weight",
                  "seq.0.bias", "seq.3.weight", "seq.3.bias", "heads.1.weight", "heads.1.bias",
                  "named.out.weight"]
NET_MODULES = ["", "block", "block.fc", "seq", "seq.0", "seq.1", "seq.2", "seq.3", "heads",
               "heads.0", "heads.1", "named", "named.act", "named.out"]
NET_STATE = ["block.scale", "block.running", "block.fc.weight", "block.fc.bias", "seq.0.weight",
             "seq.0.bias", "seq.3.weight", "seq.3.bias", "heads.1.weight", "heads.1.bias",
             "named.out.weight", "shared.weight", "shared.bias"]


def test_parameters_children_and_modules(torch):
    net = _net(torch)
    assert [n for n, _ in net.named_parameters()] == NET_PARAMETERS
    assert len(list(net.parameters())) == len(NET_PARAMETERS)
    assert [n for n, _ in net.named_parameters(remove_duplicate=False)] == NET_PARAMETERS + [
        "shared.weight", "shared.bias"]
    assert [n for n, _ in net.named_parameters(recurse=False)] == []
    assert [n for n, _ in net.block.named_parameters(prefix="b", recurse=False)] == ["b.scale"]
    assert [n for n, _ in net.named_children()] == ["block", "seq", "heads", "named", "shared"]
    assert [type(m).__name__ for m in net.children()] == [
        "Block", "Sequential", "ModuleList", "ModuleDict", "Linear"]
    assert [n for n, _ in net.seq.named_children()] == ["0", "1", "2", "3"]
    assert [n for n, _ in net.named_modules()] == NET_MODULES
    assert len(list(net.modules())) == len(NET_MODULES)
    assert [n for n, _ in net.named_modules(remove_duplicate=False)][-1] == "shared"
    assert [n for n, _ in net.named_buffers()] == ["block.running", "block.scratch"]
    assert sum(p.numel() for p in net.parameters()) == 1 + 8 + 12 + 5 + 2 + 1
    assert isinstance(net.block.scale, torch.nn.Parameter)
    assert net.get_submodule("seq.3") is net.seq[3]
    assert net.get_parameter("block.fc.bias") is net.block.fc.bias
    with raises(AttributeError, "Linear has no attribute `foo`"):
        net.get_parameter("seq.0.foo")
    with raises(AttributeError, "Sequential has no attribute `7`"):
        net.get_submodule("seq.7")
    with raises(AttributeError, "`training` is not an nn.Parameter"):
        net.get_parameter("block.training")
    assert net.get_buffer("block.scratch") is net.block.scratch
    with raises(AttributeError, "`scale` is not a buffer"):
        net.get_buffer("block.scale")
    with raises(AttributeError, "Block has no attribute `nothing`"):
        net.get_buffer("block.nothing")


def test_state_dict(torch):
    net = _net(torch)
    sd = net.state_dict()
    assert list(sd) == NET_STATE
    assert list(sd._metadata) == ["", "block", "block.fc", "seq", "seq.0", "seq.1", "seq.2",
                                  "seq.3", "heads", "heads.0", "heads.1", "named", "named.act",
                                  "named.out", "shared"]
    w = sd["block.fc.weight"]
    assert type(w) is torch.Tensor and not w.requires_grad and w.grad_fn is None
    w.zero_()  # shares storage
    assert net.block.fc.weight.abs().sum().item() == 0.0
    assert net.state_dict(keep_vars=True)["block.scale"] is net.block.scale
    assert list(net.state_dict(prefix="m.")) == ["m." + k for k in NET_STATE]


def test_load_state_dict(torch):
    a, b = _net(torch), _net(torch)
    result = a.load_state_dict(b.state_dict())
    assert repr(result) == "<All keys matched successfully>"
    assert result.missing_keys == [] and result.unexpected_keys == []
    assert a.seq[0].weight.tolist() == b.seq[0].weight.tolist()
    assert a.seq[0].weight.requires_grad and a.seq[0].weight.is_leaf
    sd = b.state_dict()
    del sd["block.fc.weight"]
    sd["extra"] = torch.zeros(1)
    sd["seq.0.foo"] = torch.zeros(1)
    with raises(RuntimeError,
                'Error(s) in loading state_dict for Net:\n\tMissing key(s) in state_dict: '
                '"block.fc.weight". \n\tUnexpected key(s) in state_dict: "extra", "seq.0.foo". '):
        a.load_state_dict(sd)
    result = a.load_state_dict(sd, strict=False)
    assert result.missing_keys == ["block.fc.weight"]
    assert result.unexpected_keys == ["extra", "seq.0.foo"]
    sd = b.state_dict()
    sd["block.fc.weight"] = torch.zeros(5, 5)
    with raises(RuntimeError,
                "Error(s) in loading state_dict for Net:\n\tsize mismatch for block.fc.weight: "
                "copying a param with shape torch.Size([5, 5]) from checkpoint, the shape in "
                "current model is torch.Size([2, 3])."):
        a.load_state_dict(sd, strict=False)
    with raises(TypeError, "Expected state_dict to be dict-like, got <class 'list'>."):
        a.load_state_dict([1])
    lin = torch.nn.Linear(3, 2)
    with raises(RuntimeError,
                'Error(s) in loading state_dict for Linear:\n\tWhile copying the parameter named '
                '"weight", expected torch.Tensor or Tensor-like object from checkpoint but '
                "received <class 'int'>"):
        lin.load_state_dict({"weight": 3, "bias": torch.zeros(2)})
    lin.load_state_dict({"weight": torch.ones(2, 3, dtype=torch.float64), "bias": torch.ones(2)})
    assert lin.weight.dtype == torch.float32 and lin.weight.sum().item() == 6.0
    w = torch.full((2, 3), 2.0)
    lin.load_state_dict({"weight": w, "bias": torch.ones(2)}, assign=True)
    assert isinstance(lin.weight, torch.nn.Parameter) and lin.weight.requires_grad
    assert lin.weight.sum().item() == 12.0


def test_train_eval_and_dropout(torch):
    net = _net(torch)
    assert all(m.training for m in net.modules())
    assert net.eval() is net
    assert not any(m.training for m in net.modules())
    x = torch.ones(2, 3)
    with torch.no_grad():
        assert net(x).tolist() == net(x).tolist()  # dropout off: deterministic
    drop = torch.nn.Dropout(0.5).eval()
    y = torch.ones(4, requires_grad=True)
    assert drop(y) is y
    net.train()
    assert all(m.training for m in net.modules())
    net.seq.train(False)
    assert [m.training for m in net.seq.modules()] == [False] * 5 and net.training
    with raises(ValueError, "training mode is expected to be boolean"):
        net.train("yes")


def test_forward_hooks(torch):
    lin = torch.nn.Linear(2, 2)
    log = []
    handles = [
        lin.register_forward_pre_hook(lambda m, args: log.append(("pre", len(args)))),
        lin.register_forward_hook(lambda m, args, out: log.append(("post", tuple(out.shape)))),
        lin.register_forward_hook(lambda m, args, out: out * 0),
        lin.register_forward_pre_hook(lambda m, args: (args[0] * 2,), prepend=True),
        lin.register_forward_hook(lambda m, args, kwargs, out: log.append(("kw", kwargs)),
                                  with_kwargs=True),
        lin.register_forward_pre_hook(lambda m, args, kwargs: log.append(("prekw", kwargs)),
                                      with_kwargs=True),
    ]
    y = lin(torch.ones(1, 2))
    assert y.tolist() == [[0.0, 0.0]] and y.grad_fn.name() == "MulBackward0"
    assert log == [("pre", 1), ("prekw", {}), ("post", (1, 2)), ("kw", {})]
    for h in handles:
        h.remove()
    handles[0].remove()  # a second remove does nothing
    log.clear()
    assert lin(torch.ones(1, 2)).grad_fn.name() == "AddmmBackward0" and log == []
    with lin.register_forward_hook(lambda m, a, o: log.append(1)):
        lin(torch.ones(1, 2))
    lin(torch.ones(1, 2))
    assert log == [1]


def test_zero_grad(torch):
    lin = torch.nn.Linear(2, 2)
    lin(torch.ones(1, 2)).sum().backward()
    g = lin.weight.grad
    lin.zero_grad(set_to_none=False)
    assert lin.weight.grad is g and g.tolist() == [[0.0, 0.0], [0.0, 0.0]]
    assert lin.bias.grad.tolist() == [0.0, 0.0]
    lin.zero_grad()
    assert lin.weight.grad is None and lin.bias.grad is None


def test_freezing_parameters(torch):
    torch.manual_seed(0)
    net = torch.nn.Sequential(torch.nn.Linear(2, 2), torch.nn.Linear(2, 1))
    assert net[0].requires_grad_(False) is net[0]
    net[1].bias.requires_grad = False
    frozen = [p.detach().clone() for p in (net[0].weight, net[0].bias, net[1].bias)]
    trained = net[1].weight.detach().clone()
    opt = torch.optim.SGD(net.parameters(), lr=0.1, momentum=0.9)
    for _ in range(2):
        opt.zero_grad()
        net(torch.ones(3, 2)).sum().backward()
        opt.step()
    assert [p.requires_grad for p in net.parameters()] == [False, False, True, False]
    assert [p.grad is None for p in net.parameters()] == [True, True, False, True]
    for before, p in zip(frozen, (net[0].weight, net[0].bias, net[1].bias)):
        assert p.tolist() == before.tolist()
    assert net[1].weight.tolist() != trained.tolist()
    assert list(opt.state) == [net[1].weight]
    net.requires_grad_(False)
    out = net(torch.ones(1, 2))
    assert not out.requires_grad and out.grad_fn is None
    with raises(RuntimeError, "element 0 of tensors does not require grad and does not have a "
                              "grad_fn"):
        out.sum().backward()


MODULE_REPRS = [
    (lambda nn: nn.Linear(3, 2), "Linear(in_features=3, out_features=2, bias=True)"),
    (lambda nn: nn.Linear(3, 2, bias=False), "Linear(in_features=3, out_features=2, bias=False)"),
    (lambda nn: nn.ReLU(), "ReLU()"),
    (lambda nn: nn.ReLU(inplace=True), "ReLU(inplace=True)"),
    (lambda nn: nn.Tanh(), "Tanh()"),
    (lambda nn: nn.Sigmoid(), "Sigmoid()"),
    (lambda nn: nn.Dropout(0.2), "Dropout(p=0.2, inplace=False)"),
    (lambda nn: nn.Softmax(dim=1), "Softmax(dim=1)"),
    (lambda nn: nn.Softmax(), "Softmax(dim=None)"),
    (lambda nn: nn.LogSoftmax(-1), "LogSoftmax(dim=-1)"),
    (lambda nn: nn.LeakyReLU(), "LeakyReLU(negative_slope=0.01)"),
    (lambda nn: nn.LeakyReLU(0.2, True), "LeakyReLU(negative_slope=0.2, inplace=True)"),
    (lambda nn: nn.GELU(), "GELU(approximate='none')"),
    (lambda nn: nn.GELU("tanh"), "GELU(approximate='tanh')"),
    (lambda nn: nn.SiLU(inplace=True), "SiLU(inplace=True)"),
    (lambda nn: nn.ELU(), "ELU(alpha=1.0)"),
    (lambda nn: nn.ELU(alpha=0.5, inplace=True), "ELU(alpha=0.5, inplace=True)"),
    (lambda nn: nn.Softplus(), "Softplus(beta=1.0, threshold=20.0)"),
    (lambda nn: nn.Softplus(2, 10), "Softplus(beta=2, threshold=10)"),
    (lambda nn: nn.LogSigmoid(), "LogSigmoid()"),
    (lambda nn: nn.Flatten(), "Flatten(start_dim=1, end_dim=-1)"),
    (lambda nn: nn.Unflatten(1, (2, 3)), "Unflatten(dim=1, unflattened_size=(2, 3))"),
    (lambda nn: nn.Identity(), "Identity()"),
    (lambda nn: nn.BCEWithLogitsLoss(), "BCEWithLogitsLoss()"),
    (lambda nn: nn.Sequential(), "Sequential()"),
    (lambda nn: nn.ModuleList(), "ModuleList()"),
    (lambda nn: nn.ModuleDict(), "ModuleDict()"),
    (lambda nn: nn.Module(), "Module()"),
    (lambda nn: nn.Sequential(nn.Linear(2, 3), nn.ReLU()),
     "Sequential(\n  (0): Linear(in_features=2, out_features=3, bias=True)\n  (1): ReLU()\n)"),
    (lambda nn: nn.ModuleList([nn.Linear(2, 2) for _ in range(3)] + [nn.ReLU()]),
     "ModuleList(\n  (0-2): 3 x Linear(in_features=2, out_features=2, bias=True)\n"
     "  (3): ReLU()\n)"),
    (lambda nn: nn.ModuleDict({"a": nn.Tanh(), "b": nn.Sequential(nn.ReLU())}),
     "ModuleDict(\n  (a): Tanh()\n  (b): Sequential(\n    (0): ReLU()\n  )\n)"),
]


@pytest.mark.parametrize("case", range(len(MODULE_REPRS)))
def test_module_repr(torch, case):
    make, expected = MODULE_REPRS[case]
    assert repr(make(torch.nn)) == expected
    assert str(make(torch.nn)) == expected


def test_custom_module_repr(torch):
    nn = torch.nn

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.body = nn.Sequential(nn.Linear(2, 2), nn.Tanh())
            self.head = nn.Linear(2, 1)

        def extra_repr(self):
            return "hello=1\nworld=2"

    assert repr(Net()) == (
        "Net(\n  hello=1\n  world=2\n  (body): Sequential(\n"
        "    (0): Linear(in_features=2, out_features=2, bias=True)\n    (1): Tanh()\n  )\n"
        "  (head): Linear(in_features=2, out_features=1, bias=True)\n)"
    )


def test_attribute_registration(torch):
    nn = torch.nn
    m = nn.Module()
    m.w = nn.Parameter(torch.ones(1))
    m.child = nn.Linear(1, 1)
    m.register_buffer("b", torch.ones(2))
    m.plain = torch.ones(3)  # a plain tensor attribute is not registered
    assert [n for n, _ in m.named_parameters()] == ["w", "child.weight", "child.bias"]
    assert list(m.state_dict()) == ["w", "b", "child.weight", "child.bias"]
    m.w = None
    assert m.w is None and [n for n, _ in m.named_parameters(recurse=False)] == []
    m.b = torch.zeros(2)  # reassigning a buffer keeps it registered
    assert list(m.state_dict())[0] == "b" and m.b.tolist() == [0.0, 0.0]
    m.c = nn.Buffer(torch.ones(1))
    m.d = nn.Buffer(torch.ones(1), persistent=False)
    assert [n for n, _ in m.named_buffers()] == ["b", "c", "d"]
    assert "d" not in m.state_dict()
    del m.child
    assert [n for n, _ in m.named_children()] == []
    lin = nn.Linear(1, 1)
    del lin.bias
    assert list(lin.state_dict()) == ["weight"] and not hasattr(lin, "bias")


def test_registration_errors(torch):
    nn = torch.nn
    m = nn.Module()
    m.w = nn.Parameter(torch.ones(1))
    with raises(TypeError, "cannot assign 'torch.FloatTensor' as parameter 'w' "
                           "(torch.nn.Parameter or None expected)"):
        m.w = torch.ones(1)
    with raises(KeyError, "'parameter name can\\'t contain \".\"'"):
        m.register_parameter("a.b", None)
    with raises(TypeError, "cannot assign 'torch.FloatTensor' object to parameter 'x' "
                           "(torch.nn.Parameter or None required)"):
        m.register_parameter("x", torch.ones(1))
    with raises(TypeError, "cannot assign 'int' object to buffer 'x' (torch Tensor or None "
                           "required)"):
        m.register_buffer("x", 3)
    with raises(TypeError, "int is not a Module subclass"):
        m.add_module("x", 3)
    m.register_buffer("b", torch.ones(1))
    with raises(TypeError, "cannot assign 'int' as buffer 'b' (torch.nn.Buffer, torch.Tensor "
                           "or None expected)"):
        m.b = 5
    with raises(AttributeError, "'Linear' object has no attribute 'foo'"):
        nn.Linear(2, 2).foo
    with raises(NotImplementedError, 'Module [Module] is missing the required "forward" '
                                     "function"):
        nn.Module()(1)


def test_containers(torch):
    nn = torch.nn
    seq = nn.Sequential(nn.ReLU(), nn.Tanh(), nn.Sigmoid())
    assert len(seq) == 3 and isinstance(seq[-1], nn.Sigmoid)
    assert isinstance(seq[1:], nn.Sequential) and len(seq[1:]) == 2
    del seq[1]
    seq.append(nn.Identity())
    seq.insert(0, nn.ELU())
    assert [n for n, _ in seq.named_children()] == ["0", "1", "2", "3"]
    assert [type(m).__name__ for m in seq] == ["ELU", "ReLU", "Sigmoid", "Identity"]
    both = nn.Sequential(nn.ReLU()) + nn.Sequential(nn.Tanh())
    assert [type(m).__name__ for m in both] == ["ReLU", "Tanh"]
    with raises(IndexError, "index 3 is out of range"):
        nn.Sequential(nn.ReLU())[3]
    lst = nn.ModuleList([nn.ReLU(), nn.Tanh()])
    lst.extend([nn.Sigmoid()])
    lst.insert(1, nn.ELU())
    first = lst.pop(0)
    lst[0] = nn.GELU()
    assert isinstance(first, nn.ReLU)
    assert [type(m).__name__ for m in lst] == ["GELU", "Tanh", "Sigmoid"]
    assert isinstance(lst[1:], nn.ModuleList) and len(lst) == 3
    d = nn.ModuleDict([("a", nn.ReLU()), ("b", nn.Tanh())])
    d.update({"c": nn.ELU()})
    assert isinstance(d.pop("a"), nn.ReLU)
    assert list(d.keys()) == ["b", "c"] and "b" in d and len(d) == 2
    assert [n for n, _ in d.named_children()] == ["b", "c"]
    with raises(KeyError, "'z'"):
        d["z"]


def test_module_to_dtype_keeps_parameters(torch):
    lin = torch.nn.Linear(2, 2)
    lin(torch.ones(1, 2)).sum().backward()
    w = lin.weight
    assert lin.double() is lin
    assert lin.weight is w and w.dtype == torch.float64 and w.grad.dtype == torch.float64
    assert isinstance(w, torch.nn.Parameter) and w.requires_grad and w.is_leaf
    assert lin.to(torch.float32).bias.dtype == torch.float32
    assert lin.half().weight.dtype == torch.float16
    assert torch.nn.Linear(3, 2, dtype=torch.float64).weight.dtype == torch.float64
    with raises(TypeError, "nn.Module.to only accepts floating point or complex dtypes, but got "
                           "desired dtype=torch.int64"):
        lin.to(torch.int64)
    for method in ("train", "eval", "requires_grad_", "float", "cpu"):
        assert getattr(lin, method)() is lin


def test_module_copy_and_pickle(torch):
    lin = torch.nn.Linear(2, 2)
    clone = copy.deepcopy(lin)
    assert clone.weight is not lin.weight and clone.weight.tolist() == lin.weight.tolist()
    assert isinstance(clone.weight, torch.nn.Parameter) and clone.weight.requires_grad
    loaded = pickle.loads(pickle.dumps(lin))
    assert loaded.bias.tolist() == lin.bias.tolist()
    assert isinstance(loaded.bias, torch.nn.Parameter)


def test_apply_visits_children_first(torch):
    nn = torch.nn
    order = []
    net = nn.Sequential(nn.Linear(1, 1), nn.Sequential(nn.ReLU()))
    assert net.apply(lambda m: order.append(type(m).__name__)) is net
    assert order == ["Linear", "ReLU", "Sequential", "Sequential"]


def test_parameter(torch):
    nn = torch.nn
    t = torch.ones(2)
    p = nn.Parameter(t)
    assert p.is_leaf and p.requires_grad and p.grad_fn is None
    assert isinstance(p, torch.Tensor) and type(p * 2) is torch.Tensor
    with torch.no_grad():
        p.mul_(3)
    assert t.tolist() == [3.0, 3.0]  # shares storage
    assert repr(nn.Parameter(torch.ones(2))) == (
        "Parameter containing:\ntensor([1., 1.], requires_grad=True)")
    assert not nn.Parameter(torch.ones(2), requires_grad=False).requires_grad
    q = nn.Parameter(torch.ones(2) * torch.ones(2, requires_grad=True))
    assert q.is_leaf and q.grad_fn is None
    assert nn.Parameter(torch.tensor([1, 2]), requires_grad=False).dtype == torch.int64
    with raises(RuntimeError, "Only Tensors of floating point and complex dtype can require "
                              "gradients"):
        nn.Parameter(torch.tensor([1, 2]))


# ---------------------------------------------------------------------------
# nn.init


GAINS = [
    ("linear", None, 1), ("conv1d", None, 1), ("conv2d", None, 1), ("conv3d", None, 1),
    ("conv_transpose1d", None, 1), ("conv_transpose2d", None, 1),
    ("conv_transpose3d", None, 1), ("sigmoid", None, 1), ("tanh", None, 5.0 / 3),
    ("relu", None, math.sqrt(2.0)), ("leaky_relu", None, math.sqrt(2.0 / (1 + 0.01 ** 2))),
    ("leaky_relu", 0.2, math.sqrt(2.0 / (1 + 0.2 ** 2))), ("leaky_relu", 0, math.sqrt(2.0)),
    ("leaky_relu", 1, 1.0), ("selu", None, 0.75), ("relu", 0.3, math.sqrt(2.0)),
]


@pytest.mark.parametrize("nonlinearity,param,expected", GAINS)
def test_calculate_gain(torch, nonlinearity, param, expected):
    assert torch.nn.init.calculate_gain(nonlinearity, param) == expected


def test_calculate_gain_errors(torch):
    init = torch.nn.init
    with raises(ValueError, "Unsupported nonlinearity gelu"):
        init.calculate_gain("gelu")
    with raises(ValueError, "negative_slope x not a valid number"):
        init.calculate_gain("leaky_relu", "x")
    with raises(ValueError, "negative_slope True not a valid number"):
        init.calculate_gain("leaky_relu", True)


@pytest.mark.parametrize("shape,fans", [((4, 5), (5, 4)), ((4, 5, 3), (15, 12)),
                                        ((2, 3, 4, 5), (60, 40)), ((0, 3), (3, 0))])
def test_fans(torch, shape, fans):
    assert torch.nn.init._calculate_fan_in_and_fan_out(torch.empty(shape)) == fans


def test_fans_need_two_dimensions(torch):
    msg = "Fan in and fan out can not be computed for tensor with fewer than 2 dimensions"
    for fn in ("xavier_uniform_", "xavier_normal_", "kaiming_uniform_", "kaiming_normal_"):
        with raises(ValueError, msg):
            getattr(torch.nn.init, fn)(torch.empty(3))
    with raises(ValueError, "Mode fan_avg not supported, please use one of "
                            "['fan_in', 'fan_out']"):
        torch.nn.init.kaiming_normal_(torch.empty(3, 4), mode="fan_avg")
    with raises(ValueError, "Only tensors with 2 or more dimensions are supported"):
        torch.nn.init.orthogonal_(torch.empty(3))
    with raises(ValueError, "Only tensors with 2 dimensions are supported"):
        torch.nn.init.eye_(torch.empty(2, 2, 2))
    with raises(ValueError, "Only tensors with 3, 4, or 5 dimensions are supported"):
        torch.nn.init.dirac_(torch.empty(2, 2))
    with raises(ValueError, "Only tensors with 2 dimensions are supported"):
        torch.nn.init.sparse_(torch.empty(2, 2, 2), 0.5)


SHAPE = (256, 384)  # fan_in 384, fan_out 256: ~1e5 samples, statistics within 1%
FAN_IN, FAN_OUT = 384, 256


def _uniform_bounds(a):
    return ("uniform", a, a / math.sqrt(3))


def _normal_std(std):
    return ("normal", None, std)


INITS = [
    ("uniform_", {"a": -0.5, "b": 1.5}, ("uniform01", (-0.5, 1.5), None)),
    ("normal_", {"mean": 0.0, "std": 0.3}, _normal_std(0.3)),
    ("xavier_uniform_", {}, _uniform_bounds(math.sqrt(6 / (FAN_IN + FAN_OUT)))),
    ("xavier_uniform_", {"gain": 2.0}, _uniform_bounds(2 * math.sqrt(6 / (FAN_IN + FAN_OUT)))),
    ("xavier_normal_", {"gain": 0.5}, _normal_std(0.5 * math.sqrt(2 / (FAN_IN + FAN_OUT)))),
    ("kaiming_uniform_", {}, _uniform_bounds(math.sqrt(2) * math.sqrt(3 / FAN_IN))),
    ("kaiming_uniform_", {"a": math.sqrt(5)}, _uniform_bounds(1 / math.sqrt(FAN_IN))),
    ("kaiming_uniform_", {"mode": "fan_out", "nonlinearity": "relu"},
     _uniform_bounds(math.sqrt(2) * math.sqrt(3 / FAN_OUT))),
    ("kaiming_normal_", {}, _normal_std(math.sqrt(2 / FAN_IN))),
    ("kaiming_normal_", {"a": 0.2, "mode": "fan_out"},
     _normal_std(math.sqrt(2 / (1 + 0.04)) / math.sqrt(FAN_OUT))),
    ("kaiming_normal_", {"nonlinearity": "tanh"}, _normal_std(5 / 3 / math.sqrt(FAN_IN))),
]


@pytest.mark.parametrize("name,kwargs,expected", INITS,
                         ids=[f"{n}-{i}" for i, (n, _, _) in enumerate(INITS)])
def test_init_distribution(torch, name, kwargs, expected):
    torch.manual_seed(0)
    t = torch.empty(SHAPE, requires_grad=True)
    version = t._version
    assert getattr(torch.nn.init, name)(t, **kwargs) is t
    assert t.requires_grad and t.is_leaf and t.grad_fn is None and t._version > version
    v = t.detach().numpy().astype(np.float64)
    kind, bound, std = expected
    if kind == "uniform01":
        lo, hi = bound
        assert lo <= v.min() < lo + 0.01 and hi - 0.01 < v.max() < hi
        assert abs(v.mean() - (lo + hi) / 2) < 0.01
        return
    assert abs(v.mean()) < 0.02 * std
    assert abs(v.std() / std - 1) < 0.01
    if kind == "uniform":
        assert -bound <= v.min() < -0.99 * bound and 0.99 * bound < v.max() <= bound


def test_trunc_normal(torch):
    torch.manual_seed(0)
    t = torch.nn.init.trunc_normal_(torch.empty(SHAPE), mean=0.5, std=1.0, a=-0.5, b=2.0)
    v = t.numpy().astype(np.float64)
    assert -0.5 <= v.min() < -0.49 and 1.99 < v.max() <= 2.0
    # moments of N(0.5, 1) truncated to [-1, 1.5] standard units
    alpha, beta = -1.0, 1.5
    pdf = [math.exp(-z * z / 2) / math.sqrt(2 * math.pi) for z in (alpha, beta)]
    mass = 0.5 * (math.erf(beta / math.sqrt(2)) - math.erf(alpha / math.sqrt(2)))
    mean = 0.5 + (pdf[0] - pdf[1]) / mass
    var = 1 + (alpha * pdf[0] - beta * pdf[1]) / mass - ((pdf[0] - pdf[1]) / mass) ** 2
    assert abs(v.mean() - mean) < 0.01 and abs(v.std() / math.sqrt(var) - 1) < 0.01


@pytest.mark.parametrize("shape", [(6, 4), (4, 6), (3, 2, 2)])
def test_orthogonal(torch, shape):
    t = torch.nn.init.orthogonal_(torch.empty(shape), gain=2.0)
    m = t.numpy().reshape(shape[0], -1).astype(np.float64)
    gram = m @ m.T if m.shape[0] <= m.shape[1] else m.T @ m
    np.testing.assert_allclose(gram, 4 * np.eye(len(gram)), atol=1e-5)


def test_sparse(torch):
    torch.manual_seed(0)
    t = torch.nn.init.sparse_(torch.empty(10, 300), sparsity=0.25, std=0.5)
    v = t.numpy()
    assert ((v == 0).sum(axis=0) == 3).all()
    assert abs(v[v != 0].std() / 0.5 - 1) < 0.03


def test_deterministic_inits(torch):
    init = torch.nn.init
    np.testing.assert_array_equal(init.constant_(torch.empty(2, 2), 0.3).numpy(),
                                  np.full((2, 2), 0.3, np.float32))
    assert init.ones_(torch.empty(2)).tolist() == [1.0, 1.0]
    assert init.zeros_(torch.empty(2)).tolist() == [0.0, 0.0]
    assert init.eye_(torch.empty(2, 3)).tolist() == [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]
    d = init.dirac_(torch.empty(4, 2, 3))
    assert d.sum().item() == 2 and d[0, 0, 1].item() == 1 and d[1, 1, 1].item() == 1
    d = init.dirac_(torch.empty(4, 2, 3, 3), groups=2)
    assert d.sum().item() == 4 and d[2, 0, 1, 1].item() == 1 and d[3, 1, 1, 1].item() == 1
    assert init.ones_(torch.empty(2, dtype=torch.int64)).tolist() == [1, 1]
    assert init.normal_(torch.empty(3), 2.0, 0.0).tolist() == [2.0, 2.0, 2.0]
    assert init.uniform_(torch.empty(2, dtype=torch.float64), 3, 3).tolist() == [3.0, 3.0]


def test_linear_default_initialization(torch):
    torch.manual_seed(0)
    lin = torch.nn.Linear(400, 300)
    bound = 1 / math.sqrt(400)
    for p in (lin.weight, lin.bias):
        v = p.detach().numpy()
        assert -bound <= v.min() and v.max() <= bound
    w = lin.weight.detach().numpy().astype(np.float64)
    assert abs(w.std() / (bound / math.sqrt(3)) - 1) < 0.01
    assert lin.weight.shape == (300, 400) and lin.bias.shape == (300,)


def test_init_reproducible_with_seed_and_generator():
    init = tt.nn.init
    tt.manual_seed(3)
    a = init.kaiming_normal_(tt.empty(5, 5))
    tt.manual_seed(3)
    b = init.kaiming_normal_(tt.empty(5, 5))
    assert a.tolist() == b.tolist()
    c = init.xavier_uniform_(tt.empty(5, 5), generator=tt.Generator().manual_seed(1))
    d = init.xavier_uniform_(tt.empty(5, 5), generator=tt.Generator().manual_seed(1))
    assert c.tolist() == d.tolist() != a.tolist()


def test_float32_erf_within_one_ulp_of_math_erf():
    # float32 erf (GELU's) runs vectorized polynomials, not math.erf per element:
    # every result must be float32(math.erf(x)) or one ulp from it, with erf's
    # signs, limits and NaN
    rng = np.random.default_rng(3)
    x = np.concatenate([rng.standard_normal(200_000) * 2, rng.uniform(-6, 6, 200_000),
                        np.logspace(-45, 1.5, 20_000), -np.logspace(-45, 1.5, 20_000),
                        [0.0, -0.0, np.inf, -np.inf, 1.0, -1.0, 4.0, -4.0, 0.99999, 3.9999]]
                       ).astype(np.float32)
    got = tt.erf(tt.from_numpy(x)).numpy()
    ref = np.array([math.erf(v) for v in x.astype(np.float64)]).astype(np.float32)
    ulps = np.abs(got.view(np.int32).astype(np.int64) - ref.view(np.int32).astype(np.int64))
    assert got.dtype == np.float32 and ulps.max() <= 1
    assert np.signbit(got[x == 0]).tolist() == np.signbit(x[x == 0]).tolist()
    assert np.isnan(tt.erf(tt.tensor([float("nan")])).numpy()).all()
