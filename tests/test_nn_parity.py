"""``tracegrad.nn`` against ``jax.nn`` (x64): values and first and second
derivatives of the activations, at random points and at their kinks and
domain edges; ``standardize``, ``glu``, ``dot_product_attention`` (bias,
mask, causal, scale, grouped heads, sequence lengths, windows); and the
initializers' shapes, dtypes and distributions.
"""
import math

import numpy as np
import pytest

import tracegrad as tg
import tracegrad.nn as nn
import tracegrad.numpy as tnp
from tracegrad.nn import initializers

jax = pytest.importorskip("jax")
jax.config.update("jax_enable_x64", True)
jnp = jax.numpy

KINKS = np.array([-6.0, -3.0, -1.0, -0.5, 0.0, 0.5, 1.0, 3.0, 6.0, 1e-12, -1e-12, 30.0, -30.0])
RANDOM = np.random.default_rng(0).uniform(-5, 5, 40)
POINTS = np.concatenate([KINKS, RANDOM])

ELEMENTWISE = [
    ("selu", {}), ("celu", {}), ("celu", {"alpha": 0.5}), ("mish", {}), ("hard_tanh", {}),
    ("hard_sigmoid", {}), ("hard_silu", {}), ("hard_swish", {}), ("soft_sign", {}),
    ("sparse_plus", {}), ("sparse_sigmoid", {}), ("squareplus", {}), ("squareplus", {"b": 1.5}),
    ("relu6", {}), ("elu", {}), ("elu", {"alpha": 0.3}), ("leaky_relu", {}),
    ("leaky_relu", {"negative_slope": 0.2}), ("gelu", {}), ("gelu", {"approximate": False}),
    ("identity", {}), ("tanh", {}), ("silu", {}), ("relu", {}), ("sigmoid", {}), ("softplus", {}),
    ("log_sigmoid", {}),
]


def _derivs_tg(f, x):
    d1 = tg.grad(lambda v: tnp.sum(f(v)))
    d2 = tg.grad(lambda v: tnp.sum(d1(v)))
    return np.asarray(f(x)), np.asarray(d1(x)), np.asarray(d2(x))


def _derivs_jax(f, x):
    d1 = jax.grad(lambda v: jnp.sum(f(v)))
    d2 = jax.grad(lambda v: jnp.sum(d1(v)))
    return np.asarray(f(x)), np.asarray(d1(x)), np.asarray(d2(x))


@pytest.mark.parametrize("name, kw", ELEMENTWISE, ids=[f"{n}-{k}" for n, k in ELEMENTWISE])
def test_elementwise_values_and_derivatives_match_jax(name, kw):
    f = lambda v: getattr(nn, name)(v, **kw)  # noqa: E731
    jf = lambda v: getattr(jax.nn, name)(v, **kw)  # noqa: E731
    for got, want, what, atol in zip(_derivs_tg(f, POINTS), _derivs_jax(jf, POINTS),
                                     ("value", "first derivative", "second derivative"),
                                     (1e-14, 1e-14, 1e-10)):
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=atol,
                                   err_msg=f"{name}{kw} {what} at {POINTS}")
    # fwd mode agrees with rev mode at every point, kinks included
    _, t = tg.jvp(f, (POINTS,), (np.ones_like(POINTS),))
    np.testing.assert_allclose(t, _derivs_tg(f, POINTS)[1], rtol=1e-12, atol=1e-14)
    assert nn.__dict__[name](np.float32(0.5), **kw).dtype == np.float32
    assert nn.__dict__[name](np.arange(3), **kw).dtype == np.float64


def test_kink_derivatives_are_jaxs_exact_values():
    d = lambda f, x: float(tg.grad(f)(x))  # noqa: E731
    assert [d(nn.hard_tanh, x) for x in (-1.0, 1.0, 1.5, -1.5)] == [1.0, 1.0, 0.0, 0.0]
    assert [d(nn.hard_sigmoid, x) for x in (-3.0, 3.0, 0.0)] == [0.0, 0.0, 1 / 6]
    assert [d(nn.hard_silu, x) for x in (-3.0, 3.0)] == [0.0, 1.0]
    assert [d(nn.relu6, x) for x in (0.0, 6.0)] == [0.0, 0.0]
    assert [d(nn.sparse_plus, x) for x in (-1.0, 1.0)] == [0.0, 1.0]
    assert d(nn.soft_sign, 0.0) == 1.0
    assert d(nn.selu, 0.0) == pytest.approx(1.0507009873554805 * 1.6732632423543772, rel=1e-15)


def test_log1mexp_edges_match_jax():
    x = np.array([0.0, 1e-300, 1e-10, 1e-5, 0.1, math.log(2.0), 0.7, 1.0, 10.0, 40.0, 800.0,
                  np.inf])
    got, jgot = nn.log1mexp(x), np.asarray(jax.nn.log1mexp(x))
    np.testing.assert_allclose(got, jgot, rtol=1e-14)
    assert got[0] == -np.inf and got[-1] == 0.0
    assert got[2] == pytest.approx(math.log(1e-10) - 0.5e-10, rel=1e-15)
    assert got[9] == pytest.approx(-math.exp(-40.0), rel=1e-14)
    assert np.isnan(nn.log1mexp(-1.0))
    inner = x[1:-1]
    d1, jd1 = tg.grad(lambda v: tnp.sum(nn.log1mexp(v)))(inner), \
        jax.grad(lambda v: jnp.sum(jax.nn.log1mexp(v)))(inner)
    np.testing.assert_allclose(d1, jd1, rtol=1e-12)
    with np.errstate(over="ignore"):  # expm1(800) = inf: the derivative is 0
        np.testing.assert_allclose(d1, 1.0 / np.expm1(inner), rtol=1e-12)
    assert float(tg.grad(nn.log1mexp)(0.0)) == np.inf  # as JAX's 1 / expm1(0)
    assert float(tg.grad(nn.log1mexp)(0.0)) == float(jax.grad(jax.nn.log1mexp)(0.0))
    assert np.isfinite(float(tg.grad(tg.grad(nn.log1mexp))(1e-5)))


@pytest.mark.parametrize("kw", [{}, {"axis": 0}, {"axis": (0, 1)}, {"algorithm": "stable"},
                                {"epsilon": 0.1}, {"where": "mask"}, {"given": True}])
def test_standardize_matches_jax(kw):
    x = np.random.default_rng(1).standard_normal((3, 4)) * 2 + 1
    kw = dict(kw)
    if kw.get("where") == "mask":
        kw["where"] = np.array([[True, False, True, True]] * 3)
    if kw.pop("given", False):
        kw.update(mean=np.full((3, 1), 0.5), variance=np.full((3, 1), 2.0))
    np.testing.assert_allclose(nn.standardize(x, **kw), jax.nn.standardize(x, **kw), rtol=1e-12)
    g = tg.grad(lambda v: tnp.sum(tnp.sin(nn.standardize(v, **kw))))(x)
    jg = jax.grad(lambda v: jnp.sum(jnp.sin(jax.nn.standardize(v, **kw))))(x)
    np.testing.assert_allclose(g, jg, rtol=1e-10, atol=1e-12)
    with pytest.raises(ValueError, match="algorithm"):
        nn.standardize(x, algorithm="exact")


def test_glu_matches_jax():
    x = np.random.default_rng(2).standard_normal((4, 6))
    for axis in (-1, 0, 1):
        np.testing.assert_allclose(nn.glu(x, axis), jax.nn.glu(x, axis), rtol=1e-13)
    g = tg.grad(lambda v: tnp.sum(nn.glu(v, 0) ** 2))(x)
    np.testing.assert_allclose(g, jax.grad(lambda v: jnp.sum(jax.nn.glu(v, 0) ** 2))(x), rtol=1e-12)
    with pytest.raises(ValueError, match="odd length 3"):
        nn.glu(np.ones((2, 3)))


def _attention_inputs(B=2, T=3, S=4, N=4, K=2, H=5, seed=3):
    r = np.random.default_rng(seed)
    shape_b = (B,) if B else ()
    return (r.standard_normal(shape_b + (T, N, H)), r.standard_normal(shape_b + (S, K, H)),
            r.standard_normal(shape_b + (S, K, H)))


ATTENTION = [
    ({}, {}),
    ({"K": 4}, {"scale": 0.3, "bias": "bias"}),
    ({}, {"mask": "mask"}),
    ({"S": 3}, {"is_causal": True, "bias": "bias", "scale": 2.0, "compare_grads": True}),
    ({"K": 1}, {"mask": "mask", "is_causal": True}),
    ({"B": 0, "K": 4}, {"is_causal": True, "local_window_size": 1}),
    ({}, {"query_seq_lengths": np.array([2, 3], np.int32),
          "key_value_seq_lengths": np.array([4, 1], np.int32), "mask": "mask",
          "compare_grads": True}),
    ({"S": 5}, {"local_window_size": (1, 2)}),
]


@pytest.mark.parametrize("shapes, kw", ATTENTION, ids=range(len(ATTENTION)))
def test_dot_product_attention_matches_jax(shapes, kw):
    q, k, v = _attention_inputs(**shapes)
    kw = dict(kw)
    B, T, S, N = (q.shape[0] if q.ndim == 4 else 1), q.shape[-3], k.shape[-3], q.shape[-2]
    r = np.random.default_rng(4)
    if kw.get("bias") == "bias":
        kw["bias"] = r.standard_normal((1, N, T, S))
    if kw.get("mask") == "mask":
        m = r.random((B, 1, T, S)) < 0.7
        m[..., 0] = True
        kw["mask"] = m
    grads = kw.pop("compare_grads", False)
    got = nn.dot_product_attention(q, k, v, **kw)
    want = np.asarray(jax.nn.dot_product_attention(q, k, v, **kw))
    assert got.shape == want.shape == q.shape
    # JAX runs the softmax in float32 even under x64
    np.testing.assert_allclose(got, want, rtol=2e-6, atol=2e-6)
    if not grads:
        return  # JAX compiles each configuration's gradient for seconds: two cases suffice

    def loss(f, np_):
        return lambda q, k, v: np_.sum(np_.tanh(f(q, k, v, **kw)))

    g = tg.grad(loss(nn.dot_product_attention, tnp), argnums=(0, 1, 2))(q, k, v)
    jg = jax.grad(loss(jax.nn.dot_product_attention, jnp), argnums=(0, 1, 2))(q, k, v)
    for a, b in zip(g, jg):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-5)


def test_dot_product_attention_residual_and_errors():
    q, k, v = _attention_inputs()
    out, lse = nn.dot_product_attention(q, k, v, is_causal=False, return_residual=True)
    jout, jlse = jax.nn.dot_product_attention(q, k, v, return_residual=True)
    np.testing.assert_allclose(lse, jlse, rtol=2e-6)
    assert lse.shape == (2, 3, 4)
    with pytest.raises(ValueError, match="multiple"):
        nn.dot_product_attention(q[:, :, :3], k, v)
    with pytest.raises(ValueError, match="bool"):
        nn.dot_product_attention(q, k, v, mask=np.ones((1, 1, 3, 4)))
    with pytest.raises(ValueError, match="value"):
        nn.dot_product_attention(q, k, v[:, :2])
    with pytest.raises(ValueError, match="implementation"):
        nn.dot_product_attention(q, k, v, implementation="cudnn")
    # float64 kept (JAX's softmax would be float32)
    assert nn.dot_product_attention(q, k, v).dtype == np.float64
    q32, k32, v32 = (a.astype(np.float32) for a in (q, k, v))
    assert nn.dot_product_attention(q32, k32, v32).dtype == np.float32


def test_one_hot_matches_jax():
    x = np.array([0, 2, -1, 3, 1])
    for axis in (-1, 0):
        np.testing.assert_array_equal(nn.one_hot(x, 3, axis=axis), jax.nn.one_hot(x, 3, axis=axis))


# --------------------------------------------------------------------------
# initializers


def test_initializer_names_are_jaxs():
    import jax.nn.initializers as ji  # noqa: PLC0415

    public = {n for n in dir(ji) if not n.startswith("_") and n != "Initializer"}
    assert public <= set(initializers.__all__)
    assert nn.initializers is initializers


def test_constant_zeros_ones():
    assert np.array_equal(initializers.zeros(0, (2, 3)), np.zeros((2, 3)))
    assert initializers.ones(np.random.default_rng(0), (2,), np.float32).dtype == np.float32
    c = initializers.constant(np.array([1.0, 2.0]))(0, (3, 2))
    assert np.array_equal(c, [[1, 2]] * 3) and c.flags.writeable
    with pytest.raises(TypeError, match="Generator or an integer seed"):
        initializers.normal()("key", (2,))
    with pytest.raises(TypeError, match="dtype"):
        initializers.zeros(0, (2,), np.int32)


def _fan_var(shape, mode, in_axis=-2, out_axis=-1):
    rf = math.prod(shape) / shape[in_axis] / shape[out_axis]
    fi, fo = shape[in_axis] * rf, shape[out_axis] * rf
    return {"fan_in": fi, "fan_out": fo, "fan_avg": (fi + fo) / 2}[mode]


@pytest.mark.parametrize("name, scale, mode, dist", [
    ("glorot_uniform", 1.0, "fan_avg", "uniform"), ("glorot_normal", 1.0, "fan_avg", "trunc"),
    ("xavier_uniform", 1.0, "fan_avg", "uniform"), ("lecun_uniform", 1.0, "fan_in", "uniform"),
    ("lecun_normal", 1.0, "fan_in", "trunc"), ("he_uniform", 2.0, "fan_in", "uniform"),
    ("he_normal", 2.0, "fan_in", "trunc"), ("kaiming_normal", 2.0, "fan_in", "trunc"),
])
def test_variance_scaling_family_statistics(name, scale, mode, dist):
    shape = (3, 200, 300)
    w = getattr(initializers, name)()(np.random.default_rng(5), shape)
    assert w.shape == shape and w.dtype == np.float64
    var = scale / _fan_var(shape, mode)
    assert w.var() == pytest.approx(var, rel=0.02)
    bound = math.sqrt(3 * var) if dist == "uniform" else 2 * math.sqrt(var) / 0.87962566103423978
    assert np.abs(w).max() <= bound and np.abs(w).max() > 0.98 * bound
    if name in ("glorot_normal", "he_uniform"):  # JAX itself, for one of each distribution
        jw = np.asarray(getattr(jax.nn.initializers, name)()(jax.random.key(0), shape))
        assert jw.shape == shape and w.var() == pytest.approx(jw.var(), rel=0.03)
        assert np.abs(jw).max() <= bound * (1 + 1e-6)


def test_normal_uniform_truncated_and_keys():
    rng = np.random.default_rng(6)
    w = initializers.normal(0.5)(rng, (100000,))
    assert w.std() == pytest.approx(0.5, rel=0.02)
    u = initializers.uniform(3.0)(rng, (100000,), np.float32)
    assert u.dtype == np.float32 and 0 <= u.min() and u.max() < 3.0 and u.mean() == pytest.approx(1.5, rel=0.02)
    t = initializers.truncated_normal(2.0, lower=-1.0, upper=0.5)(rng, (50000,))
    assert t.min() >= -2.0 and t.max() <= 1.0
    # a Generator advances; an integer seed repeats
    assert not np.array_equal(initializers.normal()(rng, (3,)), initializers.normal()(rng, (3,)))
    assert np.array_equal(initializers.normal()(7, (3,)), initializers.normal()(7, (3,)))
    with pytest.raises(ValueError, match="in_axis"):
        initializers.glorot_normal()(0, (5,))
    with pytest.raises(ValueError, match="mode"):
        initializers.variance_scaling(1.0, "fan_max", "normal")(0, (2, 2))
    with pytest.raises(ValueError, match="distribution"):
        initializers.variance_scaling(1.0, "fan_in", "cauchy")(0, (2, 2))
    vs = initializers.variance_scaling(1.0, "fan_geo_avg", "normal", in_axis=0, out_axis=(1, 2),
                                       batch_axis=3)(0, (40, 5, 6, 7))
    assert vs.shape == (40, 5, 6, 7) and vs.var() == pytest.approx(1 / math.sqrt(40 * 30), rel=0.1)


@pytest.mark.parametrize("shape, axis", [((4, 6), -1), ((6, 4), -1), ((3, 2, 5), -1), ((5, 3), 0)])
def test_orthogonal(shape, axis):
    w = initializers.orthogonal(scale=2.0, column_axis=axis)(np.random.default_rng(7), shape)
    jw = np.asarray(jax.nn.initializers.orthogonal(scale=2.0, column_axis=axis)(jax.random.key(0), shape))
    assert w.shape == jw.shape == shape
    m = np.moveaxis(w, axis, -1).reshape(-1, shape[axis]) / 2.0
    small = min(m.shape)
    gram = m.T @ m if m.shape[0] >= m.shape[1] else m @ m.T
    np.testing.assert_allclose(gram, np.eye(small), atol=1e-12)
    with pytest.raises(ValueError, match="2-D"):
        initializers.orthogonal()(0, (3,))


def test_delta_orthogonal():
    w = initializers.delta_orthogonal()(0, (3, 3, 4, 5))
    jw = np.asarray(jax.nn.initializers.delta_orthogonal()(jax.random.key(0), (3, 3, 4, 5)))
    assert np.count_nonzero(w) == np.count_nonzero(jw) == 20
    np.testing.assert_allclose(w[1, 1] @ w[1, 1].T, np.eye(4), atol=1e-12)
    assert np.all(w[0] == 0) and np.all(w[:, 2] == 0)
    with pytest.raises(ValueError, match="exceed"):
        initializers.delta_orthogonal()(0, (3, 5, 4))
    with pytest.raises(ValueError, match="3-, 4- or 5-D"):
        initializers.delta_orthogonal()(0, (5, 4))
