"""Semantics at the edges: every documented special value, with its exact result.

Each case is checked in reverse mode (grad / vjp) and, where it means
something, in forward mode (jvp) too.
"""
import warnings

import numpy as np
import pytest

import tracegrad as tg
import tracegrad.nn as nn
import tracegrad.numpy as tnp


def fwd(f, *xs, tangents=None):
    """The forward-mode derivative of scalar-input ``f`` (tangent 1 per argument)."""
    tangents = tangents if tangents is not None else tuple(np.ones_like(np.asarray(x)) for x in xs)
    return tg.jvp(f, tuple(np.asarray(x, np.float64) for x in xs), tangents)[1]


def exact(actual, expected):
    np.testing.assert_array_equal(np.asarray(actual, np.float64), np.asarray(expected, np.float64))


def near(actual, expected, rtol=1e-14, atol=0.0):
    np.testing.assert_allclose(np.asarray(actual, np.float64), np.asarray(expected, np.float64),
                               rtol=rtol, atol=atol)


# --------------------------------------------------------------------------
# ties in max/min and maximum/minimum are split evenly


def test_max_min_ties_split_evenly():
    exact(tg.grad(tnp.max)(np.array([1.0, 1.0, 0.5])), [0.5, 0.5, 0.0])
    exact(tg.grad(tnp.max)([1.0, 1.0, 0.5]), [0.5, 0.5, 0.0])  # the spelling
    exact(tg.grad(tnp.amax)(np.array([1.0, 1.0, 0.5])), [0.5, 0.5, 0.0])
    exact(tg.grad(tnp.min)(np.array([0.5, 2.0, 0.5, 0.5])), [1 / 3, 0.0, 1 / 3, 1 / 3])
    exact(tg.grad(tnp.amin)(np.array([0.5, 2.0, 0.5, 0.5])), [1 / 3, 0.0, 1 / 3, 1 / 3])
    exact(tg.grad(lambda x: tnp.sum(tnp.max(x, axis=1)))(np.array([[2.0, 2.0], [1.0, 3.0]])),
          [[0.5, 0.5], [0.0, 1.0]])
    exact(tg.grad(lambda x: tnp.sum(tnp.max(x, axis=0, keepdims=True)))(np.array([[2.0, 1.0], [2.0, 3.0]])),
          [[0.5, 0.0], [0.5, 1.0]])
    # forward mode: the tangent is the mean of the tied entries' tangents
    exact(fwd(tnp.max, [1.0, 1.0, 0.5], tangents=(np.array([1.0, 2.0, 3.0]),)), 1.5)
    exact(fwd(tnp.min, [0.5, 2.0, 0.5], tangents=(np.array([1.0, 2.0, 4.0]),)), 2.5)


def test_maximum_minimum_ties_split_evenly():
    for f in (tnp.maximum, tnp.minimum):
        assert tg.grad(f, argnums=(0, 1))(1.0, 1.0) == (0.5, 0.5)
        exact(fwd(f, 1.0, 1.0), 1.0)  # 0.5 * 1 + 0.5 * 1
        exact(fwd(f, 1.0, 1.0, tangents=(np.float64(1.0), np.float64(0.0))), 0.5)
    gx, gy = tg.grad(lambda x, y: tnp.sum(tnp.maximum(x, y)), argnums=(0, 1))(
        np.array([1.0, 2.0, 3.0]), np.array([1.0, 5.0, 0.0]))
    exact(gx, [0.5, 0.0, 1.0])
    exact(gy, [0.5, 1.0, 0.0])
    # broadcast tie: y (scalar) ties with two of the x entries
    gx, gy = tg.grad(lambda x, y: tnp.sum(tnp.minimum(x, y)), argnums=(0, 1))(np.array([2.0, 2.0, 1.0]), 2.0)
    exact(gx, [0.5, 0.5, 1.0])
    exact(gy, 1.0)


# --------------------------------------------------------------------------
# kinks and singular points


def test_abs_at_zero():
    assert tg.grad(tnp.abs)(0.0) == 0.0
    assert tg.grad(tnp.absolute)(0.0) == 0.0
    assert tg.grad(lambda x: abs(x))(0.0) == 0.0
    exact(fwd(tnp.abs, 0.0), 0.0)
    exact(tg.grad(lambda x: tnp.sum(tnp.abs(x)))(np.array([-2.0, 0.0, 3.0])), [-1.0, 0.0, 1.0])


def test_relu_at_zero():
    assert tg.grad(nn.relu)(0.0) == 0.0
    exact(fwd(nn.relu, 0.0), 0.0)
    exact(tg.grad(lambda x: tnp.sum(nn.relu(x)))(np.array([-1.0, 0.0, 2.0])), [0.0, 0.0, 1.0])


def test_sqrt_at_zero_is_inf():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        assert tg.grad(tnp.sqrt)(0.0) == np.inf
        assert fwd(tnp.sqrt, 0.0) == np.inf


def test_norm_at_zero_vector():
    z = np.zeros(3)
    exact(tg.grad(tnp.linalg.norm)(z), [0.0, 0.0, 0.0])
    exact(tg.grad(lambda v: tnp.linalg.norm(v) ** 2)(z), [0.0, 0.0, 0.0])
    exact(fwd(tnp.linalg.norm, z), 0.0)
    exact(fwd(lambda v: tnp.linalg.norm(v) ** 2, z), 0.0)
    exact(tg.grad(lambda m: tnp.linalg.norm(m))(np.zeros((2, 2))), np.zeros((2, 2)))
    # away from zero it is the usual v / |v|
    near(tg.grad(tnp.linalg.norm)(np.array([3.0, 4.0])), [0.6, 0.8])
    # norm(v)**2 is smooth: its gradient near zero is 2 v
    near(tg.grad(lambda v: tnp.linalg.norm(v) ** 2)(np.array([1e-3, 0.0, -2e-3])), [2e-3, 0, -4e-3])


def test_std_of_constant_input():
    c = np.full(4, 2.5)
    exact(tg.grad(tnp.std)(c), np.zeros(4))
    exact(tg.grad(lambda x: tnp.std(x, ddof=1))(c), np.zeros(4))
    exact(tg.grad(lambda x: tnp.sum(tnp.std(x, axis=1)))(np.ones((2, 3))), np.zeros((2, 3)))
    exact(fwd(tnp.std, c, tangents=(np.arange(4.0),)), 0.0)
    exact(tg.grad(tnp.var)(c), np.zeros(4))
    # a non-constant input still gets the usual (x - mean) / (n std)
    x = np.array([1.0, 3.0])
    near(tg.grad(tnp.std)(x), [-0.5, 0.5])


def test_clip_at_its_bounds():
    # the documented choice: at a bound the derivative is 1 with respect to x
    # and 0 with respect to the bound
    clip = lambda x, lo, hi: tnp.clip(x, lo, hi)  # noqa: E731
    both = (0, 1, 2)
    assert tg.grad(clip, argnums=both)(1.0, -1.0, 1.0) == (1.0, 0.0, 0.0)
    assert tg.grad(clip, argnums=both)(-1.0, -1.0, 1.0) == (1.0, 0.0, 0.0)
    assert tg.grad(clip, argnums=both)(0.3, -1.0, 1.0) == (1.0, 0.0, 0.0)
    assert tg.grad(clip, argnums=both)(2.0, -1.0, 1.0) == (0.0, 0.0, 1.0)
    assert tg.grad(clip, argnums=both)(-2.0, -1.0, 1.0) == (0.0, 1.0, 0.0)
    assert tg.grad(lambda x: tnp.clip(x, -1.0, 1.0))(1.0) == 1.0
    assert tg.grad(lambda x: tnp.clip(x, -1.0, 1.0))(-1.0) == 1.0
    assert tg.grad(lambda x: tnp.clip(x, 0.0, None))(0.0) == 1.0
    for x in (1.0, -1.0):
        exact(fwd(clip, x, -1.0, 1.0, tangents=(np.float64(1.0), np.float64(0.0), np.float64(0.0))), 1.0)
        exact(fwd(clip, x, -1.0, 1.0, tangents=(np.float64(0.0), np.float64(1.0), np.float64(1.0))), 0.0)


# --------------------------------------------------------------------------
# powers


@pytest.mark.parametrize("f", [
    lambda x: x ** 0, lambda x: x ** 0.0, lambda x: tnp.power(x, 0), lambda x: tnp.power(x, 0.0),
    lambda x: tnp.power(x, np.array(0.0)), lambda x: x ** np.float64(0.0),
], ids=["int", "float", "power-int", "power-float", "array-exponent", "np-float64-exponent"])
def test_x_to_the_zero_has_derivative_zero_at_zero(f):
    assert f(np.float64(0.0)) == 1.0
    assert tg.grad(f)(0.0) == 0.0
    assert tg.grad(tg.grad(f))(0.0) == 0.0
    exact(fwd(f, 0.0), 0.0)
    exact(tg.grad(lambda x: tnp.sum(f(x)))(np.array([0.0, 2.0, -3.0])), [0.0, 0.0, 0.0])


def test_traced_zero_exponent_at_zero_base():
    gx, gy = tg.grad(lambda x, y: x ** y, argnums=(0, 1))(0.0, 0.0)
    assert gx == 0.0
    assert not np.isnan(gx)


@pytest.mark.parametrize("f", [
    lambda y: 0.0 ** y, lambda y: tnp.power(0.0, y), lambda y: tnp.power(np.float64(0.0), y),
    lambda y: tnp.power(np.zeros(()), y),
], ids=["operator", "power", "np-float64-base", "array-base"])
def test_zero_base_has_derivative_zero_in_the_exponent(f):
    for y in (0.5, 1.0, 2.0, 3.7):
        assert f(np.float64(y)) == 0.0
        assert tg.grad(f)(y) == 0.0
        exact(fwd(f, y), 0.0)
    exact(tg.grad(lambda y: tnp.sum(f(y)))(np.array([0.5, 2.0])), [0.0, 0.0])


def test_zero_base_traced_in_both_arguments():
    gx, gy = tg.grad(lambda x, y: x ** y, argnums=(0, 1))(0.0, 2.0)
    assert (gx, gy) == (0.0, 0.0)
    gx, gy = tg.grad(lambda x, y: x ** y, argnums=(0, 1))(0.0, 1.0)
    assert (gx, gy) == (1.0, 0.0)


@pytest.mark.parametrize("f", [
    lambda x: x ** 3.0, lambda x: x ** 3, lambda x: tnp.power(x, 3.0), lambda x: tnp.power(x, np.array(3.0)),
    lambda x: x ** np.float64(3.0),
], ids=["float", "int", "power-float", "power-array", "np-float64"])
def test_constant_exponent_never_poisons_a_negative_base(f):
    assert tg.grad(f)(-2.0) == 12.0
    assert tg.grad(tg.grad(f))(-2.0) == -12.0
    assert tg.grad(tg.grad(tg.grad(f)))(-2.0) == 6.0
    exact(fwd(f, -2.0), 12.0)
    exact(tg.jacfwd(tg.grad(f))(np.float64(-2.0)), -12.0)


# --------------------------------------------------------------------------
# prod and cumprod with zeros (no division by x)


def test_prod_gradient_with_zeros():
    exact(tg.grad(tnp.prod)(np.array([2.0, 0.0, 3.0])), [0.0, 6.0, 0.0])
    exact(tg.grad(tnp.prod)(np.array([2.0, 0.0, 0.0, 3.0])), [0.0, 0.0, 0.0, 0.0])
    exact(tg.grad(tnp.prod)(np.array([0.0])), [1.0])
    exact(tg.grad(lambda x: tnp.sum(tnp.prod(x, axis=1)))(np.array([[1.0, 0.0, 2.0], [3.0, 4.0, 5.0]])),
          [[0.0, 2.0, 0.0], [20.0, 15.0, 12.0]])
    exact(fwd(tnp.prod, np.array([2.0, 0.0, 3.0]), tangents=(np.array([1.0, 1.0, 1.0]),)), 6.0)
    exact(fwd(tnp.prod, np.array([2.0, 0.0, 0.0, 3.0]), tangents=(np.ones(4),)), 0.0)


def test_prod_hessian_with_zeros():
    # H[i, j] = product of the entries other than i and j
    exact(tg.hessian(tnp.prod)(np.array([2.0, 0.0, 3.0])),
          [[0.0, 3.0, 0.0], [3.0, 0.0, 2.0], [0.0, 2.0, 0.0]])
    h = np.zeros((4, 4))
    h[1, 2] = h[2, 1] = 6.0
    exact(tg.hessian(tnp.prod)(np.array([2.0, 0.0, 0.0, 3.0])), h)


def test_cumprod_gradient_with_zeros():
    s = lambda x: tnp.sum(tnp.cumprod(x))  # noqa: E731
    exact(tg.grad(s)(np.array([2.0, 0.0, 3.0])), [1.0, 8.0, 0.0])
    exact(tg.grad(s)(np.array([2.0, 0.0, 0.0, 3.0])), [1.0, 2.0, 0.0, 0.0])
    exact(tg.jacrev(tnp.cumprod)(np.array([2.0, 0.0, 3.0])),
          [[1.0, 0.0, 0.0], [0.0, 2.0, 0.0], [0.0, 6.0, 0.0]])
    exact(tg.jacfwd(tnp.cumprod)(np.array([2.0, 0.0, 3.0])),
          [[1.0, 0.0, 0.0], [0.0, 2.0, 0.0], [0.0, 6.0, 0.0]])
    exact(tg.grad(lambda x: tnp.sum(tnp.cumprod(x, axis=1)))(np.array([[0.0, 2.0], [3.0, 0.0]])),
          [[3.0, 0.0], [1.0, 3.0]])
    # second order through the zero: d2/dx0 dx1 of sum(cumprod) at [2, 0, 3] = 1 + x2
    exact(tg.hessian(s)(np.array([2.0, 0.0, 3.0]))[0, 1], 4.0)


# --------------------------------------------------------------------------
# numerically stable log-sum-exp family at +-1000


def _no_warnings(f, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        return f(*args, **kwargs)


LOG2 = np.log(2.0)


@pytest.mark.parametrize("big", [1000.0, -1000.0])
def test_logsumexp_stable(big):
    x = np.array([big, big])
    near(_no_warnings(nn.logsumexp, x), big + LOG2)
    exact(_no_warnings(tg.grad(nn.logsumexp), x), [0.5, 0.5])
    near(_no_warnings(fwd, nn.logsumexp, x), 1.0)
    x = np.array([big, big - 2000.0 if big > 0 else big + 2000.0])
    dominant = int(np.argmax(x))
    near(_no_warnings(nn.logsumexp, x), x[dominant])
    exact(_no_warnings(tg.grad(nn.logsumexp), x), np.eye(2)[dominant])
    exact(_no_warnings(tg.grad(lambda x: tnp.sum(nn.logsumexp(x, axis=1))), np.array([[big, big]])),
          [[0.5, 0.5]])


def test_softplus_and_log_sigmoid_stable():
    assert _no_warnings(nn.softplus, np.float64(1000.0)) == 1000.0
    assert _no_warnings(nn.softplus, np.float64(-1000.0)) == 0.0
    assert _no_warnings(tg.grad(nn.softplus), 1000.0) == 1.0
    assert _no_warnings(tg.grad(nn.softplus), -1000.0) == 0.0
    assert _no_warnings(nn.log_sigmoid, np.float64(-1000.0)) == -1000.0
    assert _no_warnings(nn.log_sigmoid, np.float64(1000.0)) == 0.0
    assert _no_warnings(tg.grad(nn.log_sigmoid), -1000.0) == 1.0
    assert _no_warnings(tg.grad(nn.log_sigmoid), 1000.0) == 0.0
    exact(_no_warnings(fwd, nn.softplus, 1000.0), 1.0)
    exact(_no_warnings(fwd, nn.log_sigmoid, -1000.0), 1.0)
    for f in (nn.softplus, nn.log_sigmoid):
        for x in (1000.0, -1000.0):
            assert np.isfinite(_no_warnings(tg.grad(tg.grad(f)), x))


def test_sigmoid_softmax_log_softmax_stable():
    assert _no_warnings(nn.sigmoid, np.float64(1000.0)) == 1.0
    assert _no_warnings(nn.sigmoid, np.float64(-1000.0)) == 0.0
    assert _no_warnings(tg.grad(nn.sigmoid), 1000.0) == 0.0
    assert _no_warnings(tg.grad(nn.sigmoid), -1000.0) == 0.0
    x = np.array([1000.0, 0.0, -1000.0])
    exact(_no_warnings(nn.softmax, x), [1.0, 0.0, 0.0])
    exact(_no_warnings(nn.log_softmax, x), [0.0, -1000.0, -2000.0])
    j = _no_warnings(tg.jacrev(nn.log_softmax), x)
    assert np.all(np.isfinite(j))
    exact(j, [[0.0, 0.0, 0.0], [-1.0, 1.0, 0.0], [-1.0, 0.0, 1.0]])
    assert np.all(np.isfinite(_no_warnings(tg.jacfwd(nn.softmax), x)))


def test_logaddexp_stable():
    grad2 = tg.grad(tnp.logaddexp, argnums=(0, 1))
    for big in (1000.0, -1000.0):
        near(_no_warnings(tnp.logaddexp, np.float64(big), np.float64(big)), big + LOG2)
        near(_no_warnings(grad2, big, big), (0.5, 0.5), rtol=1e-12)
        near(_no_warnings(fwd, tnp.logaddexp, big, big), 1.0, rtol=1e-12)
        assert np.all(np.isfinite(_no_warnings(tg.hessian(tnp.logaddexp, argnums=(0, 1)),
                                                np.float64(big), np.float64(big))))
    assert _no_warnings(tnp.logaddexp, np.float64(1000.0), np.float64(-1000.0)) == 1000.0
    assert _no_warnings(grad2, 1000.0, -1000.0) == (1.0, 0.0)
    assert _no_warnings(grad2, -1000.0, 1000.0) == (0.0, 1.0)
    exact(_no_warnings(fwd, tnp.logaddexp, 1000.0, -1000.0,
                       tangents=(np.float64(2.0), np.float64(5.0))), 2.0)


@pytest.mark.parametrize("t", [0.0, 3.7, 1000.0, -1000.0])
def test_logaddexp_tie_gives_exactly_one_half_each(t):
    assert _no_warnings(tg.grad(tnp.logaddexp, argnums=(0, 1)), t, t) == (0.5, 0.5)
    exact(_no_warnings(fwd, tnp.logaddexp, t, t, tangents=(np.float64(1.0), np.float64(0.0))), 0.5)


# --------------------------------------------------------------------------
# where: NaN from the unselected branch, and the double-where idiom


def test_where_propagates_nan_from_the_unselected_branch():
    naive = lambda x: tnp.where(x > 0, tnp.log(x), 0.0)  # noqa: E731
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        assert naive(np.float64(0.0)) == 0.0  # the value is fine...
        assert np.isnan(tg.grad(naive)(0.0))  # ...the reverse-mode gradient is NaN
        g = tg.grad(lambda x: tnp.sum(tnp.where(x > 0, tnp.sqrt(x), 0.0)))(np.array([0.0, 4.0]))
    assert np.isnan(g[0]) and g[1] == 0.25


def test_double_where_idiom():
    def safe_log(x):
        safe = tnp.where(x > 0, x, 1.0)
        return tnp.where(x > 0, tnp.log(safe), 0.0)

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert tg.grad(safe_log)(0.0) == 0.0
        assert tg.grad(safe_log)(-3.0) == 0.0
        assert tg.grad(safe_log)(2.0) == 0.5
        exact(fwd(safe_log, 0.0), 0.0)
        exact(fwd(safe_log, 2.0), 0.5)
        exact(tg.grad(lambda x: tnp.sum(safe_log(x)))(np.array([0.0, 4.0])), [0.0, 0.25])
        assert tg.grad(tg.grad(safe_log))(0.0) == 0.0


def test_where_gradient_flows_only_to_the_selected_branch():
    gx, gy = tg.grad(lambda x, y: tnp.sum(tnp.where(np.array([True, False]), x, y)), argnums=(0, 1))(
        np.array([1.0, 2.0]), np.array([3.0, 4.0]))
    exact(gx, [1.0, 0.0])
    exact(gy, [0.0, 1.0])


@pytest.mark.parametrize(
    "x, lo, hi, expected",
    [
        (0.5, 1.0, 0.0, (0.0, 0.0, 1.0)),  # lo > hi: NumPy returns hi
        (-1.0, 1.0, 0.0, (0.0, 0.0, 1.0)),
        (2.0, 1.0, 0.0, (0.0, 0.0, 1.0)),
        (-1.0, 0.0, 1.0, (0.0, 1.0, 0.0)),
        (2.0, 0.0, 1.0, (0.0, 0.0, 1.0)),
        (0.5, 0.0, 1.0, (1.0, 0.0, 0.0)),
    ],
)
def test_clip_derivative_follows_the_selected_value(x, lo, hi, expected):
    assert tnp.clip(x, lo, hi) == np.clip(x, lo, hi)
    rev = tg.grad(lambda *a: tnp.clip(*a), argnums=(0, 1, 2))(x, lo, hi)
    assert tuple(float(v) for v in rev) == expected
    for k in range(3):
        t = [0.0, 0.0, 0.0]
        t[k] = 1.0
        _, fwd = tg.jvp(lambda a, b, c: tnp.clip(a, b, c), (x, lo, hi), tuple(t))
        assert float(fwd) == expected[k]


@pytest.mark.parametrize("v", [np.inf, -np.inf])
def test_logaddexp_tie_at_infinity_splits_evenly(v):
    g = tg.grad(tnp.logaddexp, argnums=(0, 1))(v, v)
    assert (float(g[0]), float(g[1])) == (0.5, 0.5)
