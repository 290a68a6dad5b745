"""The backward pass: in-place accumulation never touches shared arrays."""
import numpy as np

import tracegrad as tg
import tracegrad.numpy as tnp


def fan_out(x):
    # x feeds four nodes, so its cotangent is a sum of four contributions
    return tnp.sin(x) * 2.0 + x * x + tnp.exp(-x) + x


def fan_out_grad(x):
    return 2.0 * np.cos(x) + 2.0 * x - np.exp(-x) + 1.0


def test_repeated_vjp_calls_agree_and_leave_inputs_alone():
    x = np.linspace(-1.0, 1.0, 1000)
    ct = np.full(1000, 0.5)
    ct_copy = ct.copy()
    y, vjp_fun = tg.vjp(fan_out, x)
    (g1,) = vjp_fun(ct)
    g1_copy = g1.copy()
    (g2,) = vjp_fun(ct)
    np.testing.assert_array_equal(g1, g2)
    np.testing.assert_array_equal(g1, g1_copy)  # the second call did not write into g1
    np.testing.assert_array_equal(ct, ct_copy)  # the user's cotangent is untouched
    np.testing.assert_allclose(g1, 0.5 * fan_out_grad(x), rtol=1e-13)


def test_results_are_not_aliased_across_outputs_or_calls():
    x = np.linspace(0.1, 2.0, 500)
    _, vjp_fun = tg.vjp(lambda x: (x * 3.0, x * 3.0 + x), x)
    ones = np.ones(500)
    (g,) = vjp_fun((ones, ones))
    np.testing.assert_array_equal(g, np.full(500, 7.0))
    g += 100.0  # mutating a returned gradient must not leak into the next call
    (g_again,) = vjp_fun((ones, ones))
    np.testing.assert_array_equal(g_again, np.full(500, 7.0))


def test_same_array_used_as_both_operands():
    x = np.linspace(-2.0, 2.0, 300)
    g = tg.grad(lambda x: tnp.sum(x + x + x * x))(x)
    np.testing.assert_array_equal(g, 2.0 + 2.0 * x)


def test_gradient_matches_when_accumulation_order_varies():
    x = np.random.default_rng(0).standard_normal(4096)
    f = lambda x: tnp.sum(fan_out(fan_out(x)))  # noqa: E731
    g = tg.grad(f)(x)
    inner = fan_out(x)
    np.testing.assert_allclose(g, fan_out_grad(inner) * fan_out_grad(x), rtol=1e-12, atol=1e-13)


def test_gradients_of_a_pytree_do_not_share_memory():
    p = {"a": np.ones(3), "b": np.ones(3)}
    w = np.array([1.0, 2.0, 3.0])
    g = tg.grad(lambda p: tnp.sum((p["a"] + p["b"]) * w))(p)
    assert not np.shares_memory(g["a"], g["b"])
    g["a"] *= 0.1
    np.testing.assert_array_equal(g["b"], w)


def test_vjp_and_jvp_results_are_not_views_of_the_callers_arrays():
    ct = np.ones((2, 3))
    _, vjp_fun = tg.vjp(lambda x: x.reshape(2, 3), np.ones(6))
    (g,) = vjp_fun(ct)
    assert not np.shares_memory(g, ct) and g.flags.writeable
    t = np.ones((2, 3))
    _, tangent = tg.jvp(lambda x: x.T, (np.ones((2, 3)),), (t,))
    assert not np.shares_memory(tangent, t) and tangent.flags.writeable
    _, identity = tg.vjp(lambda x: x, np.ones(3))
    c = np.ones(3)
    assert identity(c)[0] is not c


def test_scalar_derivatives_are_0d_arrays():
    assert type(tg.grad(abs)(1.0)) is np.ndarray
    assert type(tg.grad(tg.grad(lambda x: x ** 3))(1.0)) is np.ndarray
