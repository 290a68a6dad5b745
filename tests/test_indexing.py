"""Indexing of tracers (``x[idx]``) and functional updates (``x.at[idx]``):
values and tangents against NumPy for every index form, check_grads to second
order, repeated-index accumulation, boolean masks, the gather/scatter_add
primitives, non-contiguous inputs and NumPy's errors."""
import importlib.util
import pathlib

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tracegrad as tg
import tracegrad.numpy as tnp
from tracegrad.primitives import ShapedArray, ops
from tracegrad.primitives.indexing import gather_p, scatter_add_p
from tracegrad.test_util import check_grads

RNG = np.random.default_rng(3)
X = RNG.standard_normal((3, 4, 5))
F32 = dict(atol=5e-2, rtol=5e-2)


def total(y):
    return ops.reduce_sum(y, tuple(range(y.ndim)))


def index_of(x, idx):
    """``x[idx]`` computed by tracegrad (x is wrapped in a JVP tracer)."""
    out, t = tg.jvp(lambda x: x[idx], (x,), (x * 0 + 1.0,))
    return out


def _sibling(name):
    """Load a sibling test module (the tests folder is not a package)."""
    spec = importlib.util.spec_from_file_location(
        f"_tracegrad_{name}", pathlib.Path(__file__).with_name(f"{name}.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


avals_checked = _sibling("test_shape").avals_checked  # impl vs abstract_eval, per primitive

BASIC = [
    0, -1, (1, 2), (1, -2, 3), slice(None), slice(1, None), slice(None, None, -1),
    slice(None, None, 2), slice(-1, 0, -2), slice(5, 1, -1), slice(2, 2),
    (slice(None), slice(1, 3)), (Ellipsis, 1), (Ellipsis, slice(None, None, -3)),
    (None,), (None, 0, None, slice(1, 3)), (0, Ellipsis, None), (slice(1, 2), None, -1),
    (slice(None, None, -1), 2, slice(4, None, -2)), (),
]
ADVANCED = [
    [0, 2, 2], [-1, 0], ([0, 1], [1, 2]), ([[0], [2]], [1, 3]), (slice(None), [0, 0, 3]),
    (slice(None), [0, 1], None, [0, 1]), (slice(None), [0, 1], [0, 1], None),
    (slice(None), 0, [0, 1]), (0, slice(None), [0, 1]),
    (0, slice(None), [0, 1]), ([1, 2], slice(None), [0, 4]),
    (slice(None), [[0], [1]], slice(None, None, -2)),
    (np.array(1), [2]), ([],), (Ellipsis, [0, 0, 4]), (Ellipsis, [0, 1], slice(None)),
    ([2, 0], Ellipsis, [1, 3]), (slice(None), [1, 3], Ellipsis, [0, 1]),
    (np.array([[0, 1], [2, 0]]),), (slice(1, None), np.array([3, 1]), 4),
    (None, [0, 1], None, [1, 1]),
]
MASKS = [
    X > 0, X[:, 0, 0] > 0, (X[..., 0] > 0,), (Ellipsis, X[0, 0] > 0),
    (slice(None), X[0, :, 0] > 0), (slice(None), X[0, :, 0] > 0, [0, 4]),
    (X[:, :, 0] > 0, slice(None, None, -1)), (1, X[0] > 0.5),
    True, (False, 0), (slice(None), True, [1, 2]), np.zeros(3, bool),
]
ALL = BASIC + ADVANCED + MASKS


def idx_id(i):
    return repr(i)[:60]


@pytest.mark.parametrize("idx", ALL, ids=[idx_id(i) for i in ALL])
def test_values_and_tangents_match_numpy(idx, avals_checked):
    t = RNG.standard_normal(X.shape)
    out, t_out = tg.jvp(lambda x: x[idx], (X,), (t,))
    want = X[idx]
    assert np.shape(out) == want.shape and np.asarray(out).dtype == want.dtype
    np.testing.assert_array_equal(out, want)
    np.testing.assert_array_equal(t_out, t[idx])  # indexing is linear
    # the cotangent of x[idx] is the scatter-add of the output cotangent
    ct = RNG.standard_normal(want.shape)
    (g,) = tg.vjp(lambda x: x[idx], X)[1](ct)
    expected = np.zeros_like(X)
    np.add.at(expected, idx, ct)
    np.testing.assert_allclose(g, expected, rtol=1e-14, atol=1e-14)


@pytest.mark.parametrize("idx", ALL, ids=[idx_id(i) for i in ALL])
def test_check_grads(idx):
    check_grads(lambda x: x[idx], (X,), order=2, modes=("fwd", "rev"))


@pytest.mark.parametrize("idx", [(slice(None), 1), slice(None, None, -2), [0, 0, 2],
                                 (slice(None), [1, 3], Ellipsis, [0, 1]), X[:, 0, 0] > 0])
def test_float32(idx):
    x32 = X.astype(np.float32)
    out = index_of(x32, idx)
    assert out.dtype == np.float32
    np.testing.assert_array_equal(out, x32[idx])
    check_grads(lambda x: x[idx] * x[idx], (x32,), order=2, **F32)


@pytest.mark.parametrize("layout", ["transposed", "strided"])
@pytest.mark.parametrize("idx", [(0,), (slice(None, None, -1), 1), ([2, 0, 2],),
                                 (slice(None), [1, 1], [0, 2]), (Ellipsis, [3, 0])])
def test_noncontiguous(layout, idx):
    base = RNG.standard_normal((5, 4, 3) if layout == "transposed" else (6, 8, 10))
    x = base.T if layout == "transposed" else base[::2, ::-2, 1::2]
    assert x.shape == (3, 4, 5) and not x.flags.c_contiguous
    np.testing.assert_array_equal(index_of(x, idx), x[idx])
    check_grads(lambda x: x[idx], (x,), order=2)
    check_grads(lambda x, v: tnp.at(x)[idx].add(v), (x, np.ones(x[idx].shape)), order=2)


# --------------------------------------------------------------------------
# which primitives run


@pytest.fixture
def gather_calls(monkeypatch):
    calls = []
    impl = gather_p.impl

    def counting(*args, **params):
        calls.append(params)
        return impl(*args, **params)

    monkeypatch.setattr(gather_p, "impl", counting)
    return calls


@pytest.mark.parametrize("idx", BASIC, ids=[idx_id(i) for i in BASIC])
def test_basic_indexing_uses_views_only(idx, gather_calls):
    tg.grad(lambda x: total(x[idx]))(X)
    tg.jvp(lambda x: x[idx], (X,), (X,))
    assert gather_calls == []


def test_advanced_indexing_is_one_gather(gather_calls):
    tg.jvp(lambda x: x[:, [0, 2], 1:], (X,), (X,))
    assert len(gather_calls) == 2  # primal and tangent
    gather_calls.clear()
    tg.jvp(lambda x: x[[1, 0], :, [[2], [3]]], (X,), (X,))
    assert len(gather_calls) == 2  # several index arrays still make one gather


# --------------------------------------------------------------------------
# repeated indices accumulate; masks; exact values


def test_repeated_indices_accumulate():
    g = tg.grad(lambda x: total(x[np.array([0, 0, 1])]))(np.arange(5.0))
    np.testing.assert_array_equal(g, [2.0, 1.0, 0.0, 0.0, 0.0])
    g = tg.grad(lambda x: total(x[[0, 0, 1]]))(np.arange(5.0))
    np.testing.assert_array_equal(g, [2.0, 1.0, 0.0, 0.0, 0.0])
    g = tg.grad(lambda x: total(x[[2, 0, 2, 2]] * np.array([1.0, 2.0, 3.0, 4.0])))(np.zeros(3))
    np.testing.assert_array_equal(g, [2.0, 0.0, 8.0])
    g = tg.grad(lambda x: total(x[[0, 0], [1, 1]]))(np.zeros((2, 3)))
    np.testing.assert_array_equal(g, [[0.0, 2.0, 0.0], [0.0, 0.0, 0.0]])
    g = tg.grad(lambda x: total(x[[1, 1, 0]]))(np.zeros((2, 3)))
    np.testing.assert_array_equal(g, [[1.0, 1.0, 1.0], [2.0, 2.0, 2.0]])


def test_repeated_indices_with_sum_method():
    if not hasattr(tnp, "sum"):
        pytest.skip("tracegrad.numpy.sum is not available")
    g = tg.grad(lambda x: x[[0, 0, 1]].sum())(np.arange(5.0))
    np.testing.assert_array_equal(g, [2.0, 1.0, 0.0, 0.0, 0.0])


def test_repeated_indices_higher_order():
    # d2/dx2 of sum(x[[0, 0, 1]] ** 3) = 6 * count * x
    x = np.array([1.0, 2.0, 3.0])
    h = tg.hessian(lambda x: total(x[[0, 0, 1]] ** 3))(x)
    np.testing.assert_allclose(h, np.diag([12.0, 12.0, 0.0]))
    h = tg.jacfwd(tg.jacrev(lambda x: x[[2, 2]] ** 2))(x)
    np.testing.assert_allclose(h[:, 2, 2], [2.0, 2.0])


def test_boolean_mask_from_a_traced_comparison():
    x = np.array([-1.0, 2.0, 0.0, 3.0])
    f = lambda x: total(x[x > 0] ** 2)  # noqa: E731
    assert f(x) == 13.0
    np.testing.assert_array_equal(tg.grad(f)(x), [0.0, 4.0, 0.0, 6.0])
    check_grads(lambda x: x[x > 0.5], (X,), order=2)


def test_boolean_mask_shapes():
    m = X[..., 0] > 0
    assert index_of(X, m).shape == (int(m.sum()), 5)
    assert index_of(X, True).shape == (1, 3, 4, 5)
    assert index_of(X, False).shape == (0, 3, 4, 5)
    assert index_of(X, np.zeros((3, 4, 5), bool)).shape == (0,)


def test_empty_selections_have_zero_gradient():
    g = tg.grad(lambda x: total(x[[]]) + total(x[2:2]) + total(x[X[:, 0, 0] > 100]))(X)
    np.testing.assert_array_equal(g, np.zeros_like(X))


def test_tracer_index_arrays_are_read_for_their_values():
    # an integer-valued float tracer cannot index, but integer arrays and
    # tracers holding them as positions work through their concrete value
    def f(x):
        i = tnp.argsort(x)  # a plain integer array
        return total(x[i[:2]])

    np.testing.assert_array_equal(tg.grad(f)(np.array([3.0, 1.0, 2.0])), [0.0, 1.0, 1.0])


# --------------------------------------------------------------------------
# functional updates: .at


AT_INDICES = [[1, 2, 1], (slice(None), 0), (slice(None, None, -1), [0, 0, 3]),
              (Ellipsis, 1), 2, (X[:, 0, 0] > 0,), ([0, 0], [1, 1], [2, 2])]

UFUNC_AT = {
    "add": np.add, "subtract": np.subtract, "multiply": np.multiply,
    "divide": np.divide, "min": np.minimum, "max": np.maximum, "power": np.power,
}


def _np_set(x, idx, v):
    y = x.copy()
    y[idx] = v
    return y


def _np_ufunc_at(name):
    def f(x, idx, v):
        y = x.copy()
        UFUNC_AT[name].at(y, idx, np.broadcast_to(v, x[idx].shape))
        return y

    return f


@pytest.mark.parametrize("idx", AT_INDICES, ids=[idx_id(i) for i in AT_INDICES])
@pytest.mark.parametrize("method", ["set", *UFUNC_AT])
def test_at_values_match_numpy(idx, method, avals_checked):
    x = np.abs(X) + 0.5
    v = RNG.uniform(0.5, 1.5, x[idx].shape)
    want = (_np_set if method == "set" else _np_ufunc_at(method))(x, idx, v)
    got = getattr(tnp.at(x)[idx], method)(v)
    np.testing.assert_allclose(got, want, rtol=1e-14)
    # the same on tracers, with the .at property
    out = tg.jvp(lambda x: getattr(x.at[idx], method)(v), (x,), (x,))[0]
    np.testing.assert_allclose(out, want, rtol=1e-14)
    scalar_got = getattr(tnp.at(x)[idx], method)(1.25)
    scalar_want = (_np_set if method == "set" else _np_ufunc_at(method))(x, idx, 1.25)
    np.testing.assert_allclose(scalar_got, scalar_want, rtol=1e-14)


@pytest.mark.parametrize("idx", AT_INDICES[:4], ids=[idx_id(i) for i in AT_INDICES[:4]])
@pytest.mark.parametrize("method", ["set", *UFUNC_AT])
def test_at_check_grads(idx, method):
    x = np.abs(X) + 0.5
    v = RNG.uniform(0.5, 1.5, x[idx].shape)
    check_grads(lambda x, v: getattr(tnp.at(x)[idx], method)(v), (x, v), order=2)


@pytest.mark.parametrize("method", ["set", "add", "multiply", "max"])
def test_at_float32_and_broadcast_values(method):
    x = X.astype(np.float32)
    v = np.float32(0.75) * np.ones((1, 5), np.float32)
    out = getattr(tnp.at(x)[:, 1:3], method)(v)
    assert out.dtype == np.float32
    check_grads(lambda x, v: getattr(tnp.at(x)[:, 1:3], method)(v), (x, v), order=2, **F32)


def test_at_set_gradients_are_exact():
    x = np.arange(5.0)
    w = np.array([1.0, 10.0, 100.0, 1000.0, 10000.0])
    f = lambda x, v: total(x.at[[0, 3]].set(v) * w)  # noqa: E731
    gx, gv = tg.grad(f, argnums=(0, 1))(x, np.array([7.0, 8.0]))
    np.testing.assert_array_equal(gx, [0.0, 10.0, 100.0, 0.0, 10000.0])
    np.testing.assert_array_equal(gv, [1.0, 1000.0])


def test_at_set_duplicates_last_wins_and_alone_gets_the_gradient():
    x = np.zeros(3)
    v = np.array([1.0, 2.0, 3.0])
    out = tnp.at(x)[[0, 2, 0]].set(v)
    np.testing.assert_array_equal(out, [3.0, 0.0, 2.0])
    np.testing.assert_array_equal(out, _np_set(x, [0, 2, 0], v))
    gv = tg.grad(lambda v: total(tnp.at(x)[[0, 2, 0]].set(v) * np.array([1.0, 5.0, 7.0])))(v)
    np.testing.assert_array_equal(gv, [0.0, 7.0, 1.0])


def test_at_add_duplicates_accumulate():
    x = np.zeros(4)
    out = tnp.at(x)[[1, 1, 3, 1]].add(np.array([1.0, 2.0, 3.0, 4.0]))
    np.testing.assert_array_equal(out, [0.0, 7.0, 0.0, 3.0])
    w = np.array([1.0, 10.0, 100.0, 1000.0])
    gx, gv = tg.grad(lambda x, v: total(x.at[[1, 1, 3, 1]].add(v) * w), argnums=(0, 1))(
        x, np.ones(4))
    np.testing.assert_array_equal(gx, w)
    np.testing.assert_array_equal(gv, [10.0, 10.0, 1000.0, 10.0])


def test_at_multiply_and_max_duplicates_compose():
    x = np.array([2.0, 3.0])
    v = np.array([5.0, 7.0])
    np.testing.assert_array_equal(tnp.at(x)[[0, 0]].multiply(v), [70.0, 3.0])
    gx, gv = tg.grad(lambda x, v: total(x.at[[0, 0]].multiply(v)), argnums=(0, 1))(x, v)
    np.testing.assert_array_equal(gx, [35.0, 1.0])
    np.testing.assert_array_equal(gv, [14.0, 10.0])
    np.testing.assert_array_equal(tnp.at(x)[[0, 0, 1]].max(np.array([1.0, 4.0, 3.0])), [4.0, 3.0])
    gv = tg.grad(lambda v: total(tnp.at(x)[[0, 0, 1]].max(v)))(np.array([1.0, 4.0, 3.0]))
    np.testing.assert_array_equal(gv, [0.0, 1.0, 0.5])  # tie with x[1] = 3 splits


def test_at_does_not_modify_its_input_and_casts_values():
    x = np.arange(4)
    out = tnp.at(x)[1].set(2.7)
    np.testing.assert_array_equal(x, [0, 1, 2, 3])
    np.testing.assert_array_equal(out, _np_set(x, 1, 2.7))
    assert out.dtype == x.dtype
    assert tnp.at([1.0, 2.0])[0].add(1).tolist() == [2.0, 2.0]


def test_at_get():
    np.testing.assert_array_equal(tnp.at(X)[1, ::-1].get(), X[1, ::-1])
    out, t = tg.jvp(lambda x: x.at[[0, 0], 1].get(), (X,), (2 * X,))
    np.testing.assert_array_equal(out, X[[0, 0], 1])
    np.testing.assert_array_equal(t, 2 * X[[0, 0], 1])
    check_grads(lambda x: tnp.at(x)[1, ::-1].get(), (X,), order=2)


def test_at_value_shape_mismatch():
    with pytest.raises(ValueError, match="could not be broadcast to indexing result of shape"):
        tnp.at(X)[0].set(np.ones(3))
    # leading size-1 axes of the values are dropped, as NumPy does
    np.testing.assert_array_equal(tnp.at(X)[0, 0].set(np.ones((1, 1, 5))), _np_set(X, (0, 0), 1.0))


# --------------------------------------------------------------------------
# the gather / scatter_add primitives


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64])
@pytest.mark.parametrize("axis", [0, 1, 2])
def test_scatter_add_matches_add_at(dtype, axis):
    idx = np.array([[0, 2], [2, 2]])
    u_shape = list(X.shape)
    u_shape[axis:axis + 1] = idx.shape
    u = (RNG.standard_normal(u_shape) * 10).astype(dtype)
    out = ops.scatter_add(u, idx, axis, X.shape[axis])
    want = np.zeros(X.shape, dtype)
    np.add.at(want, (slice(None),) * axis + (idx,), u)
    assert out.dtype == want.dtype
    np.testing.assert_allclose(out, want, rtol=1e-6)
    np.testing.assert_array_equal(ops.gather(X, idx, axis), np.take(X, idx, axis=axis))


def test_gather_scatter_abstract_eval_matches_impl():
    idx = np.array([[0, 2], [2, 2]])
    a = gather_p.abstract_eval(ShapedArray(X.shape, X.dtype), ShapedArray(idx.shape, idx.dtype), axis=1)
    assert a == ShapedArray(ops.gather(X, idx, 1).shape, X.dtype)
    u = ops.gather(X, idx, 1)
    b = scatter_add_p.abstract_eval(ShapedArray(u.shape, u.dtype), ShapedArray(idx.shape, idx.dtype),
                                    axis=1, size=4)
    assert b == ShapedArray(ops.scatter_add(u, idx, 1, 4).shape, u.dtype)


def test_gather_scatter_higher_order():
    idx = np.array([3, 0, 3, 1])
    check_grads(lambda x: ops.gather(x, idx, 1) ** 2, (X,), order=3)
    u = RNG.standard_normal((3, 4, 5))
    check_grads(lambda u: ops.scatter_add(u, idx, 1, 6) ** 2, (u,), order=3)


def test_jvp_vjp_consistency():
    idx = np.array([[1, 1], [0, 2]])
    v = RNG.standard_normal(X.shape)
    for f in (lambda x: ops.gather(x, idx, 0), lambda x: x[:, [1, 1, 0], ::-2]):
        out, jv = tg.jvp(f, (X,), (v,))
        u = RNG.standard_normal(out.shape)
        (jtu,) = tg.vjp(f, X)[1](u)
        np.testing.assert_allclose(np.sum(u * jv), np.sum(jtu * v), rtol=1e-12)


# --------------------------------------------------------------------------
# hypothesis: random index expressions against NumPy


@st.composite
def index_exprs(draw):
    shape = tuple(draw(st.lists(st.integers(1, 4), min_size=1, max_size=3)))
    items = []
    for n in shape:
        kind = draw(st.sampled_from(["int", "slice", "full", "array", "mask", "skip"]))
        if kind == "int":
            items.append(draw(st.integers(-n, n - 1)))
        elif kind == "slice":
            bound = st.one_of(st.none(), st.integers(-n - 2, n + 2))
            step = draw(st.one_of(st.none(), st.integers(-3, 3).filter(bool)))
            items.append(slice(draw(bound), draw(bound), step))
        elif kind == "full":
            items.append(slice(None))
        elif kind == "array":
            items.append(draw(st.lists(st.integers(-n, n - 1), min_size=0, max_size=3)))
        elif kind == "mask":
            items.append(np.array(draw(st.lists(st.booleans(), min_size=n, max_size=n))))
        else:
            break  # leave the remaining axes implicit
        if draw(st.booleans()) and draw(st.booleans()):
            items.append(draw(st.sampled_from([None, Ellipsis])))
    if sum(i is Ellipsis for i in items) > 1:
        items = [i for i in items if i is not Ellipsis]
    return shape, tuple(items)


@settings(max_examples=150, deadline=None)
@given(index_exprs())
def test_random_indices_against_numpy(case):
    shape, idx = case
    x = np.arange(1.0, np.prod(shape) + 1.0).reshape(shape)
    try:
        want = x[idx]
    except IndexError:
        with pytest.raises(IndexError):
            index_of(x, idx)
        return
    out, t_out = tg.jvp(lambda x: x[idx], (x,), (-x,))
    assert np.shape(out) == want.shape
    np.testing.assert_array_equal(out, want)
    np.testing.assert_array_equal(t_out, -want)
    ct = np.ones(want.shape)
    (g,) = tg.vjp(lambda x: x[idx], x)[1](ct)
    expected = np.zeros_like(x)
    np.add.at(expected, idx, ct)
    np.testing.assert_array_equal(g, expected)
    upd = tnp.at(x)[idx].add(np.full(want.shape, 0.5))
    expected = x.copy()
    np.add.at(expected, idx, 0.5)
    np.testing.assert_array_equal(upd, expected)


# --------------------------------------------------------------------------
# errors


INDEX_ERRORS = [
    ("int_oob", IndexError, 3),
    ("neg_oob", IndexError, (0, -5)),
    ("array_oob", IndexError, (slice(None), [0, 4])),
    ("array_neg_oob", IndexError, [-4]),
    ("too_many", IndexError, (0, 0, 0, 0)),
    ("two_ellipses", IndexError, (Ellipsis, 0, Ellipsis)),
    ("float", IndexError, 1.0),
    ("float_in_tuple", IndexError, (0, 1.5)),
    ("float_array", IndexError, np.array([0.0, 1.0])),
    ("float_list", IndexError, [0.0, 1.0]),
    ("mask_shape", IndexError, np.ones(4, bool)),
    ("mask_shape_2d", IndexError, (slice(None), np.ones((4, 4), bool))),
    ("no_broadcast", IndexError, ([0, 1], [0, 1, 2])),
    ("string", IndexError, "a"),
]


@pytest.mark.parametrize("name,exc,idx", INDEX_ERRORS, ids=[e[0] for e in INDEX_ERRORS])
def test_index_errors_match_numpy(name, exc, idx):
    with pytest.raises(exc):
        X[idx]
    with pytest.raises(exc):
        index_of(X, idx)
    with pytest.raises(exc):
        tnp.at(X)[idx].set(0.0)


def test_error_messages():
    with pytest.raises(IndexError, match="index 3 is out of bounds for axis 0 with size 3"):
        index_of(X, 3)
    with pytest.raises(IndexError, match="index 7 is out of bounds for axis 1 with size 4"):
        index_of(X, (slice(None), [0, 7]))
    with pytest.raises(IndexError, match="only integers, slices"):
        index_of(X, 1.0)
    with pytest.raises(IndexError, match="must be of integer \\(or boolean\\) type"):
        index_of(X, np.array([1.0]))
    with pytest.raises(IndexError, match="too many indices for array: array is 3-dimensional, but 4"):
        index_of(X, (0, 0, 0, 0))


def test_setitem_points_to_at():
    def f(x):
        x[0] = 1.0
        return x

    with pytest.raises(TypeError, match=r"x\.at\[idx\]\.set"):
        tg.jvp(f, (X,), (X,))


# --------------------------------------------------------------------------
# JAX as an oracle

_a = np.array  # JAX takes index arrays, not lists
ORACLE_INDICES = [(slice(None), _a([0, 0, 3])), (_a([[0], [2]]), slice(None, None, -1), _a([1, 4])),
                  (Ellipsis, None, _a([4, 4, 0])), (0, slice(None), _a([1, 2])),
                  (slice(1, None, 2), 2)]


@pytest.mark.parametrize("idx", ORACLE_INDICES, ids=[idx_id(i) for i in ORACLE_INDICES])
def test_against_jax(idx):
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    jnp = jax.numpy
    w = RNG.standard_normal(X[idx].shape)
    want = jax.grad(lambda x: jnp.sum(x[idx] * w))(jnp.asarray(X))
    np.testing.assert_allclose(tg.grad(lambda x: total(x[idx] * w))(X), np.asarray(want), rtol=1e-12)
    v = RNG.standard_normal(X[idx].shape)
    pos = np.arange(X.size).reshape(X.shape)[idx]
    unique = np.unique(pos).size == pos.size  # JAX differentiates scatter_mul only then
    kw = {"unique_indices": True} if unique else {}
    for method in ("add", "min", "max") + (("multiply", "set") if unique else ()):
        jf = lambda x, v: jnp.sum(getattr(x.at[idx], method)(v, **kw) ** 2)  # noqa: E731
        tf = lambda x, v: total(getattr(x.at[idx], method)(v, **kw) ** 2)  # noqa: E731
        want = jax.grad(jf, argnums=(0, 1))(jnp.asarray(X), jnp.asarray(v))
        got = tg.grad(tf, argnums=(0, 1))(X, v)
        for g, w_ in zip(got, want):
            np.testing.assert_allclose(g, np.asarray(w_), rtol=1e-12, atol=1e-12)
