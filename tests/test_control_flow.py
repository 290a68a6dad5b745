"""Structured control flow staged as primitives with sub-IRs (scan, cond, while).

Under staging (make_jaxpr, jit, at any depth of other transforms) tg.lax's
loops are one equation each; their impls, JVP, VJP and batching rules are
checked against the eager Python loops (and JAX's lax where installed).
``_staged(f)`` evaluates f's staged IR (no compilation), so the rules run
on concrete values under every transform; a few programs go through jit.
"""
import numpy as np
import pytest

import tracegrad as tg
import tracegrad.numpy as tnp
from tracegrad import lax
from tracegrad.interpreters.staging import check_jaxpr
from tracegrad.test_util import check_grads

RNG = np.random.RandomState(0)
W = RNG.randn(3, 3) * 0.5
C0 = RNG.randn(3)
XS = RNG.randn(4, 3)


def _staged(f):
    """f through its staged IR: evaluated primitive by primitive (so every
    control-flow rule runs), without compiling."""
    def g(*args):
        closed, shape = tg.make_jaxpr(f, return_shape=True)(*args)
        check_jaxpr(closed.jaxpr)
        leaves, tree = tg.tree_util.tree_flatten(shape)
        flat = tg.tree_util.tree_flatten(args)[0]
        return tg.tree_util.tree_unflatten(tree, closed(*flat))
    return g


def rnn(c, xs, w):
    def body(c, x):
        c = tnp.tanh(c @ w + x)
        return c, tnp.sum(c * c)
    c, ys = lax.scan(body, c, xs)
    return tnp.sum(c) + tnp.sum(ys)


def rnn_rev(c, xs, w):  # reverse, pytree carry, a carry with zero tangent on entry
    def body(carry, x):
        h, s = carry
        h = tnp.sin(h * x) + s * w[0]
        return (h, s + tnp.sum(h)), (h * 2.0, x)
    (h, s), (ys, xs2) = lax.scan(body, (c, 0.0), xs, reverse=True)
    return tnp.sum(h) * s + tnp.sum(ys * xs2)


def branchy(x, p):
    return lax.cond(p > 0, lambda x: tnp.sin(x) * x, lambda x: tnp.cos(x) + p, x)


def switchy(i, x):
    return lax.switch(i, [tnp.sin, lambda x: x * x * W[0], tnp.tanh], x)


def doubling(x):
    return lax.while_loop(lambda c: tnp.sum(c[1]) < 10.0, lambda c: (c[0] + 1, c[1] * 2.0),
                          (0, x))


def fori(x):
    return lax.fori_loop(0, 3, lambda i, v: tnp.sin(v) * 1.5 + i, x)


jit_rnn = tg.jit(rnn)
jit_grad_rnn = tg.jit(tg.grad(rnn, argnums=(0, 1, 2)))


# --------------------------------------------------------------------------
# staging: one equation, printing, values


def test_a_100_step_scan_is_one_equation():
    xs = RNG.randn(100, 3)
    closed = tg.make_jaxpr(rnn)(C0, xs, W)
    assert [e.primitive.name for e in closed.eqns].count("scan") == 1
    assert len(closed.eqns) <= 4
    np.testing.assert_allclose(jit_rnn(C0, xs, W), rnn(C0, xs, W), rtol=1e-12)


def test_scan_prints_its_body_indented():
    def f(c, xs):
        return lax.scan(lambda c, x: (c + x, c * x), c, xs)
    got = str(tg.make_jaxpr(f)(np.float32(1.0), np.ones(5, np.float32)))
    assert got == """\
{ lambda ; a:f32[] b:f32[5]. let
    c:f32[] d:f32[5] = scan[
      jaxpr={ lambda ; a:f32[] b:f32[]. let
          c:f32[] = add a b
          d:f32[] = mul a b
        in (c, d) }
      length=5
      num_carry=1
      num_consts=0
      reverse=False
    ] a b
  in (c, d) }"""


@pytest.mark.parametrize("f, args", [
    (rnn, (C0, XS, W)), (rnn_rev, (C0, XS, W)), (branchy, (C0, 1.0)), (branchy, (C0, -1.0)),
    (switchy, (np.int64(1), C0)), (switchy, (np.int64(7), C0)), (doubling, (np.abs(C0),)),
    (fori, (C0,)),
])
def test_staged_equals_eager(f, args):
    got = _staged(f)(*args)
    want = f(*args)
    for g, w in zip(tg.tree_util.tree_leaves(got), tg.tree_util.tree_leaves(want)):
        np.testing.assert_allclose(g, w, rtol=1e-12)


def test_jit_runs_each_primitive_through_its_impl():
    for f, args in [(branchy, (C0, -1.0)), (doubling, (np.abs(C0),)), (fori, (C0,))]:
        for g, w in zip(tg.tree_util.tree_leaves(tg.jit(f)(*args)),
                        tg.tree_util.tree_leaves(f(*args))):
            np.testing.assert_allclose(g, w, rtol=1e-12)


def test_while_loop_with_a_staged_predicate_under_jit():
    f = tg.jit(lambda x, n: lax.while_loop(lambda c: c[0] < n, lambda c: (c[0] + 1, c[1] * x),
                                           (0, 1.0)))
    assert tuple(map(float, f(2.0, 5))) == (5.0, 32.0)
    assert tuple(map(float, f(3.0, 2))) == (2.0, 9.0)
    text = str(tg.make_jaxpr(lambda x: lax.fori_loop(0, x, lambda i, v: v * 2.0, 1.0))(4))
    assert "while[" in text  # a staged trip count: a while loop
    assert "scan[" in str(tg.make_jaxpr(fori)(C0))  # a static one: a scan


def test_carry_type_errors_name_the_leaf():
    with pytest.raises(TypeError, match=r"leaf \[1\].*shape"):
        tg.make_jaxpr(lambda x: lax.scan(lambda c, x: ((c[0], c[1][:1]), x), (x, x), XS))(C0)
    with pytest.raises(TypeError, match="dtypes"):
        tg.make_jaxpr(lambda x: lax.while_loop(lambda c: c[0] < 3,
                                               lambda c: (c[0] + 1, c[1].astype(np.float32)),
                                               (0, x)))(C0)
    with pytest.raises(TypeError, match="same shapes"):
        tg.make_jaxpr(lambda x: lax.cond(x[0] > 0, lambda: x, lambda: x[:2]))(C0)


def test_weakly_typed_init_takes_the_body_dtype():
    xs = np.ones(4, np.float32)
    c, ys = tg.jit(lambda xs: lax.scan(lambda c, x: (c + x, c), 0.0, xs))(xs)
    assert c.dtype == np.float32 and ys.dtype == np.float32 and float(c) == 4.0


# --------------------------------------------------------------------------
# derivatives


@pytest.mark.parametrize("f, args", [
    (rnn, (C0, XS, W)), (rnn_rev, (C0, XS, W)), (lambda x: branchy(x, 1.0), (C0,)),
    (lambda x: branchy(x, -1.0), (C0,)), (lambda x: switchy(np.int64(1), x), (C0,)),
    (fori, (C0,)),
])
def test_staged_derivatives_to_second_order(f, args):
    check_grads(_staged(f), args, order=2, modes=("fwd", "rev"))


def test_gradients_match_eager():
    want = tg.grad(rnn, argnums=(0, 1, 2))(C0, XS, W)
    for got in (jit_grad_rnn(C0, XS, W), tg.grad(jit_rnn, argnums=(0, 1, 2))(C0, XS, W),
                tg.grad(_staged(rnn), argnums=(0, 1, 2))(C0, XS, W)):
        for g, w in zip(got, want):
            np.testing.assert_allclose(g, w, rtol=1e-10)
    np.testing.assert_allclose(tg.hessian(_staged(rnn))(C0, XS, W), tg.hessian(rnn)(C0, XS, W),
                               rtol=1e-9)


def test_reverse_mode_runs_the_forward_scan_once():
    # the VJP's forward scan also stacks the residuals; the backward pass is
    # one reverse scan over them (no second forward scan inside it)
    text = str(tg.make_jaxpr(tg.grad(rnn, argnums=(0, 1, 2)))(C0, XS, W))
    assert text.count("scan[") == 2, text
    assert text.count("reverse=True") == 1, text


def test_a_carry_with_zero_tangent_on_entry_gets_one():
    # only w has a tangent; the carry's tangent becomes nonzero after one step
    t = np.ones_like(W)
    want = tg.jvp(lambda w: rnn(C0, XS, w), (W,), (t,))
    got = tg.jvp(lambda w: _staged(rnn)(C0, XS, w), (W,), (t,))
    np.testing.assert_allclose(got[1], want[1], rtol=1e-10)
    got = tg.jvp(lambda x: _staged(doubling)(x)[1], (np.abs(C0),), (np.ones(3),))
    want = tg.jvp(lambda x: doubling(x)[1], (np.abs(C0),), (np.ones(3),))
    np.testing.assert_allclose(got[1], want[1])


def test_while_loop_under_reverse_mode_raises_jax_error():
    f = lambda x: tnp.sum(doubling(x)[1])  # noqa: E731
    with pytest.raises(ValueError, match="Reverse-mode differentiation does not work for "
                                         "lax.while_loop.*lax.scan, or lax.fori_loop with "
                                         "constant trip count"):
        tg.grad(_staged(f))(np.abs(C0))


def test_nested_scan_in_scan():
    def f(c, xs, w):
        def outer(c, x):
            c2, ys = lax.scan(lambda d, y: (tnp.tanh(d * y + w[0]), d), c, tnp.stack([x, x * 2]))
            return c2, tnp.sum(ys)
        c, ys = lax.scan(outer, c, xs)
        return tnp.sum(c) + tnp.sum(ys)
    closed = tg.make_jaxpr(f)(C0, XS, W)
    assert [e.primitive.name for e in closed.eqns].count("scan") == 1
    np.testing.assert_allclose(_staged(f)(C0, XS, W), f(C0, XS, W), rtol=1e-12)
    check_grads(_staged(f), (C0, XS, W), order=1)


# --------------------------------------------------------------------------
# batching


def test_vmap_of_each_primitive():
    cb = RNG.randn(2, 3)
    for f, axes, args in [
        (rnn, (0, None, None), (cb, XS, W)),
        (rnn, (None, None, 0), (C0, XS, np.stack([W, 2 * W]))),  # carry batched by the body
        (branchy, (0, None), (cb, 1.0)),
        (branchy, (0, 0), (cb, np.array([1.0, -1.0]))),  # batched predicate: a select
        (switchy, (0, 0), (np.array([0, 2]), cb)),
        (doubling, 0, (np.abs(cb) * np.array([[1.0], [5.0]]),)),  # batched predicate
        (fori, 0, (cb,)),
    ]:
        want = tg.vmap(f, in_axes=axes)(*args)
        for got in (tg.vmap(_staged(f), in_axes=axes)(*args), _staged(tg.vmap(f, in_axes=axes))(*args)):
            for g, w in zip(tg.tree_util.tree_leaves(got), tg.tree_util.tree_leaves(want)):
                np.testing.assert_allclose(g, w, rtol=1e-12)


def test_vmap_of_jit_of_scan():
    ws = np.stack([W, -W])
    got = tg.vmap(jit_rnn, in_axes=(None, None, 0))(C0, XS, ws)
    np.testing.assert_allclose(got, [rnn(C0, XS, w) for w in ws], rtol=1e-12)


def test_vmap_of_while_freezes_finished_examples():
    f = lambda c0: lax.while_loop(lambda c: c < 10, lambda c: c * 2, c0)  # noqa: E731
    np.testing.assert_array_equal(_staged(tg.vmap(f))(np.array([1, 3, 20])), [16, 12, 20])


# --------------------------------------------------------------------------
# against JAX


def test_scan_against_jax():
    jax = pytest.importorskip("jax")
    jnp = pytest.importorskip("jax.numpy")
    jax.config.update("jax_enable_x64", True)

    def make(np_, lax_):
        def f(c, xs, w):
            def body(c, x):
                c = np_.tanh(c @ w + x)
                return c, np_.sum(c * c)
            c, ys = lax_.scan(body, c, xs, reverse=True)
            return np_.sum(c) + np_.sum(ys)
        return f

    want = jax.jit(jax.grad(make(jnp, jax.lax), argnums=(0, 1, 2)))(C0, XS, W)
    got = tg.jit(tg.grad(make(tnp, lax), argnums=(0, 1, 2)))(C0, XS, W)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, np.asarray(w), rtol=1e-10)


def test_a_closed_over_python_scalar_input_stays_weakly_typed():
    # s is a Python float input of the jitted function: c * s stays float32
    f = lambda x, s: lax.scan(lambda c, _: (c * s, c), x, None, length=3)  # noqa: E731
    h = lambda x, s: tnp.sum(f(x, s)[1])  # noqa: E731
    x = np.float32(1.0)
    c, ys = tg.jit(f)(x, 2.0)
    assert c.dtype == ys.dtype == np.float32 and float(c) == 8.0
    assert float(tg.jit(tg.grad(h))(x, 2.0)) == 7.0
    g = lambda x, s: lax.cond(x > 0, lambda: x * s, lambda: x)  # noqa: E731
    assert tg.jit(g)(x, 2.0).dtype == np.float32
    assert float(tg.jit(tg.grad(g))(x, 2.0)) == 2.0


# --------------------------------------------------------------------------
# a scan of length 0


def _empty_scan(c, xs):
    return lax.scan(lambda c, x: (c * x, (c * x, (x > 0).astype(np.int32))), c, xs)


def test_a_scan_of_length_0_stacks_empty_ys_as_jax_does():
    # JAX: ys are (0, ...) stacks of the body's output types, not None
    c0, xs = np.ones(3, np.float32), np.zeros((0, 3), np.float32)
    for f in (_empty_scan, tg.jit(_empty_scan), _staged(_empty_scan)):
        c, (y, k) = f(c0, xs)
        np.testing.assert_array_equal(c, c0)
        assert (y.shape, y.dtype, k.shape, k.dtype) == ((0, 3), np.float32, (0, 3), np.int32)
    c, ys = lax.scan(lambda c, _: (c + 1.0, {"a": c * 2, "b": None}), np.float32(1), None,
                     length=0)
    assert float(c) == 1.0 and ys["b"] is None
    assert (ys["a"].shape, ys["a"].dtype) == ((0,), np.float32)
    assert lax.map(lambda x: x * 2, np.ones((0, 2), np.float32)).shape == (0, 2)


def test_a_scan_of_length_0_under_grad_and_vmap():
    loss = lambda c, xs: tnp.sum(_empty_scan(c, xs)[1][0]) + tnp.sum(c)  # noqa: E731
    c0, xs = np.ones(3, np.float32), np.zeros((0, 3), np.float32)
    for g in (tg.grad(loss, argnums=(0, 1)), tg.jit(tg.grad(loss, argnums=(0, 1)))):
        gc, gx = g(c0, xs)
        np.testing.assert_array_equal(gc, np.ones(3, np.float32))
        assert (gx.shape, gx.dtype) == ((0, 3), np.float32)
    _, t = tg.jvp(lambda c: _empty_scan(c, xs)[1][0], (c0,), (c0,))
    assert t.shape == (0, 3)
    c, (y, k) = tg.vmap(_empty_scan, in_axes=(0, None))(np.ones((4, 3), np.float32), xs)
    assert c.shape == (4, 3) and y.shape == (4, 0, 3) and k.shape == (4, 0, 3)


# --------------------------------------------------------------------------
# cond: weakly typed (Python scalar) branch outputs


@pytest.mark.parametrize("scalar_first", [True, False])
def test_a_python_scalar_branch_takes_the_other_branchs_dtype(scalar_first):
    # JAX: cond(p, lambda: 1.0, lambda: x) is float32 for a float32 x, in either order
    x = np.float32(2.0)
    branches = (lambda: 1.0, lambda: x) if scalar_first else (lambda: x, lambda: 1.0)
    f = lambda p: lax.cond(p, *branches)  # noqa: E731
    for g, p, want in ((tg.jit(f), True, 1.0), (tg.jit(f), False, 2.0),
                       (tg.vmap(f), np.array([True, False]), [1.0, 2.0])):
        got = g(p)
        assert got.dtype == np.float32
        np.testing.assert_array_equal(got, np.float32(want) if scalar_first else
                                      np.float32([3.0 - w for w in np.atleast_1d(want)]).reshape(
                                          np.shape(want)))
    # a Python-scalar operand passed through keeps the same rule
    h = lambda p, s: lax.cond(p, lambda s: s, lambda s: x, s)  # noqa: E731
    assert tg.jit(h)(True, 3.0).dtype == np.float32 and float(tg.jit(h)(True, 3.0)) == 3.0
    i = lambda p: lax.cond(p, lambda: np.int32(3), lambda: 1)  # noqa: E731
    assert tg.jit(i)(False).dtype == np.int32 and int(tg.jit(i)(False)) == 1


def test_branches_of_different_kinds_are_an_error_as_in_jax():
    for a, b in ((lambda: 1, lambda: 2.0), (lambda: np.int32(3), lambda: 1.0)):
        f = lambda p: lax.cond(p, a, b)  # noqa: E731
        for g, p in ((tg.jit(f), True), (tg.vmap(f), np.array([True, False]))):
            with pytest.raises(TypeError, match=r"cond: .*same dtypes; leaf \(the whole value\)"):
                g(p)
    # two Python floats stay NumPy's default float
    assert tg.jit(lambda p: lax.cond(p, lambda: 1.0, lambda: 2.0))(True).dtype == np.float64
