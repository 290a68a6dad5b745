"""The public transforms: signatures, output layouts, pytrees, nesting, state.

grad / value_and_grad / vjp / jvp / jacfwd / jacrev / jacobian / hessian are
checked against JAX's conventions with exact expected values; plus
tree_util, stop_gradient, leaked tracers, state after exceptions, a long
chain under grad, and check_grads catching a wrong derivative.
"""
import collections

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tracegrad as tg
import tracegrad.numpy as tnp
from tracegrad import tree_util
from tracegrad.core import EvalTrace, Tracer, current_trace
from tracegrad.primitives import Primitive, ShapedArray, ops, registry
from tracegrad.primitives.core import defjvp, defvjp
from tracegrad.test_util import check_grads, check_jvp, check_vjp

X3 = np.array([0.5, -1.2, 2.0])


def close(a, b, rtol=1e-12, atol=1e-12):
    np.testing.assert_allclose(np.asarray(a, np.float64), np.asarray(b, np.float64),
                               rtol=rtol, atol=atol)


def assert_tree_close(a, b, rtol=1e-12, atol=1e-12):
    la, ta = tree_util.tree_flatten(a)
    lb, tb = tree_util.tree_flatten(b)
    assert ta == tb, f"structures differ: {ta} vs {tb}"
    for x, y in zip(la, lb):
        assert np.shape(x) == np.shape(y), f"shapes differ: {np.shape(x)} vs {np.shape(y)}"
        close(x, y, rtol, atol)


# a pytree class of our own
class Point:
    def __init__(self, x, y):
        self.x, self.y = x, y


tree_util.register_pytree_node(Point, lambda p: ((p.x, p.y), None), lambda _, c: Point(*c))


# --------------------------------------------------------------------------
# grad and value_and_grad


def test_grad_scalar_exact():
    assert tg.grad(lambda x: 3.0 * x ** 2 + 1.0)(2.0) == 12.0
    g = tg.grad(lambda x: tnp.sum(tnp.sin(x) * x))(X3)
    close(g, np.sin(X3) + X3 * np.cos(X3))


def test_grad_result_is_a_writable_array_of_the_input_shape_and_dtype():
    for x in (np.float64(1.5), np.ones((2, 3)), np.ones(3, np.float32)):
        g = tg.grad(lambda x: tnp.sum(x * x))(x)
        assert isinstance(g, (np.ndarray, np.generic)) and not isinstance(g, Tracer)
        assert np.shape(g) == np.shape(x) and g.dtype == x.dtype
    g = tg.grad(lambda x: tnp.sum(tnp.broadcast_to(x, (4, 3))))(np.ones(3))
    close(g, [4.0, 4.0, 4.0])
    g[0] = 7.0  # users own the result


def test_grad_of_constant_and_of_unused_argument_is_zero():
    assert tg.grad(lambda x: 3.0)(2.0) == 0.0
    close(tg.grad(lambda x, y: tnp.sum(y * 2.0))(np.ones(2), np.ones(2)), [0.0, 0.0])
    close(tg.grad(lambda x: tnp.sum(tg.stop_gradient(x) * 2.0))(np.ones(2)), [0.0, 0.0])


def test_value_and_grad():
    v, g = tg.value_and_grad(lambda x: tnp.sum(x ** 3))(X3)
    close(v, np.sum(X3 ** 3))
    close(g, 3 * X3 ** 2)
    (v, aux), g = tg.value_and_grad(lambda x: (tnp.sum(x ** 2), {"n": 3, "x": x}),
                                    has_aux=True)(X3)
    close(v, np.sum(X3 ** 2))
    close(g, 2 * X3)
    assert aux["n"] == 3
    assert not isinstance(aux["x"], Tracer)
    close(aux["x"], X3)


def test_grad_kwargs_are_not_differentiated():
    g = tg.grad(lambda x, scale=1.0: scale * tnp.sum(x))(X3, scale=2.5)
    close(g, [2.5, 2.5, 2.5])


def test_grad_float32_stays_float32():
    x = X3.astype(np.float32)
    g = tg.grad(lambda x: tnp.sum(tnp.tanh(x) * 2.0))(x)
    assert g.dtype == np.float32
    close(g, 2 * (1 - np.tanh(x) ** 2), rtol=1e-6)


# --------------------------------------------------------------------------
# argnums


def f3(x, y, z):
    return tnp.sum(x * y ** 2 + tnp.sin(z))


A1, A2, A3 = np.array([1.0, 2.0]), np.array([3.0, -1.0]), np.array([0.3, 0.7])


def test_argnums_int_tuple_negative():
    close(tg.grad(f3)(A1, A2, A3), A2 ** 2)
    close(tg.grad(f3, argnums=1)(A1, A2, A3), 2 * A1 * A2)
    close(tg.grad(f3, argnums=-1)(A1, A2, A3), np.cos(A3))
    g = tg.grad(f3, argnums=(0, 2))(A1, A2, A3)
    assert isinstance(g, tuple) and len(g) == 2
    close(g[0], A2 ** 2)
    close(g[1], np.cos(A3))
    g = tg.grad(f3, argnums=(0,))(A1, A2, A3)
    assert isinstance(g, tuple) and len(g) == 1
    g = tg.grad(f3, argnums=(-1, 0))(A1, A2, A3)
    close(g[0], np.cos(A3))
    close(g[1], A2 ** 2)


def test_argnums_for_value_and_grad_and_jacobians():
    v, (gx, gy) = tg.value_and_grad(f3, argnums=(0, 1))(A1, A2, A3)
    close(v, f3(A1, A2, A3))
    close(gy, 2 * A1 * A2)
    for jac in (tg.jacfwd, tg.jacrev, tg.jacobian):
        j = jac(lambda x, y: x * y, argnums=1)(A1, A2)
        close(j, np.diag(A1))
        jx, jy = jac(lambda x, y: x * y, argnums=(0, -1))(A1, A2)
        close(jx, np.diag(A2))
        close(jy, np.diag(A1))


def test_integer_arguments_outside_argnums_are_allowed():
    def f(x, n):
        for _ in range(n):
            x = tnp.sin(x)
        return tnp.sum(x)

    g = tg.grad(f)(np.array([0.4]), 2)
    close(g, np.cos(np.sin(0.4)) * np.cos(0.4))


# --------------------------------------------------------------------------
# pytrees in and out


def loss(params, x):
    w, (b, extra) = params["w"], params["bias"]
    return tnp.sum(tnp.tanh(w * x + b)) + tnp.sum(extra[0] ** 2)


def test_grad_pytree_input_keeps_structure_including_none():
    params = {"w": np.array([0.5, -0.3]), "bias": (np.array(0.1), [np.array([1.0, 2.0]), None])}
    x = np.array([1.0, 2.0])
    g = tg.grad(loss)(params, x)
    assert tree_util.tree_structure(g) == tree_util.tree_structure(params)
    assert g["bias"][1][1] is None
    t = 1 - np.tanh(params["w"] * x + 0.1) ** 2
    close(g["w"], t * x)
    close(g["bias"][0], np.sum(t))
    close(g["bias"][1][0], [2.0, 4.0])


def test_grad_registered_class_and_namedtuple():
    g = tg.grad(lambda p: tnp.sum(p.x * p.y ** 2))(Point(np.array([1.0, 2.0]), np.array(3.0)))
    assert isinstance(g, Point)
    close(g.x, [9.0, 9.0])
    close(g.y, 2 * 3.0 * 3.0)
    Pair = collections.namedtuple("Pair", "a b")
    g = tg.grad(lambda p: p.a * p.b)(Pair(2.0, 5.0))
    assert isinstance(g, Pair) and g.a == 5.0 and g.b == 2.0


def test_vjp_pytree_in_and_out():
    def f(d, y):
        return {"s": d["a"] * y, "t": (tnp.sum(d["b"]), None)}

    d = {"a": np.array([1.0, 2.0]), "b": np.array([3.0, 4.0, 5.0])}
    y = np.array([2.0, -1.0])
    out, vjp_fun = tg.vjp(f, d, y)
    assert_tree_close(out, {"s": d["a"] * y, "t": (np.array(12.0), None)})
    ct = {"s": np.array([1.0, 10.0]), "t": (np.array(2.0), None)}
    gd, gy = vjp_fun(ct)
    assert_tree_close(gd, {"a": ct["s"] * y, "b": np.full(3, 2.0)})
    close(gy, ct["s"] * d["a"])
    # vjp_fun may be called again (no double counting)
    gd2, gy2 = vjp_fun(ct)
    assert_tree_close((gd2, gy2), (gd, gy))


def test_vjp_returns_one_cotangent_per_primal():
    out, vjp_fun = tg.vjp(lambda x: x * 2.0, X3)
    res = vjp_fun(np.ones(3))
    assert isinstance(res, tuple) and len(res) == 1
    close(res[0], [2.0, 2.0, 2.0])
    out, vjp_fun, aux = tg.vjp(lambda x, y: (x * y, "aux"), 2.0, 3.0, has_aux=True)
    assert aux == "aux" and out == 6.0
    assert vjp_fun(np.float64(1.0)) == (3.0, 2.0)


def test_jvp_pytrees_and_has_aux():
    def f(p):
        return [p.x * p.y, {"k": tnp.sin(p.x)}]

    p = Point(np.array([0.2, 0.4]), np.array(3.0))
    t = Point(np.array([1.0, -1.0]), np.array(0.5))
    out, tout = tg.jvp(f, (p,), (t,))
    assert_tree_close(out, [p.x * p.y, {"k": np.sin(p.x)}])
    assert_tree_close(tout, [t.x * p.y + p.x * t.y, {"k": np.cos(p.x) * t.x}])
    out, tout, aux = tg.jvp(lambda x: (x ** 2, {"x": x}), (3.0,), (1.0,), has_aux=True)
    assert out == 9.0 and tout == 6.0
    assert not isinstance(aux["x"], Tracer) and aux["x"] == 3.0


def test_jvp_tangent_of_constant_output_is_zero():
    out, t = tg.jvp(lambda x: np.ones(3), (X3,), (X3,))
    close(out, np.ones(3))
    close(t, np.zeros(3))


def test_jvp_accepts_lists_and_is_linear_in_the_tangent():
    f = lambda x, y: tnp.sin(x) * y  # noqa: E731
    _, t1 = tg.jvp(f, [X3, 2.0], [np.ones(3), 0.0])
    _, t2 = tg.jvp(f, (X3, 2.0), (np.zeros(3), 1.0))
    _, t12 = tg.jvp(f, (X3, 2.0), (np.ones(3), 1.0))
    close(t1 + t2, t12)
    close(t1, 2.0 * np.cos(X3))


# --------------------------------------------------------------------------
# Jacobians and Hessians


@pytest.mark.parametrize("jac", [tg.jacfwd, tg.jacrev, tg.jacobian], ids=["jacfwd", "jacrev", "jacobian"])
def test_jacobian_shapes_and_values(jac):
    x = np.arange(6.0).reshape(2, 3) / 7
    j = jac(lambda x: tnp.sum(x, axis=1) * 2.0)(x)  # (2,) out, (2, 3) in
    assert j.shape == (2, 2, 3)
    want = np.zeros((2, 2, 3))
    want[0, 0, :] = want[1, 1, :] = 2.0
    close(j, want)
    assert jac(lambda x: tnp.sin(x))(x).shape == (2, 3, 2, 3)
    j = jac(lambda s: tnp.stack([s, s * s, tnp.sin(s)]))(np.float64(0.5))  # scalar in
    assert j.shape == (3,)
    close(j, [1.0, 1.0, np.cos(0.5)])
    j = jac(lambda x: tnp.sum(x ** 2))(X3)  # scalar out
    assert j.shape == (3,)
    close(j, 2 * X3)
    assert jac(lambda s: s * 3.0)(np.array(2.0)).shape == ()


@pytest.mark.parametrize("jac", [tg.jacfwd, tg.jacrev, tg.hessian], ids=["jacfwd", "jacrev", "hessian"])
def test_jacobians_accept_python_scalars_and_lists(jac):
    # arguments may be Python floats (and lists of them), as for grad
    assert np.shape(jac(lambda s: s ** 3)(2.0)) == ()
    assert float(jac(lambda s: s ** 3)(2.0)) == 12.0  # 3 s**2 and 6 s agree at s = 2
    j = jac(lambda xs: xs[0] * xs[1] ** 2)([2.0, 3.0])
    assert isinstance(j, list) and len(j) == 2


@pytest.mark.parametrize("jac", [tg.jacfwd, tg.jacrev], ids=["jacfwd", "jacrev"])
def test_jacobian_pytree_layout_as_jax(jac):
    # output structure outside, argnums/input structure inside
    x, y = np.array([1.0, 2.0]), np.array([3.0, 5.0])
    j = jac(lambda x, y: {"a": x * y, "b": tnp.sin(x)}, argnums=(0, 1))(x, y)
    assert set(j) == {"a", "b"} and isinstance(j["a"], tuple) and len(j["a"]) == 2
    close(j["a"][0], np.diag(y))
    close(j["a"][1], np.diag(x))
    close(j["b"][0], np.diag(np.cos(x)))
    close(j["b"][1], np.zeros((2, 2)))

    j = jac(lambda d: (d["u"] * 2.0, tnp.sum(d["v"])))({"u": x, "v": np.ones((2, 2))})
    assert isinstance(j, tuple) and len(j) == 2 and isinstance(j[0], dict)
    assert j[0]["u"].shape == (2, 2) and j[0]["v"].shape == (2, 2, 2)
    assert j[1]["u"].shape == (2,) and j[1]["v"].shape == (2, 2)
    close(j[0]["u"], 2 * np.eye(2))
    close(j[0]["v"], np.zeros((2, 2, 2)))
    close(j[1]["v"], np.ones((2, 2)))


@pytest.mark.parametrize("jac", [tg.jacfwd, tg.jacrev], ids=["jacfwd", "jacrev"])
def test_jacobian_has_aux(jac):
    j, aux = jac(lambda x: (x ** 2, {"m": tnp.max(x)}), has_aux=True)(X3)
    close(j, np.diag(2 * X3))
    assert not isinstance(aux["m"], Tracer) and aux["m"] == 2.0


def test_jacfwd_equals_jacrev():
    def f(x):
        return tnp.stack([tnp.sum(x ** 2), tnp.prod(tnp.sin(x)), x[0] * x[2]])

    close(tg.jacfwd(f)(X3), tg.jacrev(f)(X3), rtol=1e-12)


@settings(max_examples=15, deadline=None)
@given(st.lists(st.floats(-3, 3), min_size=2, max_size=4))
def test_jacfwd_equals_jacrev_property(xs):
    x = np.array(xs)

    def f(x):
        return tnp.tanh(x) * tnp.sum(x ** 2) + tnp.cos(x[::-1])

    close(tg.jacfwd(f)(x), tg.jacrev(f)(x), rtol=1e-10, atol=1e-12)


def test_hessian_shapes_and_exact_values():
    # f = (sum x)**3: H = 6 * sum(x) everywhere
    h = tg.hessian(lambda x: tnp.sum(x) ** 3)(X3)
    assert h.shape == (3, 3)
    close(h, np.full((3, 3), 6 * np.sum(X3)))
    x = np.array([[1.0, 2.0], [0.5, -1.0]])
    h = tg.hessian(lambda x: tnp.sum(x) ** 3)(x)
    assert h.shape == (2, 2, 2, 2)
    close(h, np.full((2, 2, 2, 2), 6 * np.sum(x)))
    # quadratic form x A x: H = A + A^T
    a = np.array([[1.0, 2.0, 0.0], [0.5, -1.0, 3.0], [0.0, 1.0, 2.0]])
    close(tg.hessian(lambda x: tnp.sum(x * tnp.sum(a * x, axis=1)))(X3), a + a.T)


def test_hessian_argnums_tuple_nested_blocks():
    def f(x, y):
        return tnp.sum(tnp.sin(x) * y)

    x, y = np.array([0.3, 1.1]), np.array([2.0, -1.0])
    h = tg.hessian(f, argnums=(0, 1))(x, y)
    assert isinstance(h, tuple) and len(h) == 2 and all(len(r) == 2 for r in h)
    close(h[0][0], np.diag(-np.sin(x) * y))
    close(h[0][1], np.diag(np.cos(x)))
    close(h[1][0], np.diag(np.cos(x)))
    close(h[1][1], np.zeros((2, 2)))


def test_hessian_pytree_input_nests_like_jax():
    h = tg.hessian(lambda d: tnp.sum(d["a"] ** 3) * d["b"])({"a": X3, "b": np.float64(2.0)})
    assert set(h) == {"a", "b"} and set(h["a"]) == {"a", "b"}
    close(h["a"]["a"], np.diag(12.0 * X3))
    close(h["a"]["b"], 3 * X3 ** 2)
    close(h["b"]["a"], 3 * X3 ** 2)
    close(h["b"]["b"], 0.0)


# --------------------------------------------------------------------------
# nesting


def test_third_order_grad_exact():
    f = lambda x: x ** 4 + tnp.sin(x)  # noqa: E731
    assert tg.grad(tg.grad(tg.grad(f)))(1.5) == pytest.approx(24 * 1.5 - np.cos(1.5), rel=1e-13)
    g3 = tg.grad(tg.grad(tg.grad(lambda x: tnp.exp(2.0 * x))))
    assert g3(0.7) == pytest.approx(8 * np.exp(1.4), rel=1e-13)


def hess_f(x):
    return tnp.sum(tnp.sin(x) * x ** 2) + tnp.sum(x) ** 3


def hess_exact(x):
    d = -np.sin(x) * x ** 2 + 4 * x * np.cos(x) + 2 * np.sin(x)
    return np.diag(d) + 6 * np.sum(x)


def test_jacfwd_of_jacrev_and_other_hessian_compositions():
    h = hess_exact(X3)
    close(tg.jacfwd(tg.jacrev(hess_f))(X3), h, rtol=1e-11)
    close(tg.jacrev(tg.jacfwd(hess_f))(X3), h, rtol=1e-11)
    close(tg.jacrev(tg.grad(hess_f))(X3), h, rtol=1e-11)
    close(tg.jacfwd(tg.jacfwd(hess_f))(X3), h, rtol=1e-11)
    close(tg.hessian(hess_f)(X3), h, rtol=1e-11)


def test_jvp_of_grad_and_vjp_of_jvp():
    v = np.array([1.0, -2.0, 0.5])
    h = hess_exact(X3)
    g, hv = tg.jvp(tg.grad(hess_f), (X3,), (v,))
    close(g, tg.grad(hess_f)(X3))
    close(hv, h @ v, rtol=1e-11)
    # x -> <grad f(x), v> by forward mode, then reverse: H v again
    _, vjp_fun = tg.vjp(lambda x: tg.jvp(hess_f, (x,), (v,))[1], X3)
    close(vjp_fun(np.float64(1.0))[0], h @ v, rtol=1e-11)
    # forward over forward
    _, hvv = tg.jvp(lambda x: tg.jvp(hess_f, (x,), (v,))[1], (X3,), (v,))
    close(hvv, v @ h @ v, rtol=1e-11)


def test_no_perturbation_confusion():
    assert tg.grad(lambda x: x * tg.grad(lambda y: x * y)(1.0))(4.0) == 8.0
    # the same with forward mode inside and outside
    inner = lambda x: tg.jvp(lambda y: x * y, (1.0,), (1.0,))[1]  # noqa: E731
    assert tg.jvp(lambda x: x * inner(x), (4.0,), (1.0,))[1] == 8.0
    assert tg.grad(lambda x: x * inner(x))(4.0) == 8.0
    # closure over an outer tracer at second order: d/dx [x * d/dy (x*y**2)]_{y=x} = d/dx 2x**3
    assert tg.grad(lambda x: x * tg.grad(lambda y: x * y ** 2)(x))(3.0) == 6 * 9.0


# --------------------------------------------------------------------------
# Python control flow on traced values, in every transform


def piecewise(x):
    if x > 0:
        return x ** 2
    return -3.0 * x


def loop(x):
    y = 1.0
    while y < 100:
        y = y * x
    return y


def array_branch(x):
    if tnp.sum(x) > 0:
        return tnp.sum(x ** 2)
    return tnp.sum(-x)


def test_control_flow_in_grad_and_value_and_grad():
    assert tg.grad(piecewise)(2.0) == 4.0
    assert tg.grad(piecewise)(-1.0) == -3.0
    assert tg.grad(loop)(3.0) == 5 * 3.0 ** 4  # 3**5 = 243 >= 100
    assert tg.value_and_grad(loop)(3.0) == (243.0, 405.0)
    close(tg.grad(array_branch)(X3), 2 * X3)
    close(tg.grad(array_branch)(-X3), -np.ones(3))
    assert tg.grad(tg.grad(piecewise))(2.0) == 2.0


def test_control_flow_in_vjp_jvp_jacobians_hessian():
    assert tg.jvp(loop, (3.0,), (1.0,)) == (243.0, 405.0)
    out, vjp_fun = tg.vjp(loop, 3.0)
    assert out == 243.0 and vjp_fun(np.float64(1.0)) == (405.0,)
    for jac in (tg.jacfwd, tg.jacrev):
        close(jac(piecewise)(np.float64(-2.0)), -3.0)
        close(jac(lambda x: tnp.stack([piecewise(x[0]), loop(x[1])]))(np.array([2.0, 3.0])),
              [[4.0, 0.0], [0.0, 405.0]])
    assert tg.hessian(loop)(np.float64(3.0)) == 20 * 27.0
    assert tg.hessian(piecewise)(np.float64(2.0)) == 2.0


# --------------------------------------------------------------------------
# robustness: long chains, state after exceptions, leaked tracers


def test_100k_op_chain_under_grad():
    c = 1.0000001
    n = 100_000

    def chain(x):
        for _ in range(n):
            x = x * c
        return x

    assert tg.grad(chain)(2.0) == pytest.approx(c ** n, rel=1e-9)


class Boom(Exception):
    pass


def failing(x):
    y = tnp.sin(x) * 2.0
    if y.shape is not None:
        raise Boom("inside the transformed function")
    return y


@pytest.mark.parametrize("transform", [
    lambda f: tg.grad(f)(1.0),
    lambda f: tg.value_and_grad(f)(1.0),
    lambda f: tg.vjp(f, 1.0),
    lambda f: tg.jvp(f, (1.0,), (1.0,)),
    lambda f: tg.jacfwd(f)(X3),
    lambda f: tg.jacrev(f)(X3),
    lambda f: tg.hessian(f)(np.float64(1.0)),
    lambda f: tg.grad(lambda x: tg.grad(f)(x) * x)(1.0),
    lambda f: tg.jvp(tg.grad(f), (1.0,), (1.0,)),
], ids=["grad", "value_and_grad", "vjp", "jvp", "jacfwd", "jacrev", "hessian", "nested", "jvp-of-grad"])
def test_exception_leaves_no_state(transform):
    with pytest.raises(Boom):
        transform(failing)
    trace = current_trace()
    assert type(trace) is EvalTrace and trace.level == 0
    assert tg.grad(lambda x: x * tnp.sin(x))(1.0) == pytest.approx(np.sin(1.0) + np.cos(1.0))
    assert tg.grad(tg.grad(lambda x: x ** 3))(2.0) == 12.0


def test_exception_inside_vjp_fun_leaves_no_state():
    _, vjp_fun = tg.vjp(lambda x: x * 2.0, X3)
    with pytest.raises((TypeError, ValueError)):
        vjp_fun(np.ones(4))
    assert type(current_trace()) is EvalTrace
    close(vjp_fun(np.ones(3))[0], [2.0, 2.0, 2.0])


def test_leaked_tracer_raises_unexpected_tracer_error():
    leaked = []

    def f(x):
        leaked.append(x)
        return x * 2.0

    tg.grad(f)(1.0)
    tg.jvp(f, (1.0,), (1.0,))
    for t in leaked:
        assert isinstance(t, Tracer)
        with pytest.raises(tg.UnexpectedTracerError):
            t * 2.0
        with pytest.raises(tg.UnexpectedTracerError):
            tnp.sin(t)
        with pytest.raises(tg.UnexpectedTracerError):
            tg.grad(lambda y: y * t)(1.0)
        with pytest.raises(tg.UnexpectedTracerError):
            tg.jvp(lambda y: y * t, (1.0,), (1.0,))
    assert issubclass(tg.UnexpectedTracerError, Exception)


def test_leaked_tracer_message_names_the_fix():
    leaked = []
    tg.grad(lambda x: leaked.append(x) or x)(1.0)
    with pytest.raises(tg.UnexpectedTracerError, match="(?i)escape|leak") as e:
        leaked[0] + 1.0
    assert "stop_gradient" in str(e.value) or "return" in str(e.value).lower()


# --------------------------------------------------------------------------
# stop_gradient


def test_stop_gradient():
    assert tg.grad(lambda x: x * tg.stop_gradient(x))(3.0) == 3.0
    assert tg.jvp(lambda x: x * tg.stop_gradient(x), (3.0,), (1.0,)) == (9.0, 3.0)
    assert tg.grad(tg.grad(lambda x: x ** 2 * tg.stop_gradient(x ** 2)))(2.0) == 8.0
    close(tg.stop_gradient(X3), X3)
    # it blocks every enclosing transform, not only the innermost one
    assert tg.grad(lambda x: tg.grad(lambda y: y * tg.stop_gradient(x * y))(2.0))(3.0) == 0.0
    assert tg.grad(lambda x: tg.grad(lambda y: y * tg.stop_gradient(y) * x)(2.0))(3.0) == 2.0


# --------------------------------------------------------------------------
# tree_util


def test_tree_flatten_unflatten_roundtrip_and_order():
    tree = {"b": 1, "a": (2, None, [3, {"z": 4, "y": 5}])}
    leaves, treedef = tree_util.tree_flatten(tree)
    assert leaves == [2, 3, 5, 4, 1]  # dict keys sorted
    assert tree_util.tree_unflatten(treedef, leaves) == tree
    assert tree_util.tree_unflatten(treedef, [10, 20, 30, 40, 50]) == {
        "b": 50, "a": (10, None, [20, {"z": 40, "y": 30}])}
    with pytest.raises(ValueError):
        tree_util.tree_unflatten(treedef, [1, 2])


def test_tree_none_handling():
    assert tree_util.tree_leaves(None) == []
    assert tree_util.tree_leaves([None, (None,)]) == []
    assert tree_util.tree_map(lambda x: x + 1, (1, None, [2])) == (2, None, [3])
    leaves, td = tree_util.tree_flatten(None)
    assert leaves == [] and tree_util.tree_unflatten(td, []) is None


def test_tree_map_multiple_trees_and_mismatch():
    assert tree_util.tree_map(lambda a, b: a * b, {"x": 2, "y": [3]}, {"x": 5, "y": [7]}) == {
        "x": 10, "y": [21]}
    with pytest.raises(ValueError):
        tree_util.tree_map(lambda a, b: a, (1, 2), (1,))
    # as in JAX, the first tree need only be a prefix of the others
    assert tree_util.tree_map(lambda a, b: b, (1, 2), (1, (2, 3))) == (1, (2, 3))
    assert tree_util.tree_leaves({"a": np.ones(2)})[0].shape == (2,)


def test_register_pytree_node_custom_class():
    class Box:
        def __init__(self, items, tag):
            self.items, self.tag = items, tag

    tree_util.register_pytree_node(Box, lambda b: (b.items, b.tag), lambda tag, c: Box(list(c), tag))
    b = Box([1.0, (2.0, 3.0)], "t")
    leaves, td = tree_util.tree_flatten(b)
    assert leaves == [1.0, 2.0, 3.0]
    b2 = tree_util.tree_map(lambda v: v * 10, b)
    assert isinstance(b2, Box) and b2.tag == "t" and b2.items == [10.0, (20.0, 30.0)]
    # aux data is part of the structure
    assert tree_util.tree_structure(Box([1.0], "a")) != tree_util.tree_structure(Box([1.0], "b"))
    g = tg.grad(lambda b: b.items[0] * b.items[1][1])(Box([np.array(2.0), (np.array(1.0), np.array(4.0))], 1))
    assert isinstance(g, Box) and g.tag == 1
    assert_tree_close(g.items, [4.0, (0.0, 2.0)])
    with pytest.raises(ValueError):
        tree_util.register_pytree_node(Box, lambda b: (b.items, b.tag), lambda t, c: Box(c, t))


# --------------------------------------------------------------------------
# check_grads itself


def test_check_grads_passes_on_a_correct_function():
    check_grads(lambda x, y: tnp.sum(tnp.sin(x) * y ** 2), (X3, X3[::-1].copy()), order=2)


def _wrong_first_derivative(x):
    # value 2x everywhere, but traced the derivative is 1 (should be 2)
    if isinstance(x, Tracer):
        return x + tg.stop_gradient(x)
    return 2.0 * x


def test_check_jvp_and_check_vjp_catch_a_wrong_derivative():
    with pytest.raises(AssertionError):
        check_jvp(_wrong_first_derivative, (X3,))
    with pytest.raises(AssertionError):
        check_vjp(_wrong_first_derivative, (X3,))
    for modes in (("fwd",), ("rev",)):
        with pytest.raises(AssertionError):
            check_grads(_wrong_first_derivative, (X3,), order=1, modes=modes)


@pytest.fixture
def cube_with_wrong_second_derivative():
    """A primitive x**3 whose first derivative is right, second wrong (0)."""
    name = "test_only_bad_cube"
    p = Primitive(name)
    try:
        p.def_impl(lambda x: np.asarray(x) ** 3)
        p.def_abstract_eval(lambda x: ShapedArray(x.shape, x.dtype))
        # 3 x**2 computed on a constant copy of x: its own derivative is lost
        deriv = lambda x: ops.mul(3.0, ops.mul(tg.stop_gradient(x), tg.stop_gradient(x)))  # noqa: E731
        defjvp(p, lambda g, ans, x: ops.mul(g, deriv(x)))
        defvjp(p, lambda ct, ans, x: ops.mul(ct, deriv(x)))
        yield p.bind
    finally:
        registry.pop(name, None)


def test_check_grads_catches_a_wrong_second_derivative(cube_with_wrong_second_derivative):
    cube = cube_with_wrong_second_derivative
    close(tg.grad(lambda x: cube(x))(2.0), 12.0)
    check_grads(cube, (X3,), order=1)  # first order is right
    for modes in (("fwd",), ("rev",)):
        with pytest.raises(AssertionError):
            check_grads(cube, (X3,), order=2, modes=modes)
    with pytest.raises(ValueError):
        check_grads(cube, (X3,), modes=("sideways",))


def test_check_grads_pytree_args():
    check_grads(lambda d: d["a"] * tnp.sum(d["b"][0] ** 2), ({"a": X3, "b": (np.ones(2),)},), order=2)


def test_stop_gradient_accepts_pytrees():
    g = tg.grad(lambda x: tg.stop_gradient([x])[0] * x)(1.0)
    assert g == 1.0
    out = tg.stop_gradient({"a": np.ones(2), "b": (3.0, None)})
    assert set(out) == {"a", "b"} and out["b"][1] is None
    g = tg.grad(lambda x: tg.stop_gradient({"k": x})["k"] * x + x)(2.0)
    assert g == 3.0


def test_tracers_format_copy_round_and_divmod():
    import copy

    def f(x):
        label = f"{x:.2f}"  # printing inside a loss reads the value
        assert label == "3.50"
        same = copy.deepcopy({"x": x})["x"]
        q, r = divmod(x, 2.0)  # (1, 1.5): floor_divide has no derivative
        return round(same * 2) + x ** 2 + q + r  # round: no derivative

    assert tg.grad(f)(3.5) == 2 * 3.5 + 1


def test_tracer_used_from_another_thread_names_the_cause():
    import threading

    errors = []

    def f(x):
        def other():
            try:
                tnp.sin(x)
            except tg.UnexpectedTracerError as e:
                errors.append(str(e))

        t = threading.Thread(target=other)
        t.start()
        t.join()
        return x * 2.0

    tg.grad(f)(1.0)
    assert errors and "still running" in errors[0] and "thread" in errors[0]
