"""tg.linearize and tg.linear_transpose: against jvp/vjp over a table of
functions, against JAX where installed, composition with jit/vmap/grad,
the no-recompute property, and errors."""
import numpy as np
import pytest

import tracegrad as tg
import tracegrad.numpy as tnp
from tracegrad.core import registry

RNG = np.random.default_rng(0)


def _r(*shape, dtype=np.float64):
    return RNG.standard_normal(shape).astype(dtype)


W = _r(4, 3)

# (name, function, primals)
TABLE = [
    ("elementwise", lambda x: tnp.sin(x) * tnp.exp(x) + x ** 3, (_r(3, 4),)),
    ("binary-broadcast", lambda x, y: tnp.tanh(x * y) / (1.0 + y * y), (_r(3, 1), _r(1, 4))),
    ("matmul", lambda x: tnp.tanh(x @ W), (_r(2, 4),)),
    ("matmul-two", lambda a, b: a @ b + tnp.log1p(a @ b * a @ b), (_r(3, 3), _r(3, 3))),
    ("reductions", lambda x: (tnp.sum(x ** 2, axis=0), tnp.max(x, axis=1), tnp.mean(tnp.exp(x))),
     (_r(3, 5),)),
    ("indexing", lambda x: x[1:, ::2] * x[0, 0] + tnp.take(x, np.array([2, 0]), axis=1)[1:],
     (_r(3, 4),)),
    ("shape", lambda x: tnp.reshape(tnp.transpose(x), (2, 6)) * tnp.concatenate([x, x], 0).sum(),
     (_r(3, 4),)),
    ("pytree", lambda p, x: {"out": tnp.tanh(x @ p["w"] + p["b"]), "norm": tnp.sum(p["w"] ** 2)},
     ({"w": _r(4, 3), "b": _r(3)}, _r(2, 4))),
    ("float32", lambda x: tnp.sin(x) * x, (_r(3, 4, dtype=np.float32),)),
    ("scalar", lambda x: x * tnp.cos(x), (1.3,)),
    ("constant-output", lambda x: (tnp.sin(x), np.ones(2)), (_r(3),)),
]
IDS = [t[0] for t in TABLE]


def _tangents(primals, seed=1):
    rng = np.random.default_rng(seed)
    return tg.tree_util.tree_map(
        lambda p: rng.standard_normal(np.shape(p)).astype(np.asarray(p).dtype), primals)


def _close(a, b, dtype=np.float64):
    tol = 1e-5 if dtype == np.float32 else 1e-12
    for x, y in zip(tg.tree_util.tree_leaves(a), tg.tree_util.tree_leaves(b)):
        x, y = np.asarray(x), np.asarray(y)
        assert x.shape == y.shape and x.dtype == y.dtype, (x.shape, x.dtype, y.shape, y.dtype)
        np.testing.assert_allclose(x, y, rtol=tol, atol=tol)


@pytest.mark.parametrize("name,f,primals", TABLE, ids=IDS)
def test_linearize_matches_jvp(name, f, primals):
    dtype = np.asarray(tg.tree_util.tree_leaves(primals)[0]).dtype
    out, f_jvp = tg.linearize(f, *primals)
    _close(out, f(*primals), dtype)
    for seed in (1, 2):
        t = _tangents(primals, seed)
        _close(f_jvp(*t), tg.jvp(f, primals, t)[1], dtype)
    # the IR holds only tangent equations, and checks
    tg.interpreters.staging.check_jaxpr(f_jvp.jaxpr.jaxpr)


@pytest.mark.parametrize("name,f,primals", TABLE, ids=IDS)
def test_linear_transpose_of_linearization_is_vjp(name, f, primals):
    dtype = np.asarray(tg.tree_util.tree_leaves(primals)[0]).dtype
    out, f_jvp = tg.linearize(f, *primals)
    f_t = tg.linear_transpose(f_jvp, *primals)
    ct = _tangents(out, 3)
    ct = tg.tree_util.tree_map(lambda c, o: np.asarray(c, np.asarray(o).dtype), ct, out)
    _close(f_t(ct), tg.vjp(f, *primals)[1](ct), dtype)


def test_no_recompute():
    calls = {"body": 0, "sin": 0}
    sin_p = registry["sin"]
    impl = sin_p.impl

    def counting(*a, **k):
        calls["sin"] += 1
        return impl(*a, **k)

    def f(x):
        calls["body"] += 1
        return tnp.sin(tnp.sin(x)) * x

    x = _r(5)
    sin_p.impl = counting
    try:
        out, f_jvp = tg.linearize(f, x)
        assert calls == {"body": 1, "sin": 2}
        for _ in range(3):
            f_jvp(np.ones(5))
        assert calls == {"body": 1, "sin": 2}, calls  # the primal never runs again
    finally:
        sin_p.impl = impl
    names = {e.primitive.name for e in f_jvp.jaxpr.eqns}
    assert "sin" not in names  # only tangent equations are staged


def test_composition():
    f = lambda x: tnp.sum(tnp.tanh(x @ W) ** 2, axis=1)  # noqa: E731
    x = _r(2, 4)
    out, f_jvp = tg.linearize(f, x)
    t = _r(2, 4)
    ref = tg.jvp(f, (x,), (t,))[1]
    _close(tg.jit(f_jvp)(t), ref)
    ts = _r(5, 2, 4)
    _close(tg.vmap(f_jvp)(ts), np.stack([tg.jvp(f, (x,), (ti,))[1] for ti in ts]))
    # linearize of grad: a Hessian-vector product
    g = tg.grad(lambda x: tnp.sum(tnp.sin(x) * x ** 2))
    y = _r(4)
    _, hvp = tg.linearize(g, y)
    v = _r(4)
    _close(hvp(v), tg.jvp(g, (y,), (v,))[1])
    # grad of a function of f_jvp (it is differentiable like any function)
    _close(tg.grad(lambda t: tnp.sum(f_jvp(t)))(t), tg.vjp(f, x)[1](np.ones(2))[0])
    # linearize inside jit and inside vmap over the primal
    jl = tg.jit(lambda x, t: tg.linearize(f, x)[1](t))
    _close(jl(x, t), ref)
    xs = _r(3, 2, 4)
    _close(tg.vmap(lambda x: tg.linearize(f, x)[1](t))(xs),
           np.stack([tg.jvp(f, (xi,), (t,))[1] for xi in xs]))


def test_linear_transpose_table():
    A = _r(3, 4)
    cases = [
        (lambda x: A @ x, (_r(4, 2),)),
        (lambda x: 2.0 * x.T - tnp.sum(x, axis=0, keepdims=True).T, (_r(3, 2),)),
        (lambda x, y: (x[1:] + y, -tnp.reshape(y, (6,))), (_r(4, 2), _r(3, 2))),
        (lambda p: p["a"] * 3.0 + tnp.cumsum(p["b"]), ({"a": _r(5), "b": _r(5)},)),
        (lambda x: x / 4.0 + tnp.zeros(3), (_r(3, dtype=np.float32),)),
    ]
    for f, primals in cases:
        f_t = tg.linear_transpose(f, *primals)
        out = f(*primals)
        ct = _tangents(out, 4)
        got = f_t(ct)
        (ref,) = [tg.vjp(f, *primals)[1](ct)]
        dtype = np.asarray(tg.tree_util.tree_leaves(primals)[0]).dtype
        _close(got, ref, dtype)
        # <ct, f(x)> = <f_t(ct), x>
        lhs = sum(np.sum(c * o) for c, o in zip(tg.tree_util.tree_leaves(ct),
                                                tg.tree_util.tree_leaves(out)))
        rhs = sum(np.sum(g * p) for g, p in zip(tg.tree_util.tree_leaves(got),
                                                tg.tree_util.tree_leaves(primals)))
        np.testing.assert_allclose(lhs, rhs, rtol=1e-5 if dtype == np.float32 else 1e-12)
    # shapes only: ShapeDtypeStruct primals, and a staged transpose
    f_t = tg.linear_transpose(lambda x: A @ x, tg.ShapeDtypeStruct((4,), np.float64))
    c = _r(3)
    _close(f_t(c), (A.T @ c,))
    jaxpr = tg.make_jaxpr(f_t)(c)
    assert "matmul" in str(jaxpr) or "dot" in str(jaxpr)


@pytest.mark.parametrize("f,prim", [
    (lambda x: tnp.sin(x), "sin"),
    (lambda x: x * x, "mul"),
    (lambda x: x + 1.0, "add"),
    (lambda x: tnp.exp(2.0 * x), "exp"),
    (lambda x: (x > 0) * x, "gt"),
    (lambda x: tnp.where(np.array([True, False, True]), x, 1.0), "select"),
])
def test_linear_transpose_rejects_nonlinear(f, prim):
    with pytest.raises(TypeError, match=f"primitive '{prim}'"):
        tg.linear_transpose(f, _r(3))


def test_linear_transpose_edge_cases():
    c = np.array([True, False, True])
    f_t = tg.linear_transpose(lambda x: tnp.where(c, x, 0.0) * 2.0, _r(3))
    np.testing.assert_array_equal(f_t(np.ones(3))[0], [2.0, 0.0, 2.0])
    f_t = tg.linear_transpose(lambda x: x[np.array([2, 0, 2])], _r(3))
    np.testing.assert_array_equal(f_t(np.array([1.0, 2.0, 3.0]))[0], [2.0, 0.0, 4.0])
    with pytest.raises(TypeError, match="constant output"):
        tg.linear_transpose(lambda x: (x, np.ones(2)), _r(3))
    # a zero output that does not depend on the input is linear
    f_t = tg.linear_transpose(lambda x: (x, np.zeros(2)), _r(3))
    np.testing.assert_array_equal(f_t((np.ones(3), np.ones(2)))[0], np.ones(3))


def test_errors():
    _, f_jvp = tg.linearize(lambda x, y: x * y, _r(3), _r(3))
    with pytest.raises(TypeError, match=r"tangent 1 has type f64\[4\].*f64\[3\]"):
        f_jvp(_r(3), _r(4))
    with pytest.raises(TypeError, match=r"tangent 0 has type f32\[3\].*astype\('float64'\)"):
        f_jvp(_r(3, dtype=np.float32), _r(3))
    with pytest.raises(TypeError, match="structure"):
        f_jvp(_r(3))
    with pytest.raises(TypeError, match="integer arguments"):
        tg.linearize(lambda n: n * 2, np.arange(3))
    with pytest.raises(TypeError, match="callable"):
        tg.linearize(3, 1.0)
    f_t = tg.linear_transpose(lambda x: 2.0 * x, _r(3))
    with pytest.raises(ValueError, match="shape"):
        f_t(_r(4))
    with pytest.raises(TypeError, match="structure"):
        f_t((_r(3), _r(3)))
    with pytest.raises(TypeError, match="floating point"):
        tg.linear_transpose(lambda x: x, np.arange(3))


@pytest.fixture(scope="module")
def jax():
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    return jax


def test_against_jax(jax):
    jnp = jax.numpy
    x = _r(3, 4)
    t = _r(3, 4)
    out, f_jvp = tg.linearize(lambda x: tnp.sum(tnp.sin(x) * x, axis=0), x)
    jout, jf_jvp = jax.linearize(lambda x: jnp.sum(jnp.sin(x) * x, axis=0), x)
    _close(out, np.asarray(jout))
    _close(f_jvp(t), np.asarray(jf_jvp(t)))
    A = _r(2, 3)
    ct = _r(2, 4)
    ours = tg.linear_transpose(lambda x: A @ x * 2.0, tg.ShapeDtypeStruct((3, 4), np.float64))(ct)
    theirs = jax.linear_transpose(lambda x: A @ x * 2.0, jax.ShapeDtypeStruct((3, 4), np.float64))(ct)
    _close(ours[0], np.asarray(theirs[0]))
    # JAX rejects the same non-linear function
    with pytest.raises(Exception):
        jax.linear_transpose(jnp.sin, x)(x)
    with pytest.raises(TypeError):
        tg.linear_transpose(tnp.sin, x)
