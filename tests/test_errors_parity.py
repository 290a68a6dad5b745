"""Errors and keywords with JAX's semantics.

* ``vmap(axis_size=, spmd_axis_name=)`` and ``custom_jvp`` /
  ``custom_vjp(nondiff_argnames=)``, checked against JAX (x64).
* A NumPy or SciPy function without a tracer rule is named by its public
  module (``scipy.special.erf``, ``numpy.linalg.pinv``), and the message
  points to a tracegrad function only when one exists.
* ``a[i] = tracer`` into a NumPy array and ``xs[i]`` with a batched index
  name the fixes (``tnp.at(a)[i].set``, ``tnp.take``), and those fixes work.
"""
import numpy as np
import pytest

import tracegrad as tg
from tracegrad.core import EvalTrace, current_trace
import tracegrad.numpy as tnp
from tracegrad.numpy import _dispatch

jax = pytest.importorskip("jax")
jax.config.update("jax_enable_x64", True)
jnp = jax.numpy


# --------------------------------------------------------------------------
# vmap(axis_size=, spmd_axis_name=)


@pytest.mark.parametrize("case", ["unmapped", "no-args", "mapped", "spmd", "zero"])
def test_vmap_axis_size_matches_jax(case):
    x = np.arange(2.0)
    calls = {
        "unmapped": (lambda v: v * 2, dict(in_axes=None, axis_size=3), (1.5,)),
        "no-args": (lambda: 1.0, dict(axis_size=2), ()),
        "mapped": (lambda a, b: a * b, dict(in_axes=(0, None), axis_size=2), (x, 3.0)),
        "spmd": (lambda a: a + 1, dict(axis_size=2, spmd_axis_name="batch"), (x,)),
        "zero": (lambda v: v, dict(in_axes=None, axis_size=0), (x,)),
    }
    f, kw, args = calls[case]
    got = tg.vmap(f, **kw)(*args)
    want = np.asarray(jax.vmap(f, **kw)(*args))
    assert np.shape(got) == want.shape
    np.testing.assert_allclose(got, want)


def test_vmap_axis_size_errors_and_derivatives():
    with pytest.raises(ValueError, match="axis_size argument was 3"):
        tg.vmap(lambda v: v, axis_size=3)(np.ones(2))
    with pytest.raises(ValueError):
        jax.vmap(lambda v: v, axis_size=3)(jnp.ones(2))
    with pytest.raises(ValueError, match="axis_size"):
        tg.vmap(lambda v: v, in_axes=None)(1.0)
    with pytest.raises(TypeError, match="non-negative int"):
        tg.vmap(lambda v: v, in_axes=None, axis_size=2.0)
    # an unmapped closure broadcast to axis_size still carries its derivative
    g = tg.grad(lambda s: tnp.sum(tg.vmap(lambda: s * s, axis_size=3)()))(2.0)
    assert float(g) == float(jax.grad(lambda s: jnp.sum(jax.vmap(lambda: s * s, axis_size=3)()))(2.0))


# --------------------------------------------------------------------------
# custom_jvp / custom_vjp(nondiff_argnames=)


def _power_jvp(lib, custom):
    def f(x, n, scale):
        return scale * x ** n

    f = custom(f, nondiff_argnames=("n",))

    @f.defjvp
    def f_jvp(n, primals, tangents):
        x, scale = primals
        dx, dscale = tangents
        return f(x, n, scale), scale * n * x ** (n - 1) * dx + x ** n * dscale

    return f


def test_custom_jvp_nondiff_argnames_matches_jax():
    f, jf = _power_jvp(tnp, tg.custom_jvp), _power_jvp(jnp, jax.custom_jvp)
    assert f.nondiff_argnums == jf.nondiff_argnums == (1,)
    for call in (lambda g, x, s: g(x, 3, s), lambda g, x, s: g(x, n=3, scale=s),
                 lambda g, x, s: g(x, 3, scale=s)):
        got = tg.grad(lambda x, s: call(f, x, s), argnums=(0, 1))(2.0, 0.5)
        want = jax.grad(lambda x, s: call(jf, x, s), argnums=(0, 1))(2.0, 0.5)
        np.testing.assert_allclose(got, want)
        _, t = tg.jvp(lambda x: call(f, x, 0.5), (2.0,), (1.0,))
        _, jt = jax.jvp(lambda x: call(jf, x, 0.5), (2.0,), (1.0,))
        assert float(t) == float(jt)
    # names and numbers together, sorted, as in JAX
    g = tg.custom_jvp(lambda a, b, c: a, nondiff_argnums=(2,), nondiff_argnames=("a",))
    jg = jax.custom_jvp(lambda a, b, c: a, nondiff_argnums=(2,), nondiff_argnames=("a",))
    assert g.nondiff_argnums == jg.nondiff_argnums == (0, 2)


def test_custom_vjp_nondiff_argnames_matches_jax():
    def build(custom):
        def clip_grad(limit, x):
            return x

        f = custom(clip_grad, nondiff_argnames="limit" if custom is tg.custom_vjp else ("limit",))

        def fwd(limit, x):
            return x, None

        def bwd(limit, _, g):
            return (g.clip(-limit, limit) if hasattr(g, "clip") else g,)

        f.defvjp(fwd, bwd)
        return f

    f, jf = build(tg.custom_vjp), build(jax.custom_vjp)
    assert f.nondiff_argnums == jf.nondiff_argnums == (0,)
    loss = lambda fn, lib: lambda x: lib.sum(fn(0.5, x) * lib.array([3.0, 0.1]))  # noqa: E731
    got = tg.grad(loss(f, tnp))(np.array([1.0, 2.0]))
    want = jax.grad(loss(jf, jnp))(jnp.array([1.0, 2.0]))
    np.testing.assert_allclose(got, want)
    np.testing.assert_allclose(got, [0.5, 0.1])
    got_kw = tg.grad(lambda x: tnp.sum(f(limit=0.5, x=x) * 3.0))(np.array([1.0]))
    assert float(got_kw[0]) == 0.5


def test_nondiff_argnames_errors():
    with pytest.raises(ValueError, match="nondiff_argnames \\['m'\\].*'x', 'n'"):
        tg.custom_jvp(lambda x, n: x, nondiff_argnames=("m",))
    with pytest.raises(ValueError, match="keyword-only"):
        tg.custom_vjp(lambda x, *, n: x, nondiff_argnames=("n",))


# --------------------------------------------------------------------------
# functions without a rule: the real module, and a suggestion only when it exists


def _message(fn, x):
    with pytest.raises(TypeError) as info:
        tg.grad(lambda v: tnp.sum(fn(v)))(x)
    return str(info.value)


def test_scipy_functions_are_named_by_their_module():
    special = pytest.importorskip("scipy.special")
    # (scipy.special.erf and gammaln now dispatch to tracegrad.scipy.special:
    # tests/test_scipy_special.py; these two have no version yet)
    # (gammainc was the example until it got a version: now it runs, differentiable in x)
    assert float(tg.grad(lambda v: special.gammainc(2.0, v))(1.0)) == float(np.exp(-1.0))
    msg = _message(lambda v: special.gammaincinv(v, v), np.ones(2) * 0.5)
    assert msg.startswith("scipy.special.gammaincinv is not supported") and "numpy." not in msg
    assert "has no version of it yet" in msg and "stop_gradient" in msg
    msg = _message(special.kei, np.ones(2))  # (i0e, here before, now has a version)
    assert msg.startswith("scipy.special.kei ")
    # a SciPy ufunc tracegrad.scipy.special has runs it on tracers (expit was
    # once an error naming tracegrad.nn.sigmoid)
    assert tg.grad(special.expit)(0.0) == 0.25
    assert tg.nn.sigmoid(0.0) == special.expit(0.0)


def test_numpy_functions_without_rules_suggest_only_what_exists():
    # (numpy.linalg.cond used to be the second example; every numpy.linalg function now has a rule)
    for fn, name in ((np.spacing, "numpy.spacing"),):
        x = np.eye(2) + 0.5
        msg = _message(fn, x)
        assert msg.startswith(f"{name} is not supported")
        short = name.split(".")[-1]
        if callable(getattr(tnp, short, None)) or callable(getattr(tnp.linalg, short, None)):
            assert "tracegrad.numpy" in msg and "Call" in msg
        else:
            assert "has no version of it yet" in msg and f"tracegrad.numpy.{short}" not in msg
    msg = _message(lambda v: np.add.reduceat(v, [0]), np.ones(3))
    assert msg.startswith("numpy.add.reduceat is not supported")
    # where tracegrad has the function, the message points to it
    assert "Call tracegrad.numpy.sum(...)" in str(_dispatch._no_rule("sum", "numpy"))
    assert "Call tracegrad.numpy.linalg.det(...)" in str(_dispatch._no_rule("det", "numpy.linalg"))
    assert "has no version" in str(_dispatch._no_rule("no_such_function", "numpy"))
    assert _dispatch._public_module(np.sin) == "numpy"
    assert _dispatch._public_module(np.linalg.pinv) == "numpy.linalg"


# --------------------------------------------------------------------------
# storing a tracer into a NumPy array, indexing one with a batched index


def test_setitem_of_a_tracer_into_numpy_names_the_fix():
    def scalar_store(x):
        a = np.zeros(3)
        a[0] = x
        return a.sum()

    # NumPy turns the scalar conversion error into its own ValueError, with
    # tracegrad's TypeError as the cause: every transform re-raises the cause,
    # and leaves no trace behind
    for transform in (tg.grad, tg.jacfwd, tg.jacrev, lambda f: tg.vmap(f)):
        arg = np.ones(2) if transform not in (tg.grad, tg.jacfwd, tg.jacrev) else 1.0
        with pytest.raises(TypeError) as info:
            transform(scalar_store)(arg)
        assert "a[i] = x" in str(info.value) and "tnp.at(a)[i].set(x)" in str(info.value)
        assert isinstance(current_trace(), EvalTrace)

    def row_store(x):
        a = np.zeros((2, 3))
        a[0] = x
        return a.sum()

    with pytest.raises(TypeError, match=r"tnp\.at\(a\)\[i\]\.set\(x\)"):
        tg.grad(row_store)(np.ones(3))

    # the fix works and is differentiable
    def fixed(x):
        a = np.zeros((2, 3))
        return tnp.sum(tnp.at(a)[0].set(x) ** 2)

    np.testing.assert_allclose(tg.grad(fixed)(np.arange(3.0)), 2 * np.arange(3.0))


def test_batched_index_into_numpy_names_take_and_take_works():
    xs = np.arange(5.0) * 10
    with pytest.raises(TypeError, match=r"tnp\.take\(xs, i, axis=0\)"):
        tg.vmap(lambda i: xs[i])(np.arange(3))
    idx = np.array([4, 0, 2])
    np.testing.assert_array_equal(tg.vmap(lambda i: tnp.take(xs, i, axis=0))(idx), xs[idx])
    want = jax.vmap(lambda i: jnp.take(jnp.asarray(xs), i, axis=0))(idx)
    np.testing.assert_array_equal(tg.vmap(lambda i: tnp.take(xs, i, axis=0))(idx), want)
    g = tg.grad(lambda v: tnp.sum(tg.vmap(lambda i: tnp.take(v, i, axis=0))(np.array([0, 0, 3]))))(xs)
    np.testing.assert_array_equal(g, [2.0, 0, 0, 1.0, 0])
    # under grad the index is concrete, and NumPy indexing works as it is
    assert float(tg.grad(lambda v: xs[tnp.argmax(v)] * v[0])(np.array([1.0, 3.0]))[0]) == 10.0
