"""tracegrad.lax: JAX's control flow, against Python loops, JAX, and under
every transform (grad, vmap, jit)."""
import numpy as np
import pytest

import tracegrad as tg
import tracegrad.numpy as tnp
from tracegrad import lax
from tracegrad.errors import ConcretizationTypeError
from tracegrad.test_util import check_grads

X = np.array([0.5, -1.0, 2.0])


def branchy(x):
    return lax.cond(tnp.sum(x) > 0, lambda v: tnp.sin(v) * v, lambda v: tnp.cos(v), x)


def test_cond_picks_a_branch_and_differentiates_it():
    np.testing.assert_allclose(branchy(X), np.sin(X) * X)
    np.testing.assert_allclose(branchy(-X), np.cos(-X))
    check_grads(branchy, (X,), order=2, modes=("fwd", "rev"))
    check_grads(branchy, (-X,), order=2, modes=("fwd", "rev"))
    assert lax.cond(True, lambda: 1.0, lambda: 2.0) == 1.0
    with pytest.raises(TypeError, match="pred must be a scalar"):
        lax.cond(np.array([True, False]), lambda: 1.0, lambda: 2.0)


def test_cond_with_a_batched_or_staged_predicate_selects():
    xs = np.stack([X, -X, 3 * X])
    np.testing.assert_allclose(tg.vmap(branchy)(xs), [branchy(r) for r in xs])
    np.testing.assert_allclose(tg.vmap(tg.grad(lambda x: tnp.sum(branchy(x))))(xs),
                               [tg.grad(lambda x: tnp.sum(branchy(x)))(r) for r in xs])
    jb = tg.jit(branchy)
    np.testing.assert_allclose(jb(X), branchy(X))
    np.testing.assert_allclose(jb(-X), branchy(-X))  # same program, other branch selected
    assert "cond[" in str(tg.make_jaxpr(branchy)(X))  # staged: one cond equation


def test_switch_clamps_and_selects():
    branches = [tnp.sin, tnp.cos, tnp.tanh]
    for i, want in [(-3, np.sin(X)), (1, np.cos(X)), (7, np.tanh(X))]:
        np.testing.assert_allclose(lax.switch(i, branches, X), want)
        np.testing.assert_allclose(tg.jit(lambda i, x: lax.switch(i, branches, x))(np.int64(i), X),
                                   want)
    np.testing.assert_allclose(tg.vmap(lambda i: lax.switch(i, branches, X))(np.array([0, 2])),
                               [np.sin(X), np.tanh(X)])
    with pytest.raises(ValueError, match="non-empty"):
        lax.switch(0, [], X)
    with pytest.raises(TypeError, match="same shapes"):
        tg.jit(lambda i: lax.switch(i, [lambda: np.zeros(2), lambda: np.zeros(3)]))(np.int64(0))


def test_select():
    np.testing.assert_array_equal(lax.select(X > 0, X, -X), np.abs(X))
    with pytest.raises(TypeError, match="boolean"):
        lax.select(X, X, X)
    with pytest.raises(TypeError, match="same dtype"):
        lax.select(X > 0, X, X.astype(np.float32))


def test_fori_loop_and_while_loop_match_python_loops():
    def body(i, c):
        return c * 1.5 + i * tnp.sin(c)

    def python(c):
        for i in range(2, 6):
            c = c * 1.5 + i * np.sin(c)
        return c

    f = lambda c: lax.fori_loop(2, 6, body, c)  # noqa: E731
    np.testing.assert_allclose(f(X), python(X))
    check_grads(f, (X,), order=2, modes=("fwd", "rev"))
    np.testing.assert_allclose(tg.jit(f)(X), python(X))
    assert lax.while_loop(lambda c: c < 10, lambda c: c * 2, 1) == 16
    with pytest.raises(TypeError, match="same pytree structure"):
        lax.fori_loop(0, 2, lambda i, c: (c, c), 1.0)


def test_while_loop_under_vmap_runs_until_every_example_is_done():
    out = tg.vmap(lambda c0: lax.while_loop(lambda c: c < 10, lambda c: c * 2, c0))(
        np.array([1, 3, 20]))
    np.testing.assert_array_equal(out, [16, 12, 20])
    g = tg.vmap(tg.grad(lambda x: lax.while_loop(lambda c: c < 5.0, lambda c: c * x, x)))
    # x = 2: 2 -> 4 -> 8 (x**3, derivative 12); x = 6: stays 6 (derivative 1)
    np.testing.assert_allclose(g(np.array([2.0, 6.0])), [12.0, 1.0])


def test_while_loop_with_a_staged_predicate_stages():
    f = tg.jit(lambda x: lax.while_loop(lambda c: c < x, lambda c: c * 2.0, 1.0))
    assert float(f(10.0)) == 16.0 and float(f(100.0)) == 128.0


def test_scan_map_and_reverse():
    def step(c, x):
        return c * 0.5 + x, tnp.sin(c) * x

    xs = np.arange(1.0, 5.0)
    c, ys = lax.scan(step, 1.0, xs)
    cp, yp = 1.0, []
    for x in xs:
        cp, y = cp * 0.5 + x, np.sin(cp) * x
        yp.append(y)
    np.testing.assert_allclose([c], [cp])
    np.testing.assert_allclose(ys, yp)
    check_grads(lambda c0, xs: lax.scan(step, c0, xs)[1], (1.0, xs), order=2, modes=("fwd", "rev"))
    cr, yr = lax.scan(step, 1.0, xs, reverse=True)
    cq, yq = 1.0, []
    for x in xs[::-1]:
        cq, y = cq * 0.5 + x, np.sin(cq) * x
        yq.append(y)
    np.testing.assert_allclose([cr], [cq])
    np.testing.assert_allclose(yr, yq[::-1])
    assert lax.scan(lambda c, x: (c + 1, None), 0, None, length=3) == (3, None)
    np.testing.assert_allclose(lax.map(lambda r: tnp.sum(r ** 2), np.eye(3) * 2), [4.0] * 3)
    with pytest.raises(ValueError, match="same leading length"):
        lax.scan(step, 1.0, xs, length=3)
    jc, jys = tg.jit(lambda c0, xs: lax.scan(step, c0, xs))(1.0, xs)
    np.testing.assert_allclose(jys, yp)


def test_associative_scan():
    a = np.arange(1.0, 8.0)
    np.testing.assert_allclose(lax.associative_scan(tnp.add, a), np.cumsum(a))
    np.testing.assert_allclose(lax.associative_scan(tnp.multiply, a, reverse=True),
                               np.cumprod(a[::-1])[::-1])
    m = np.arange(12.0).reshape(3, 4)
    np.testing.assert_allclose(lax.associative_scan(tnp.maximum, m, axis=1),
                               np.maximum.accumulate(m, axis=1))
    check_grads(lambda a: lax.associative_scan(tnp.multiply, a), (a / 4,), order=2,
                modes=("fwd", "rev"))


def test_dynamic_slices_clamp_like_jax_and_trace():
    v = np.arange(10.0)
    np.testing.assert_array_equal(lax.dynamic_slice(v, (7,), (5,)), v[5:10])
    np.testing.assert_array_equal(lax.dynamic_slice(v, (-3,), (2,)), v[7:9])  # from the end
    np.testing.assert_array_equal(lax.dynamic_slice(v, (-20,), (2,)), v[0:2])  # clamped
    np.testing.assert_array_equal(tg.jit(lambda i: lax.dynamic_slice(v, (i,), (3,)))(np.int64(2)),
                                  v[2:5])
    m = np.zeros((3, 4))
    out = tg.jit(lambda x: lax.dynamic_update_slice(x, np.ones((1, 2)), (np.int64(1), np.int64(5))))(m)
    want = m.copy()
    want[1, 2:4] = 1.0
    np.testing.assert_array_equal(out, want)
    np.testing.assert_array_equal(
        tg.vmap(lambda i: lax.dynamic_index_in_dim(np.arange(12.0).reshape(4, 3), i, keepdims=False))(
            np.array([0, 3])), [[0.0, 1.0, 2.0], [9.0, 10.0, 11.0]])
    check_grads(lambda x, u: lax.dynamic_update_slice(x, u, (1,)), (v, np.ones(3)), order=2,
                modes=("fwd", "rev"))
    with pytest.raises(TypeError, match="start indices"):
        lax.dynamic_slice(m, (0,), (1, 1))


def test_matches_jax():
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    jnp = jax.numpy
    v = np.arange(10.0)
    for start, size in [(7, 5), (-3, 2), (4, 3)]:
        np.testing.assert_array_equal(lax.dynamic_slice(v, (start,), (size,)),
                                      jax.lax.dynamic_slice(jnp.asarray(v), (start,), (size,)))
    u = np.ones(3)
    for start in (-2, 1, 9):
        np.testing.assert_array_equal(lax.dynamic_update_slice(v, u, (start,)),
                                      jax.lax.dynamic_update_slice(jnp.asarray(v), u, (start,)))
    for i in (-1, 0, 2, 5):
        np.testing.assert_allclose(lax.switch(i, [tnp.sin, tnp.cos, tnp.tanh], X),
                                   jax.lax.switch(i, [jnp.sin, jnp.cos, jnp.tanh], X))
    step = lambda c, x: (c * 0.5 + x, c * x)  # noqa: E731
    c, ys = lax.scan(step, 1.0, v, reverse=True)
    jc, jys = jax.lax.scan(step, 1.0, jnp.asarray(v), reverse=True)
    np.testing.assert_allclose(c, jc)
    np.testing.assert_allclose(ys, jys)
    out = tg.vmap(lambda c0: lax.while_loop(lambda c: c < 10, lambda c: c * 2, c0))(np.array([1, 3, 20]))
    jout = jax.vmap(lambda c0: jax.lax.while_loop(lambda c: c < 10, lambda c: c * 2, c0))(
        jnp.array([1, 3, 20]))
    np.testing.assert_array_equal(out, jout)


def test_staged_scatter_with_repeated_indices_matches_eager():
    idx = np.array([1, 1, 3])

    def setter(x, i):
        return tnp.at(x)[i].set(np.array([1.0, 2.0, 3.0]))

    def multiplier(x, i):
        return tnp.at(x)[i].multiply(np.array([2.0, 3.0, 5.0]))

    for f, x0 in [(setter, np.zeros(4)), (multiplier, np.ones(4))]:
        np.testing.assert_array_equal(tg.jit(f)(x0, idx), f(x0, idx))

    def h(v, i):
        return tnp.sum(tnp.zeros(4).at[i].set(v) ** 2)

    v = np.array([1.0, 2.0, 3.0])
    np.testing.assert_array_equal(tg.jit(tg.grad(h))(v, idx), tg.grad(h)(v, idx))


# ---------------------------------------------------------------------------
# carry types are loop-invariant (JAX raises TypeError for the same programs)

def _carry_dtype_change(c, x):
    return {"h": c["h"].astype(np.float32) + x, "n": c["n"]}, x


def _carry_shape_change(c, x):
    return {"h": tg.numpy.concatenate([c["h"], c["h"]]), "n": c["n"]}, x


@pytest.mark.parametrize("body, word", [(_carry_dtype_change, "dtypes"),
                                        (_carry_shape_change, "shapes")])
def test_scan_carry_type_change_names_leaf(body, word):
    init = {"h": np.zeros(2), "n": np.array(0)}
    xs = np.ones((3, 2), np.float32)
    with pytest.raises(TypeError, match=rf"same {word}; leaf \['h'\]"):
        tg.lax.scan(body, init, xs)


def test_carry_type_change_is_an_error_in_jax_too():
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    init = {"h": np.zeros(2), "n": np.array(0)}
    with pytest.raises(TypeError):
        jax.lax.scan(lambda c, x: ({"h": c["h"].astype(np.float32) + x, "n": c["n"]}, x),
                     init, np.ones((3, 2), np.float32))


def test_while_and_fori_carry_dtype_change():
    with pytest.raises(TypeError, match=r"while_loop.*same dtypes; leaf \[1\]"):
        tg.lax.while_loop(lambda v: v[0] < 3, lambda v: (v[0] + 1, v[1].astype(np.int32)),
                          (0, np.array(1.0)))
    with pytest.raises(TypeError, match=r"fori_loop.*same dtypes; leaf \(the whole value\)"):
        tg.lax.fori_loop(0, 3, lambda i, v: v.astype(np.float32), np.array(1.0))


def test_weak_python_scalar_carry_is_not_a_dtype_change():
    # init 0.0 (a Python float, weakly typed) meeting float32 steps is accepted, as in JAX
    c, _ = tg.lax.scan(lambda c, x: (c + x, None), 0.0, np.ones(3, np.float32))
    assert float(c) == 3.0
