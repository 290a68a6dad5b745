"""Tests of tracegrad.nn and its primitives (primitives/nn.py).

Values are compared with plain-NumPy references written here (and with
jax.nn where installed), derivatives with ``check_grads`` to second order in
both modes, and every documented edge value is pinned exactly.
"""
import math
import pickle

import numpy as np
import pytest

import tracegrad as tg
import tracegrad.nn as nn
from tracegrad.primitives import ops
from tracegrad.primitives.core import ShapedArray, registry
from tracegrad.test_util import check_grads

rng = np.random.default_rng(1234)


# --------------------------------------------------------------------------
# NumPy references (independent of the implementation's formulas)

def ref_sigmoid(x):
    x = np.asarray(x, np.float64)
    with np.errstate(over="ignore"):
        return 1.0 / (1.0 + np.exp(-x))


def ref_softplus(x):
    return np.logaddexp(np.asarray(x, np.float64), 0.0)


def ref_logsumexp(x, axis=None, keepdims=False):
    x = np.asarray(x, np.float64)
    m = np.max(x, axis=axis, keepdims=True)
    out = m + np.log(np.sum(np.exp(x - m), axis=axis, keepdims=True))
    return out if keepdims else np.squeeze(out, axis=axis)


def ref_log_softmax(x, axis=-1):
    return np.asarray(x, np.float64) - ref_logsumexp(x, axis, keepdims=True)


def ref_softmax(x, axis=-1):
    return np.exp(ref_log_softmax(x, axis))


def ref_gelu(x, approximate):
    x = np.asarray(x, np.float64)
    if approximate:
        return 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x**3)))
    return 0.5 * x * (1 + np.vectorize(math.erf)(x / math.sqrt(2)))


ELEMENTWISE = {
    "sigmoid": (nn.sigmoid, ref_sigmoid),
    "relu": (nn.relu, lambda x: np.maximum(x, 0)),
    "softplus": (nn.softplus, ref_softplus),
    "log_sigmoid": (nn.log_sigmoid, lambda x: -ref_softplus(-np.asarray(x))),
    "silu": (nn.silu, lambda x: x * ref_sigmoid(x)),
    "swish": (nn.swish, lambda x: x * ref_sigmoid(x)),
    "gelu_tanh": (nn.gelu, lambda x: ref_gelu(x, True)),
    "gelu_erf": (lambda x: nn.gelu(x, approximate=False), lambda x: ref_gelu(x, False)),
    "elu": (nn.elu, lambda x: np.where(x > 0, x, np.expm1(np.minimum(x, 0)))),
    "elu_alpha": (lambda x: nn.elu(x, 0.5), lambda x: np.where(x > 0, x, 0.5 * np.expm1(np.minimum(x, 0)))),
    "leaky_relu": (nn.leaky_relu, lambda x: np.where(x >= 0, x, 0.01 * x)),
    "relu6": (nn.relu6, lambda x: np.clip(x, 0, 6)),
}

SHAPES = [(), (5,), (3, 4), (2, 3, 4)]


def _away_from_kinks(x):
    """Random inputs kept 0.05 away from the kinks (0 and 6) of piecewise functions."""
    x = np.where(np.abs(x) < 0.05, x + 0.1, x)
    return np.where(np.abs(x - 6) < 0.05, x + 0.1, x)


@pytest.mark.parametrize("name", sorted(ELEMENTWISE))
@pytest.mark.parametrize("shape", SHAPES)
def test_elementwise_values_and_grads(name, shape):
    f, ref = ELEMENTWISE[name]
    x = _away_from_kinks(rng.standard_normal(shape) * 3)
    np.testing.assert_allclose(f(x), ref(x), rtol=1e-13, atol=1e-15)
    check_grads(f, (x,), order=2, modes=("fwd", "rev"))


@pytest.mark.parametrize("name", sorted(ELEMENTWISE))
def test_elementwise_float32(name):
    f, ref = ELEMENTWISE[name]
    x = _away_from_kinks(rng.standard_normal((4, 5)) * 2).astype(np.float32)
    out = f(x)
    assert out.dtype == np.float32 and out.shape == x.shape
    np.testing.assert_allclose(out, ref(x.astype(np.float64)), rtol=2e-6, atol=1e-6)
    check_grads(f, (x,), order=2, modes=("fwd", "rev"), atol=5e-2, rtol=5e-2)


def test_integer_and_list_inputs_become_float64():
    out = nn.sigmoid([0, 1, 2])
    assert out.dtype == np.float64
    np.testing.assert_allclose(out, ref_sigmoid([0, 1, 2]), rtol=1e-15)
    assert nn.softmax(np.arange(3)).dtype == np.float64
    assert float(nn.relu(-3)) == 0.0


def test_large_array_matches_reference():
    # exercises the vectorized polynomial exp on a wide range of arguments
    x = np.linspace(-800, 800, 100_001)
    np.testing.assert_allclose(nn.sigmoid(x), ref_sigmoid(x), rtol=2e-15, atol=1e-300)
    np.testing.assert_allclose(nn.softplus(x), ref_softplus(x), rtol=2e-15, atol=1e-300)
    y = rng.standard_normal((300, 400)) * 30
    np.testing.assert_allclose(nn.logsumexp(y, axis=1), ref_logsumexp(y, 1), rtol=1e-14)
    np.testing.assert_allclose(nn.log_softmax(y, axis=0), ref_log_softmax(y, 0), rtol=1e-13, atol=1e-12)


# --------------------------------------------------------------------------
# softmax, log_softmax, logsumexp over axes

AXES = [((5,), -1), ((3, 4), -1), ((3, 4), 0), ((3, 4), (0, 1)), ((2, 3, 4), 1),
        ((2, 3, 4), (0, 2)), ((2, 3, 4), (-1, -3)), ((2, 3, 4), -2)]


@pytest.mark.parametrize("shape,axis", AXES)
@pytest.mark.parametrize("fname", ["softmax", "log_softmax"])
def test_normalizers(fname, shape, axis, float_dtype=np.float64):
    f = getattr(nn, fname)
    ref = {"softmax": ref_softmax, "log_softmax": ref_log_softmax}[fname]
    x = rng.standard_normal(shape) * 2
    ax = axis if isinstance(axis, int) else tuple(axis)
    np.testing.assert_allclose(f(x, axis=axis), ref(x, ax), rtol=1e-13, atol=1e-15)
    check_grads(lambda x: f(x, axis=axis), (x,), order=2, modes=("fwd", "rev"))


@pytest.mark.parametrize("shape,axis", AXES + [((3, 4), None), ((), None)])
@pytest.mark.parametrize("keepdims", [False, True])
def test_logsumexp(shape, axis, keepdims):
    x = rng.standard_normal(shape) * 2
    ax = axis if axis is None or isinstance(axis, int) else tuple(axis)
    out = nn.logsumexp(x, axis=axis, keepdims=keepdims)
    expected = ref_logsumexp(x, ax, keepdims=keepdims)
    assert np.shape(out) == np.shape(expected)
    np.testing.assert_allclose(out, expected, rtol=1e-14)
    check_grads(lambda x: nn.logsumexp(x, axis=axis, keepdims=keepdims), (x,), order=2)


@pytest.mark.parametrize("fname", ["softmax", "log_softmax", "logsumexp"])
def test_normalizers_float32(fname):
    f = getattr(nn, fname)
    x = (rng.standard_normal((3, 5)) * 2).astype(np.float32)
    out = f(x, axis=1)
    assert out.dtype == np.float32
    ref = {"softmax": ref_softmax, "log_softmax": ref_log_softmax, "logsumexp": ref_logsumexp}[fname]
    np.testing.assert_allclose(out, ref(x.astype(np.float64), 1), rtol=2e-6, atol=2e-6)
    check_grads(lambda x: f(x, axis=1), (x,), order=2, atol=5e-2, rtol=5e-2)


def test_non_contiguous_input():
    x = rng.standard_normal((6, 8))[::2, ::-2]
    np.testing.assert_allclose(nn.softmax(x, axis=0), ref_softmax(x, 0), rtol=1e-13)
    np.testing.assert_allclose(nn.sigmoid(x.T), ref_sigmoid(x.T), rtol=1e-14)
    check_grads(lambda x: nn.log_softmax(x, axis=0), (x,), order=2)


def test_softmax_rows_sum_to_one():
    x = rng.standard_normal((7, 9)) * 10
    np.testing.assert_allclose(np.sum(nn.softmax(x), axis=-1), np.ones(7), rtol=1e-15)
    np.testing.assert_allclose(np.sum(nn.softmax(x, axis=0), axis=0), np.ones(9), rtol=1e-15)
    np.testing.assert_allclose(np.sum(np.exp(nn.log_softmax(x)), axis=-1), np.ones(7), rtol=1e-14)


def test_softmax_where_mask():
    x = rng.standard_normal((2, 4))
    where = np.array([[True, True, False, True], [True, False, False, True]])
    y = nn.softmax(x, where=where)
    expected = np.where(where, np.exp(x) / np.sum(np.where(where, np.exp(x), 0), -1, keepdims=True), 0)
    np.testing.assert_allclose(y, expected, rtol=1e-14)
    ly = nn.log_softmax(x, where=where)
    assert np.all(ly[~where] == -np.inf)
    np.testing.assert_allclose(ly[where], np.log(expected[where]), rtol=1e-13)
    g = tg.grad(lambda x: np.sum(nn.softmax(x, where=where) * np.arange(4.0)))(x)
    assert np.all(g[~where] == 0) and np.all(np.isfinite(g))


def test_logsumexp_with_weights():
    a = rng.standard_normal((3, 4))
    b = rng.uniform(0.1, 2.0, (3, 4))
    np.testing.assert_allclose(nn.logsumexp(a, axis=1, b=b), np.log(np.sum(b * np.exp(a), 1)), rtol=1e-14)
    check_grads(lambda a, b: nn.logsumexp(a, axis=1, b=b), (a, b), order=2)
    # broadcasting weights, negative sums with return_sign
    b2 = np.array([1.0, -2.0, 0.5, 0.0])
    out, sign = nn.logsumexp(a, axis=1, b=b2, return_sign=True)
    s = np.sum(b2 * np.exp(a), 1)
    np.testing.assert_allclose(out, np.log(np.abs(s)), rtol=1e-13)
    np.testing.assert_array_equal(sign, np.sign(s))
    plain = nn.logsumexp(a, axis=1, b=b2)
    assert np.all(np.isnan(plain[s < 0])) and np.all(np.isfinite(plain[s > 0]))
    # huge arguments stay finite with weights too
    assert float(nn.logsumexp(np.array([1000.0, 1000.0]), b=np.array([1.0, 3.0]))) == 1000 + math.log(4)
    out, sign = nn.logsumexp([1.0, 2.0], return_sign=True)
    assert float(sign) == 1.0 and float(out) == pytest.approx(np.logaddexp(1.0, 2.0), rel=1e-15)


def test_axis_errors():
    with pytest.raises(np.exceptions.AxisError, match="out of bounds"):
        nn.softmax(np.ones((2, 3)), axis=2)
    with pytest.raises(ValueError, match="repeated axis"):
        nn.logsumexp(np.ones((2, 3)), axis=(1, -1))
    with pytest.raises(TypeError, match="real arrays"):
        nn.sigmoid(np.ones(2, complex))


# --------------------------------------------------------------------------
# exact edge values (README semantics)

def _grad(f):
    return tg.grad(lambda x: np.sum(f(x)))


def _second(f):
    return tg.grad(tg.grad(f))


def test_softplus_edges():
    assert float(nn.softplus(1000.0)) == 1000.0
    assert float(nn.softplus(-1000.0)) == 0.0
    assert float(tg.grad(nn.softplus)(1000.0)) == 1.0
    assert float(tg.grad(nn.softplus)(-1000.0)) == 0.0
    assert float(_second(nn.softplus)(1000.0)) == 0.0
    assert float(_second(nn.softplus)(-1000.0)) == 0.0
    assert float(nn.softplus(np.inf)) == np.inf and float(nn.softplus(-np.inf)) == 0.0
    assert float(tg.grad(nn.softplus)(np.inf)) == 1.0
    assert float(tg.grad(nn.softplus)(-np.inf)) == 0.0
    assert float(nn.softplus(0.0)) == math.log(2.0)
    assert float(tg.grad(nn.softplus)(0.0)) == 0.5


def test_log_sigmoid_edges():
    assert float(nn.log_sigmoid(-1000.0)) == -1000.0
    assert float(tg.grad(nn.log_sigmoid)(-1000.0)) == 1.0
    assert float(nn.log_sigmoid(1000.0)) == 0.0
    assert float(tg.grad(nn.log_sigmoid)(1000.0)) == 0.0
    assert float(_second(nn.log_sigmoid)(-1000.0)) == 0.0
    assert float(_second(nn.log_sigmoid)(1000.0)) == 0.0
    assert float(nn.log_sigmoid(-np.inf)) == -np.inf
    assert float(tg.grad(nn.log_sigmoid)(-np.inf)) == 1.0


def test_sigmoid_edges():
    x = np.array([-1000.0, -np.inf, 0.0, 1000.0, np.inf])
    np.testing.assert_array_equal(nn.sigmoid(x), [0.0, 0.0, 0.5, 1.0, 1.0])
    np.testing.assert_array_equal(_grad(nn.sigmoid)(x), [0.0, 0.0, 0.25, 0.0, 0.0])
    for v in (-1000.0, 1000.0):
        assert float(_second(nn.sigmoid)(v)) == 0.0
        assert float(tg.jacfwd(tg.grad(nn.sigmoid))(v)) == 0.0
    assert np.isnan(float(nn.sigmoid(np.nan)))


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_edges_on_kernel_path(dtype):
    # small arrays of softplus (and log_sigmoid) use NumPy formulations,
    # large ones the Numba kernels: the edge values must agree on both paths
    edge = np.array([-np.inf, -1000.0, -40.0, 0.0, 40.0, 1000.0, np.inf], dtype)
    big = np.tile(edge, 300)
    for f in (nn.sigmoid, nn.softplus, nn.log_sigmoid):
        np.testing.assert_array_equal(f(big)[:7], f(edge))
        np.testing.assert_array_equal(_grad(f)(big)[:7], _grad(f)(edge))
        np.testing.assert_array_equal(tg.jacfwd(_grad(f))(edge), np.diag(_second_diag(f, big)[:7]))
    assert nn.sigmoid(big).dtype == dtype


def _second_diag(f, x):
    return tg.grad(lambda x: np.sum(_grad(f)(x)))(x)


def test_numpy_fallback_edges_match_kernels():
    # float16 takes the NumPy formulations; they agree with the float64 kernels
    edge = np.array([-np.inf, -1000.0, -40.0, 0.0, 40.0, 1000.0, np.inf])
    for f in (nn.sigmoid, nn.softplus, nn.log_sigmoid):
        out = f(edge.astype(np.float16))
        assert out.dtype == np.float16
        np.testing.assert_array_equal(out, f(np.tile(edge, 300))[:7].astype(np.float16))


def test_subnormal_results_are_rounded_not_flushed():
    # exp results below 2**-1022 come out as subnormals (within one subnormal
    # ulp of NumPy), not 0, on the kernel path and on the NumPy path alike
    tiny = np.finfo(np.float64).smallest_subnormal
    x = np.array([-709.0, -720.0, -740.0, -744.0, -745.0, -746.0, -800.0])
    expected = np.exp(x)  # sigmoid(x) and softplus(x) round to exp(x) here
    for n in (7, 7 * 300):
        xs = np.tile(x, n // 7)
        for f in (nn.sigmoid, nn.softplus):
            np.testing.assert_allclose(f(xs)[:7], expected, rtol=0, atol=tiny)
    assert nn.sigmoid(np.array([-720.0]))[0] > 0.0
    np.testing.assert_allclose(nn.softmax(np.array([0.0, -720.0])), [1.0, np.exp(-720.0)],
                               rtol=0, atol=tiny)
    assert nn.softmax(np.array([0.0, -720.0]))[1] > 0.0
    np.testing.assert_allclose(_grad(nn.softplus)(x), expected, rtol=0, atol=tiny)


@pytest.mark.parametrize("fname", ["softmax", "log_softmax", "logsumexp"])
def test_row_layouts_agree(fname):
    # C-contiguous inputs reduced over trailing axes take a no-copy path; other
    # layouts are transposed/copied into rows first: same kernel, same values
    f = getattr(nn, fname)
    # a generator of its own: the draws of the module's `rng` stay as before
    x = np.random.default_rng(5).standard_normal((3, 4, 5))
    for axis in (-1, (1, 2), 0, (0, 2)):
        ax = (axis,) if isinstance(axis, int) else axis
        ref = {"softmax": ref_softmax, "log_softmax": ref_log_softmax,
               "logsumexp": ref_logsumexp}[fname](x, ax)
        contiguous = f(x, axis=axis)
        np.testing.assert_allclose(contiguous, ref, rtol=1e-13, atol=1e-15)
        strided = np.ones((3, 4, 10))
        strided[:, :, ::2] = x
        np.testing.assert_array_equal(f(strided[:, :, ::2], axis=axis), contiguous)
        # an array whose float64 dtype is not NumPy's canonical dtype object
        unpickled = pickle.loads(pickle.dumps(x))
        np.testing.assert_array_equal(f(unpickled, axis=axis), contiguous)
    np.testing.assert_allclose(f(x[0, 0]), f(x[0, 0][None], axis=-1)[0], rtol=1e-15)


@pytest.mark.parametrize("name", ["softmax_grad", "log_softmax_vjp", "log_softmax_jvp",
                                  "logsumexp_grad", "sigmoid_grad", "softplus_grad"])
def test_fused_primitives_on_any_layout(name):
    # strided, transposed and 3-D operands give the values of C-contiguous ones
    f, args, _ = _prim_cases(np.random.default_rng(7))[name]
    expected = f(*args)
    np.testing.assert_array_equal(f(*[np.asfortranarray(a) for a in args]), expected)
    np.testing.assert_array_equal(f(*[pickle.loads(pickle.dumps(a)) for a in args]), expected)


def test_relu_derivative_at_zero():
    assert float(tg.grad(nn.relu)(0.0)) == 0.0
    assert float(tg.jacfwd(nn.relu)(0.0)) == 0.0
    assert float(tg.jvp(nn.relu, (0.0,), (1.0,))[1]) == 0.0
    assert float(_second(nn.relu)(0.0)) == 0.0
    assert float(tg.jacfwd(tg.jacrev(nn.relu))(0.0)) == 0.0
    np.testing.assert_array_equal(_grad(nn.relu)(np.array([-1.0, 0.0, 2.0])), [0.0, 0.0, 1.0])
    assert np.isnan(float(nn.relu(np.nan)))


def test_relu6_and_leaky_and_elu_kinks():
    np.testing.assert_array_equal(_grad(nn.relu6)(np.array([-1.0, 0.0, 3.0, 6.0, 7.0])), [0, 0, 1, 0, 0])
    np.testing.assert_array_equal(_grad(nn.leaky_relu)(np.array([-1.0, 0.0, 1.0])), [0.01, 1.0, 1.0])
    # elu: no inf/NaN from the unused exp branch at large x
    np.testing.assert_array_equal(_grad(nn.elu)(np.array([1000.0, 0.0, -1000.0])), [1.0, 1.0, 0.0])
    assert float(_second(nn.elu)(1000.0)) == 0.0


def test_logsumexp_edges():
    big = np.array([1000.0, 1000.0])
    assert float(nn.logsumexp(big)) == 1000.0 + math.log(2.0)
    np.testing.assert_array_equal(tg.grad(nn.logsumexp)(big), [0.5, 0.5])
    assert float(nn.logsumexp(-big)) == -1000.0 + math.log(2.0)
    np.testing.assert_array_equal(tg.grad(nn.logsumexp)(-big), [0.5, 0.5])
    np.testing.assert_allclose(tg.hessian(nn.logsumexp)(big), [[0.25, -0.25], [-0.25, 0.25]], rtol=1e-15)
    np.testing.assert_allclose(tg.hessian(nn.logsumexp)(-big), [[0.25, -0.25], [-0.25, 0.25]], rtol=1e-15)
    # all -inf: -inf, no NaN in the value
    out = nn.logsumexp(np.array([-np.inf, -np.inf]))
    assert float(out) == -np.inf
    out = nn.logsumexp(np.full((2, 3), -np.inf), axis=1)
    np.testing.assert_array_equal(out, [-np.inf, -np.inf])
    # +inf dominates; mixed -inf entries are ignored
    assert float(nn.logsumexp(np.array([np.inf, 1.0]))) == np.inf
    assert float(nn.logsumexp(np.array([-np.inf, 0.0]))) == 0.0
    np.testing.assert_array_equal(tg.grad(nn.logsumexp)(np.array([-np.inf, 0.0])), [0.0, 1.0])
    # an empty axis sums to zero: log(0) = -inf
    assert float(nn.logsumexp(np.zeros(0))) == -np.inf


def test_softmax_and_log_softmax_edges():
    x = np.array([1000.0, 0.0, -1000.0])
    np.testing.assert_array_equal(nn.softmax(x), [1.0, 0.0, 0.0])
    np.testing.assert_array_equal(nn.log_softmax(x), [0.0, -1000.0, -2000.0])
    w = np.array([0.3, -1.2, 2.0])
    for f in (nn.softmax, nn.log_softmax):
        for jac in (tg.jacfwd, tg.jacrev):
            j = jac(f)(x)
            assert np.all(np.isfinite(j))
        h = tg.hessian(lambda x: np.sum(f(x) * w))(x)
        assert np.all(np.isfinite(h))
    np.testing.assert_array_equal(tg.jacrev(nn.log_softmax)(x), [[0, 0, 0], [-1, 1, 0], [-1, 0, 1]])
    np.testing.assert_array_equal(tg.jacfwd(nn.softmax)(x), np.zeros((3, 3)))
    np.testing.assert_array_equal(tg.jacfwd(nn.log_softmax)(-x), [[1, 0, -1], [0, 1, -1], [0, 0, 0]])


# --------------------------------------------------------------------------
# Hessians against finite differences of the gradient

def _fd_hessian(f, x, eps=1e-5):
    g = tg.grad(f)
    cols = []
    for i in range(x.size):
        e = np.zeros_like(x)
        e.flat[i] = eps
        cols.append((g(x + e) - g(x - e)).ravel() / (2 * eps))
    return np.array(cols).T.reshape(x.shape + x.shape)


@pytest.mark.parametrize("fname", ["log_softmax", "logsumexp", "softmax"])
def test_hessian_against_finite_differences(fname):
    f = getattr(nn, fname)
    x = rng.standard_normal((2, 3))
    w = rng.standard_normal((2, 3)) if fname != "logsumexp" else rng.standard_normal(2)

    def scalar(x):
        return np.sum(f(x, axis=1) * w)

    h = tg.hessian(scalar)(x)
    np.testing.assert_allclose(h, _fd_hessian(scalar, x), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(h, tg.jacrev(tg.jacfwd(scalar))(x), rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(h.reshape(6, 6), h.reshape(6, 6).T, rtol=1e-12, atol=1e-14)


def test_logsumexp_hessian_closed_form():
    # Hessian of logsumexp is diag(p) - p p^T with p = softmax(x)
    x = rng.standard_normal(5)
    p = ref_softmax(x)
    np.testing.assert_allclose(tg.hessian(nn.logsumexp)(x), np.diag(p) - np.outer(p, p), rtol=1e-13, atol=1e-16)
    # Hessian of log_softmax(x)_k is the negative of it, for every k
    for k in range(5):
        h = tg.hessian(lambda x: nn.log_softmax(x)[k])(x)
        np.testing.assert_allclose(h, np.outer(p, p) - np.diag(p), rtol=1e-13, atol=1e-16)


def test_third_order():
    x = np.array([0.3, -0.7, 1.1])
    check_grads(lambda x: nn.logsumexp(x), (x,), order=3)
    check_grads(lambda x: nn.log_softmax(x), (x,), order=3)
    check_grads(nn.sigmoid, (x,), order=3)
    check_grads(nn.softplus, (x,), order=3)


# --------------------------------------------------------------------------
# the fused derivative primitives themselves

def _prim_cases(rng=rng):
    x = rng.standard_normal((3, 4))
    g = rng.standard_normal((3, 4))
    s = ref_sigmoid(x)
    y = ref_softmax(x, 1)
    ly = ref_log_softmax(x, 1)
    c = rng.standard_normal(3)
    lse = ref_logsumexp(x, 1)
    return {
        "sigmoid_grad": (ops.sigmoid_grad, (g, s), g * s * (1 - s)),
        "softplus_grad": (ops.softplus_grad, (g, x), g * ref_sigmoid(x)),
        "softmax_grad": (lambda g, y: ops.softmax_grad(g, y, (1,)), (g, y),
                         y * (g - np.sum(g * y, 1, keepdims=True))),
        "log_softmax_vjp": (lambda c, y: ops.log_softmax_vjp(c, y, (1,)), (g, ly),
                            g - np.exp(ly) * np.sum(g, 1, keepdims=True)),
        "log_softmax_jvp": (lambda t, y: ops.log_softmax_jvp(t, y, (1,)), (g, ly),
                            g - np.sum(np.exp(ly) * g, 1, keepdims=True)),
        "logsumexp_grad": (lambda c, x: ops.logsumexp_grad(c, x, (1,)), (c, x),
                           c[:, None] * np.exp(x - lse[:, None])),
        "erf": (ops.erf, (x,), np.vectorize(math.erf)(x)),
    }


@pytest.mark.parametrize("name", sorted(_prim_cases()))
def test_fused_primitives(name):
    f, args, expected = _prim_cases()[name]
    np.testing.assert_allclose(f(*args), expected, rtol=1e-13, atol=1e-15)
    check_grads(f, args, order=2, modes=("fwd", "rev"))
    # float32 runs the same kernel and keeps the dtype
    args32 = tuple(a.astype(np.float32) for a in args)
    out32 = f(*args32)
    assert out32.dtype == np.float32
    np.testing.assert_allclose(out32, expected, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name", ["sigmoid", "sigmoid_grad", "softplus", "softplus_grad", "relu",
                                  "erf", "softmax", "softmax_grad", "log_softmax",
                                  "log_softmax_vjp", "log_softmax_jvp", "logsumexp",
                                  "logsumexp_grad"])
def test_registered_with_all_rules(name):
    prim = registry[name]
    assert prim.impl and prim.abstract_eval and prim.jvp and prim.vjp


def test_abstract_eval_matches_impl():
    x = rng.standard_normal((3, 4)).astype(np.float32)
    for name, args, params in [
        ("sigmoid", (x,), {}), ("softplus", (x,), {}), ("relu", (x,), {}), ("erf", (x,), {}),
        ("softmax", (x,), {"axes": (0,)}), ("log_softmax", (x,), {"axes": (1,)}),
        ("logsumexp", (x,), {"axes": (1,)}), ("logsumexp", (x,), {"axes": (0, 1)}),
        ("sigmoid_grad", (x, x), {}), ("softplus_grad", (x, x), {}),
        ("softmax_grad", (x, x), {"axes": (1,)}), ("log_softmax_vjp", (x, x), {"axes": (1,)}),
        ("log_softmax_jvp", (x, x), {"axes": (0,)}),
        ("logsumexp_grad", (x[:, 0], x), {"axes": (1,)}),
    ]:
        prim = registry[name]
        out = np.asarray(prim.impl(*args, **params))
        aval = prim.abstract_eval(*[ShapedArray(a.shape, a.dtype) for a in args], **params)
        assert (out.shape, out.dtype) == (aval.shape, aval.dtype), name


def test_jvp_vjp_consistency():
    # <u, J v> == <J^T u, v> for every function
    x = rng.standard_normal((3, 4))
    fns = [nn.sigmoid, nn.softplus, nn.log_sigmoid, lambda x: nn.softmax(x, 0),
           lambda x: nn.log_softmax(x, (0, 1)), lambda x: nn.logsumexp(x, 1)]
    for f in fns:
        v = rng.standard_normal(x.shape)
        out, jv = tg.jvp(f, (x,), (v,))
        u = rng.standard_normal(np.shape(out))
        (jtu,) = tg.vjp(f, x)[1](u)
        np.testing.assert_allclose(np.sum(u * jv), np.sum(jtu * v), rtol=1e-12)


def test_numpy_dispatch_on_tracers():
    # tracegrad.nn works on tracers created by plain NumPy code
    x = rng.standard_normal(4)
    g = tg.grad(lambda x: np.sum(nn.softmax(np.sin(x)) * x))(x)
    assert g.shape == (4,) and np.all(np.isfinite(g))


# --------------------------------------------------------------------------
# one_hot

def test_one_hot():
    x = np.array([0, 2, 1, 5, -1])
    out = nn.one_hot(x, 3)
    expected = np.array([[1, 0, 0], [0, 0, 1], [0, 1, 0], [0, 0, 0], [0, 0, 0]], float)
    np.testing.assert_array_equal(out, expected)
    assert out.dtype == np.float64
    np.testing.assert_array_equal(nn.one_hot(x, 3, axis=0), expected.T)
    np.testing.assert_array_equal(nn.one_hot(np.array([[1], [0]]), 2, dtype=np.int32, axis=1),
                                  np.array([[[0], [1]], [[1], [0]]], np.int32))


# --------------------------------------------------------------------------
# oracles

def test_against_jax():
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    jnn = jax.nn
    # A generator of this test's own: the module's is shared, so its draws
    # here would depend on which tests ran before in this worker.
    local = np.random.default_rng(538)
    x = local.standard_normal((3, 5)) * 3
    pairs = [
        (nn.sigmoid, jnn.sigmoid), (nn.relu, jnn.relu), (nn.softplus, jnn.softplus),
        (nn.log_sigmoid, jnn.log_sigmoid), (nn.silu, jnn.silu), (nn.elu, jnn.elu),
        (nn.leaky_relu, jnn.leaky_relu), (nn.relu6, jnn.relu6),
        (nn.gelu, jnn.gelu), (lambda x: nn.gelu(x, False), lambda x: jnn.gelu(x, False)),
        (lambda x: nn.softmax(x, 0), lambda x: jnn.softmax(x, 0)),
        (lambda x: nn.log_softmax(x, (0, 1)), lambda x: jnn.log_softmax(x, (0, 1))),
        (lambda x: nn.logsumexp(x, 1), lambda x: jnn.logsumexp(x, 1)),
    ]
    w = local.standard_normal(x.shape)
    for ours, theirs in pairs:
        np.testing.assert_allclose(ours(x), np.asarray(theirs(x)), rtol=1e-13, atol=1e-15)
        wt = w if np.shape(ours(x)) == x.shape else w[:, 0]
        g = tg.grad(lambda x: np.sum(ours(x) * wt))(x)
        jg = jax.grad(lambda x: (theirs(x) * wt).sum())(x)
        # Absolute slack 1e-12: below x = -5 JAX's tanh-form GELU gradient
        # (1 + tanh(u) as written) loses its relative accuracy, ours keeps
        # it (checked against mpmath in test_gelu_tanh_tail_against_mpmath).
        np.testing.assert_allclose(g, np.asarray(jg), rtol=1e-12, atol=1e-12)
    for v in (np.array([1000.0, 0.0, -1000.0]),):
        extreme = pairs[:4] + [(nn.softmax, jnn.softmax), (nn.log_softmax, jnn.log_softmax),
                               (nn.logsumexp, jnn.logsumexp)]
        for ours, theirs in extreme:
            np.testing.assert_allclose(ours(v), np.asarray(theirs(v)), rtol=1e-15)
            np.testing.assert_allclose(tg.jacrev(ours)(v), np.asarray(jax.jacrev(theirs)(v)), atol=1e-300)
    h = tg.hessian(lambda x: nn.logsumexp(x))(x[0])
    np.testing.assert_allclose(h, np.asarray(jax.hessian(jnn.logsumexp)(x[0])), rtol=1e-12, atol=1e-15)


def test_gelu_tanh_tail_against_mpmath():
    # In the left tail 1 + tanh(u) cancels; the kernel keeps relative accuracy.
    mpmath = pytest.importorskip("mpmath")
    mpmath.mp.dps = 50
    c = mpmath.sqrt(2 / mpmath.pi)

    def exact(v):
        return 0.5 * v * (1 + mpmath.tanh(c * (v + mpmath.mpf("0.044715") * v ** 3)))

    for v in (-5.45, -6.08, -7.1, -7.33, -10.0, -3.0, 0.5, 5.0):
        value = float(exact(mpmath.mpf(v)))
        slope = float(mpmath.diff(exact, mpmath.mpf(v)))
        np.testing.assert_allclose(nn.gelu(v), value, rtol=1e-13)
        np.testing.assert_allclose(tg.grad(nn.gelu)(v), slope, rtol=1e-13)


def _mlp_loss(params, x, labels, xp_log_softmax, xp_tanh):
    w1, b1, w2, b2 = params
    h = xp_tanh(x @ w1 + b1)
    logits = h @ w2 + b2
    logp = xp_log_softmax(logits)
    return -(logp * labels).sum() / x.shape[0]


def _mlp_setup():
    x = rng.standard_normal((16, 8))
    labels = nn.one_hot(rng.integers(0, 4, 16), 4)
    params = (rng.standard_normal((8, 6)) * 0.5, rng.standard_normal(6) * 0.1,
              rng.standard_normal((6, 4)) * 0.5, rng.standard_normal(4) * 0.1)
    return params, x, labels


def test_mlp_cross_entropy_gradient_against_jax():
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    params, x, labels = _mlp_setup()
    ours = tg.grad(lambda p: _mlp_loss(p, x, labels, nn.log_softmax, np.tanh))(params)
    theirs = jax.grad(lambda p: _mlp_loss(p, x, labels, jax.nn.log_softmax, jax.numpy.tanh))(params)
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a, np.asarray(b), rtol=1e-12, atol=1e-14)


def test_mlp_cross_entropy_gradient_against_autograd():
    ag = pytest.importorskip("autograd")
    anp = pytest.importorskip("autograd.numpy")

    def ag_log_softmax(z):
        return z - anp.log(anp.sum(anp.exp(z - anp.max(z, -1, keepdims=True)), -1, keepdims=True)) \
            - anp.max(z, -1, keepdims=True)

    params, x, labels = _mlp_setup()
    ours = tg.grad(lambda p: _mlp_loss(p, x, labels, nn.log_softmax, np.tanh))(params)
    theirs = ag.grad(lambda p: _mlp_loss(p, x, labels, ag_log_softmax, anp.tanh))(params)
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-14)
    # the same loss written with softmax + log, and with logsumexp
    alt = tg.grad(lambda p: _mlp_loss(p, x, labels, lambda z: np.log(nn.softmax(z)), np.tanh))(params)
    alt2 = tg.grad(lambda p: _mlp_loss(
        p, x, labels, lambda z: z - nn.logsumexp(z, axis=-1, keepdims=True), np.tanh))(params)
    for a, b, c in zip(ours, alt, alt2):
        np.testing.assert_allclose(a, b, rtol=1e-10)
        np.testing.assert_allclose(a, c, rtol=1e-12, atol=1e-15)


# --------------------------------------------------------------------------
# gelu: one fused primitive each way (gelu, gelu_grad)

@pytest.mark.parametrize("approximate", [False, True])
def test_gelu_edge_values_and_derivatives(approximate):
    # as JAX and PyTorch (float64): NaN at -inf (x * Phi(x) is -inf * 0), and
    # NaN derivatives at +-inf; 0 and derivative 1/2 at +-0, -0.0 kept
    x = np.array([-np.inf, np.inf, np.nan, 0.0, -0.0, -40.0])
    y = nn.gelu(x, approximate=approximate)
    np.testing.assert_array_equal(y, [np.nan, np.inf, np.nan, 0.0, -0.0, -0.0])
    assert np.signbit(y[4]) and np.signbit(y[5])
    d = tg.vmap(tg.grad(lambda v: nn.gelu(v, approximate=approximate)))(x)
    np.testing.assert_array_equal(d, [np.nan, np.nan, np.nan, 0.5, 0.5, 0.0])
    # the second derivative at 0: sqrt(2/pi) for both forms
    d2 = tg.grad(tg.grad(lambda v: nn.gelu(v, approximate=approximate)))(0.0)
    assert d2 == pytest.approx(math.sqrt(2.0 / math.pi), rel=1e-15)


@pytest.mark.parametrize("approximate", [False, True])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_gelu_kernels_match_the_formula(approximate, dtype):
    # the kernels (forward and g * gelu'(x)) against the float64 formula, rounded
    x = np.linspace(-9.0, 9.0, 20001).astype(dtype)
    g = np.random.default_rng(0).standard_normal(x.shape).astype(dtype)
    xd = x.astype(np.float64)
    erfc = np.vectorize(math.erfc)
    eps = np.finfo(dtype).eps
    if approximate:
        # 0.5 x (1 + tanh(u)) = x sigmoid(2 u), without the cancellation of 1 + tanh
        u = math.sqrt(2 / math.pi) * (xd + 0.044715 * xd ** 3)
        with np.errstate(over="ignore"):
            sg = 1.0 / (1.0 + np.exp(-2.0 * u))
        ref = xd * sg
        du = math.sqrt(2 / math.pi) * (1 + 3 * 0.044715 * xd ** 2)
        terms = (sg, 2.0 * xd * sg * (1.0 - sg) * du)
    else:
        ref = 0.5 * xd * erfc(-(xd * (1 / math.sqrt(2))))  # (the kernel's rounding of x / sqrt 2)
        terms = (0.5 * erfc(-(xd * (1 / math.sqrt(2)))),
                 xd * np.exp(-xd * xd / 2) / math.sqrt(2 * math.pi))
    y, dy = ops.gelu(x, approximate=approximate), ops.gelu_grad(g, x, approximate=approximate)
    assert y.dtype == dtype and dy.dtype == dtype
    # 2 ulps everywhere, the negative tails included (Phi by erfc, the tanh
    # form as x sigmoid(2 u)), except the float32 exact form: there the
    # cancellation of 1 + erf that PyTorch's float32 kernel shares adds
    # float32 epsilon times |x| on the negative tail
    tail = 0.0
    if dtype == np.float32 and not approximate:
        tail = eps * np.abs(xd) * (xd < 0)
    # (and for the tanh form, the conditioning of exp(-2 u) in the tail: an
    # argument rounded by an ulp moves the value by about 2 |u| ulps)
    cond = 4 * eps * np.abs(u) if approximate else 0.0
    # (the float32 exact kernel computes in float32: 3 ulps, 2.1 measured)
    ulps = 3.0 if dtype == np.float32 and not approximate else 2.0
    ulp = np.spacing(np.abs(ref).astype(dtype)).astype(np.float64)
    assert np.all(np.abs(y - ref) <= ulps * ulp + tail + cond * np.abs(ref))
    # the derivative's two terms cancel near x = -0.75: the bound is relative
    # to their magnitudes
    gd = g.astype(np.float64)
    bound = (4 * eps + cond) * (np.abs(terms[0]) + np.abs(terms[1])) + tail
    assert np.all(np.abs(dy - gd * (terms[0] + terms[1])) <= np.abs(gd) * bound + 1e-300)


def test_gelu_third_derivatives():
    for approximate in (False, True):
        check_grads(lambda v: nn.gelu(v, approximate=approximate), (np.linspace(-3, 3, 7),),
                    order=3, modes=("fwd", "rev"))
