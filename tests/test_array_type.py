"""``tracegrad.Array``: what ``tracegrad.numpy`` returns on concrete input.

An ndarray subclass with JAX's ``.at`` and indexing by traced indices, kept
off tracegrad's internals: the transforms strip it from their inputs, and an
operation mixing it with a plain ndarray gives a plain ndarray.
"""
import copy
import pickle

import numpy as np
import pytest

import tracegrad as tg
import tracegrad.numpy as tnp
import tracegrad.torch as ttorch
from tracegrad.interpreters.jvp import JVPTracer
from tracegrad.interpreters.vjp import VJPTracer

XS = np.array([1.0, -2.0, 3.0, 0.5])
M = np.arange(12.0).reshape(3, 4)

# (method, values, NumPy's in-place equivalent on a copy)
METHODS = [
    ("set", 7.0, lambda a, i, v: a.__setitem__(i, v)),
    ("add", 2.0, lambda a, i, v: np.add.at(a, i, v)),
    ("subtract", 2.0, lambda a, i, v: np.subtract.at(a, i, v)),
    ("multiply", 3.0, lambda a, i, v: np.multiply.at(a, i, v)),
    ("divide", 4.0, lambda a, i, v: np.divide.at(a, i, v)),
    ("power", 2.0, lambda a, i, v: np.power.at(a, i, v)),
    ("min", 0.0, lambda a, i, v: np.minimum.at(a, i, v)),
    ("max", 2.5, lambda a, i, v: np.maximum.at(a, i, v)),
]
INDICES = [1, slice(1, 3), [0, 2], np.array([True, False, True, False])]


def _is_array(x):
    return type(x) is tg.Array


# --------------------------------------------------------------------------
# the type


def test_array_is_an_ndarray_subclass_exported_twice():
    assert tg.Array is tnp.Array
    assert issubclass(tg.Array, np.ndarray)
    assert tg.Array.__module__ == "tracegrad"
    assert tg.Array.__name__ == "Array"


@pytest.mark.parametrize("make", [
    lambda: tnp.zeros(3), lambda: tnp.ones((2, 2), np.float32), lambda: tnp.empty(2),
    lambda: tnp.full(3, 2.0), lambda: tnp.zeros_like(XS), lambda: tnp.eye(3),
    lambda: tnp.identity(2), lambda: tnp.arange(5), lambda: tnp.linspace(0, 1, 5),
    lambda: tnp.asarray([1.0, 2.0]), lambda: tnp.array(XS), lambda: tnp.asarray(XS),
    lambda: tnp.sin(XS), lambda: tnp.exp(XS) + 1.0, lambda: tnp.maximum(XS, 0.0),
    lambda: tnp.sum(M, axis=0), lambda: tnp.reshape(M, (4, 3)), lambda: tnp.transpose(M),
    lambda: tnp.concatenate([XS, XS]), lambda: tnp.where(XS > 0, XS, 0.0),
    lambda: tnp.matmul(M, M.T), lambda: tnp.dot(M, np.ones(4)), lambda: tnp.einsum("ij->j", M),
    lambda: tnp.sort(XS), lambda: tnp.cumsum(XS), lambda: tnp.clip(XS, 0, 1),
    lambda: tnp.astype(XS, np.float32), lambda: tnp.linalg.inv(np.eye(2) * 2),
    lambda: tnp.linalg.solve(np.eye(2), np.ones(2)), lambda: tnp.linalg.cholesky(np.eye(2)),
    lambda: tnp.linalg.matrix_transpose(M), lambda: tnp.linalg.outer(XS, XS),
    lambda: tnp.fft.fft(XS), lambda: tnp.fft.rfft(XS), lambda: tnp.fft.fftfreq(4),
    lambda: tnp.fft.rfftfreq(4), lambda: tnp.at(XS)[0].set(2.0), lambda: tnp.frombuffer(b"\0" * 8),
    lambda: tnp.fromiter(range(3), float), lambda: tnp.put(XS, [0], [9.0], inplace=False),
    lambda: tnp.r_[XS, 0.0], lambda: tnp.c_[XS, XS], lambda: tnp.vectorize(lambda v: v * 2)(XS),
    lambda: tnp.unique(XS), lambda: tnp.histogram(XS, 3)[0], lambda: tnp.copy(XS),
])
def test_results_on_concrete_input_are_arrays(make):
    out = make()
    assert _is_array(out), type(out)
    assert isinstance(out, np.ndarray)


@pytest.mark.parametrize("make, count", [
    (lambda: tnp.split(XS, 2), 2), (lambda: tnp.linalg.eigh(np.eye(2)), 2),
    (lambda: tnp.linalg.qr(np.eye(2)), 2), (lambda: tnp.linalg.svd(np.eye(2)), 3),
    (lambda: tnp.meshgrid(XS, XS), 2), (lambda: tnp.tril_indices(3), 2),
    (lambda: tnp.triu_indices(3), 2), (lambda: tnp.diag_indices(3), 2),
    (lambda: tnp.nonzero(XS), 1), (lambda: tnp.broadcast_arrays(XS, 1.0), 2),
])
def test_tuple_and_list_results_hold_arrays(make, count):
    out = make()
    assert len(out) == count
    assert all(_is_array(o) for o in out), [type(o) for o in out]


def test_namedtuple_results_keep_their_type_and_fields():
    out = tnp.linalg.eigh(np.diag([2.0, 1.0]))
    assert type(out).__name__ == "EighResult"
    assert _is_array(out.eigenvalues) and _is_array(out.eigenvectors)
    np.testing.assert_array_equal(out.eigenvalues, [1.0, 2.0])


def test_scalars_and_python_objects_pass_through():
    assert type(tnp.sum(XS)) is np.float64
    assert type(tnp.max(XS)) is np.float64
    assert tnp.shape(M) == (3, 4) and type(tnp.shape(M)) is tuple
    assert tnp.ndim(M) == 2
    assert tnp.promote_types(np.float32, np.int64) == np.float64


def test_conversion_is_a_view_not_a_copy():
    out = tnp.asarray(XS)
    assert _is_array(out) and np.shares_memory(out, XS)
    again = tnp.asarray(out)
    assert _is_array(again) and np.shares_memory(again, XS)


def test_dtype_and_shape_preserved():
    for dtype in (np.float32, np.float64, np.int32, np.int64, np.bool_, np.complex128):
        a = tnp.zeros((2, 3), dtype)
        assert a.dtype == dtype and a.shape == (2, 3)
        b = a.at[0, 1].set(1)
        assert b.dtype == dtype and b.shape == (2, 3) and _is_array(b)
    z = tnp.asarray(np.float32(1.5))
    assert _is_array(z) and z.shape == () and z.dtype == np.float32


# --------------------------------------------------------------------------
# .at outside transforms


@pytest.mark.parametrize("idx", INDICES, ids=["int", "slice", "list", "mask"])
@pytest.mark.parametrize("method, value, numpy_way", METHODS, ids=[m[0] for m in METHODS])
def test_at_methods_at_top_level_match_numpy(method, value, numpy_way, idx):
    a = tnp.asarray(XS)
    before = a.copy()
    out = getattr(a.at[idx], method)(value)
    expected = XS.copy()
    numpy_way(expected, idx, value)
    assert _is_array(out)
    np.testing.assert_array_equal(out, expected)
    np.testing.assert_array_equal(a, before)  # functional: a is unchanged
    assert not np.shares_memory(out, a)


@pytest.mark.parametrize("method, value, numpy_way", METHODS[1:], ids=[m[0] for m in METHODS[1:]])
def test_at_repeated_indices_accumulate_like_ufunc_at(method, value, numpy_way):
    a = tnp.asarray(XS)
    out = getattr(a.at[[0, 0, 2]], method)(value)
    expected = XS.copy()
    numpy_way(expected, [0, 0, 2], value)
    np.testing.assert_array_equal(out, expected)


def test_at_get_and_chaining():
    a = tnp.zeros(4)
    out = a.at[0].set(1.0).at[1].add(2.0).at[0].multiply(5.0)
    assert _is_array(out)
    np.testing.assert_array_equal(out, [5.0, 2.0, 0.0, 0.0])
    got = tnp.asarray(M).at[1:, ::2].get()
    assert _is_array(got)
    np.testing.assert_array_equal(got, M[1:, ::2])
    assert float(tnp.asarray(M).at[2, 3].get()) == 11.0


def test_at_values_broadcast_and_cast_to_the_array_dtype():
    out = tnp.zeros((2, 3), np.int64).at[:, 1].set([2.7, -1.2])
    assert out.dtype == np.int64
    np.testing.assert_array_equal(out, [[0, 2, 0], [0, -1, 0]])
    out = tnp.zeros((2, 3), np.float32).at[0].add(np.float64(1.25))
    assert out.dtype == np.float32
    np.testing.assert_array_equal(out, [[1.25] * 3, [0.0] * 3])


def test_jax_hint_keywords_are_accepted():
    out = tnp.zeros(3).at[2].set(1.0, indices_are_sorted=True, unique_indices=True)
    np.testing.assert_array_equal(out, [0.0, 0.0, 1.0])


def test_at_matches_jax():
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    jnp = jax.numpy
    for method, value, _ in METHODS:
        for idx in (1, slice(1, 3), [0, 2], [0, 0, 3]):
            if method == "set" and idx == [0, 0, 3]:
                continue  # JAX leaves the winner of repeated set indices unspecified
            ours = getattr(tnp.asarray(XS).at[idx], method)(value)
            theirs = getattr(jnp.asarray(XS).at[jnp.asarray(idx) if isinstance(idx, list)
                                               else idx], method)(value)
            np.testing.assert_allclose(ours, np.asarray(theirs), rtol=1e-15,
                                       err_msg=f"{method} {idx}")


def test_at_errors():
    a = tnp.zeros(3)
    with pytest.raises(IndexError, match=r"^index 5 is out of bounds for axis 0 with size 3$"):
        a.at[5].set(1.0)
    with pytest.raises(ValueError, match=r"^shape mismatch: value array of shape \(3,\) could "
                       r"not be broadcast to indexing result of shape \(2,\)$"):
        a.at[[0, 1]].set(np.ones(3))
    with pytest.raises(IndexError, match=r"^only integers, slices"):
        a.at[1.5].set(1.0)


# --------------------------------------------------------------------------
# .at inside transforms


def test_at_on_a_created_array_inside_grad_jvp_vmap():
    def f(v):
        return tnp.sum(tnp.zeros(3).at[1].set(v) * tnp.arange(3.0))

    assert float(tg.grad(f)(2.0)) == 1.0
    primal, tangent = tg.jvp(f, (2.0,), (1.0,))
    assert float(primal) == 2.0 and float(tangent) == 1.0
    np.testing.assert_array_equal(tg.vmap(f)(np.array([1.0, 2.0])), [1.0, 2.0])
    np.testing.assert_array_equal(tg.vmap(tg.grad(f))(np.array([1.0, 2.0])), [1.0, 1.0])


@pytest.mark.parametrize("method, value, numpy_way", METHODS, ids=[m[0] for m in METHODS])
def test_every_at_method_under_grad_of_vmap(method, value, numpy_way):
    def f(x):  # x per example: a vector; the update value is traced
        base = tnp.asarray(XS) + 0.0
        return tnp.sum(getattr(base.at[[0, 2]], method)(x * value))

    xs = np.array([1.0, 2.0])
    out = tg.vmap(f)(xs)
    for x, o in zip(xs, out):
        expected = XS.copy()
        numpy_way(expected, [0, 2], x * value)
        assert float(o) == pytest.approx(expected.sum(), rel=1e-14)
    g = tg.grad(lambda x: tnp.sum(tg.vmap(f)(x)))(xs)
    assert g.shape == (2,) and np.all(np.isfinite(g))


def test_at_with_traced_values_differentiates_both_ways():
    def f(x, v):
        return tnp.sum(x.at[1].multiply(v) ** 2)

    x = tnp.asarray(XS)
    gx, gv = tg.grad(f, argnums=(0, 1))(x, 3.0)
    np.testing.assert_allclose(gx, 2 * XS * np.array([1.0, 9.0, 1.0, 1.0]))
    assert float(gv) == pytest.approx(2 * 3.0 * XS[1] ** 2)


# --------------------------------------------------------------------------
# traced indices into Arrays


def test_traced_index_under_vmap():
    out = tg.vmap(lambda i: tnp.asarray(XS)[i])(np.arange(4))
    np.testing.assert_array_equal(out, XS)
    rows = tg.vmap(lambda i: tnp.asarray(M)[i, 1:])(np.array([2, 0]))
    np.testing.assert_array_equal(rows, M[[2, 0], 1:])
    pairs = tg.vmap(lambda i, j: tnp.asarray(M)[i, j])(np.array([0, 2]), np.array([3, 1]))
    np.testing.assert_array_equal(pairs, [3.0, 9.0])
    listed = tg.vmap(lambda i: tnp.asarray(XS)[[i, 0]])(np.arange(2))
    np.testing.assert_array_equal(listed, [[1.0, 1.0], [-2.0, 1.0]])


def test_traced_index_under_grad_and_jvp_inside_vmap():
    table = tnp.asarray(XS)

    def g(i):
        return tg.grad(lambda x: table[i] * x ** 2)(1.5)

    np.testing.assert_allclose(tg.vmap(g)(np.arange(4)), 3.0 * XS)

    def j(i):
        return tg.jvp(lambda x: table[i] * tnp.sin(x), (0.0,), (1.0,))[1]

    np.testing.assert_allclose(tg.vmap(j)(np.arange(4)), XS)


def test_traced_index_under_grad_of_vmap_and_nested_vmap():
    table = tnp.asarray(M)

    def loss(w):
        return tnp.sum(tg.vmap(lambda i: table[i] @ w)(np.array([0, 2])))

    np.testing.assert_allclose(tg.grad(loss)(np.ones(4)), M[0] + M[2])
    nested = tg.vmap(tg.vmap(lambda i, j: table[i, j], in_axes=(None, 0)), in_axes=(0, None))
    np.testing.assert_array_equal(nested(np.array([1, 2]), np.array([0, 3])), M[[1, 2]][:, [0, 3]])


def test_traced_index_derivative_flows_to_the_indexed_values():
    def f(x, i):
        return tnp.asarray(x)[i] ** 2

    g = tg.vmap(tg.grad(f), in_axes=(None, 0))(XS, np.array([1, 1, 3]))
    expected = np.zeros((3, 4))
    expected[[0, 1], 1] = 2 * XS[1]
    expected[2, 3] = 2 * XS[3]
    np.testing.assert_allclose(g, expected)


def test_traced_out_of_bounds_index_raises_numpy_error():
    with pytest.raises(IndexError, match=r"^index 6 is out of bounds for axis 0 with size 4$"):
        tg.vmap(lambda i: tnp.asarray(XS)[i + 5])(np.arange(2))


def test_plain_ndarray_with_batched_index_names_tnp_take():
    with pytest.raises(TypeError, match=r"Indexing a NumPy array with a traced index, xs\[i\], "
                       r"needs tnp\.take\(xs, i, axis=0\)"):
        tg.vmap(lambda i: XS[i])(np.arange(2))
    # the two fixes the message names both work
    np.testing.assert_array_equal(tg.vmap(lambda i: tnp.take(XS, i, axis=0))(np.arange(2)),
                                  XS[:2])
    np.testing.assert_array_equal(tg.vmap(lambda i: tnp.asarray(XS)[i])(np.arange(2)), XS[:2])


def test_concrete_indexing_is_numpys():
    a = tnp.asarray(M)
    assert _is_array(a[1]) and _is_array(a[:, 1:3]) and _is_array(a[[0, 2]])
    assert type(a[1, 2]) is np.float64
    np.testing.assert_array_equal(a[a > 5], M[M > 5])
    np.testing.assert_array_equal(a[..., None].shape, (3, 4, 1))
    with pytest.raises(IndexError, match=r"^index 3 is out of bounds for axis 0 with size 3$"):
        a[3]
    rows = list(a)
    assert len(rows) == 3 and all(_is_array(r) for r in rows)


# --------------------------------------------------------------------------
# mutation, copying, pickling, printing


def test_arrays_stay_mutable_numpy_arrays():
    a = tnp.zeros(3)
    a[1] = 5.0
    a += 1.0
    np.testing.assert_array_equal(a, [1.0, 6.0, 1.0])
    assert _is_array(a)
    b = tnp.asarray(XS.copy())
    view = b[1:]
    view[0] = 10.0  # writes through, as NumPy views do
    assert b[1] == 10.0


def test_item_assignment_of_a_traced_value_names_at():
    def f(x):
        a = tnp.zeros(3)
        a[0] = x
        return tnp.sum(a)

    with pytest.raises(TypeError, match=r"a\[i\] = x on a NumPy array \(write "
                       r"a = tnp\.at\(a\)\[i\]\.set\(x\), or x\.at\[i\]\.set\(v\)"):
        tg.grad(f)(1.0)
    # the functional form is the fix
    assert float(tg.grad(lambda x: tnp.sum(tnp.zeros(3).at[0].set(x)))(1.0)) == 1.0


def test_pickle_copy_deepcopy_roundtrip():
    a = tnp.asarray(M.astype(np.float32))
    for b in (pickle.loads(pickle.dumps(a)), copy.copy(a), copy.deepcopy(a), a.copy()):
        assert _is_array(b)
        assert b.dtype == np.float32 and b.shape == (3, 4)
        np.testing.assert_array_equal(b, M)
        assert not np.shares_memory(a, b)
    assert b.at[0, 0].set(1.0)[0, 0] == 1.0  # the copies keep .at


def test_printing_is_numpys():
    a = tnp.arange(3.0)
    assert repr(a) == "array([0., 1., 2.])"
    assert str(a) == "[0. 1. 2.]"
    assert repr(tnp.zeros((2, 2), np.float32)) == repr(np.zeros((2, 2), np.float32))
    assert repr(a.at) == "_IndexUpdateHelper(shape=(3,))"


# --------------------------------------------------------------------------
# interplay with NumPy


def test_numpy_functions_and_operators_on_arrays():
    a = tnp.asarray(XS)
    assert _is_array(a + a) and _is_array(a * 2.0) and _is_array(-a)
    assert _is_array(np.sin(a)) and _is_array(np.maximum(a, 0.0))
    assert _is_array(a.reshape(2, 2)) and _is_array(a.T) and _is_array(a.astype(np.float32))
    np.testing.assert_array_equal(np.sin(a), np.sin(XS))
    # NumPy's reductions give a 0-d subclass instance, tracegrad.numpy's a NumPy scalar
    for total in (np.sum(a), a.sum(), np.max(a)):
        assert _is_array(total) and total.shape == () and float(total) in (2.5, 3.0)
    assert type(tnp.sum(a)) is np.float64 and float(tnp.sum(a)) == 2.5
    np.testing.assert_array_equal(np.sort(a), np.sort(XS))


def test_mixing_with_a_plain_ndarray_gives_a_plain_ndarray():
    # Array's __array_priority__ is below ndarray's: NumPy keeps the plain
    # type, which keeps constants closed over by transforms off the subclass.
    a = tnp.asarray(XS)
    for out in (a + XS, XS + a, a * XS, np.maximum(a, XS), np.concatenate([a, XS]),
                tnp.asarray(M) @ np.ones(4), np.dot(np.eye(4), a)):
        assert type(out) is np.ndarray, type(out)
    assert _is_array(tnp.add(a, XS))  # tracegrad.numpy's functions still give Arrays


def test_np_asarray_and_np_array_give_plain_ndarrays():
    a = tnp.asarray(XS)
    assert type(np.asarray(a)) is np.ndarray and np.shares_memory(np.asarray(a), a)
    assert type(np.array(a)) is np.ndarray
    assert type(np.asanyarray(a)) is tg.Array


# --------------------------------------------------------------------------
# transforms compute on plain ndarrays


def test_transforms_strip_the_subclass_from_their_inputs():
    seen = []

    def f(x):
        seen.append(type(x.primal))
        y = tnp.sin(x) * 2.0
        seen.append(type(y.primal))
        return tnp.sum(y)

    x = tnp.asarray(XS)
    tg.grad(f)(x)
    tg.jvp(f, (x,), (np.ones(4),))
    tg.jacfwd(f)(x)
    tg.jacrev(f)(x)
    assert seen and all(t is np.ndarray for t in seen), seen
    batched = []
    tg.vmap(lambda r: batched.append(type(r.val)) or tnp.sum(r))(tnp.asarray(M))
    assert batched == [np.ndarray]


def test_closed_over_arrays_do_not_spread_into_traced_values():
    table = tnp.asarray(M)
    seen = []

    def f(w):
        y = table @ w + tnp.ones(3)
        seen.append(type(y.primal))
        return tnp.sum(tnp.tanh(y))

    g = tg.grad(f)(np.ones(4))
    assert seen == [np.ndarray]
    assert type(g) is np.ndarray
    assert isinstance(tg.grad(f)(tnp.ones(4)), np.ndarray)


def test_tracer_primals_are_the_traces_own_types():
    jvp_seen, vjp_seen = [], []
    tg.jvp(lambda x: jvp_seen.append(type(x)) or x, (tnp.ones(2),), (np.ones(2),))
    tg.vjp(lambda x: vjp_seen.append(type(x)) or x, tnp.ones(2))
    assert jvp_seen == [JVPTracer] and vjp_seen == [VJPTracer]


# --------------------------------------------------------------------------
# the PyTorch layer is unchanged


def test_torch_layer_keeps_plain_ndarrays():
    t = ttorch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = (t * 2).sum()
    y.backward()
    assert type(t.grad.numpy()) is np.ndarray
    assert type(ttorch.zeros(3).numpy()) is np.ndarray
    shared = tnp.ones(2)
    for t in (ttorch.from_numpy(shared), ttorch.as_tensor(shared)):  # the plain view, shared
        assert type(t.numpy()) is np.ndarray and np.shares_memory(t.numpy(), shared)
    w = ttorch.from_numpy(tnp.asarray([1.0, 2.0])).requires_grad_(True)
    (w * w).sum().backward()
    np.testing.assert_array_equal(w.grad.numpy(), [2.0, 4.0])
    logits = ttorch.tensor(M[:, :3], requires_grad=True)
    loss = ttorch.nn.functional.cross_entropy(logits, ttorch.tensor([0, 2, 1]),
                                              label_smoothing=0.1)
    loss.backward()
    assert type(loss.detach().numpy()) is np.ndarray
    assert type(logits.grad.numpy()) is np.ndarray
    idx = ttorch.tensor([1.0, 2.0, 3.0])
    idx[1] = 9.0
    assert type(idx.numpy()) is np.ndarray
    np.testing.assert_array_equal(idx.numpy(), [1.0, 9.0, 3.0])
