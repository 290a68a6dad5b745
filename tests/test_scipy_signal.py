"""tracegrad.scipy.signal and tracegrad.scipy.integrate against SciPy (values),
finite differences and JAX (derivatives), vmap and jit."""
import numpy as np
import pytest

import tracegrad as tg
import tracegrad.numpy as tnp
import tracegrad.scipy.integrate as tsi
import tracegrad.scipy.signal as tss
from tracegrad.test_util import check_grads

ss = pytest.importorskip("scipy.signal")
si = pytest.importorskip("scipy.integrate")

MODES = ("full", "same", "valid")
SHAPES = [((7,), (3,)), ((3,), (7,)), ((5,), (5,)), ((6,), (4,)), ((1,), (4,)),
          ((4, 5), (2, 3)), ((2, 3), (4, 5)), ((4, 6), (3, 2)), ((3, 4, 2), (2, 2, 2)),
          ((5, 1), (2, 3))]


def _data(rng, shape, cplx=False):
    x = rng.standard_normal(shape)
    return x + 1j * rng.standard_normal(shape) if cplx else x


def _scipy(fn, *args, **kw):
    try:
        return fn(*args, **kw)
    except ValueError as e:
        return e


def _same(got, want, tol=1e-12):
    if isinstance(want, Exception):
        assert isinstance(got, type(want))
        return
    got = np.asarray(got)
    assert got.shape == want.shape and got.dtype == want.dtype, (got.shape, got.dtype, want.dtype)
    scale = max(1.0, np.abs(want).max(initial=0))
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol * scale)


@pytest.mark.parametrize("s1, s2", SHAPES)
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("cplx", [False, True])
@pytest.mark.parametrize("name", ["convolve", "correlate"])
def test_convolve_correlate_match_scipy(name, cplx, mode, s1, s2):
    rng = np.random.default_rng(hash((s1, s2)) % 2**32)
    a, b = _data(rng, s1, cplx), _data(rng, s2, cplx)
    for method in ("direct", "fft", "auto"):
        want = _scipy(getattr(ss, name), a, b, mode, method)
        try:
            got = getattr(tss, name)(a, b, mode, method)
        except ValueError as e:
            got = e
        _same(got, want)


@pytest.mark.parametrize("s1, s2", SHAPES)
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("cplx", [False, True])
def test_fftconvolve_matches_scipy(cplx, mode, s1, s2):
    rng = np.random.default_rng(1)
    a, b = _data(rng, s1, cplx), _data(rng, s2, cplx)
    want = _scipy(ss.fftconvolve, a, b, mode)
    try:
        got = tss.fftconvolve(a, b, mode)
    except ValueError as e:
        got = e
    _same(got, want)


@pytest.mark.parametrize("axes", [0, 1, [0], [1, 2], -1, (0, 2)])
@pytest.mark.parametrize("mode", MODES)
def test_fftconvolve_axes_broadcast(axes, mode):
    rng = np.random.default_rng(2)
    a, b = rng.standard_normal((4, 3, 5)), rng.standard_normal((2, 3, 1))
    want = _scipy(ss.fftconvolve, a, b, mode, axes)
    try:
        got = tss.fftconvolve(a, b, mode, axes)
    except ValueError as e:
        got = e
    _same(got, want)
    with pytest.raises(ValueError, match="incompatible shapes"):
        tss.fftconvolve(a, rng.standard_normal((2, 2, 5)), mode, axes=0)
    with pytest.raises(ValueError, match="cannot be empty"):
        tss.fftconvolve(a, b, mode, axes=[])


@pytest.mark.parametrize("s1, s2", [((4, 5), (2, 3)), ((2, 3), (4, 5)), ((4, 6), (3, 2)),
                                    ((3, 3), (3, 3)), ((2, 2), (5, 4)), ((5, 4), (4, 1))])
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("boundary", ["fill", "wrap", "symm"])
@pytest.mark.parametrize("cplx", [False, True])
def test_convolve2d_correlate2d_match_scipy(cplx, boundary, mode, s1, s2):
    rng = np.random.default_rng(3)
    a, b = _data(rng, s1, cplx), _data(rng, s2, cplx)
    for fv in (0, 1.5, -2 + 0.5j if cplx else -2.0):
        for name in ("convolve2d", "correlate2d"):
            want = _scipy(getattr(ss, name), a, b, mode, boundary, fv)
            try:
                got = getattr(tss, name)(a, b, mode, boundary, fv)
            except ValueError as e:
                got = e
            _same(got, want)


def test_integer_and_edge_cases():
    a, b = np.arange(6), np.array([1, 2, 3])
    for method in ("direct", "fft", "auto"):
        for fn in ("convolve", "correlate"):
            got, want = getattr(tss, fn)(a, b, method=method), getattr(ss, fn)(a, b, method=method)
            assert got.dtype == want.dtype
            np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(tss.convolve2d(a.reshape(2, 3), b[None]),
                                  ss.convolve2d(a.reshape(2, 3), b[None]))
    assert tss.convolve(np.float64(2.0), np.float64(3.0)) == 6.0
    assert tss.convolve(np.zeros(0), np.ones(3)).shape == (0,)
    assert tss.fftconvolve(np.zeros(0), np.ones(3)).shape == (0,)
    with pytest.raises(ValueError, match="same dimensionality"):
        tss.convolve(np.ones(3), np.ones((2, 2)))
    with pytest.raises(ValueError, match="mode"):
        tss.convolve(np.ones(3), np.ones(2), mode="bogus")
    with pytest.raises(ValueError, match="method"):
        tss.convolve(np.ones(3), np.ones(2), method="bogus")
    with pytest.raises(ValueError, match="at least as large"):
        tss.convolve(np.ones((2, 5)), np.ones((3, 3)), mode="valid")
    with pytest.raises(ValueError, match="2-D"):
        tss.convolve2d(np.ones(3), np.ones(2))
    with pytest.raises(ValueError, match="boundary"):
        tss.convolve2d(np.ones((3, 3)), np.ones((2, 2)), boundary="reflect")
    with pytest.raises(ValueError, match="fillvalue"):
        tss.convolve2d(np.ones((3, 3)), np.ones((2, 2)), fillvalue=[1, 2])
    # NaN and infinities propagate as in SciPy's direct method
    x = np.array([1.0, np.nan, 2.0, np.inf])
    np.testing.assert_array_equal(tss.convolve(x, [1.0, 0.5], method="direct"),
                                  ss.convolve(x, [1.0, 0.5], method="direct"))


def test_float32_stays_float32():
    rng = np.random.default_rng(4)
    a, b = rng.standard_normal(9).astype(np.float32), rng.standard_normal(4).astype(np.float32)
    for method in ("direct", "fft"):
        got = tss.convolve(a, b, method=method)
        assert got.dtype == np.float32
        np.testing.assert_allclose(got, ss.convolve(a, b, method=method), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("type_", ["linear", "constant", "l", "c"])
@pytest.mark.parametrize("bp", [0, [5, 12], [0, 20], [7], [19]])
@pytest.mark.parametrize("axis", [0, -1])
@pytest.mark.parametrize("dtype", [np.float64, np.complex128, np.int64])
def test_detrend_matches_scipy(dtype, axis, bp, type_):
    rng = np.random.default_rng(5)
    x = (rng.standard_normal((20, 20)) * 10).astype(dtype) if dtype != np.complex128 else \
        _data(rng, (20, 20), True)
    x = x[:, :3] if axis == 0 else x[:3]
    got, want = tss.detrend(x, axis, type_, bp), ss.detrend(x, axis, type_, bp)
    _same(got, want, tol=1e-13)


def test_detrend_errors_and_float32():
    with pytest.raises(ValueError, match="Trend type"):
        tss.detrend(np.ones(4), type="quadratic")
    with pytest.raises(ValueError, match="Breakpoints"):
        tss.detrend(np.ones(4), bp=[7])
    x = np.linspace(0, 1, 7).astype(np.float32) ** 2
    got = tss.detrend(x)
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, ss.detrend(x), atol=1e-6)
    np.testing.assert_allclose(tss.detrend(3.0 * np.arange(5) - 1.0), 0.0, atol=1e-14)


GRAD_CASES = [
    ("convolve", (6,), (3,), {"mode": "full"}),
    ("convolve", (3, 4), (2, 2), {"mode": "same"}),
    ("convolve", (2, 5), (2, 3), {"mode": "valid"}),
    ("convolve", (5,), (4,), {"mode": "same", "method": "fft"}),
    ("correlate", (6,), (4,), {"mode": "full"}),
    ("correlate", (3, 4), (2, 3), {"mode": "valid", "method": "fft"}),
    ("fftconvolve", (3, 4), (2, 2), {"mode": "same"}),
    ("fftconvolve", (3, 4), (1, 3), {"mode": "full", "axes": 1}),
    ("convolve2d", (3, 4), (2, 2), {"mode": "same", "boundary": "fill", "fillvalue": 0.5}),
    ("convolve2d", (3, 3), (2, 2), {"mode": "full", "boundary": "wrap"}),
    ("correlate2d", (3, 4), (2, 3), {"mode": "same", "boundary": "symm"}),
    ("correlate2d", (2, 2), (3, 3), {"mode": "valid"}),
]


@pytest.mark.parametrize("name, s1, s2, kw", GRAD_CASES)
@pytest.mark.parametrize("cplx", [False, True])
def test_signal_gradients(name, s1, s2, kw, cplx):
    rng = np.random.default_rng(6)
    a, b = _data(rng, s1, cplx), _data(rng, s2, cplx)
    fn = getattr(tss, name)
    check_grads(lambda x, y: fn(x, y, **kw), (a, b), order=2, modes=("fwd", "rev"))


def test_fillvalue_and_detrend_gradients():
    rng = np.random.default_rng(7)
    a, b = rng.standard_normal((3, 3)), rng.standard_normal((2, 2))
    check_grads(lambda x, y, f: tss.convolve2d(x, y, "full", fillvalue=f), (a, b, 0.7), order=2)
    check_grads(lambda x: tss.detrend(x, bp=[3]), (rng.standard_normal((2, 7)),), order=2)
    check_grads(lambda x: tss.detrend(x, axis=0, type="constant"),
                (rng.standard_normal((4, 2)),), order=2)
    # convolution is bilinear: the gradient in in1 of <w, conv(in1, in2)> is a correlation
    w = rng.standard_normal(7)
    g = tg.grad(lambda x: tnp.sum(w * tss.convolve(x, b[0][:2].repeat(2))))(rng.standard_normal(4))
    np.testing.assert_allclose(g, ss.correlate(w, b[0][:2].repeat(2), "valid"), atol=1e-14)


def test_vmap_and_jit():
    rng = np.random.default_rng(8)
    a, b = rng.standard_normal((3, 6)), rng.standard_normal((3, 4))
    for fn in (lambda x, y: tss.convolve(x, y, "same"),
               lambda x, y: tss.correlate(x, y, "valid", "fft"),
               lambda x, y: tss.fftconvolve(x, y)):
        want = np.stack([np.asarray(fn(x, y)) for x, y in zip(a, b)])
        np.testing.assert_allclose(tg.vmap(fn)(a, b), want, atol=1e-13)
        np.testing.assert_allclose(tg.vmap(fn, in_axes=(0, None))(a, b[0]),
                                   np.stack([np.asarray(fn(x, b[0])) for x in a]), atol=1e-13)
        np.testing.assert_allclose(tg.jit(fn)(a[0], b[0]), fn(a[0], b[0]), atol=1e-13)
        gj = tg.jit(tg.grad(lambda x, y: tnp.sum(fn(x, y) ** 2)))(a[0], b[0])
        g = tg.grad(lambda x, y: tnp.sum(fn(x, y) ** 2))(a[0], b[0])
        np.testing.assert_allclose(gj, g, atol=1e-12)
    m = rng.standard_normal((2, 4, 4))
    k = rng.standard_normal((2, 2))
    np.testing.assert_allclose(tg.vmap(lambda x: tss.convolve2d(x, k, "same", "wrap"))(m),
                               np.stack([ss.convolve2d(x, k, "same", "wrap") for x in m]),
                               atol=1e-13)
    np.testing.assert_allclose(tg.jit(lambda x: tss.detrend(x, bp=[2]))(m[0]),
                               ss.detrend(m[0], bp=[2]), atol=1e-13)


# ------------------------------------------------------------------ integrate

@pytest.mark.parametrize("shape, axis", [((7,), -1), ((4, 5), 0), ((4, 5), 1), ((2, 3, 4), 1),
                                         ((1,), 0), ((3, 1), 1)])
def test_trapezoid_matches_scipy(shape, axis):
    rng = np.random.default_rng(9)
    y = rng.standard_normal(shape)
    n = shape[axis]
    x1 = np.sort(rng.standard_normal(n))
    xf = np.sort(rng.standard_normal(shape), axis=axis)
    for kw in ({}, {"dx": 0.3}, {"x": x1}, {"x": xf}):
        _same(tsi.trapezoid(y, axis=axis, **kw), np.asarray(si.trapezoid(y, axis=axis, **kw)),
              tol=1e-14)
        for initial in (None, 0):
            _same(tsi.cumulative_trapezoid(y, axis=axis, initial=initial, **kw),
                  si.cumulative_trapezoid(y, axis=axis, initial=initial, **kw), tol=1e-14)
    yc = y + 1j * rng.standard_normal(shape)
    _same(tsi.trapezoid(yc, x1, axis=axis), np.asarray(si.trapezoid(yc, x1, axis=axis)),
          tol=1e-14)
    _same(tsi.trapezoid(np.arange(n), axis=0) if len(shape) == 1 else np.float64(0.0),
          np.asarray(si.trapezoid(np.arange(n), axis=0)) if len(shape) == 1 else np.float64(0.0))


def test_integrate_errors_and_gradients():
    rng = np.random.default_rng(10)
    with pytest.raises(ValueError, match="At least one point"):
        tsi.cumulative_trapezoid(np.zeros((3, 0)))
    with pytest.raises(ValueError, match="initial"):
        tsi.cumulative_trapezoid(np.ones(3), initial=1.0)
    with pytest.raises(ValueError, match="length of x"):
        tsi.trapezoid(np.ones(3), x=np.ones(4))
    y, x = rng.standard_normal((3, 5)), np.sort(rng.standard_normal(5))
    check_grads(lambda y, x: tsi.trapezoid(y, x), (y, x), order=2)
    check_grads(lambda y, x: tsi.trapezoid(y, x, axis=0), (y, np.sort(y, axis=0)), order=2)
    check_grads(lambda y, d: tsi.trapezoid(y, dx=d, axis=0), (y, 0.4), order=2)
    check_grads(lambda y, x: tsi.cumulative_trapezoid(y, x, initial=0), (y, x), order=2)
    f = tg.vmap(lambda r: tsi.cumulative_trapezoid(r, x))
    np.testing.assert_allclose(f(y), si.cumulative_trapezoid(y, x), atol=1e-14)
    np.testing.assert_allclose(tg.jit(lambda r: tsi.trapezoid(r, x))(y), si.trapezoid(y, x),
                               atol=1e-14)


# ------------------------------------------------------------------ JAX

def test_derivatives_match_jax():
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    jss = pytest.importorskip("jax.scipy.signal")
    jsi = pytest.importorskip("jax.scipy.integrate")
    rng = np.random.default_rng(11)
    a, b = rng.standard_normal((4, 5)), rng.standard_normal((2, 3))
    w = rng.standard_normal((4, 5))
    cases = [("convolve", {"mode": "same"}), ("correlate", {"mode": "full"}),
             ("fftconvolve", {"mode": "valid"}), ("convolve2d", {"mode": "same"}),
             ("correlate2d", {"mode": "full"})]
    for name, kw in cases:
        def loss(mod, x, y, name=name, kw=kw):
            out = getattr(mod, name)(x, y, **kw)
            return (out ** 2).sum() * 0.5
        gt = tg.grad(lambda x, y: loss(tss, x, y), argnums=(0, 1))(a, b)
        gj = jax.grad(lambda x, y: loss(jss, x, y), argnums=(0, 1))(a, b)
        for p, q in zip(gt, gj):
            np.testing.assert_allclose(p, np.asarray(q), rtol=1e-10, atol=1e-10)
    gt = tg.grad(lambda x: tnp.sum(w[0] * tss.detrend(x)))(w[1])
    gj = jax.grad(lambda x: (w[0] * jss.detrend(x)).sum())(w[1])
    np.testing.assert_allclose(gt, np.asarray(gj), atol=1e-12)
    x = np.sort(rng.standard_normal(5))
    gt = tg.grad(lambda y, x: tnp.sum(tsi.trapezoid(y, x) ** 2), argnums=(0, 1))(w, x)
    gj = jax.grad(lambda y, x: (jsi.trapezoid(y, x) ** 2).sum(), argnums=(0, 1))(w, x)
    for p, q in zip(gt, gj):
        np.testing.assert_allclose(p, np.asarray(q), atol=1e-12)


# ------------------------------------------------------------------ spectral

SPECTRAL_KW = [{}, {"nperseg": 16}, {"nperseg": 16, "noverlap": 4, "nfft": 20},
               {"nperseg": 15, "detrend": "linear"},
               {"nperseg": 16, "detrend": False, "scaling": "spectrum"},
               {"nperseg": 16, "average": "median"}, {"window": np.hamming(10)},
               {"nperseg": 16, "return_onesided": False},
               {"window": ("tukey", 0.3), "nperseg": 12, "fs": 3.0}]


def _same_tuple(got, want, tol=1e-12):
    assert len(got) == len(want)
    for g, w in zip(got, want):
        _same(g, np.asarray(w), tol)


@pytest.mark.filterwarnings("ignore")  # SciPy's: nperseg shortened to the signal
@pytest.mark.parametrize("kw", SPECTRAL_KW)
def test_welch_csd_match_scipy(kw):
    rng = np.random.default_rng(12)
    x, y = rng.standard_normal((3, 64)), rng.standard_normal((3, 50))
    xc = x + 1j * rng.standard_normal(x.shape)
    _same_tuple(tss.welch(x, **kw), ss.welch(x, **kw))
    _same_tuple(tss.welch(x.T, axis=0, **kw), ss.welch(x.T, axis=0, **kw))
    _same_tuple(tss.csd(x, y, **kw), ss.csd(x, y, **kw))
    _same_tuple(tss.csd(xc, x, **kw), ss.csd(xc, x, **kw))


@pytest.mark.filterwarnings("ignore")  # SciPy's: complex input made two-sided
@pytest.mark.parametrize("kw", [k for k in SPECTRAL_KW if "average" not in k])
@pytest.mark.parametrize("boundary", ["zeros", "even", "odd", "constant", None])
@pytest.mark.parametrize("padded", [True, False])
def test_stft_matches_scipy(kw, boundary, padded):
    kw = dict(kw)
    if isinstance(kw.get("window"), np.ndarray):
        kw["nperseg"] = len(kw["window"])
    if "scaling" in kw:
        kw["scaling"] = "psd"
    rng = np.random.default_rng(13)
    x = rng.standard_normal((3, 64))
    _same_tuple(tss.stft(x, boundary=boundary, padded=padded, **kw),
                ss.stft(x, boundary=boundary, padded=padded, **kw))
    _same_tuple(tss.stft(x.T, axis=0, boundary=boundary, padded=padded, **kw),
                ss.stft(x.T, axis=0, boundary=boundary, padded=padded, **kw))
    xc = x + 1j * rng.standard_normal(x.shape)
    _same_tuple(tss.stft(xc, boundary=boundary, padded=padded, **kw),
                ss.stft(xc, boundary=boundary, padded=padded, **kw))


def test_default_window_is_scipys_periodic_hann():
    for n in (1, 2, 7, 16, 256):
        np.testing.assert_allclose(tss._window("hann", n, 300, "welch")[0], ss.get_window("hann", n),
                                   atol=1e-15)


def test_spectral_errors():
    x = np.ones(32)
    with pytest.raises(ValueError, match="noverlap"):
        tss.welch(x, nperseg=8, noverlap=8)
    with pytest.raises(ValueError, match="nfft"):
        tss.welch(x, nperseg=8, nfft=4)
    with pytest.raises(ValueError, match="scaling"):
        tss.welch(x, nperseg=8, scaling="power")
    with pytest.raises(ValueError, match="average"):
        tss.welch(x, nperseg=8, average="mode")
    with pytest.raises(ValueError, match="boundary"):
        tss.stft(x, nperseg=8, boundary="wrap")
    with pytest.raises(ValueError, match="nperseg"):
        tss.stft(x, window=np.hanning(8))  # nperseg=256 by default


def test_spectral_gradients_vmap_jit():
    rng = np.random.default_rng(14)
    x, y = rng.standard_normal(24), rng.standard_normal(24)
    check_grads(lambda v: tss.welch(v, nperseg=8)[1], (x,), order=2)
    check_grads(lambda v: tss.welch(v, nperseg=8, average="median")[1], (x,), order=1)
    check_grads(lambda u, v: tss.csd(u, v, nperseg=8, detrend="linear")[1], (x, y), order=2)
    check_grads(lambda v: tss.stft(v, nperseg=8, boundary="odd")[2], (x,), order=2)
    check_grads(lambda v: tss.stft(v, nperseg=8)[2], (x + 1j * y,), order=2)
    xs = rng.standard_normal((3, 24))
    f = lambda v: tss.welch(v, nperseg=8)[1]  # noqa: E731
    np.testing.assert_allclose(tg.vmap(f)(xs), ss.welch(xs, nperseg=8)[1], atol=1e-13)
    np.testing.assert_allclose(tg.jit(f)(x), ss.welch(x, nperseg=8)[1], atol=1e-13)
    g = tg.jit(tg.grad(lambda v: tnp.sum(tnp.abs(tss.stft(v, nperseg=8)[2]) ** 2)))(x)
    g0 = tg.grad(lambda v: tnp.sum(tnp.abs(tss.stft(v, nperseg=8)[2]) ** 2))(x)
    np.testing.assert_allclose(g, g0, atol=1e-12)


def test_spectral_derivatives_match_jax():
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    jss = pytest.importorskip("jax.scipy.signal")
    rng = np.random.default_rng(15)
    x, y, w = rng.standard_normal(32), rng.standard_normal(32), rng.standard_normal(5)
    gt = tg.grad(lambda v: tnp.sum(w * tss.welch(v, nperseg=8)[1]))(x)
    gj = jax.grad(lambda v: (w * jss.welch(v, nperseg=8)[1]).sum())(x)
    np.testing.assert_allclose(gt, np.asarray(gj), rtol=1e-10, atol=1e-12)
    gt = tg.grad(lambda u, v: tnp.sum(tnp.real(tss.csd(u, v, nperseg=8)[1]) * w),
                 argnums=(0, 1))(x, y)
    gj = jax.grad(lambda u, v: (jss.csd(u, v, nperseg=8)[1].real * w).sum(), argnums=(0, 1))(x, y)
    for p, q in zip(gt, gj):
        np.testing.assert_allclose(p, np.asarray(q), rtol=1e-10, atol=1e-12)
    gt = tg.grad(lambda v: tnp.sum(tnp.abs(tss.stft(v, nperseg=8)[2]) ** 2))(x)
    gj = jax.grad(lambda v: (abs(jss.stft(v, nperseg=8)[2]) ** 2).sum())(x)
    np.testing.assert_allclose(gt, np.asarray(gj), rtol=1e-10, atol=1e-12)


ISTFT_KW = [{"nperseg": 16}, {"nperseg": 16, "noverlap": 12}, {"nperseg": 15},
            {"nperseg": 16, "nfft": 20}, {"nperseg": 16, "scaling": "psd", "fs": 2.0},
            {"window": ("tukey", 0.5), "nperseg": 12}, {"window": np.hamming(8)}]


@pytest.mark.filterwarnings("ignore")  # SciPy's NOLA warning without a boundary
@pytest.mark.parametrize("kw", ISTFT_KW)
@pytest.mark.parametrize("boundary", [True, False])
@pytest.mark.parametrize("onesided", [True, False])
def test_istft_matches_scipy(kw, boundary, onesided):
    kw = dict(kw)
    if isinstance(kw.get("window"), np.ndarray):
        kw["nperseg"] = len(kw["window"])
    rng = np.random.default_rng(16)
    x = rng.standard_normal((3, 64))
    _, _, z = ss.stft(x, boundary="zeros" if boundary else None, return_onesided=onesided, **kw)
    _same_tuple(tss.istft(z, boundary=boundary, input_onesided=onesided, **kw),
                ss.istft(z, boundary=boundary, input_onesided=onesided, **kw))
    _, _, zt = ss.stft(x.T, axis=0, **kw)  # (freq, channel, segment)
    for fa, ta in ((0, 2), (2, 0), (0, 1), (-1, 0)):
        zz = np.moveaxis(zt, (0, 2), (fa, ta)) if (fa, ta) != (0, 1) else zt
        _same_tuple(tss.istft(zz, time_axis=ta, freq_axis=fa, **kw),
                    ss.istft(zz, time_axis=ta, freq_axis=fa, **kw))


def test_istft_inverts_stft_and_differentiates():
    rng = np.random.default_rng(17)
    x = rng.standard_normal(40)
    _, _, z = tss.stft(x, nperseg=8)
    np.testing.assert_allclose(tss.istft(z, nperseg=8)[1][:40], x, atol=1e-13)
    zc = np.asarray(z)
    check_grads(lambda q: tss.istft(q, nperseg=8)[1], (zc,), order=2)
    check_grads(lambda q: tss.istft(q, nperseg=8, input_onesided=False)[1],
                (np.asarray(tss.stft(x, nperseg=8, return_onesided=False)[2]),), order=2)
    # the round trip is the identity, so its gradient is the cotangent itself
    w = rng.standard_normal(40)
    g = tg.grad(lambda v: tnp.sum(w * tss.istft(tss.stft(v, nperseg=8)[2], nperseg=8)[1][:40]))(x)
    np.testing.assert_allclose(g, w, atol=1e-12)
    zs = np.stack([zc, 2.0 * zc])
    np.testing.assert_allclose(tg.vmap(lambda q: tss.istft(q, nperseg=8)[1])(zs),
                               ss.istft(zs, nperseg=8)[1], atol=1e-13)
    np.testing.assert_allclose(tg.jit(lambda q: tss.istft(q, nperseg=8)[1])(zc),
                               ss.istft(zc, nperseg=8)[1], atol=1e-13)
    with pytest.raises(ValueError, match="at least 2d"):
        tss.istft(np.ones(4))
    with pytest.raises(ValueError, match="differing"):
        tss.istft(zc, time_axis=0, freq_axis=0)
    with pytest.raises(ValueError, match="length"):
        tss.istft(zc, window=np.ones(5))


def test_istft_derivatives_match_jax():
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    jss = pytest.importorskip("jax.scipy.signal")
    rng = np.random.default_rng(18)
    z = np.asarray(tss.stft(rng.standard_normal(32), nperseg=8)[2])
    w = rng.standard_normal(32)
    gt = tg.grad(lambda q: tnp.sum(w * tss.istft(q, nperseg=8)[1]))(z)
    gj = jax.grad(lambda q: (w * jss.istft(q, nperseg=8)[1]).sum())(z)
    np.testing.assert_allclose(gt, np.asarray(gj), rtol=1e-10, atol=1e-12)
