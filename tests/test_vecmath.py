"""Accuracy of the vectorized Numba math kernels against NumPy (the C library)."""
import math
import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from tracegrad.primitives import vecmath

# Documented bounds (primitives/vecmath.py), in units in the last place.
ULP_BOUND = {"exp": 1, "sin": 2, "cos": 2, "tanh": 3}
FUNCS = sorted(ULP_BOUND)


def ulp_error(got, want):
    finite = np.isfinite(want) & (want != 0)
    return np.abs(got[finite] - want[finite]) / np.spacing(np.abs(want[finite]))


@pytest.mark.parametrize("name", FUNCS)
@pytest.mark.parametrize("scale", [1e-8, 1e-3, 0.5, 3.0, 40.0, 700.0, 9e4])
def test_ulp_error_random(name, scale):
    rng = np.random.default_rng(hash((name, scale)) % 2**32)
    x = rng.standard_normal(200_000) * scale
    with np.errstate(all="ignore"):
        got = getattr(vecmath, name)(x)
        want = getattr(np, name)(x)
    assert got.dtype == np.float64 and got.shape == x.shape
    assert ulp_error(got, want).max() <= ULP_BOUND[name]


@pytest.mark.parametrize("name", FUNCS)
def test_special_values_match_numpy_exactly(name):
    special = np.array(
        [0.0, -0.0, np.inf, -np.inf, np.nan, 1e300, -1e300, 5e-324, -5e-324,
         1e-310, 709.9, 710.0, -745.2, -746.0, 1e5, -1e5, 1.5e5, 20.0, -20.5]
    )
    x = np.tile(special, 20)  # long enough to take the kernel path
    assert x.size >= vecmath.MIN_KERNEL_SIZE
    with np.errstate(all="ignore"):
        got = getattr(vecmath, name)(x)
        want = getattr(np, name)(x)
    both_nan = np.isnan(got) & np.isnan(want)
    close = np.abs(got - want) <= ULP_BOUND[name] * np.spacing(np.abs(want))
    assert np.all(both_nan | (got == want) | close)
    # signs of zeros and infinities are exact
    exact = (want == 0) | np.isinf(want)
    np.testing.assert_array_equal(got[exact], want[exact])
    np.testing.assert_array_equal(np.signbit(got[exact]), np.signbit(want[exact]))


@pytest.mark.parametrize("name", FUNCS)
def test_float32_rounds_once(name):
    rng = np.random.default_rng(7)
    x = (rng.standard_normal(50_000) * 4).astype(np.float32)
    got = getattr(vecmath, name)(x)
    want = getattr(np, name)(x.astype(np.float64)).astype(np.float32)
    assert got.dtype == np.float32
    assert ulp_error(got, want).max() <= 1


@pytest.mark.parametrize("name", FUNCS)
def test_small_and_non_float_inputs_use_numpy(name):
    fn = getattr(vecmath, name)
    small = np.linspace(-2, 2, vecmath.MIN_KERNEL_SIZE - 1)
    np.testing.assert_array_equal(fn(small), getattr(np, name)(small))
    ints = np.arange(-3, 300)
    with np.errstate(all="ignore"):
        np.testing.assert_array_equal(fn(ints), getattr(np, name)(ints))


@pytest.mark.parametrize("name", FUNCS)
def test_non_contiguous_input(name):
    x = np.random.default_rng(3).standard_normal((64, 40)).T[:, ::2]
    got = getattr(vecmath, name)(x)
    assert got.shape == x.shape
    assert ulp_error(got, getattr(np, name)(x)).max() <= ULP_BOUND[name]


@settings(max_examples=60, deadline=None)
@given(
    name=st.sampled_from(FUNCS),
    x=hnp.arrays(
        np.float64,
        st.integers(vecmath.MIN_KERNEL_SIZE, 400),
        elements=st.one_of(st.floats(-2e5, 2e5), st.sampled_from([np.nan, np.inf, -np.inf])),
    ),
)
def test_property_within_bound(name, x):
    with np.errstate(all="ignore"):
        got = getattr(vecmath, name)(x)
        want = getattr(np, name)(x)
    assert np.array_equal(np.isnan(got), np.isnan(want))
    assert ulp_error(got, want).max(initial=0) <= ULP_BOUND[name]


@pytest.mark.parametrize(
    "name, reference",
    [("sin_grad", lambda g, x: g * np.cos(x)), ("cos_grad", lambda g, x: -(g * np.sin(x)))],
)
def test_fused_trig_derivatives(name, reference):
    rng = np.random.default_rng(11)
    x = np.concatenate([rng.standard_normal(5000) * 10, [0.0, -0.0, np.inf, np.nan, 2e5]])
    g = rng.standard_normal(x.size)
    with np.errstate(all="ignore"):
        got = getattr(vecmath, name)(g, x)
        want = reference(g, x)
    assert np.array_equal(np.isnan(got), np.isnan(want))
    # one rounding of the product on top of the 2-ulp trig bound
    assert ulp_error(got, want).max(initial=0) <= 3
    exact = want == 0
    np.testing.assert_array_equal(np.signbit(got[exact]), np.signbit(want[exact]))


def test_fused_trig_falls_back_on_mismatched_operands():
    x = np.linspace(-3, 3, 500)
    g = np.float32(2.0) * np.ones(500, np.float32)  # dtype differs from x
    np.testing.assert_array_equal(vecmath.sin_grad(g, x), g * np.cos(x))
    np.testing.assert_array_equal(vecmath.sin_grad(2.0, x), 2.0 * np.cos(x))


@pytest.mark.parametrize("name", FUNCS)
def test_threaded_split_matches_one_thread(name, monkeypatch):
    x = np.random.default_rng(5).standard_normal(vecmath.PARALLEL_MIN_SIZE + 12345) * 5
    monkeypatch.setenv("TRACEGRAD_NUM_THREADS", "1")
    one = getattr(vecmath, name)(x)
    monkeypatch.setenv("TRACEGRAD_NUM_THREADS", "3")
    assert vecmath.num_threads() == 3
    np.testing.assert_array_equal(getattr(vecmath, name)(x), one)


# ==========================================================================
# Scalar functions for fused loops (_vecmath_kernels.<name>_f64 / _f32),
# called from a Numba loop as the code generator calls them.

SCALAR_ULP = {"exp": 1, "log": 1, "log1p": 2, "expm1": 2, "tanh": 3, "sigmoid": 3,
              "sin": 2, "cos": 2, "erf": 2}
_math_erf = np.frompyfunc(math.erf, 1, 1)
LD = np.longdouble
SCALAR_REF = {  # 80-bit long double where NumPy has it (x86), else float64
    "exp": lambda x: np.exp(x.astype(LD)),
    "log": lambda x: np.log(x.astype(LD)),
    "log1p": lambda x: np.log1p(x.astype(LD)),
    "expm1": lambda x: np.expm1(x.astype(LD)),
    "tanh": lambda x: np.tanh(x.astype(LD)),
    "sigmoid": lambda x: 1 / (1 + np.exp(-x.astype(LD))),
    "sin": lambda x: np.sin(x.astype(LD)),
    "cos": lambda x: np.cos(x.astype(LD)),
    # NumPy has no erf: the C library's (math.erf, within 1 ulp), as float64
    "erf": lambda x: _math_erf(x.astype(np.float64)).astype(np.float64).astype(LD),
}
_loops = {}


def scalar_loop(name, dtype):
    """A compiled ``out[i] = <name>_<f64|f32>(x[i])`` (compiled once per test run)."""
    key = (name, np.dtype(dtype).name)
    if key not in _loops:
        numba = pytest.importorskip("numba")
        from tracegrad.primitives import _vecmath_kernels as k

        f = getattr(k, f"{name}_{'f64' if key[1] == 'float64' else 'f32'}")

        @numba.njit(error_model="numpy")
        def loop(x, out):
            for i in range(x.size):
                out[i] = f(x[i])

        run = lambda x: (loop(x, out := np.empty_like(x)), out)[1]  # noqa: E731
        run.dispatcher = loop
        _loops[key] = run
    return _loops[key]


def sample_points(dtype, n=40_000):
    """Log-uniform over the whole finite range (both signs, subnormals included),
    plus points near 0, near 1, near -1 and normals of a few scales."""
    rng = np.random.default_rng(1234)
    info = np.finfo(dtype)
    lo, hi = np.log(float(info.smallest_subnormal)), np.log(float(info.max))
    mag = np.exp(rng.uniform(lo, hi, n))
    parts = [mag, -mag, rng.uniform(-1, 1, n // 4) * 1e-6, 1 + rng.uniform(-1, 1, n // 4) * 1e-4,
             -1 + rng.uniform(0, 1, n // 4) * 1e-4, rng.standard_normal(n // 4) * 3,
             rng.standard_normal(n // 4) * 300]
    with np.errstate(over="ignore"):
        x = np.concatenate(parts).astype(dtype)
    return x[np.isfinite(x)]


def scalar_ulp(got, want_ld, dtype):
    with np.errstate(over="ignore"):
        want = want_ld.astype(dtype)
    ok = np.isfinite(want) & (want != 0)
    diff = np.abs(got[ok].astype(LD) - want_ld[ok])
    return diff / np.spacing(np.abs(want[ok])).astype(LD)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("name", sorted(SCALAR_ULP))
def test_scalar_ulp_over_whole_range(name, dtype):
    x = sample_points(dtype)
    if name in ("sin", "cos"):
        x = x[np.abs(x) <= 1e5]  # beyond: the fix-up pass (tested below)
    got = scalar_loop(name, dtype)(x)
    assert got.dtype == dtype
    with np.errstate(all="ignore"):
        want = SCALAR_REF[name](x)
    bound = SCALAR_ULP[name] if dtype == np.float64 else 1
    err = scalar_ulp(got, want, dtype)
    assert err.max() <= bound, (name, x[np.isfinite(want.astype(dtype)) & (want != 0)][err.argmax()])
    # where the reference is 0, inf or NaN (overflow, underflow, outside the
    # domain), the fast function gives the same value, sign included
    with np.errstate(over="ignore"):
        w = want.astype(dtype)
    special = ~np.isfinite(w) | (w == 0)
    np.testing.assert_array_equal(got[special], w[special])
    signed = np.isinf(w) | (w == 0)  # (the sign of a NaN is not specified)
    np.testing.assert_array_equal(np.signbit(got[signed]), np.signbit(w[signed]))


SPECIAL_X = [0.0, -0.0, np.inf, -np.inf, np.nan, -1.0, 1.0, 5e-324, -5e-324]
# exact values: (name -> outputs for SPECIAL_X in float64)
SPECIAL_WANT = {
    "exp": [1.0, 1.0, np.inf, 0.0, np.nan, np.exp(-1.0), np.e, 1.0, 1.0],
    "log": [-np.inf, -np.inf, np.inf, np.nan, np.nan, np.nan, 0.0, np.log(5e-324), np.nan],
    "log1p": [0.0, -0.0, np.inf, np.nan, np.nan, -np.inf, np.log(2.0), 5e-324, -5e-324],
    "expm1": [0.0, -0.0, np.inf, -1.0, np.nan, np.expm1(-1.0), np.expm1(1.0), 5e-324, -5e-324],
    "tanh": [0.0, -0.0, 1.0, -1.0, np.nan, np.tanh(-1.0), np.tanh(1.0), 5e-324, -5e-324],
    "sigmoid": [0.5, 0.5, 1.0, 0.0, np.nan, 1 / (1 + np.e), 1 / (1 + np.exp(-1.0)), 0.5, 0.5],
    "sin": [0.0, -0.0, np.nan, np.nan, np.nan, np.sin(-1.0), np.sin(1.0), 5e-324, -5e-324],
    "cos": [1.0, 1.0, np.nan, np.nan, np.nan, np.cos(1.0), np.cos(1.0), 1.0, 1.0],
    "erf": [0.0, -0.0, 1.0, -1.0, np.nan, math.erf(-1.0), math.erf(1.0), 5e-324, -5e-324],
}


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("name", sorted(SCALAR_ULP))
def test_scalar_special_values_exact(name, dtype):
    x = np.array(SPECIAL_X, dtype)
    with np.errstate(all="ignore"):
        want = np.array(SPECIAL_WANT[name], np.float64).astype(dtype)
        if dtype == np.float32:  # the float32 subnormal inputs are 0 here
            want[7:] = np.array(SPECIAL_WANT[name][:2], np.float64).astype(dtype)
    got = scalar_loop(name, dtype)(x)
    np.testing.assert_allclose(got, want, rtol=2 * np.finfo(dtype).eps, atol=0)
    exact = ~np.isfinite(want) | (want == 0)
    np.testing.assert_array_equal(got[exact], want[exact])
    signed = np.isinf(want) | (want == 0)
    np.testing.assert_array_equal(np.signbit(got[signed]), np.signbit(want[signed]))


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_scalar_overflow_and_underflow_thresholds(dtype):
    x = np.array([709.78, 709.79, 710.0, -745.1, -745.2, -708.0, -740.0, 88.7, 88.8,
                  -103.9, -104.0, -87.0], dtype)
    with np.errstate(all="ignore"):
        for name in ("exp", "expm1", "sigmoid"):
            want = SCALAR_REF[name](x)
            got = scalar_loop(name, dtype)(x)
            w = want.astype(dtype)
            exact = ~np.isfinite(w) | (w == 0)
            np.testing.assert_array_equal(got[exact], w[exact])
            bound = SCALAR_ULP[name] if dtype == np.float64 else 1
            assert scalar_ulp(got, want, dtype).max(initial=0) <= bound
            # sigmoid's lower tail: e**x, subnormal results included, not 0
            if name == "sigmoid" and dtype == np.float64:
                assert np.all(got[(x < -700) & (x > -745)] > 0)


@pytest.mark.parametrize("name", ["log1p", "expm1", "log"])
def test_scalar_near_branch_points(name):
    rng = np.random.default_rng(99)
    t = np.exp(rng.uniform(np.log(1e-300), np.log(1e-1), 20_000)) * rng.choice([-1, 1], 20_000)
    x = 1.0 + t if name == "log" else t
    got = scalar_loop(name, np.float64)(x)
    assert scalar_ulp(got, SCALAR_REF[name](x), np.float64).max() <= SCALAR_ULP[name]


def test_trig_fixup_path_for_huge_arguments():
    numba = pytest.importorskip("numba")
    from tracegrad.primitives import _vecmath_kernels as k

    @numba.njit(error_model="numpy")
    def fused_sin_cos(x, s, c):
        # what a fused loop does: fast value, OR the predicate into a flag,
        # then a scalar fix-up pass over the flagged elements
        bad = False
        for i in range(x.size):
            s[i] = k.sin_f64(x[i])
            c[i] = k.cos_f64(x[i])
            bad |= k.needs_fixup_trig(x[i])
        if bad:
            for i in range(x.size):
                if k.needs_fixup_trig(x[i]):
                    s[i] = math.sin(x[i])
                    c[i] = math.cos(x[i])

    rng = np.random.default_rng(5)
    mag = np.exp(rng.uniform(np.log(1e4), np.log(1.7e308), 20_000))
    x = np.concatenate([mag, -mag, [1e5, -1e5, 1e22, np.inf, -np.inf, np.nan]])
    s, c = np.empty_like(x), np.empty_like(x)
    fused_sin_cos(x, s, c)
    with np.errstate(invalid="ignore"):
        np.testing.assert_array_max_ulp(s, np.sin(x), maxulp=2)
        np.testing.assert_array_max_ulp(c, np.cos(x), maxulp=2)
    assert not k.needs_fixup_trig(1e5) and k.needs_fixup_trig(1.0000001e5)
    assert not k.needs_fixup_trig(np.inf) and not k.needs_fixup_trig(np.nan)


@settings(max_examples=40, deadline=None)
@given(
    name=st.sampled_from(sorted(SCALAR_ULP)),
    x=hnp.arrays(np.float64, st.integers(1, 50),
                 elements=st.floats(allow_nan=True, allow_infinity=True)),
)
def test_scalar_property_matches_numpy(name, x):
    if name in ("sin", "cos"):
        x = x[~(np.abs(x) > 1e5) | np.isinf(x)]
    got = scalar_loop(name, np.float64)(x)
    with np.errstate(all="ignore"):
        want = SCALAR_REF[name](x)
    assert np.array_equal(np.isnan(got), np.isnan(want.astype(np.float64)))
    assert scalar_ulp(got, want, np.float64).max(initial=0) <= SCALAR_ULP[name]


def test_scalar_erf_tails_and_switch_points():
    # the series/rational switch at |x| = 1 and the rounding of erf to 1 near 6
    rng = np.random.default_rng(17)
    x = np.concatenate([1 + rng.uniform(-1e-3, 1e-3, 5000), rng.uniform(5.5, 6.5, 5000),
                        rng.uniform(0, 7, 10000), [1.0, np.nextafter(1.0, 0), 6.0, 5.9, 27.0]])
    x = np.concatenate([x, -x])
    got = scalar_loop("erf", np.float64)(x)
    want = SCALAR_REF["erf"](x)
    assert scalar_ulp(got, want, np.float64).max() <= SCALAR_ULP["erf"]
    np.testing.assert_array_equal(got[np.abs(x) >= 6], np.sign(x[np.abs(x) >= 6]))


# ==========================================================================
# pow_f64 / pow_f32 (two operands)

_pow_loops = {}


def pow_loop(dtype):
    """A compiled ``out[i] = pow_<f64|f32>(x[i], y[i])``."""
    key = np.dtype(dtype).name
    if key not in _pow_loops:
        numba = pytest.importorskip("numba")
        from tracegrad.primitives import _vecmath_kernels as k

        f = k.pow_f64 if key == "float64" else k.pow_f32

        @numba.njit(error_model="numpy")
        def loop(x, y, out):
            for i in range(x.size):
                out[i] = f(x[i], y[i])

        _pow_loops[key] = loop
    loop = _pow_loops[key]
    run = lambda x, y: (loop(x, y, out := np.empty_like(x)), out)[1]  # noqa: E731
    run.dispatcher = loop
    return run


def pow_cases(dtype, n=30_000):
    """(name, bases, exponents): the whole range, results near over- and
    underflow, bases near 1 with huge exponents, negative bases with
    integer exponents, subnormal bases and results."""
    rng = np.random.default_rng(4321)
    x = np.exp(rng.uniform(-5, 5, n))
    info = np.finfo(dtype)
    sub = np.exp(rng.uniform(np.log(float(info.smallest_subnormal)), np.log(float(info.tiny)), n))
    return [
        ("log-uniform", np.exp(rng.uniform(-745, 709, n)), rng.standard_normal(n) * 3),
        ("large |y log x|", x, rng.uniform(-745, 709, n) / np.log(x)),
        ("near 1, huge y", 1 + rng.uniform(-1e-3, 1e-3, n), rng.uniform(-7e5, 7e5, n)),
        ("near sqrt 2", np.sqrt(2) * (1 + rng.uniform(-1e-2, 1e-2, n)), rng.uniform(-2e3, 2e3, n)),
        ("negative base", -np.exp(rng.uniform(-20, 20, n)), np.round(rng.uniform(-30, 30, n))),
        ("subnormal base", sub, rng.uniform(-1, 1.2, n)),
    ]


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_pow_ulp_over_ranges(dtype):
    bound = 2 if dtype == np.float64 else 1
    for name, x, y in pow_cases(dtype):
        with np.errstate(over="ignore"):
            x, y = x.astype(dtype), y.astype(dtype)
        keep = np.isfinite(x) & np.isfinite(y)
        x, y = x[keep], y[keep]
        got = pow_loop(dtype)(x, y)
        assert got.dtype == dtype
        with np.errstate(all="ignore"):
            want = np.power(x.astype(LD), y.astype(LD))
            w = want.astype(dtype)
        err = scalar_ulp(got, want, dtype)
        assert err.size > 1000 and err.max() <= bound, (name, err.max())
        special = ~np.isfinite(w) | (w == 0)  # overflow, underflow, NaN: exact
        np.testing.assert_array_equal(got[special], w[special])


POW_X = [0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 2.0, -2.0, 0.5, -0.5, 5e-324, -5e-324,
         1e308, -3.0, 10.0]
POW_Y = [0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 2.0, -2.0, 3.0, -3.0, 0.5, -0.5, 1e308,
         -1e308, 2.5, 1e-320, 2.0 ** 53, 2.0 ** 53 + 2, 1023.9, 1024.0, -1074.0, -1075.0, 308.0,
         -323.0, -324.0,
         # odd and even integers and half-integers where float spacing is 1/2 and 1
         2.0 ** 51 + 1, 2.0 ** 51 + 0.5, 2.0 ** 52 + 1, 2.0 ** 52 + 2, 2.0 ** 53 - 1,
         -(2.0 ** 52 + 1)]


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_pow_special_values_match_numpy(dtype):
    # every pair: zeros, infinities, NaN, 1**y, x**0, negative bases with
    # odd/even/non-integer exponents, overflow and underflow thresholds
    with np.errstate(over="ignore"):
        xs, ys = (np.array(v, dtype) for v in np.meshgrid(POW_X, POW_Y))
    x, y = xs.ravel(), ys.ravel()
    got = pow_loop(dtype)(x, y)
    with np.errstate(all="ignore"):
        want = np.power(x.astype(np.float64), y.astype(np.float64)).astype(dtype)
    exact = ~np.isfinite(want) | (want == 0) | (np.abs(x) == 1) | (y == 0)
    np.testing.assert_array_equal(got[exact], want[exact])
    signed = np.isinf(want) | (want == 0)
    np.testing.assert_array_equal(np.signbit(got[signed]), np.signbit(want[signed]))
    np.testing.assert_array_max_ulp(got[~exact], want[~exact], maxulp=2)


@settings(max_examples=40, deadline=None)
@given(xy=hnp.arrays(np.float64, st.tuples(st.just(2), st.integers(1, 30)),
                     elements=st.floats(allow_nan=True, allow_infinity=True)))
def test_pow_property_matches_numpy(xy):
    x, y = np.ascontiguousarray(xy[0]), np.ascontiguousarray(xy[1])
    got = pow_loop(np.float64)(x, y)
    with np.errstate(all="ignore"):
        want = np.power(x.astype(LD), y.astype(LD))
        w = np.power(x, y)
    assert np.array_equal(np.isnan(got), np.isnan(w))
    assert scalar_ulp(got, want, np.float64).max(initial=0) <= 2
    special = ~np.isfinite(w) | (w == 0)
    np.testing.assert_array_equal(got[special], w[special])


# A packed (4- or 8-lane) float arithmetic instruction in x86-64 assembly
_PACKED_OP = r"\bv(?:fn?madd|fn?msub|mul|add|sub|div)\w*p[ds]\s+[^\n]*%[yz]mm"


def _packed_ops(dispatcher):
    return len(re.findall(_PACKED_OP, "".join(dispatcher.inspect_asm().values())))


def test_scalar_functions_vectorize():
    """The loops compile to SIMD code (packed arithmetic on ymm/zmm registers:
    no libm call per element); ``math.exp``'s loop, the control, has none."""
    numba = pytest.importorskip("numba")
    try:
        with open("/proc/cpuinfo") as f:
            avx2 = " avx2" in f.read()
    except OSError:
        avx2 = False
    if not avx2:
        pytest.skip("packed instructions are counted on x86-64 machines with AVX2")

    @numba.njit(error_model="numpy")
    def math_loop(x, out):
        for i in range(x.size):
            out[i] = math.exp(x[i])

    x = np.linspace(-1, 1, 64)
    math_loop(x, np.empty_like(x))
    assert _packed_ops(math_loop) == 0
    for dt in (np.float64, np.float32):
        xt = x.astype(dt)
        pow_loop(dt)(xt, xt)
        assert _packed_ops(pow_loop(dt).dispatcher) >= 20, ("pow", dt)
        for name in sorted(SCALAR_ULP):
            run = scalar_loop(name, dt)
            run(xt)
            assert _packed_ops(run.dispatcher) >= 10, (name, dt)


# ==========================================================================
# The functions inside jit's fused loops (transforms/codegen_math names)

def test_jit_fused_loops_use_fast_functions_and_match_eager():
    pytest.importorskip("numba")
    import tracegrad as tg
    import tracegrad.numpy as tnp
    from tracegrad.primitives.nn import erf, sigmoid

    rng = np.random.default_rng(8)
    specials = [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-310, -1e-310, 1e300, -1e300, 710.0, -750.0]
    x = np.concatenate([rng.standard_normal(1000) * 5, specials])  # >= FAST_MATH_MIN_SIZE
    y = np.concatenate([rng.standard_normal(1000) * 3, specials[::-1]])

    def f(x, y):
        return (tnp.log(x), tnp.log1p(x), tnp.expm1(x), tnp.power(x, y), erf(x), sigmoid(x))

    jitted = tg.jit(f)
    source = jitted.lower(x, y).source
    for name in ("flog(", "flog1p(", "fexpm1(", "fpow(", "ferf(", "fsigmoid("):
        assert name in source, name
    with np.errstate(all="ignore"):
        got, want = jitted(x, y), f(x, y)
    for g, w in zip(got, want):
        g, w = np.asarray(g), np.asarray(w)
        assert g.dtype == w.dtype
        np.testing.assert_array_equal(np.isnan(g), np.isnan(w))
        exact = ~np.isfinite(w) | (w == 0)
        np.testing.assert_array_equal(g[exact], w[exact])
        np.testing.assert_array_max_ulp(g[~exact & ~np.isnan(w)], w[~exact & ~np.isnan(w)], maxulp=4)
