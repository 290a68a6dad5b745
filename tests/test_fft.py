"""``tracegrad.numpy.fft`` against NumPy (values, shapes, dtypes, errors) and
JAX x64 (``jax.numpy.fft``: jvp and vjp of the complex-valued outputs, the
gradient and a Hessian-vector product of a real loss), plus vmap with the
batch axis in the middle and ``np.fft.<name>(tracer)`` dispatch."""
import warnings

import numpy as np
import pytest

import tracegrad as tg
import tracegrad.numpy as tnp

RNG = np.random.default_rng(11)
X = RNG.standard_normal((3, 5, 4))
Z = X + 1j * RNG.standard_normal((3, 5, 4))
NORMS = [None, "backward", "ortho", "forward"]


def _same(got, want, rtol=1e-10, atol=1e-12):
    got = np.asarray(got)
    assert got.shape == want.shape and got.dtype == want.dtype, (got.shape, got.dtype,
                                                                  want.shape, want.dtype)
    np.testing.assert_allclose(got, want, rtol=rtol, atol=atol)


# --------------------------------------------------------------------------
# values against NumPy


@pytest.mark.parametrize("name", ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft"])
@pytest.mark.parametrize("n", [None, 1, 3, 4, 7, 8])
@pytest.mark.parametrize("axis", [-1, 0, -2])
def test_1d_values(name, n, axis):
    a = X if name in ("rfft", "ihfft") else Z
    for norm in NORMS:
        if name in ("irfft", "hfft") and n is None and a.shape[axis] == 1:
            continue
        want = getattr(np.fft, name)(a, n, axis, norm)
        _same(getattr(tnp.fft, name)(a, n, axis, norm), want)
    # float32 (and complex64) input stays single precision, as in NumPy 2
    a32 = a.astype(np.complex64 if a.dtype.kind == "c" else np.float32)
    want = getattr(np.fft, name)(a32, n, axis, "ortho")
    _same(getattr(tnp.fft, name)(a32, n, axis, "ortho"), want, rtol=1e-5, atol=1e-5)


ND_CASES = [(None, None), ((3, 4), (0, 2)), ((2, 6), (-1, 0)), (None, (1,)), ((4, 4, 4), (0, 1, 2)),
            (None, (0, 0)), ((3, -1), (0, 1)), ((5, 3), (1, 1)), ((1, 2), (2, 0)), ((7,), (-2,))]


@pytest.mark.parametrize("name", ["fftn", "ifftn", "rfftn", "irfftn"])
@pytest.mark.parametrize("s, axes", ND_CASES)
def test_nd_values(name, s, axes):
    a = X if name == "rfftn" else Z
    for norm in NORMS:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            want = getattr(np.fft, name)(a, s, axes, norm)
        _same(getattr(tnp.fft, name)(a, s, axes, norm), want)


@pytest.mark.parametrize("name", ["fft2", "ifft2", "rfft2", "irfft2"])
@pytest.mark.parametrize("s, axes", [(None, (-2, -1)), ((4, 3), (-2, -1)), ((2, 5), (0, 2)), (None, (2, 1))])
def test_2d_values(name, s, axes):
    a = X if name == "rfft2" else Z
    for norm in NORMS:
        _same(getattr(tnp.fft, name)(a, s, axes, norm), getattr(np.fft, name)(a, s, axes, norm))
    a32 = a.astype(np.complex64 if a.dtype.kind == "c" else np.float32)
    _same(getattr(tnp.fft, name)(a32, s, axes), getattr(np.fft, name)(a32, s, axes),
          rtol=1e-5, atol=1e-5)


def test_input_dtypes_and_edge_values():
    ints = np.arange(6)
    for name in ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft", "fftn", "rfftn"]:
        _same(getattr(tnp.fft, name)(ints), getattr(np.fft, name)(ints))
    _same(tnp.fft.fft(np.arange(4, dtype=np.float16)), np.fft.fft(np.arange(4, dtype=np.float16)),
          rtol=1e-3)
    _same(tnp.fft.fft([1.0, 2.0, 3.0]), np.array([6.0, -1.5 + 0.8660254037844386j,
                                                   -1.5 - 0.8660254037844386j]))
    _same(tnp.fft.irfft([4.0, 0.0, 0.0]), np.array([1.0, 1.0, 1.0, 1.0]))
    # the imaginary parts of the zero and Nyquist frequencies are ignored
    _same(tnp.fft.irfft([1 + 5j, 0.0, 2 - 7j]), tnp.fft.irfft([1.0, 0.0, 2.0]))
    _same(tnp.fft.fftn(np.array(3.0)), np.fft.fftn(np.array(3.0)))
    _same(tnp.fft.fft(Z[0, 0], n=1), np.fft.fft(Z[0, 0], n=1))


def test_freqs_and_shifts():
    for n in [1, 4, 5]:
        for d in [1.0, 0.1]:
            _same(tnp.fft.fftfreq(n, d), np.fft.fftfreq(n, d))
            _same(tnp.fft.rfftfreq(n, d), np.fft.rfftfreq(n, d))
    for axes in [None, 0, (1, 2), (-1,), (0, 0)]:
        for f in ["fftshift", "ifftshift"]:
            np.testing.assert_array_equal(getattr(tnp.fft, f)(X, axes), getattr(np.fft, f)(X, axes))
    np.testing.assert_array_equal(tnp.fft.fftshift([0, 1, 2, -2, -1]), [-2, -1, 0, 1, 2])
    np.testing.assert_array_equal(tnp.fft.ifftshift(tnp.fft.fftshift(np.arange(7))), np.arange(7))
    # differentiable in the spacing d: d/dd (k / (n d)) = -k / (n d^2)
    g = tg.grad(lambda d: tnp.sum(tnp.fft.fftfreq(5, d) * np.arange(5.0)))(0.5)
    k = np.fft.fftfreq(5, 1.0) * 5
    np.testing.assert_allclose(g, np.sum(-k / (5 * 0.25) * np.arange(5.0)))


def test_errors():
    with pytest.raises(ValueError, match="Invalid norm"):
        tnp.fft.fft(Z, norm="bad")
    with pytest.raises(ValueError, match="Invalid number of FFT data points"):
        tnp.fft.fft(Z, n=0)
    with pytest.raises(ValueError, match="Invalid number of FFT data points"):
        tnp.fft.irfft(np.ones(1, complex))
    with pytest.raises(TypeError, match="real input"):
        tnp.fft.rfft(Z)
    with pytest.raises(np.exceptions.AxisError):
        tnp.fft.fft(Z, axis=3)
    with pytest.raises(ValueError, match="different lengths"):
        tnp.fft.fftn(Z, s=(2, 3), axes=(0,))
    with pytest.raises(TypeError, match="out="):
        tnp.fft.fft(Z, out=np.empty_like(Z))
    with pytest.warns(DeprecationWarning):
        tnp.fft.fftn(Z, s=(2, 3))


# --------------------------------------------------------------------------
# derivatives against JAX (x64)

JAX_CASES = [
    ("fft", "c", dict(n=5)), ("fft", "r", dict(norm="ortho", axis=0)), ("ifft", "c", dict(n=8, axis=1)),
    ("ifft", "c", dict(norm="forward")), ("rfft", "r", dict(n=5)), ("rfft", "r", dict(n=8, norm="forward")),
    ("rfft", "r", dict(axis=0)), ("irfft", "c", dict()), ("irfft", "c", dict(n=7, norm="ortho")),
    ("irfft", "c", dict(n=4, axis=0)), ("hfft", "c", dict(n=9)), ("hfft", "c", dict(norm="forward")),
    ("ihfft", "r", dict(norm="ortho")), ("fftn", "c", dict()), ("ifftn", "c", dict(s=(4, 4), axes=(0, 1))),
    ("rfftn", "r", dict(s=(4, 5), axes=(1, 0))), ("irfftn", "c", dict()),
    ("irfftn", "c", dict(s=(3, 9), axes=(0, 1), norm="ortho")), ("rfft2", "r", dict()),
    ("irfft2", "c", dict(s=(2, 6))), ("fft2", "c", dict(norm="forward")), ("ifft2", "r", dict()),
]


def _random(shape, kind, rng):
    a = rng.standard_normal(shape)
    return a + 1j * rng.standard_normal(shape) if kind == "c" else a


@pytest.fixture(scope="module")
def jax_mod():
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    return jax


@pytest.mark.parametrize("name, kind, kw", JAX_CASES,
                         ids=[f"{n}-{'-'.join(f'{k}={v}' for k, v in kw.items())}" for n, _, kw in JAX_CASES])
def test_derivatives_match_jax(jax_mod, name, kind, kw):
    jax, jnp = jax_mod, jax_mod.numpy
    rng = np.random.default_rng(abs(hash((name, str(kw)))) % 2**32)
    a = _random((3, 6), kind, rng)

    def f(v):
        return getattr(tnp.fft, name)(v, **kw)

    def jf(v):
        return getattr(jnp.fft, name)(v, **kw)

    y = f(a)
    weights = np.arange(y.size, dtype=float).reshape(y.shape) / y.size
    ct = _random(y.shape, y.dtype.kind, rng)
    t = _random(a.shape, kind, rng)

    def loss(v):
        return tnp.sum(tnp.abs(f(v)) ** 2 * weights) + tnp.sum(tnp.real(f(v) * (0.5 - 0.25j)))

    def jloss(v):
        return jnp.sum(jnp.abs(jf(v)) ** 2 * weights) + jnp.sum(jnp.real(jf(v) * (0.5 - 0.25j)))

    @jax.jit
    def oracle(a, t, ct):
        return (jf(a), jax.jvp(jf, (a,), (t,))[1], jax.vjp(jf, a)[1](ct)[0], jax.grad(jloss)(a),
                jax.jvp(jax.grad(jloss), (a,), (t,))[1])

    want = [np.asarray(w) for w in oracle(a, t, ct)]
    got = [y, tg.jvp(f, (a,), (t,))[1], tg.vjp(f, a)[1](ct)[0], tg.grad(loss)(a),
           tg.jvp(tg.grad(loss), (a,), (t,))[1]]
    for label, g, w in zip(["value", "jvp", "vjp", "grad", "hvp"], got, want):
        assert np.asarray(g).dtype == w.dtype, (label, np.asarray(g).dtype, w.dtype)
        np.testing.assert_allclose(g, w, rtol=1e-9, atol=1e-9, err_msg=label)
    # reverse over reverse: the Hessian's rows
    h = tg.jacrev(tg.grad(loss))(a) if kind == "r" else None
    if h is not None:
        np.testing.assert_allclose(h, np.asarray(jax.jit(jax.hessian(jloss))(a)), rtol=1e-8, atol=1e-8)


def test_complex_input_gradient_matches_jax(jax_mod):
    jax, jnp = jax_mod, jax_mod.numpy
    z = Z[0]
    g = tg.grad(lambda v: tnp.sum(tnp.abs(tnp.fft.fft2(v, s=(6, 3))) ** 3))(z)
    jg = jax.grad(lambda v: jnp.sum(jnp.abs(jnp.fft.fft2(v, s=(6, 3))) ** 3))(z)
    np.testing.assert_allclose(g, np.asarray(jg), rtol=1e-9)


# --------------------------------------------------------------------------
# vmap (batch axis in the middle), float32 derivatives, NumPy dispatch


@pytest.mark.parametrize("name, kind, kw", [
    ("fft", "c", dict(n=6)), ("ifft", "c", dict(axis=0, norm="ortho")), ("rfft", "r", dict(n=3)),
    ("irfft", "c", dict(n=5, axis=0)), ("hfft", "c", dict()), ("ihfft", "r", dict(axis=0)),
    ("fftn", "c", dict()), ("rfftn", "r", dict(axes=(1, 0))), ("irfftn", "c", dict(s=(2, 4), axes=(0, 1))),
    ("fftshift", "r", dict()),
])
def test_vmap_batch_axis_in_the_middle(name, kind, kw):
    rng = np.random.default_rng(3)
    a = _random((3, 4, 5), kind, rng)  # examples (3, 5), batch of 4 at axis 1

    def f(v):
        return getattr(tnp.fft, name)(v, **kw)

    got = tg.vmap(f, in_axes=1, out_axes=1)(a)
    want = np.stack([getattr(np.fft, name)(a[:, b], **kw) for b in range(4)], axis=1)
    _same(got, want)
    ct = _random(want.shape, want.dtype.kind, rng)
    gv = tg.vmap(lambda v, c: tg.vjp(f, v)[1](c)[0], in_axes=(1, 1), out_axes=1)(a, ct)
    gl = np.stack([tg.vjp(f, a[:, b])[1](ct[:, b])[0] for b in range(4)], axis=1)
    _same(gv, gl)


def test_float32_derivatives_stay_single():
    x = X[0].astype(np.float32)
    g = tg.grad(lambda v: tnp.sum(tnp.fft.irfft(tnp.fft.rfft(v) * np.float32(0.5), n=4) ** 2))(x)
    assert g.dtype == np.float32
    np.testing.assert_allclose(g, x * 0.5, rtol=1e-5, atol=1e-6)  # irfft(rfft(v)) = v
    t = tg.jvp(lambda v: tnp.fft.fft(v), (x,), (x,))[1]
    assert t.dtype == np.complex64


def test_numpy_dispatch_on_tracers():
    x = X[0]
    for name in ["fft", "ifft", "rfft", "ihfft", "fftn", "ifftn", "rfftn", "fft2", "ifft2", "rfft2",
                 "fftshift", "ifftshift"]:
        y, t = tg.jvp(lambda v: getattr(np.fft, name)(v), (x,), (x,))
        _same(y, getattr(np.fft, name)(x))
        _same(t, getattr(np.fft, name)(x))  # linear: the tangent is the transform of x
    for name in ["irfft", "hfft", "irfftn", "irfft2"]:
        y = tg.jvp(lambda v: getattr(np.fft, name)(v * (1 + 1j)), (x,), (x,))[0]
        _same(y, getattr(np.fft, name)(x * (1 + 1j)))
