"""Differential tests against JAX and HIPS autograd (skipped when absent).

Each composite function is written once against a namespace (``ns.np`` is
the NumPy-like module, ``ns.logsumexp`` the stable log-sum-exp) and run
with tracegrad, with JAX (CPU, float64) and with autograd; values,
gradients, Hessians and Jacobians must agree.
"""
import os
import types

import numpy as np
import pytest

import tracegrad as tg
import tracegrad.nn
import tracegrad.numpy as tnp

RNG = np.random.default_rng(42)
DATA = RNG.standard_normal((5, 3))
LABELS = np.eye(2)[[0, 1, 1, 0, 1]]
B = RNG.standard_normal(3)
W = RNG.standard_normal((4, 4)) / 2


def _same(f):
    return f


def tracegrad_ns():
    return types.SimpleNamespace(
        name="tracegrad", np=tnp, logsumexp=tracegrad.nn.logsumexp, value=_same, grad=tg.grad,
        hessian=tg.hessian, jacfwd=tg.jacfwd, jacrev=tg.jacrev)


def jax_ns():
    os.environ.setdefault("JAX_PLATFORMS", "cpu")
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    import jax.numpy as jnp
    from jax.scipy.special import logsumexp

    def jitted(transform):
        # one compile per function: op-by-op JAX is slow on a 2-core machine
        return lambda f: jax.jit(transform(f))

    return types.SimpleNamespace(
        name="jax", np=jnp, logsumexp=logsumexp, value=jax.jit, grad=jitted(jax.grad),
        hessian=jitted(jax.hessian), jacfwd=jitted(jax.jacfwd), jacrev=jitted(jax.jacrev))


def autograd_ns():
    autograd = pytest.importorskip("autograd")
    import autograd.numpy as anp
    from autograd.scipy.special import logsumexp

    return types.SimpleNamespace(
        name="autograd", np=anp, logsumexp=logsumexp, value=_same, grad=autograd.grad,
        hessian=autograd.hessian, jacfwd=autograd.jacobian, jacrev=autograd.jacobian)


ORACLES = {"jax": jax_ns, "autograd": autograd_ns}


@pytest.fixture(params=sorted(ORACLES))
def oracle(request):
    return ORACLES[request.param]()


# --------------------------------------------------------------------------
# composite functions: f(ns, x) with x a float64 vector


def trig(ns, x):
    np_ = ns.np
    return np_.sum(np_.tanh(x) * np_.sin(x) + np_.exp(-x * x)) + np_.sum(np_.arctan(x) ** 2)


def mlp(ns, w):
    np_ = ns.np
    w1 = np_.reshape(w[:12], (4, 3))
    b1 = w[12:16]
    w2 = np_.reshape(w[16:24], (2, 4))
    h = np_.tanh(np_.dot(DATA, w1.T) + b1)
    z = np_.dot(h, w2.T)
    logp = z - ns.logsumexp(z, axis=1, keepdims=True)
    return -np_.mean(np_.sum(LABELS * logp, axis=1)) + 1e-2 * np_.sum(w * w)


def linalg(ns, x):
    np_ = ns.np
    a = np_.reshape(x[:9], (3, 3))
    s = np_.dot(a, a.T) + 3.0 * np_.eye(3)
    sign, logdet = np_.linalg.slogdet(s)
    return logdet + np_.trace(np_.linalg.inv(s)) + np_.sum(np_.linalg.solve(s, B)) + np_.linalg.det(a)


def norms_and_powers(ns, x):
    np_ = ns.np
    return (np_.linalg.norm(x) ** 1.5 + np_.sum(np_.sqrt(x * x + 1.0)) + np_.prod(x[:4])
            + np_.max(x) - np_.min(x * x) + np_.sum(np_.abs(x) ** 2.5) + np_.std(x) * np_.var(x))


def piecewise(ns, x):
    np_ = ns.np
    return (np_.sum(np_.where(x > 0, x ** 3, -x ** 2)) + np_.sum(np_.clip(x, -0.5, 0.5) * x)
            + np_.sum(np_.maximum(x, 0.2 * x)) + np_.sum(np_.logaddexp(x, -x)))


def shapes(ns, x):
    np_ = ns.np
    m = np_.reshape(x[:6], (2, 3))
    c = np_.concatenate([m, m[::-1] * 2.0], axis=0)
    s = np_.stack([np_.cumsum(x[:4]), np_.sort(x[4:8])])
    return (np_.sum(np_.einsum("ij,kj->ik", c, m) ** 2) + np_.sum(s * np_.arange(8.0).reshape(2, 4))
            + np_.sum(np_.transpose(c)[1:, ::2] ** 3) + np_.sum(np_.outer(x[:3], x[3:6])))


FUNCTIONS = {"trig": (trig, 7), "mlp": (mlp, 24), "linalg": (linalg, 9),
             "norms_and_powers": (norms_and_powers, 8), "piecewise": (piecewise, 8),
             "shapes": (shapes, 8)}


def point(n):
    # distinct values away from 0 and from the +-0.5 clip bounds: no ties or kinks
    v = 0.3 + 0.17 * np.arange(n) + np.random.default_rng(n).uniform(0, 0.05, n)
    v = v * np.where(np.arange(n) % 2, -1.0, 1.0)
    v[np.abs(np.abs(v) - 0.5) < 0.05] += 0.1
    return v


def close(a, b, rtol=1e-9, atol=1e-10):
    np.testing.assert_allclose(np.asarray(a, np.float64), np.asarray(b, np.float64), rtol=rtol, atol=atol)


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_value_and_gradient(oracle, name):
    f, n = FUNCTIONS[name]
    x = point(n)
    t = tracegrad_ns()
    close(f(t, x), oracle.value(lambda x: f(oracle, x))(x))
    close(t.grad(lambda x: f(t, x))(x), oracle.grad(lambda x: f(oracle, x))(x))


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_hessian(oracle, name):
    f, n = FUNCTIONS[name]
    x = point(n)
    t = tracegrad_ns()
    close(t.hessian(lambda x: f(t, x))(x), oracle.hessian(lambda x: f(oracle, x))(x), rtol=1e-8)


def vector_valued(ns, x):
    np_ = ns.np
    return np_.tanh(np_.dot(W, x)) * x[::-1] + ns.logsumexp(np_.outer(x, x), axis=0)


@pytest.mark.parametrize("mode", ["jacfwd", "jacrev"])
def test_jacobian(oracle, mode):
    x = point(4)
    t = tracegrad_ns()
    close(getattr(t, mode)(lambda x: vector_valued(t, x))(x),
          getattr(oracle, mode)(lambda x: vector_valued(oracle, x))(x))


def test_third_order(oracle):
    t = tracegrad_ns()

    def f(ns, s):
        return ns.np.sin(s) * s ** 3 + ns.np.exp(ns.np.tanh(s))

    g3 = t.grad(t.grad(t.grad(lambda s: f(t, s))))
    o3 = oracle.grad(oracle.grad(oracle.grad(lambda s: f(oracle, s))))
    close(g3(0.7), o3(0.7))
