"""``tg.vmap``: the transform's semantics (JAX's) and its compositions.

* ``in_axes``/``out_axes`` as int, None, tuple (a top-level list acts as a
  tuple), nested pytrees (dicts, lists) and tree prefixes; negative axes;
  keyword arguments mapped over axis 0; batch sizes 0 and 1.
* Nested vmap with different axes; closures over an outer vmap's values.
* Errors: inconsistent mapped sizes (the message names them), ``in_axes``
  that do not match the arguments, nothing mapped, ``out_axes=None`` on a
  batched output; Python control flow on a batched value raises
  ``BatchedValueError`` (a TypeError); an exception leaves no state behind.
* Outputs that do not depend on a mapped input are broadcast.
* Compositions from the issue: ``vmap(grad(f))`` (per-example gradients),
  ``grad`` of a sum over ``vmap``, ``jacfwd(vmap(f))``, ``vmap(jvp)``,
  ``vmap(vjp_fun)``, vmap inside ``hessian``, ``check_grads`` of a vmapped
  function to second order in both modes.

Layouts are compared with ``jax.vmap`` where JAX is installed (x64 mode).
Per-primitive batching rules are checked in ``test_vmap_primitives.py``.
"""
import numpy as np
import pytest

import tracegrad as tg
import tracegrad.numpy as tnp
from tracegrad.interpreters.batching import BatchedValueError
from tracegrad.core import EvalTrace, UnexpectedTracerError, current_trace
from tracegrad.test_util import check_grads
from tracegrad.tree_util import tree_leaves, tree_map, tree_structure


def _jax():
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    return jax


def assert_tree_close(actual, expected, rtol=1e-12, atol=1e-12):
    assert tree_structure(actual) == tree_structure(expected), (
        f"structure {tree_structure(actual)} != {tree_structure(expected)}"
    )
    for a, e in zip(tree_leaves(actual), tree_leaves(expected)):
        a, e = np.asarray(a), np.asarray(e)
        assert a.shape == e.shape, f"shape {a.shape} != {e.shape}"
        assert a.dtype == e.dtype, f"dtype {a.dtype} != {e.dtype}"
        np.testing.assert_allclose(a, e, rtol=rtol, atol=atol)


def loop(f, *args, in_axes=0, out_axis=0):
    """Reference: ``f`` on each slice, stacked along ``out_axis`` (positional
    arguments only; ``in_axes`` an int/None or a tuple of them)."""
    axes = in_axes if isinstance(in_axes, tuple) else (in_axes,) * len(args)
    size = {np.shape(a)[ax] for a, ax in zip(args, axes) if ax is not None}.pop()
    outs = [
        f(*[a if ax is None else np.take(a, b, axis=ax) for a, ax in zip(args, axes)])
        for b in range(size)
    ]
    return tree_map(lambda *xs: np.stack([np.asarray(x) for x in xs], axis=out_axis), *outs)


@pytest.fixture
def xs(rng):
    return rng.standard_normal((4, 3))


# --------------------------------------------------------------------------
# in_axes / out_axes


def f_mix(x, y):
    return tnp.sin(x) * y + tnp.sum(x)


def test_default_axes_map_leading_axis(xs, rng):
    ys = rng.standard_normal((4, 3))
    assert_tree_close(tg.vmap(f_mix)(xs, ys), loop(f_mix, xs, ys))


@pytest.mark.parametrize("ax", [0, 1, -1, -2])
def test_int_in_axes_including_negative(rng, ax):
    a = rng.standard_normal((5, 3))
    b = rng.standard_normal((5, 3))
    assert_tree_close(tg.vmap(f_mix, in_axes=ax)(a, b), loop(f_mix, a, b, in_axes=ax))


def test_tuple_in_axes_with_none(rng):
    w = rng.standard_normal((3, 2))
    xs = rng.standard_normal((2, 5, 3))  # mapped over axis 1

    def f(w, x):
        return tnp.tanh(x @ w)

    out = tg.vmap(f, in_axes=(None, 1))(w, xs)
    assert out.shape == (5, 2, 2)
    assert_tree_close(out, loop(f, w, xs, in_axes=(None, 1)))


def test_top_level_list_in_axes_acts_as_tuple(rng):
    a, b = rng.standard_normal((3, 2)), rng.standard_normal(2)
    out = tg.vmap(lambda x, y: x + y, in_axes=[0, None])(a, b)
    assert_tree_close(out, a + b)


def test_in_axes_pytree_of_dicts_and_lists(rng):
    # keys inserted out of sorted order: the spec is matched by key, not position
    d = {"z": rng.standard_normal((3, 4)), "a": rng.standard_normal(2)}
    lst = [rng.standard_normal((2, 4)), rng.standard_normal((4,))]

    def f(d, lst):
        return tnp.sum(d["z"]) * d["a"] + tnp.sum(lst[0] * lst[1])

    out = tg.vmap(f, in_axes=({"z": 1, "a": None}, [-1, 0]))(d, lst)
    expected = np.stack([
        f({"z": d["z"][:, k], "a": d["a"]}, [lst[0][:, k], lst[1][k]]) for k in range(4)
    ])
    assert_tree_close(out, expected)


def test_in_axes_tree_prefix_applies_to_whole_subtree(rng):
    params = {"w": rng.standard_normal((3, 2)), "b": rng.standard_normal(2)}
    xs = rng.standard_normal((5, 3))

    def f(p, x):
        return x @ p["w"] + p["b"]

    out = tg.vmap(f, in_axes=(None, 0))(params, xs)
    assert_tree_close(out, xs @ params["w"] + params["b"])
    # the other way: every leaf of the dict mapped over its axis 0
    stacked = {"w": rng.standard_normal((5, 3, 2)), "b": rng.standard_normal((5, 2))}
    out = tg.vmap(f, in_axes=(0, 0))(stacked, xs)
    expected = np.stack([xs[k] @ stacked["w"][k] + stacked["b"][k] for k in range(5)])
    assert_tree_close(out, expected)


def test_kwargs_are_mapped_over_axis_0(rng):
    w = rng.standard_normal(2)
    xs = rng.standard_normal((3, 2))
    out = tg.vmap(lambda w, x: w * x, in_axes=(None,))(w, x=xs)
    assert_tree_close(out, w * xs)


def test_kwargs_sizes_must_agree_with_positional(rng):
    with pytest.raises(ValueError, match="inconsistent sizes"):
        tg.vmap(lambda a, b: a + b)(np.ones((3, 2)), b=np.ones((4, 2)))


@pytest.mark.parametrize("out_axes", [0, 1, 2, -1, -2, -3])
def test_int_out_axes(rng, out_axes):
    a = rng.standard_normal((4, 2, 3))
    f = lambda x: tnp.exp(x) * 2.0  # noqa: E731
    out = tg.vmap(f, out_axes=out_axes)(a)
    assert_tree_close(out, np.moveaxis(f(a), 0, out_axes))


def test_out_axes_pytree_and_none(rng):
    a = rng.standard_normal((4, 3))
    w = rng.standard_normal(2)

    def f(x, w):
        return {"y": x * 2.0, "s": tnp.sum(x)}, [w + 1.0, x[:2]]

    out = tg.vmap(f, in_axes=(0, None), out_axes=({"y": 1, "s": 0}, [None, -1]))(a, w)
    expected = ({"y": (a * 2.0).T, "s": a.sum(1)}, [w + 1.0, a[:, :2].T])
    assert_tree_close(out, expected)


def test_out_axes_prefix_applies_to_whole_subtree(rng):
    a = rng.standard_normal((4, 3))
    out = tg.vmap(lambda x: (x, (x * 2.0, x[:2])), out_axes=(0, 1))(a)
    assert_tree_close(out, (a, ((a * 2.0).T, a[:, :2].T)))


def test_layouts_match_jax(rng):
    jax = _jax()
    jnp = jax.numpy
    d = {"a": rng.standard_normal((3, 5)), "b": rng.standard_normal((5, 2))}
    lst = [rng.standard_normal((2, 5, 3)), rng.standard_normal(3)]

    def f(m):
        def g(d, lst, c):
            y = m.sum(d["a"]) * d["b"]
            z = lst[0] * lst[1] + c
            return {"y": y, "z": z, "c": c * 2.0}, m.tanh(lst[0])
        return g

    c = rng.standard_normal(3)
    in_axes = ({"a": 1, "b": 0}, [1, None], None)
    out_axes = ({"y": -1, "z": 1, "c": None}, 2)
    ours = tg.vmap(f(tnp), in_axes=in_axes, out_axes=out_axes)(d, lst, c)
    theirs = jax.vmap(f(jnp), in_axes=in_axes, out_axes=out_axes)(d, lst, c)
    assert_tree_close(ours, tree_map(np.asarray, theirs))


def test_nested_vmap_layouts_match_jax(rng):
    jax = _jax()
    jnp = jax.numpy
    a = rng.standard_normal((3, 4, 2))
    b = rng.standard_normal((2, 3, 5))  # mapped over axis 1 by the outer vmap

    def f(m):
        return lambda x, y: m.sin(x) @ y

    def nest(vmap, m):
        inner = vmap(f(m), in_axes=(0, None), out_axes=-1)  # (4, 2) @ (2, 5) row by row
        return vmap(inner, in_axes=(0, 1), out_axes=1)

    out = nest(tg.vmap, tnp)(a, b)
    assert out.shape == (5, 3, 4)
    assert_tree_close(out, np.asarray(nest(jax.vmap, jnp)(a, b)))


def test_weakly_typed_scalar_keeps_dtype():
    # as in JAX: an unmapped Python scalar does not promote float32
    x = np.ones((3, 2), np.float32)
    out = tg.vmap(lambda x, s: x * s, in_axes=(0, None))(x, 2.0)
    assert out.dtype == np.float32
    out = tg.vmap(lambda x: x * 2.0)(x)
    assert out.dtype == np.float32


@pytest.mark.parametrize("dtype", [np.float32, np.int64, np.bool_])
def test_dtypes_are_preserved(rng, dtype):
    a = (rng.standard_normal((3, 4)) * 3).astype(dtype)
    out = tg.vmap(lambda x: tnp.flip(x))(a)
    assert out.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(out, a[:, ::-1])


# --------------------------------------------------------------------------
# library code under vmap: tracegrad.numpy functions equal the loop

_X = np.random.default_rng(5).standard_normal((3, 4, 5))
_W = np.random.default_rng(6).standard_normal((5, 2))
_I = np.array([0, 3, 1])  # one row index per example
_I2 = np.random.default_rng(7).integers(0, 5, (3, 4))  # per-example column indices

TNP_CASES = {
    # name: (function of one example, batched arguments, in_axes)
    "index with a per-example int": (lambda x, i: x[i], (_X, _I), (0, 0)),
    "slices": (lambda x: x[1:3, ::2], (_X,), 0),
    "rows and per-example labels": (lambda x, l: x[tnp.arange(4), l], (_X, _I2), (0, 0)),
    "take_along_axis, per-example indices": (
        lambda x, i: tnp.take_along_axis(x, i[:, None], axis=1), (_X, _I2), (0, 0)),
    "at[i].set, per-example i": (lambda x, i: tnp.at(x)[i].set(0.0), (_X, _I), (0, 0)),
    "at[i].add, shared i with repeats": (
        lambda x, i: tnp.at(x)[i].add(1.0), (_X, np.array([0, 0])), (0, None)),
    "sort": (lambda x: tnp.sort(x, axis=-1), (_X,), 0),
    "argsort": (lambda x: tnp.argsort(x, axis=0), (_X,), 0),
    "einsum with a shared operand": (lambda x, w: tnp.einsum("ij,jk->ik", x, w), (_X, _W), (0, None)),
    "einsum trace": (lambda x: tnp.einsum("ii->", x[:, :4]), (_X,), 0),
    "norm": (lambda x: tnp.linalg.norm(x), (_X,), 0),
    "mean and var": (lambda x: (tnp.mean(x, 0), tnp.var(x)), (_X,), 0),
    "concatenate with a shared array": (
        lambda x, w: tnp.concatenate([x, w.T], axis=0), (_X, _W), (0, None)),
    "stack with a shared array": (lambda x, w: tnp.stack([x[:, :2], w[:4]]), (_X, _W), (0, None)),
    "split": (lambda x: tnp.split(x, [1, 3], axis=1), (_X,), 0),
    "max and argmax over all axes": (lambda x: (tnp.max(x), tnp.argmax(x)), (_X,), 0),
    "matmul of vectors and matrices": (lambda x: (x[0] @ x.T, tnp.outer(x[0], x[1])), (_X,), 0),
    "tril and diag": (lambda x: (tnp.tril(x), tnp.diag(x[:, :4])), (_X,), 0),
    "solve and det": (
        lambda x: (tnp.linalg.solve(x[:, :4] + 4 * np.eye(4), x[:, 4]), tnp.linalg.det(x[:, :4])),
        (_X,), 0),
    "cumsum and flip over all axes": (lambda x: (tnp.cumsum(x), tnp.flip(x)), (_X,), 0),
    "pad, roll, tile, repeat": (
        lambda x: (tnp.pad(x, ((1, 0), (0, 2))), tnp.roll(x, 1, axis=1), tnp.tile(x, (2, 1)),
                   tnp.repeat(x, 2, axis=0)), (_X,), 0),
    "NumPy dispatch": (lambda x: np.sum(np.sin(x), axis=0), (_X,), 0),
    "astype": (lambda x: x.astype(np.float32), (_X,), 0),
}


@pytest.mark.parametrize("name", list(TNP_CASES))
def test_tnp_functions_under_vmap_equal_the_loop(name):
    f, args, in_axes = TNP_CASES[name]
    in_axes_t = in_axes if isinstance(in_axes, tuple) else (in_axes,) * len(args)
    assert_tree_close(tg.vmap(f, in_axes=in_axes)(*args), loop(f, *args, in_axes=in_axes_t))


# --------------------------------------------------------------------------
# batch sizes 0 and 1


def test_size_zero_batch():
    a = np.zeros((0, 3))
    out = tg.vmap(lambda x: (tnp.sum(x), x @ np.ones((3, 2)), x > 0))(a)
    assert [o.shape for o in out] == [(0,), (0, 2), (0, 3)]
    assert [o.dtype for o in out] == [np.float64, np.float64, np.bool_]
    out = tg.vmap(lambda x: x @ np.ones((3, 2)), in_axes=1, out_axes=1)(np.zeros((3, 0)))
    assert out.shape == (2, 0)


def test_size_zero_batch_with_unmapped_argument_and_constant_output():
    w = np.ones((3, 2))
    out = tg.vmap(lambda w, x: (x @ w, w * 2.0), in_axes=(None, 0))(w, np.zeros((0, 3)))
    assert out[0].shape == (0, 2) and out[1].shape == (0, 3, 2)


def test_size_one_batch(rng):
    a = rng.standard_normal((1, 3))
    assert_tree_close(tg.vmap(lambda x: tnp.tanh(x) * x)(a), np.tanh(a) * a)


# --------------------------------------------------------------------------
# nesting and closures


def test_nested_vmap_different_axes(rng):
    a = rng.standard_normal((3, 4))
    b = rng.standard_normal((5, 4))

    def dot(x, y):
        return tnp.sum(x * y)

    # all pairs: inner over b's rows, outer over a's rows
    out = tg.vmap(tg.vmap(dot, in_axes=(None, 0)), in_axes=(0, None))(a, b)
    assert_tree_close(out, a @ b.T)
    # same pairs with the mapped axes elsewhere and the result transposed
    out = tg.vmap(tg.vmap(dot, in_axes=(None, 1), out_axes=0), in_axes=(1, None), out_axes=1)(
        a.T, b.T
    )
    assert_tree_close(out, (a @ b.T).T)


def test_vmap_of_vmap_maps_two_axes(rng):
    a = rng.standard_normal((3, 4, 2))
    out = tg.vmap(tg.vmap(lambda v: tnp.sum(v ** 2)))(a)
    assert_tree_close(out, np.sum(a ** 2, axis=-1))
    out = tg.vmap(tg.vmap(lambda v: v * 2.0, in_axes=0), in_axes=2, out_axes=2)(a)
    assert_tree_close(out, a * 2.0)


def test_closure_over_outer_batched_value(rng):
    a = rng.standard_normal(3)
    b = rng.standard_normal(5)
    out = tg.vmap(lambda x: tg.vmap(lambda y: x * y)(b))(a)
    assert_tree_close(out, np.outer(a, b))
    # the inner function only sees the outer value through its closure
    c = rng.standard_normal((3, 4))
    out = tg.vmap(lambda row: tg.vmap(lambda y: tnp.sum(row) + y)(b))(c)
    assert_tree_close(out, c.sum(1)[:, None] + b[None, :])


def test_closure_over_outer_value_inside_grad(rng):
    xs = rng.standard_normal((4, 3))
    w = rng.standard_normal(3)

    def per_example(x):
        return tg.grad(lambda w: tnp.sum(tnp.sin(w * x)))(w)

    assert_tree_close(tg.vmap(per_example)(xs), loop(per_example, xs))


def test_nested_vmap_over_the_outer_value_itself(rng):
    # the inner vmap maps over the outer example it also closes over
    a = rng.standard_normal((3, 4))
    out = tg.vmap(lambda x: tg.vmap(lambda y: x + y)(x))(a)
    assert_tree_close(out, a[:, None, :] + a[:, :, None])


def test_unmapped_output_that_is_an_outer_tracer_is_broadcast(rng):
    xs = rng.standard_normal((3, 4))
    w = rng.standard_normal(4)
    assert_tree_close(tg.grad(lambda w: tg.vmap(lambda x: w)(xs).sum())(w), np.full(4, 3.0))
    jac = tg.jacfwd(lambda w: tg.vmap(lambda x: w * 2.0)(xs))(w)
    assert_tree_close(jac, np.broadcast_to(2.0 * np.eye(4), (3, 4, 4)))


def test_closure_output_unchanged_by_inner_vmap(rng):
    # the inner function returns only the closed-over outer value: it is
    # broadcast along the inner batch
    a = rng.standard_normal(3)
    out = tg.vmap(lambda x: tg.vmap(lambda y: x)(np.zeros(5)))(a)
    assert_tree_close(out, np.repeat(a[:, None], 5, axis=1))


# --------------------------------------------------------------------------
# outputs that do not depend on the mapped inputs are broadcast


def test_constant_outputs_are_broadcast(rng):
    a = rng.standard_normal((4, 3))
    w = rng.standard_normal(2)
    out = tg.vmap(lambda x: 1.0)(a)
    assert_tree_close(out, np.ones(4))
    out = tg.vmap(lambda x: np.arange(3.0), out_axes=1)(a)
    assert_tree_close(out, np.tile(np.arange(3.0)[:, None], (1, 4)))
    out = tg.vmap(lambda x, w: (x, w * 2.0), in_axes=(0, None))(a, w)
    assert_tree_close(out, (a, np.tile(w * 2.0, (4, 1))))


def test_out_axes_none_returns_unmapped_output_once(rng):
    a = rng.standard_normal((4, 3))
    w = rng.standard_normal(2)
    out = tg.vmap(lambda x, w: (tnp.sum(x), w * 2.0), in_axes=(0, None), out_axes=(0, None))(a, w)
    assert_tree_close(out, (a.sum(1), w * 2.0))


def test_outputs_are_fresh_arrays(rng):
    a = rng.standard_normal((4, 3))
    out = tg.vmap(lambda x: x, out_axes=1)(a)
    assert_tree_close(out, a.T)
    out[0, 0] = 100.0  # writable, and not a view of the input
    assert a[0, 0] != 100.0
    const = tg.vmap(lambda x: 1.0)(a)
    const[0] = 5.0
    assert const[1] == 1.0  # not a broadcast view


# --------------------------------------------------------------------------
# errors


def test_inconsistent_sizes_error_names_the_sizes():
    with pytest.raises(ValueError, match="inconsistent sizes") as e:
        tg.vmap(lambda a, b: a + b)(np.ones((2, 4)), np.ones((3, 4)))
    msg = str(e.value)
    assert "size 2" in msg and "size 3" in msg


def test_inconsistent_sizes_with_in_axes_names_the_sizes():
    with pytest.raises(ValueError, match="inconsistent sizes") as e:
        tg.vmap(lambda a, b: a + b, in_axes=(1, 0))(np.ones((2, 4)), np.ones((5, 2)))
    msg = str(e.value)
    assert "size 4" in msg and "size 5" in msg


def test_in_axes_length_must_match_arguments():
    with pytest.raises(ValueError, match="in_axes"):
        tg.vmap(lambda a: a, in_axes=(0, 0))(np.ones((2, 4)))
    with pytest.raises(ValueError, match="in_axes"):
        tg.vmap(lambda a, b: a, in_axes=(0,))(np.ones(2), np.ones(2))


def test_in_axes_structure_must_match_arguments():
    with pytest.raises(ValueError, match="in_axes"):
        tg.vmap(lambda d: d["y"], in_axes=({"x": 0},))({"y": np.ones(2)})
    with pytest.raises(ValueError, match="in_axes"):
        tg.vmap(lambda l: l[0], in_axes=([0, 0, 0],))([np.ones(2), np.ones(2)])


def test_in_axes_of_the_wrong_type_raise():
    for bad in (0.5, "a"):
        with pytest.raises(TypeError, match="in_axes"):
            tg.vmap(lambda a: a, in_axes=bad)(np.ones(3))


def test_in_axis_out_of_range():
    with pytest.raises(ValueError, match="axis 2") as e:
        tg.vmap(lambda a: a, in_axes=2)(np.ones((2, 4)))
    assert "(2, 4)" in str(e.value)
    with pytest.raises(ValueError):
        tg.vmap(lambda a: a, in_axes=-3)(np.ones((2, 4)))
    with pytest.raises(ValueError):
        tg.vmap(lambda a: a)(3.0)  # a scalar has no axis to map


def test_nothing_mapped_raises():
    with pytest.raises(ValueError, match="non-None"):
        tg.vmap(lambda a: a, in_axes=None)(np.ones(3))
    with pytest.raises(ValueError, match="non-None"):
        tg.vmap(lambda a, b: a, in_axes=(None, None))(np.ones(3), np.ones(3))
    with pytest.raises(ValueError):
        tg.vmap(lambda: 1.0)()


def test_out_axes_none_on_batched_output_raises():
    with pytest.raises(ValueError, match="out_axes"):
        tg.vmap(lambda a: a * 2.0, out_axes=None)(np.ones(3))
    with pytest.raises(ValueError, match="out_axes"):
        tg.vmap(lambda a: (1.0, a), out_axes=(0, None))(np.ones(3))


def test_out_axes_out_of_range_or_mismatched_raise():
    with pytest.raises(ValueError, match="out_axes"):
        tg.vmap(lambda a: a, out_axes=3)(np.ones((2, 4)))
    with pytest.raises(ValueError, match="out_axes"):
        tg.vmap(lambda a: (a, a), out_axes=(0, 0, 0))(np.ones(3))


def test_non_callable_raises():
    with pytest.raises(TypeError, match="callable"):
        tg.vmap(3)


# --------------------------------------------------------------------------
# concrete values: Python control flow on batched values


def test_control_flow_on_batched_value_raises():
    assert issubclass(BatchedValueError, TypeError)

    def f(x):
        if x > 0:
            return x
        return -x

    with pytest.raises(BatchedValueError, match="vmap"):
        tg.vmap(f)(np.array([1.0, -2.0]))


@pytest.mark.parametrize(
    "convert",
    [bool, int, lambda x: x.item(), lambda x: x.tolist(), lambda x: np.asarray(x)],
    ids=["bool", "int", "item", "tolist", "asarray"],
)
def test_concrete_conversions_of_batched_value_raise(convert):
    with pytest.raises(TypeError):
        tg.vmap(lambda x: convert(tnp.sum(x)))(np.ones((2, 3)))


def test_control_flow_on_unmapped_value_works():
    def f(x, flag):
        return x * 2.0 if flag > 0 else -x

    out = tg.vmap(f, in_axes=(0, None))(np.array([1.0, 2.0]), 1.0)
    np.testing.assert_array_equal(out, [2.0, 4.0])
    out = tg.vmap(f, in_axes=(0, None))(np.array([1.0, 2.0]), -1.0)
    np.testing.assert_array_equal(out, [-1.0, -2.0])


def test_shapes_are_static_inside_vmap(rng):
    # an example's shape is known: shape-dependent Python works
    a = rng.standard_normal((3, 4))
    out = tg.vmap(lambda x: x.reshape(x.shape[0] // 2, 2) * len(x))(a)
    assert_tree_close(out, a.reshape(3, 2, 2) * 4)


def test_data_dependent_choice_with_where(rng):
    a = rng.standard_normal((5, 3))
    out = tg.vmap(lambda x: tnp.where(tnp.sum(x) > 0, x, -x))(a)
    assert_tree_close(out, np.where(a.sum(1, keepdims=True) > 0, a, -a))


# --------------------------------------------------------------------------
# no state survives an exception or the transform


def _assert_clean():
    t = current_trace()
    assert type(t) is EvalTrace and t.level == 0


def test_exception_inside_vmap_leaves_no_state(rng):
    def boom(x):
        y = tnp.sin(x)
        raise RuntimeError(f"boom {y.shape}")

    with pytest.raises(RuntimeError, match=r"boom \(3,\)"):
        tg.vmap(boom)(np.ones((2, 3)))
    _assert_clean()
    with pytest.raises(RuntimeError):
        tg.grad(lambda w: tnp.sum(tg.vmap(boom)(w)))(np.ones((2, 3)))
    _assert_clean()
    with pytest.raises(BatchedValueError):
        tg.vmap(tg.vmap(lambda v: v if v > 0 else v))(np.ones((2, 3)))
    _assert_clean()
    # and vmap works afterwards
    a = rng.standard_normal((2, 3))
    assert_tree_close(tg.vmap(tnp.cos)(a), np.cos(a))


def test_leaked_batch_tracer_raises():
    leaked = []

    def f(x):
        leaked.append(x)
        return x * 2.0

    tg.vmap(f)(np.ones((2, 3)))
    with pytest.raises(UnexpectedTracerError):
        tnp.sin(leaked[0])
    _assert_clean()


# --------------------------------------------------------------------------
# compositions with the derivative transforms


def loss(w, x):
    h = tnp.tanh(x @ w["W"] + w["b"])
    return tnp.sum(h ** 2) + 0.1 * tnp.sum(w["W"] ** 2)


@pytest.fixture
def model(rng):
    w = {"W": rng.standard_normal((3, 2)), "b": rng.standard_normal(2)}
    return w, rng.standard_normal((6, 3))


def test_per_example_gradients(model):
    w, xs = model
    per_ex = tg.vmap(tg.grad(loss), in_axes=(None, 0))(w, xs)
    assert_tree_close(per_ex, loop(lambda x: tg.grad(loss)(w, x), xs))


def test_per_example_gradients_match_jax(model):
    jax = _jax()
    jnp = jax.numpy
    w, xs = model

    def jloss(w, x):
        h = jnp.tanh(x @ w["W"] + w["b"])
        return jnp.sum(h ** 2) + 0.1 * jnp.sum(w["W"] ** 2)

    ours = tg.vmap(tg.grad(loss), in_axes=(None, 0))(w, xs)
    theirs = jax.vmap(jax.grad(jloss), in_axes=(None, 0))(w, xs)
    assert_tree_close(ours, tree_map(np.asarray, theirs), rtol=1e-10, atol=1e-12)


def test_grad_of_sum_over_vmap(model):
    w, xs = model
    g = tg.grad(lambda w: tg.vmap(loss, (None, 0))(w, xs).sum())(w)
    per_ex = loop(lambda x: tg.grad(loss)(w, x), xs)
    assert_tree_close(g, tree_map(lambda a: a.sum(0), per_ex), rtol=1e-11, atol=1e-12)


def test_grad_through_vmap_with_mapped_parameters(rng):
    # a batch of parameter sets (in_axes=(0, None)), gradient w.r.t. all of them
    ws = rng.standard_normal((4, 3))
    x = rng.standard_normal(3)
    g = tg.grad(lambda ws: tnp.sum(tg.vmap(lambda w, x: tnp.sin(w @ x), in_axes=(0, None))(ws, x)))(ws)
    assert_tree_close(g, np.cos(ws @ x)[:, None] * x[None, :])


def elementwise_and_mixing(x):
    return tnp.sin(x) * tnp.sum(x ** 2)


def test_jacfwd_of_vmap_is_block_diagonal(rng):
    xs = rng.standard_normal((3, 2))
    jac = tg.jacfwd(tg.vmap(elementwise_and_mixing))(xs)
    assert jac.shape == (3, 2, 3, 2)
    expected = np.zeros((3, 2, 3, 2))
    for b in range(3):
        expected[b, :, b, :] = tg.jacfwd(elementwise_and_mixing)(xs[b])
    assert_tree_close(jac, expected)
    assert_tree_close(tg.jacrev(tg.vmap(elementwise_and_mixing))(xs), expected)


def test_jacobians_of_vmap_match_jax(rng):
    jax = _jax()
    jnp = jax.numpy
    xs = rng.standard_normal((3, 2))
    w = rng.standard_normal((2, 4))

    def f(m):
        return lambda x, w: m.tanh(x @ w) * m.sum(x)

    for ours_t, theirs_t in ((tg.jacfwd, jax.jacfwd), (tg.jacrev, jax.jacrev)):
        ours = ours_t(tg.vmap(f(tnp), in_axes=(1, None), out_axes=1), argnums=(0, 1))(xs.T, w)
        theirs = theirs_t(jax.vmap(f(jnp), in_axes=(1, None), out_axes=1), argnums=(0, 1))(xs.T, w)
        assert_tree_close(ours, tree_map(np.asarray, theirs), rtol=1e-10, atol=1e-12)


def test_vmap_of_jvp(rng):
    xs = rng.standard_normal((4, 3))
    ts = rng.standard_normal((4, 3))

    def f(x, t):
        return tg.jvp(elementwise_and_mixing, (x,), (t,))

    assert_tree_close(tg.vmap(f)(xs, ts), loop(f, xs, ts))
    # a shared tangent direction, batch on the last axis
    t = rng.standard_normal(3)
    assert_tree_close(
        tg.vmap(f, in_axes=(-1, None))(xs.T, t), loop(f, xs.T, t, in_axes=(-1, None))
    )


def test_vmap_of_jvp_with_constant_output(rng):
    xs, ts = rng.standard_normal((4, 3)), rng.standard_normal((4, 3))
    out, tan = tg.vmap(lambda x, t: tg.jvp(lambda x: np.ones(2), (x,), (t,)))(xs, ts)
    assert_tree_close((out, tan), (np.ones((4, 2)), np.zeros((4, 2))))


def test_vmap_of_vjp_fun_gives_the_jacobian(rng):
    x = rng.standard_normal(3)

    def f(x):
        return tnp.stack([tnp.sum(tnp.sin(x)), tnp.prod(x)])

    y, vjp_fun = tg.vjp(f, x)
    (rows,) = tg.vmap(vjp_fun)(np.eye(2))
    assert_tree_close(rows, tg.jacrev(f)(x))
    assert_tree_close(rows, loop(lambda c: vjp_fun(c)[0], np.eye(2)))
    (cols,) = tg.vmap(vjp_fun, out_axes=1)(np.eye(2))
    assert_tree_close(cols, rows.T)


def test_vmap_of_vjp_inside(rng):
    xs = rng.standard_normal((4, 3))
    cts = rng.standard_normal(4)

    def f(x, ct):
        return tg.vjp(lambda x: tnp.sum(tnp.tanh(x) * x), x)[1](ct)[0]

    assert_tree_close(tg.vmap(f)(xs, cts), loop(f, xs, cts))


def test_vmap_inside_hessian(rng):
    x = rng.standard_normal((3, 2))

    def f(x):
        return tg.vmap(lambda r: tnp.sum(tnp.sin(r)) * tnp.sum(r ** 2))(x).sum()

    h = tg.hessian(f)(x)
    assert h.shape == (3, 2, 3, 2)
    expected = np.zeros((3, 2, 3, 2))
    row = lambda r: tnp.sum(tnp.sin(r)) * tnp.sum(r ** 2)  # noqa: E731
    for b in range(3):
        expected[b, :, b, :] = tg.hessian(row)(x[b])
    assert_tree_close(h, expected, rtol=1e-10, atol=1e-12)


def test_hessian_inside_vmap(rng):
    xs = rng.standard_normal((4, 3))

    def f(x):
        return tnp.sum(tnp.tanh(x) ** 2) + tnp.sum(x) ** 3

    assert_tree_close(tg.vmap(tg.hessian(f))(xs), loop(tg.hessian(f), xs), rtol=1e-10)


def test_vmap_of_jacobians(rng):
    xs = rng.standard_normal((4, 3))
    for jac in (tg.jacfwd, tg.jacrev):
        assert_tree_close(
            tg.vmap(jac(elementwise_and_mixing))(xs), loop(jac(elementwise_and_mixing), xs)
        )


def test_vmap_of_vmap_of_grad(rng):
    xs = rng.standard_normal((2, 3, 4))
    g = tg.grad(lambda x: tnp.sum(tnp.sin(x) * x))
    assert_tree_close(tg.vmap(tg.vmap(g))(xs), np.sin(xs) + xs * np.cos(xs))


def test_check_grads_of_vmapped_function(rng):
    xs = rng.standard_normal((3, 2))
    check_grads(tg.vmap(elementwise_and_mixing), (xs,), order=2, modes=("fwd", "rev"))
    w = rng.standard_normal((2, 2))
    f = tg.vmap(lambda w, x: tnp.tanh(x @ w) * tnp.sum(x), in_axes=(None, 1), out_axes=-1)
    check_grads(f, (w, xs.T), order=2, modes=("fwd", "rev"))
