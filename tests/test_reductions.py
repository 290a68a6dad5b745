"""Reductions and scans of tracegrad.numpy: values against NumPy, derivatives
with check_grads (second order, forward and reverse), and the documented
edge semantics with exact expected values."""
import numpy as np
import pytest

import tracegrad as tg
import tracegrad.numpy as tnp
from tracegrad.core import Tracer
from tracegrad.primitives import ops
from tracegrad.test_util import check_grads

RNG = np.random.default_rng(1234)
X3 = RNG.standard_normal((3, 4, 5))  # no ties, no zeros
POS3 = RNG.uniform(0.5, 1.5, (3, 4, 5))
F32_TOL = dict(atol=5e-2, rtol=5e-2)

AXES = [None, 0, -1, 1, (0, 2), (1, 2), (0, 1, 2), ()]


def grads(f, x, **kw):
    check_grads(f, (x,), order=2, modes=("fwd", "rev"), **kw)


# --------------------------------------------------------------------------
# values against NumPy

VALUE_CASES = [
    ("sum", {}), ("sum", {"dtype": np.float32}), ("sum", {"initial": 2.0}),
    ("prod", {}), ("prod", {"initial": 2.0}),
    ("mean", {}), ("max", {}), ("min", {}), ("amax", {}), ("amin", {}),
    ("max", {"initial": 0.5}), ("min", {"initial": -0.5}), ("ptp", {}),
    ("var", {}), ("var", {"ddof": 1}), ("std", {}), ("std", {"ddof": 1}),
    ("std", {"correction": 1}), ("all", {}), ("any", {}),
]


@pytest.mark.filterwarnings("ignore:Degrees of freedom")
@pytest.mark.parametrize("name,kw", VALUE_CASES)
@pytest.mark.parametrize("axis", AXES)
@pytest.mark.parametrize("keepdims", [False, True])
def test_values_match_numpy(name, kw, axis, keepdims):
    x = X3 if name not in ("all", "any") else (X3 > 0)
    got = getattr(tnp, name)(x, axis=axis, keepdims=keepdims, **kw)
    want = getattr(np, name)(x, axis=axis, keepdims=keepdims, **kw)
    assert np.shape(got) == np.shape(want)
    assert np.asarray(got).dtype == np.asarray(want).dtype
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("name", ["cumsum", "cumprod"])
@pytest.mark.parametrize("axis", [None, 0, 1, -1])
def test_scan_values_match_numpy(name, axis):
    got = getattr(tnp, name)(X3, axis=axis)
    want = getattr(np, name)(X3, axis=axis)
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-12)


@pytest.mark.parametrize("name", ["cumulative_sum", "cumulative_prod"])
@pytest.mark.parametrize("include_initial", [False, True])
def test_cumulative_values(name, include_initial):
    for x, axis in [(X3[0, 0], None), (X3, 1)]:
        got = getattr(tnp, name)(x, axis=axis, include_initial=include_initial)
        want = getattr(np, name)(x, axis=axis, include_initial=include_initial)
        np.testing.assert_allclose(got, want, rtol=1e-12)
    with pytest.raises(ValueError, match="axis"):
        getattr(tnp, name)(X3)


@pytest.mark.parametrize("name", ["argmax", "argmin"])
@pytest.mark.parametrize("axis", [None, 0, -1])
@pytest.mark.parametrize("keepdims", [False, True])
def test_arg_values(name, axis, keepdims):
    got = getattr(tnp, name)(X3, axis=axis, keepdims=keepdims)
    want = getattr(np, name)(X3, axis=axis, keepdims=keepdims)
    np.testing.assert_array_equal(got, want)
    assert np.shape(got) == np.shape(want) and np.asarray(got).dtype == want.dtype


def test_dtype_rules():
    i32 = np.arange(12, dtype=np.int32).reshape(3, 4)
    b = i32 % 3 == 0
    f32 = X3.astype(np.float32)
    f16 = X3.astype(np.float16)
    for name in ("sum", "prod", "mean", "var", "std", "max", "cumsum", "cumprod"):
        for x in (i32, b, f32, f16):
            got = getattr(tnp, name)(x)
            want = getattr(np, name)(x)
            assert np.asarray(got).dtype == np.asarray(want).dtype, (name, x.dtype)
            np.testing.assert_allclose(np.asarray(got, float), np.asarray(want, float),
                                       rtol=2e-3)
    assert tnp.mean(i32, dtype=np.float32).dtype == np.float32
    assert tnp.var(f32, dtype=np.float64).dtype == np.float64
    np.testing.assert_allclose(tnp.var(f32, dtype=np.float64), np.var(f32, dtype=np.float64))
    assert tnp.sum(3.0) == 3.0 and tnp.mean([[1, 2], [3, 4]]) == 2.5


def test_where_and_initial():
    mask = X3 > -0.3
    for name in ("sum", "prod", "mean", "var", "std", "all", "any"):
        np.testing.assert_allclose(
            getattr(tnp, name)(X3, axis=1, where=mask),
            getattr(np, name)(X3, axis=1, where=mask), rtol=1e-12)
    for name in ("max", "min"):
        np.testing.assert_allclose(
            getattr(tnp, name)(X3, axis=(0, 2), where=mask, initial=0.1),
            getattr(np, name)(X3, axis=(0, 2), where=mask, initial=0.1))
        with pytest.raises(ValueError, match="initial"):
            getattr(tnp, name)(X3, where=mask)
    # `mean=` of var/std
    m = np.mean(X3, axis=1, keepdims=True)
    np.testing.assert_allclose(tnp.var(X3, axis=1, mean=m), np.var(X3, axis=1, mean=m))


def test_average():
    w = np.random.default_rng(19).uniform(0.1, 1.0, X3.shape)
    w1 = np.random.default_rng(20).uniform(0.1, 1.0, 4)
    w02 = np.random.default_rng(21).uniform(0.1, 1.0, (5, 3))
    cases = [
        dict(), dict(axis=1), dict(weights=w), dict(weights=w, axis=(0, 2)),
        dict(weights=w1, axis=1), dict(weights=w1, axis=-2, keepdims=True),
        dict(weights=w02, axis=(2, 0)), dict(weights=w, axis=0, returned=True),
        dict(axis=0, returned=True),
    ]
    for kw in cases:
        got, want = tnp.average(X3, **kw), np.average(X3, **kw)
        for g, e in zip(np.broadcast_arrays(*got) if kw.get("returned") else [got],
                        np.broadcast_arrays(*want) if kw.get("returned") else [want]):
            np.testing.assert_allclose(g, e, rtol=1e-12)
    assert tnp.average(np.arange(4)).dtype == np.float64
    with pytest.raises(TypeError, match="Axis must be specified"):
        tnp.average(X3, weights=w1)
    with pytest.raises(ValueError, match="consistent"):
        tnp.average(X3, axis=0, weights=w1)
    with pytest.raises(ZeroDivisionError):
        tnp.average(X3[0, 0], weights=np.zeros(5))


# --------------------------------------------------------------------------
# derivatives: check_grads to second order, forward and reverse

GRAD_CASES = [
    (tnp.sum, {}), (tnp.sum, {"axis": 1}), (tnp.sum, {"axis": (0, 2), "keepdims": True}),
    (tnp.sum, {"axis": -1, "where": X3 > 0}),
    (tnp.mean, {}), (tnp.mean, {"axis": (1, 2)}), (tnp.mean, {"axis": 0, "keepdims": True}),
    (tnp.mean, {"axis": 1, "where": X3 > -0.5}),
    (tnp.prod, {}), (tnp.prod, {"axis": 1}), (tnp.prod, {"axis": (0, 2), "keepdims": True}),
    (tnp.prod, {"axis": -1, "initial": 2.0}),
    (tnp.max, {}), (tnp.max, {"axis": 1}), (tnp.max, {"axis": (0, 2), "keepdims": True}),
    (tnp.max, {"axis": -1, "initial": 0.0}),
    (tnp.min, {}), (tnp.min, {"axis": 0}), (tnp.min, {"axis": (1, 2), "keepdims": True}),
    (tnp.amax, {"axis": 2}), (tnp.amin, {"axis": (0, 1)}), (tnp.ptp, {"axis": 1}),
    (tnp.var, {}), (tnp.var, {"axis": 1, "ddof": 1}),
    (tnp.var, {"axis": (0, 2), "keepdims": True}),
    (tnp.var, {"axis": 2, "where": X3 > -0.5, "ddof": 1}),
    (tnp.std, {}), (tnp.std, {"axis": 0, "ddof": 1}),
    (tnp.std, {"axis": (1, 2), "keepdims": True, "ddof": 2}),
    (tnp.cumsum, {}), (tnp.cumsum, {"axis": 1}), (tnp.cumsum, {"axis": -1}),
    (tnp.cumprod, {}), (tnp.cumprod, {"axis": 0}), (tnp.cumprod, {"axis": -1}),
    (tnp.cumulative_sum, {"axis": 1, "include_initial": True}),
    (tnp.cumulative_prod, {"axis": 2, "include_initial": True}),
    (tnp.average, {"axis": 1}), (tnp.average, {"axis": (0, 2), "weights": POS3}),
]


def _case_id(case):
    f, kw = case
    return f.__name__ + "-" + "-".join(f"{k}={v}" for k, v in kw.items() if k != "where"
                                       and k != "weights")


@pytest.mark.parametrize("case", GRAD_CASES, ids=[_case_id(c) for c in GRAD_CASES])
def test_check_grads_float64(case):
    f, kw = case
    x = POS3 if f in (tnp.prod, tnp.cumprod, tnp.cumulative_prod) else X3
    grads(lambda x: f(x, **kw), x)


@pytest.mark.parametrize("case", GRAD_CASES[::3], ids=[_case_id(c) for c in GRAD_CASES[::3]])
def test_check_grads_float32(case):
    f, kw = case
    x = POS3 if f in (tnp.prod, tnp.cumprod, tnp.cumulative_prod) else X3
    x = x[:2, :3, :3].astype(np.float32)
    kw = {k: (v[:2, :3, :3] if isinstance(v, np.ndarray) else v) for k, v in kw.items()}
    out = f(x, **kw)
    assert out.dtype == np.float32
    grads(lambda x: f(x, **kw), x, **F32_TOL)


def test_average_weights_are_differentiable():
    w = np.random.default_rng(94).uniform(0.5, 1.0, 4)
    check_grads(lambda x, w: tnp.average(x, axis=1, weights=w), (X3, w), order=2)


def test_non_contiguous_and_transposed_inputs():
    xt = np.transpose(X3, (2, 0, 1))
    assert not xt.flags.c_contiguous
    for f in (tnp.max, tnp.prod, tnp.cumprod, tnp.std):
        grads(lambda x: f(x, axis=1), xt)
        np.testing.assert_allclose(getattr(tnp, f.__name__)(xt, axis=1),
                                   getattr(np, f.__name__)(xt, axis=1), rtol=1e-12)


# --------------------------------------------------------------------------
# max/min: ties share the derivative evenly, in both modes


def test_max_tie_split_exact():
    x = np.array([1.0, 1.0, 0.5])
    np.testing.assert_array_equal(tg.grad(tnp.max)(x), [0.5, 0.5, 0.0])
    np.testing.assert_array_equal(tg.grad(tnp.min)(np.array([0.5, 2.0, 0.5])), [0.5, 0.0, 0.5])
    # forward mode: tangent_out = sum(t * mask) / count
    _, t = tg.jvp(tnp.max, (x,), (np.array([1.0, 3.0, 100.0]),))
    assert t == 2.0
    np.testing.assert_array_equal(tg.jacfwd(tnp.max)(x), [0.5, 0.5, 0.0])
    np.testing.assert_array_equal(tg.jacfwd(tnp.min)(-x), [0.5, 0.5, 0.0])


def test_max_tie_split_axis_keepdims():
    x = np.array([[3.0, 1.0, 3.0, 3.0], [2.0, 2.0, 0.0, 1.0]])
    want = np.array([[1 / 3, 0, 1 / 3, 1 / 3], [0.5, 0.5, 0, 0]])
    for keepdims in (False, True):
        f = lambda x: tnp.sum(tnp.max(x, axis=1, keepdims=keepdims))  # noqa: E731
        np.testing.assert_allclose(tg.grad(f)(x), want, rtol=0, atol=1e-15)
        np.testing.assert_allclose(tg.jacfwd(f)(x), want, rtol=0, atol=1e-15)
    # column ties, reducing the leading axis of a transposed input
    np.testing.assert_array_equal(
        tg.grad(lambda x: tnp.min(x, axis=0)[0])(np.array([[1.0, 5.0], [1.0, 0.0]])),
        [[0.5, 0.0], [0.5, 0.0]],
    )
    # non-contiguous reduced axes (0, 2): every element equal, 4 ties per output
    g = tg.grad(lambda x: tnp.sum(tnp.max(x, axis=(0, 2))))(np.ones((2, 3, 2)))
    np.testing.assert_array_equal(g, np.full((2, 3, 2), 0.25))


def test_max_ties_float32_and_second_order():
    x = np.array([2.0, 2.0, -1.0, 2.0], np.float32)
    g = tg.grad(tnp.max)(x)
    assert g.dtype == np.float32
    np.testing.assert_array_equal(g, np.array([1, 1, 0, 1], np.float32) / 3)
    np.testing.assert_array_equal(tg.hessian(tnp.max)(x.astype(float)), np.zeros((4, 4)))
    # the second derivative through the tie rule: d/dx of max(x) * max(x)
    h = tg.hessian(lambda x: tnp.max(x) ** 2)(np.array([1.0, 1.0, 0.0]))
    np.testing.assert_allclose(h, [[0.5, 0.5, 0], [0.5, 0.5, 0], [0, 0, 0]])


def test_ptp_ties():
    x = np.array([1.0, 4.0, 4.0, 1.0, 2.0])
    np.testing.assert_array_equal(tg.grad(tnp.ptp)(x), [-0.5, 0.5, 0.5, -0.5, 0.0])


def test_max_nan_propagates():
    x = np.array([1.0, np.nan, 3.0])
    assert np.isnan(tnp.max(x))
    np.testing.assert_array_equal(tg.grad(tnp.max)(x), [0.0, 1.0, 0.0])
    # column reductions (the kernel's vectorized path) and the forward mode
    xm = np.array([[1.0, 2.0], [np.nan, 2.0], [np.nan, 0.0]])
    g = tg.grad(lambda x: tnp.sum(tnp.max(x, axis=0)))(xm)
    np.testing.assert_array_equal(g, [[0.0, 0.5], [0.5, 0.5], [0.5, 0.0]])
    _, t = tg.jvp(lambda x: tnp.min(x, axis=0), (xm,), (np.arange(6.0).reshape(3, 2),))
    np.testing.assert_array_equal(t, [3.0, 5.0])


def test_keepdims_novalue_and_python_inputs():
    x = X3[0]
    np.testing.assert_allclose(tnp.sum(x, axis=0, keepdims=np._NoValue), np.sum(x, axis=0))
    assert tnp.max(3.0) == 3.0 and tnp.prod([[1, 2], [3, 4]]) == 24
    np.testing.assert_allclose(tg.grad(lambda v: tnp.sum([v, 2.0 * v, 1.0]))(1.5), 3.0)


def test_extremum_rules_are_transposes():
    x = np.round(np.random.default_rng(78).standard_normal((4, 6)) * 2) / 2  # many ties
    for axes in [(1,), (0,), (0, 1)]:
        ans = np.max(x, axis=axes)
        u = np.random.default_rng(81).standard_normal(np.shape(ans))
        v = np.random.default_rng(82).standard_normal(x.shape)
        lhs = np.sum(ops.extremum_grad(u, x, ans, axes) * v)
        rhs = np.sum(u * ops.extremum_tangent(v, x, ans, axes))
        np.testing.assert_allclose(lhs, rhs, rtol=1e-12)


# --------------------------------------------------------------------------
# prod and cumprod: exact with zeros, no division


def test_prod_grad_with_one_zero():
    x = np.array([2.0, 0.0, 3.0, 4.0])
    np.testing.assert_array_equal(tg.grad(tnp.prod)(x), [0.0, 24.0, 0.0, 0.0])
    np.testing.assert_array_equal(tg.jacfwd(tnp.prod)(x), [0.0, 24.0, 0.0, 0.0])
    h = tg.hessian(tnp.prod)(x)
    want = np.array([[0, 12, 0, 0], [12, 0, 8, 6], [0, 8, 0, 0], [0, 6, 0, 0]], float)
    np.testing.assert_array_equal(h, want)
    np.testing.assert_array_equal(tg.jacrev(tg.grad(tnp.prod))(x), want)


def test_prod_grad_with_two_zeros():
    x = np.array([2.0, 0.0, 0.0, 4.0])
    np.testing.assert_array_equal(tg.grad(tnp.prod)(x), np.zeros(4))
    h = tg.hessian(tnp.prod)(x)
    want = np.zeros((4, 4))
    want[1, 2] = want[2, 1] = 8.0
    np.testing.assert_array_equal(h, want)
    np.testing.assert_array_equal(tg.jacfwd(tg.jacfwd(tnp.prod))(x), want)


def test_prod_axis_with_zeros():
    x = np.array([[0.0, 2.0, 3.0], [1.0, 0.0, 0.0]])
    g = tg.grad(lambda x: tnp.sum(tnp.prod(x, axis=1)))(x)
    np.testing.assert_array_equal(g, [[6.0, 0.0, 0.0], [0.0, 0.0, 0.0]])
    g = tg.grad(lambda x: tnp.sum(tnp.prod(x, axis=0)))(x)
    np.testing.assert_array_equal(g, [[1.0, 0.0, 0.0], [0.0, 2.0, 3.0]])
    xz = X3.copy()
    xz[0, 1, :2] = 0.0
    xz[2, 3, 4] = 0.0
    for axis in (None, 1, (0, 2)):
        grads(lambda x: tnp.prod(x, axis=axis), xz)


def test_cumprod_grads_with_zeros():
    x = np.array([2.0, 0.0, 3.0, 5.0])
    # y = [2, 0, 0, 0]; dy_k/dx_j = prod_{i<=k, i!=j} x_i for j <= k
    want = np.array([[1, 0, 0, 0], [0, 2, 0, 0], [0, 6, 0, 0], [0, 30, 0, 0]], float)
    np.testing.assert_array_equal(tg.jacrev(tnp.cumprod)(x), want)
    np.testing.assert_array_equal(tg.jacfwd(tnp.cumprod)(x), want)
    x2 = np.array([2.0, 0.0, 0.0, 5.0])
    want2 = np.array([[1, 0, 0, 0], [0, 2, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]], float)
    np.testing.assert_array_equal(tg.jacrev(tnp.cumprod)(x2), want2)
    # second order: d2 y_2 / dx_1 dx_2 = x_0 = 2
    h = tg.hessian(lambda x: tnp.cumprod(x)[2])(x2)
    want_h = np.zeros((4, 4))
    want_h[1, 2] = want_h[2, 1] = 2.0
    want_h[0, 1] = want_h[1, 0] = 0.0
    np.testing.assert_array_equal(h, want_h)
    for xz in (x, x2, np.array([[0.0, 1.5], [2.0, 0.0], [0.0, 0.0]])):
        for axis in (None, 0, -1):
            if axis == -1 and xz.ndim == 1:
                continue
            grads(lambda x: tnp.cumprod(x, axis=axis), xz)


def test_linear_recurrence_primitive():
    rng = np.random.default_rng(7)
    a = rng.standard_normal((3, 5, 2))
    b = rng.standard_normal((3, 5, 2))
    for axis in (0, 1, 2):
        for reverse in (False, True):
            y = ops.linear_recurrence(a, b, axis, reverse)
            am, bm = np.moveaxis(a, axis, 0), np.moveaxis(b, axis, 0)
            want = np.empty_like(am)
            order = range(am.shape[0] - 1, -1, -1) if reverse else range(am.shape[0])
            prev = None
            for k in order:
                want[k] = bm[k] if prev is None else am[k] * want[prev] + bm[k]
                prev = k
            np.testing.assert_allclose(y, np.moveaxis(want, 0, axis), rtol=1e-12)
            check_grads(lambda a, b: ops.linear_recurrence(a, b, axis, reverse), (a, b),
                        order=2)
    # cumsum/cumprod primitives from either end, on the kernel path (scan
    # along a non-trailing axis) and on NumPy's (trailing axis)
    for axis in (0, 1, 2):
        for op, np_fn in ((ops.cumsum, np.cumsum), (ops.cumprod, np.cumprod)):
            np.testing.assert_allclose(op(a, axis), np_fn(a, axis=axis), rtol=1e-12)
            np.testing.assert_allclose(op(a, axis, reverse=True),
                                       np.flip(np_fn(np.flip(a, axis), axis=axis), axis),
                                       rtol=1e-12)
            np.testing.assert_allclose(op(a.astype(np.float32), axis, reverse=True),
                                       np.flip(np_fn(np.flip(a, axis), axis=axis), axis),
                                       rtol=1e-5, atol=1e-6)
            check_grads(lambda v: op(v, axis, reverse=True), (a,), order=2)
    # integer fallback path
    ai = np.array([1, 2, 3])
    np.testing.assert_array_equal(ops.linear_recurrence(ai, ai, 0), [1, 4, 15])


# --------------------------------------------------------------------------
# var/std: constant input has derivative exactly 0


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_std_of_constant_has_zero_gradient(dtype):
    for value, shape in [(0.1, (7,)), (2.0, (3,)), (-1.3, (2, 5))]:
        x = np.full(shape, value, dtype)
        assert tnp.std(x) == 0.0 and tnp.var(x) == 0.0
        g = tg.grad(tnp.std)(x)
        assert g.dtype == dtype
        np.testing.assert_array_equal(g, np.zeros(shape))
        np.testing.assert_array_equal(tg.jacfwd(tnp.std)(x), np.zeros(shape))
        np.testing.assert_array_equal(tg.hessian(tnp.std)(x.astype(float)),
                                      np.zeros(shape + shape))
        g = tg.grad(lambda x: tnp.sum(tnp.std(x, axis=0, ddof=1)))(x)
        assert np.all(g == 0) and np.all(np.isfinite(g))
    # partly constant: the constant row has zero gradient, the other is finite
    x = np.array([[0.1, 0.1, 0.1], [1.0, 2.0, 4.0]])
    g = tg.grad(lambda x: tnp.sum(tnp.std(x, axis=1)))(x)
    np.testing.assert_array_equal(g[0], 0.0)
    np.testing.assert_allclose(g[1], tg.grad(tnp.std)(x[1]))


def test_var_ddof_edge():
    with np.errstate(all="ignore"):
        assert np.isinf(tnp.var(np.array([1.0, 2.0, 3.0]), ddof=3))
        assert np.isnan(tnp.var(np.array([1.0, 1.0]), ddof=2))
    with pytest.raises(ValueError, match="ddof and correction"):
        tnp.var(X3, ddof=1, correction=1)


# --------------------------------------------------------------------------
# empty reductions and errors


def test_empty_reductions():
    e = np.zeros((0,))
    e2 = np.zeros((3, 0))
    assert tnp.sum(e) == 0.0 and tnp.prod(e) == 1.0
    np.testing.assert_array_equal(tnp.sum(e2, axis=1), np.zeros(3))
    np.testing.assert_array_equal(tnp.prod(e2, axis=1), np.ones(3))
    np.testing.assert_array_equal(tg.grad(lambda x: tnp.sum(tnp.prod(x, axis=1)))(e2), e2)
    np.testing.assert_array_equal(tg.grad(tnp.sum)(e), e)
    for f in (tnp.max, tnp.min, tnp.ptp):
        with pytest.raises(ValueError, match="zero-size array"):
            f(e)
        with pytest.raises(ValueError, match="zero-size array"):
            f(e2, axis=1)
    np.testing.assert_array_equal(tnp.max(e2, axis=0), np.max(e2, axis=0))  # empty result: fine
    np.testing.assert_array_equal(tnp.max(e2, axis=1, initial=-5.0), np.full(3, -5.0))
    for f in (tnp.argmax, tnp.argmin):
        with pytest.raises(ValueError, match="empty sequence"):
            f(e)
    np.testing.assert_array_equal(tnp.cumsum(e), e)
    np.testing.assert_array_equal(tnp.cumprod(e2, axis=1), e2)
    np.testing.assert_array_equal(tg.grad(lambda x: tnp.sum(tnp.cumprod(x)))(e), e)
    with np.errstate(invalid="ignore"):
        assert np.isnan(tnp.mean(e))
    assert tnp.all(e) and not tnp.any(e)


def test_errors():
    for name in ("sum", "mean", "prod", "max", "min", "var", "std", "cumsum", "cumprod",
                 "argmax", "argmin", "all", "any", "ptp"):
        with pytest.raises(TypeError, match="out="):
            getattr(tnp, name)(X3, out=np.empty(()))
    with pytest.raises(np.exceptions.AxisError):
        tnp.sum(X3, axis=3)
    with pytest.raises(np.exceptions.AxisError):
        tnp.max(X3, axis=(0, -4))
    with pytest.raises(ValueError, match="duplicate"):
        tnp.mean(X3, axis=(1, -2))
    with pytest.raises(TypeError, match="axis"):
        tnp.sum(X3, axis=1.0)
    with pytest.raises(ValueError, match="broadcast"):
        tnp.sum(X3, where=np.ones((2,), bool))
    z = np.array([1 + 2j, -0.5j, 3.0])  # complex: a real variance, as NumPy's
    assert tnp.var(z).dtype == np.float64
    np.testing.assert_allclose(tnp.var(z), np.var(z), rtol=1e-14)


# --------------------------------------------------------------------------
# NumPy dispatch and tracer methods


def test_numpy_dispatch_and_methods():
    f_np = lambda x: (np.sum(x * x) + np.mean(x, axis=0).sum() + np.max(x, axis=1).sum()  # noqa
                      + np.amin(x) + np.prod(x[0]) + np.var(x) + np.std(x, axis=0).sum()
                      + np.cumsum(x, axis=1).sum() + np.cumprod(x).sum() + np.ptp(x)
                      + np.average(x, axis=0, weights=[1.0, 2.0, 3.0]).sum())
    f_meth = lambda x: (x.sum() + x.mean(axis=0).sum() + x.max(1).sum()  # noqa: E731
                        + x.min(keepdims=True).sum() + x.prod() + x.var(ddof=1)
                        + x.std(0).sum() + x.cumsum(1).sum() + x.cumprod().sum())
    x = POS3[0, :3, :4]
    for f in (f_np, f_meth):
        check_grads(f, (x,), order=2)
        np.testing.assert_allclose(tg.grad(f)(x), tg.grad(f)(x))
    np.testing.assert_allclose(f_np(x), f_np(x))


def test_ufunc_reduce_and_accumulate_dispatch():
    x = POS3[0]
    cases = [
        (lambda v: np.add.reduce(v), lambda v: tnp.sum(v, axis=0)),
        (lambda v: np.add.reduce(v, axis=1, keepdims=True), lambda v: tnp.sum(v, 1, keepdims=True)),
        (lambda v: np.multiply.reduce(v, axis=None), lambda v: tnp.prod(v)),
        (lambda v: np.maximum.reduce(v, axis=1), lambda v: tnp.max(v, axis=1)),
        (lambda v: np.minimum.reduce(v), lambda v: tnp.min(v, axis=0)),
        (lambda v: np.add.accumulate(v, axis=1), lambda v: tnp.cumsum(v, axis=1)),
        (lambda v: np.multiply.accumulate(v), lambda v: tnp.cumprod(v, axis=0)),
    ]
    for f_np, f_tnp in cases:
        g = tg.grad(lambda v: tnp.sum(f_np(v) ** 2))(x)
        want = tg.grad(lambda v: tnp.sum(f_tnp(v) ** 2))(x)
        np.testing.assert_allclose(g, want, rtol=1e-12)
        np.testing.assert_allclose(f_np(x), f_tnp(x), rtol=1e-12)


def test_nondifferentiable_results_are_plain():
    seen = {}

    def f(x):
        seen["argmax"] = np.argmax(x, axis=1)
        seen["argmin"] = x.argmin()
        seen["all"] = np.all(x > -10)
        seen["any"] = x.any(axis=0)
        seen["all_where"] = tnp.all(x > 0, where=x > 0.5)
        return tnp.sum(x[0] * seen["argmax"][0])

    x = X3[0]
    g = tg.grad(f)(x)
    for k, v in seen.items():
        assert not isinstance(v, Tracer), k
        assert isinstance(v, (np.ndarray, np.generic)), k
    np.testing.assert_array_equal(seen["argmax"], np.argmax(x, axis=1))
    assert seen["argmin"] == np.argmin(x) and seen["all"] == True  # noqa: E712
    np.testing.assert_array_equal(g[0], np.full(5, float(np.argmax(x[0]))))
    # and under forward mode
    _, t = tg.jvp(lambda x: tnp.argmax(x) + tnp.sum(x), (x,), (np.ones_like(x),))
    assert t == x.size


# --------------------------------------------------------------------------
# oracle


def test_against_jax():
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    jnp = jax.numpy
    x = X3[:2]
    xz = X3[:2].copy()
    xz[0, 1, 2] = 0.0
    xt = np.round(X3[:2])  # ties
    cases = [
        (lambda m, v: m.max(v, axis=1).sum(), xt),
        (lambda m, v: m.min(v, axis=(0, 2)).sum(), xt),
        (lambda m, v: m.prod(v, axis=2).sum(), xz),
        (lambda m, v: (m.cumprod(v, axis=1) ** 2).sum(), xz),
        (lambda m, v: m.std(v, axis=0, ddof=1).sum(), x),
        (lambda m, v: m.var(v, axis=(1, 2)).sum(), x),
        (lambda m, v: m.average(v, axis=1, weights=m.arange(1.0, 5.0)).sum(), x),
    ]
    for f, v in cases:
        np.testing.assert_allclose(tg.grad(lambda v: f(tnp, v))(v),
                                   jax.grad(lambda v: f(jnp, v))(v), rtol=1e-10, atol=1e-12)
