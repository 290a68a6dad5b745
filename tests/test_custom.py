"""User-defined derivative rules: ``tg.custom_jvp``, ``tg.custom_vjp``, and ``tg.hvp``.

The semantics are JAX's (``jax.custom_jvp`` / ``jax.custom_vjp``): most
tests build the same function with both libraries and compare every
transform (JAX is an optional oracle, x64 enabled); the others pin closed
forms, the rule actually being used, pytrees, ``nondiff_argnums``, keyword
arguments, closures and the error messages.  The last section tests the
library functions that use custom rules (``linalg.norm``).
"""
import functools
import types

import numpy as np
import pytest

import tracegrad as tg
import tracegrad.numpy as tnp
from tracegrad.core import EvalTrace, current_trace
from tracegrad.test_util import check_grads

X = np.array([0.3, 1.2, -0.7])
Y = np.array([1.5, -0.4, 2.0])
XS = np.array([[0.3, 1.2, -0.7], [0.9, -1.1, 0.2]])
YS = np.array([[1.5, -0.4, 2.0], [0.5, 0.8, -1.3]])


def _lib_tg():
    return types.SimpleNamespace(
        custom_jvp=tg.custom_jvp, custom_vjp=tg.custom_vjp, np=tnp, jvp=tg.jvp, vjp=tg.vjp,
        grad=tg.grad, jacfwd=tg.jacfwd, jacrev=tg.jacrev, hessian=tg.hessian, vmap=tg.vmap,
    )


@pytest.fixture(scope="module")
def jax_lib():
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    import jax.numpy as jnp

    return types.SimpleNamespace(
        custom_jvp=jax.custom_jvp, custom_vjp=jax.custom_vjp, np=jnp, jvp=jax.jvp,
        vjp=jax.vjp, grad=jax.grad, jacfwd=jax.jacfwd, jacrev=jax.jacrev,
        hessian=jax.hessian, vmap=jax.vmap, jax=jax,
    )


def assert_tree_close(a, b, rtol=1e-12, atol=1e-14):
    la, ta = tg.tree_util.tree_flatten(a)
    lb, tb = tg.tree_util.tree_flatten(b)
    assert ta == tb, f"structures differ: {ta} vs {tb}"
    for u, v in zip(la, lb):
        assert np.shape(u) == np.shape(v), (np.shape(u), np.shape(v))
        np.testing.assert_allclose(np.asarray(u), np.asarray(v), rtol=rtol, atol=atol)


def to_numpy(tree):
    """A JAX result as nested NumPy arrays (tuples/lists/dicts kept)."""
    return tg.tree_util.tree_map(np.asarray, tree)


# --------------------------------------------------------------------------
# the same functions, built with either library


def sin_mul_jvp(L):
    """JAX's documented example: ``f(x, y) = sin(x) * y`` with its JVP rule."""

    @L.custom_jvp
    def f(x, y):
        return L.np.sin(x) * y

    @f.defjvp
    def f_jvp(primals, tangents):
        x, y = primals
        x_dot, y_dot = tangents
        return f(x, y), L.np.cos(x) * x_dot * y + L.np.sin(x) * y_dot

    return f


def sin_mul_vjp(L):
    """The same function with a VJP rule (residuals ``cos(x), sin(x), y``)."""

    @L.custom_vjp
    def f(x, y):
        return L.np.sin(x) * y

    def f_fwd(x, y):
        return f(x, y), (L.np.cos(x), L.np.sin(x), y)

    def f_bwd(res, g):
        cos_x, sin_x, y = res
        return (cos_x * g * y, sin_x * g)

    f.defvjp(f_fwd, f_bwd)
    return f


def twice_sin_jvp(L):
    """``sin`` with a deliberately different rule, ``f' = 2 f``: every order
    of derivative uses it (the rule calls ``f``, whose derivative is the rule
    again), so the n-th derivative is ``2**n sin``."""

    @L.custom_jvp
    def f(x):
        return L.np.sin(x)

    @f.defjvp
    def f_jvp(primals, tangents):
        (x,), (t,) = primals, tangents
        y = f(x)
        return y, 2.0 * y * t

    return f


def twice_cos_vjp(L):
    """``sin`` whose VJP says ``2 cos``; a nested gradient differentiates
    ``fwd`` (the residual ``cos x``) and ``bwd``: ``-2 sin``."""

    @L.custom_vjp
    def f(x):
        return L.np.sin(x)

    f.defvjp(lambda x: (f(x), L.np.cos(x)), lambda c, g: (2.0 * c * g,))
    return f


def _scalar(L, f):
    return lambda x, y: L.np.sum(f(x, y) ** 2)


# Each transform, written for either library: name -> fn(L, f) -> result.
# ``f`` is a function of two (3,) float arrays returning a (3,) array.
TRANSFORMS = {
    "eval": lambda L, f: f(X, Y),
    "jvp": lambda L, f: L.jvp(f, (X, Y), (np.ones(3), np.array([0.5, -1.0, 2.0]))),
    "grad": lambda L, f: L.grad(_scalar(L, f), argnums=(0, 1))(X, Y),
    "vjp": lambda L, f: L.vjp(f, X, Y)[1](np.array([1.0, -2.0, 0.5])),
    "jacfwd": lambda L, f: L.jacfwd(f, argnums=(0, 1))(X, Y),
    "jacrev": lambda L, f: L.jacrev(f, argnums=(0, 1))(X, Y),
    "hessian": lambda L, f: L.hessian(_scalar(L, f), argnums=(0, 1))(X, Y),
    "vmap": lambda L, f: L.vmap(f)(XS, YS),
    "vmap_in_axes": lambda L, f: L.vmap(f, in_axes=(1, None))(XS.T, Y),
    "vmap_grad": lambda L, f: L.vmap(L.grad(_scalar(L, f), argnums=(0, 1)))(XS, YS),
    "grad_vmap": lambda L, f: L.grad(
        lambda xs, y: L.np.sum(L.vmap(f, (0, None))(xs, y) ** 2), argnums=(0, 1))(XS, Y),
    "vmap_jvp": lambda L, f: L.vmap(lambda x, t: L.jvp(f, (x, Y), (t, Y)))(XS, YS),
    "grad_grad": lambda L, f: L.grad(
        lambda x: L.np.sum(L.grad(_scalar(L, f))(x, Y) ** 2))(X),
    "jacrev_jacrev": lambda L, f: L.jacrev(L.jacrev(lambda x: f(x, Y)))(X),
}
FORWARD = {"jvp", "jacfwd", "hessian", "vmap_jvp"}


@pytest.mark.parametrize("name", sorted(TRANSFORMS))
def test_custom_jvp_matches_jax(name, jax_lib):
    got = TRANSFORMS[name](_lib_tg(), sin_mul_jvp(_lib_tg()))
    want = TRANSFORMS[name](jax_lib, sin_mul_jvp(jax_lib))
    assert_tree_close(got, to_numpy(want))


@pytest.mark.parametrize("name", sorted(set(TRANSFORMS) - FORWARD))
def test_custom_vjp_matches_jax(name, jax_lib):
    got = TRANSFORMS[name](_lib_tg(), sin_mul_vjp(_lib_tg()))
    want = TRANSFORMS[name](jax_lib, sin_mul_vjp(jax_lib))
    assert_tree_close(got, to_numpy(want))


@pytest.mark.parametrize("build", [sin_mul_jvp, sin_mul_vjp], ids=["custom_jvp", "custom_vjp"])
def test_correct_rules_agree_with_plain_differentiation(build):
    f = build(_lib_tg())

    def plain(x, y):
        return tnp.sin(x) * y

    for name in sorted(TRANSFORMS):
        if build is sin_mul_vjp and name in FORWARD:
            continue
        assert_tree_close(TRANSFORMS[name](_lib_tg(), f), TRANSFORMS[name](_lib_tg(), plain))
    modes = ("fwd", "rev") if build is sin_mul_jvp else ("rev",)
    check_grads(f, (X, Y), order=2, modes=modes)


# --------------------------------------------------------------------------
# the rule is what is used, at every order


def test_custom_jvp_rule_is_used_by_every_transform():
    f = twice_sin_jvp(_lib_tg())
    s = np.sin(X)
    np.testing.assert_allclose(f(X), s, rtol=1e-15)
    np.testing.assert_allclose(tg.jvp(f, (X,), (np.ones(3),))[1], 2 * s, rtol=1e-15)
    np.testing.assert_allclose(tg.grad(lambda x: tnp.sum(f(x)))(X), 2 * s, rtol=1e-15)
    np.testing.assert_allclose(tg.vjp(f, X)[1](Y)[0], 2 * s * Y, rtol=1e-15)
    np.testing.assert_allclose(tg.jacfwd(f)(X), np.diag(2 * s), rtol=1e-15)
    np.testing.assert_allclose(tg.jacrev(f)(X), np.diag(2 * s), rtol=1e-15)
    np.testing.assert_allclose(tg.vmap(tg.grad(f))(X), 2 * s, rtol=1e-15)
    np.testing.assert_allclose(tg.grad(lambda x: tnp.sum(tg.vmap(f)(x)))(X), 2 * s, rtol=1e-15)
    # second and third order: the rule is differentiated, and calls f, whose
    # derivative is the rule again
    np.testing.assert_allclose(tg.hessian(lambda x: tnp.sum(f(x)))(X), np.diag(4 * s), rtol=1e-14)
    np.testing.assert_allclose(tg.grad(tg.grad(f))(0.3), 4 * np.sin(0.3), rtol=1e-14)
    np.testing.assert_allclose(tg.grad(tg.grad(tg.grad(f)))(0.3), 8 * np.sin(0.3), rtol=1e-14)
    fwd2 = tg.jvp(lambda x: tg.jvp(f, (x,), (1.0,))[1], (0.3,), (1.0,))[1]
    np.testing.assert_allclose(fwd2, 4 * np.sin(0.3), rtol=1e-14)
    np.testing.assert_allclose(tg.jacfwd(tg.jacfwd(f))(X), np.diag(4 * s)[:, :, None] * np.eye(3),
                               rtol=1e-14)


def test_custom_jvp_rule_used_at_every_order_matches_jax(jax_lib):
    for L in (_lib_tg(), jax_lib):
        f = twice_sin_jvp(L)
        g3 = L.grad(L.grad(L.grad(f)))(0.3)
        h = L.hessian(lambda x: L.np.sum(f(x) ** 2))(X)
        if L is jax_lib:
            assert_tree_close((got_g3, got_h), (float(g3), np.asarray(h)))
        else:
            got_g3, got_h = g3, h


def test_custom_vjp_rule_is_used_and_nested_grad_goes_through_fwd_and_bwd(jax_lib):
    f = twice_cos_vjp(_lib_tg())
    np.testing.assert_allclose(tg.grad(lambda x: tnp.sum(f(x)))(X), 2 * np.cos(X), rtol=1e-15)
    np.testing.assert_allclose(tg.jacrev(f)(X), np.diag(2 * np.cos(X)), rtol=1e-15)
    np.testing.assert_allclose(tg.vmap(tg.grad(f))(X), 2 * np.cos(X), rtol=1e-15)
    np.testing.assert_allclose(tg.grad(tg.grad(f))(0.3), -2 * np.sin(0.3), rtol=1e-15)
    np.testing.assert_allclose(tg.jacrev(tg.jacrev(f))(X), np.diag(-2 * np.sin(X))[:, :, None]
                               * np.eye(3), rtol=1e-15)
    fj = twice_cos_vjp(jax_lib)
    np.testing.assert_allclose(tg.grad(tg.grad(f))(0.3), jax_lib.grad(jax_lib.grad(fj))(0.3),
                               rtol=1e-15)


def test_stable_log1pexp_from_jax_docs():
    # JAX's motivating example: autodiff of log(1 + exp(x)) is nan at large x
    # (inf / inf); a rule with 1 - 1 / (1 + exp(x)) stays at 1
    @tg.custom_jvp
    def log1pexp(x):
        return tnp.log1p(tnp.exp(x))

    @log1pexp.defjvp
    def log1pexp_jvp(primals, tangents):
        (x,), (t,) = primals, tangents
        return log1pexp(x), (1.0 - 1.0 / (1.0 + tnp.exp(x))) * t

    with np.errstate(over="ignore", invalid="ignore"):
        assert np.isnan(tg.grad(lambda x: tnp.log1p(tnp.exp(x)))(1000.0))
        assert tg.grad(log1pexp)(1000.0) == 1.0
        assert tg.jvp(log1pexp, (1000.0,), (1.0,))[1] == 1.0
        np.testing.assert_array_equal(tg.vmap(tg.grad(log1pexp))(np.array([0.0, 1000.0])),
                                      [0.5, 1.0])
    check_grads(log1pexp, (np.array([-2.0, 0.5, 3.0]),), order=2, modes=("fwd", "rev"))


# --------------------------------------------------------------------------
# nondiff_argnums, pytrees, keywords


def test_nondiff_argnums_function_argument(jax_lib):
    def build(L):
        # JAX's documented example: a function-valued argument
        @functools.partial(L.custom_jvp, nondiff_argnums=(0,))
        def app(f, x):
            return f(x)

        @app.defjvp
        def app_jvp(f, primals, tangents):
            (x,), (x_dot,) = primals, tangents
            return app(f, x), 2.0 * x_dot

        return app

    for L in (_lib_tg(), jax_lib):
        app = build(L)
        res = (
            app(L.np.sin, X),
            L.grad(lambda x: app(L.np.sin, x))(0.3),
            L.vmap(L.grad(lambda x: app(L.np.sin, x)))(X),
            L.hessian(lambda x: L.np.sum(app(L.np.sin, x) ** 2))(X),
            L.jacrev(lambda x: app(L.np.sin, x))(X),
        )
        if L is jax_lib:
            assert_tree_close(got, to_numpy(res))
        else:
            got = res
    np.testing.assert_allclose(got[1], 2.0)
    np.testing.assert_allclose(got[3], 8 * np.eye(3))


def test_nondiff_argnums_static_int_in_the_middle():
    @functools.partial(tg.custom_jvp, nondiff_argnums=(1,))
    def scaled_pow(x, n, c):
        return c * x ** n

    @scaled_pow.defjvp
    def scaled_pow_jvp(n, primals, tangents):
        assert isinstance(n, int)  # static: usable for Python control flow
        (x, c), (x_dot, c_dot) = primals, tangents
        d = 0.0 if n == 0 else n * x ** (n - 1)
        return scaled_pow(x, n, c), c * d * x_dot + x ** n * c_dot

    np.testing.assert_allclose(scaled_pow(2.0, 3, 1.5), 12.0)
    np.testing.assert_allclose(tg.grad(scaled_pow, (0, 2))(2.0, 3, 1.5), (18.0, 8.0))
    np.testing.assert_allclose(tg.hessian(scaled_pow)(2.0, 3, 1.5), 18.0)
    np.testing.assert_allclose(tg.vmap(lambda x: tg.grad(scaled_pow)(x, 2, 1.0))(X), 2 * X)
    assert tg.grad(scaled_pow)(2.0, 0, 1.5) == 0.0


def test_custom_vjp_nondiff_argnums_clip_gradient(jax_lib):
    def build(L):
        # JAX's documented example: clip the gradient, not the value
        @functools.partial(L.custom_vjp, nondiff_argnums=(0, 1))
        def clip_gradient(lo, hi, x):
            return x

        def fwd(lo, hi, x):
            return x, None

        def bwd(lo, hi, _, g):
            return (L.np.clip(g, lo, hi),)

        clip_gradient.defvjp(fwd, bwd)
        return clip_gradient

    for L in (_lib_tg(), jax_lib):
        clip = build(L)
        f = lambda x: L.np.sum(clip(-0.75, 0.75, L.np.sin(x) * 3.0))  # noqa: E731
        res = (L.grad(f)(X), L.vmap(L.grad(lambda x: clip(-0.5, 0.5, 2.0 * x)))(X),
               L.grad(lambda x: L.np.sum(L.vmap(lambda v: clip(-1.0, 1.0, 4.0 * v))(x)))(X))
        if L is jax_lib:
            assert_tree_close(got, to_numpy(res))
        else:
            got = res
    # the cotangent 1 of the sum is clipped to 0.75, then goes through 3 sin(x)
    np.testing.assert_allclose(got[0], 0.75 * 3 * np.cos(X), rtol=1e-15)
    np.testing.assert_allclose(got[1], np.full(3, 1.0))
    np.testing.assert_allclose(got[2], np.full(3, 4.0))


def tree_fun_jvp(L):
    """Pytree in, pytree out (dicts, tuples, a 0-d leaf)."""

    @L.custom_jvp
    def f(d, scale):
        a, (b, c) = d["a"], d["bc"]
        return {"s": L.np.sin(a) * scale, "p": (a * b, c ** 2)}

    @f.defjvp
    def f_jvp(primals, tangents):
        (d, scale), (dd, ds) = primals, tangents
        a, (b, c) = d["a"], d["bc"]
        da, (db, dc) = dd["a"], dd["bc"]
        out = f(d, scale)
        return out, {"s": L.np.cos(a) * da * scale + L.np.sin(a) * ds,
                     "p": (da * b + a * db, 2.0 * c * dc)}

    return f


def tree_fun_vjp(L):
    @L.custom_vjp
    def f(d, scale):
        a, (b, c) = d["a"], d["bc"]
        return {"s": L.np.sin(a) * scale, "p": (a * b, c ** 2)}

    def fwd(d, scale):
        return f(d, scale), {"d": d, "scale": scale}

    def bwd(res, g):
        d, scale = res["d"], res["scale"]
        a, (b, c) = d["a"], d["bc"]
        gs, (gp0, gp1) = g["s"], g["p"]
        da = L.np.cos(a) * scale * gs + b * gp0
        return {"a": da, "bc": (a * gp0, 2.0 * c * gp1)}, L.np.sum(L.np.sin(a) * gs)

    f.defvjp(fwd, bwd)
    return f


TREE_ARGS = ({"a": np.array([0.1, -0.7]), "bc": (np.array([1.0, 2.0]), np.array(3.0))},
             np.array(1.5))
TREE_TANGENTS = ({"a": np.array([1.0, 0.5]), "bc": (np.array([-1.0, 2.0]), np.array(0.25))},
                 np.array(-2.0))


@pytest.mark.parametrize("build", [tree_fun_jvp, tree_fun_vjp], ids=["custom_jvp", "custom_vjp"])
def test_pytree_inputs_and_outputs_match_jax(build, jax_lib):
    def run(L):
        f = build(L)

        def scalar(d, s):
            out = f(d, s)
            return L.np.sum(out["s"] ** 2) + L.np.sum(out["p"][0]) + out["p"][1]

        res = [f(*TREE_ARGS), L.grad(scalar, (0, 1))(*TREE_ARGS),
               L.jacrev(f, (0, 1))(*TREE_ARGS),
               L.vjp(f, *TREE_ARGS)[1](f(*TREE_ARGS)),
               L.vmap(f, ({"a": 0, "bc": (0, None)}, None))(
                   {"a": np.stack([TREE_ARGS[0]["a"]] * 2) * [[1.0], [2.0]],
                    "bc": (np.stack([TREE_ARGS[0]["bc"][0]] * 2), TREE_ARGS[0]["bc"][1])},
                   TREE_ARGS[1])]
        if build is tree_fun_jvp:
            res.append(L.jvp(f, TREE_ARGS, TREE_TANGENTS))
        return res

    got, want = run(_lib_tg()), run(jax_lib)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert_tree_close(g, to_numpy(w))
    if build is tree_fun_jvp:  # (JAX's eager jacfwd/hessian are slow: compared with tg's own)
        f = build(_lib_tg())
        assert_tree_close(tg.jacfwd(f, (0, 1))(*TREE_ARGS), got[2])

        def plain(d, s):
            a, (b, c) = d["a"], d["bc"]
            return tnp.sum((tnp.sin(a) * s) ** 2) + tnp.sum(a * b) + c ** 2

        def scalar(d, s):
            out = f(d, s)
            return tnp.sum(out["s"] ** 2) + tnp.sum(out["p"][0]) + out["p"][1]

        assert_tree_close(tg.hessian(scalar, (0, 1))(*TREE_ARGS),
                          tg.hessian(plain, (0, 1))(*TREE_ARGS))


def test_keyword_arguments_and_defaults(jax_lib):
    def build(L):
        @L.custom_jvp
        def f(x, y=2.0):
            return x * y

        @f.defjvp
        def f_jvp(primals, tangents):
            assert len(primals) == 2  # keywords and defaults are bound to positions
            (x, y), (x_dot, y_dot) = primals, tangents
            return f(x, y), 10.0 * (x_dot * y + x * y_dot)

        return f

    for L in (_lib_tg(), jax_lib):
        f = build(L)
        res = (f(1.5), f(1.5, y=3.0), f(y=3.0, x=1.5),
               L.grad(lambda x: f(x, y=3.0))(1.5), L.grad(lambda x: f(x))(1.5),
               L.grad(lambda y: f(1.5, y=y))(3.0), L.jvp(lambda x: f(x=x), (1.5,), (1.0,)))
        if L is jax_lib:
            assert_tree_close(got, to_numpy(res))
        else:
            got = res
    assert got[3] == 30.0 and got[4] == 20.0 and got[5] == 15.0


def test_keyword_only_arguments_are_rejected():
    @tg.custom_jvp
    def f(x, *, y):
        return x * y

    f.defjvp(lambda p, t: (f(*p), t[0]))
    with pytest.raises(TypeError, match="keyword-only"):
        f(1.0, y=2.0)
    with pytest.raises(TypeError, match="custom_jvp"):
        f(1.0, 2.0, 3.0)


def test_integer_arguments_and_float32():
    @tg.custom_jvp
    def f(x, k):
        return x * k

    @f.defjvp
    def f_jvp(primals, tangents):
        (x, k), (x_dot, _) = primals, tangents
        return f(x, k), x_dot * k

    assert tg.grad(lambda x: tnp.sum(f(x, np.array([1, 2, 3]))))(X).tolist() == [1, 2, 3]
    x32 = X.astype(np.float32)
    g = tg.grad(lambda x: tnp.sum(twice_sin_jvp(_lib_tg())(x)))(x32)
    assert g.dtype == np.float32
    np.testing.assert_allclose(g, 2 * np.sin(x32), rtol=1e-6)
    check_grads(sin_mul_jvp(_lib_tg()), (x32, Y.astype(np.float32)), order=2,
                modes=("fwd", "rev"), atol=5e-2, rtol=5e-2, eps=1e-2)


def test_vjp_function_reused_with_different_cotangents():
    # one rule computes every argument's cotangent; reusing the vjp function
    # (and a second independent graph in between) must not mix results up
    for build in (sin_mul_jvp, sin_mul_vjp):
        f = build(_lib_tg())
        _, pull = tg.vjp(f, X, Y)
        _, pull2 = tg.vjp(f, Y, X)
        for ct in (np.ones(3), np.array([2.0, -1.0, 0.5])):
            gx, gy = pull(ct)
            pull2(ct)
            np.testing.assert_allclose(gx, np.cos(X) * Y * ct, rtol=1e-15)
            np.testing.assert_allclose(gy, np.sin(X) * ct, rtol=1e-15)


# --------------------------------------------------------------------------
# custom_vjp specifics


def test_custom_vjp_residual_pytrees_with_non_array_leaves():
    calls = {"fwd": 0, "bwd": 0}

    @tg.custom_vjp
    def f(x, y):
        return tnp.sin(x) * y

    def fwd(x, y):
        calls["fwd"] += 1
        res = {"trig": (tnp.cos(x), tnp.sin(x)), "y": y, "n": 3, "tag": "sin-mul",
               "none": None, "flags": [True, 2.5], "const": np.arange(3.0)}
        return f(x, y), res

    def bwd(res, g):
        calls["bwd"] += 1
        # non-array leaves come back as they were, also under vmap
        assert res["n"] == 3 and res["tag"] == "sin-mul" and res["none"] is None
        assert res["flags"] == [True, 2.5]
        cos_x, sin_x = res["trig"]
        return (cos_x * g * res["y"], sin_x * g + 0.0 * res["const"][0])

    f.defvjp(fwd, bwd)
    gx, gy = tg.grad(lambda x, y: tnp.sum(f(x, y)), (0, 1))(X, Y)
    assert calls == {"fwd": 1, "bwd": 1}  # residuals of the forward pass are reused
    np.testing.assert_allclose(gx, np.cos(X) * Y, rtol=1e-15)
    np.testing.assert_allclose(gy, np.sin(X), rtol=1e-15)
    np.testing.assert_allclose(tg.vmap(tg.grad(f, (0, 1)))(X, Y), (np.cos(X) * Y, np.sin(X)),
                               rtol=1e-15)
    # an argument that is the same for every example gets the summed cotangent
    g = tg.grad(lambda y: tnp.sum(tg.vmap(f, (0, None))(XS, y)))(Y)
    np.testing.assert_allclose(g, np.sin(XS).sum(0), rtol=1e-14)
    np.testing.assert_allclose(tg.grad(tg.grad(f))(0.3, 2.0), -2 * np.sin(0.3), rtol=1e-15)
    np.testing.assert_allclose(tg.vmap(tg.vmap(tg.grad(f)))(XS, YS), np.cos(XS) * YS,
                               rtol=1e-15)


def test_custom_vjp_bwd_may_return_none_for_an_input():
    @tg.custom_vjp
    def f(x, pair):
        return x * pair[0] + pair[1]

    f.defvjp(lambda x, pair: (f(x, pair), pair[0]), lambda p0, g: (None, (g * 5.0, None)))
    gx, (ga, gb) = tg.grad(lambda x, pair: tnp.sum(f(x, pair)), (0, 1))(X, (Y, Y))
    np.testing.assert_array_equal(gx, np.zeros(3))
    np.testing.assert_array_equal(ga, np.full(3, 5.0))
    np.testing.assert_array_equal(gb, np.zeros(3))
    np.testing.assert_array_equal(tg.vmap(tg.grad(lambda x: f(x, (2.0, 1.0))))(X), np.zeros(3))


def test_custom_vjp_fwd_calling_the_function_itself_does_not_recurse():
    # the JAX idiom ``return f(x), res`` inside fwd evaluates the plain function
    calls = {"fun": 0}

    @tg.custom_vjp
    def f(x):
        calls["fun"] += 1
        return tnp.exp(x)

    f.defvjp(lambda x: (f(x), f(x)), lambda e, g: (e * g,))
    np.testing.assert_allclose(tg.grad(f)(0.5), np.exp(0.5), rtol=1e-15)
    np.testing.assert_allclose(f(0.5), np.exp(0.5), rtol=1e-15)
    np.testing.assert_allclose(tg.grad(tg.grad(f))(0.5), np.exp(0.5), rtol=1e-15)
    np.testing.assert_allclose(tg.vmap(tg.grad(f))(X), np.exp(X), rtol=1e-15)
    assert calls["fun"] > 0


@pytest.mark.parametrize("transform", [
    lambda f: tg.jvp(f, (X, Y), (X, Y)),
    lambda f: tg.jacfwd(f)(X, Y),
    lambda f: tg.hessian(lambda x: tnp.sum(f(x, Y)))(X),
    lambda f: tg.vmap(lambda x, t: tg.jvp(lambda v: f(v, Y), (x,), (t,)))(XS, YS),
], ids=["jvp", "jacfwd", "hessian", "vmap_jvp"])
def test_custom_vjp_under_forward_mode_raises(transform):
    f = sin_mul_vjp(_lib_tg())
    with pytest.raises(TypeError, match=r"can't apply forward-mode autodiff \(jvp\) to a "
                                        r"custom_vjp function f.*tg.custom_jvp"):
        transform(f)
    assert type(current_trace()) is EvalTrace
    assert tg.grad(lambda x: tnp.sum(f(x, Y)))(X).shape == (3,)  # still usable


def test_custom_vjp_under_forward_mode_raises_in_jax_too(jax_lib):
    f = sin_mul_vjp(jax_lib)
    for transform in (lambda: jax_lib.jvp(f, (X, Y), (X, Y)),
                      lambda: jax_lib.hessian(lambda x: jax_lib.np.sum(f(x, Y)))(X)):
        with pytest.raises(TypeError, match=r"can't apply forward-mode autodiff \(jvp\)"):
            transform()


# --------------------------------------------------------------------------
# errors


def test_call_before_the_rule_is_defined():
    @tg.custom_jvp
    def f(x):
        return x

    @tg.custom_vjp
    def g(x):
        return x

    with pytest.raises(AttributeError, match="No JVP defined for custom_jvp function f using defjvp"):
        f(1.0)
    with pytest.raises(AttributeError, match="No VJP defined for custom_vjp function g using defvjp"):
        g(1.0)


def test_custom_jvp_rule_output_errors():
    @tg.custom_jvp
    def f(x):
        return (x, 2.0 * x)

    f.defjvp(lambda p, t: ((p[0], 2.0 * p[0]), [t[0], 2.0 * t[0]]))
    for run in (lambda: tg.jvp(f, (X,), (X,)), lambda: tg.grad(lambda x: tnp.sum(f(x)[1]))(X)):
        with pytest.raises(TypeError, match=r"primal output of structure .* tangent output of "
                                            r"structure .* must match"):
            run()

    @tg.custom_jvp
    def g(x):
        return 2.0 * x

    g.defjvp(lambda p, t: (g(p[0]), tnp.sum(t[0])))  # a scalar tangent for a (3,) output
    for run in (lambda: tg.jvp(g, (X,), (X,)), lambda: tg.grad(lambda x: tnp.sum(g(x)))(X)):
        with pytest.raises(TypeError, match=r"tangent of shape \(\) for primal output 0 of "
                                            r"shape \(3,\)"):
            run()

    g.defjvp(lambda p, t: g(p[0]))
    with pytest.raises(TypeError, match="must return a pair"):
        tg.jvp(g, (X,), (X,))


def test_custom_vjp_fwd_and_bwd_output_errors():
    @tg.custom_vjp
    def f(x, y):
        return x * y

    f.defvjp(lambda x, y: x * y, lambda r, g: (g, g))
    with pytest.raises(TypeError, match="fwd of f must return a pair"):
        tg.grad(f)(1.0, 2.0)
    f.defvjp(lambda x, y: (x * y, None), lambda r, g: (g,))
    with pytest.raises(TypeError, match="returned 1 cotangents for 2 differentiable arguments"):
        tg.grad(f)(1.0, 2.0)
    f.defvjp(lambda x, y: (x * y, None), lambda r, g: g)
    with pytest.raises(TypeError, match="must return a tuple"):
        tg.grad(f)(1.0, 2.0)
    f.defvjp(lambda x, y: (x * y, None), lambda r, g: (tnp.sum(g), g))
    with pytest.raises(ValueError, match=r"cotangent of shape \(\) for argument 0 of shape \(3,\)"):
        tg.grad(lambda x: tnp.sum(f(x, Y)))(X)


# --------------------------------------------------------------------------
# closures over traced values


def closing_over(L, kind, w):
    if kind == "custom_jvp":
        @L.custom_jvp
        def f(h):
            return L.np.sin(w * h)

        @f.defjvp
        def f_jvp(primals, tangents):
            (h,), (t,) = primals, tangents
            return f(h), L.np.cos(w * h) * w * t
    else:
        @L.custom_vjp
        def f(h):
            return L.np.sin(w * h)

        f.defvjp(lambda h: (f(h), h), lambda h, g: (L.np.cos(w * h) * w * g,))
    return f


WS = np.array([0.7, 0.8, -1.1])


def _closure_runs(L, kind):
    def loss(w, x):
        return L.np.sum(closing_over(L, kind, w)(x))

    return (L.vmap(loss, (0, None))(WS, X),
            L.vmap(L.grad(loss, 1), (0, None))(WS, X),
            L.grad(lambda x: L.np.sum(L.vmap(loss, (0, None))(WS, x)))(X))


@pytest.mark.parametrize("kind", ["custom_jvp", "custom_vjp"])
def test_vmap_over_a_closed_over_value(kind):
    value, per_w_grads, grad_of_sum = _closure_runs(_lib_tg(), kind)
    np.testing.assert_allclose(value, np.sin(np.outer(WS, X)).sum(1), rtol=1e-15)
    want = WS[:, None] * np.cos(np.outer(WS, X))
    np.testing.assert_allclose(per_w_grads, want, rtol=1e-15)
    np.testing.assert_allclose(grad_of_sum, want.sum(0), rtol=1e-14)


def test_vmap_over_a_closed_over_value_matches_jax(jax_lib):
    assert_tree_close(_closure_runs(_lib_tg(), "custom_jvp"),
                      to_numpy(_closure_runs(jax_lib, "custom_jvp")))
    # (JAX batches a custom_vjp's closure in the forward pass only: its
    # gradients raise UnexpectedTracerError there)
    assert_tree_close(_closure_runs(_lib_tg(), "custom_vjp")[0],
                      np.asarray(_closure_runs(jax_lib, "custom_jvp")[0]))


@pytest.mark.parametrize("kind", ["custom_jvp", "custom_vjp"])
def test_differentiating_with_respect_to_a_closed_over_value_raises(kind):
    def loss(w, x):
        return tnp.sum(closing_over(_lib_tg(), kind, w)(x))

    with pytest.raises(TypeError, match=f"differentiation of a {kind} function .* with respect to "
                                        "a closed-over value"):
        tg.grad(loss)(0.7, X)
    if kind == "custom_jvp":
        with pytest.raises(TypeError, match="closed-over value"):
            tg.jvp(lambda w: loss(w, X), (0.7,), (1.0,))
    # a closed-over value that is not differentiated is fine
    np.testing.assert_allclose(tg.grad(loss, 1)(0.7, X), 0.7 * np.cos(0.7 * X), rtol=1e-15)


# --------------------------------------------------------------------------
# exceptions inside rules leave no interpreter state behind


def test_exception_in_a_custom_rule_leaves_no_state_behind():
    fail = {"jvp": True, "fwd": True, "bwd": True}

    @tg.custom_jvp
    def f(x):
        return tnp.sin(x)

    @f.defjvp
    def f_jvp(primals, tangents):
        if fail["jvp"]:
            raise RuntimeError("jvp rule failed")
        return f(primals[0]), tnp.cos(primals[0]) * tangents[0]

    @tg.custom_vjp
    def g(x):
        return tnp.sin(x)

    def g_fwd(x):
        if fail["fwd"]:
            raise RuntimeError("fwd failed")
        return g(x), tnp.cos(x)

    def g_bwd(c, ct):
        if fail["bwd"]:
            raise RuntimeError("bwd failed")
        return (c * ct,)

    g.defvjp(g_fwd, g_bwd)
    runs = [
        ("jvp", lambda: tg.jvp(f, (X,), (X,))),
        ("jvp", lambda: tg.grad(lambda x: tnp.sum(f(x)))(X)),
        ("jvp", lambda: tg.vmap(tg.grad(f))(X)),
        ("jvp", lambda: tg.hessian(lambda x: tnp.sum(f(x)))(X)),
        ("fwd", lambda: tg.grad(lambda x: tnp.sum(g(x)))(X)),
        ("bwd", lambda: tg.grad(lambda x: tnp.sum(g(x)))(X)),
        ("bwd", lambda: tg.vmap(tg.grad(g))(X)),
    ]
    for key, run in runs:
        with pytest.raises(RuntimeError, match="failed"):
            run()
        assert type(current_trace()) is EvalTrace and current_trace().level == 0
    # outside any transform the plain function runs (JAX's semantics): no fwd
    np.testing.assert_array_equal(g(X), np.sin(X))
    for key in fail:
        fail[key] = False
    for _, run in runs:
        run()
    np.testing.assert_allclose(tg.grad(lambda x: tnp.sum(g(x)))(X), np.cos(X), rtol=1e-15)
    np.testing.assert_allclose(tg.grad(tg.grad(f))(0.3), -np.sin(0.3), rtol=1e-15)


# --------------------------------------------------------------------------
# hvp


def _hvp_fun(L):
    return lambda x: L.np.sum(L.np.tanh(x) ** 2) + L.np.sum(x ** 3) * L.np.sum(L.np.sin(x))


def test_hvp_equals_hessian_times_vector(jax_lib):
    x = np.array([0.3, -1.2, 0.8, 2.0])
    v = np.array([1.0, 0.5, -2.0, 0.25])
    f = _hvp_fun(_lib_tg())
    got = tg.hvp(f, (x,), (v,))
    np.testing.assert_allclose(got, tg.hessian(f)(x) @ v, rtol=1e-12)
    fj = _hvp_fun(jax_lib)
    want = jax_lib.jvp(jax_lib.grad(fj), (x,), (v,))[1]
    np.testing.assert_allclose(got, np.asarray(want), rtol=1e-12)
    # per-example hvps under vmap
    vs = np.stack([v, 2 * v, -v])
    np.testing.assert_allclose(tg.vmap(lambda t: tg.hvp(f, (x,), (t,)))(vs),
                               vs @ tg.hessian(f)(x).T, rtol=1e-12)


def test_hvp_several_arguments_and_pytrees():
    def f(p, y):
        return tnp.sum(tnp.sin(p["a"]) * p["b"] ** 2) * tnp.sum(y ** 2)

    p = {"a": np.array([0.3, -0.4]), "b": np.array([1.5, 2.0])}
    t = {"a": np.array([1.0, 0.0]), "b": np.array([0.5, -1.0])}
    y, ty = np.array([0.2, 0.9, -1.0]), np.array([1.0, 1.0, 0.5])
    got = tg.hvp(f, (p, y), (t, ty))
    assert isinstance(got, tuple) and set(got[0]) == {"a", "b"} and got[1].shape == (3,)
    h = tg.hessian(f, (0, 1))(p, y)
    # rows of the Hessian blocks times the tangent, by hand
    flat = lambda q, z: np.concatenate([q["a"], q["b"], z])  # noqa: E731
    # (JAX's layout: h[0]["a"] = ({"a": d2f/da da, "b": d2f/da db}, d2f/da dy))
    blocks = [[h[0]["a"][0]["a"], h[0]["a"][0]["b"], h[0]["a"][1]],
              [h[0]["b"][0]["a"], h[0]["b"][0]["b"], h[0]["b"][1]],
              [h[1][0]["a"], h[1][0]["b"], h[1][1]]]
    full = np.block(blocks)
    want = full @ flat(t, ty)
    np.testing.assert_allclose(flat(*got), want, rtol=1e-12)
    single = tg.hvp(lambda q: f(q, y), (p,), (t,))
    assert set(single) == {"a", "b"}


def test_hvp_uses_custom_rules_and_checks_its_arguments():
    f = twice_sin_jvp(_lib_tg())
    # d2/dx2 sum(f(x)) = 4 sin x with the rule f' = 2 f
    np.testing.assert_allclose(tg.hvp(lambda x: tnp.sum(f(x)), (X,), (np.ones(3),)),
                               4 * np.sin(X), rtol=1e-14)
    with pytest.raises(TypeError, match="tuples"):
        tg.hvp(lambda x: tnp.sum(x), X, np.ones(3))
    with pytest.raises(TypeError, match="scalar"):
        tg.hvp(lambda x: x, (X,), (X,))


# --------------------------------------------------------------------------
# library functions that use custom rules: linalg.norm (2 / Frobenius)

LA = tnp.linalg


def _ulps(a, b):
    return np.abs(np.asarray(a, float) - np.asarray(b, float)) / np.spacing(np.abs(np.asarray(b)))


def test_norm_is_scaled_against_overflow_and_underflow():
    huge, tiny = np.array([3e200, 4e200]), np.array([3e-200, 4e-200])
    with np.errstate(over="ignore", under="ignore"):
        assert np.sqrt(np.sum(huge * huge)) == np.inf  # what scaling avoids
        assert np.sqrt(np.sum(tiny * tiny)) == 0.0
    assert _ulps(LA.norm(huge), 5e200) <= 1  # 5e200 to rounding (1 ulp below)
    assert LA.norm(tiny) == 5e-200
    assert LA.norm(np.array([3e-320, 4e-320])) == 5e-320  # subnormal
    assert LA.norm(np.array([1e308, 1e308])) == 1.4142135623730951e308
    assert LA.norm(np.zeros(3)) == 0.0
    for x in (huge, tiny, -huge[::-1]):
        # every 2-norm spelling: default, ord=2, axis, vector_norm, 'fro' of a matrix
        want = 5.0 * np.max(np.abs(x)) / 4.0
        for got in (LA.norm(x, 2), LA.norm(x, axis=0), LA.vector_norm(x),
                    LA.norm(np.diag(x), "fro"), LA.matrix_norm(np.diag(x)), LA.norm(np.diag(x))):
            assert _ulps(got, want) <= 1, (x, got)
    # float32 overflows at 1.8e19 when squaring
    x32 = np.array([3e30, 4e30], np.float32)
    assert LA.norm(x32).dtype == np.float32 and LA.norm(x32) == np.float32(5e30)
    assert LA.norm(np.array([3e-30, 4e-30], np.float32)) == np.float32(5e-30)
    # non-finite input as NumPy: inf wins, nan propagates
    assert LA.norm(np.array([np.inf, 1.0])) == np.inf
    assert np.isnan(LA.norm(np.array([np.nan, np.inf])))
    # empty: 0, as NumPy
    np.testing.assert_array_equal(LA.norm(np.zeros((0, 3)), axis=0), np.zeros(3))


def test_norm_gradient_is_scaled_and_zero_at_the_origin():
    huge, tiny = np.array([3e200, 4e200]), np.array([3e-200, 4e-200])
    # the formula differentiated naively: 0 (huge: x / inf) or nan (tiny: 0 / 0)
    with np.errstate(over="ignore", under="ignore", divide="ignore", invalid="ignore"):
        naive = lambda x: tnp.sqrt(tnp.sum(x * x))  # noqa: E731
        np.testing.assert_array_equal(tg.grad(naive)(huge), [0.0, 0.0])
        assert not np.all(np.isfinite(tg.grad(naive)(tiny)))
    for x in (huge, tiny, np.array([3e-320, 4e-320])):
        for g in (tg.grad(LA.norm)(x), tg.jvp(LA.norm, (x,), (np.eye(2)[0],))[1] * [1, 0]
                  + tg.jvp(LA.norm, (x,), (np.eye(2)[1],))[1] * [0, 1],
                  tg.jacfwd(LA.norm)(x), tg.jacrev(LA.norm)(x)):
            assert np.all(_ulps(g, [0.6, 0.8]) <= 1), (x, g)
    g32 = tg.grad(LA.norm)(np.array([3e30, 4e30], np.float32))
    assert g32.dtype == np.float32
    np.testing.assert_allclose(g32, [0.6, 0.8], rtol=1e-7)
    # at the origin: value 0, gradient 0 (a subgradient), every order 0
    z = np.zeros(3)
    np.testing.assert_array_equal(tg.grad(LA.norm)(z), z)
    assert tg.jvp(LA.norm, (z,), (np.ones(3),)) == (0.0, 0.0)
    np.testing.assert_array_equal(tg.hessian(LA.norm)(z), np.zeros((3, 3)))
    np.testing.assert_array_equal(tg.hessian(lambda v: LA.norm(v) ** 2)(z), np.zeros((3, 3)))
    np.testing.assert_array_equal(tg.jacfwd(tg.jacfwd(LA.norm))(z), np.zeros((3, 3)))
    np.testing.assert_array_equal(tg.grad(lambda m: LA.norm(m, "fro"))(np.zeros((2, 2))),
                                  np.zeros((2, 2)))


def test_norm_second_derivatives_and_check_grads():
    x = np.array([1.0, -2.0, 2.0])  # norm 3
    want = np.eye(3) / 3.0 - np.outer(x, x) / 27.0
    np.testing.assert_allclose(tg.hessian(LA.norm)(x), want, rtol=1e-14, atol=1e-16)
    np.testing.assert_allclose(tg.jacfwd(tg.jacfwd(LA.norm))(x), want, rtol=1e-14, atol=1e-16)
    np.testing.assert_allclose(tg.jacrev(tg.grad(LA.norm))(x), want, rtol=1e-14, atol=1e-16)
    # the same at a huge scale: the Hessian scales as 1 / |x|
    np.testing.assert_allclose(tg.hessian(LA.norm)(x * 1e200), want * 1e-200, rtol=1e-14)
    rng = np.random.default_rng(3)
    m = rng.standard_normal((3, 4))
    for f, args in [
        (LA.norm, (x,)),
        (lambda a: LA.norm(a, axis=1), (m,)),
        (lambda a: LA.norm(a, axis=0, keepdims=True), (m,)),
        (lambda a: LA.norm(a, "fro"), (m,)),
        (lambda a: LA.vector_norm(a, axis=(0, 1)), (m,)),
        (lambda a: LA.matrix_norm(a[None] * a[:, None]), (m,)),
        (lambda a: LA.norm(a) ** 2 * tnp.sum(a), (m,)),
    ]:
        check_grads(f, args, order=2, modes=("fwd", "rev"))
    check_grads(LA.norm, (m.astype(np.float32),), order=1, modes=("fwd", "rev"),
                atol=5e-2, rtol=5e-2, eps=1e-2)


def test_norm_under_vmap_and_grad():
    rows = np.array([[3e200, 4e200], [3e-200, 4e-200], [0.0, 0.0], [3.0, -4.0]])
    want_norms = np.array([5e200, 5e-200, 0.0, 5.0])
    want_grads = np.array([[0.6, 0.8], [0.6, 0.8], [0.0, 0.0], [0.6, -0.8]])
    for got in (tg.vmap(LA.norm)(rows), LA.norm(rows, axis=1), tg.vmap(LA.norm, 1)(rows.T)):
        assert np.all(_ulps(got[[0, 1, 3]], want_norms[[0, 1, 3]]) <= 1) and got[2] == 0.0
    for got in (tg.vmap(tg.grad(LA.norm))(rows),
                tg.grad(lambda r: tnp.sum(tg.vmap(LA.norm)(r)))(rows),
                tg.grad(lambda r: tnp.sum(LA.norm(r, axis=1)))(rows),
                tg.vmap(lambda r: tg.jvp(LA.norm, (r,), (np.array([1.0, 0.0]),))[1])(rows)):
        if got.ndim == 1:  # the jvp along e_0: the first gradient component
            got = np.stack([got, want_grads[:, 1]], axis=1)
        assert np.all(_ulps(got, want_grads) <= 1), got
    x = np.array([[1.0, -2.0, 2.0], [0.0, 0.0, 0.0]])
    hs = tg.vmap(tg.hessian(LA.norm))(x)
    np.testing.assert_allclose(hs[0], np.eye(3) / 3.0 - np.outer(x[0], x[0]) / 27.0, rtol=1e-14,
                               atol=1e-16)
    np.testing.assert_array_equal(hs[1], np.zeros((3, 3)))
    # per-example gradients of a loss with a norm penalty
    w = np.array([0.5, -1.0, 2.0])

    def loss(w, xi):
        return tnp.sum(w * xi) ** 2 + LA.norm(w * xi)

    per_example = tg.vmap(tg.grad(loss), (None, 0))(w, x)
    for xi, g in zip(x, per_example):
        np.testing.assert_allclose(g, tg.grad(loss)(w, xi), rtol=1e-15)


def test_defjvps_one_rule_per_argument():
    @tg.custom_jvp
    def f(x, y):
        return tnp.sin(x) * y

    f.defjvps(lambda x_dot, ans, x, y: tnp.cos(x) * x_dot * y,
              lambda y_dot, ans, x, y: tnp.sin(x) * y_dot)
    assert np.isclose(tg.grad(f)(2.0, 3.0), 3 * np.cos(2.0))
    assert np.isclose(tg.grad(f, 1)(2.0, 3.0), np.sin(2.0))
    _, t = tg.jvp(f, (2.0, 3.0), (1.0, 1.0))
    assert np.isclose(t, 3 * np.cos(2.0) + np.sin(2.0))


def test_checkpoint_keywords():
    g = tg.checkpoint(lambda x, n: tnp.sin(x) ** n, static_argnums=(1,))
    assert np.isclose(tg.grad(g)(0.5, 3), 3 * np.sin(0.5) ** 2 * np.cos(0.5))
    h = tg.checkpoint(lambda x: tnp.sin(x), prevent_cse=False)
    assert np.isclose(tg.grad(h)(0.5), np.cos(0.5))
    with pytest.raises(NotImplementedError, match="only policy=None"):
        tg.checkpoint(lambda x: x, policy=object())
