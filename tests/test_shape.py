"""Shape manipulation of tracegrad.numpy: values against NumPy (plain arrays
and tracers through NumPy's dispatch), derivatives with check_grads (second
order, forward and reverse, float64 and float32, non-contiguous inputs), the
documented edge semantics with exact values, and NumPy's errors."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tracegrad as tg
import tracegrad.numpy as tnp
from tracegrad.primitives import ShapedArray, ops, registry
from tracegrad.test_util import check_grads

RNG = np.random.default_rng(7)
A = RNG.standard_normal((2, 3, 4))
M = RNG.standard_normal((3, 4))
V = RNG.standard_normal(4)
F32 = dict(atol=5e-2, rtol=5e-2)


def total(y):
    """Sum of all elements, with primitives only (no dependency on reductions)."""
    return ops.reduce_sum(y, tuple(range(y.ndim)))


@pytest.fixture
def avals_checked(monkeypatch):
    """Compare every primitive's impl result with its abstract_eval while the test runs."""
    errors = []
    for p in list(registry.values()):
        def checked(*args, _p=p, _impl=p.impl, **params):
            out = _impl(*args, **params)
            avals = [ShapedArray(np.shape(a), a.dtype) if isinstance(a, (np.ndarray, np.generic))
                     else a for a in args]
            want = _p.abstract_eval(*avals, **params)
            for o, w in zip(out if _p.multiple_results else [out],
                            want if _p.multiple_results else [want]):
                if (np.shape(o), np.asarray(o).dtype) != (w.shape, w.dtype):
                    errors.append(f"{_p.name}{params}: impl {np.shape(o)} "
                                  f"{np.asarray(o).dtype}, aval {w}")
            return out

        monkeypatch.setattr(p, "impl", checked)
    yield
    assert not errors, errors


# Each case: (id, f(namespace, *arrays), arrays).  ``f(np, ...)`` is the
# NumPy reference; ``f(tnp, ...)`` the function under test.
CASES = [
    ("reshape", lambda f, x: f.reshape(x, (3, -1)), (A,)),
    ("reshape_F", lambda f, x: f.reshape(x, (4, 6), order="F"), (A,)),
    ("reshape_int", lambda f, x: f.reshape(x, -1), (A,)),
    ("ravel", lambda f, x: f.ravel(x), (A,)),
    ("ravel_F", lambda f, x: f.ravel(x, order="F"), (A,)),
    ("transpose", lambda f, x: f.transpose(x), (A,)),
    ("transpose_axes", lambda f, x: f.transpose(x, (-1, 0, 1)), (A,)),
    ("swapaxes", lambda f, x: f.swapaxes(x, 0, -1), (A,)),
    ("moveaxis", lambda f, x: f.moveaxis(x, 0, -1), (A,)),
    ("moveaxis_multi", lambda f, x: f.moveaxis(x, [0, 1], [-1, -2]), (A,)),
    ("expand_dims", lambda f, x: f.expand_dims(x, 1), (A,)),
    ("expand_dims_tuple", lambda f, x: f.expand_dims(x, (0, -1)), (A,)),
    ("squeeze", lambda f, x: f.squeeze(x), (A.reshape(1, 24, 1),)),
    ("squeeze_axis", lambda f, x: f.squeeze(x, -1), (A.reshape(1, 24, 1),)),
    ("squeeze_tuple", lambda f, x: f.squeeze(x, (0, 2)), (A.reshape(1, 24, 1),)),
    ("broadcast_to", lambda f, x: f.broadcast_to(x, (2, 3, 4)), (M[:, :1],)),
    ("broadcast_arrays", lambda f, x, y: f.broadcast_arrays(x, y), (M[:, :1], V)),
    ("concatenate", lambda f, x, y: f.concatenate([x, y, x], axis=-1), (M, M[:, :2])),
    ("concatenate_none", lambda f, x, y: f.concatenate([x, y], axis=None), (A, V)),
    ("concatenate_axis0", lambda f, x, y: f.concatenate((x, y)), (M, M[:1])),
    ("stack", lambda f, x, y: f.stack([x, y]), (M, M * 2)),
    ("stack_last", lambda f, x, y: f.stack([x, y], axis=-1), (M, M * 2)),
    ("hstack", lambda f, x, y: f.hstack([x, y]), (M, M)),
    ("hstack_1d", lambda f, x, y: f.hstack([x, y]), (V, V)),
    ("vstack", lambda f, x, y: f.vstack([x, y]), (V, M)),
    ("dstack", lambda f, x, y: f.dstack([x, y]), (M, M)),
    ("column_stack", lambda f, x, y: f.column_stack([x, y]), (V[:3], M)),
    ("split", lambda f, x: f.split(x, 2, axis=2), (A,)),
    ("split_points", lambda f, x: f.split(x, [1, -1], axis=1), (A,)),
    ("array_split", lambda f, x: f.array_split(x, 3, axis=2), (A,)),
    ("array_split_none", lambda f, x: f.array_split(x, [2, 9]), (V,)),
    ("tile", lambda f, x: f.tile(x, (2, 1, 1, 2)), (A,)),
    ("tile_int", lambda f, x: f.tile(x, 2), (A,)),
    ("repeat", lambda f, x: f.repeat(x, 2), (M,)),
    ("repeat_axis", lambda f, x: f.repeat(x, 3, axis=-1), (M,)),
    ("repeat_counts", lambda f, x: f.repeat(x, [1, 0, 3], axis=0), (M,)),
    ("flip", lambda f, x: f.flip(x), (A,)),
    ("flip_axes", lambda f, x: f.flip(x, (0, -1)), (A,)),
    ("fliplr", lambda f, x: f.fliplr(x), (A,)),
    ("flipud", lambda f, x: f.flipud(x), (A,)),
    ("roll", lambda f, x: f.roll(x, 5), (A,)),
    ("roll_axis", lambda f, x: f.roll(x, -1, axis=1), (A,)),
    ("roll_tuple", lambda f, x: f.roll(x, (1, -2, 1), axis=(0, 2, 0)), (A,)),
    ("pad", lambda f, x: f.pad(x, 2), (M,)),
    ("pad_pairs", lambda f, x: f.pad(x, ((1, 2), (3, 0))), (M,)),
    ("pad_values", lambda f, x: f.pad(x, ((1, 2), (3, 1)), constant_values=((1., 2.), (3., 4.))),
     (M,)),
    ("pad_edge", lambda f, x: f.pad(x, (2, 3), mode="edge"), (M,)),
    ("pad_reflect", lambda f, x: f.pad(x, ((5, 1), (2, 7)), mode="reflect"), (M,)),
    ("pad_symmetric", lambda f, x: f.pad(x, ((5, 1), (2, 7)), mode="symmetric"), (M,)),
    ("pad_wrap", lambda f, x: f.pad(x, ((5, 1), (2, 9)), mode="wrap"), (M,)),
    ("diag_1d", lambda f, x: f.diag(x), (V,)),
    ("diag_1d_k", lambda f, x: f.diag(x, 2), (V,)),
    ("diag_1d_negk", lambda f, x: f.diag(x, -1), (V,)),
    ("diag_2d", lambda f, x: f.diag(x, 1), (M,)),
    ("diag_2d_negk", lambda f, x: f.diag(x, -2), (M,)),
    ("diagonal", lambda f, x: f.diagonal(x), (A,)),
    ("diagonal_axes", lambda f, x: f.diagonal(x, 1, 0, 2), (A,)),
    ("diagonal_neg", lambda f, x: f.diagonal(x, -1, -1, 1), (A,)),
    ("trace", lambda f, x: f.trace(x), (M,)),
    ("trace_axes", lambda f, x: f.trace(x, 1, 1, 2), (A,)),
    ("triu", lambda f, x: f.triu(x, 1), (A,)),
    ("tril", lambda f, x: f.tril(x, -1), (M,)),
    ("tril_1d", lambda f, x: f.tril(x), (V,)),
    ("take", lambda f, x: f.take(x, [0, 5, 5, -1]), (A,)),
    ("take_axis", lambda f, x: f.take(x, [[0, 3], [3, 3]], axis=-1), (A,)),
    ("take_scalar", lambda f, x: f.take(x, 2, axis=1), (A,)),
    ("take_wrap", lambda f, x: f.take(x, [7, -9], axis=1, mode="wrap"), (A,)),
    ("take_clip", lambda f, x: f.take(x, [7, -9], axis=1, mode="clip"), (A,)),
    ("take_along_axis", lambda f, x: f.take_along_axis(x, np.argsort(A, axis=1), axis=1), (A,)),
    ("take_along_axis_bcast", lambda f, x: f.take_along_axis(x, np.array([[[0, 2, 2]]]), axis=2), (A,)),
    ("sort", lambda f, x: f.sort(x), (A,)),
    ("sort_axis0", lambda f, x: f.sort(x, axis=0), (A,)),
    ("sort_none", lambda f, x: f.sort(x, axis=None), (A,)),
    ("outer", lambda f, x, y: f.outer(x, y), (M, V)),
    ("atleast_1d", lambda f, x: f.atleast_1d(x), (np.array(1.5),)),
    ("atleast_2d", lambda f, x: f.atleast_2d(x), (V,)),
    ("atleast_3d", lambda f, x: f.atleast_3d(x), (V,)),
    ("atleast_3d_2d", lambda f, x: f.atleast_3d(x), (M,)),
    ("atleast_multi", lambda f, x, y: f.atleast_2d(x, y), (V, M)),
    ("append", lambda f, x, y: f.append(x, y), (M, V)),
    ("append_axis", lambda f, x, y: f.append(x, y, axis=0), (M, M)),
]
IDS = [c[0] for c in CASES]


def assert_same(got, want):
    if isinstance(want, (list, tuple)):
        assert isinstance(got, type(want)) and len(got) == len(want)
        for g, w in zip(got, want):
            assert_same(g, w)
        return
    got = np.asarray(got)
    assert got.shape == want.shape and got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("name,f,args", CASES, ids=IDS)
def test_values_match_numpy(name, f, args, avals_checked):
    assert_same(f(tnp, *args), f(np, *args))
    tg.vjp(lambda *xs: f(tnp, *xs), *args)  # the rules' primitives too


@pytest.mark.parametrize("name,f,args", CASES, ids=IDS)
def test_numpy_dispatch_on_tracers(name, f, args):
    # np.<name>(tracer) goes through __array_function__ to tracegrad.numpy
    out, _ = tg.jvp(lambda *xs: f(np, *xs), args, tuple(np.ones_like(a) for a in args))
    assert_same(out, f(np, *args))


@pytest.mark.parametrize("name,f,args", CASES, ids=IDS)
def test_check_grads(name, f, args):
    check_grads(lambda *xs: f(tnp, *xs), args, order=2, modes=("fwd", "rev"))


F32_CASES = ["reshape_F", "concatenate", "stack", "tile", "repeat_counts", "roll_tuple",
             "pad_values", "pad_reflect", "diag_1d_k", "diagonal_axes", "trace_axes",
             "triu", "take", "sort", "outer", "split_points"]


@pytest.mark.parametrize("name,f,args", [c for c in CASES if c[0] in F32_CASES],
                         ids=F32_CASES)
def test_float32(name, f, args):
    args32 = tuple(a.astype(np.float32) for a in args)
    assert_same(f(tnp, *args32), f(np, *args32))
    check_grads(lambda *xs: f(tnp, *xs), args32, order=2, modes=("fwd", "rev"), **F32)


NONCONTIG = ["reshape", "ravel_F", "concatenate_none", "repeat_counts", "pad_symmetric",
             "diagonal", "sort_axis0", "take_axis", "roll_tuple", "tile", "triu", "diag_2d"]


@pytest.mark.parametrize("name,f,args", [c for c in CASES if c[0] in NONCONTIG], ids=NONCONTIG)
@pytest.mark.parametrize("layout", ["transposed", "strided"])
def test_noncontiguous_inputs(name, f, args, layout):
    def view(a):
        if layout == "transposed":
            return np.ascontiguousarray(a.T).T
        big = np.zeros(tuple(2 * n for n in a.shape))
        big[tuple(slice(None, None, 2) for _ in a.shape)] = a
        return big[tuple(slice(None, None, 2) for _ in a.shape)]

    args = tuple(view(a) for a in args)
    assert all(not a.flags.c_contiguous for a in args if a.ndim > 1 or layout == "strided")
    assert_same(f(tnp, *args), f(np, *args))
    check_grads(lambda *xs: f(tnp, *xs), args, order=2, modes=("fwd", "rev"))


# --------------------------------------------------------------------------
# exact derivatives of the rearrangements that copy or select


def test_repeat_counts_gradient_is_the_counts():
    g = tg.grad(lambda x: total(tnp.repeat(x, [1, 0, 3])))(np.array([1.0, 2.0, 3.0]))
    np.testing.assert_array_equal(g, [1.0, 0.0, 3.0])


def test_repeat_scalar_gradient():
    g = tg.grad(lambda x: total(tnp.repeat(x, 3, axis=0) * np.arange(6.0)[:, None]))(np.ones((2, 2)))
    np.testing.assert_array_equal(g, [[3.0, 3.0], [12.0, 12.0]])


def test_tile_gradient_counts_copies():
    g = tg.grad(lambda x: total(tnp.tile(x, (2, 3))))(np.ones((2, 2)))
    np.testing.assert_array_equal(g, np.full((2, 2), 6.0))


@pytest.mark.parametrize("mode", ["edge", "reflect", "symmetric", "wrap"])
def test_pad_modes_accumulate_copies(mode):
    x = np.arange(1.0, 4.0)
    g = tg.grad(lambda x: total(tnp.pad(x, (4, 2), mode=mode)))(x)
    counts = np.bincount(np.pad(np.arange(3), (4, 2), mode=mode), minlength=3)
    np.testing.assert_array_equal(g, counts.astype(float))


def test_pad_traced_constant_values():
    x = np.ones((2, 3))
    f = lambda x, c: total(tnp.pad(x, ((1, 0), (2, 1)), constant_values=c))  # noqa: E731
    gx, gc = tg.grad(f, argnums=(0, 1))(x, 5.0)
    np.testing.assert_array_equal(gx, np.ones((2, 3)))
    assert gc == np.pad(x, ((1, 0), (2, 1))).size - x.size
    # per-side traced values: the corners belong to the later axis, as in NumPy
    c = np.array([[1.0, 2.0], [3.0, 4.0]])
    out = tg.jvp(lambda c: tnp.pad(x, 1, constant_values=c), (c,), (np.zeros_like(c),))[0]
    np.testing.assert_array_equal(out, np.pad(x, 1, constant_values=c))
    gc = tg.grad(lambda c: total(tnp.pad(x, 1, constant_values=c)))(c)
    np.testing.assert_array_equal(gc, [[3.0, 3.0], [4.0, 4.0]])
    check_grads(lambda x, c: tnp.pad(x, ((1, 0), (2, 1)), constant_values=c), (x, c), order=2)


def test_pad_empty_mode_pads_with_zeros():
    out = tnp.pad(M, ((1, 0), (0, 2)), mode="empty")
    assert out.shape == np.pad(M, ((1, 0), (0, 2)), mode="empty").shape
    np.testing.assert_array_equal(out, np.pad(M, ((1, 0), (0, 2))))


def test_sort_gradient_follows_the_permutation():
    x = np.array([3.0, 1.0, 2.0])
    w = np.array([10.0, 20.0, 30.0])
    g = tg.grad(lambda x: total(tnp.sort(x) * w))(x)
    np.testing.assert_array_equal(g, [30.0, 10.0, 20.0])
    # ties: the stable order decides which equal element takes which slot
    g = tg.grad(lambda x: total(tnp.sort(x) * w))(np.array([1.0, 1.0, 0.0]))
    np.testing.assert_array_equal(g, [20.0, 30.0, 10.0])


def test_sort_nan_last_like_numpy():
    x = np.array([2.0, np.nan, -1.0, 0.5])
    assert_same(tnp.sort(x), np.sort(x))


def test_argsort_nonzero_argwhere_are_concrete_integers():
    x0 = np.array([[0.5, -1.0, 0.0], [2.0, 0.0, -3.0]])

    def f(x):
        i = tnp.argsort(x, axis=1)
        assert isinstance(i, np.ndarray) and i.dtype.kind == "i"
        np.testing.assert_array_equal(i, np.argsort(x0, axis=1))
        assert_same(tnp.nonzero(x), np.nonzero(x0))
        assert_same(np.nonzero(x), np.nonzero(x0))
        assert_same(tnp.argwhere(x), np.argwhere(x0))
        assert_same(tnp.flatnonzero(x), np.flatnonzero(x0))
        return total(tnp.take_along_axis(x, i, axis=1) * np.arange(3.0))

    g = tg.grad(f)(x0)
    np.testing.assert_array_equal(g, [[2.0, 0.0, 1.0], [2.0, 1.0, 0.0]])
    for kind in ("stable", "mergesort", None):
        ties = np.array([1.0, 0.0, 1.0, 0.0])
        assert_same(tnp.argsort(ties, kind=kind), np.argsort(ties, kind=kind))
    assert_same(tnp.argsort(A, axis=None), np.argsort(A, axis=None))


def test_diag_and_trace_gradients():
    g = tg.grad(lambda m: tnp.trace(m))(np.ones((3, 4)))
    np.testing.assert_array_equal(g, np.eye(3, 4))
    g = tg.grad(lambda m: total(tnp.diag(m, -1) * np.array([1.0, 2.0])))(np.ones((3, 3)))
    np.testing.assert_array_equal(g, [[0, 0, 0], [1, 0, 0], [0, 2, 0]])
    g = tg.grad(lambda v: total(tnp.diag(v, 1) * np.arange(9.0).reshape(3, 3)))(np.ones(2))
    np.testing.assert_array_equal(g, [1.0, 5.0])


def test_diag_empty_and_trace_dtype():
    assert_same(tnp.diag(np.zeros(0), 2), np.diag(np.zeros(0), 2))
    assert_same(tnp.diagonal(M, 7), np.diagonal(M, 7))
    assert_same(tnp.trace(np.arange(9, dtype=np.int32).reshape(3, 3)),
                np.trace(np.arange(9, dtype=np.int32).reshape(3, 3)))
    assert_same(tnp.trace(M, dtype=np.float32), np.trace(M, dtype=np.float32))


def test_concatenate_mixed_dtypes_promote_and_cast_back():
    x32 = np.ones(2, np.float32)
    x64 = np.ones(3)
    assert_same(tnp.concatenate([x32, x64]), np.concatenate([x32, x64]))
    assert_same(tnp.concatenate([x32, np.arange(2)]), np.concatenate([x32, np.arange(2)]))
    assert_same(tnp.concatenate([x32, x32], dtype=np.float64),
                np.concatenate([x32, x32], dtype=np.float64))
    g32, g64 = tg.grad(lambda a, b: total(tnp.concatenate([a, b])), argnums=(0, 1))(x32, x64)
    assert g32.dtype == np.float32 and g64.dtype == np.float64
    np.testing.assert_array_equal(g32, [1.0, 1.0])


def test_tracer_and_constant_mixed():
    c = np.arange(3.0)
    g = tg.grad(lambda x: total(tnp.stack([x, c]) * np.array([[2.0], [5.0]])))(np.ones(3))
    np.testing.assert_array_equal(g, [2.0, 2.0, 2.0])


def test_tracer_methods():
    def f(x):
        y = x.reshape(4, 6).T.reshape((3, 8)).squeeze().swapaxes(0, 1)
        z = x.ravel().repeat(2).take([0, 1, 47]) + x.diagonal(0, 1, 2).trace()
        return total(y) + total(z) + total(x.flatten())

    check_grads(f, (A,), order=2)


def test_float_counts_and_positions_truncate_like_numpy():
    assert_same(tnp.repeat(V[:3], [1.7, 0.2, 2.9]), np.repeat(V[:3], [1.7, 0.2, 2.9]))
    assert_same(tnp.take(V, [1.9, -1.2]), np.take(V, [1.9, -1.2]))


def test_reshape_order_A_and_ravel_K():
    f = np.asfortranarray(A)
    assert_same(tnp.reshape(f, (4, 6), order="A"), np.reshape(f, (4, 6), order="A"))
    assert_same(tnp.ravel(f, order="K"), np.ravel(f, order="K"))
    assert_same(tnp.ravel(A.transpose(2, 0, 1), order="K"), np.ravel(A.transpose(2, 0, 1), order="K"))


# --------------------------------------------------------------------------
# hypothesis: random shapes and axes against NumPy


shapes = st.lists(st.integers(1, 4), min_size=1, max_size=4).map(tuple)


@settings(max_examples=40, deadline=None)
@given(shape=shapes, data=st.data())
def test_random_axes_against_numpy(shape, data):
    x = np.arange(float(np.prod(shape))).reshape(shape)
    nd = len(shape)
    axis = data.draw(st.integers(-nd, nd - 1), label="axis")
    perm = tuple(data.draw(st.permutations(range(nd)), label="perm"))
    shift = data.draw(st.integers(-7, 7), label="shift")
    checks = [
        lambda f: f.transpose(x, perm),
        lambda f: f.moveaxis(x, axis, 0),
        lambda f: f.expand_dims(x, axis),
        lambda f: f.flip(x, axis),
        lambda f: f.roll(x, shift, axis),
        lambda f: f.roll(x, shift),
        lambda f: f.concatenate([x, x[::-1]], axis),
        lambda f: f.stack([x, x], axis),
        lambda f: f.array_split(x, 3, axis),
        lambda f: f.sort(-x, axis),
        lambda f: f.take(x, [0, -1, 0], axis=axis),
        lambda f: f.repeat(x, 2, axis=axis),
        lambda f: f.tile(x, (2,) * (nd - 1)),
        lambda f: f.squeeze(f.expand_dims(x, axis), axis),
        lambda f: f.pad(x, shift % 4, mode="reflect" if min(shape) > 1 else "wrap"),
        lambda f: f.pad(x, [(i % 3, 1) for i in range(nd)], mode="symmetric"),
    ]
    if nd >= 2:
        checks += [lambda f: f.diagonal(x, shift % 3, axis, (axis + 1) % nd),
                   lambda f: f.swapaxes(x, axis, -1), lambda f: f.triu(x, shift)]
    for c in checks:
        assert_same(c(tnp), c(np))


@settings(max_examples=15, deadline=None)
@given(shape=st.lists(st.integers(1, 3), min_size=1, max_size=3).map(tuple), data=st.data())
def test_random_axes_gradients(shape, data):
    x = RNG.standard_normal(shape)
    nd = len(shape)
    axis = data.draw(st.integers(-nd, nd - 1), label="axis")
    shift = data.draw(st.integers(-4, 4), label="shift")
    check_grads(lambda x: tnp.roll(tnp.moveaxis(x, axis, 0), shift, axis), (x,), order=2)
    check_grads(lambda x: tnp.pad(tnp.sort(x, axis), 2, mode="symmetric"), (x,), order=2)


# --------------------------------------------------------------------------
# errors: NumPy and tracegrad raise the same exception type


ERRORS = [
    ("reshape_size", ValueError, lambda f: f.reshape(M, (5, -1))),
    ("reshape_two_unknown", ValueError, lambda f: f.reshape(M, (-1, -1))),
    ("reshape_order", ValueError, lambda f: f.reshape(M, (12,), order="Q")),
    ("transpose_len", ValueError, lambda f: f.transpose(A, (0, 1))),
    ("transpose_repeat", ValueError, lambda f: f.transpose(A, (0, 1, 1))),
    ("transpose_axis", np.exceptions.AxisError, lambda f: f.transpose(A, (0, 1, 3))),
    ("swapaxes", np.exceptions.AxisError, lambda f: f.swapaxes(A, 0, 3)),
    ("moveaxis", np.exceptions.AxisError, lambda f: f.moveaxis(A, -4, 0)),
    ("moveaxis_len", ValueError, lambda f: f.moveaxis(A, (0, 1), 0)),
    ("expand_dims", np.exceptions.AxisError, lambda f: f.expand_dims(M, 3)),
    ("expand_dims_repeat", ValueError, lambda f: f.expand_dims(M, (0, 0))),
    ("squeeze_non1", ValueError, lambda f: f.squeeze(M, 0)),
    ("squeeze_axis", np.exceptions.AxisError, lambda f: f.squeeze(M, 2)),
    ("broadcast_to", ValueError, lambda f: f.broadcast_to(M, (4, 3))),
    ("broadcast_arrays", ValueError, lambda f: f.broadcast_arrays(M, V[:3])),
    ("concat_empty", ValueError, lambda f: f.concatenate([])),
    ("concat_0d", ValueError, lambda f: f.concatenate([np.float64(1.0), np.float64(2.0)])),
    ("concat_rank", ValueError, lambda f: f.concatenate([M, V])),
    ("concat_shape", ValueError, lambda f: f.concatenate([M, M.T])),
    ("concat_axis", np.exceptions.AxisError, lambda f: f.concatenate([M, M], axis=2)),
    ("concat_casting", TypeError, lambda f: f.concatenate([M, M], dtype=np.int64)),
    ("stack_shapes", ValueError, lambda f: f.stack([M, M[:2]])),
    ("stack_empty", ValueError, lambda f: f.stack([])),
    ("stack_axis", np.exceptions.AxisError, lambda f: f.stack([M, M], axis=3)),
    ("split_unequal", ValueError, lambda f: f.split(M, 5, axis=1)),
    ("array_split_zero", ValueError, lambda f: f.array_split(M, 0)),
    ("tile_negative", ValueError, lambda f: f.tile(M, -1)),
    ("repeat_negative", ValueError, lambda f: f.repeat(M, -1)),
    ("repeat_counts_len", ValueError, lambda f: f.repeat(M, [1, 2], axis=0)),
    ("repeat_complex", TypeError, lambda f: f.repeat(M, 1j)),
    ("flip_axis", np.exceptions.AxisError, lambda f: f.flip(M, 2)),
    ("fliplr_1d", ValueError, lambda f: f.fliplr(V)),
    ("flipud_0d", ValueError, lambda f: f.flipud(np.float64(1.0))),
    ("roll_axis", np.exceptions.AxisError, lambda f: f.roll(M, 1, axis=2)),
    ("pad_negative", ValueError, lambda f: f.pad(M, -1)),
    ("pad_float", TypeError, lambda f: f.pad(M, 1.5)),
    ("pad_mode", ValueError, lambda f: f.pad(M, 1, mode="nonsense")),
    ("pad_kwarg", ValueError, lambda f: f.pad(M, 1, mode="edge", constant_values=3)),
    ("pad_empty_axis", ValueError, lambda f: f.pad(np.zeros((0, 2)), 1, mode="edge")),
    ("diag_3d", ValueError, lambda f: f.diag(A)),
    ("diagonal_1d", ValueError, lambda f: f.diagonal(V)),
    ("diagonal_same", ValueError, lambda f: f.diagonal(A, 0, 1, -2)),
    ("diagonal_axis", np.exceptions.AxisError, lambda f: f.diagonal(A, 0, 0, 3)),
    ("take_oob", IndexError, lambda f: f.take(V, [4])),
    ("take_neg_oob", IndexError, lambda f: f.take(M, [-4], axis=0)),
    ("take_complex", TypeError, lambda f: f.take(V, [1j])),
    ("take_mode", ValueError, lambda f: f.take(V, [1], mode="nope")),
    ("take_empty_wrap", IndexError, lambda f: f.take(np.zeros(0), [1], mode="wrap")),
    ("take_axis", np.exceptions.AxisError, lambda f: f.take(M, [0], axis=2)),
    ("take_along_float", IndexError, lambda f: f.take_along_axis(M, np.zeros((1, 1)), 0)),
    ("take_along_rank", ValueError, lambda f: f.take_along_axis(M, np.zeros(2, int), 0)),
    ("take_along_oob", IndexError, lambda f: f.take_along_axis(M, np.full((1, 1), 3), 0)),
    ("sort_axis", np.exceptions.AxisError, lambda f: f.sort(M, axis=2)),
    ("nonzero_0d", ValueError, lambda f: f.nonzero(np.float64(1.0))),
]


@pytest.mark.parametrize("name,exc,f", ERRORS, ids=[e[0] for e in ERRORS])
def test_errors_match_numpy(name, exc, f):
    with pytest.raises(exc):
        f(np)
    with pytest.raises(exc):
        f(tnp)


def test_errors_name_the_problem():
    with pytest.raises(ValueError, match="cannot reshape array of size 12 into shape"):
        tnp.reshape(M, (5, -1))
    with pytest.raises(ValueError, match="along dimension 1, the array at index 0 has size 4"):
        tnp.concatenate([M, M[:, :2]], axis=0)
    with pytest.raises(ValueError, match="size not equal to one"):
        tnp.squeeze(M, 0)
    with pytest.raises(TypeError, match="out=.*not supported"):
        tnp.concatenate([M, M], out=np.empty((6, 4)))
    with pytest.raises(NotImplementedError, match="supported modes: constant, edge, reflect"):
        tnp.pad(M, 1, mode="mean")
    with pytest.raises(NotImplementedError, match="odd"):
        tnp.pad(M, 1, mode="reflect", reflect_type="odd")
    with pytest.raises(IndexError, match="index 4 is out of bounds for axis 0 with size 4"):
        tnp.take(V, [4])


def test_errors_inside_transforms_leave_no_state():
    with pytest.raises(np.exceptions.AxisError):
        tg.grad(lambda x: total(tnp.flip(x, 3)))(M)
    g = tg.grad(lambda x: total(tnp.flip(x, 1)))(M)
    np.testing.assert_array_equal(g, np.ones_like(M))


# --------------------------------------------------------------------------
# JAX as an oracle for the gradients of the selecting rearrangements


ORACLE = [
    ("pad_reflect", lambda f, x: f.pad(x, ((5, 1), (2, 7)), mode="reflect")),
    ("pad_symmetric", lambda f, x: f.pad(x, ((3, 4), (0, 6)), mode="symmetric")),
    ("pad_wrap", lambda f, x: f.pad(x, ((5, 1), (2, 9)), mode="wrap")),
    ("pad_edge", lambda f, x: f.pad(x, 3, mode="edge")),
    ("sort", lambda f, x: f.sort(x, axis=0)),
    ("roll", lambda f, x: f.roll(x, (1, -3), axis=(0, 1))),
    ("repeat", lambda f, x: f.repeat(x, np.array([2, 0, 3]), axis=0)),
    ("take_clip", lambda f, x: f.take(x, np.array([[7, -9], [1, 1]]), axis=1, mode="clip")),
    ("diag", lambda f, x: f.diag(f.diag(x, 1), -2)),
    ("tile", lambda f, x: f.tile(x, (2, 1, 3))),
    ("triu", lambda f, x: f.triu(x, -1)),
]


@pytest.mark.parametrize("name,f", ORACLE, ids=[c[0] for c in ORACLE])
def test_gradients_against_jax(name, f):
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    jnp = jax.numpy
    w = RNG.standard_normal(f(np, M).shape)
    want = jax.grad(lambda x: jnp.sum(f(jnp, x) * w))(jnp.asarray(M))
    got = tg.grad(lambda x: total(f(tnp, x) * w))(M)
    np.testing.assert_allclose(got, np.asarray(want), rtol=1e-12, atol=1e-12)
