"""tracegrad.scipy.integrate.odeint: values against closed forms and SciPy,
derivatives in y0, args and t against closed forms and numerically, errors."""
import numpy as np
import pytest

import tracegrad as tg
import tracegrad.numpy as tnp
from tracegrad.scipy.integrate import odeint
from tracegrad.test_util import check_grads

T = np.linspace(0.0, 2.0, 5)


def decay(y, t, a):
    return a * y


def test_values_against_closed_forms():
    y0 = np.array([1.0, -2.0])
    got = odeint(decay, y0, T, args=(-0.7,))
    assert got.shape == (5, 2) and got.dtype == np.float64
    np.testing.assert_allclose(got, y0 * np.exp(-0.7 * T)[:, None], rtol=1e-7)
    # the harmonic oscillator over 1.6 periods, and backwards in time
    ts = np.linspace(0.0, 10.0, 11)
    ho = odeint(lambda y, t: tnp.stack([y[1], -y[0]]), np.array([1.0, 0.0]), ts)
    np.testing.assert_allclose(ho[:, 0], np.cos(ts), atol=1e-6)
    back = odeint(decay, np.array([1.0]), -T, args=(-0.7,))
    np.testing.assert_allclose(back[:, 0], np.exp(0.7 * T), rtol=1e-7)
    # tfirst, and one time: y0 itself
    np.testing.assert_allclose(odeint(lambda t, y: -y, y0, T, tfirst=True),
                               y0 * np.exp(-T)[:, None], rtol=1e-7)
    np.testing.assert_array_equal(odeint(decay, y0, T[:1], args=(1.0,)), y0[None])


def test_values_against_scipy():
    si = pytest.importorskip("scipy.integrate")

    def lotka(y, t, a, b):
        return tnp.stack([a * y[0] - b * y[0] * y[1], b * y[0] * y[1] - y[1]])

    y0, ts = np.array([2.0, 1.0]), np.linspace(0.0, 5.0, 6)
    want = si.odeint(lambda y, t, a, b: np.asarray(lotka(y, t, a, b)), y0, ts, args=(1.1, 0.6),
                     rtol=1e-11, atol=1e-11)
    np.testing.assert_allclose(odeint(lotka, y0, ts, args=(1.1, 0.6), rtol=1e-11, atol=1e-11),
                               want, rtol=1e-8)


def test_derivatives_against_closed_forms():
    # y = y0 exp(a t): d/da sum_t y = sum_t t exp(a t) y0; d y(T) / d t0 = -a y(T) ...
    da = tg.grad(lambda a: tnp.sum(odeint(decay, np.array([1.0]), T, args=(a,))))(-0.7)
    np.testing.assert_allclose(da, np.sum(T * np.exp(-0.7 * T)), rtol=1e-6)
    dt = tg.grad(lambda ts: odeint(decay, np.array([1.0]), ts, args=(-0.7,))[-1, 0])(T)
    y_end = np.exp(-0.7 * 2.0)
    np.testing.assert_allclose(dt[[0, -1]], [0.7 * y_end, -0.7 * y_end], rtol=1e-6)
    np.testing.assert_allclose(dt[1:-1], 0.0, atol=1e-7)
    # a value closed over by func is differentiable too
    dc = tg.grad(lambda c: odeint(lambda y, t: c * y, np.array([1.0]), T)[-1, 0])(-0.7)
    np.testing.assert_allclose(dc, 2.0 * y_end, rtol=1e-6)


def test_check_grads_second_order_both_modes():
    def f(y0, a, ts):
        return odeint(lambda y, t, a: tnp.sin(a * y) + t, y0, ts, args=(a,))

    check_grads(f, (np.array([0.3, 0.5]), np.array([1.2, -0.4]), np.linspace(0.1, 0.2, 4)),
                order=2, modes=("fwd", "rev"))


def test_errors():
    y0 = np.array([1.0])
    with pytest.raises(ValueError, match="strictly increasing or strictly decreasing"):
        odeint(decay, y0, np.array([0.0, 1.0, 0.5]), args=(1.0,))
    with pytest.raises(ValueError, match="t 1-D"):
        odeint(decay, y0, np.zeros((2, 2)), args=(1.0,))
    with pytest.raises(ValueError, match="returned shape"):
        odeint(lambda y, t: tnp.concatenate([y, y]), y0, T)
    with pytest.raises(RuntimeError, match="mxstep"):
        odeint(decay, y0, np.array([0.0, 50.0]), args=(-1.0,), mxstep=3)
    with pytest.raises(TypeError, match="outside jit"):
        tg.jit(lambda y: odeint(decay, y, T, args=(1.0,)))(y0)
    with pytest.raises(TypeError, match="complex"):
        odeint(decay, np.array([1j]), T, args=(1.0,))
