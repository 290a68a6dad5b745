"""``tg.checkpoint`` / ``tg.remat``: same values and derivatives as the plain
function under every transform, less memory in reverse mode.

The memory test is the issue's: a gradient through 20 checkpointed blocks
(elementwise work on 1e5-element arrays, so intermediates dominate) peaks
well below the same gradient without checkpointing (tracemalloc), with
identical gradients.
"""
import gc
import tracemalloc

import numpy as np
import pytest

import tracegrad as tg
import tracegrad.numpy as tnp
from tracegrad.test_util import check_grads

X = np.array([0.3, -1.2, 0.8])
XS = np.array([[0.3, -1.2, 0.8], [1.1, 0.4, -0.6]])


def block(p, x):
    """A pytree in (dict of arrays plus an array), a pytree out (a tuple)."""
    h = tnp.tanh(p["w"] * x + p["b"])
    return h * tnp.sin(x), {"sum": tnp.sum(h ** 2)}


P = {"w": np.array([0.5, -1.5, 2.0]), "b": np.array(0.25)}


def loss(f):
    def scalar(p, x):
        y, aux = f(p, x)
        return tnp.sum(y * tnp.cos(y)) + aux["sum"]

    return scalar


def assert_tree_equal(a, b):
    la, ta = tg.tree_util.tree_flatten(a)
    lb, tb = tg.tree_util.tree_flatten(b)
    assert ta == tb
    for u, v in zip(la, lb):
        np.testing.assert_array_equal(np.asarray(u), np.asarray(v))


def assert_tree_close(a, b, rtol=1e-13):
    la, ta = tg.tree_util.tree_flatten(a)
    lb, tb = tg.tree_util.tree_flatten(b)
    assert ta == tb
    for u, v in zip(la, lb):
        np.testing.assert_allclose(np.asarray(u), np.asarray(v), rtol=rtol, atol=1e-15)


TRANSFORMS = {
    "eval": lambda f: f(P, X),
    "grad": lambda f: tg.grad(loss(f), (0, 1))(P, X),
    "value_and_grad": lambda f: tg.value_and_grad(loss(f))(P, X),
    "vjp": lambda f: tg.vjp(f, P, X)[1](f(P, X)),
    "jvp": lambda f: tg.jvp(f, (P, X), (P, np.array([1.0, 0.5, -2.0]))),
    "jacrev": lambda f: tg.jacrev(f, (0, 1))(P, X),
    "jacfwd": lambda f: tg.jacfwd(f, (0, 1))(P, X),
    "vmap": lambda f: tg.vmap(f, (None, 0))(P, XS),
    "vmap_grad": lambda f: tg.vmap(tg.grad(loss(f), 1), (None, 0))(P, XS),
    "grad_vmap": lambda f: tg.grad(lambda p: tnp.sum(tg.vmap(loss(f), (None, 0))(p, XS)))(P),
    "grad_grad": lambda f: tg.grad(lambda x: tnp.sum(tg.grad(loss(f), 1)(P, x) ** 2))(X),
    "hessian": lambda f: tg.hessian(loss(f), (0, 1))(P, X),
}
# reverse mode of the plain function and of its recomputation run the same
# primitives in the same order: the results are bitwise equal; higher orders
# and Jacobians differentiate a different (equivalent) graph: equal to rounding
EXACT = {"eval", "grad", "value_and_grad", "vjp", "jvp", "vmap", "vmap_grad", "grad_vmap"}


@pytest.mark.parametrize("name", sorted(TRANSFORMS))
@pytest.mark.parametrize("wrap", [tg.checkpoint, tg.remat], ids=["checkpoint", "remat"])
def test_same_values_and_derivatives_as_the_plain_function(name, wrap):
    got, want = TRANSFORMS[name](wrap(block)), TRANSFORMS[name](block)
    if name in EXACT:
        assert_tree_equal(got, want)
    else:
        assert_tree_close(got, want)


def test_check_grads_and_float32():
    f = tg.checkpoint(lambda x: tnp.sin(x) * tnp.exp(-x * x))
    check_grads(f, (X,), order=2, modes=("fwd", "rev"))
    x32 = X.astype(np.float32)
    g = tg.grad(lambda x: tnp.sum(f(x)))(x32)
    assert g.dtype == np.float32
    check_grads(f, (x32,), order=1, modes=("fwd", "rev"), atol=5e-2, rtol=5e-2, eps=1e-2)


def test_remat_is_checkpoint_and_keeps_the_name():
    assert tg.remat is tg.checkpoint

    def my_block(x):
        """Docs."""
        return x

    wrapped = tg.checkpoint(my_block)
    assert wrapped.__name__ == "my_block" and wrapped.__doc__ == "Docs."


def test_reverse_mode_recomputes_the_function_once():
    calls = []

    @tg.checkpoint
    def f(x):
        calls.append(1)
        return tnp.sin(x) * x

    f(X)
    assert len(calls) == 1
    calls.clear()
    tg.grad(lambda x: tnp.sum(f(x)))(X)
    assert len(calls) == 2  # the forward pass and the recomputation
    calls.clear()
    tg.jvp(f, (X,), (X,))
    assert len(calls) == 1


def test_keyword_arguments_defaults_and_integer_arguments():
    @tg.checkpoint
    def f(x, k, scale=2.0):
        return scale * x ** 2 * k

    k = np.array([1, 2, 3])
    np.testing.assert_array_equal(f(X, k), 2.0 * X ** 2 * k)
    np.testing.assert_array_equal(f(X, k=k, scale=3.0), 3.0 * X ** 2 * k)
    g = tg.grad(lambda x, s: tnp.sum(f(x, k, scale=s)), (0, 1))(X, 3.0)
    np.testing.assert_allclose(g[0], 6.0 * X * k, rtol=1e-15)
    np.testing.assert_allclose(g[1], np.sum(X ** 2 * k), rtol=1e-15)
    np.testing.assert_allclose(tg.jvp(lambda x: f(x, k), (X,), (np.ones(3),))[1], 4.0 * X * k,
                               rtol=1e-15)
    np.testing.assert_allclose(tg.vmap(f, (0, None))(XS, k), 2.0 * XS ** 2 * k, rtol=1e-15)


def test_nested_checkpoints():
    inner = tg.checkpoint(lambda x: tnp.tanh(x) * 2.0)
    outer = tg.checkpoint(lambda x: inner(inner(x)) + x)
    plain = lambda x: tnp.tanh(tnp.tanh(x) * 2.0) * 2.0 + x  # noqa: E731
    f = lambda g: (lambda x: tnp.sum(g(x) ** 2))  # noqa: E731
    np.testing.assert_array_equal(tg.grad(f(outer))(X), tg.grad(f(plain))(X))
    np.testing.assert_allclose(tg.hessian(f(outer))(X), tg.hessian(f(plain))(X), rtol=1e-13)
    np.testing.assert_allclose(tg.vmap(tg.grad(f(outer)))(XS), tg.vmap(tg.grad(f(plain)))(XS),
                               rtol=1e-15)


class Layer:
    def __init__(self, w):
        self.w = w

    def __call__(self, h):
        return tnp.tanh(self.w * h)


@pytest.mark.parametrize("how", ["lambda", "nested_function", "object_attribute", "global"])
def test_closed_over_traced_values_are_differentiated(how):
    # checkpointed layers close over their weights: the weights' derivatives
    # flow through the checkpoint (found in the closure, or when first used)
    def model(w, x, ckpt):
        if how == "lambda":
            layer = lambda h: tnp.tanh(w * h)  # noqa: E731
        elif how == "nested_function":
            def act(h):
                return tnp.tanh(h)

            def layer(h):
                return act(w * h)
        elif how == "object_attribute":
            layer = Layer(w)
        else:
            _GLOBAL["w"] = w
            layer = _global_layer
        if ckpt:
            layer = tg.checkpoint(layer)
        return tnp.sum(layer(layer(x)) ** 2)

    w = np.array([0.7, -0.4, 1.3])
    got = tg.grad(model, (0, 1))(w, X, True)
    want = tg.grad(model, (0, 1))(w, X, False)
    assert_tree_equal(got, want)
    assert_tree_close(tg.hessian(model)(w, X, True), tg.hessian(model)(w, X, False))
    assert_tree_close(tg.jvp(lambda v: model(v, X, True), (w,), (X,)),
                      tg.jvp(lambda v: model(v, X, False), (w,), (X,)))
    ws = np.stack([w, 2 * w])
    assert_tree_close(tg.vmap(model, (0, None, None))(ws, X, True),
                      tg.vmap(model, (0, None, None))(ws, X, False))
    assert_tree_close(tg.vmap(tg.grad(model), (0, None, None))(ws, X, True),
                      tg.vmap(tg.grad(model), (0, None, None))(ws, X, False))
    _GLOBAL.clear()


_GLOBAL = {}


def _global_layer(h):
    return tnp.tanh(_GLOBAL["w"] * h)


def test_recomputation_that_differs_from_the_forward_pass_raises():
    # the backward pass runs the function again, later: a lambda reading a
    # loop variable sees the variable's final value then
    scales = [2.0, 3.0]

    def f(x, traced_scales):
        for i in range(2):
            s = traced_scales[i] if traced_scales is not None else np.float64(scales[i])
            x = tg.checkpoint(lambda h: h * s)(x)
        return tnp.sum(x)

    with pytest.raises(RuntimeError, match="different result .* loop variable captured by a "
                                           "lambda"):
        tg.grad(f)(X, None)
    with pytest.raises(TypeError, match="did not use when it was first called.*loop variable"):
        tg.grad(f, 1)(X, np.array(scales))

    def g(x, traced_scales):  # the fix: bind the value when the lambda is made
        for i in range(2):
            x = tg.checkpoint(lambda h, s=traced_scales[i]: h * s)(x)
        return tnp.sum(x)

    gx, gs = tg.grad(g, (0, 1))(X, np.array(scales))
    np.testing.assert_array_equal(gx, np.full(3, 6.0))
    np.testing.assert_allclose(gs, np.array([3.0, 2.0]) * X.sum(), rtol=1e-15)


def test_exception_inside_a_checkpointed_function_leaves_no_state():
    fail = {"now": True}

    @tg.checkpoint
    def f(x):
        if fail["now"]:
            raise RuntimeError("block failed")
        return tnp.sin(x)

    for run in (lambda: f(X), lambda: tg.grad(lambda x: tnp.sum(f(x)))(X),
                lambda: tg.vmap(f)(XS), lambda: tg.jvp(f, (X,), (X,))):
        with pytest.raises(RuntimeError, match="block failed"):
            run()
    fail["now"] = False
    np.testing.assert_array_equal(tg.grad(lambda x: tnp.sum(f(x)))(X), np.cos(X))


# --------------------------------------------------------------------------
# memory


def _chain_block(x):
    a = tnp.sin(x)
    b = a * x
    c = tnp.exp(-b * b)
    d = c + a
    return tnp.tanh(d) * 0.5 + x * 0.5


def _chain(ckpt, n_blocks=20):
    blk = tg.checkpoint(_chain_block) if ckpt else _chain_block

    def f(x):
        for _ in range(n_blocks):
            x = blk(x)
        return tnp.sum(x)

    return f


def _peak_of_grad(f, x):
    gc.collect()
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        base = tracemalloc.get_traced_memory()[0]
        g = tg.grad(f)(x)
        peak = tracemalloc.get_traced_memory()[1] - base
    finally:
        tracemalloc.stop()
    return g, peak


def test_checkpoint_lowers_peak_memory_of_a_gradient():
    x = np.random.default_rng(0).standard_normal(100_000)
    for ckpt in (False, True):  # warm-up: kernels compiled, caches filled
        tg.grad(_chain(ckpt, 2))(x)
    g_plain, peak_plain = _peak_of_grad(_chain(False), x)
    g_ckpt, peak_ckpt = _peak_of_grad(_chain(True), x)
    print(f"\npeak memory of the gradient through 20 blocks of 1e5 float64: "
          f"{peak_plain / 1e6:.1f} MB plain, {peak_ckpt / 1e6:.1f} MB checkpointed "
          f"({peak_ckpt / peak_plain:.2f}x)")
    np.testing.assert_array_equal(g_ckpt, g_plain)
    assert peak_ckpt < 0.5 * peak_plain, (peak_ckpt, peak_plain)
    # the checkpointed chain keeps about one array per block (its input),
    # plus one block's intermediates while that block is differentiated
    assert peak_ckpt < 2 * 20 * x.nbytes, peak_ckpt


def test_checkpoint_with_closed_over_weights_lowers_peak_memory():
    x = np.random.default_rng(1).standard_normal(100_000)
    ws = np.linspace(0.5, 1.5, 20)

    def model(ws, x, ckpt):
        for i in range(20):
            blk = lambda h, w=ws[i]: _chain_block(w * h)  # noqa: E731
            x = (tg.checkpoint(blk) if ckpt else blk)(x)
        return tnp.sum(x)

    tg.grad(model)(ws, x[:100], True)
    g_plain, peak_plain = _peak_of_grad(lambda v: model(v, x, False), ws)
    g_ckpt, peak_ckpt = _peak_of_grad(lambda v: model(v, x, True), ws)
    np.testing.assert_allclose(g_ckpt, g_plain, rtol=1e-13)
    assert peak_ckpt < 0.5 * peak_plain, (peak_ckpt, peak_plain)
