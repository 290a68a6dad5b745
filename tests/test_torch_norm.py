"""Normalization, embedding and further activation layers of tracegrad.torch.nn against PyTorch.

Differential (skipped without PyTorch): each module or function and its
PyTorch twin get the same parameters (copied through NumPy) and inputs; the
forward values and dtypes, the ``grad_fn`` graph where tracegrad records
PyTorch's, the gradients of inputs and parameters, running statistics after
a few training steps, evaluation-mode outputs, ``state_dict`` keys and
shapes, and errors (type and message) are compared, in float32 and float64.
Tracegrad-only pins: initialization, ``sparse=True`` refused.
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
TOL = {"float32": dict(rtol=2e-5, atol=2e-5), "float64": dict(rtol=1e-10, atol=1e-11)}


def raises(exc_type, message):
    return pytest.raises(exc_type, match="^" + re.escape(message) + r"\Z")


def graph(t):
    def walk(fn):
        if fn is None:
            return None
        return (fn.name(), tuple(walk(f) for f, _ in fn.next_functions))

    return walk(t.grad_fn)


def numpy_of(t):
    return None if t is None else t.detach().numpy()


def assert_same(ours, theirs, dtype, what, tol=None):
    assert (ours is None) == (theirs is None), what
    if ours is None:
        return
    assert tuple(ours.shape) == tuple(theirs.shape), f"{what}: {ours.shape} vs {theirs.shape}"
    assert str(ours.dtype) == str(theirs.dtype), f"{what}: {ours.dtype} vs {theirs.dtype}"
    np.testing.assert_allclose(numpy_of(ours), numpy_of(theirs), err_msg=what, equal_nan=True,
                               **(tol or TOL[dtype]))


def cotangent(shape, dtype):
    return np.random.default_rng(7).standard_normal(tuple(shape)).astype(dtype)


def data(shape, dtype, seed=0, offset=0.0):
    return (np.random.default_rng(seed).standard_normal(shape) * 1.5 + offset).astype(dtype)


def twins(real, make, dtype, randomize=True):
    """The module ``make(nn)`` of both libraries in ``dtype``, with equal (random) parameters."""
    ours, theirs = make(tt.nn), make(real.nn)
    ours.to(getattr(tt, dtype))
    theirs.to(getattr(real, dtype))
    rng = np.random.default_rng(3)
    mine, other = dict(ours.named_parameters()), dict(theirs.named_parameters())
    assert list(mine) == list(other)
    with real.no_grad():
        for name, p in mine.items():
            values = p.detach().numpy()
            if randomize:
                values = (values + rng.standard_normal(values.shape) * 0.5).astype(dtype)
                with tt.no_grad():
                    p.copy_(tt.tensor(values))
            other[name].copy_(real.from_numpy(values.copy()))
    return ours, theirs


def run(T, module, x, dtype, grad=True):
    xt = T.tensor(x).requires_grad_(grad)
    y = module(xt)
    if grad:
        y.backward(T.tensor(cotangent(y.shape, dtype)))
    return y, [xt.grad] + [p.grad for p in module.parameters()]


def compare_run(real, ours, theirs, x, dtype, check_graph=True, tol=None):
    y1, g1 = run(tt, ours, x, dtype)
    y2, g2 = run(real, theirs, x, dtype)
    assert_same(y1, y2, dtype, "output")
    if check_graph:
        assert graph(y1) == graph(y2)
    for i, (a, b) in enumerate(zip(g1, g2)):
        assert_same(a, b, dtype, f"grad[{i}]", tol)


def compare_buffers(ours, theirs, dtype):
    mine, other = dict(ours.named_buffers()), dict(theirs.named_buffers())
    assert list(mine) == list(other)
    for name in mine:
        b1, b2 = mine[name], other[name]
        if b2.dtype.is_floating_point:
            assert_same(b1, b2, dtype, name)
        else:
            assert str(b1.dtype) == str(b2.dtype) and b1.tolist() == b2.tolist(), name


# ---------------------------------------------------------------------------
# modules: training steps, running statistics, evaluation

# (id, make(nn), input shape, check the grad_fn graph)
NORM_MODULES = [
    ("BatchNorm1d-2d", lambda nn: nn.BatchNorm1d(3), (6, 3), True),
    ("BatchNorm1d-3d", lambda nn: nn.BatchNorm1d(3), (4, 3, 5), True),
    ("BatchNorm1d-momentum-None", lambda nn: nn.BatchNorm1d(3, momentum=None), (5, 3), True),
    ("BatchNorm1d-momentum-0.3", lambda nn: nn.BatchNorm1d(3, momentum=0.3, eps=1e-3),
     (5, 3), True),
    ("BatchNorm1d-no-affine", lambda nn: nn.BatchNorm1d(3, affine=False), (6, 3), True),
    ("BatchNorm1d-no-bias", lambda nn: nn.BatchNorm1d(3, bias=False), (6, 3), True),
    ("BatchNorm1d-no-stats", lambda nn: nn.BatchNorm1d(3, track_running_stats=False), (6, 3),
     True),
    ("BatchNorm2d", lambda nn: nn.BatchNorm2d(4), (5, 4, 3, 2), True),
    ("BatchNorm2d-no-affine-no-stats",
     lambda nn: nn.BatchNorm2d(4, affine=False, track_running_stats=False), (3, 4, 3, 2), True),
    ("BatchNorm3d", lambda nn: nn.BatchNorm3d(2), (3, 2, 2, 3, 2), True),
    ("LayerNorm", lambda nn: nn.LayerNorm(5), (3, 5), True),
    ("LayerNorm-2d-shape", lambda nn: nn.LayerNorm((3, 4), eps=1e-3), (2, 3, 4), True),
    ("LayerNorm-no-affine", lambda nn: nn.LayerNorm([4], elementwise_affine=False), (3, 4),
     True),
    ("LayerNorm-no-bias", lambda nn: nn.LayerNorm(4, bias=False), (2, 3, 4), True),
    ("GroupNorm", lambda nn: nn.GroupNorm(2, 6), (3, 6, 4), True),
    ("GroupNorm-4d", lambda nn: nn.GroupNorm(3, 6, eps=1e-4), (2, 6, 2, 3), True),
    ("GroupNorm-1-group-no-affine", lambda nn: nn.GroupNorm(1, 4, affine=False), (2, 4, 3),
     True),
    ("InstanceNorm1d", lambda nn: nn.InstanceNorm1d(3), (2, 3, 5), True),
    ("InstanceNorm1d-affine-stats",
     lambda nn: nn.InstanceNorm1d(3, affine=True, track_running_stats=True), (2, 3, 5), True),
    ("InstanceNorm1d-unbatched", lambda nn: nn.InstanceNorm1d(3), (3, 5), False),
    ("InstanceNorm2d-affine", lambda nn: nn.InstanceNorm2d(3, affine=True), (2, 3, 2, 3), True),
    ("LocalResponseNorm", lambda nn: nn.LocalResponseNorm(3, alpha=0.1), (2, 5, 3), False),
    ("LocalResponseNorm-even", lambda nn: nn.LocalResponseNorm(2, k=2.0), (2, 4, 2, 2), False),
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("case", NORM_MODULES, ids=[c[0] for c in NORM_MODULES])
def test_norm_module_matches_torch(real, case, dtype):
    _, make, shape, check_graph = case
    ours, theirs = twins(real, make, dtype)
    assert repr(ours) == repr(theirs)
    sd1, sd2 = ours.state_dict(), theirs.state_dict()
    assert list(sd1) == list(sd2)
    assert [tuple(v.shape) for v in sd1.values()] == [tuple(v.shape) for v in sd2.values()]
    for step in range(3):  # training steps: outputs, gradients, running statistics
        x = data(shape, dtype, seed=step, offset=step)
        for m in (ours, theirs):
            m.zero_grad()
        compare_run(real, ours, theirs, x, dtype, check_graph)
        compare_buffers(ours, theirs, dtype)
    ours.eval()
    theirs.eval()
    compare_run(real, ours, theirs, data(shape, dtype, seed=9), dtype, check_graph)
    compare_buffers(ours, theirs, dtype)


def test_batchnorm2d_cnn_shape_float32(real):
    """The benchmark's layout: (64, C, 24, 12) float32, one node in the graph."""
    ours, theirs = twins(real, lambda nn: nn.BatchNorm2d(6), "float32")
    x = data((64, 6, 24, 12), "float32", offset=2.0)
    compare_run(real, ours, theirs, x, "float32")
    compare_buffers(ours, theirs, "float32")
    y = ours(tt.tensor(x, requires_grad=True))
    assert graph(y) == ("NativeBatchNormBackward0", (("torch::autograd::AccumulateGrad", ()),) * 3)


def test_running_stats_update_outside_the_graph(real):
    for T in (tt, real):
        bn = T.nn.BatchNorm1d(2)
        x = T.tensor([[1.0, 2.0], [3.0, 6.0], [5.0, 1.0]], requires_grad=True)
        version = bn.running_mean._version
        y = bn(x)
        assert not bn.running_mean.requires_grad and bn.running_mean.grad_fn is None
        assert bn.running_mean._version == version  # PyTorch's kernel does not bump it
        np.testing.assert_allclose(bn.running_mean.numpy(), [0.3, 0.3], rtol=1e-6)
        # unbiased variance of [1, 3, 5] is 4, of [2, 6, 1] is 7
        np.testing.assert_allclose(bn.running_var.numpy(), [0.9 + 0.4, 0.9 + 0.7], rtol=1e-6)
        assert bn.num_batches_tracked.item() == 1
        y.sum().backward()


@pytest.mark.parametrize("dtype", DTYPES)
def test_batch_norm_second_derivatives_match_torch(real, dtype):
    """``create_graph=True``: gradients of the input gradient w.r.t. input and weight."""
    x = data((4, 3, 2), dtype)
    w = data((3,), dtype, seed=1)
    b = data((3,), dtype, seed=2)
    results = []
    for T in (tt, real):
        xt, wt, bt = (T.tensor(a, requires_grad=True) for a in (x, w, b))
        for fn in (lambda: T.nn.functional.batch_norm(xt, None, None, wt, bt, True),
                   lambda: T.nn.functional.layer_norm(xt, (3, 2), None, None),
                   lambda: T.nn.functional.group_norm(xt, 3, wt, bt)):
            y = fn()
            (gx,) = T.autograd.grad((y * T.tensor(cotangent(y.shape, dtype))).sum(), xt,
                                    create_graph=True)
            gg = T.autograd.grad((gx * gx).sum(), [xt, wt], allow_unused=True)
            results.append(gg)
    half = len(results) // 2
    for ours, theirs in zip(results[:half], results[half:]):
        for a, b in zip(ours, theirs):
            assert_same(a, b, dtype, "second derivative")


# ---------------------------------------------------------------------------
# functions, differential

X = np.random.default_rng(0).standard_normal((3, 4, 2)) * 2
KINKS = np.array([[-3.0, -1.0, 0.0, 1.0, 3.0, 6.0, -0.5, 0.5], [7.0, -4.0, 2.0, -2.0, 0.25,
                                                                  -0.25, 5.0, 0.1]])
C3 = np.array([0.5, -1.0, 2.0])
C4 = np.array([0.5, -1.0, 2.0, 1.5])
V4 = np.random.default_rng(1).standard_normal((3, 4))
W4 = np.random.default_rng(2).standard_normal((3, 4)) + 0.5


def fn_case(name, fn, *args, graph=True):
    return (name, fn, list(args), graph)


# PyTorch's float64 backward of these uses constants rounded to float32 (1/alpha, 1/6)
LOOSE64 = {"celu", "hardsigmoid", "CELU", "Hardsigmoid"}


def loose(name, dtype):
    return dict(rtol=1e-7, atol=1e-9) if name in LOOSE64 and dtype == "float64" else None


FUNCTIONS = [
    fn_case("batch_norm-train", lambda T, x, w, b: T.nn.functional.batch_norm(
        x, None, None, w, b, training=True, eps=1e-3), X, C4, C4[::-1].copy()),
    fn_case("batch_norm-eval", lambda T, x, w, b: T.nn.functional.batch_norm(
        x, T.tensor(C4).to(x.dtype), T.tensor(np.abs(C4) + 0.5).to(x.dtype), w, b), X, C4, C4),
    fn_case("batch_norm-eval-no-affine", lambda T, x: T.nn.functional.batch_norm(
        x, T.tensor(C4).to(x.dtype), T.tensor(np.abs(C4)).to(x.dtype)), X),
    fn_case("layer_norm", lambda T, x, w, b: T.nn.functional.layer_norm(x, (4, 2), w, b),
            X, X[0], X[1]),
    fn_case("layer_norm-no-affine", lambda T, x: T.nn.functional.layer_norm(x, [2]), X),
    fn_case("group_norm", lambda T, x: T.nn.functional.group_norm(x, 1), X),
    fn_case("instance_norm", lambda T, x: T.nn.functional.instance_norm(x), X),
    fn_case("normalize", lambda T, x: T.nn.functional.normalize(x), X, graph=False),
    fn_case("normalize-p1-dim0", lambda T, x: T.nn.functional.normalize(x, 1.0, 0), X,
            graph=False),
    fn_case("cosine_similarity", lambda T, a, b: T.nn.functional.cosine_similarity(a, b), V4,
            W4, graph=False),
    fn_case("cosine_similarity-dim0-broadcast", lambda T, a, b:
            T.nn.functional.cosine_similarity(a, b, dim=-1), V4, W4[0], graph=False),
    fn_case("pairwise_distance", lambda T, a, b: T.nn.functional.pairwise_distance(a, b), V4,
            W4, graph=False),
    fn_case("pairwise_distance-p1-keepdim", lambda T, a, b: T.nn.functional.pairwise_distance(
        a, b, p=1.0, keepdim=True), V4, W4, graph=False),
    fn_case("prelu-1", lambda T, x, w: T.nn.functional.prelu(x, w), KINKS, np.array([0.2])),
    fn_case("prelu-channels", lambda T, x, w: T.nn.functional.prelu(x, w), X, C4),
    fn_case("selu", lambda T, x: T.nn.functional.selu(x), KINKS),
    fn_case("celu", lambda T, x: T.nn.functional.celu(x, 0.7), KINKS),
    fn_case("mish", lambda T, x: T.nn.functional.mish(x), X),
    fn_case("hardtanh", lambda T, x: T.nn.functional.hardtanh(x), KINKS),
    fn_case("hardtanh-range", lambda T, x: T.nn.functional.hardtanh(x, -2.0, 0.5), KINKS),
    fn_case("relu6", lambda T, x: T.nn.functional.relu6(x), KINKS),
    fn_case("hardswish", lambda T, x: T.nn.functional.hardswish(x), KINKS),
    fn_case("hardsigmoid", lambda T, x: T.nn.functional.hardsigmoid(x), KINKS),
    fn_case("softsign", lambda T, x: T.nn.functional.softsign(x), KINKS),
    fn_case("tanhshrink", lambda T, x: T.nn.functional.tanhshrink(x), X),
    fn_case("threshold", lambda T, x: T.nn.functional.threshold(x, 0.5, -3.0), KINKS),
    fn_case("glu", lambda T, x: T.nn.functional.glu(x), X),
    fn_case("glu-dim1", lambda T, x: T.nn.functional.glu(x, 1), X),
    fn_case("softmin", lambda T, x: T.nn.functional.softmin(x, dim=1), X),
    fn_case("softshrink", lambda T, x: T.nn.functional.softshrink(x, 0.25), KINKS),
    fn_case("hardshrink", lambda T, x: T.nn.functional.hardshrink(x, 0.25), KINKS),
    fn_case("hardshrink-default", lambda T, x: T.nn.functional.hardshrink(x), KINKS),
    fn_case("selu-inplace", lambda T, x: T.nn.functional.selu(x * 1, inplace=True), KINKS),
    fn_case("hardtanh-inplace", lambda T, x: T.nn.functional.hardtanh(x * 1, inplace=True),
            KINKS),
    fn_case("threshold-inplace", lambda T, x: T.nn.functional.threshold(x * 1, 0.0, 2.0, True),
            KINKS),
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("case", FUNCTIONS, ids=[c[0] for c in FUNCTIONS])
def test_function_matches_torch(real, case, dtype):
    _, fn, args, check_graph = case
    results = []
    for T in (tt, real):
        ts = [T.tensor(np.asarray(a).astype(dtype), requires_grad=True) for a in args]
        y = fn(T, *ts)
        g = graph(y)
        y.backward(T.tensor(cotangent(y.shape, dtype)))
        results.append((y, g, [t.grad for t in ts]))
    (y1, g1, d1), (y2, g2, d2) = results
    assert_same(y1, y2, dtype, "output")
    if check_graph:
        assert g1 == g2
    for i, (a, b) in enumerate(zip(d1, d2)):
        assert_same(a, b, dtype, f"grad[{i}]", loose(case[0], dtype))


ACTIVATIONS = [
    ("PReLU", lambda nn: nn.PReLU()), ("PReLU-4", lambda nn: nn.PReLU(4, init=0.1)),
    ("SELU", lambda nn: nn.SELU()), ("CELU", lambda nn: nn.CELU(0.5)), ("Mish", lambda nn:
                                                                        nn.Mish()),
    ("Hardtanh", lambda nn: nn.Hardtanh(-0.5, 2.0)), ("ReLU6", lambda nn: nn.ReLU6()),
    ("Hardswish", lambda nn: nn.Hardswish()), ("Hardsigmoid", lambda nn: nn.Hardsigmoid()),
    ("Softsign", lambda nn: nn.Softsign()), ("Tanhshrink", lambda nn: nn.Tanhshrink()),
    ("Threshold", lambda nn: nn.Threshold(0.1, 20.0)), ("GLU", lambda nn: nn.GLU(1)),
    ("Softmin", lambda nn: nn.Softmin(dim=2)), ("Softshrink", lambda nn: nn.Softshrink()),
    ("Hardshrink", lambda nn: nn.Hardshrink(0.3)),
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("case", ACTIVATIONS, ids=[c[0] for c in ACTIVATIONS])
def test_activation_module_matches_torch(real, case, dtype):
    _, make = case
    ours, theirs = twins(real, make, dtype, randomize=False)
    assert repr(ours) == repr(theirs)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    compare_run(real, ours, theirs, data((2, 4, 3), dtype), dtype, tol=loose(case[0], dtype))


# ---------------------------------------------------------------------------
# embeddings

IDX = np.array([[0, 2, 4], [2, 1, 0]])
EMBEDDINGS = [
    ("plain", dict(), IDX),
    ("padding_idx", dict(padding_idx=2), IDX),
    ("padding_idx-negative", dict(padding_idx=-1), np.array([4, 3, 4])),
    ("scale_grad_by_freq", dict(scale_grad_by_freq=True), IDX),
    ("max_norm", dict(max_norm=1.0), IDX),
    ("max_norm-p1", dict(max_norm=1.5, norm_type=1.0), np.array([3, 4, 3])),
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("case", EMBEDDINGS, ids=[c[0] for c in EMBEDDINGS])
def test_embedding_matches_torch(real, case, dtype):
    _, kwargs, idx = case
    ours, theirs = twins(real, lambda nn: nn.Embedding(5, 3, **kwargs), dtype)
    assert repr(ours) == repr(theirs)
    results = []
    for T, m in ((tt, ours), (real, theirs)):
        y = m(T.tensor(idx))
        g = graph(y)
        y.backward(T.tensor(cotangent(y.shape, dtype)))
        results.append((y, g, m.weight.grad, m.weight.detach().clone()))
    (y1, g1, d1, w1), (y2, g2, d2, w2) = results
    assert_same(y1, y2, dtype, "output")
    assert g1 == g2
    assert_same(d1, d2, dtype, "weight grad")
    assert_same(w1, w2, dtype, "weight after max_norm")  # renormalized in place


def test_embedding_padding_row_and_init(real):
    e = tt.nn.Embedding(1000, 4, padding_idx=3)
    w = e.weight.detach().numpy()
    assert (w[3] == 0).all()
    rest = np.delete(w, 3, axis=0)
    assert abs(rest.mean()) < 0.05 and abs(rest.std() - 1) < 0.05  # N(0, 1)
    y = e(tt.tensor([3, 3, 5]))
    y.sum().backward()
    assert (e.weight.grad.numpy()[3] == 0).all() and (e.weight.grad.numpy()[5] == 1).all()
    assert e.weight.dtype is tt.float32 and e.weight.shape == (1000, 4)
    for T in (tt, real):
        assert list(T.nn.Embedding(3, 2).state_dict()) == ["weight"]


def test_embedding_from_pretrained(real):
    w = np.arange(6.0).reshape(3, 2)
    for T in (tt, real):
        e = T.nn.Embedding.from_pretrained(T.tensor(w), padding_idx=1)
        assert not e.weight.requires_grad and e.padding_idx == 1
        assert e(T.tensor([1, 2])).tolist() == [[2.0, 3.0], [4.0, 5.0]]
        e2 = T.nn.Embedding.from_pretrained(T.tensor(w), freeze=False)
        assert e2.weight.requires_grad
        b = T.nn.EmbeddingBag.from_pretrained(T.tensor(w), mode="sum")
        assert b(T.tensor([[0, 2]])).tolist() == [[4.0, 6.0]]


def test_sparse_refused():
    with pytest.raises(NotImplementedError, match="sparse"):
        tt.nn.Embedding(3, 2, sparse=True)
    with pytest.raises(NotImplementedError, match="sparse"):
        tt.nn.functional.embedding(tt.tensor([0]), tt.ones(3, 2), sparse=True)


BAGS = [
    ("mean-offsets", dict(mode="mean"), [0, 2, 4, 1, 3, 3], [0, 2, 2, 5], None),
    ("sum-2d", dict(mode="sum"), [[0, 2], [4, 1]], None, None),
    ("max-offsets", dict(mode="max"), [0, 2, 4, 1, 3], [0, 3], None),
    ("sum-per-sample-weights", dict(mode="sum"), [0, 2, 4, 1], [0, 1], [0.5, -1.0, 2.0, 1.5]),
    ("mean-padding", dict(mode="mean", padding_idx=2), [0, 2, 4, 2, 2], [0, 3], None),
    ("sum-last-offset", dict(mode="sum", include_last_offset=True), [0, 2, 4, 1], [0, 1, 4],
     None),
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("case", BAGS, ids=[c[0] for c in BAGS])
def test_embedding_bag_matches_torch(real, case, dtype):
    _, kwargs, idx, offsets, psw = case
    ours, theirs = twins(real, lambda nn: nn.EmbeddingBag(5, 3, **kwargs), dtype)
    assert repr(ours) == repr(theirs)
    results = []
    for T, m in ((tt, ours), (real, theirs)):
        p = None if psw is None else T.tensor(np.asarray(psw, dtype), requires_grad=True)
        y = m(T.tensor(idx), None if offsets is None else T.tensor(offsets), p)
        g = graph(y)
        y.backward(T.tensor(cotangent(y.shape, dtype)))
        results.append((y, g, m.weight.grad, None if p is None else p.grad))
    (y1, g1, *d1), (y2, g2, *d2) = results
    assert_same(y1, y2, dtype, "output")
    assert g1[0] == g2[0]
    for a, b in zip(d1, d2):
        assert_same(a, b, dtype, "grad")


# ---------------------------------------------------------------------------
# initialization and state_dict


def test_initialization():
    for m in (tt.nn.BatchNorm2d(3), tt.nn.LayerNorm((2, 3)), tt.nn.GroupNorm(1, 3),
              tt.nn.InstanceNorm1d(3, affine=True)):
        assert (m.weight.detach().numpy() == 1).all() and (m.bias.detach().numpy() == 0).all()
        assert m.weight.requires_grad and m.weight.dtype is tt.float32
    bn = tt.nn.BatchNorm1d(4, dtype=tt.float64)
    assert bn.running_mean.tolist() == [0.0] * 4 and bn.running_var.tolist() == [1.0] * 4
    assert bn.running_mean.dtype is tt.float64 and bn.num_batches_tracked.dtype is tt.int64
    assert tt.nn.PReLU(3).weight.tolist() == [0.25] * 3


def test_state_dict_round_trip(real):
    ours = tt.nn.BatchNorm1d(3)
    ours(tt.randn(4, 3) * 3 + 1)
    theirs = real.nn.BatchNorm1d(3)
    theirs.load_state_dict({k: real.from_numpy(v.numpy().copy()) for k, v in
                            ours.state_dict().items()})
    ours.eval()
    theirs.eval()
    x = data((5, 3), "float32")
    assert_same(ours(tt.tensor(x)), theirs(real.tensor(x)), "float32", "eval after load")
    assert theirs.num_batches_tracked.item() == 1
    theirs.train()
    theirs(real.tensor(data((6, 3), "float32", seed=4)))
    ours.load_state_dict({k: tt.tensor(v.numpy()) for k, v in theirs.state_dict().items()})
    compare_buffers(ours, theirs, "float32")
    assert ours.num_batches_tracked.item() == 2


def test_double_converts_buffers():
    bn = tt.nn.BatchNorm1d(3).double()
    assert bn.running_mean.dtype is tt.float64 and bn.num_batches_tracked.dtype is tt.int64
    y = bn(tt.randn(4, 3, dtype=tt.float64))
    assert y.dtype is tt.float64 and bn.running_var.dtype is tt.float64


# ---------------------------------------------------------------------------
# errors, differential

ERRORS = [
    ("bn-batch-of-1", lambda T: T.nn.BatchNorm1d(3)(T.ones(1, 3))),
    ("bn2d-batch-of-1", lambda T: T.nn.BatchNorm2d(3)(T.ones(1, 3, 1, 1))),
    ("bn2d-rank", lambda T: T.nn.BatchNorm2d(3)(T.ones(2, 3, 4))),
    ("bn1d-rank", lambda T: T.nn.BatchNorm1d(3)(T.ones(2, 3, 4, 5))),
    ("bn3d-rank", lambda T: T.nn.BatchNorm3d(3)(T.ones(2, 3, 4, 5))),
    ("bn-channels", lambda T: T.nn.BatchNorm1d(3)(T.ones(2, 4))),
    ("bn-weight", lambda T: T.nn.functional.batch_norm(T.ones(2, 4), T.zeros(4), T.ones(4),
                                                       T.ones(3))),
    ("bn-bias", lambda T: T.nn.functional.batch_norm(T.ones(2, 4), T.zeros(4), T.ones(4),
                                                     T.ones(4), T.ones(2))),
    ("bn-eval-no-stats", lambda T: T.nn.functional.batch_norm(T.ones(2, 4), None, None)),
    ("ln-shape", lambda T: T.nn.functional.layer_norm(T.ones(2, 3), (4,))),
    ("ln-shape-2d", lambda T: T.nn.functional.layer_norm(T.ones(2, 3), (2, 4))),
    ("ln-weight", lambda T: T.nn.functional.layer_norm(T.ones(2, 3), (3,), T.ones(2))),
    ("ln-bias", lambda T: T.nn.functional.layer_norm(T.ones(2, 3), (3,), None, T.ones(2))),
    ("ln-int-shape", lambda T: T.nn.functional.layer_norm(T.ones(2, 3), 3)),
    ("GroupNorm-divisible", lambda T: T.nn.GroupNorm(4, 6)),
    ("gn-divisible", lambda T: T.nn.functional.group_norm(T.ones(2, 6, 3), 4)),
    ("gn-weight", lambda T: T.nn.functional.group_norm(T.ones(2, 6, 3), 3, T.ones(5))),
    ("in-rank", lambda T: T.nn.InstanceNorm1d(3)(T.ones(2, 3, 4, 5))),
    ("in2d-rank", lambda T: T.nn.InstanceNorm2d(3)(T.ones(2, 3))),
    ("in-spatial", lambda T: T.nn.InstanceNorm1d(3)(T.ones(2, 3, 1))),
    ("in-affine-channels", lambda T: T.nn.InstanceNorm1d(3, affine=True)(T.ones(2, 4, 5))),
    ("lrn-rank", lambda T: T.nn.functional.local_response_norm(T.ones(2, 3), 2)),
    ("emb-padding", lambda T: T.nn.Embedding(3, 2, padding_idx=3)),
    ("emb-padding-negative", lambda T: T.nn.Embedding(3, 2, padding_idx=-4)),
    ("emb-range", lambda T: T.nn.Embedding(3, 2)(T.tensor([3]))),
    ("emb-float-index", lambda T: T.nn.Embedding(3, 2)(T.tensor([1.0]))),
    ("emb-pretrained-1d", lambda T: T.nn.Embedding.from_pretrained(T.ones(3))),
    ("emb-weight-1d", lambda T: T.nn.functional.embedding(T.tensor([0]), T.ones(3))),
    ("bag-no-offsets", lambda T: T.nn.functional.embedding_bag(T.tensor([0, 1]), T.ones(3, 2))),
    ("bag-2d-offsets-prefix", lambda T: T.nn.functional.embedding_bag(
        T.tensor([[0, 1]]), T.ones(3, 2), T.tensor([0]))),
    ("bag-mode", lambda T: T.nn.functional.embedding_bag(T.tensor([0, 1]), T.ones(3, 2),
                                                         T.tensor([0]), mode="min")),
    ("bag-psw-mean", lambda T: T.nn.functional.embedding_bag(
        T.tensor([0, 1]), T.ones(3, 2), T.tensor([0]), per_sample_weights=T.ones(2))),
    ("glu-odd", lambda T: T.nn.functional.glu(T.ones(3))),
    ("glu-scalar", lambda T: T.nn.functional.glu(T.tensor(1.0))),
    ("glu-dim", lambda T: T.nn.functional.glu(T.ones(2, 4), 5)),
    ("softshrink-negative", lambda T: T.nn.functional.softshrink(T.ones(3), -1)),
    ("hardtanh-range", lambda T: T.nn.functional.hardtanh(T.ones(3), 2.0, 1.0)),
    ("prelu-count", lambda T: T.nn.functional.prelu(T.ones(2, 3), T.ones(2))),
    ("prelu-2d-weight", lambda T: T.nn.functional.prelu(T.ones(2, 3), T.ones(1, 3))),
    ("selu-long", lambda T: T.nn.functional.selu(T.ones(2, dtype=T.long))),
    ("mish-long", lambda T: T.nn.functional.mish(T.ones(2, dtype=T.long))),
    ("hardswish-long", lambda T: T.nn.functional.hardswish(T.ones(2, dtype=T.long))),
]


@pytest.mark.parametrize("case", ERRORS, ids=[c[0] for c in ERRORS])
def test_error_matches_torch(real, case):
    name, fn = case
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(Exception) as theirs:
            fn(real)
        message = str(theirs.value)
        if name.endswith("-prefix"):  # the message ends with the class of tracegrad's tensor
            with pytest.raises(type(theirs.value), match="^" + re.escape(message[:-20])):
                fn(tt)
        else:
            with raises(type(theirs.value), message):
                fn(tt)


def test_softmin_implicit_dim_warns(real):
    for T in (tt, real):
        with pytest.warns(UserWarning, match="Implicit dimension choice for softmin"):
            T.nn.functional.softmin(T.ones(2, 3))


def test_norms_inside_torch_func_match_torch(real):
    """Per-example gradients (``vmap(grad(...))``) through layer and group norm."""
    x = data((4, 3, 5), "float64")
    results = []
    for T in (tt, real):
        w = T.tensor(data((5,), "float64", seed=1))
        gn = T.nn.GroupNorm(1, 3).double()

        def loss(x):
            y = T.nn.functional.layer_norm(x, (5,), w)
            return (gn(y[None]) ** 3).sum() + (y * y * y).sum()

        results.append(T.func.vmap(T.func.grad(loss))(T.tensor(x)))
    assert_same(results[0], results[1], "float64", "per-example gradients")


def test_public_docstrings():
    import inspect

    from tracegrad.torch.nn import _functional_norm, activation, normalization, sparse
    for mod in (_functional_norm, activation, normalization, sparse):
        for name in mod.__all__:
            obj = getattr(mod, name)
            doc = inspect.getdoc(obj) or ""
            assert doc, name
            if inspect.isfunction(obj):
                assert "Returns\n-------" in doc and "Parameters\n----------" in doc, name


def test_embedding_of_batched_indices_matches_torch(real):
    """``vmap`` over the indices of a lookup (per-example weight gradients)."""
    w = data((5, 3), "float64")
    idx = [[0, 1], [2, 2], [4, 0]]
    results = []
    for T in (tt, real):
        def loss(weight, i):
            return (T.nn.functional.embedding(i, weight) ** 3).sum()

        results.append(T.func.vmap(T.func.grad(loss), in_dims=(None, 0))(T.tensor(w),
                                                                         T.tensor(idx)))
    assert_same(results[0], results[1], "float64", "per-example weight gradients")
