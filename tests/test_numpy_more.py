"""Values, tracers, NumPy dispatch and exact edge cases of the functions added
to ``tracegrad.numpy`` for "the rest of NumPy" (real inputs).

Derivatives to second order, both modes, are in ``test_grad_table.py``; here
each function is compared with NumPy at special points (signed zeros,
infinities, NaN, ties, subnormals), on plain arrays, on tracers (the primal
of ``jvp``, and under ``vmap``), and through the NumPy spelling on a tracer.
"""
import warnings

import numpy as np
import pytest

import tracegrad as tg
import tracegrad.numpy as tnp

EDGE = np.array([-2.5, -1.0, -0.0, 0.0, 1e-5, 0.3, 2.0, 3.5, 1e-310, np.inf, -np.inf, np.nan])
EDGE2 = np.array([2.0, -1.5, 1.0, -1.0, 0.7, -0.0, 3.0, -2.0, 1.0, 1.0, 1.0, 2.0])


def same(got, want):
    """Bit-level agreement: values (NaN where NaN), sign of zero, dtype, shape."""
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    assert got.shape == want.shape, (got.shape, want.shape)
    np.testing.assert_array_equal(got, want)
    if want.dtype.kind == "f":
        np.testing.assert_array_equal(np.signbit(got[~np.isnan(got)]),
                                      np.signbit(want[~np.isnan(want)]))


def traced(fn, *args):
    """``fn(*args)`` computed on tracers: the primal output of ``jvp`` (integer
    and bool inputs take ``float0`` tangents, as in JAX)."""
    def tangent(a):
        a = np.asarray(a)
        return np.ones_like(a) if a.dtype.kind in "fc" else np.zeros(a.shape, tg.float0)

    return tg.jvp(fn, args, tuple(tangent(a) for a in args))[0]


def quiet():
    ctx = warnings.catch_warnings()
    ctx.__enter__()
    warnings.simplefilter("ignore", RuntimeWarning)
    return ctx


# --------------------------------------------------------------------------
# group 2: elementwise (_math.py)

UNARY_EXACT = ["deg2rad", "rad2deg", "degrees", "radians", "fabs", "signbit", "nan_to_num",
               "real_if_close"]
BINARY_EXACT = ["fmod", "copysign", "heaviside"]


@pytest.mark.parametrize("name", UNARY_EXACT)
def test_unary_matches_numpy_exactly(name):
    ctx = quiet()
    want = getattr(np, name)(EDGE)
    same(getattr(tnp, name)(EDGE), want)
    same(traced(getattr(tnp, name), EDGE), want)
    same(traced(getattr(np, name), EDGE), want)  # NumPy's spelling on a tracer
    ctx.__exit__(None, None, None)


@pytest.mark.parametrize("name", BINARY_EXACT)
def test_binary_matches_numpy_exactly(name):
    ctx = quiet()
    want = getattr(np, name)(EDGE, EDGE2)
    same(getattr(tnp, name)(EDGE, EDGE2), want)
    same(traced(getattr(tnp, name), EDGE, EDGE2), want)
    same(traced(getattr(np, name), EDGE, EDGE2), want)
    # the other argument order reaches the other signs and zeros
    same(traced(getattr(tnp, name), EDGE2, EDGE), getattr(np, name)(EDGE2, EDGE))
    ctx.__exit__(None, None, None)


@pytest.mark.parametrize("name", ["sinc", "logaddexp2", "float_power"])
def test_rounding_functions_match_numpy_closely(name):
    ctx = quiet()
    args = (EDGE,) if name == "sinc" else (EDGE, EDGE2)
    want = getattr(np, name)(*args)
    for got in (getattr(tnp, name)(*args), traced(getattr(tnp, name), *args),
                traced(getattr(np, name), *args)):
        assert np.asarray(got).dtype == want.dtype
        np.testing.assert_allclose(got, want, rtol=2e-16 * 4, atol=0)
    ctx.__exit__(None, None, None)


def test_sinc_and_its_derivatives_at_zero():
    assert tnp.sinc(0.0) == 1.0 and tnp.sinc(np.float32(0.0)).dtype == np.float32
    assert tg.grad(tnp.sinc)(0.0) == 0.0
    d2 = tg.grad(tg.grad(tnp.sinc))(0.0)
    np.testing.assert_allclose(d2, -np.pi ** 2 / 3, rtol=1e-14)
    d2_fwd = tg.jacfwd(tg.jacfwd(tnp.sinc))(0.0)
    np.testing.assert_allclose(d2_fwd, -np.pi ** 2 / 3, rtol=1e-14)
    # on both sides of the series threshold the derivative is continuous
    for x in (0.999e-3 / np.pi, 1.001e-3 / np.pi):
        u = np.pi * x
        want = (u * np.cos(u) - np.sin(u)) / (u * x)
        np.testing.assert_allclose(tg.grad(tnp.sinc)(x), want, rtol=1e-9)
    same(tnp.sinc(np.array([1, 2, -3])), np.sinc(np.array([1, 2, -3])))  # ints -> float64


def test_fmod_edges():
    # derivative 1 in x1 at x1 = 0 (fmod is x1 itself near 0), -trunc(x1/x2) in x2
    assert tg.grad(lambda x: tnp.fmod(x, 2.0))(0.0) == 1.0
    assert tg.grad(lambda x: tnp.fmod(x, -2.0))(-0.0) == 1.0
    assert tg.grad(lambda y: tnp.fmod(-7.5, y))(2.0) == 3.0
    assert tg.grad(lambda y: tnp.fmod(7.5, y))(-2.0) == 3.0
    with np.errstate(invalid="ignore"):
        same(tnp.fmod(np.array([1.0, -0.0]), 0.0), np.fmod(np.array([1.0, -0.0]), 0.0))
    same(tnp.fmod(np.array([7, -7]), 3), np.fmod(np.array([7, -7]), 3))
    # tiny negative dividend: the mod-based identity would round to 0, fmod keeps it
    same(traced(lambda x: tnp.fmod(x, 1.0), np.array([-1e-20])), np.array([-1e-20]))


def test_copysign_edges():
    assert tg.grad(lambda x: tnp.copysign(x, -1.0))(2.0) == -1.0
    assert tg.grad(lambda x: tnp.copysign(x, -0.0))(-3.0) == 1.0
    assert tg.grad(lambda y: tnp.copysign(2.0, y))(-1.0) == 0.0
    # at x1 = +-0 the derivative is the sign of x2, whatever the sign of zero (JAX)
    for zero in (0.0, -0.0):
        assert tg.grad(lambda x: tnp.copysign(x, 1.5))(zero) == 1.0
        assert tg.grad(lambda x: tnp.copysign(x, -1.5))(zero) == -1.0
    same(tnp.copysign(np.float32([1.0, -2.0]), np.float32([-0.0, 3.0])),
         np.copysign(np.float32([1.0, -2.0]), np.float32([-0.0, 3.0])))


def test_heaviside_derivative_goes_to_x2_only_at_zero():
    x1 = np.array([-1.0, 0.0, -0.0, 2.0])
    g1, g2 = tg.grad(lambda a, b: tnp.sum(tnp.heaviside(a, b)), argnums=(0, 1))(x1, np.full(4, 0.5))
    same(g1, np.zeros(4))
    same(g2, np.array([0.0, 1.0, 1.0, 0.0]))


def test_nan_to_num_options_and_derivative():
    x = np.array([np.nan, np.inf, -np.inf, 1.5, -0.0])
    for kw in ({}, {"nan": 1.0, "posinf": 9.0, "neginf": -9.0}):
        same(traced(lambda v: tnp.nan_to_num(v, **kw), x), np.nan_to_num(x, **kw))
    same(tnp.nan_to_num(np.float32([np.inf])), np.nan_to_num(np.float32([np.inf])))
    same(tnp.nan_to_num(np.array([1, 2])), np.array([1, 2]))
    g = tg.grad(lambda v: tnp.sum(tnp.nan_to_num(v, posinf=1.0, neginf=-1.0) * 2.0))(x)
    same(g, np.array([0.0, 0.0, 0.0, 2.0, 2.0]))


def test_frexp_and_ldexp_exact():
    x = np.array([2 - 2 ** -52, 1.0, 0.5, -3.0, 1e-310, 5e-324, 1.7e308, 0.0, -0.0,
                  np.inf, -np.inf, np.nan])
    m, e = np.frexp(x)
    ctx = quiet()
    for got in (tnp.frexp(x), traced(tnp.frexp, x), traced(np.frexp, x)):
        same(got[0], m)
        same(got[1], e)
    ctx.__exit__(None, None, None)
    same(tnp.frexp(np.float32([3.0]))[0], np.frexp(np.float32([3.0]))[0])
    np.testing.assert_array_equal(tg.grad(lambda v: tnp.sum(tnp.frexp(v)[0]))(np.array([3.0, -0.75])),
                                  [0.25, 1.0])
    k = np.array([1, -3, 0, 5, 0, 0, -1])
    v = np.array([1.5, -2, 3, 0.25, -0.0, np.inf, np.nan])
    same(traced(lambda v: tnp.ldexp(v, k), v), np.ldexp(v, k))
    same(traced(np.ldexp, v, k), np.ldexp(v, k))
    same(tnp.ldexp(np.float32([1.5]), np.array([3])), np.ldexp(np.float32([1.5]), np.array([3])))
    assert tg.grad(lambda v: tnp.ldexp(v, 3))(1.0) == 8.0
    with pytest.raises(TypeError, match="integer exponents"):
        tnp.ldexp(1.0, 2.5)


def test_signbit_of_traced_zeros_and_ints():
    same(traced(tnp.signbit, np.array([-0.0, 0.0, -1e-310, np.inf, -np.inf])),
         np.array([True, False, True, False, True]))
    out = tg.vmap(lambda v: tnp.signbit(v))(np.array([-0.0, 2.0]))
    same(out, np.array([True, False]))


def test_fabs_rejects_complex_and_gives_float():
    with pytest.raises(TypeError, match="complex"):
        tnp.fabs(np.array([1j]))
    same(tnp.fabs(np.array([-3, 2])), np.fabs(np.array([-3, 2])))


def test_aliases_are_numpys():
    for a, b in [("acos", "arccos"), ("asin", "arcsin"), ("atan", "arctan"), ("atan2", "arctan2"),
                 ("acosh", "arccosh"), ("asinh", "arcsinh"), ("atanh", "arctanh"),
                 ("concat", "concatenate"), ("permute_dims", "transpose"), ("pow", "power")]:
        assert getattr(tnp, a) is getattr(tnp, b)
    x = np.arange(24.0).reshape(2, 3, 4)
    same(traced(np.matrix_transpose, x), np.matrix_transpose(x))
    same(tg.vmap(tnp.matrix_transpose)(x), np.matrix_transpose(x))
    with pytest.raises(ValueError):
        tnp.matrix_transpose(np.ones(3))


def test_vmap_of_elementwise_functions():
    x = np.array([[0.5, -1.5, 0.0], [2.0, -0.0, 3.0]])
    y = np.array([[2.0, 2.0, -1.0], [-3.0, 1.0, 2.0]])
    for name in ["fmod", "copysign", "heaviside", "logaddexp2"]:
        got = tg.vmap(getattr(tnp, name))(x, y)
        np.testing.assert_allclose(got, getattr(np, name)(x, y), rtol=1e-15)
    for name in ["sinc", "deg2rad", "fabs", "nan_to_num"]:
        np.testing.assert_allclose(tg.vmap(getattr(tnp, name))(x), getattr(np, name)(x),
                                   rtol=1e-15)


# --------------------------------------------------------------------------
# group 3: NaN-ignoring reductions and statistics (_nan.py, _statistics.py)

XN = np.array([[1.0, np.nan, 3.0, -2.0], [np.nan, np.nan, np.nan, np.nan], [2.0, -1.0, 0.5, 4.0]])
NAN_FUNCS = ["nansum", "nanprod", "nanmean", "nanvar", "nanstd", "nanmax", "nanmin",
             "nancumsum", "nancumprod", "nanmedian"]


@pytest.mark.parametrize("name", NAN_FUNCS)
@pytest.mark.parametrize("axis", [None, 0, 1])
def test_nan_functions_match_numpy_with_all_nan_slices(name, axis):
    ctx = quiet()
    want = getattr(np, name)(XN, axis=axis)
    for got in (getattr(tnp, name)(XN, axis=axis), traced(lambda v: getattr(tnp, name)(v, axis=axis), XN),
                traced(lambda v: getattr(np, name)(v, axis=axis), XN)):
        assert np.asarray(got).dtype == want.dtype and np.shape(got) == np.shape(want)
        np.testing.assert_allclose(got, want, rtol=1e-14, atol=0, equal_nan=True)
    ctx.__exit__(None, None, None)


def test_nan_function_derivatives_are_zero_at_nans():
    g = tg.grad(lambda v: tnp.nanmean(v))(XN)
    np.testing.assert_array_equal(g, np.where(np.isnan(XN), 0.0, 1.0 / 7))
    g = tg.grad(lambda v: tnp.sum(tnp.nanmax(v, axis=1)[np.array([0, 2])]))(XN)
    np.testing.assert_array_equal(g, [[0, 0, 1, 0], [0, 0, 0, 0], [0, 0, 0, 1]])
    g = tg.grad(lambda v: tnp.sum(tnp.nanstd(v, axis=1)[np.array([0, 2])]))(XN)
    assert np.all(g[np.isnan(XN)] == 0) and np.all(np.isfinite(g))


def test_nanargmax_and_nanargmin():
    x = np.array([[1.0, np.nan, 3.0], [np.nan, -1.0, 0.5]])
    for name in ("nanargmax", "nanargmin"):
        for axis in (None, 0, 1):
            want = getattr(np, name)(x, axis=axis)
            np.testing.assert_array_equal(getattr(tnp, name)(x, axis=axis), want)
            np.testing.assert_array_equal(traced(lambda v: getattr(np, name)(v, axis=axis), x), want)
        with pytest.raises(ValueError, match="All-NaN"):
            getattr(tnp, name)(XN, axis=1)


def test_quantile_methods_and_nan_handling_match_numpy():
    rng = np.random.default_rng(1)
    x = rng.standard_normal((3, 4, 6))
    x[0, 1, 2] = np.nan
    x[2, 3, :] = np.nan
    q = np.array([0.0, 0.1, 0.5, 0.77, 1.0])
    for method in tnp._statistics.METHODS:
        for axis in (None, 1, (0, 2)):
            for fn in ("quantile", "nanquantile"):
                ctx = quiet()
                want = getattr(np, fn)(x, q, axis=axis, method=method)
                got = traced(lambda v: getattr(tnp, fn)(v, q, axis=axis, method=method), x)
                ctx.__exit__(None, None, None)
                assert got.shape == want.shape
                np.testing.assert_allclose(got, want, rtol=1e-13, atol=1e-15, equal_nan=True,
                                           err_msg=f"{fn} {method} {axis}")


def test_quantile_edges():
    x = np.array([1.0, 2.0, 2.0, 5.0])
    same(tnp.median(x), np.median(x))
    same(tnp.median(np.array([3, 1, 2])), np.median(np.array([3, 1, 2])))  # ints -> float64
    same(tnp.quantile(np.float32([1, 2, 3]), 0.5), np.quantile(np.float32([1, 2, 3]), 0.5))
    same(tnp.percentile(x, [0, 100]), np.percentile(x, [0, 100]))
    # infinite order statistics with zero weight do not make a NaN
    same(tnp.quantile(np.array([-np.inf, 1.0, 2.0, np.inf]), 0.5), np.array(1.5))
    same(tnp.quantile(np.array([1.0, 2.0, np.inf]), 1.0), np.array(np.inf))
    # the derivative: 1/2 to each middle value; lower gives 1 to one of them
    np.testing.assert_array_equal(tg.grad(tnp.median)(np.array([4.0, 1.0, 3.0, 2.0])),
                                  [0.0, 0.0, 0.5, 0.5])
    np.testing.assert_array_equal(
        tg.grad(lambda v: tnp.quantile(v, 0.5, method="lower"))(np.array([4.0, 1.0, 3.0, 2.0])),
        [0.0, 0.0, 0.0, 1.0])
    with pytest.raises(ValueError, match=r"range \[0, 1\]"):
        tnp.quantile(x, 1.5)
    with pytest.raises(ValueError, match=r"range \[0, 100\]"):
        tnp.percentile(x, -1)
    with pytest.raises(ValueError, match="not supported"):
        tnp.quantile(x, 0.5, method="inverted_cdf")
    with pytest.raises(TypeError, match="weights"):
        tnp.quantile(x, 0.5, weights=x)


def test_nanmedian_under_vmap_with_varying_nan_counts():
    x = np.array([[1.0, np.nan, 3.0, 7.0], [np.nan, np.nan, 2.0, 5.0], [np.nan] * 4])
    ctx = quiet()
    want = np.nanmedian(x, axis=1)
    got = tg.vmap(tnp.nanmedian)(x)
    ctx.__exit__(None, None, None)
    np.testing.assert_array_equal(got, want)


def test_cov_corrcoef_edges():
    m = np.array([[1.0, 2.0, 4.0], [2.0, 2.0, 2.5]])
    same(tnp.cov(m[0]), np.cov(m[0]))
    same(tnp.cov(np.float32(m)), np.cov(np.float32(m)))
    same(tnp.corrcoef(m)[0, 0], np.array(1.0))
    np.testing.assert_allclose(tnp.corrcoef(m), np.corrcoef(m), rtol=1e-15)
    with pytest.raises(ValueError, match="more than 2"):
        tnp.cov(np.ones((2, 2, 2)))
    with pytest.raises(ValueError, match="negative"):
        tnp.cov(m, aweights=np.array([1.0, -1.0, 1.0]))
    with pytest.raises(TypeError, match="integer"):
        tnp.cov(m, fweights=np.array([1.5, 1, 1]))


def test_diff_gradient_trapezoid_edges():
    b = np.array([True, True, False, False, True])
    same(tnp.diff(b), np.diff(b))
    same(tnp.diff(np.array([1, 4, 9])), np.diff(np.array([1, 4, 9])))
    same(tnp.diff(np.arange(3.0), n=0), np.arange(3.0))
    with pytest.raises(ValueError, match="non-negative"):
        tnp.diff(np.ones(3), n=-1)
    with pytest.raises(ValueError, match="at least one dimensional"):
        tnp.diff(np.float64(1.0))
    same(tnp.ediff1d(np.array([[1, 2], [4, 8]])), np.ediff1d(np.array([[1, 2], [4, 8]])))
    same(tnp.gradient(np.array([1, 4, 9, 16])), np.gradient(np.array([1, 4, 9, 16])))
    g = tnp.gradient(np.arange(12.0).reshape(3, 4) ** 2)
    for a, b in zip(g, np.gradient(np.arange(12.0).reshape(3, 4) ** 2)):
        same(a, b)
    with pytest.raises(ValueError, match="too small"):
        tnp.gradient(np.ones(2), edge_order=2)
    same(tnp.trapezoid(np.array([1, 2, 3])), np.trapezoid(np.array([1, 2, 3])))
    # the derivative of the integral in the sample points
    gx = tg.grad(lambda c: tnp.trapezoid(np.array([1.0, 2.0, 4.0]), c))(np.array([0.0, 1.0, 3.0]))
    np.testing.assert_allclose(gx, [-1.5, -1.5, 3.0])


def test_counting_functions():
    x = np.array([[0.0, 1.5, -0.0], [2.0, 0.0, np.nan]])
    for axis in (None, 0, 1):
        want = np.count_nonzero(x, axis=axis)
        same(tnp.count_nonzero(x, axis=axis), want)
        same(traced(lambda v: np.count_nonzero(v, axis=axis), x), want)
    assert type(tnp.count_nonzero(x)) is type(np.count_nonzero(x))
    same(tg.vmap(tnp.count_nonzero)(x), np.count_nonzero(x, axis=1))
    xi = np.array([0, 3, 3, 1])
    same(tnp.bincount(xi), np.bincount(xi))
    same(tnp.bincount(xi, minlength=6), np.bincount(xi, minlength=6))
    same(tnp.bincount(np.array([], dtype=int)), np.bincount(np.array([], dtype=int)))
    with pytest.raises(ValueError, match="negative"):
        tnp.bincount(np.array([1, -1]))
    g = tg.grad(lambda w: tnp.sum(tnp.bincount(xi, w) ** 2))(np.array([1.0, 2.0, 3.0, 4.0]))
    np.testing.assert_array_equal(g, [2.0, 10.0, 10.0, 8.0])
    bins = np.array([0.0, 1.0, 2.5])
    v = np.array([-1.0, 0.0, 1.0, 2.0, 2.5, 9.0, np.nan])
    for b in (bins, bins[::-1]):
        for right in (False, True):
            same(tnp.digitize(v, b, right=right), np.digitize(v, b, right=right))
            same(tg.vmap(lambda t: tnp.digitize(t, b, right=right))(v), np.digitize(v, b, right=right))
    with pytest.raises(ValueError, match="monotonically"):
        tnp.digitize(v, np.array([0.0, 2.0, 1.0]))


def test_histogram_values_weights_and_abstract_input():
    rng = np.random.default_rng(3)
    a = rng.standard_normal(50)
    w = rng.uniform(size=50)
    for kw in ({}, {"bins": 5, "range": (-1.0, 1.0)}, {"bins": [-3, -1, 0, 0.5, 3]},
               {"density": True}, {"weights": w}, {"weights": w, "density": True}):
        h, e = tnp.histogram(a, **kw)
        hh, ee = np.histogram(a, **kw)
        assert h.dtype == hh.dtype
        np.testing.assert_allclose(h, hh, rtol=1e-14)
        same(e, ee)
    out, t = tg.jvp(lambda ww: tnp.histogram(a, bins=4, weights=ww)[0], (w,), (np.ones(50),))
    np.testing.assert_allclose(t, np.histogram(a, bins=4)[0])
    with pytest.raises(TypeError, match="histogram needs the concrete value"):
        tg.vmap(lambda v: tnp.histogram(v)[0])(a.reshape(5, 10))
    # the edges are NumPy's also for the right-most value
    same(tnp.histogram(np.array([0.0, 1.0, 1.0]), bins=2)[0], np.histogram(np.array([0.0, 1.0, 1.0]), bins=2)[0])


# --------------------------------------------------------------------------
# group 4: index helpers (_index_tricks.py)


def _same_tree(got, want):
    if isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want)
        for g, w in zip(got, want):
            same(g, w)
    else:
        same(got, want)


V = np.array([0.5, -1.0, 2.0])
M = np.array([[1.0, 2.0], [3.0, 4.0]])
INDEX_CASES = [
    ("r_", lambda ns, v: ns.r_[v, 1.5, 0:2]),
    ("r_-linspace", lambda ns, v: ns.r_[v, -1:1:5j]),
    ("r_-directive", lambda ns, v: ns.r_["0,2,0", v, v]),
    ("r_-directive-axis1", lambda ns, v: ns.r_["1,2", v, v]),
    ("r_-float32", lambda ns, v: ns.r_[v.astype(np.float32), 2.0]),
    ("c_", lambda ns, v: ns.c_[v, v]),
    ("c_-slice", lambda ns, v: ns.c_[1:3, np.array([[1], [2]])] * v[:1]),
    ("ix_", lambda ns, v: ns.ix_(np.array([0, 1]), np.array([True, False, True]))),
    ("meshgrid", lambda ns, v: ns.meshgrid(v, v[:2], v)),
    ("meshgrid-ij-sparse", lambda ns, v: ns.meshgrid(v, v[:2], indexing="ij", sparse=True)),
    ("select", lambda ns, v: ns.select([v > 0, v < 1], [v, 2 * v], 9.0)),
    ("select-float32", lambda ns, v: ns.select([v > 0], [v.astype(np.float32)])),
    ("piecewise", lambda ns, v: ns.piecewise(v, [v < 0, v > 1], [lambda w: -w, lambda w: w ** 2, 0.5])),
    ("piecewise-one", lambda ns, v: ns.piecewise(v, v > 0, [lambda w: w * 3])),
    ("choose", lambda ns, v: ns.choose(np.array([0, 2, 1]), [v, 2 * v, 7.0])),
    ("choose-wrap", lambda ns, v: ns.choose(np.array([3, 4, -1]), [v, 2 * v, 7.0], mode="wrap")),
    ("choose-clip", lambda ns, v: ns.choose(np.array([3, 4, -1]), [v, 2 * v, 7.0], mode="clip")),
    ("compress", lambda ns, v: ns.compress([True, False], v)),
    ("extract", lambda ns, v: ns.extract(v > 0, v)),
    ("indices", lambda ns, v: ns.indices((2, 3))),
    ("tril_indices", lambda ns, v: ns.tril_indices(3, -1)),
    ("triu_indices", lambda ns, v: ns.triu_indices(3, 1, 4)),
    ("tril_indices_from", lambda ns, v: ns.tril_indices_from(ns.outer(v, v), 1)),
    ("triu_indices_from", lambda ns, v: ns.triu_indices_from(ns.outer(v, v))),
    ("diag_indices", lambda ns, v: ns.diag_indices(3, 3)),
    ("diag_indices_from", lambda ns, v: ns.diag_indices_from(ns.outer(v, v))),
    ("unravel_index", lambda ns, v: ns.unravel_index(np.array([3, 5]), (2, 3), order="F")),
    ("ravel_multi_index", lambda ns, v: ns.ravel_multi_index((np.array([1, 3]), np.array([2, 1])),
                                                             (2, 3), mode=("clip", "wrap"))),
]


@pytest.mark.parametrize("call", [c for _, c in INDEX_CASES], ids=[n for n, _ in INDEX_CASES])
def test_index_helpers_match_numpy(call):
    want = call(np, V)
    _same_tree(call(tnp, V), want)
    _same_tree(traced(lambda v: call(tnp, v), V), want)


def test_index_helpers_numpy_spelling_on_tracers():
    for name, call in INDEX_CASES:
        if name.startswith(("r_", "c_")):
            continue  # np.r_ is an object, not a function: it cannot dispatch
        _same_tree(traced(lambda v: call(np, v), V), call(np, V))


def test_index_helper_errors_and_abstract_inputs():
    with pytest.raises(ValueError, match="matrix directives"):
        tnp.r_["r", V]
    with pytest.raises(ValueError, match="1 dimensional"):
        tnp.ix_(M)
    with pytest.raises(ValueError, match="indexing"):
        tnp.meshgrid(V, indexing="xx")
    with pytest.raises(ValueError, match="same length"):
        tnp.select([V > 0], [V, V])
    with pytest.raises(TypeError, match="boolean"):
        tnp.select([V], [V])
    with pytest.raises(ValueError, match="functions are expected"):
        tnp.piecewise(V, [V > 0], [1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="invalid entry"):
        tnp.choose(np.array([0, 3]), [V[:2], V[:2]])
    with pytest.raises(ValueError, match="clipmode"):
        tnp.choose(np.array([0, 1]), [V[:2], V[:2]], mode="bad")
    with pytest.raises(ValueError, match="2-d"):
        tnp.tril_indices_from(V)
    with pytest.raises(ValueError, match="equal length"):
        tnp.diag_indices_from(np.ones((2, 3)))
    for fn in (lambda v: tnp.extract(v > 0, v), lambda v: tnp.compress(v > 0, v),
               lambda v: tnp.unravel_index(v.astype(int), (3, 3))):
        with pytest.raises(TypeError, match="needs the concrete value"):
            tg.vmap(fn)(M)
    # choose under vmap with traced indices (no bounds check possible, no error)
    out = tg.vmap(lambda i: tnp.choose(i, [V[:2], -V[:2]]))(np.array([[0, 1], [1, 1]]))
    same(out, np.array([[0.5, 1.0], [-0.5, 1.0]]))


def test_index_helper_derivatives():
    g = tg.grad(lambda v: tnp.sum(tnp.meshgrid(v, v[:2])[0]))(V)
    np.testing.assert_array_equal(g, [2.0, 2.0, 2.0])
    g = tg.grad(lambda v: tnp.sum(tnp.r_[v, v[:1], 3.0]))(V)
    np.testing.assert_array_equal(g, [2.0, 1.0, 1.0])
    g = tg.grad(lambda v: tnp.sum(tnp.select([v > 0], [v * v], -v)))(V)
    np.testing.assert_array_equal(g, [1.0, -1.0, 4.0])
    g = tg.grad(lambda v: tnp.sum(tnp.choose(np.array([1, 0, 1]), [v, 3.0 * v])))(V)
    np.testing.assert_array_equal(g, [3.0, 1.0, 3.0])


# --------------------------------------------------------------------------
# group 5: searching, partial sorting, sets (_sets.py)

SORTED = np.array([1.0, 2.0, 2.0, 3.5, np.nan])
PROBES = np.array([[0.5, 2.0], [np.nan, 9.0]])
XS = np.array([3.0, 1.0, 3.0, np.nan, 2.0, -1.0, 2.0, np.nan])
YS = np.array([2.0, 9.0, 3.0, 3.0, np.nan])


@pytest.mark.parametrize("side", ["left", "right"])
def test_searchsorted_matches_numpy_including_nan(side):
    want = np.searchsorted(SORTED, PROBES, side=side)
    same(tnp.searchsorted(SORTED, PROBES, side=side), want)
    same(traced(lambda a, v: np.searchsorted(a, v, side=side), SORTED, PROBES), want)
    same(tg.vmap(lambda v: tnp.searchsorted(SORTED, v, side=side))(PROBES), want)
    perm = np.array([3, 2, 1, 0])
    rev = SORTED[:4][::-1].copy()
    same(tnp.searchsorted(rev, 2.0, side=side, sorter=perm),
         np.searchsorted(rev, 2.0, side=side, sorter=perm))
    with pytest.raises(ValueError, match="side"):
        tnp.searchsorted(SORTED, 1.0, side="middle")


@pytest.mark.parametrize("kth", [0, 2, [1, 3], -1])
def test_partition_is_a_valid_partition(kth):
    y = np.array([[3.0, 1.0, 2.0, 0.5, 7.0], [0.0, -1.0, 4.0, 2.5, 2.5]])
    want = np.partition(y, kth, axis=1)
    for got in (tnp.partition(y, kth, axis=1), traced(lambda v: np.partition(v, kth, axis=1), y)):
        kk = np.atleast_1d(kth)
        same(got[:, kk], want[:, kk])
        for k in kk % y.shape[1]:
            assert np.all(got[:, :k] <= got[:, k:k + 1]) and np.all(got[:, k + 1:] >= got[:, k:k + 1])
    idx = traced(lambda v: np.argpartition(v, kth, axis=1), y)
    same(np.take_along_axis(y, idx, 1)[:, np.atleast_1d(kth)], want[:, np.atleast_1d(kth)])
    with pytest.raises(ValueError, match="out of bounds"):
        tnp.partition(y, 5, axis=1)


def test_lexsort():
    keys = (np.array([1, 0, 1, 0]), np.array([2.0, 2.0, 1.0, 1.0]))
    same(tnp.lexsort(keys), np.lexsort(keys))
    same(traced(lambda q: np.lexsort((keys[0], q)), keys[1]), np.lexsort(keys))
    with pytest.raises(TypeError, match="lexsort needs the concrete value"):
        tg.vmap(lambda q: tnp.lexsort((q,)))(np.ones((2, 3)))


@pytest.mark.parametrize("kw", [{}, {"return_index": True},
                                {"return_inverse": True, "return_counts": True},
                                {"return_index": True, "return_inverse": True, "return_counts": True,
                                 "equal_nan": False}])
def test_unique_matches_numpy(kw):
    want = np.unique(XS, **kw)
    _same_tree(tnp.unique(XS, **kw), want)
    _same_tree(traced(lambda q: tnp.unique(q, **kw), XS), want)
    _same_tree(traced(lambda q: np.unique(q, **kw), XS), want)


@pytest.mark.parametrize("name", ["unique_values", "unique_counts", "unique_inverse", "unique_all"])
def test_unique_family_matches_numpy(name):
    want = getattr(np, name)(XS.reshape(2, 4))
    for got in (getattr(tnp, name)(XS.reshape(2, 4)), traced(getattr(np, name), XS.reshape(2, 4))):
        # an ndarray result comes back as one (a tracegrad.Array from tnp on concrete input)
        assert type(got) is type(want) or (type(want) is np.ndarray and isinstance(got, np.ndarray))
        _same_tree(tuple(got) if isinstance(want, tuple) else got,
                   tuple(want) if isinstance(want, tuple) else want)


def test_unique_derivative_goes_to_first_occurrence():
    x = np.array([3.0, 1.0, 3.0, 2.0, 7.0])
    g = tg.grad(lambda q: tnp.sum(tnp.unique(q) * np.arange(4.0)))(x)
    same(g, np.array([2.0, 0.0, 0.0, 1.0, 3.0]))
    with pytest.raises(TypeError, match="unique needs the concrete value"):
        tg.vmap(tnp.unique)(np.ones((2, 3)))


@pytest.mark.parametrize("name, assume_unique", [
    ("intersect1d", False), ("intersect1d", True), ("union1d", False), ("setdiff1d", False),
    ("setdiff1d", True), ("setxor1d", False), ("setxor1d", True)])
def test_set_operations_match_numpy(name, assume_unique):
    a, b = (np.unique(XS), np.unique(YS)) if assume_unique else (XS, YS)
    kw = {} if name == "union1d" else {"assume_unique": assume_unique}
    want = getattr(np, name)(a, b, **kw)
    same(getattr(tnp, name)(a, b, **kw), want)
    same(traced(lambda p, q: getattr(tnp, name)(p, q, **kw), a, b), want)
    same(traced(lambda p, q: getattr(np, name)(p, q, **kw), a, b), want)
    same(traced(lambda p: getattr(np, name)(p, b, **kw), a), want)


def test_intersect1d_indices_and_derivative():
    want = np.intersect1d(XS, YS, return_indices=True)
    _same_tree(traced(lambda p, q: tnp.intersect1d(p, q, return_indices=True), XS, YS), want)
    g1, g2 = tg.grad(lambda p, q: tnp.sum(tnp.intersect1d(p, q)), argnums=(0, 1))(
        np.array([3.0, 1.0, 2.0]), np.array([2.0, 3.0]))
    same(g1, np.array([1.0, 0.0, 1.0]))
    same(g2, np.zeros(2))


@pytest.mark.parametrize("invert", [False, True])
def test_isin(invert):
    want = np.isin(PROBES, YS, invert=invert)
    same(tnp.isin(PROBES, YS, invert=invert), want)
    same(traced(lambda p, q: np.isin(p, q, invert=invert), PROBES, YS), want)
    same(tg.vmap(lambda p: tnp.isin(p, YS, invert=invert))(PROBES), want)
    same(tnp.isin(PROBES, [], invert=invert), np.isin(PROBES, [], invert=invert))


# --------------------------------------------------------------------------
# group 6: rearranging, products, signals, polynomials, comparisons
# (_arrange.py, _signal.py, _polynomial.py, _math.py)

_R = np.random.default_rng(0)
X3 = _R.standard_normal((2, 3, 4))
V5 = _R.standard_normal(5)
W3 = _R.standard_normal(3)
ZEROS = np.array([0.0, 0, 1.5, 0, 2, 0])
XI = np.array([-3.0, -1.0, -0.2, 0.0, 0.5, 1.0, 2.0, 5.0, np.nan])
XP = np.array([-1.0, 0.0, 0.5, 2.0])
FP = np.array([1.0, 3.0, -2.0, 0.5])
ISC = (np.array([1.0, np.inf, np.nan, 1e-9, -np.inf, 2.0]), np.array([1.0 + 1e-9, np.inf, np.nan, 0.0, np.inf, 2.1]))


def _stack2(ns, b):
    return ns.stack([b, 2 * b], 1)


G6 = [  # (id, call(ns, *args), args, exact)
    ("copy", lambda ns, x: ns.copy(x), (X3,), True),
    ("block", lambda ns, a, b: ns.block([[a, b], [b, a]]), (X3[0], X3[1]), True),
    ("block-1d-scalar", lambda ns, a, b: ns.block([a, 1.0, b]), (V5, W3), True),
    ("unstack", lambda ns, a: ns.unstack(a, axis=1), (X3,), True),
    ("rot90", lambda ns, a: ns.rot90(a), (X3,), True),
    ("rot90-2", lambda ns, a: ns.rot90(a, 2, axes=(1, 2)), (X3,), True),
    ("rot90-3", lambda ns, a: ns.rot90(a, -1, axes=(2, 0)), (X3,), True),
    ("rot90-0", lambda ns, a: ns.rot90(a, 4), (X3,), True),
    ("rollaxis", lambda ns, a: ns.rollaxis(a, 2), (X3,), True),
    ("rollaxis-start", lambda ns, a: ns.rollaxis(a, 0, 3), (X3,), True),
    ("hsplit", lambda ns, a: ns.hsplit(a, 3), (X3,), True),
    ("hsplit-1d", lambda ns, a: ns.hsplit(a, [1, 3]), (V5,), True),
    ("vsplit", lambda ns, a: ns.vsplit(a, 2), (X3,), True),
    ("dsplit", lambda ns, a: ns.dsplit(a, [1]), (X3,), True),
    ("insert", lambda ns, a: ns.insert(a, 2, 9.0), (V5,), True),
    ("insert-list", lambda ns, a, b: ns.insert(a, [1, 1, 4], b), (V5, W3), True),
    ("insert-axis", lambda ns, a, b: ns.insert(a, 1, b, axis=2), (X3, W3), True),
    ("insert-axis-list", lambda ns, a: ns.insert(a, [0, 2], 5.0, axis=1), (X3,), True),
    ("insert-slice", lambda ns, a: ns.insert(a, slice(0, 4, 2), -1.0), (V5,), True),
    ("insert-negative", lambda ns, a: ns.insert(a, -1, 7.0), (V5,), True),
    ("insert-2d-values", lambda ns, a: ns.insert(a[0], 1, np.array([[1.0, 2, 3, 4], [5, 6, 7, 8]]), axis=0),
     (X3,), True),
    ("insert-int", lambda ns, a: ns.insert(a, 1, 2.7) * 1.0, (np.array([1, 2, 3]),), True),
    ("delete", lambda ns, a: ns.delete(a, [0, 2]), (V5,), True),
    ("delete-axis", lambda ns, a: ns.delete(a, 1, axis=1), (X3,), True),
    ("delete-mask", lambda ns, a: ns.delete(a, np.array([True, False, False, True, False])), (V5,), True),
    ("delete-slice", lambda ns, a: ns.delete(a, slice(None, None, 2)), (V5,), True),
    ("resize", lambda ns, a: ns.resize(a, (3, 4)), (V5,), True),
    ("resize-shrink", lambda ns, a: ns.resize(a, 2), (X3,), True),
    ("trim_zeros", lambda ns, a: ns.trim_zeros(a), (ZEROS,), True),
    ("trim_zeros-f", lambda ns, a: ns.trim_zeros(a, "f"), (ZEROS,), True),
    ("trim_zeros-all", lambda ns, a: ns.trim_zeros(a * 0.0), (ZEROS,), True),
    ("logspace", lambda ns, a, b: ns.logspace(a, b, 5), (np.float64(0.5), np.float64(2.0)), False),
    ("logspace-base", lambda ns, a, b: ns.logspace(a, b, 4, endpoint=False, base=2.0),
     (np.float64(0.5), np.float64(2.0)), False),
    ("geomspace", lambda ns, a, b: ns.geomspace(a, b, 5), (np.float64(0.5), np.float64(20.0)), False),
    ("geomspace-negative", lambda ns, a, b: ns.geomspace(a, b, 4, endpoint=False),
     (np.float64(-0.5), np.float64(-20.0)), False),
    ("geomspace-one", lambda ns, a, b: ns.geomspace(a, b, 1), (np.float64(3.0), np.float64(20.0)), True),
    ("apply_along_axis", lambda ns, a: ns.apply_along_axis(lambda r: r * r.sum(), 1, a), (X3,), True),
    ("apply_along_axis-scalar", lambda ns, a: ns.apply_along_axis(lambda r: (r ** 2).sum(), 2, a), (X3,), True),
    ("apply_along_axis-matrix", lambda ns, a: ns.apply_along_axis(lambda r: ns.outer(r, r), 0, a[0]), (X3,), True),
    ("apply_over_axes", lambda ns, a: ns.apply_over_axes(ns.sum, a, [0, 2]), (X3,), True),
    ("kron", lambda ns, a, b: ns.kron(a, b), (X3[0], W3), False),
    ("kron-2d", lambda ns, a, b: ns.kron(a, b), (X3[0], X3[1, :2]), False),
    ("cross", lambda ns, a, b: ns.cross(a, b), (X3[0, :, :3], X3[1, :, 1:]), True),
    ("cross-axis", lambda ns, a, b: ns.cross(a, b, axis=0), (X3[0], X3[1]), True),
    ("cross-2-3", lambda ns, a, b: ns.cross(a, b), (X3[0, :, :2], X3[1, :, 1:]), True),
    ("cross-axes", lambda ns, a, b: ns.cross(a, b, axisa=0, axisb=1, axisc=0), (X3[0, :, :], X3[1, :, :].T), True),
    ("convolve", lambda ns, a, b: ns.convolve(a, b), (V5, W3), False),
    ("convolve-same", lambda ns, a, b: ns.convolve(a, b, "same"), (W3, V5), False),
    ("convolve-valid", lambda ns, a, b: ns.convolve(a, b, "valid"), (V5, W3), False),
    ("convolve-int", lambda ns, a, b: ns.convolve(a, b), (np.array([1, 2, 3]), np.array([0, 1])), True),
    ("correlate", lambda ns, a, b: ns.correlate(a, b), (V5, W3), False),
    ("correlate-full-longer-v", lambda ns, a, b: ns.correlate(a, b, "full"), (W3, V5), False),
    ("correlate-same", lambda ns, a, b: ns.correlate(a, b, "same"), (V5, W3), False),
    ("interp", lambda ns, a: ns.interp(a, XP, FP), (XI,), True),
    ("interp-left-right", lambda ns, a, xp, fp: ns.interp(a, xp, fp, left=-9.0, right=9.0),
     (X3[0], XP[:3], W3), False),
    ("interp-two-points", lambda ns, a: ns.interp(a, XP[:2], FP[:2]), (XI,), True),
    ("interp-one-point", lambda ns, a: ns.interp(a, XP[:1], FP[:1]), (XI,), True),
    ("polyval", lambda ns, p, a: ns.polyval(p, a), (W3, X3), True),
    ("polyder", lambda ns, p: ns.polyder(p, 2), (V5,), True),
    ("polyder-vanishing", lambda ns, p: ns.polyder(p, 4), (W3,), True),
    ("polyint", lambda ns, p: ns.polyint(p, 2, k=[1.0, 2.0]), (V5,), False),
    ("polyint-scalar-k", lambda ns, p: ns.polyint(p, 3, k=0.5), (W3,), False),
    ("vander", lambda ns, a: ns.vander(a, 4), (V5,), True),
    ("vander-increasing", lambda ns, a: ns.vander(a, increasing=True), (W3,), True),
    ("polyfit", lambda ns, a, b: ns.polyfit(a, b, 2), (V5, V5 ** 2 + 0.1), False),
    ("polyfit-weights-2d", lambda ns, a, b: ns.polyfit(a, _stack2(ns, b), 1, w=np.arange(1.0, 6.0)),
     (V5, V5 * 3 + 1), False),
    ("isclose", lambda ns, a, b: ns.isclose(a, b), ISC, True),
    ("isclose-equal_nan", lambda ns, a, b: ns.isclose(a, b, rtol=0.1, equal_nan=True), ISC, True),
]


@pytest.mark.parametrize("call, args, exact", [c[1:] for c in G6], ids=[c[0] for c in G6])
def test_group6_matches_numpy(call, args, exact):
    ctx = quiet()
    want = call(np, *args)
    gots = [call(tnp, *args), traced(lambda *a: call(tnp, *a), *args),
            traced(lambda *a: call(np, *a), *args)]
    ctx.__exit__(None, None, None)
    for got in gots:
        if exact:
            _same_tree(tuple(got) if isinstance(want, list) else got,
                       tuple(want) if isinstance(want, list) else want)
        else:
            assert np.asarray(got).dtype == np.asarray(want).dtype
            np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("name", ["allclose", "array_equal", "array_equiv"])
def test_whole_array_comparisons(name):
    cases = [(V5, V5 + 1e-10), (V5, V5), (X3[0], X3[0][:1] * 0 + X3[0]),
             (np.array([np.nan]), np.array([np.nan])), (X3[0], X3[0, :1])]
    if name != "allclose":  # shapes that do not broadcast: allclose raises, as NumPy
        cases.append((V5, V5[:3]))
    for a, b in cases:
        want = getattr(np, name)(a, b)
        got = getattr(tnp, name)(a, b)
        assert type(got) is bool and got == bool(want)
        assert bool(traced(lambda p, q: getattr(np, name)(p, q), a, b)) == bool(want)
    assert tnp.array_equal(np.array([np.nan]), np.array([np.nan]), equal_nan=True)


def test_windows_and_tri_are_numpys():
    for name in ("hanning", "hamming", "blackman", "bartlett"):
        for m in (0, 1, 6, 7):
            same(getattr(tnp, name)(m), getattr(np, name)(m))
    same(tnp.kaiser(6, 3.0), np.kaiser(6, 3.0))
    same(tnp.tri(3, 4, 1), np.tri(3, 4, 1))
    same(tnp.tri(3, dtype=int), np.tri(3, dtype=int))
    with pytest.raises(TypeError, match="beta must be concrete"):
        tg.grad(lambda b: tnp.sum(tnp.kaiser(4, b)))(2.0)


def test_vectorize_on_plain_arrays_and_tracers():
    f = tnp.vectorize(lambda a, b: a * b if a > 0 else b)
    same(f(np.array([1.0, -1.0]), 2.0), np.vectorize(lambda a, b: a * b if a > 0 else b)(
        np.array([1.0, -1.0]), 2.0))
    g = tg.grad(lambda q: tnp.sum(f(q, 3.0)))(np.array([1.0, -1.0, 2.0]))
    same(g, np.array([3.0, 0.0, 3.0]))
    g2 = tg.grad(lambda b: tnp.sum(f(np.array([[1.0], [-2.0]]), b)))(np.array([1.0, 2.0]))
    same(g2, np.array([2.0, 2.0]))
    with pytest.raises(NotImplementedError, match="signature"):
        tg.grad(lambda q: tnp.sum(tnp.vectorize(lambda r: r, signature="(n)->(n)")(q)))(np.ones(3))


def test_group6_derivatives_at_special_points():
    # interp: the slope of the segment to the right at a sample point; 0 outside
    g = tg.grad(lambda t: tnp.sum(tnp.interp(t, XP, FP)))(np.array([-2.0, 0.0, 0.5, 3.0]))
    same(g, np.array([0.0, -10.0, 2.5 / 1.5, 0.0]))
    gfp = tg.grad(lambda f: tnp.interp(0.25, XP, f))(FP)
    same(gfp, np.array([0.0, 0.5, 0.5, 0.0]))
    # polyval at 0: d/dx = p[-2]; d/dp = powers of x
    same(tg.grad(lambda t: tnp.polyval(W3, t))(0.0), np.float64(W3[-2]))
    same(tg.grad(lambda p: tnp.polyval(p, 2.0))(W3), np.array([4.0, 2.0, 1.0]))
    # vander at 0 (a column of x**0 has derivative 0, x**1 derivative 1)
    jac = tg.jacfwd(lambda t: tnp.vander(t, 3))(np.array([0.0]))
    same(jac[0, :, 0], np.array([0.0, 1.0, 0.0]))
    # convolution is bilinear: derivative in v is the reversed correlation
    gv = tg.grad(lambda b: tnp.sum(tnp.convolve(V5, b) * np.arange(7.0)))(W3)
    np.testing.assert_allclose(gv, [np.dot(V5, np.arange(7.0)[k:k + 5]) for k in range(3)], rtol=1e-14)


def test_group6_errors():
    with pytest.raises(ValueError, match="Axes must be different"):
        tnp.rot90(X3, axes=(1, 1))
    with pytest.raises(ValueError, match="2 or more"):
        tnp.vsplit(V5, 2)
    with pytest.raises(ValueError, match="3 or more"):
        tnp.dsplit(X3[0], 2)
    with pytest.raises(ValueError, match="equal division"):
        tnp.hsplit(V5, 2)
    with pytest.raises(np.exceptions.AxisError):
        tnp.rollaxis(X3, 0, 5)
    with pytest.raises(ValueError, match="empty"):
        tnp.convolve(np.array([]), V5)
    with pytest.raises(ValueError, match="mode"):
        tnp.convolve(V5, W3, "middle")
    with pytest.raises(ValueError, match="same length"):
        tnp.interp(V5, XP, W3)
    with pytest.raises(NotImplementedError, match="period"):
        tnp.interp(V5, XP, FP, period=2.0)
    with pytest.raises(ValueError, match="dimension must be 2 or 3"):
        tnp.cross(V5, V5)
    with pytest.raises(ValueError, match="zero"):
        tnp.geomspace(0.0, 1.0)
    with pytest.raises(ValueError, match="same sign"):
        tnp.geomspace(-1.0, 1.0)
    with pytest.raises(ValueError, match="deg >= 0"):
        tnp.polyfit(V5, V5, -1)
    with pytest.raises(NotImplementedError, match="full=False"):
        tnp.polyfit(V5, V5, 1, full=True)
    with pytest.raises(ValueError, match="List depths"):
        tnp.block([[V5], V5])
    with pytest.raises(TypeError, match="tuples"):
        tnp.block((V5, V5))
    with pytest.raises(TypeError, match="trim_zeros needs the concrete value"):
        tg.vmap(tnp.trim_zeros)(np.ones((2, 3)))
    with pytest.raises(ValueError, match="non-negative"):
        tnp.resize(V5, (-1,))


# --------------------------------------------------------------------------
# more: divmod, modf, predicates, unwrap, polynomial arithmetic, functional writers

from tracegrad.test_util import check_grads  # noqa: E402

PH = np.cumsum(np.array([0.0, 3.0, 3.5, -4.0, 1.0, 6.5]))
EXTRA = [
    ("divmod", lambda ns, a, b: ns.divmod(a, b), (EDGE, EDGE2), True),
    ("modf", lambda ns, a: ns.modf(a), (EDGE,), True),
    ("isposinf", lambda ns, a: ns.isposinf(a), (EDGE,), True),
    ("isneginf", lambda ns, a: ns.isneginf(a), (EDGE,), True),
    ("isreal", lambda ns, a: ns.isreal(a), (EDGE,), True),
    ("iscomplex", lambda ns, a: ns.iscomplex(a), (EDGE,), True),
    ("unwrap", lambda ns, a: ns.unwrap(a), (PH,), False),
    ("unwrap-period", lambda ns, a: ns.unwrap(a, period=4.0), (PH,), False),
    ("unwrap-axis0", lambda ns, a: ns.unwrap(a, axis=0, discont=4.0), (np.stack([PH, 2 * PH], 1),), False),
    ("polyadd", lambda ns, a, b: ns.polyadd(a, b), (EDGE2[:3], EDGE2[3:8]), True),
    ("polysub", lambda ns, a, b: ns.polysub(a, b), (EDGE2[:5], EDGE2[3:6]), True),
    ("polymul", lambda ns, a, b: ns.polymul(a, b), (EDGE2[:3], EDGE2[3:6]), False),
    ("polydiv", lambda ns, a, b: ns.polydiv(a, b),
     (np.array([1.0, -3.0, 2.5, 4.0, 1.0]), np.array([2.0, 1.0, -1.0])), False),
    ("polydiv-exact", lambda ns, a, b: ns.polydiv(a, b),
     (np.array([1.0, -3.0, 2.0]), np.array([1.0, -1.0])), False),
    ("polydiv-short", lambda ns, a, b: ns.polydiv(a, b), (np.array([1.0, 2.0]), np.array([2.0, 1.0, -1.0])), False),
    ("poly", lambda ns, a: ns.poly(a), (EDGE2[:4],), False),
    ("diagflat", lambda ns, a: ns.diagflat(a, 1), (M,), True),
    ("fromfunction", lambda ns, a: ns.fromfunction(lambda i, j: i * 2 + j, (2, 3)) * a[0], (EDGE2,), True),
]


@pytest.mark.parametrize("call, args, exact", [c[1:] for c in EXTRA], ids=[c[0] for c in EXTRA])
def test_extras_match_numpy(call, args, exact):
    ctx = quiet()
    want = call(np, *args)
    gots = [call(tnp, *args), traced(lambda *a: call(tnp, *a), *args),
            traced(lambda *a: call(np, *a), *args)]
    ctx.__exit__(None, None, None)
    for got in gots:
        if exact:
            _same_tree(got, want)
        else:
            for g, w in zip(got if isinstance(want, tuple) else (got,),
                            want if isinstance(want, tuple) else (want,)):
                assert np.shape(g) == np.shape(w) and np.asarray(g).dtype == w.dtype
                np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-14)


def test_dtype_utilities_are_numpys():
    assert tnp.promote_types(np.float32, np.int64) == np.float64
    assert tnp.can_cast(np.float32, np.float64) and tnp.issubdtype(np.float32, np.floating)
    assert tnp.isdtype(np.float64, "real floating") and tnp.iterable([1]) and not tnp.iterable(1.0)
    assert tnp.isrealobj(np.ones(2)) and not tnp.isrealobj(np.ones(2) * 1j)


def _np_fill(a, v, wrap=False):
    a = a.copy()
    np.fill_diagonal(a, v, wrap)
    return a


def _np_put(a, i, v, mode="raise"):
    a = a.copy()
    np.put(a, i, v, mode)
    return a


def _np_put_along_axis(a, i, v, axis):
    a = a.copy()
    np.put_along_axis(a, i, v, axis)
    return a


def _np_place(a, m, v):
    a = a.copy()
    np.place(a, m, v)
    return a


TALL = np.arange(21.0).reshape(7, 3)
M34 = np.arange(12.0).reshape(3, 4)
PAL = np.array([[0], [2], [1]])
WRITERS = [
    ("fill_diagonal", lambda a, v: tnp.fill_diagonal(a, v, inplace=False), lambda a, v: _np_fill(a, v),
     (TALL, np.array([-1.0, -2.0]))),
    ("fill_diagonal-wrap", lambda a, v: tnp.fill_diagonal(a, v, True, inplace=False),
     lambda a, v: _np_fill(a, v, True), (TALL, np.array([-1.0, -2.0]))),
    ("fill_diagonal-3d", lambda a, v: tnp.fill_diagonal(a, v, inplace=False), _np_fill,
     (np.zeros((3, 3, 3)), np.array(5.0))),
    ("put", lambda a, v: tnp.put(a, [0, 5, 5, -1], v, inplace=False),
     lambda a, v: _np_put(a, [0, 5, 5, -1], v), (M34, np.array([9.0, 8.0]))),
    ("put-wrap", lambda a, v: tnp.put(a, [13, -20], v, mode="wrap", inplace=False),
     lambda a, v: _np_put(a, [13, -20], v, "wrap"), (M34, np.array([1.0]))),
    ("put-clip", lambda a, v: tnp.put(a, [13, -20], v, mode="clip", inplace=False),
     lambda a, v: _np_put(a, [13, -20], v, "clip"), (M34, np.array([1.0, 2.0]))),
    ("put_along_axis", lambda a, v: tnp.put_along_axis(a, PAL, v, 1, inplace=False),
     lambda a, v: _np_put_along_axis(a, PAL, v, 1), (M34, np.array([[1.0], [2.0], [3.0]]))),
    ("put_along_axis-0", lambda a, v: tnp.put_along_axis(a, np.array([[1, 0, 2, 2]]), v, 0, inplace=False),
     lambda a, v: _np_put_along_axis(a, np.array([[1, 0, 2, 2]]), v, 0), (M34, np.array(-1.0))),
    ("place", lambda a, v: tnp.place(a, M34 > 5, v, inplace=False),
     lambda a, v: _np_place(a, M34 > 5, v), (M34, np.array([1.0, 2.0, 3.0]))),
]


@pytest.mark.parametrize("fn, ref, args", [w[1:] for w in WRITERS], ids=[w[0] for w in WRITERS])
def test_functional_writers(fn, ref, args):
    want = ref(*args)
    same(fn(*args), want)
    same(traced(fn, *args), want)
    check_grads(fn, args, order=2, modes=("fwd", "rev"))


def test_functional_writers_refuse_inplace():
    for call in (lambda: tnp.fill_diagonal(M34, 1.0), lambda: tnp.put(M34, [0], 1.0),
                 lambda: tnp.put_along_axis(M34, PAL, 1.0, 1), lambda: tnp.place(M34, M34 > 1, 1.0)):
        with pytest.raises(ValueError, match="inplace=False"):
            call()
    with pytest.raises(IndexError):
        tnp.put(M34, [12], 1.0, inplace=False)


INT_A = np.array([12, 18, 7, -4])
INT_B = np.array([8, 4, 3, 2])


@pytest.mark.parametrize("name", ["gcd", "lcm", "bitwise_and", "bitwise_or", "bitwise_xor",
                                  "left_shift", "right_shift", "bitwise_left_shift",
                                  "bitwise_right_shift"])
def test_integer_binary_functions(name):
    want = getattr(np, name)(INT_A, INT_B)
    same(getattr(tnp, name)(INT_A, INT_B), want)
    # an integer tracer (jvp of an integer primal) is read for its value
    same(tg.jvp(lambda a: getattr(tnp, name)(a, INT_B), (INT_A,), (np.zeros(INT_A.shape, tg.float0),))[0], want)
    same(tg.jvp(lambda a: getattr(np, name)(a, INT_B), (INT_A,), (np.zeros(INT_A.shape, tg.float0),))[0], want)


def test_integer_unary_functions_and_abstract_input():
    for name in ("invert", "bitwise_not", "bitwise_invert", "bitwise_count"):
        same(getattr(tnp, name)(INT_A), getattr(np, name)(INT_A))
    same(tnp.packbits(np.array([1, 0, 1])), np.packbits(np.array([1, 0, 1])))
    same(tnp.unpackbits(np.array([5], np.uint8)), np.unpackbits(np.array([5], np.uint8)))
    with pytest.raises(TypeError, match="gcd computes integer results"):
        tg.vmap(lambda v: tnp.gcd(v, 2))(np.ones((2, 3), int))
    with pytest.raises(TypeError, match="out="):
        tnp.gcd(INT_A, INT_B, out=np.empty(4, int))


def test_histogramdd_histogram2d_and_bin_edges():
    rng = np.random.default_rng(4)
    x, y, w = rng.standard_normal(40), rng.standard_normal(40), rng.uniform(size=40)
    for kw in ({}, {"bins": 3}, {"bins": [2, 4], "range": [[-1, 1], [-2, 2]]}, {"density": True},
               {"weights": w}, {"weights": w, "density": True}):
        got, want = tnp.histogram2d(x, y, **kw), np.histogram2d(x, y, **kw)
        assert got[0].dtype == want[0].dtype
        np.testing.assert_allclose(got[0], want[0], rtol=1e-14)
        same(got[1], want[1])
        same(got[2], want[2])
    s = rng.standard_normal((30, 3))
    got, want = tnp.histogramdd(s, bins=(2, 3, 2), weights=w[:30]), np.histogramdd(s, bins=(2, 3, 2), weights=w[:30])
    np.testing.assert_allclose(got[0], want[0], rtol=1e-14)
    for a, b in zip(got[1], want[1]):
        same(a, b)
    same(tnp.histogram_bin_edges(x, bins="auto"), np.histogram_bin_edges(x, bins="auto"))
    _same_tree(tnp.mask_indices(3, tnp.triu, 1), np.mask_indices(3, np.triu, 1))
    same(tnp.frombuffer(np.arange(3.0).tobytes()), np.arange(3.0))


# --------------------------------------------------------------------------
# JAX (x64) as the oracle for first and second derivatives at special points

JX = np.array([0.0, -0.0, 0.3, -1.7, 2.0, 1e-4])
JY = np.array([2.0, 1.5, -0.7, 0.4, -3.0, 1.0])
JZ = np.array([[3.0, 1.0, 2.0, 2.0, 5.0], [0.5, np.nan, 1.0, -2.0, 4.0]])
JAX_UNARY = ["sinc", "deg2rad", "rad2deg", "nan_to_num", "frexp", "modf"]
JAX_BINARY = ["fmod", "copysign", "logaddexp2", "heaviside", "float_power"]
JAX_REDUCTIONS = [("median", (), {"axis": 1}), ("nanmedian", (), {"axis": 1}),
                  ("quantile", (0.3,), {"axis": 1}), ("nanquantile", (0.7,), {"axis": 1}),
                  ("nanpercentile", (35.0,), {"axis": 1, "method": "midpoint"}),
                  ("nanmean", (), {}), ("nanstd", (), {"axis": 1}), ("nanvar", (), {"ddof": 1}),
                  ("nanmax", (), {"axis": 1}), ("nansum", (), {}), ("nanprod", (), {"axis": 0})]


@pytest.fixture(scope="module")
def jnp():
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    return jax.numpy


def _first(out):
    return out[0] if isinstance(out, tuple) else out


@pytest.mark.parametrize("name", JAX_UNARY)
def test_unary_derivatives_match_jax(jnp, name):
    import jax  # lazy: optional oracle
    f1 = lambda v: tnp.sum(_first(getattr(tnp, name)(v)))  # noqa: E731
    f2 = lambda v: jnp.sum(_first(getattr(jnp, name)(v)))  # noqa: E731
    # sinc near 0: JAX's quotient loses digits to cancellation, the series does not
    rtol = 1e-8 if name == "sinc" else 1e-12
    np.testing.assert_allclose(tg.grad(f1)(JX), jax.grad(f2)(JX), rtol=rtol)
    np.testing.assert_allclose(tg.grad(lambda v: tnp.sum(tg.grad(f1)(v)))(JX),
                               jax.grad(lambda v: jnp.sum(jax.grad(f2)(v)))(JX), rtol=rtol, atol=1e-12)


@pytest.mark.parametrize("name", JAX_BINARY)
def test_binary_derivatives_match_jax(jnp, name):
    import jax  # lazy: optional oracle
    x = np.abs(JX) + 0.5 if name == "float_power" else JX
    f1 = lambda a, b: tnp.sum(getattr(tnp, name)(a, b))  # noqa: E731
    f2 = lambda a, b: jnp.sum(getattr(jnp, name)(a, b))  # noqa: E731
    for g, w in zip(tg.grad(f1, argnums=(0, 1))(x, JY), jax.grad(f2, argnums=(0, 1))(x, JY)):
        np.testing.assert_allclose(g, w, rtol=1e-12)


@pytest.mark.parametrize("name, args, kw", JAX_REDUCTIONS, ids=[r[0] for r in JAX_REDUCTIONS])
def test_nan_and_quantile_derivatives_match_jax(jnp, name, args, kw):
    import jax  # lazy: optional oracle
    f1 = lambda v: tnp.sum(getattr(tnp, name)(v, *args, **kw))  # noqa: E731
    f2 = lambda v: jnp.sum(getattr(jnp, name)(v, *args, **kw))  # noqa: E731
    np.testing.assert_allclose(f1(JZ), f2(JZ), rtol=1e-13)
    np.testing.assert_allclose(tg.grad(f1)(JZ), jax.grad(f2)(JZ), rtol=1e-12)


def test_fabs_at_zero_keeps_tracegrads_abs_convention(jnp):
    # JAX gives 1 at +-0; tracegrad's abs (and so fabs) gives 0 there, its
    # documented subgradient of smallest norm
    same(tg.grad(lambda v: tnp.sum(tnp.fabs(v)))(np.array([0.0, -0.0])), np.zeros(2))
    same(tg.grad(lambda v: tnp.sum(tnp.abs(v)))(np.array([0.0, -0.0])), np.zeros(2))
