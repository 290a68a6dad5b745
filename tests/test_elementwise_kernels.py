"""The fused kernels of primitives/elementwise_fused.py against their NumPy paths.

Every primitive there runs a Numba kernel on same-shape float32/float64
operands of 128+ elements and the NumPy formulation of the same formula
otherwise; these tests check that both paths agree (bit for bit where the
formula is exact), at random points and at the special ones (0, -0.0,
+-inf, NaN, ties, quotients that round onto an integer), and that the
public functions built on them keep NumPy's values and the derivatives of
their small-array path at kernel sizes.
"""
import zlib

import numpy as np
import pytest

import tracegrad as tg
import tracegrad.numpy as tnp
from tracegrad.primitives import elementwise_fused as ef
from tracegrad.primitives import ops, vecmath

N = 4 * vecmath.MIN_KERNEL_SIZE  # kernel size
rng = np.random.default_rng(7)


@pytest.fixture(autouse=True)
def _own_random_points(request):
    """Each test draws its random points from a generator of its own, seeded
    by its name.  With one generator for the module a test's points were
    those left after whatever tests ran before it in the same process, and
    under pytest-xdist that is whichever tests a worker happened to get: the
    points (and whether one landed where a tolerance is tight) changed from
    run to run."""
    global rng
    rng = np.random.default_rng([7, zlib.crc32(request.node.name.encode())])


def same(a, b):
    """Bitwise equal: NaNs equal, signed zeros distinct."""
    a, b = np.asarray(a), np.asarray(b)
    assert a.dtype == b.dtype and a.shape == b.shape
    np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(np.signbit(a), np.signbit(b))


def ulps(a, b):
    """Largest distance in units of the last place of ``b`` (NaN == NaN)."""
    dtype = np.asarray(b).dtype
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    both_nan = np.isnan(a) & np.isnan(b)
    assert np.array_equal(np.isnan(a), np.isnan(b))
    d = np.abs(a - b)[~both_nan] / np.spacing(np.abs(b).astype(dtype))[~both_nan]
    return float(d.max()) if d.size else 0.0


def padded(values, dtype=np.float64, scale=3.0):
    """``values`` followed by random normals, ``N`` elements in all."""
    rest = rng.standard_normal(N - len(values)) * scale
    with np.errstate(over="ignore"):  # float32: 1e300 becomes inf
        return np.concatenate([np.asarray(values, np.float64), rest]).astype(dtype)


def kernel_and_numpy(name, numpy_fn, *xs, **params):
    """``(kernel result, NumPy-path result)``, the kernel checked to have run."""
    got = ef._run(name, numpy_fn, *xs, **params)
    assert ef._k is not None and hasattr(ef._k, name)
    with np.errstate(all="ignore"):
        want = numpy_fn(*xs, **params)
    return got, want


SINC_POINTS = [0.0, -0.0, 1e-8, -1e-8, 3e-4, -3e-4, 3.2e-4, 1.0, -2.0, 0.5, 1e5, -3e7,
               np.inf, -np.inf, np.nan, 5e-324]


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_sinc_kernel_matches_numpy_path(dtype):
    x = padded(SINC_POINTS, dtype)
    got, want = kernel_and_numpy("sinc_kernel", ef._sinc_numpy, x)
    assert got.dtype == dtype
    assert ulps(got, want) <= 4
    assert got[0] == 1.0 and got[1] == 1.0 and got[4] == got[5]  # even
    assert np.isnan(got[12:15]).all()  # sin(+-inf) / inf, NaN
    # NumPy's sinc, away from 0 where both use sin(pi x) / (pi x)
    far = np.abs(x) > 1e-3
    with np.errstate(all="ignore"):
        ref = np.sinc(x.astype(np.float64)).astype(dtype)
    assert np.allclose(got[far], ref[far], rtol=1e-13 if dtype == np.float64 else 1e-6,
                       atol=1e-15 if dtype == np.float64 else 1e-7, equal_nan=True)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_sinc_grad_kernel_matches_numpy_path(dtype):
    x = padded(SINC_POINTS, dtype)
    g = padded([1.0] * len(SINC_POINTS), dtype, 1.0)
    got, want = kernel_and_numpy("sinc_grad_kernel", ef._dsinc_numpy, g, x)
    assert got.dtype == dtype
    assert got[0] == 0.0 and got[1] == 0.0  # sinc'(0) = 0
    assert got[2] == -got[3] and got[2] == -np.pi ** 2 / 3 * 1e-8  # the Taylor slope
    fin = np.isfinite(want)
    assert np.array_equal(fin, np.isfinite(got))
    # (cos u - sin(u)/u)/u cancels near 0: compare relative to the derivative's scale
    tol = 1e-13 if dtype == np.float64 else 1e-6
    assert np.allclose(got[fin], want[fin], rtol=tol, atol=tol * np.abs(g[fin]).max())


def test_sinc_public_function_and_derivatives_at_kernel_size():
    x = padded(SINC_POINTS[:12])
    small = [tnp.sinc(x[i:i + 1]) for i in range(N)]
    assert ulps(tnp.sinc(x), np.concatenate(small)) <= 4
    # forward and reverse derivatives at kernel size equal the NumPy path
    d_rev = tg.grad(lambda v: tnp.sum(tnp.sinc(v)))(x)
    d_fwd = tg.jvp(tnp.sinc, (x,), (np.ones(N),))[1]
    d_small = np.concatenate([tg.grad(lambda v: tnp.sum(tnp.sinc(v)))(x[i:i + 2])
                              for i in range(0, N, 2)])
    # above the series, both paths evaluate pi (cos u - sin(u)/u) / u, whose two
    # terms cancel near 0: each path is off by up to ~eps/|x| absolutely there
    # (both within eps/(2|x|) at the points of 120 seeds)
    fin = np.isfinite(x) & (x != 0)
    bound = 1e-12 * np.abs(d_small[fin]) + np.finfo(float).eps / np.abs(x[fin])
    assert (np.abs(d_rev - d_small)[fin] <= bound).all()
    assert (np.abs(d_fwd - d_small)[fin] <= bound).all()
    np.testing.assert_array_equal(d_rev[~fin], d_small[~fin])
    # second derivative: the kernel's own rule, -pi**2 sinc - 2 sinc'/x (series at 0)
    h = tg.grad(lambda v: tnp.sum(tg.grad(lambda w: tnp.sum(tnp.sinc(w)))(v)))(x)
    assert h[0] == -np.pi ** 2 / 3
    u = np.pi * x[12:]
    # the closed form cancels as badly near 0 (off by 1.6e-7 at x = 4.5e-5):
    # the reference takes sinc''s Taylor series there (truncation < 1e-14 at |u| < 0.1)
    u2 = u * u
    want = np.where(np.abs(u) < 0.1,
                    np.pi ** 2 * (-1 / 3 + u2 * (1 / 10 + u2 * (-1 / 168 + u2 / 6480))),
                    np.pi ** 2 * (-np.sin(u) / u - 2 * (np.cos(u) - np.sin(u) / u) / u ** 2))
    np.testing.assert_allclose(h[12:], want, rtol=1e-9, atol=1e-9)


def test_sinc_complex_and_integer_input_take_the_numpy_path():
    z = (rng.standard_normal(N) + 1j * rng.standard_normal(N)).astype(np.complex128)
    np.testing.assert_allclose(tnp.sinc(z), np.sinc(z), rtol=1e-13)
    same(tnp.sinc(np.arange(N)), ef._sinc_numpy(np.arange(N).astype(np.float64)))


FMOD_CASES = [
    (1.0, 0.1),     # 1 / 0.1 rounds to 10.0, the exact quotient is 9.99...: trunc 9
    (-1.0, 0.1), (1.0, -0.1), (-1.0, -0.1),
    (0.3, 0.1),     # 0.3 / 0.1 = 2.9999999999999996, and the quotient is 2
    (7.5, 2.0), (-7.5, 2.0), (7.5, -2.0),
    (0.0, 3.0), (-0.0, 3.0), (0.0, -3.0),
    (1.0, 0.0), (0.0, 0.0), (-0.0, -0.0),           # NaN values
    (np.inf, 2.0), (-np.inf, 2.0), (np.inf, np.inf), # NaN values
    (5.0, np.inf), (-5.0, -np.inf),                  # fmod is x1: quotient 0
    (np.nan, 1.0), (1.0, np.nan),
    (1e300, 1e-300),                                 # quotient overflows
    (2.0 ** 60, 3.0), (5e-324, 5e-324), (1e-310, 3e-311),
]


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_fmod_grad_kernel_is_the_exact_quotient(dtype):
    a = padded([c[0] for c in FMOD_CASES], dtype, 10.0)
    b = padded([c[1] for c in FMOD_CASES], dtype, 2.0)
    g = padded([1.0] * len(FMOD_CASES), dtype, 1.0)
    got, want = kernel_and_numpy("fmod_grad_kernel", ef._fmod_grad_numpy, g, a, b)
    assert got.dtype == dtype
    np.testing.assert_array_equal(got, want)  # NaNs included; the sign of 0 is free
    if dtype == np.float64:
        assert got[0] == -9.0 and got[1] == 9.0 and got[2] == 9.0 and got[3] == -9.0
        assert got[4] == -2.0
        assert np.isnan(got[11:17]).all() and (got[17:19] == 0).all()
    # the quotient reconstructs fmod: x1 - trunc * x2 == fmod(x1, x2) where it is exact
    ok = np.isfinite(got) & (np.abs(a) < 1e6) & (np.abs(b) > 1e-3) & np.isfinite(b)
    q = -(got / g)[ok].astype(np.float64)
    np.testing.assert_allclose(a[ok] - q * b[ok], np.fmod(a[ok], b[ok]), atol=1e-4)


def test_fmod_values_and_derivatives_at_kernel_size():
    a = padded([c[0] for c in FMOD_CASES[:11]], scale=10.0)
    b = padded([c[1] for c in FMOD_CASES[:11]], scale=2.0)
    same(tnp.fmod(a, b), np.fmod(a, b))
    ga, gb = tg.grad(lambda u, v: tnp.sum(tnp.fmod(u, v)), argnums=(0, 1))(a, b)
    same(ga, np.ones(N))
    np.testing.assert_array_equal(gb, -np.floor_divide(np.abs(a), np.abs(b))
                                  * np.where(np.signbit(a), -1.0, 1.0) * np.sign(b))
    # second order: the quotient is piecewise constant
    h = tg.grad(lambda v: tnp.sum(tg.grad(lambda w: tnp.sum(tnp.fmod(a, w)))(v)))(b)
    same(h, np.zeros(N))


def test_modf_fraction_through_fmod():
    x = padded([0.0, -0.0, -3.0, 3.0, -2.5, np.inf, -np.inf, np.nan, 1e300, -1e-20], scale=50.0)
    frac, whole = np.modf(x)
    for got in (tnp.modf(x), tg.vjp(tnp.modf, x)[0]):
        same(got[0], frac)
        same(got[1], whole)
    d = tg.grad(lambda v: tnp.sum(tnp.modf(v)[0]))(x)
    same(d, np.where(np.isinf(x), 0.0, 1.0))


LAE_X = [0.0, 1.0, -1000.0, 1000.0, np.inf, np.inf, -np.inf, -np.inf, np.inf, np.nan, 3.0]
LAE_Y = [0.0, 1.0, 1000.0, -1000.0, np.inf, 1.0, -np.inf, 2.0, -np.inf, 0.0, np.nan]


@pytest.mark.parametrize("scale", [1.0, float(np.log(2.0))])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_logaddexp_grad_kernel_matches_numpy_path(scale, dtype):
    x, y = padded(LAE_X, dtype), padded(LAE_Y, dtype)
    g = padded([1.0] * len(LAE_X), dtype, 1.0)
    got, want = kernel_and_numpy("logaddexp_grad_kernel", ef._logaddexp_grad_numpy, g, x, y,
                                 scale=scale)
    assert got.dtype == dtype
    assert ulps(got, want) <= 4
    np.testing.assert_array_equal(got[:11], [0.5, 0.5, 0.0, 1.0, 0.5, 1.0, 0.5, 0.0, 1.0,
                                             np.nan, np.nan])


def test_logaddexp2_values_are_numpys_and_derivatives_fused():
    x, y = padded(LAE_X[:9]), padded(LAE_Y[:9])
    with np.errstate(all="ignore"):
        same(tnp.logaddexp2(x, y), np.logaddexp2(x, y))
        same(tnp.logaddexp2(x[:5], y[:5]), np.logaddexp2(x[:5], y[:5]))
    gx, gy = tg.grad(lambda u, v: tnp.sum(tnp.logaddexp2(u, v)), argnums=(0, 1))(x, y)
    with np.errstate(all="ignore"):
        want = 1.0 / (1.0 + np.exp2(y - x))
    want[[4, 6]] = 0.5  # ties of equal infinities
    np.testing.assert_allclose(gx, want, rtol=1e-14)
    np.testing.assert_allclose(gx + gy, np.ones(N), rtol=1e-15)
    # second order, also at the ties: ln2 * s * (1 - s), 0 at equal infinities
    h = tg.grad(lambda v: tnp.sum(tg.grad(lambda w: tnp.sum(tnp.logaddexp2(w, y)))(v)))(x)
    s = want
    np.testing.assert_allclose(h[:4], np.log(2.0) * s[:4] * (1 - s[:4]), rtol=1e-14)
    assert h[0] == np.log(2.0) / 4 and h[4] == 0.0 and h[6] == 0.0


def test_ldexp_and_frexp_exact_at_kernel_size():
    x = padded([0.0, -0.0, 5e-324, -5e-324, 2.2250738585072014e-308, 1.7976931348623157e308,
                np.inf, -np.inf, np.nan, 3.0, -0.75])
    k = rng.integers(-1100, 1100, N)
    with np.errstate(over="ignore"):  # ldexp overflows to inf, as NumPy's
        same(tnp.ldexp(x, k), np.ldexp(x, k))
        same(tg.vjp(lambda v: tnp.ldexp(v, k), x)[0], np.ldexp(x, k))  # traced: exact too
        m, e = np.frexp(x)
        got_m, got_e = tg.vjp(tnp.frexp, x)[0]
        same(got_m, m)
        np.testing.assert_array_equal(got_e, e)
        d = tg.grad(lambda v: tnp.sum(tnp.frexp(v)[0]))(x)
        fin = np.isfinite(x)
        # 2**-e, also for subnormal x (where 2**-e is beyond float64: inf, as NumPy's)
        np.testing.assert_array_equal(d[fin], np.ldexp(1.0, -e[fin]))


def test_nan_to_num_derivative_is_one_select():
    x = padded([np.nan, np.inf, -np.inf, 0.0, -0.0, 1.5])
    same(tnp.nan_to_num(x), np.nan_to_num(x))
    out, back = tg.vjp(lambda v: tnp.nan_to_num(v, nan=1.0, posinf=2.0, neginf=-2.0), x)
    same(out, np.nan_to_num(x, nan=1.0, posinf=2.0, neginf=-2.0))
    ct = rng.standard_normal(N)
    (d,) = back(ct)
    same(d, np.where(np.isfinite(x), ct, 0.0))


def test_small_and_broadcast_operands_take_the_numpy_path():
    # no kernel below MIN_KERNEL_SIZE or for broadcasting operands: same formula
    x = rng.standard_normal(vecmath.MIN_KERNEL_SIZE - 1)
    same(ops.sinc(x), ef._sinc_numpy(x))
    g = rng.standard_normal((3, N))
    xs = rng.standard_normal(N)
    same(ops.sinc_grad(g, xs), ef._dsinc_numpy(g, xs))
    same(ops.logaddexp_grad(g, np.zeros(N), 1.0, 1.0),
         ef._logaddexp_grad_numpy(g, np.zeros(N), 1.0, 1.0))


# --------------------------------------------------------------------------
# fused derivatives: unary_grad, hypot_grad, cbrt_grad, pow_grad_x, pow_grad_y

def same_values(a, b):
    """Bitwise equal except for the sign bit of NaNs (which no function reads)."""
    a, b = np.asarray(a), np.asarray(b)
    assert a.dtype == b.dtype and a.shape == b.shape
    np.testing.assert_array_equal(a, b)
    num = ~np.isnan(b)
    np.testing.assert_array_equal(np.signbit(a[num]), np.signbit(b[num]))


def ulps_specials_equal(a, b):
    """``ulps`` over the finite values; NaNs and (signed) infinities must agree."""
    a, b = np.asarray(a, np.float64), np.asarray(b)
    fin = np.isfinite(b)
    np.testing.assert_array_equal(a[~fin], b[~fin].astype(np.float64))
    return ulps(a[fin].astype(b.dtype), b[fin])


UNARY_POINTS = [0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 0.999999, 1.5, -1.5, 2.0, 1e-300, 1e300,
                -1e300, np.inf, -np.inf, np.nan, 5e-324]


@pytest.mark.parametrize("fn", sorted(ef.UNARY_GRAD_CODES))
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_unary_grad_kernel_is_the_composite_formula(fn, dtype):
    x = padded(UNARY_POINTS, dtype, 1.0)
    g = padded([1.0, -2.0] * 8 + [0.5], dtype, 1.0)
    got, want = kernel_and_numpy("unary_grad_kernel", ef._unary_grad_numpy_coded, g, x,
                                 code=ef.UNARY_GRAD_CODES[fn])
    assert got.dtype == dtype
    if dtype == np.float64:
        same_values(got, want)  # the same operations in the same order
    else:  # computed in float64, rounded once
        with np.errstate(all="ignore"):
            wide = ef._unary_grad_numpy(g.astype(np.float64), x.astype(np.float64), fn)
        same_values(got, wide.astype(dtype))
    # the ends of the domain: signed infinities; outside it NaN
    with np.errstate(all="ignore"):
        ref = {"arcsin": 1 / np.sqrt(1 - x.astype(float) ** 2),
               "arccos": -1 / np.sqrt(1 - x.astype(float) ** 2),
               "arctan": 1 / (1 + x.astype(float) ** 2),
               "arcsinh": 1 / np.sqrt(x.astype(float) ** 2 + 1),
               "arccosh": 1 / np.sqrt(x.astype(float) ** 2 - 1),
               "arctanh": 1 / (1 - x.astype(float) ** 2),
               "log1p": 1 / (x.astype(float) + 1),
               "expm1": x.astype(float) + 1,  # (x is expm1's value)
               "exp2": x.astype(float) * np.log(2.0)}[fn] * g
    np.testing.assert_allclose(got, ref.astype(dtype), rtol=1e-6 if dtype == np.float32 else 1e-15,
                               equal_nan=True)


def test_unary_grad_rejects_unknown_functions():
    with pytest.raises(ValueError, match="fn must be one of"):
        ops.unary_grad(np.ones(3), np.ones(3), "arcsec")


HYPOT_X = [0.0, -0.0, 0.0, 3.0, -3.0, 1e-310, 1e300, np.inf, 2.0, np.nan, 0.0]
HYPOT_Y = [0.0, 0.0, -0.0, 4.0, 4.0, 1e-310, 1e300, 1.0, np.inf, 1.0, np.nan]


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_hypot_grad_kernel_is_the_composite_formula(dtype):
    x, y = padded(HYPOT_X, dtype), padded(HYPOT_Y, dtype)
    with np.errstate(all="ignore"):
        h = np.hypot(x, y)
    g = padded([1.0] * len(HYPOT_X), dtype, 1.0)
    got, want = kernel_and_numpy("hypot_grad_kernel", ef._hypot_grad_numpy, g, x, h)
    assert got.dtype == dtype
    if dtype == np.float64:
        same_values(got, want)
    else:
        with np.errstate(all="ignore"):
            wide = ef._hypot_grad_numpy(*(v.astype(np.float64) for v in (g, x, h)))
        same_values(got, wide.astype(dtype))
    assert (got[:3] == 0).all()  # 0 at the origin
    np.testing.assert_array_equal(got[3:5], [0.6, -0.6] if dtype == np.float64
                                  else np.float32([0.6, -0.6]))


def test_hypot_derivatives_at_kernel_size_equal_the_small_path():
    x, y = padded(HYPOT_X[:9]), padded(HYPOT_Y[:9])
    f = lambda u, v: tnp.sum(tnp.hypot(u, v))  # noqa: E731
    gx, gy = tg.grad(f, argnums=(0, 1))(x, y)
    small = [tg.grad(f, argnums=(0, 1))(x[i:i + 1], y[i:i + 1]) for i in range(N)]
    same(gx, np.concatenate([s[0] for s in small]))
    same(gy, np.concatenate([s[1] for s in small]))
    hx = tg.grad(lambda u: tnp.sum(tg.grad(f)(u, y)))(x)
    hx_small = np.concatenate([tg.grad(lambda u: tnp.sum(tg.grad(f)(u, y[i:i + 1])))(x[i:i + 1])
                               for i in range(N)])
    np.testing.assert_allclose(hx, hx_small, rtol=1e-14, equal_nan=True)


CBRT_POINTS = [0.0, -0.0, 1.0, -8.0, 27.0, 1e-300, -1e-300, 1e300, np.inf, -np.inf, np.nan,
               5e-324]


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_cbrt_grad_kernel_is_the_composite_formula(dtype):
    y = np.cbrt(padded(CBRT_POINTS, dtype))
    g = padded([1.0] * len(CBRT_POINTS), dtype, 1.0)
    got, want = kernel_and_numpy("cbrt_grad_kernel", ef._cbrt_grad_numpy, g, y)
    assert got.dtype == dtype
    if dtype == np.float64:
        same_values(got, want)
    else:
        with np.errstate(all="ignore"):
            wide = ef._cbrt_grad_numpy(g.astype(np.float64), y.astype(np.float64))
        same_values(got, wide.astype(dtype))
    assert got[0] == np.inf and got[1] == np.inf and got[8] == 0 and got[9] == 0


def test_cbrt_derivatives_at_kernel_size_equal_the_small_path():
    x = padded(CBRT_POINTS)
    d = lambda f: lambda v: tg.grad(lambda w: tnp.sum(f(w)))(v)  # noqa: E731
    for f in (tnp.cbrt, d(tnp.cbrt), d(d(tnp.cbrt))):
        with np.errstate(all="ignore"):
            big = d(f)(x) if f is not tnp.cbrt else d(tnp.cbrt)(x)
            small = np.concatenate([(d(f) if f is not tnp.cbrt else d(tnp.cbrt))(x[i:i + 1])
                                    for i in range(N)])
        np.testing.assert_allclose(big, small, rtol=1e-14, equal_nan=True)
        np.testing.assert_array_equal(np.isinf(big), np.isinf(small))


POW_X = [0.0, 0.0, 0.0, -0.0, 2.0, -2.0, -2.0, 1e-300, 10.0, 10.0, np.inf, -np.inf, np.nan,
         2.0, 1.0, 5e-324, 0.5, 3.0]
POW_Y = [0.0, 2.0, -1.0, 3.0, 0.0, 3.0, 0.5, 0.5, 308.5, -330.0, 2.0, 3.0, 1.0, np.nan,
         1e300, 0.5, 1e17, -2.0]


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_pow_grad_x_kernel_matches_the_power_formula(dtype):
    x, y = padded(POW_X, dtype), padded(POW_Y, dtype)
    x[len(POW_X):] = np.abs(x[len(POW_X):])
    with np.errstate(all="ignore"):
        a = np.power(x, y)
    g = padded([1.0] * len(POW_X), dtype, 1.0)
    got, want = kernel_and_numpy("pow_grad_x_kernel", ef._pow_grad_x_numpy, g, x, y, a)
    assert got.dtype == dtype
    # a / x for x**(y-1): the same specials; float64 within 3 ulp of the exact
    # y x**(y-1) (the power of the NumPy path, x**(y - 1) with y - 1 rounded,
    # is within 18 ulp at random points), float32 within 2 ulp of the float64 value
    # (a = x**y itself rounded to float32)
    np.testing.assert_array_equal(np.isinf(got), np.isinf(want))
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    np.testing.assert_array_equal(got == 0, want == 0)
    fin = np.isfinite(want) & (want != 0)
    if dtype == np.float64:
        with np.errstate(all="ignore"):
            exact = (g * y).astype(np.longdouble) * np.power(x.astype(np.longdouble),
                                                             y.astype(np.longdouble) - 1)
        err = np.abs(got[fin] - exact[fin]) / np.spacing(np.abs(exact[fin]).astype(np.float64))
        assert err.max() <= 3
    else:
        with np.errstate(all="ignore"):
            wide = ef._pow_grad_x_numpy(*(v.astype(np.float64) for v in (g, x, y, a)))
        assert ulps(got[fin], wide[fin].astype(dtype)) <= 2
    if dtype == np.float64:
        np.testing.assert_array_equal(got[:8], [0.0, 0.0, -np.inf, 0.0, 0.0, 12.0, np.nan,
                                                0.5 * 1e150])


def test_pow_grad_y_kernel_takes_log_zero_as_zero():
    x = padded([0.0, -0.0, 1.0, np.e, -2.0, np.inf, np.nan, 1e-300])
    x[8:] = np.abs(x[8:])
    y = padded([2.0, 2.0, 3.0, 1.0, 2.0, 1.0, 1.0, 0.5])
    with np.errstate(all="ignore"):
        a = np.power(x, y)
        g = padded([1.0] * 8, scale=1.0)
        got = ops.pow_grad_y(g, a, x)
        want = ef._pow_grad_y_numpy(g, a, x)
    assert ef._k is not None
    same_values(got, want)
    assert got[0] == 0 and got[2] == 0 and got[3] == np.e and np.isnan(got[4])


def test_power_derivatives_at_kernel_size_equal_the_small_path():
    x = np.abs(padded(POW_X[:10])) + np.where(np.arange(N) < 10, 0.0, 0.1)
    y = padded(POW_Y[:10])
    f = lambda u, v: tnp.sum(tnp.power(u, v))  # noqa: E731
    with np.errstate(all="ignore"):
        gx, gy = tg.grad(f, argnums=(0, 1))(x, y)
        small = [tg.grad(f, argnums=(0, 1))(x[i:i + 1], y[i:i + 1]) for i in range(N)]
        np.testing.assert_allclose(gx, np.concatenate([s[0] for s in small]), rtol=1e-14,
                                   equal_nan=True)
        same(gy, np.concatenate([s[1] for s in small]))
        # second order, mixed, through the fused rules
        hxy = tg.grad(lambda v: tnp.sum(tg.grad(f)(x, v)))(y)
        hxy_small = np.concatenate([tg.grad(lambda v: tnp.sum(tg.grad(f)(x[i:i + 1], v)))(y[i:i + 1])
                                    for i in range(N)])
    np.testing.assert_allclose(hxy, hxy_small, rtol=1e-13, equal_nan=True)


ATAN2_Y = [0.0, -0.0, 0.0, 1.0, -1.0, 1e-200, 1e200, np.inf, 1.0, np.nan, 3.0]
ATAN2_X = [0.0, 0.0, -0.0, 1.0, 2.0, 1e-200, 1e200, 1.0, np.inf, 1.0, -4.0]


@pytest.mark.parametrize("wrt_x", [False, True])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_arctan2_grad_kernel_is_the_composite_formula(wrt_x, dtype):
    y, x = padded(ATAN2_Y, dtype), padded(ATAN2_X, dtype)
    g = padded([1.0] * len(ATAN2_Y), dtype, 1.0)
    got, want = kernel_and_numpy("arctan2_grad_kernel", ef._arctan2_grad_numpy, g, y, x,
                                 wrt_x=wrt_x)
    assert got.dtype == dtype
    if dtype == np.float64:
        same_values(got, want)
        assert np.isnan(got[:3]).all()  # the origin: 0 / 0
        assert got[10] == (-3.0 / 25.0 if wrt_x else -4.0 / 25.0)
    else:
        with np.errstate(all="ignore"):
            wide = ef._arctan2_grad_numpy(g.astype(np.float64), y.astype(np.float64),
                                          x.astype(np.float64), wrt_x)
        same_values(got, wide.astype(dtype))


def test_arctan2_expm1_exp2_derivatives_at_kernel_size_equal_the_small_path():
    y, x = padded(ATAN2_Y[3:]), padded(ATAN2_X[3:])
    f = lambda u, v: tnp.sum(tnp.arctan2(u, v))  # noqa: E731
    with np.errstate(all="ignore"):
        gy, gx = tg.grad(f, argnums=(0, 1))(y, x)
        small = [tg.grad(f, argnums=(0, 1))(y[i:i + 1], x[i:i + 1]) for i in range(N)]
        same_values(gy, np.concatenate([s[0] for s in small]))
        same_values(gx, np.concatenate([s[1] for s in small]))
        h = tg.grad(lambda v: tnp.sum(tg.grad(f, argnums=1)(y, v)))(x)
        h_small = np.concatenate([tg.grad(lambda v: tnp.sum(tg.grad(f, argnums=1)(y[i:i + 1], v)))(
            x[i:i + 1]) for i in range(N)])
        np.testing.assert_allclose(h, h_small, rtol=1e-14, equal_nan=True)
        z = padded([0.0, -0.0, 1.0, -700.0, 700.0, np.inf, -np.inf, np.nan])
        for fn in (tnp.expm1, tnp.exp2):
            d = tg.grad(lambda v: tnp.sum(fn(v)))(z)
            same_values(d, np.concatenate([tg.grad(lambda v: tnp.sum(fn(v)))(z[i:i + 1])
                                           for i in range(N)]))
