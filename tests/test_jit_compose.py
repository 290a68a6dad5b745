"""``tg.jit`` composed with every transform, its cache, its inputs and
outputs, and its errors, against eager (issue 10, sections "jit" and
"Tests").

Everything here tests behaviour (values, dtypes, trace counts, errors),
never the text of generated code, so it holds for any compiler behind
``jit``.  ``tests/test_jit.py`` has the first-stage tests; the README's
``make_jaxpr`` example is pinned in ``tests/test_staging.py``.
"""
import functools

import numpy as np
import pytest

import tracegrad as tg
import tracegrad.numpy as tnp
from tracegrad.core import EvalTrace, current_trace
from tracegrad.errors import (
    ConcretizationTypeError,
    TracerArrayConversionError,
    TracerBoolConversionError,
    TracerIntegerConversionError,
)
from tracegrad.tree_util import tree_leaves, tree_structure

RNG = np.random.default_rng(1010)
X = RNG.standard_normal(4)
Y = RNG.standard_normal(4)
XS = RNG.standard_normal((3, 4))


@pytest.fixture(scope="module")
def jax():
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    return jax


def f(x, y):
    """Scalar-valued, non-polynomial in both arguments."""
    return tnp.sum(tnp.tanh(x) * tnp.exp(y / 3.0)) + tnp.max(x * y) + tnp.sum(tnp.sin(x) ** 2)


def counting(fn):
    calls = []

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        calls.append(1)
        return fn(*args, **kwargs)

    return wrapper, calls


def close(got, want, rtol=1e-12, atol=1e-14):
    gl, wl = tree_leaves(got), tree_leaves(want)
    assert tree_structure(got) == tree_structure(want), (got, want)
    for g, w in zip(gl, wl):
        assert np.shape(g) == np.shape(w), (np.shape(g), np.shape(w))
        assert np.asarray(g).dtype == np.asarray(w).dtype, (np.asarray(g).dtype, np.asarray(w).dtype)
        np.testing.assert_allclose(g, w, rtol=rtol, atol=atol)


# --------------------------------------------------------------------------
# compositions


@pytest.mark.parametrize("label, jitted, eager", [
    ("jit(grad(f))", tg.jit(tg.grad(f)), tg.grad(f)),
    ("jit(grad(f, argnums=(0, 1)))", tg.jit(tg.grad(f, argnums=(0, 1))), tg.grad(f, argnums=(0, 1))),
    ("grad(jit(f))", tg.grad(tg.jit(f), argnums=(0, 1)), tg.grad(f, argnums=(0, 1))),
    ("value_and_grad(jit(f))", tg.value_and_grad(tg.jit(f)), tg.value_and_grad(f)),
    ("jacfwd(jit(f))", tg.jacfwd(tg.jit(f)), tg.jacfwd(f)),
    ("jacrev(jit(f))", tg.jacrev(tg.jit(f), argnums=1), tg.jacrev(f, argnums=1)),
    ("hessian(jit(f))", tg.hessian(tg.jit(f)), tg.hessian(f)),
    ("jit(hessian(f))", tg.jit(tg.hessian(f)), tg.hessian(f)),
    ("jit(jit(f))", tg.jit(tg.jit(f)), f),
    ("grad(jit(grad(jit(f))))", tg.grad(lambda x, y: tnp.sum(tg.jit(tg.grad(tg.jit(f)))(x, y))),
     tg.grad(lambda x, y: tnp.sum(tg.grad(f)(x, y)))),
])
def test_derivative_compositions(label, jitted, eager):
    close(jitted(X, Y), eager(X, Y))


def test_jvp_and_vjp_of_jit():
    tx, ty = RNG.standard_normal(4), RNG.standard_normal(4)
    close(tg.jvp(tg.jit(f), (X, Y), (tx, ty)), tg.jvp(f, (X, Y), (tx, ty)))
    close(tg.jit(lambda x, y, a, b: tg.jvp(f, (x, y), (a, b)))(X, Y, tx, ty),
          tg.jvp(f, (X, Y), (tx, ty)))
    out, pull = tg.vjp(tg.jit(f), X, Y)
    want, pull_want = tg.vjp(f, X, Y)
    close(out, want)
    close(pull(2.5), pull_want(2.5))


def test_vmap_and_jit_both_orders():
    want = np.stack([f(r, Y) for r in XS])
    close(tg.vmap(tg.jit(f), in_axes=(0, None))(XS, Y), want)
    close(tg.jit(tg.vmap(f, in_axes=(0, None)))(XS, Y), want)
    per_example = np.stack([tg.grad(f)(r, Y) for r in XS])
    close(tg.vmap(tg.jit(tg.grad(f)), in_axes=(0, None))(XS, Y), per_example)
    close(tg.jit(tg.vmap(tg.grad(f), in_axes=(0, None)))(XS, Y), per_example)
    close(tg.vmap(tg.grad(tg.jit(f)), in_axes=(0, None))(XS, Y), per_example)
    # out_axes and a mapped second argument
    g = tg.jit(lambda x, y: tnp.sin(x) * y)
    close(tg.vmap(g, in_axes=(1, 0), out_axes=1)(XS.T, XS), np.sin(XS).T * XS.T)


def test_custom_jvp_and_custom_vjp_inside_jit():
    @tg.custom_jvp
    def softclip(x):
        return tnp.tanh(x) * 2.0

    softclip.defjvp(lambda p, t: (softclip(p[0]), t[0] * 7.0))  # a deliberately unusual rule

    @tg.custom_vjp
    def scaled(x):
        return tnp.sin(x)

    scaled.defvjp(lambda x: (tnp.sin(x), x), lambda x, ct: (ct * 3.0 * x,))

    def g(x):
        return tnp.sum(softclip(x) * scaled(x))

    close(tg.jit(g)(X), g(X))
    close(tg.jit(tg.grad(g))(X), tg.grad(g)(X))
    close(tg.grad(tg.jit(g))(X), tg.grad(g)(X))
    # the custom rules are used, not the derivative of the primal code
    want = 7.0 * tnp.sin(X) + 2.0 * np.tanh(X) * 3.0 * X
    np.testing.assert_allclose(tg.jit(tg.grad(g))(X), want, rtol=1e-13)
    h = lambda x: tnp.sum(softclip(x))  # noqa: E731
    close(tg.jit(tg.jacfwd(h))(X), tg.jacfwd(h)(X))


def test_checkpoint_inside_jit():
    block = tg.checkpoint(lambda x, y: tnp.tanh(x * y) + tnp.sin(x))

    def g(x, y):
        return tnp.sum(block(block(x, y), y) ** 2)

    close(tg.jit(g)(X, Y), g(X, Y))
    close(tg.jit(tg.grad(g, argnums=(0, 1)))(X, Y), tg.grad(g, argnums=(0, 1))(X, Y))
    close(tg.grad(tg.jit(g), argnums=(0, 1))(X, Y), tg.grad(g, argnums=(0, 1))(X, Y))
    close(tg.jit(tg.checkpoint(tg.grad(g)))(X, Y), tg.grad(g)(X, Y))


def test_nested_jit_traces_the_inner_function_inside_the_outer():
    inner, calls = counting(lambda x: tnp.exp(x) * 2.0)
    jinner = tg.jit(inner)
    outer = tg.jit(lambda x: tnp.sum(jinner(x) + jinner(x * 2.0)))
    close(outer(X), np.sum(np.exp(X) * 2.0 + np.exp(X * 2.0) * 2.0))
    n = len(calls)
    outer(X + 1.0)
    assert len(calls) == n  # the outer program is cached: the inner is not traced again
    close(tg.grad(outer)(X), 2.0 * np.exp(X) + 4.0 * np.exp(2.0 * X))


def test_closed_over_arrays_are_constants():
    w = RNG.standard_normal((4, 4))
    b = np.float32(0.5)
    g = tg.jit(lambda x: tnp.tanh(w @ x) + b)
    close(g(X), np.tanh(w @ X) + b)
    close(tg.grad(lambda x: tnp.sum(g(x)))(X), w.T @ (1.0 - np.tanh(w @ X) ** 2))
    text = g.lower(X).as_text()
    assert "f64[4,4]" in text.splitlines()[0]  # w is a constant of the program


def test_closing_over_a_tracer_of_an_enclosing_transform():
    got = tg.grad(lambda x: tg.jit(lambda y: x * y)(2.0))(3.0)
    assert got == 2.0
    # second order, forward over reverse, and vmap
    h = lambda x: tg.jit(lambda y: tnp.sin(x) * y ** 2)(x)  # noqa: E731
    close(tg.grad(tg.grad(h))(0.7), tg.grad(tg.grad(lambda x: tnp.sin(x) * x ** 2))(0.7))
    close(tg.jacfwd(tg.grad(h))(0.7), tg.grad(tg.grad(lambda x: tnp.sin(x) * x ** 2))(0.7))
    close(tg.vmap(lambda x: tg.jit(lambda y: x * y + 1.0)(X))(XS), XS * X + 1.0)
    # a closure over a tracer whose jitted function is called under jit
    close(tg.jit(lambda x: tg.jit(lambda y: x * y)(3.0))(X), X * 3.0)


def test_pytrees_in_and_out():
    def g(params, batch, extra=None):
        h = tnp.tanh(batch["x"] @ params["w"] + params["b"])
        return {"loss": tnp.mean(h ** 2), "parts": (h, None), "nothing": None}

    params = {"w": RNG.standard_normal((4, 2)), "b": np.zeros(2)}
    batch = {"x": XS}
    close(tg.jit(g)(params, batch), g(params, batch))
    close(tg.jit(g)(params, batch, extra=None), g(params, batch))
    lossf = lambda p, b: g(p, b)["loss"]  # noqa: E731
    close(tg.jit(tg.grad(lossf))(params, batch), tg.grad(lossf)(params, batch))
    close(tg.grad(tg.jit(lossf))(params, batch), tg.grad(lossf)(params, batch))
    # tuples and lists keep their type; empty containers
    out = tg.jit(lambda t: (t[0] + 1.0, [t[1]], (), {}))((X, Y))
    assert isinstance(out, tuple) and isinstance(out[1], list) and out[2] == () and out[3] == {}
    close(out[0], X + 1.0)


def test_static_argnums_and_argnames():
    def poly(x, n, scale, *, kind="sum"):
        acc = x
        for _ in range(n):  # Python control flow on a static value
            acc = acc * x
        return (tnp.sum(acc) if kind == "sum" else tnp.max(acc)) * scale

    want = lambda n, kind="sum": poly(X, n, 2.0, kind=kind)  # noqa: E731
    g, calls = counting(poly)
    neg = tg.jit(g, static_argnums=-2)  # n: counted from the end of the call's (x, n, scale)
    close(neg(X, 2, 2.0), want(2))
    close(neg(X, 3, 2.0), want(3))
    assert len(calls) == 2
    by_name = tg.jit(poly, static_argnames=("n", "kind"))
    close(by_name(X, n=3, scale=2.0, kind="max"), want(3, "max"))
    by_number = tg.jit(poly, static_argnums=(1,), static_argnames="kind")
    close(by_number(X, n=2, scale=2.0), want(2))  # a static number given by name
    close(tg.grad(by_number)(X, 2, 2.0, kind="max"), tg.grad(poly)(X, 2, 2.0, kind="max"))


def test_a_static_name_given_by_position():
    def poly(x, n, scale):
        acc = x
        for _ in range(n):
            acc = acc * x
        return tnp.sum(acc) * scale

    g, calls = counting(poly)
    by_name = tg.jit(g, static_argnames="n")
    close(by_name(X, 2, 2.0), poly(X, 2, 2.0))
    close(by_name(X, n=2, scale=2.0), poly(X, 2, 2.0))
    assert len(calls) <= 2


def test_negative_static_argnums_like_jax(jax):
    """A negative number counts from the end of the call's positional
    arguments (as jax.jit does)."""
    def probe(x, n, scale=1.0):
        return x * n * scale

    for argnums, args in [(-1, (X, 2)), (-2, (X, 2, 3.0)), (-1, (X, 2, 3.0))]:
        seen = []
        spy = lambda x, n, scale=1.0: seen.append(  # noqa: E731
            tuple(isinstance(a, (int, float)) for a in (x, n, scale))) or probe(x, n, scale)
        close(tg.jit(spy, static_argnums=argnums)(*args), probe(*args))
        jseen = []
        jspy = lambda x, n, scale=1.0: jseen.append(  # noqa: E731
            tuple(isinstance(a, (int, float)) for a in (x, n, scale))) or x * n * scale
        jax.jit(jspy, static_argnums=argnums)(*args)
        assert seen == jseen, (argnums, args, seen, jseen)


def test_partial_and_decorator_forms():
    @functools.partial(tg.jit, static_argnums=(1,))
    def rep(x, k):
        return tnp.concatenate([x] * k)

    @tg.jit(static_argnames="k", donate_argnums=0)
    def rep2(x, k):
        return tnp.concatenate([x] * k)

    @tg.jit
    def plain(x):
        return x * 2.0

    close(rep(X, 3), np.concatenate([X] * 3))
    close(rep2(X, k=2), np.concatenate([X] * 2))
    close(plain(X), X * 2.0)
    x = X.copy()
    close(tg.jit(lambda a: a + 1.0, donate_argnums=(0,))(x), X + 1.0)
    np.testing.assert_array_equal(x, X)  # donation is accepted and a no-op
    assert plain.__name__ == "plain" and plain.__doc__ is None


# --------------------------------------------------------------------------
# the cache: trace counts


def test_trace_counts():
    g, calls = counting(lambda x, s: sum(tnp.sum(leaf * s) for leaf in tree_leaves(x)))
    jg = tg.jit(g)
    jg(np.ones(3), 2.0)
    jg(np.full(3, 7.0), -1.5)  # same signature (a weak float scalar): no trace
    assert len(calls) == 1
    for args in [
        (np.ones(4), 2.0),  # shape
        (np.ones(3, np.float32), 2.0),  # dtype
        (np.ones(3), 2),  # weak int instead of weak float
        (np.ones(3), np.float64(2.0)),  # a strongly typed scalar instead of a weak one
        ((np.ones(3),), 2.0),  # the pytree structure (x: a tuple)
    ]:
        n = len(calls)
        jg(*args)
        assert len(calls) == n + 1, args
    n = len(calls)
    jg(np.ones(3), 2.0)
    jg(np.ones(4), 2.0)
    assert len(calls) == n  # every signature seen is still cached
    jg.clear_cache()
    jg(np.ones(3), 2.0)
    assert len(calls) == n + 1


def test_trace_counts_static_values_and_derivatives():
    g, calls = counting(lambda x, k: tnp.sum(x ** k))
    jg = tg.jit(g, static_argnums=1)
    jg(X, 2)
    jg(X + 1.0, 2)
    assert len(calls) == 1
    jg(X, 3)  # a new static value
    assert len(calls) == 2
    # under a transform the call primitive's derived programs are cached too
    grad_jg = tg.grad(jg)
    grad_jg(X, 2)
    n = len(calls)
    grad_jg(X - 1.0, 2)
    tg.grad(jg)(X * 2.0, 2)
    assert len(calls) == n


@pytest.mark.parametrize("label, transform", [
    ("grad", lambda jf: tg.grad(jf)),
    ("vmap", lambda jf: lambda x, y: tg.vmap(jf, in_axes=(0, None))(tnp.stack([x, x]), y)),
    ("jacfwd", lambda jf: tg.jacfwd(jf)),
    ("hessian", lambda jf: tg.hessian(jf)),
    ("vmap(grad)", lambda jf: lambda x, y: tg.vmap(tg.grad(jf), in_axes=(0, None))(
        tnp.stack([x, x]), y)),
])
def test_transforms_of_jit_trace_once_per_signature(label, transform):
    """The programs jit derives under a transform (JVP, VJP, batched) are
    traced once, then reused by later calls with the same signature."""
    g, calls = counting(f)
    t = transform(tg.jit(g))
    first = t(X, Y)
    n = len(calls)
    again = t(X * 0.5, Y)
    assert len(calls) == n, f"{label}(jit(f)) traced again for the same signature"
    close(first, transform(f)(X, Y))
    close(again, transform(f)(X * 0.5, Y))


def test_lower_as_text_holds_the_equations():
    lowered = tg.jit(f).lower(X, Y)
    text = lowered.as_text()
    for prim in ("tanh", "exp", "div", "mul", "reduce_max", "sin", "pow", "reduce_sum"):
        assert f" {prim}" in text, (prim, text)
    assert text.startswith("{ lambda") and "f64[4]" in text


# --------------------------------------------------------------------------
# IR printing (golden)


def test_golden_float32_program_with_a_weak_scalar():
    def g(x, y):
        return tnp.maximum(x * 2.0, y)

    args = np.ones((2, 3), np.float32), np.ones(3, np.float32)
    golden = (
        "{ lambda ; a:f32[2,3] b:f32[3]. let\n"
        "    c:f32[2,3] = mul a 2.0\n"
        "    d:f32[2,3] = maximum c b\n"
        "  in (d,) }"
    )
    assert str(tg.make_jaxpr(g)(*args)) == golden
    lowered = tg.jit(g).lower(*args).as_text()
    for line in golden.splitlines()[1:3]:  # jit's program holds the same equations
        assert line.strip() in lowered, (line, lowered)


def test_golden_nested_jit_is_one_call_equation():
    inner = tg.jit(lambda x: tnp.exp(x))
    text = str(tg.make_jaxpr(lambda x: inner(x) + 1.0)(np.ones(2)))
    lines = text.splitlines()
    assert lines[0] == "{ lambda ; a:f64[2]. let"
    assert lines[1].startswith("    b:f64[2] = jit_call[fun=jit(") and lines[1].endswith(")] a")
    assert lines[2:] == ["    c:f64[2] = add b 1.0", "  in (c,) }"]


def test_golden_integer_and_reduction_program():
    def g(i, x):
        return tnp.sum(x, axis=1) * i

    assert str(tg.make_jaxpr(g)(np.arange(2), np.ones((2, 3)))) == (
        "{ lambda ; a:i64[2] b:f64[2,3]. let\n"
        "    c:f64[2] = reduce_sum[axes=(1,)] b\n"
        "    d:f64[2] = mul c a\n"
        "  in (d,) }"
    )


# --------------------------------------------------------------------------
# errors


@pytest.mark.parametrize("body, cls", [
    ("if x > 0:\n        return x\n    return -x", TracerBoolConversionError),
    ("while x < 10.0:\n        x = x * 2.0\n    return x", TracerBoolConversionError),
    ("return x if x and True else 0.0", TracerBoolConversionError),
    ("return [1.0, 2.0][int(x)]", TracerIntegerConversionError),
    ("return list(range(x))", TracerIntegerConversionError),
    ("return np.asarray(x) * 2.0", TracerArrayConversionError),
    ("return float(x) * 2.0", ConcretizationTypeError),
])
def test_python_control_flow_on_a_traced_value(body, cls, tmp_path):
    src = f"import numpy as np\n\ndef user_fn(x):\n    {body}\n"
    path = tmp_path / "user_code.py"
    path.write_text(src)
    namespace = {}
    exec(compile(src, str(path), "exec"), namespace)  # noqa: S102 - the test's own source
    arg = 3 if "range" in body else np.float64(1.0)
    with pytest.raises(cls) as info:
        tg.jit(namespace["user_fn"])(arg)
    msg = str(info.value)
    assert isinstance(info.value, ConcretizationTypeError)
    assert f"{path}:4" in msg, msg  # the user's line
    for fix in ("static_argnums", "tracegrad.numpy.where", "tracegrad.lax.cond"):
        assert fix in msg, (fix, msg)
    assert type(current_trace()) is EvalTrace
    # and the fix works
    assert np.ndim(tg.jit(namespace["user_fn"], static_argnums=0)(arg)) in (0, 1)


def test_an_exception_inside_leaves_no_state_behind():
    state = {"fail": True}

    def g(x):
        y = tnp.sin(x)
        if state["fail"]:
            raise RuntimeError("user error while tracing")
        return y * 2.0

    counted, calls = counting(g)
    jg = tg.jit(counted)
    with pytest.raises(RuntimeError, match="user error"):
        jg(X)
    assert type(current_trace()) is EvalTrace
    state["fail"] = False
    close(jg(X), np.sin(X) * 2.0)  # the failed trace is not cached: it traces again
    assert len(calls) == 2
    close(tg.grad(lambda x: tnp.sum(jg(x)))(X), 2.0 * np.cos(X))
    # under a transform too
    state["fail"] = True
    with pytest.raises(RuntimeError):
        tg.grad(lambda x: tnp.sum(tg.jit(g)(x)))(X)
    assert type(current_trace()) is EvalTrace
    close(tg.grad(f)(X, Y), tg.jit(tg.grad(f))(X, Y))


def test_unhashable_static_arguments():
    jg = tg.jit(lambda x, opts: x * len(opts), static_argnums=1)
    with pytest.raises(TypeError, match="hashable"):
        jg(X, [1, 2])
    with pytest.raises(TypeError, match="hashable"):
        tg.jit(lambda x, *, opts: x, static_argnames="opts")(X, opts={"a": 1})
    close(jg(X, (1, 2)), X * 2)
    assert type(current_trace()) is EvalTrace


@pytest.mark.parametrize("leaf", ["text", object(), b"bytes", Ellipsis])
def test_non_array_leaves_are_errors_naming_the_fix(leaf):
    with pytest.raises(TypeError, match="static_argnums") as info:
        tg.jit(lambda x, a: x)(X, leaf)
    assert "leaf 1" in str(info.value)
    assert type(current_trace()) is EvalTrace
    close(tg.jit(lambda x, a: x, static_argnums=1)(X, leaf), X)  # static: fine


def test_none_and_static_like_leaves_are_fine():
    close(tg.jit(lambda x, n: x if n is None else x + n)(X, None), X)
    close(tg.jit(lambda d: d["a"] * 2.0)({"a": X, "b": None}), X * 2.0)


# --------------------------------------------------------------------------
# JAX where it defines the semantics


@pytest.mark.parametrize("args", [
    (np.ones(3, np.float32), 2.0),
    (np.ones(3, np.float32), 2),
    (np.arange(3), 2.0),
    (np.arange(3, dtype=np.int32), 2),
    (np.ones(3), np.float32(2.0)),
    (2.0, 3),
])
def test_result_dtypes_match_jax_jit(jax, args):
    for tg_fn, jax_fn in [(lambda a, b: a * b + a, lambda a, b: a * b + a),
                          (lambda a, b: tnp.maximum(a, b), lambda a, b: jax.numpy.maximum(a, b))]:
        got = tg.jit(tg_fn)(*args)
        want = jax.jit(jax_fn)(*args)
        assert np.asarray(got).dtype == np.asarray(want).dtype, (args, got, want)
        np.testing.assert_allclose(np.asarray(got), np.asarray(want))


def test_grad_dtypes_match_jax_jit(jax):
    x32 = np.linspace(-1.0, 1.0, 5).astype(np.float32)
    got = tg.jit(tg.grad(lambda x, s: tnp.sum(tnp.sin(x) * s)))(x32, 2.0)
    want = jax.jit(jax.grad(lambda x, s: jax.numpy.sum(jax.numpy.sin(x) * s)))(x32, 2.0)
    assert got.dtype == want.dtype == np.float32
    np.testing.assert_allclose(got, np.asarray(want), rtol=1e-6)


def test_argument_errors_like_jax(jax):
    """Both reject an unhashable static argument and a non-array leaf with
    TypeError (JAX: ValueError for an unhashable static; tracegrad says
    TypeError, the type JAX documents for bad argument types)."""
    with pytest.raises((TypeError, ValueError)):
        jax.jit(lambda x, o: x, static_argnums=1)(np.ones(2), [1])
    with pytest.raises(TypeError):
        tg.jit(lambda x, o: x, static_argnums=1)(np.ones(2), [1])
    with pytest.raises(TypeError):
        jax.jit(lambda x, s: x)(np.ones(2), "text")
    with pytest.raises(TypeError):
        tg.jit(lambda x, s: x)(np.ones(2), "text")


def test_a_non_array_output_leaf_is_an_error():
    with pytest.raises(TypeError):
        tg.jit(lambda x: (x, "s"))(X)
