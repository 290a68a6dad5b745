"""Accuracy of the vectorized Numba math kernels against NumPy (the C library)."""
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
