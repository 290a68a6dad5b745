"""tracegrad.random: JAX's keyed random numbers.

Against JAX (skipped without it): the same keys give the same bits,
uniforms, integers, permutations and choices bit for bit, and the
transcendental samplers to a few ulps.  Without JAX: moments within
bounds over many samples, exact edge cases, and the transforms (``vmap``
over keys, ``jit``, derivatives in the real parameters).
"""
import numpy as np
import pytest

import tracegrad as tg
import tracegrad.numpy as tnp

R = tg.random
SEEDS = [0, 42, 2**40 + 7, -3]


@pytest.fixture(scope="module")
def jr():
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    return jax.random


def _same(a, b):
    a, b = np.asarray(a), np.asarray(b)
    assert a.dtype == b.dtype and a.shape == b.shape, (a.dtype, a.shape, b.dtype, b.shape)
    np.testing.assert_array_equal(a, b)


# --------------------------------------------------------------------------
# bit for bit against JAX


@pytest.mark.parametrize("seed", SEEDS)
def test_keys_match_jax(jr, seed):
    k, jk = R.PRNGKey(seed), jr.PRNGKey(seed)
    _same(k, jk)
    _same(R.key(seed), jk)
    _same(R.split(k), jr.split(jk))
    _same(R.split(k, 5), jr.split(jk, 5))
    _same(R.split(k, (2, 3)), jr.split(jk, (2, 3)))
    for data in (0, 7, 2**31 + 5, 2**32 - 1):
        _same(R.fold_in(k, data), jr.fold_in(jk, data))
    _same(R.split(R.fold_in(R.split(k)[1], 3))[0], jr.split(jr.fold_in(jr.split(jk)[1], 3))[0])


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("dtype", [np.uint8, np.uint16, np.uint32, np.uint64])
def test_bits_match_jax(jr, seed, dtype):
    for shape in [(), (7,), (3, 4)]:
        _same(R.bits(R.PRNGKey(seed), shape, dtype), jr.bits(jr.PRNGKey(seed), shape, dtype))


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_uniform_matches_jax(jr, seed, dtype):
    k, jk = R.PRNGKey(seed), jr.PRNGKey(seed)
    _same(R.uniform(k, (1000,), dtype), jr.uniform(jk, (1000,), dtype))
    _same(R.uniform(k, (30, 40), dtype, -2.0, 3.1), jr.uniform(jk, (30, 40), dtype, -2.0, 3.1))
    lo, hi = np.array([-1.0, 0.0, 5.0]), np.array([[1.0], [2.5]]) * np.ones(3)
    _same(R.uniform(k, (2, 3), dtype, lo, hi), jr.uniform(jk, (2, 3), dtype, lo, hi))


@pytest.mark.parametrize("seed", SEEDS)
def test_discrete_samplers_match_jax(jr, seed):
    k, jk = R.PRNGKey(seed), jr.PRNGKey(seed)
    import jax.numpy as jnp  # lazy: jax is optional

    _same(R.bernoulli(k, 0.3, (50,)), jr.bernoulli(jk, 0.3, (50,)))
    p = np.array([0.1, 0.5, 0.9])
    _same(R.bernoulli(k, p), jr.bernoulli(jk, p))
    _same(R.randint(k, (50,), 3, 17), jr.randint(jk, (50,), 3, 17))
    _same(R.randint(k, (4, 5), -5, 1000, np.int32), jr.randint(jk, (4, 5), -5, 1000, jnp.int32))
    _same(R.randint(k, (20,), 0, 256, np.uint8), jr.randint(jk, (20,), 0, 256, jnp.uint8))
    _same(R.randint(k, (20,), 5, 5), jr.randint(jk, (20,), 5, 5))  # empty span: minval
    _same(R.permutation(k, 10), jr.permutation(jk, 10))
    x = np.arange(12.0).reshape(3, 4)
    _same(R.permutation(k, x, axis=1), jr.permutation(jk, x, axis=1))
    _same(R.permutation(k, x, axis=1, independent=True),
          jr.permutation(jk, x, axis=1, independent=True))
    _same(R.choice(k, 10, (4,)), jr.choice(jk, 10, (4,)))
    _same(R.choice(k, 10, (4,), replace=False), jr.choice(jk, 10, (4,), replace=False))
    w = np.array([0.1, 0.2, 0.3, 0.4])
    _same(R.choice(k, x, (5,), p=w, axis=1), jr.choice(jk, x, (5,), p=w, axis=1))
    _same(R.choice(k, 4, (3,), replace=False, p=w), jr.choice(jk, 4, (3,), replace=False, p=w))
    lg = np.log(np.array([[0.1, 0.2, 0.7], [0.5, 0.25, 0.25]]))
    _same(R.categorical(k, lg), jr.categorical(jk, lg))
    _same(R.categorical(k, lg, axis=0), jr.categorical(jk, lg, axis=0))
    _same(R.categorical(k, lg, shape=(4, 2)), jr.categorical(jk, lg, shape=(4, 2)))


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name", ["normal", "exponential", "laplace", "logistic", "gumbel"])
def test_continuous_samplers_match_jax_to_rounding(jr, seed, dtype, name):
    ours = getattr(R, name)(R.PRNGKey(seed), (2000,), dtype)
    theirs = np.asarray(getattr(jr, name)(jr.PRNGKey(seed), (2000,), dtype))
    assert np.asarray(ours).dtype == theirs.dtype
    tol = 1e-5 if dtype == np.float32 else 1e-13
    np.testing.assert_allclose(ours, theirs, rtol=tol, atol=tol)


@pytest.mark.parametrize("seed", SEEDS)
def test_truncated_normal_matches_jax(jr, seed):
    k, jk = R.PRNGKey(seed), jr.PRNGKey(seed)
    np.testing.assert_allclose(R.truncated_normal(k, -1.0, 2.0, (500,)),
                               jr.truncated_normal(jk, -1.0, 2.0, (500,)), rtol=1e-13, atol=1e-13)
    lo, hi = np.array([-3.0, 0.5]), np.array([0.0, 4.0])
    np.testing.assert_allclose(R.truncated_normal(k, lo, hi), jr.truncated_normal(jk, lo, hi),
                               rtol=1e-13)


# --------------------------------------------------------------------------
# distributions (no JAX needed)

N = 200_000


def _moments(x, mean, var, k=6):
    x = np.asarray(x, np.float64)
    se_mean = np.sqrt(var / x.size)
    assert abs(x.mean() - mean) < k * se_mean, (x.mean(), mean)
    assert abs(x.var() - var) < 0.02 * var + 1e-12, (x.var(), var)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_moments(dtype):
    key = R.PRNGKey(123)
    ks = R.split(key, 8)
    u = np.asarray(R.uniform(ks[0], (N,), dtype, -1.0, 3.0))
    assert u.dtype == dtype and u.min() >= -1.0 and u.max() < 3.0
    _moments(u, 1.0, 16 / 12)
    _moments(R.normal(ks[1], (N,), dtype), 0.0, 1.0)
    _moments(R.exponential(ks[2], (N,), dtype), 1.0, 1.0)
    _moments(R.laplace(ks[3], (N,), dtype), 0.0, 2.0)
    _moments(R.logistic(ks[4], (N,), dtype), 0.0, np.pi**2 / 3)
    _moments(R.gumbel(ks[5], (N,), dtype), np.euler_gamma, np.pi**2 / 6)
    t = np.asarray(R.truncated_normal(ks[6], 0.0, np.inf, (N,), dtype))
    assert t.min() > 0.0
    _moments(t, np.sqrt(2 / np.pi), 1 - 2 / np.pi)
    _moments(R.bernoulli(ks[7], 0.3, (N,)), 0.3, 0.21)


def test_integer_samplers():
    k1, k2, k3 = R.split(R.PRNGKey(7), 3)
    r = np.asarray(R.randint(k1, (N,), -3, 7))
    assert r.dtype == np.int64 and r.min() == -3 and r.max() == 6
    np.testing.assert_allclose(np.bincount(r + 3) / N, 0.1, atol=0.005)
    logits = np.log(np.array([0.2, 0.3, 0.5]))
    c = np.asarray(R.categorical(k2, logits, shape=(N,)))
    np.testing.assert_allclose(np.bincount(c) / N, [0.2, 0.3, 0.5], atol=0.005)
    perm = np.asarray(R.permutation(k3, 1000))
    np.testing.assert_array_equal(np.sort(perm), np.arange(1000))
    assert (perm != np.arange(1000)).sum() > 900
    ch = np.asarray(R.choice(k3, 20, (20,), replace=False))
    np.testing.assert_array_equal(np.sort(ch), np.arange(20))


def test_keys_and_edge_cases():
    np.testing.assert_array_equal(R.PRNGKey(0), [0, 0])
    np.testing.assert_array_equal(R.PRNGKey(2**32 + 5), [1, 5])
    np.testing.assert_array_equal(R.PRNGKey(-1), [2**32 - 1, 2**32 - 1])
    k = R.PRNGKey(1)
    a, b = R.split(k)
    assert not np.array_equal(a, b)
    np.testing.assert_array_equal(R.uniform(k, (5,)), R.uniform(k, (5,)))  # pure
    assert R.uniform(k, (0, 3)).shape == (0, 3)
    assert R.uniform(k).shape == ()
    np.testing.assert_array_equal(R.randint(k, (6,), 4, 4), 4)  # empty span gives minval
    np.testing.assert_array_equal(R.uniform(k, (4,), minval=2.0, maxval=2.0), 2.0)
    assert R.choice(k, 5, (0,)).shape == (0,)
    # 2**-52 resolution: the smallest float64 uniform is 0 exactly for all-zero top bits
    u = np.asarray(R.uniform(k, (10000,)))
    assert np.all(u * 2.0**52 == np.round(u * 2.0**52))


def test_errors():
    k = R.PRNGKey(0)
    with pytest.raises(TypeError, match="uint32 array of shape"):
        R.uniform(np.array([1, 2, 3], np.uint32))
    with pytest.raises(TypeError, match="uint32 array of shape"):
        R.normal(R.split(k, 3))
    with pytest.raises(TypeError, match="float32 or float64"):
        R.uniform(k, (2,), np.int32)
    with pytest.raises(TypeError, match="unsigned"):
        R.bits(k, (2,), np.int32)
    with pytest.raises(TypeError, match="integer seed"):
        R.PRNGKey(1.5)
    with pytest.raises(ValueError, match="replace=False"):
        R.choice(k, 3, (4,), replace=False)
    with pytest.raises(ValueError, match="broadcast"):
        R.uniform(k, (3,), minval=np.zeros(4))
    with pytest.raises(TypeError, match="integers"):
        R.randint(k, (2,), 0, 3, np.float64)


# --------------------------------------------------------------------------
# transforms


SAMPLERS = {
    "bits": lambda k: R.bits(k, (3, 2)),
    "uniform": lambda k: R.uniform(k, (4,), np.float64, -1.0, 2.0),
    "uniform32": lambda k: R.uniform(k, (4,), np.float32),
    "normal": lambda k: R.normal(k, (3,)),
    "split": lambda k: R.split(k, 3),
    "fold_in": lambda k: R.fold_in(k, 11),
    "bernoulli": lambda k: R.bernoulli(k, 0.4, (5,)),
    "randint": lambda k: R.randint(k, (5,), 0, 9),
    "exponential": lambda k: R.exponential(k, (3,)),
    "gumbel": lambda k: R.gumbel(k, (3,)),
    "laplace": lambda k: R.laplace(k, (3,)),
    "logistic": lambda k: R.logistic(k, (3,)),
    "truncated_normal": lambda k: R.truncated_normal(k, -0.5, 1.0, (3,)),
    "categorical": lambda k: R.categorical(k, np.array([0.1, 0.2, 0.3]), shape=(6,)),
    "permutation": lambda k: R.permutation(k, 6),
    "multivariate_normal": lambda k: R.multivariate_normal(k, np.zeros(2), np.array([[2.0, 0.5], [0.5, 1.0]]), (3,)),
    "choice": lambda k: R.choice(k, np.arange(5.0), (3,), p=np.array([0.1, 0.2, 0.3, 0.2, 0.2])),
}


@pytest.mark.parametrize("name", sorted(SAMPLERS))
def test_vmap_over_keys_and_jit_equal_eager(name):
    f = SAMPLERS[name]
    keys = R.split(R.PRNGKey(5), 4)
    loop = np.stack([np.asarray(f(k)) for k in keys])
    got = tg.vmap(f)(keys)
    assert np.asarray(got).dtype == loop.dtype
    np.testing.assert_array_equal(got, loop)
    np.testing.assert_array_equal(tg.vmap(f, out_axes=1)(keys), np.moveaxis(loop, 0, 1))
    jf = tg.jit(f)
    for k in keys[:2]:  # (compiled loops call the C library's log1p/exp: within a few ulp)
        want = np.asarray(f(k))
        assert np.asarray(jf(k)).dtype == want.dtype
        if want.dtype.kind == "f":
            np.testing.assert_allclose(jf(k), want, rtol=4 * np.finfo(want.dtype).eps, atol=0)
        else:
            np.testing.assert_array_equal(jf(k), want)


def test_jit_stages_the_hash():
    text = str(tg.make_jaxpr(lambda k: R.uniform(k, (3,)))(R.PRNGKey(0)))
    assert "threefry2x32" in text
    # a traced fold_in data word (a loop counter under jit)
    f = tg.jit(lambda k, i: R.normal(R.fold_in(k, i), (2,)))
    k = R.PRNGKey(3)
    for i in range(3):
        np.testing.assert_array_equal(f(k, np.int64(i)), R.normal(R.fold_in(k, i), (2,)))


def test_derivatives_in_real_parameters():
    k = R.PRNGKey(9)
    u01 = np.asarray(R.uniform(k, (5,)))

    def f(lo, hi):
        return tnp.sum(R.uniform(k, (5,), np.float64, lo, hi))

    g_lo, g_hi = tg.grad(f, argnums=(0, 1))(-1.0, 2.0)
    np.testing.assert_allclose(g_hi, u01.sum(), rtol=1e-12)
    np.testing.assert_allclose(g_lo, (1 - u01).sum(), rtol=1e-12)
    # the sample is a constant: d/dx sum(x * normal(key)) = normal(key)
    z = np.asarray(R.normal(k, (4,)))
    np.testing.assert_allclose(tg.grad(lambda x: tnp.sum(x * R.normal(k, (4,))))(np.ones(4)), z)
    # truncated_normal's bounds: against a central difference
    tn = lambda lo: tnp.sum(R.truncated_normal(k, lo, 1.5, (6,)))  # noqa: E731
    h = 1e-6
    fd = (float(tn(-0.5 + h)) - float(tn(-0.5 - h))) / (2 * h)
    np.testing.assert_allclose(tg.grad(tn)(-0.5), fd, rtol=1e-5)
    np.testing.assert_allclose(tg.jvp(tn, (-0.5,), (1.0,))[1], fd, rtol=1e-5)


def test_derivatives_match_jax(jr):
    import jax  # lazy: jax is optional

    k, jk = R.PRNGKey(4), jr.PRNGKey(4)
    ours = tg.grad(lambda lo: tnp.sum(R.truncated_normal(k, lo, 2.0, (8,)) ** 2))(-0.3)
    theirs = jax.grad(lambda lo: (jr.truncated_normal(jk, lo, 2.0, (8,)) ** 2).sum())(-0.3)
    np.testing.assert_allclose(ours, theirs, rtol=1e-10)
    ours = tg.grad(lambda s: tnp.sum(R.uniform(k, (8,), np.float64, 0.0, s) ** 2))(1.7)
    theirs = jax.grad(lambda s: (jr.uniform(jk, (8,), np.float64, 0.0, s) ** 2).sum())(1.7)
    np.testing.assert_allclose(ours, theirs, rtol=1e-12)


@pytest.mark.parametrize("method", ["cholesky", "eigh", "svd"])
def test_multivariate_normal(jr, method):
    mean = np.array([1.0, -2.0, 0.5])
    a = np.array([[2.0, 0.3, 0.1], [0.3, 1.0, -0.2], [0.1, -0.2, 0.5]])
    k, jk = R.PRNGKey(11), jr.PRNGKey(11)
    ours = R.multivariate_normal(k, mean, a, (4,), method=method)
    np.testing.assert_allclose(ours, jr.multivariate_normal(jk, mean, a, (4,), method=method),
                               rtol=1e-10, atol=1e-12)
    x = np.asarray(R.multivariate_normal(k, mean, a, (100_000,), method=method))
    assert x.shape == (100_000, 3)
    np.testing.assert_allclose(x.mean(0), mean, atol=0.03)
    np.testing.assert_allclose(np.cov(x.T), a, atol=0.03)


def test_multivariate_normal_derivatives_and_vmap():
    k = R.PRNGKey(2)
    z = np.asarray(R.normal(k, (3,)))
    mean = np.array([0.1, 0.2, 0.3])
    np.testing.assert_allclose(
        tg.grad(lambda m: tnp.sum(R.multivariate_normal(k, m, np.eye(3))))(mean), np.ones(3))
    # cov = s**2 I: the sample is mean + s z, so d/ds sum = sum(z)
    np.testing.assert_allclose(
        tg.grad(lambda s: tnp.sum(R.multivariate_normal(k, mean, s**2 * tnp.eye(3))))(1.5),
        z.sum(), rtol=1e-10)
    keys = R.split(k, 3)
    f = lambda kk: R.multivariate_normal(kk, mean, np.eye(3) * 2.0)  # noqa: E731
    np.testing.assert_array_equal(tg.vmap(f)(keys), np.stack([f(kk) for kk in keys]))
    with pytest.raises(ValueError, match="cov of shape"):
        R.multivariate_normal(k, mean, np.eye(2))


def test_erf_inv_without_scipy_matches_scipy():
    """SciPy is optional: the samplers' erf_inv has a NumPy version (within
    2 ulp of SciPy's erfinv in float64, tails included)."""
    sp = pytest.importorskip("scipy.special")
    from tracegrad.primitives.random import erf_inv_numpy

    x = np.concatenate([np.linspace(-1, 1, 20001), 1 - np.logspace(-16, -1, 200),
                        -1 + np.logspace(-16, -1, 200), np.logspace(-300, -1, 100)])
    got, want = erf_inv_numpy(x), sp.erfinv(x)
    finite = np.isfinite(want)
    np.testing.assert_allclose(got[finite], want[finite], rtol=5e-16, atol=0)
    np.testing.assert_array_equal(erf_inv_numpy(np.array([0.0, 1.0, -1.0, 1.5, np.nan])),
                                  [0.0, np.inf, -np.inf, np.nan, np.nan])
    assert np.signbit(erf_inv_numpy(np.array([-0.0]))[0])
    x32 = np.linspace(-0.999, 0.999, 2001, dtype=np.float32)
    assert erf_inv_numpy(x32).dtype == np.float32
    np.testing.assert_allclose(erf_inv_numpy(x32), sp.erfinv(x32), rtol=3e-7)


# --------------------------------------------------------------------------
# gamma, loggamma, beta, dirichlet, poisson

GAMMA_A = np.array([0.01, 0.3, 0.9, 1.0, 2.5, 7.0, 60.0, 1e4, -0.2, -1.0])


@pytest.mark.parametrize("seed", SEEDS[1:3])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_gamma_family_matches_jax(jr, seed, dtype):
    k, jk = R.PRNGKey(seed), jr.PRNGKey(seed)
    rtol = 1e-5 if dtype == np.float32 else 1e-12
    a = GAMMA_A.astype(dtype)
    for ours, theirs in [
        (R.gamma(k, a, dtype=dtype), jr.gamma(jk, a, dtype=dtype)),
        (R.gamma(k, a[1:8], (3, 7), dtype), jr.gamma(jk, a[1:8], (3, 7), dtype)),
        (R.loggamma(k, a, dtype=dtype), jr.loggamma(jk, a, dtype=dtype)),
        (R.beta(k, a[:8], a[7::-1], dtype=dtype), jr.beta(jk, a[:8], a[7::-1], dtype=dtype)),
        (R.dirichlet(k, a[:4], dtype=dtype), jr.dirichlet(jk, a[:4], dtype=dtype)),
    ]:
        theirs = np.asarray(theirs)
        assert ours.dtype == theirs.dtype and ours.shape == theirs.shape
        np.testing.assert_allclose(ours, theirs, rtol=rtol, atol=0)


@pytest.mark.parametrize("seed", SEEDS)
def test_poisson_matches_jax(jr, seed):
    k, jk = R.PRNGKey(seed), jr.PRNGKey(seed)
    lam = np.array([0.0, 0.5, 3.0, 9.99, 10.0, 27.0, 450.0, 1e6, -1.0, np.nan])
    _same(R.poisson(k, lam), jr.poisson(jk, lam))
    _same(R.poisson(k, lam[1:7], (4, 6), np.int32), jr.poisson(jk, lam[1:7], (4, 6), np.int32))
    _same(R.poisson(k, 4.0, (50,)), jr.poisson(jk, 4.0, (50,)))


def test_gamma_derivative_matches_jax(jr):
    jax = pytest.importorskip("jax")
    k, jk = R.PRNGKey(11), jr.PRNGKey(11)
    a = np.array([0.05, 0.4, 1.0, 3.0, 40.0, 2e4])
    b = np.array([2.0, 0.7, 5.0, 1.5, 3.0, 0.2])
    np.testing.assert_allclose(tg.grad(lambda x: tnp.sum(R.gamma(k, x)))(a),
                               jax.grad(lambda x: jr.gamma(jk, x).sum())(a), rtol=1e-7)
    w = np.arange(3.0)
    np.testing.assert_allclose(
        tg.grad(lambda x, y: tnp.sum(R.beta(k, x, y)), argnums=(0, 1))(a, b),
        jax.grad(lambda x, y: jr.beta(jk, x, y).sum(), argnums=(0, 1))(a, b), rtol=1e-6)
    np.testing.assert_allclose(
        tg.grad(lambda x: tnp.sum(R.dirichlet(k, x) * w))(a[1:4]),
        jax.grad(lambda x: (jr.dirichlet(jk, x) * w).sum())(a[1:4]), rtol=1e-6)


def test_gamma_derivative_is_implicit_reparameterization():
    # x(a) = F^-1(u; a) at fixed u: d/da F(x(a); a) = 0, checked with SciPy's cdf
    special = pytest.importorskip("scipy.special")
    k = R.PRNGKey(2)
    a = np.array([0.3, 1.7, 12.0])
    x = R.gamma(k, a)
    dx = tg.jvp(lambda t: R.gamma(k, t), (a,), (np.ones(3),))[1]
    h = 1e-6
    u0 = special.gammainc(a, x)
    u1 = special.gammainc(a + h, x + h * dx)
    np.testing.assert_allclose(u1, u0, rtol=0, atol=1e-10)
    # (not the derivative of the rejection algorithm's output, so no finite
    # differences): forward and reverse mode agree, <v, J u> = <J^T v, u>
    for f in (lambda t: R.gamma(k, t), lambda t: R.beta(k, t, 2.0),
              lambda t: R.dirichlet(k, t)):
        u = np.array([0.3, -1.2, 0.8])
        y, jv = tg.jvp(f, (a,), (u,))
        v = np.linspace(-1.0, 2.0, y.size).reshape(y.shape)
        (vj,) = tg.vjp(f, a)[1](v)
        np.testing.assert_allclose(np.sum(v * jv), np.sum(vj * u), rtol=1e-12)


N_STAT = 20000


def _moments_ok(x, mean, var):
    """Sample mean and variance within 5 standard errors of the exact ones
    (the variance's standard error from the fourth moment, estimated)."""
    x = np.asarray(x, np.float64)
    n = x.size
    assert abs(x.mean() - mean) < 5 * np.sqrt(var / n), (x.mean(), mean)
    m4 = np.mean((x - x.mean()) ** 4)
    assert abs(x.var() - var) < 5 * np.sqrt(max(m4 - var ** 2, 1e-300) / n), (x.var(), var)


def _ks_ok(x, cdf):
    """Kolmogorov-Smirnov distance below the 0.1 % critical value 1.95 / sqrt(n)."""
    x = np.sort(np.asarray(x, np.float64))
    n = x.size
    f = cdf(x)
    d = max(np.max(np.arange(1, n + 1) / n - f), np.max(f - np.arange(n) / n))
    assert d < 1.95 / np.sqrt(n), d


@pytest.mark.parametrize("a", [0.2, 1.0, 3.5, 400.0])
def test_gamma_distribution(a):
    x = R.gamma(R.PRNGKey(3), a, (N_STAT,))
    assert x.shape == (N_STAT,) and x.dtype == np.float64 and np.all(x >= 0)
    _moments_ok(x, a, a)
    special = pytest.importorskip("scipy.special")
    _ks_ok(x, lambda t: special.gammainc(a, t))


def test_loggamma_tiny_a():
    # a = 1e-3: most gamma samples underflow; log space keeps them
    a = 1e-3
    lg = R.loggamma(R.PRNGKey(4), a, (N_STAT,))
    assert np.all(np.isfinite(lg))
    g = R.gamma(R.PRNGKey(4), a, (N_STAT,))
    assert np.mean(g == 0) > 0.3
    # E[log G] = digamma(a) (about -1000.42 for a = 1e-3)
    digamma = -1.0 / a - 0.5772156649015329 + (np.pi ** 2 / 6) * a
    sd = np.sqrt(np.pi ** 2 / 6 + 1.0 / a ** 2)  # sqrt(trigamma(a)), to first order
    assert abs(lg.mean() - digamma) < 5 * sd / np.sqrt(N_STAT)
    special = pytest.importorskip("scipy.special")
    # (where exp(t) underflows, P(a, x) = x**a / Gamma(a + 1) to 1e-300 relative)
    _ks_ok(lg, lambda t: np.where(t > -600, special.gammainc(a, np.exp(np.maximum(t, -600))),
                                  np.exp(a * t - special.gammaln(a + 1))))


def test_beta_distribution():
    a, b = 0.7, 2.5
    x = R.beta(R.PRNGKey(5), a, b, (N_STAT,))
    assert np.all((x >= 0) & (x <= 1))
    _moments_ok(x, a / (a + b), a * b / ((a + b) ** 2 * (a + b + 1)))
    special = pytest.importorskip("scipy.special")
    _ks_ok(x, lambda t: special.betainc(a, b, t))


def test_dirichlet_distribution():
    alpha = np.array([0.5, 2.0, 4.5])
    x = R.dirichlet(R.PRNGKey(6), alpha, (N_STAT,))
    assert x.shape == (N_STAT, 3)
    np.testing.assert_allclose(x.sum(-1), 1.0, rtol=1e-12)
    s = alpha.sum()
    for i in range(3):  # each coordinate is Beta(alpha_i, s - alpha_i)
        m = alpha[i] / s
        _moments_ok(x[:, i], m, m * (1 - m) / (s + 1))
    special = pytest.importorskip("scipy.special")
    _ks_ok(x[:, 0], lambda t: special.betainc(alpha[0], s - alpha[0], t))


@pytest.mark.parametrize("lam", [0.3, 4.0, 9.5, 10.0, 35.0, 2000.0])
def test_poisson_distribution(lam):
    x = R.poisson(R.PRNGKey(7), lam, (N_STAT,))
    assert x.dtype == np.int64 and np.all(x >= 0)
    _moments_ok(x, lam, lam)
    if lam < 50:  # chi-square-free check: the frequencies of the likeliest values
        special = pytest.importorskip("scipy.special")
        for v in range(max(0, int(lam) - 2), int(lam) + 3):
            p = special.pdtr(v, lam) - (special.pdtr(v - 1, lam) if v > 0 else 0.0)
            assert abs(np.mean(x == v) - p) < 5 * np.sqrt(p * (1 - p) / N_STAT)


def test_sampler_edge_values():
    k = R.PRNGKey(8)
    assert np.all(R.poisson(k, 0.0, (100,)) == 0)
    assert np.all(np.isnan(R.gamma(k, np.array([-1.0, -5.0, np.nan]))))
    assert np.all(np.isnan(R.beta(k, np.array([-2.0, 1.0]), np.array([1.0, -2.0]))))
    assert np.all(np.isnan(R.dirichlet(k, np.array([-2.0, 1.0]))))
    assert np.all(R.poisson(k, np.array([-1.0, np.nan])) == -1)  # as JAX gives
    # huge a: the sample is within a few sqrt(a) of a
    big = R.gamma(k, 1e12, (50,))
    assert np.all(np.abs(big - 1e12) < 6e6)
    assert R.gamma(k, 2.0, (3,), np.float32).dtype == np.float32
    assert R.poisson(k, 2.0, (3,), np.int32).dtype == np.int32
    assert R.gamma(k, np.ones((2, 0))).shape == (2, 0)


def test_sampler_errors():
    k = R.PRNGKey(9)
    with pytest.raises(ValueError, match="incompatible"):
        R.gamma(k, np.ones(3), (4,))
    with pytest.raises(ValueError, match="incompatible"):
        R.beta(k, np.ones(3), 1.0, (2, 4))
    with pytest.raises(ValueError, match="do not broadcast"):
        R.beta(k, np.ones(3), np.ones(4))
    with pytest.raises(ValueError, match="rank >= 1"):
        R.dirichlet(k, 1.0)
    with pytest.raises(ValueError, match="incompatible"):
        R.dirichlet(k, np.ones((2, 3)), (4,))
    with pytest.raises(ValueError, match="incompatible"):
        R.poisson(k, np.ones(3), (2,))
    with pytest.raises(TypeError, match="integers"):
        R.poisson(k, 1.0, dtype=np.float64)
    with pytest.raises(TypeError, match="float32 or float64"):
        R.gamma(k, 1.0, dtype=np.int64)
    with pytest.raises(TypeError, match="one key"):
        R.gamma(R.split(k), 1.0)


def test_samplers_under_transforms():
    k = R.PRNGKey(10)
    keys = R.split(k, 3)
    a = np.array([0.5, 2.0, 9.0, 30.0])
    fns = [lambda kk, x: R.gamma(kk, x), lambda kk, x: R.beta(kk, x, 1.5),
           lambda kk, x: R.dirichlet(kk, x), lambda kk, x: R.poisson(kk, x),
           lambda kk, x: R.loggamma(kk, x, (2, 4))]
    for f in fns:
        loop = np.stack([f(kk, a) for kk in keys])
        np.testing.assert_array_equal(tg.vmap(f, in_axes=(0, None))(keys, a), loop)
        np.testing.assert_array_equal(tg.jit(f)(k, a), f(k, a))
    per_a = np.stack([R.gamma(kk, x) for kk, x in zip(keys, a[:3])])
    np.testing.assert_array_equal(tg.vmap(lambda kk, x: R.gamma(kk, x))(keys, a[:3]), per_a)
    jaxpr = str(tg.make_jaxpr(lambda kk: R.poisson(kk, 3.0, (2,)))(k))
    assert "random_poisson" in jaxpr
    # vmap of the derivative in a equals the loop
    g = tg.vmap(tg.grad(lambda x, kk: tnp.sum(R.gamma(kk, x))), in_axes=(None, 0))(a, keys)
    np.testing.assert_allclose(
        g, np.stack([tg.grad(lambda x: tnp.sum(R.gamma(kk, x)))(a) for kk in keys]))
