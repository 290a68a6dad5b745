"""Complex numbers through every transform, against JAX (x64) as the oracle.

Conventions (JAX's autodiff cookbook, "Complex numbers and differentiation"):
a VJP is the transpose of the JVP for the real bilinear pairing
``Re(sum(a * b))`` (no conjugation), so the VJP of a holomorphic ``f`` is
``ct * f'(z)`` and ``grad`` of a real-valued ``f(x + iy)`` is
``df/dx - i df/dy``.  Every check compares values with JAX run on the same
function at random complex points; the error cases compare exception types.
"""
import numpy as np
import pytest

import tracegrad as tg
import tracegrad.numpy as tnp
from tracegrad.test_util import check_grads

jax = pytest.importorskip("jax")
jax.config.update("jax_enable_x64", True)
jnp = jax.numpy

RTOL = 1e-9


def crand(rng, *shape):
    """Complex points off every principal branch cut: |Re|, |Im| in [0.2, 0.9]."""
    def part():
        mag = rng.uniform(0.2, 0.9, shape)
        return np.where(rng.random(shape) < 0.5, -mag, mag)

    return part() + 1j * part()


def close(a, b, rtol=RTOL, atol=1e-10):
    a, b = np.asarray(a), np.asarray(b)
    assert a.shape == b.shape, (a.shape, b.shape)
    assert a.dtype.kind == b.dtype.kind, (a.dtype, b.dtype)
    np.testing.assert_allclose(a, b, rtol=rtol, atol=atol)


def tree_close(a, b, **kw):
    fa, fb = jax.tree_util.tree_leaves(a), jax.tree_util.tree_leaves(b)
    assert len(fa) == len(fb)
    for x, y in zip(fa, fb):
        close(x, y, **kw)


# --------------------------------------------------------------------------
# the function table: (name, tracegrad function, JAX function, argument kinds)
# kinds: "c" complex, "r" real; outputs may be real (abs, angle, real, ...)

UNARY = {
    "exp": (tnp.exp, jnp.exp), "exp2": (tnp.exp2, jnp.exp2), "expm1": (tnp.expm1, jnp.expm1),
    "log": (tnp.log, jnp.log), "log2": (tnp.log2, jnp.log2), "log10": (tnp.log10, jnp.log10),
    "log1p": (tnp.log1p, jnp.log1p), "sqrt": (tnp.sqrt, jnp.sqrt),
    "square": (tnp.square, jnp.square), "reciprocal": (tnp.reciprocal, jnp.reciprocal),
    "sin": (tnp.sin, jnp.sin), "cos": (tnp.cos, jnp.cos), "tan": (tnp.tan, jnp.tan),
    "arcsin": (tnp.arcsin, jnp.arcsin), "arccos": (tnp.arccos, jnp.arccos),
    "arctan": (tnp.arctan, jnp.arctan), "sinh": (tnp.sinh, jnp.sinh),
    "cosh": (tnp.cosh, jnp.cosh), "tanh": (tnp.tanh, jnp.tanh),
    "arcsinh": (tnp.arcsinh, jnp.arcsinh), "arccosh": (tnp.arccosh, jnp.arccosh),
    "arctanh": (tnp.arctanh, jnp.arctanh), "negative": (tnp.negative, jnp.negative),
    "abs": (tnp.abs, jnp.abs), "conj": (tnp.conj, jnp.conj),
    "conjugate": (tnp.conjugate, jnp.conjugate), "real": (tnp.real, jnp.real),
    "imag": (tnp.imag, jnp.imag), "angle": (tnp.angle, jnp.angle),
    "angle-deg": (lambda z: tnp.angle(z, deg=True), lambda z: jnp.angle(z, deg=True)),
    "pow-int": (lambda z: z ** 3, lambda z: z ** 3),
    "pow-float": (lambda z: z ** 0.7, lambda z: z ** 0.7),
    "pow-complex": (lambda z: z ** (0.5 + 0.3j), lambda z: z ** (0.5 + 0.3j)),
    "rpow": (lambda z: 2.0 ** z, lambda z: 2.0 ** z),
    "self-pow": (lambda z: tnp.power(z, z), lambda z: jnp.power(z, z)),
    "method-real-imag-conj": (lambda z: z.real * z.imag + z.conj(),
                              lambda z: z.real * z.imag + z.conj()),
    "complex-from-parts": (lambda z: tnp.real(z) * 2.0 + 1j * tnp.imag(z) ** 2,
                           lambda z: jnp.real(z) * 2.0 + 1j * jnp.imag(z) ** 2),
}
HOLOMORPHIC = set(UNARY) - {"abs", "conj", "conjugate", "real", "imag", "angle", "angle-deg",
                            "method-real-imag-conj", "complex-from-parts"}


def _domain(name, z):
    """arccosh is compared with JAX on Re(z) > 0 only: there JAX's derivative
    1/sqrt(z**2 - 1) has the sign of the principal branch's; for Re(z) < 0
    tracegrad keeps the branch's true derivative 1/(sqrt(z-1) sqrt(z+1)),
    pinned by test_arccosh_derivative_follows_the_principal_branch."""
    return np.abs(z.real) + 1j * z.imag if name == "arccosh" else z


def test_arccosh_derivative_follows_the_principal_branch():
    z = np.array([-0.5 + 0.3j, -0.3 - 0.8j, 0.5 + 0.3j])
    h = 1e-7
    numeric = (np.arccosh(z + h) - np.arccosh(z - h)) / (2 * h)
    got = tg.vmap(tg.grad(tnp.arccosh, holomorphic=True))(z)
    np.testing.assert_allclose(got, numeric, rtol=1e-6)
    check_grads(tnp.arccosh, (z,), order=2)


def _ct_like(rng, y):
    y = np.asarray(y)
    if y.dtype.kind == "c":
        return crand(rng, *y.shape)
    return rng.standard_normal(y.shape)


def _jax_unary_oracle(jf, holomorphic):
    """One compiled JAX function giving every value the unary test compares."""

    def loss(z):
        return jnp.sum(jnp.abs(jf(z)) ** 2 + jnp.real(jf(z)))

    def oracle(z, t, ct, z0):
        y, ty = jax.jvp(jf, (z,), (t,))
        out = [y, ty, jax.vjp(jf, z)[1](ct)[0], jax.grad(loss)(z)]
        if holomorphic:
            out += list(jax.value_and_grad(jf, holomorphic=True)(z0))
        return out

    return jax.jit(oracle)


@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_matches_jax(name):
    """jvp, vjp, grad of a real loss and (holomorphic functions) the complex
    derivative, at random complex points."""
    f, jf = UNARY[name]
    rng = np.random.default_rng(0)
    z, t = _domain(name, crand(rng, 4)), crand(rng, 4)
    z0 = np.complex128(z[0])
    y, ty = tg.jvp(f, (z,), (t,))
    y_, pull = tg.vjp(f, z)
    ct = _ct_like(rng, y)
    g = tg.grad(lambda z: tnp.sum(tnp.abs(f(z)) ** 2 + tnp.real(f(z))))(z)
    assert g.dtype == np.complex128
    got = [y, ty, pull(ct)[0], g]
    if name in HOLOMORPHIC:
        v0, g0 = tg.value_and_grad(f, holomorphic=True)(z0)
        assert g0 == tg.grad(f, holomorphic=True)(z0)
        got += [v0, g0]
    want = _jax_unary_oracle(jf, name in HOLOMORPHIC)(z, t, ct, z0)
    for a, b in zip(got, want, strict=True):
        close(a, b)


@pytest.mark.parametrize("name", ["exp", "log", "sqrt", "tan", "arccosh", "abs", "angle", "real",
                                  "imag", "conj", "self-pow", "pow-complex"])
def test_second_order_of_real_loss_matches_jax(name):
    # jax.hessian refuses complex inputs without holomorphic=True (as tracegrad does),
    # so the second order is checked as jvp and vjp of the gradient
    f, jf = UNARY[name]
    rng = np.random.default_rng(3)
    z, t = _domain(name, crand(rng, 3)), crand(rng, 3)

    def loss(z):
        return tnp.sum(tnp.abs(f(z)) ** 2)

    def jloss(z):
        return jnp.sum(jnp.abs(jf(z)) ** 2)

    g, tgt = tg.jvp(tg.grad(loss), (z,), (t,))
    ct = crand(rng, 3)
    jg, jtgt, jct = jax.jit(lambda z, t, ct: jax.jvp(jax.grad(jloss), (z,), (t,))
                            + (jax.vjp(jax.grad(jloss), z)[1](ct)[0],))(z, t, ct)
    close(g, jg)
    close(tgt, jtgt, rtol=1e-8)
    close(tg.vjp(tg.grad(loss), z)[1](ct)[0], jct, rtol=1e-8)


@pytest.mark.parametrize("name", sorted(UNARY))
def test_check_grads_on_complex_input(name):
    f, _ = UNARY[name]
    check_grads(f, (crand(np.random.default_rng(4), 3),), order=2, modes=("fwd", "rev"))


# --------------------------------------------------------------------------
# binary functions, reductions, products, structural ops, linalg


def _spd_c(rng, n):
    a = crand(rng, n, n)
    return a @ a.conj().T + n * np.eye(n)


MULTI = {
    # name: (tracegrad f, jax f, argument kinds and shapes)
    "add": (lambda x, y: x + y, lambda x, y: x + y, [("c", (2, 3)), ("c", (3,))]),
    "sub-real": (lambda x, y: x - y, lambda x, y: x - y, [("r", (2, 3)), ("c", (3,))]),
    "mul": (lambda x, y: x * y, lambda x, y: x * y, [("c", (2, 3)), ("c", (2, 3))]),
    "mul-real": (lambda x, y: x * y, lambda x, y: x * y, [("r", (3,)), ("c", (2, 3))]),
    "div": (lambda x, y: x / y, lambda x, y: x / y, [("c", (2, 3)), ("c", (2, 1))]),
    "div-real": (lambda x, y: x / y, lambda x, y: x / y, [("c", (3,)), ("r", (3,))]),
    "power": (tnp.power, jnp.power, [("c", (3,)), ("c", (3,))]),
    "where": (lambda x, y: tnp.where(np.array([True, False, True]), x, y),
              lambda x, y: jnp.where(np.array([True, False, True]), x, y), [("c", (3,)), ("c", (3,))]),
    "sum": (lambda x: tnp.sum(x, axis=0), lambda x: jnp.sum(x, axis=0), [("c", (3, 4))]),
    "mean": (lambda x: tnp.mean(x, axis=1), lambda x: jnp.mean(x, axis=1), [("c", (3, 4))]),
    "prod": (lambda x: tnp.prod(x, axis=1), lambda x: jnp.prod(x, axis=1), [("c", (3, 4))]),
    "max-min": (lambda x: (tnp.max(x, axis=1), tnp.min(x)), lambda x: (jnp.max(x, axis=1), jnp.min(x)),
                [("c", (3, 4))]),
    "maximum": (tnp.maximum, jnp.maximum, [("c", (3,)), ("c", (3,))]),
    "sort": (tnp.sort, jnp.sort, [("c", (5,))]),
    "cumsum": (lambda x: tnp.cumsum(x, axis=1), lambda x: jnp.cumsum(x, axis=1), [("c", (3, 4))]),
    "cumprod": (lambda x: tnp.cumprod(x), lambda x: jnp.cumprod(x), [("c", (5,))]),
    "var": (lambda x: tnp.var(x, axis=0), lambda x: jnp.var(x, axis=0), [("c", (4, 3))]),
    "std": (lambda x: tnp.std(x), lambda x: jnp.std(x), [("c", (4, 3))]),
    "matmul": (lambda a, b: a @ b, lambda a, b: a @ b, [("c", (3, 4)), ("c", (4, 2))]),
    "matmul-real": (lambda a, b: a @ b, lambda a, b: a @ b, [("r", (3, 4)), ("c", (4, 2))]),
    "dot": (tnp.dot, jnp.dot, [("c", (3, 4)), ("c", (4,))]),
    "einsum": (lambda a, b: tnp.einsum("ij,jk->ki", a, b),
               lambda a, b: jnp.einsum("ij,jk->ki", a, b), [("c", (3, 4)), ("c", (4, 2))]),
    "inner": (tnp.inner, jnp.inner, [("c", (2, 3)), ("c", (3,))]),
    "outer": (tnp.outer, jnp.outer, [("c", (3,)), ("c", (2,))]),
    "vdot": (tnp.vdot, jnp.vdot, [("c", (2, 3)), ("c", (6,))]),
    "vecdot": (tnp.vecdot, jnp.vecdot, [("c", (2, 3)), ("c", (3,))]),
    "tensordot": (lambda a, b: tnp.tensordot(a, b, 1), lambda a, b: jnp.tensordot(a, b, 1),
                  [("c", (2, 3)), ("c", (3, 2))]),
    "trace": (tnp.trace, jnp.trace, [("c", (3, 3))]),
    "reshape-transpose": (lambda x: tnp.transpose(tnp.reshape(x, (4, 3))),
                          lambda x: jnp.transpose(jnp.reshape(x, (4, 3))), [("c", (3, 4))]),
    "concatenate": (lambda x, y: tnp.concatenate([x, y], axis=1),
                    lambda x, y: jnp.concatenate([x, y], axis=1), [("c", (2, 3)), ("r", (2, 1))]),
    "stack": (lambda x, y: tnp.stack([x, y]), lambda x, y: jnp.stack([x, y]),
              [("c", (3,)), ("c", (3,))]),
    "getitem": (lambda x: x[np.array([0, 2, 2]), 1:], lambda x: x[np.array([0, 2, 2]), 1:],
                [("c", (3, 4))]),
    "pad-flip-roll": (lambda x: tnp.roll(tnp.flip(tnp.pad(x, 1)), 2),
                      lambda x: jnp.roll(jnp.flip(jnp.pad(x, 1)), 2), [("c", (3,))]),
    "take": (lambda x: tnp.take(x, np.array([0, 0, 2])), lambda x: jnp.take(x, np.array([0, 0, 2])),
             [("c", (3,))]),
    "astype-complex": (lambda x: tnp.asarray(x).astype(np.complex128) * (1 + 2j),
                       lambda x: x.astype(np.complex128) * (1 + 2j), [("r", (3,))]),
    "solve": (tnp.linalg.solve, jnp.linalg.solve, [("c", (3, 3)), ("c", (3, 2))]),
    "inv": (tnp.linalg.inv, jnp.linalg.inv, [("c", (3, 3))]),
    "det": (tnp.linalg.det, jnp.linalg.det, [("c", (3, 3))]),
    "slogdet": (lambda a: tuple(tnp.linalg.slogdet(a)), lambda a: tuple(jnp.linalg.slogdet(a)),
                [("c", (3, 3))]),
    "eigh-values": (lambda a: tnp.linalg.eigh(a + a.conj().T)[0],
                    lambda a: jnp.linalg.eigh(a + a.conj().T)[0], [("c", (3, 3))]),
    "svd-values": (lambda a: tnp.linalg.svd(a, full_matrices=False)[1],
                   lambda a: jnp.linalg.svd(a, full_matrices=False)[1], [("c", (3, 2))]),
    "svd-vectors": (lambda a: _svd_gauge_free(a, tnp), lambda a: _svd_gauge_free(a, jnp),
                    [("c", (3, 2))]),
    "svd-vectors-wide": (lambda a: _svd_gauge_free(a, tnp), lambda a: _svd_gauge_free(a, jnp),
                         [("c", (2, 3))]),
    "cholesky": (lambda a: tnp.linalg.cholesky(a @ a.conj().T + 3.0 * np.eye(3)),
                 lambda a: jnp.linalg.cholesky(a @ a.conj().T + 3.0 * np.eye(3)), [("c", (3, 3))]),
    "cholesky-upper": (lambda a: tnp.linalg.cholesky(a @ a.conj().T + 3.0 * np.eye(3), upper=True),
                       lambda a: jnp.linalg.cholesky(a @ a.conj().T + 3.0 * np.eye(3),
                                                     upper=True), [("c", (3, 3))]),
    "qr-tall": (lambda a: tuple(tnp.linalg.qr(a)), lambda a: tuple(jnp.linalg.qr(a)),
                [("c", (4, 3))]),
    "qr-wide": (lambda a: tuple(tnp.linalg.qr(a)), lambda a: tuple(jnp.linalg.qr(a)),
                [("c", (2, 3))]),
    "norm-fro": (tnp.linalg.norm, jnp.linalg.norm, [("c", (3, 2))]),
    "norm-2": (lambda a: tnp.linalg.norm(a, 2), lambda a: jnp.linalg.norm(a, 2), [("c", (2, 3))]),
    "norm-nuc": (lambda a: tnp.linalg.norm(a, "nuc"), lambda a: jnp.linalg.norm(a, "nuc"),
                 [("c", (3, 3))]),
    "norm-1": (lambda a: tnp.linalg.norm(a, 1), lambda a: jnp.linalg.norm(a, 1), [("c", (3, 3))]),
    "norm-vector": (lambda a: tnp.linalg.norm(a, axis=0), lambda a: jnp.linalg.norm(a, axis=0),
                    [("c", (3, 2))]),
    "norm-vector-3": (lambda a: tnp.linalg.norm(a, 3), lambda a: jnp.linalg.norm(a, 3),
                      [("c", (4,))]),
}


def _svd_gauge_free(a, ns):
    """Functions of the singular vectors that do not depend on their phases."""
    u, s, vh = ns.linalg.svd(a, full_matrices=False)
    return ns.abs(u) ** 2, ns.abs(vh) ** 2, (u * s) @ vh, ns.real(u[:, :1] @ vh[:1])


def _args(rng, kinds):
    return tuple(crand(rng, *s) if k == "c" else rng.standard_normal(s) for k, s in kinds)


@pytest.mark.parametrize("name", sorted(MULTI))
def test_multi_jvp_and_vjp_match_jax(name):
    f, jf, kinds = MULTI[name]
    rng = np.random.default_rng(5)
    args = _args(rng, kinds)
    tans = _args(rng, kinds)
    y, ty = tg.jvp(f, args, tans)
    y, pull = tg.vjp(f, *args)
    ct = jax.tree_util.tree_map(lambda o: _ct_like(rng, o), y)
    # one compiled JAX function for all three (compiling dominates the time)
    jy, jty, jct = jax.jit(lambda a, t, c: jax.jvp(jf, a, t) + (jax.vjp(jf, *a)[1](c),))(
        args, tans, ct)
    tree_close(y, jy)
    tree_close(ty, jty, rtol=1e-8)
    if name == "slogdet":  # the sign of a complex matrix is differentiable (JAX's rule)
        assert np.asarray(y[0]).dtype == np.complex128
    tree_close(pull(ct), jct, rtol=1e-8)
    for g, a in zip(pull(ct), args):
        assert g.dtype == a.dtype and g.shape == a.shape


@pytest.mark.parametrize("name", sorted(MULTI))
def test_multi_check_grads(name):
    f, _, kinds = MULTI[name]
    check_grads(f, _args(np.random.default_rng(6), kinds), order=2, modes=("fwd", "rev"),
                atol=1e-5, rtol=1e-5)


def test_eigh_eigenvectors_gauge_invariant_loss_matches_jax():
    a = crand(np.random.default_rng(7), 3, 3)

    def loss(a, ns):
        w, v = ns.linalg.eigh(a + a.conj().T)
        return ns.sum(ns.abs(v[0]) ** 2 * w) + ns.sum(ns.abs(v[:, 1]) ** 4)

    close(tg.grad(lambda a: loss(a, tnp))(a), jax.grad(lambda a: loss(a, jnp))(a), rtol=1e-8)


# --------------------------------------------------------------------------
# the transforms: holomorphic Jacobians, hessian, vmap, custom rules, checkpoint


def _h(ns):
    return lambda z: ns.sin(z) * z ** 2 + ns.exp(z[::-1])


def test_holomorphic_jacobians_match_jax():
    z = crand(np.random.default_rng(11), 3)
    for ours, theirs in [(tg.jacfwd, jax.jacfwd), (tg.jacrev, jax.jacrev)]:
        close(ours(_h(tnp), holomorphic=True)(z), theirs(_h(jnp), holomorphic=True)(z))
    f = lambda ns: lambda z: ns.sum(z ** 3 * ns.cos(z))  # noqa: E731
    close(tg.hessian(f(tnp), holomorphic=True)(z), jax.hessian(f(jnp), holomorphic=True)(z),
          rtol=1e-8)


def test_jacobians_of_real_and_complex_sides_match_jax():
    rng = np.random.default_rng(12)
    z, x = crand(rng, 3), rng.standard_normal(2)
    # complex input, real output: jacrev (the rows are gradients, complex)
    real_out = lambda ns: lambda z: ns.abs(z[:2] * z[1:]) ** 2  # noqa: E731
    close(tg.jacrev(real_out(tnp))(z), jax.jacrev(real_out(jnp))(z))
    # real input, complex output: jacfwd
    cplx_out = lambda ns: lambda x: ns.exp(1j * x) * x  # noqa: E731
    close(tg.jacfwd(cplx_out(tnp))(x), jax.jacfwd(cplx_out(jnp))(x))
    # both, through has_aux
    jac, aux = tg.jacfwd(lambda x: (cplx_out(tnp)(x), x * 2.0), has_aux=True)(x)
    close(aux, 2.0 * x)


def test_hessian_keywords_match_jax():
    x = np.array([0.5, -1.5])
    f = lambda ns: lambda x: (ns.sum(ns.sin(x) * x ** 3), x * 2.0)  # noqa: E731
    h, aux = tg.hessian(f(tnp), has_aux=True)(x)
    jh, jaux = jax.hessian(f(jnp), has_aux=True)(x)
    close(h, jh)
    close(aux, jaux)
    z = crand(np.random.default_rng(13), 2)
    g = lambda ns: lambda z: (ns.sum(ns.exp(z) * z), z)  # noqa: E731
    h, aux = tg.hessian(g(tnp), has_aux=True, holomorphic=True)(z)
    jh, _ = jax.hessian(g(jnp), has_aux=True, holomorphic=True)(z)
    close(h, jh)


def test_vmap_over_complex_matches_a_loop():
    zs = crand(np.random.default_rng(14), 4, 3)
    f = lambda z: tnp.sum(tnp.exp(z) * tnp.conj(z)) + tnp.abs(z[0])  # noqa: E731
    close(tg.vmap(f)(zs), np.stack([f(z) for z in zs]))
    loss = lambda z: tnp.sum(tnp.abs(tnp.sin(z)) ** 2)  # noqa: E731
    jloss = lambda z: jnp.sum(jnp.abs(jnp.sin(z)) ** 2)  # noqa: E731
    close(tg.vmap(tg.grad(loss))(zs), jax.vmap(jax.grad(jloss))(zs))
    close(tg.grad(lambda zs: tnp.sum(tg.vmap(loss)(zs)))(zs), jax.grad(
        lambda zs: jnp.sum(jax.vmap(jloss)(zs)))(zs))


def test_custom_rules_and_checkpoint_with_complex_values():
    z = crand(np.random.default_rng(15), 3)

    @tg.custom_vjp
    def sq(z):
        return z * z

    sq.defvjp(lambda z: (z * z, z), lambda z, ct: (ct * 2.0 * z,))

    @tg.custom_jvp
    def cube(z):
        return z ** 3

    cube.defjvp(lambda p, t: (p[0] ** 3, 3.0 * p[0] ** 2 * t[0]))

    jloss = jax.grad(lambda z: jnp.sum(jnp.abs(z * z) ** 2 + jnp.real(z ** 3)))(z)
    close(tg.grad(lambda z: tnp.sum(tnp.abs(sq(z)) ** 2 + tnp.real(cube(z))))(z), jloss)
    loss = lambda z: tnp.sum(tnp.abs(z * z) ** 2 + tnp.real(z ** 3))  # noqa: E731
    close(tg.grad(tg.checkpoint(loss))(z), jloss)
    close(tg.jvp(tg.checkpoint(lambda z: tnp.exp(z) * z), (z,), (z,))[1],
          jax.jvp(lambda z: jnp.exp(z) * z, (z,), (z,))[1])


def test_float32_maps_to_complex64():
    x = np.array([0.5, -1.0], np.float32)
    z = (x + 1j * x[::-1]).astype(np.complex64)
    assert tg.grad(lambda x: tnp.sum(tnp.abs(x + 1j * x[::-1])))(x).dtype == np.float32
    assert tg.jvp(lambda x: x * 1j, (x,), (x,))[1].dtype == np.complex64
    g = tg.grad(lambda z: tnp.sum(tnp.real(z) * tnp.imag(z)))(z)
    jg = jax.grad(lambda z: jnp.sum(jnp.real(z) * jnp.imag(z)))(z)
    assert g.dtype == np.complex64 == jg.dtype
    close(g, jg, rtol=1e-6)
    assert tg.vjp(lambda z: tnp.abs(z), z)[1](np.ones(2, np.float32))[0].dtype == np.complex64


# --------------------------------------------------------------------------
# keywords and errors, with JAX's exception types


def _raises_like_jax(ours, theirs, exc):
    with pytest.raises(exc):
        theirs()
    with pytest.raises(exc) as e:
        ours()
    return str(e.value)


def test_complex_output_to_grad_needs_holomorphic():
    msg = _raises_like_jax(lambda: tg.grad(lambda z: z * z)(1j),
                           lambda: jax.grad(lambda z: z * z)(1j), TypeError)
    assert "holomorphic=True" in msg and "vjp" in msg
    msg = _raises_like_jax(lambda: tg.jacrev(lambda z: z * z)(np.array([1j])),
                           lambda: jax.jacrev(lambda z: z * z)(np.array([1j])), TypeError)
    assert "holomorphic=True" in msg


def test_holomorphic_needs_complex_inputs_and_outputs():
    for ours, theirs in [(tg.grad, jax.grad), (tg.value_and_grad, jax.value_and_grad),
                         (tg.jacfwd, jax.jacfwd), (tg.jacrev, jax.jacrev),
                         (tg.hessian, jax.hessian)]:
        msg = _raises_like_jax(lambda: ours(lambda x: x * x, holomorphic=True)(2.0),
                               lambda: theirs(lambda x: x * x, holomorphic=True)(2.0), TypeError)
        assert "complex" in msg and "float64" in msg
        msg = _raises_like_jax(lambda: ours(lambda z: tnp.abs(z), holomorphic=True)(1j),
                               lambda: theirs(lambda z: jnp.abs(z), holomorphic=True)(1j),
                               TypeError)
        assert "outputs with complex dtype" in msg


def test_forward_jacobians_need_real_inputs():
    for ours, theirs in [(tg.jacfwd, jax.jacfwd), (tg.hessian, jax.hessian)]:
        msg = _raises_like_jax(lambda: ours(lambda z: tnp.abs(z) ** 2)(np.array([1j])),
                               lambda: theirs(lambda z: jnp.abs(z) ** 2)(np.array([1j])),
                               TypeError)
        assert "complex128" in msg and "holomorphic=True" in msg


def test_allow_int_gives_float0_gradients():
    assert tg.float0 == jax.dtypes.float0
    g = tg.grad(lambda x, y: tnp.sum(x * y), argnums=(0, 1), allow_int=True)(np.arange(3), 2.0)
    jg = jax.grad(lambda x, y: jnp.sum(x * y), argnums=(0, 1), allow_int=True)(np.arange(3), 2.0)
    assert g[0].dtype == tg.float0 == np.asarray(jg[0]).dtype and g[0].shape == (3,)
    close(g[1], jg[1])
    (v, g) = tg.value_and_grad(lambda n: n * 2.0, allow_int=True)(True)
    assert v == 2.0 and g.dtype == tg.float0 and g.shape == ()
    _raises_like_jax(lambda: tg.grad(lambda x: x * 2.0)(1),
                     lambda: jax.grad(lambda x: x * 2.0)(1), TypeError)


def test_reduce_axes_must_be_empty():
    assert tg.grad(lambda x: x * 2.0, reduce_axes=())(1.0) == 2.0
    assert tg.value_and_grad(lambda x: x * 2.0, reduce_axes=())(1.0) == (2.0, 2.0)
    _raises_like_jax(lambda: tg.grad(lambda x: x, reduce_axes=("i",)),
                     lambda: jax.grad(lambda x: x, reduce_axes=("i",)), NotImplementedError)
    _raises_like_jax(lambda: tg.value_and_grad(lambda x: x, reduce_axes=("i",)),
                     lambda: jax.value_and_grad(lambda x: x, reduce_axes=("i",)),
                     NotImplementedError)


@pytest.mark.parametrize("primal, tangent", [(1, 1), (np.arange(3), np.zeros(3, int)),
                                             (1, 1.0), (True, 0.0)])
def test_jvp_with_an_integer_primal_needs_a_float0_tangent(primal, tangent):
    msg = _raises_like_jax(lambda: tg.jvp(lambda x: x * 2, (primal,), (tangent,)),
                           lambda: jax.jvp(lambda x: x * 2, (primal,), (tangent,)), TypeError)
    assert "float0" in msg
    t0 = np.zeros(np.shape(primal), tg.float0)
    y, t = tg.jvp(lambda x, s: x * s, (primal, 1.5), (t0, 1.0))
    np.testing.assert_array_equal(y, np.asarray(primal) * 1.5)
    np.testing.assert_array_equal(t, np.asarray(primal) * 1.0)
    with pytest.raises(TypeError, match="float0"):
        tg.hvp(lambda x, s: x * s, (primal, 1.5), (tangent, 1.0))


def test_complex_helpers_values_match_numpy():
    z = np.array([1 + 2j, -0.5, 3j, 0.0])
    for name in ["real", "imag", "angle", "iscomplex", "isreal", "conj", "conjugate"]:
        got, want = getattr(tnp, name)(z), getattr(np, name)(z)
        assert np.asarray(got).dtype == want.dtype, name
        np.testing.assert_array_equal(got, want)
        r = np.array([1.0, -2.0])
        np.testing.assert_array_equal(getattr(tnp, name)(r), getattr(np, name)(r))
    assert tnp.isrealobj(np.ones(2)) and not tnp.isrealobj(z) and tnp.iscomplexobj(z)
    np.testing.assert_allclose(tnp.angle(z, deg=True), np.angle(z, deg=True))
    from tracegrad.primitives import ops
    np.testing.assert_array_equal(ops.complex(np.float32(1), np.array([2.0, 3.0], np.float32)),
                                  np.array([1 + 2j, 1 + 3j], np.complex64))
    assert ops.complex(np.float32(1), np.float32(2)).dtype == np.complex64
    with pytest.raises(TypeError, match="real arrays"):
        ops.complex(1j, 2.0)
    # NumPy's own spellings dispatch on tracers
    zz = crand(np.random.default_rng(16), 2)
    close(tg.grad(lambda z: np.sum(np.abs(np.conj(z) * np.real(z)) + np.angle(z)))(zz),
          jax.grad(lambda z: jnp.sum(jnp.abs(jnp.conj(z) * jnp.real(z)) + jnp.angle(z)))(zz))
