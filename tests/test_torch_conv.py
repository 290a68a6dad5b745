"""Convolution, pooling, padding and resampling in tracegrad.torch against PyTorch 2.13.

Differential tests (skipped without PyTorch): every function of
``nn.functional`` built on the ``im2col``/``col2im`` primitives and every
module of ``nn.conv`` gets the same inputs and parameters as its PyTorch twin;
values, ``grad_fn`` names, input and parameter gradients, returned indices,
reprs, ``state_dict`` keys and shapes, and the errors for bad arguments (type
and message) are compared.  tracegrad-only tests pin the primitives' Numba
kernels against their NumPy path, second derivatives, ``torch.func``
transforms through a convolution, and the default initialization's
distribution.
"""
import math
import re

import numpy as np
import pytest

import tracegrad.torch as tt
import tracegrad.torch.nn.functional as F
from tracegrad.primitives import conv as pconv


@pytest.fixture(scope="module")
def torch():
    real = pytest.importorskip("torch")
    real.set_num_threads(1)
    return real


def _run(fn, arrays, dt, seed):
    tensors = [tt.tensor(a.astype(dt), requires_grad=True) for a in arrays]
    return tensors, fn(*tensors)


def compare(torch, fa, fb, *arrays, dt=np.float64, rtol=None, seed=0, names=True):
    """Forward values, grad_fn name (with ``names``), returned indices and input
    gradients agree."""
    rtol = rtol or (1e-12 if dt == np.float64 else 2e-5)
    ta = [tt.tensor(a.astype(dt), requires_grad=True) for a in arrays]
    tb = [torch.tensor(a.astype(dt), requires_grad=True) for a in arrays]
    ya, yb = fa(*ta), fb(*tb)
    if isinstance(yb, tuple):
        np.testing.assert_array_equal(ya[1].numpy(), yb[1].numpy())
        assert ya[1].dtype == tt.int64
        ya, yb = ya[0], yb[0]
    assert ya.dtype == getattr(tt, str(yb.dtype).removeprefix("torch."))
    assert tuple(ya.shape) == tuple(yb.shape)
    np.testing.assert_allclose(ya.detach().numpy(), yb.detach().numpy(), rtol=rtol,
                               atol=rtol * 10)
    if names:
        assert ya.grad_fn.name() == yb.grad_fn.name()
    g = np.random.default_rng(seed).normal(size=tuple(yb.shape)).astype(dt)
    ya.backward(tt.tensor(g))
    yb.backward(torch.tensor(g))
    for a, b in zip(ta, tb):
        np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=rtol, atol=rtol * 10)


R = np.random.default_rng(0)
X4 = R.normal(size=(2, 4, 9, 8))
X3 = R.normal(size=(2, 3, 9, 8))

CONV = [
    ("conv2d", (X4, R.normal(size=(6, 2, 3, 2)), R.normal(size=6)),
     dict(stride=(2, 1), padding=(1, 2), dilation=(1, 2), groups=2)),
    ("conv2d", (X4, R.normal(size=(6, 2, 3, 2))), dict(padding="same", groups=2)),
    ("conv2d", (X4, R.normal(size=(5, 4, 2, 2))), dict(padding="valid", stride=3)),
    ("conv2d", (X4[0], R.normal(size=(5, 4, 3, 3))), dict(padding=1)),
    ("conv1d", (R.normal(size=(3, 10)), R.normal(size=(5, 3, 4))), dict(padding=2, stride=2)),
    ("conv1d", (R.normal(size=(2, 4, 10)), R.normal(size=(4, 1, 3)), R.normal(size=4)),
     dict(groups=4, dilation=3)),
    ("conv3d", (R.normal(size=(1, 2, 4, 5, 3)), R.normal(size=(3, 2, 2, 3, 2))), dict(padding=1)),
    ("conv_transpose2d", (R.normal(size=(2, 4, 5, 4)), R.normal(size=(4, 3, 3, 3)),
                          R.normal(size=6)),
     dict(stride=2, padding=1, output_padding=1, groups=2)),
    ("conv_transpose1d", (R.normal(size=(2, 3, 5)), R.normal(size=(3, 2, 3))),
     dict(stride=3, padding=2, dilation=2, output_padding=1)),
    ("conv_transpose1d", (R.normal(size=(3, 5)), R.normal(size=(3, 2, 3))), dict()),
    ("conv_transpose3d", (R.normal(size=(1, 2, 3, 2, 3)), R.normal(size=(2, 2, 2, 2, 2))),
     dict(stride=(1, 2, 1))),
]


@pytest.mark.parametrize("dt", [np.float64, np.float32])
@pytest.mark.parametrize("name,arrays,kw", CONV, ids=[f"{c[0]}-{i}" for i, c in enumerate(CONV)])
def test_convolution(torch, name, arrays, kw, dt):
    compare(torch, lambda *t: getattr(F, name)(*t, **kw),
            lambda *t: getattr(torch.nn.functional, name)(*t, **kw), *arrays, dt=dt)


POOL = [
    ("max_pool2d", (2,), {}), ("max_pool2d", (3, 2, 1), dict(ceil_mode=True, return_indices=True)),
    ("max_pool2d", ((2, 3), (1, 2), (1, 1)), dict(dilation=2, return_indices=True)),
    ("avg_pool2d", (2,), {}), ("avg_pool2d", (3, 2, 1), dict(ceil_mode=True)),
    ("avg_pool2d", (3, 2, 1), dict(ceil_mode=True, count_include_pad=False)),
    ("avg_pool2d", (3, 2, 1), dict(divisor_override=2)),
    ("adaptive_avg_pool2d", ((4, 3),), {}), ("adaptive_avg_pool2d", ((None, 5),), {}),
    ("adaptive_max_pool2d", ((4, 3),), dict(return_indices=True)),
    ("lp_pool2d", (2, 2), {}),
]


@pytest.mark.parametrize("name,args,kw", POOL, ids=[f"{p[0]}-{i}" for i, p in enumerate(POOL)])
def test_pooling_2d(torch, name, args, kw):
    x = np.abs(X3) + 0.1 if name.startswith("lp") else X3
    compare(torch, lambda t: getattr(F, name)(t, *args, **kw),
            lambda t: getattr(torch.nn.functional, name)(t, *args, **kw), x)


@pytest.mark.parametrize("name,args,kw", [
    ("max_pool1d", (3, 2), dict(return_indices=True)), ("max_pool1d", (2,), dict(padding=1)),
    ("avg_pool1d", (3, 2, 1), dict(ceil_mode=True)), ("adaptive_avg_pool1d", (4,), {}),
    ("adaptive_max_pool1d", (4,), dict(return_indices=True)),
    ("max_pool3d", (2,), dict(return_indices=True)), ("avg_pool3d", (2, 1), {}),
])
@pytest.mark.parametrize("batched", [True, False])
def test_pooling_1d_3d_and_unbatched(torch, name, args, kw, batched):
    x = R.normal(size=(2, 3, 9) if name.endswith("1d") else (2, 3, 4, 5, 4))
    compare(torch, lambda t: getattr(F, name)(t, *args, **kw),
            lambda t: getattr(torch.nn.functional, name)(t, *args, **kw), x if batched else x[0])


def test_max_pool_ties_and_nan_follow_the_first_maximum(torch):
    x = np.zeros((1, 1, 4, 4))
    x[0, 0, 0, 1] = x[0, 0, 1, 0] = 1.0  # a tie in the first window
    x[0, 0, 2, 3] = np.nan  # a NaN in the last window
    ta = tt.tensor(x, requires_grad=True)
    out, idx = F.max_pool2d(ta, 2, return_indices=True)
    out.sum().backward()
    tb = torch.tensor(x, requires_grad=True)
    outb, idxb = torch.nn.functional.max_pool2d(tb, 2, return_indices=True)
    outb.sum().backward()
    np.testing.assert_array_equal(out.detach().numpy(), outb.detach().numpy())
    np.testing.assert_array_equal(idx.numpy(), idxb.numpy())
    np.testing.assert_array_equal(ta.grad.numpy(), tb.grad.numpy())
    assert idx.numpy()[0, 0, 0, 0] == 1 and np.isnan(out.detach().numpy()[0, 0, 1, 1])


def test_unfold_fold(torch):
    kw = dict(dilation=(1, 2), padding=1, stride=(2, 1))
    compare(torch, lambda t: F.unfold(t, (2, 3), **kw),
            lambda t: torch.nn.functional.unfold(t, (2, 3), **kw), X3)
    cols = torch.nn.functional.unfold(torch.tensor(X3), (2, 3), padding=1, stride=(2, 1)).numpy()
    compare(torch, lambda c: F.fold(c, (9, 8), (2, 3), padding=1, stride=(2, 1)),
            lambda c: torch.nn.functional.fold(c, (9, 8), (2, 3), padding=1, stride=(2, 1)), cols)


@pytest.mark.parametrize("mode", ["constant", "reflect", "replicate", "circular"])
@pytest.mark.parametrize("pad", [(1, 2), (1, 2, 2, 1)])
def test_pad(torch, mode, pad):
    x = X3 if len(pad) == 4 else X3[:, 0]  # non-constant modes: pad the last 1 or 2 of 3-4 dims
    compare(torch, lambda t: F.pad(t, pad, mode=mode),
            lambda t: torch.nn.functional.pad(t, pad, mode=mode), x, names=mode != "circular")


def test_pad_constant_crops_with_negative_amounts(torch):
    compare(torch, lambda t: F.pad(t, (-1, 2, 0, -3, 1, 0), value=2.5),
            lambda t: torch.nn.functional.pad(t, (-1, 2, 0, -3, 1, 0), value=2.5), X3)


@pytest.mark.parametrize("kw", [
    dict(scale_factor=2), dict(size=(5, 13)), dict(scale_factor=1.7, mode="nearest-exact"),
    dict(scale_factor=2, mode="bilinear"), dict(size=(5, 13), mode="bilinear", align_corners=True),
    dict(scale_factor=(0.5, 1.5), mode="bilinear"),
    dict(scale_factor=1.7, mode="bilinear", recompute_scale_factor=True),
], ids=str)
def test_interpolate_2d(torch, kw):
    compare(torch, lambda t: F.interpolate(t, **kw),
            lambda t: torch.nn.functional.interpolate(t, **kw), X3)


@pytest.mark.parametrize("mode,shape", [("linear", (2, 3, 9)), ("nearest", (2, 3, 9)),
                                        ("trilinear", (1, 2, 3, 4, 5))])
def test_interpolate_1d_3d(torch, mode, shape):
    x = R.normal(size=shape)
    compare(torch, lambda t: F.interpolate(t, scale_factor=2.5, mode=mode),
            lambda t: torch.nn.functional.interpolate(t, scale_factor=2.5, mode=mode), x)


def test_pixel_shuffle_roundtrip(torch):
    compare(torch, lambda t: F.pixel_shuffle(t, 2), lambda t: torch.nn.functional.pixel_shuffle(
        t, 2), R.normal(size=(2, 8, 3, 4)))
    compare(torch, lambda t: F.pixel_unshuffle(t, 2),
            lambda t: torch.nn.functional.pixel_unshuffle(t, 2), R.normal(size=(2, 2, 4, 6)))


ERRORS = [
    ("conv2d", lambda m: m.nn.functional.conv2d(m.randn(2, 5, 7, 7), m.randn(4, 3, 3, 3))),
    ("conv2d", lambda m: m.nn.functional.conv2d(m.randn(7, 7), m.randn(4, 3, 3, 3))),
    ("conv2d", lambda m: m.nn.functional.conv2d(m.randn(2, 5, 7, 7).double(),
                                                m.randn(4, 5, 3, 3))),
    ("conv2d", lambda m: m.nn.functional.conv2d(m.randn(2, 5, 7, 7), m.randn(4, 5, 3, 3),
                                                m.randn(4).double())),
    ("conv2d", lambda m: m.nn.functional.conv2d(m.randn(2, 5, 7, 7), m.randn(4, 5, 3, 3),
                                                m.randn(3))),
    ("conv2d", lambda m: m.nn.functional.conv2d(m.randn(2, 5, 7, 7), m.randn(4, 5, 3, 3),
                                                stride=2, padding="same")),
    ("conv2d", lambda m: m.nn.functional.conv2d(m.randn(2, 5, 7, 7), m.randn(4, 5, 9, 3))),
    ("conv2d", lambda m: m.nn.functional.conv2d(m.randn(2, 5, 7, 7), m.randn(4, 5, 3, 3),
                                                padding="foo")),
    ("conv2d", lambda m: m.nn.functional.conv2d(m.randn(2, 5, 7, 7), m.randn(4, 5, 3, 3),
                                                groups=2)),
    ("conv2d", lambda m: m.nn.functional.conv2d(m.randn(2, 5, 7, 7), m.randn(4, 5, 3, 3),
                                                stride=0)),
    ("conv2d", lambda m: m.nn.functional.conv2d(m.randn(2, 5, 7, 7), m.randn(4, 5, 3, 3),
                                                padding=-1)),
    ("max_pool2d", lambda m: m.nn.functional.max_pool2d(m.randn(2, 5, 7, 7), 2, padding=2)),
    ("max_pool2d", lambda m: m.nn.functional.max_pool2d(m.randn(2, 5, 7, 7), 9)),
    ("max_pool2d", lambda m: m.nn.functional.max_pool2d(m.randn(7, 7), 2)),
    ("avg_pool2d", lambda m: m.nn.functional.avg_pool2d(m.randn(2, 5, 7, 7), 2, padding=2)),
    ("pad", lambda m: m.nn.functional.pad(m.randn(2, 3, 4, 4), (1, 1), mode="reflect")),
    ("pad", lambda m: m.nn.functional.pad(m.randn(2, 3, 4, 4), (1,))),
    ("pad", lambda m: m.nn.functional.pad(m.randn(2, 3, 4, 4), (4, 0, 0, 0), mode="reflect")),
    ("Conv2d", lambda m: m.nn.Conv2d(5, 4, 3, groups=2)),
    ("Conv2d", lambda m: m.nn.Conv2d(4, 6, 3, groups=4)),
    ("Conv2d", lambda m: m.nn.Conv2d(4, 4, 3, padding_mode="foo")),
    ("Conv2d", lambda m: m.nn.Conv2d(4, 4, 3, padding="same", stride=2)),
    ("Conv2d", lambda m: m.nn.Conv2d(4, 4, 3, padding="full")),
    ("unfold", lambda m: m.nn.functional.unfold(m.randn(2, 3, 4, 5, 6), 2)),
    ("fold", lambda m: m.nn.functional.fold(m.randn(1, 12, 7), (4, 5), 2)),
    ("pixel_shuffle", lambda m: m.nn.functional.pixel_shuffle(m.randn(1, 6, 2, 2), 2)),
    ("interpolate", lambda m: m.nn.functional.interpolate(m.randn(1, 2, 3, 3))),
]


@pytest.mark.parametrize("name,call", ERRORS, ids=[f"{e[0]}-{i}" for i, e in enumerate(ERRORS)])
def test_errors_match_pytorch(torch, name, call):
    with pytest.raises(Exception) as want:
        call(torch)
    with pytest.raises(type(want.value)) as got:
        call(tt)
    assert _sets_sorted(str(got.value)) == _sets_sorted(str(want.value))


def _sets_sorted(message):
    """``message`` with the items of each printed set sorted: a set literal's order
    comes from the hash seed of the process that compiled the module (its frozenset
    constant), so PyTorch's and tracegrad's can differ."""
    return re.sub(r"\{([^{}]*)\}", lambda m: "{" + ", ".join(
        sorted(v.strip() for v in m.group(1).split(","))) + "}", message)


MODULES = [
    ("Conv2d", (4, 6, 3), dict(stride=2, padding=1, groups=2, bias=False), (2, 4, 9, 8)),
    ("Conv2d", (4, 6, (3, 2)), dict(padding="same", padding_mode="reflect", dilation=2),
     (2, 4, 9, 8)),
    ("Conv2d", (4, 6, 3), dict(padding=2, padding_mode="circular"), (2, 4, 9, 8)),
    ("Conv2d", (4, 6, 3), dict(padding=1, padding_mode="replicate"), (4, 9, 8)),
    ("Conv1d", (3, 5, 4), dict(stride=2), (2, 3, 10)),
    ("Conv3d", (2, 3, 2), dict(), (1, 2, 4, 5, 3)),
    ("ConvTranspose2d", (4, 6, 3), dict(stride=2, padding=1, output_padding=1, groups=2),
     (2, 4, 5, 4)),
    ("ConvTranspose1d", (3, 2, 3), dict(stride=2), (2, 3, 5)),
    ("MaxPool2d", (3,), dict(stride=2, padding=1, ceil_mode=True), (2, 3, 9, 8)),
    ("AvgPool2d", (3, 2, 1), dict(count_include_pad=False), (2, 3, 9, 8)),
    ("AdaptiveAvgPool2d", ((3, 4),), {}, (2, 3, 9, 8)),
    ("AdaptiveMaxPool2d", (3,), {}, (2, 3, 9, 8)),
    ("MaxPool1d", (2,), {}, (2, 3, 9)), ("AvgPool1d", (3,), {}, (2, 3, 9)),
    ("AdaptiveAvgPool1d", (4,), {}, (2, 3, 9)),
    ("ZeroPad2d", ((1, 2, 0, 1),), {}, (2, 3, 4, 4)), ("ReflectionPad2d", (1,), {}, (2, 3, 4, 4)),
    ("ReplicationPad1d", (2,), {}, (2, 3, 4)), ("CircularPad2d", (1,), {}, (2, 3, 4, 4)),
    ("ConstantPad1d", (2, 3.5), {}, (2, 3, 4)),
    ("Upsample", (), dict(scale_factor=2, mode="bilinear"), (2, 3, 4, 4)),
    ("UpsamplingNearest2d", (), dict(scale_factor=2), (2, 3, 4, 4)),
    ("PixelShuffle", (2,), {}, (1, 8, 2, 3)), ("PixelUnshuffle", (2,), {}, (1, 2, 4, 6)),
    ("Unfold", (2,), {}, (2, 3, 4, 4)), ("Fold", ((4, 5), 2), {}, (2, 12, 12)),
    ("LPPool2d", (2, 2), {}, (2, 3, 4, 4)),
]


@pytest.mark.parametrize("name,args,kw,shape", MODULES,
                         ids=[f"{m[0]}-{i}" for i, m in enumerate(MODULES)])
def test_modules(torch, name, args, kw, shape):
    mt = getattr(torch.nn, name)(*args, **kw).double()
    ma = getattr(tt.nn, name)(*args, **kw).double()
    assert repr(ma) == repr(mt)
    sdt, sda = mt.state_dict(), ma.state_dict()
    assert list(sda) == list(sdt)
    assert [tuple(v.shape) for v in sda.values()] == [tuple(v.shape) for v in sdt.values()]
    ma.load_state_dict({k: tt.tensor(v.numpy()) for k, v in sdt.items()})
    x = R.normal(size=shape)
    if name == "LPPool2d":
        x = np.abs(x) + 0.1
    xt, xa = torch.tensor(x, requires_grad=True), tt.tensor(x, requires_grad=True)
    yt, ya = mt(xt), ma(xa)
    g = R.normal(size=tuple(yt.shape))
    yt.backward(torch.tensor(g))
    ya.backward(tt.tensor(g))
    np.testing.assert_allclose(ya.detach().numpy(), yt.detach().numpy(), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(xa.grad.numpy(), xt.grad.numpy(), rtol=1e-12, atol=1e-12)
    for p, q in zip(ma.parameters(), mt.parameters()):
        np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(), rtol=1e-11, atol=1e-11)


def test_conv_transpose_output_size(torch):
    w = R.normal(size=(3, 2, 3, 3))
    for lib in (tt, torch):
        m = lib.nn.ConvTranspose2d(3, 2, 3, stride=2)
        with lib.no_grad():
            m.weight.copy_(lib.tensor(w, dtype=lib.float32))
    x = R.normal(size=(1, 3, 4, 4)).astype(np.float32)
    a = tt.nn.ConvTranspose2d(3, 2, 3, stride=2)
    b = torch.nn.ConvTranspose2d(3, 2, 3, stride=2)
    assert tuple(a(tt.tensor(x), output_size=(10, 10)).shape) == tuple(
        b(torch.tensor(x), output_size=(10, 10)).shape) == (1, 2, 10, 10)


def test_conv_default_initialization():
    tt.manual_seed(0)
    c = tt.nn.Conv2d(16, 32, 5)
    bound = 1 / math.sqrt(16 * 25)
    w, b = c.weight.detach().numpy(), c.bias.detach().numpy()
    assert c.weight.dtype == tt.float32 and tuple(c.weight.shape) == (32, 16, 5, 5)
    assert w.min() >= -bound and w.max() <= bound and np.abs(b).max() <= bound
    assert abs(w.std() - bound / math.sqrt(3)) < 0.02 * bound  # U(-b, b) has std b / sqrt(3)
    t = tt.nn.ConvTranspose2d(8, 6, 3, groups=2)
    assert tuple(t.weight.shape) == (8, 3, 3, 3)
    assert np.abs(t.weight.detach().numpy()).max() <= 1 / math.sqrt(3 * 9)


def test_channel_dropout():
    tt.manual_seed(0)
    y = tt.nn.Dropout2d(0.5)(tt.ones(4, 8, 3, 3)).numpy()
    assert set(np.unique(y)) <= {0.0, 2.0} and np.all(y.std(axis=(2, 3)) == 0)
    assert 0 < (y == 0).mean() < 1
    m = tt.nn.Dropout1d(0.3).eval()
    x = tt.randn(2, 3, 5)
    assert m(x) is x
    with pytest.raises(ValueError, match="between 0 and 1"):
        tt.nn.Dropout3d(1.5)
    tt.manual_seed(1)
    x = tt.randn(20000, dtype=tt.float64)
    z = F.alpha_dropout(x, 0.2, training=True).numpy()  # keeps mean 0 and variance 1
    assert abs(z.mean()) < 0.05 and abs(z.var() - 1) < 0.05


def test_conv_second_derivative_and_torch_func():
    x = tt.tensor(R.normal(size=(2, 3, 6, 5)), requires_grad=True)
    w = tt.tensor(R.normal(size=(4, 3, 3, 2)), requires_grad=True)
    assert tt.autograd.gradcheck(lambda a, b: F.conv2d(a, b, stride=2, padding=1), (x, w))
    assert tt.autograd.gradgradcheck(lambda a, b: F.conv2d(a, b, padding=(1, 0)), (x, w))
    assert tt.autograd.gradgradcheck(lambda a: F.max_pool2d(a * a, 2), (x,))
    # per-example gradients through a convolution: vmap(grad) against a loop
    xs = R.normal(size=(3, 1, 3, 6, 5))

    def loss(wt, xi):
        return F.conv2d(xi, wt).square().sum()

    per = tt.func.vmap(tt.func.grad(loss), in_dims=(None, 0))(w.detach(), tt.tensor(xs))
    for i in range(3):
        one = tt.func.grad(loss)(w.detach(), tt.tensor(xs[i]))
        np.testing.assert_allclose(per[i].numpy(), one.numpy(), rtol=1e-12)


@pytest.mark.parametrize("seed", range(4))
def test_window_kernels_match_the_numpy_path(seed, monkeypatch):
    r = np.random.default_rng(seed)
    for _ in range(40):
        n = int(r.integers(1, 3))
        spatial = tuple(int(v) for v in r.integers(1, 8, n))
        kw = dict(kernel_size=tuple(int(v) for v in r.integers(1, 4, n)),
                  stride=tuple(int(v) for v in r.integers(1, 4, n)),
                  padding=tuple((int(a), int(b)) for a, b in r.integers(0, 4, (n, 2))),
                  dilation=tuple(int(v) for v in r.integers(1, 3, n)))
        if 0 in pconv.conv_output_shape(spatial, **kw):
            continue
        x = r.normal(size=(2, 3) + spatial)
        cols = pconv._im2col_impl(x, pad_value=-np.inf, **kw)
        ct = r.normal(size=cols.shape)
        image = pconv._col2im_impl(ct, spatial=spatial, **kw)
        with monkeypatch.context() as m:
            m.setattr(pconv, "_kernel_ok", lambda a, nd: False)
            np.testing.assert_array_equal(cols, pconv._im2col_impl(x, pad_value=-np.inf, **kw))
            np.testing.assert_allclose(image, pconv._col2im_impl(ct, spatial=spatial, **kw),
                                       rtol=1e-13, atol=1e-13)


def test_edge_cases_found_by_review(torch):
    """All--inf windows touching padding pick an input element; an axis whose size
    does not change is copied whatever the scale; circular padding with a
    negative side crops first (each as PyTorch 2.13)."""
    inf = float("inf")
    x = np.full((1, 1, 3, 3), -inf)
    compare(torch, lambda t: F.max_pool2d(t, 3, stride=1, padding=1, return_indices=True),
            lambda t: torch.nn.functional.max_pool2d(t, 3, stride=1, padding=1,
                                                     return_indices=True), x)
    compare(torch, lambda t: F.max_pool1d(t, 2, padding=1, return_indices=True),
            lambda t: torch.nn.functional.max_pool1d(t, 2, padding=1, return_indices=True),
            np.array([[[-inf, -inf, 1.0]]]))
    line = np.arange(5.0).reshape(1, 1, 5)
    compare(torch, lambda t: F.interpolate(t, scale_factor=1.1, mode="linear"),
            lambda t: torch.nn.functional.interpolate(t, scale_factor=1.1, mode="linear"), line)
    compare(torch, lambda t: F.interpolate(t, scale_factor=(1.1, 2), mode="bilinear"),
            lambda t: torch.nn.functional.interpolate(t, scale_factor=(1.1, 2), mode="bilinear"),
            R.normal(size=(1, 2, 5, 5)))
    for pad in [(-1, 2), (2, -1), (-2, -1), (3, 3)]:
        compare(torch, lambda t: F.pad(t, pad, mode="circular"),
                lambda t: torch.nn.functional.pad(t, pad, mode="circular"), line, names=False)
