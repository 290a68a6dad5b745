"""Code generation of structured control flow (transforms/codegen_loops.py):
a jitted ``lax.scan`` (and the scans of its derivative) is one Numba loop
inside the compiled function and equals eager; ``cond``/``switch`` an
``if`` chain, ``while_loop`` a ``while``; the fallback to the impl when a
body cannot be compiled.

The programs are module-level and shared between tests (each Numba compile
costs seconds), with tiny shapes.
"""
import numpy as np
import pytest

import tracegrad as tg
import tracegrad.numpy as tnp
from tracegrad import lax
from tracegrad.core import Primitive, ShapedArray, registry
from tracegrad.transforms import codegen
from tracegrad.tree_util import tree_leaves

RNG = np.random.default_rng(0)
XS = RNG.standard_normal((5, 3))
XS1 = RNG.standard_normal(4)           # 1-D xs: 0-d slices
XS0 = np.zeros((0, 3))                 # length 0
XS32 = RNG.standard_normal((4, 2)).astype(np.float32)
W = RNG.standard_normal((3, 3)) / 2
SIGNS = np.array([[1.0], [-1.0]])


def _assert_trees_close(got, want, rtol=1e-12):
    got, want = tree_leaves(got), tree_leaves(want)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        g, w = np.asarray(g), np.asarray(w)
        assert g.dtype == w.dtype and g.shape == w.shape
        np.testing.assert_allclose(g, w, rtol=rtol, atol=1e-14)


# --------------------------------------------------------------------------
# scan: one program with every case, compiled once

def _scans(h0, xs, xs1, xs0, xs32):
    def step(h, x):
        h = tnp.tanh(h * 0.5 + x)
        return h, h * 2.0

    fwd = lax.scan(step, h0, xs)
    rev = lax.scan(step, h0, xs, reverse=True)
    empty = lax.scan(step, h0, xs0)

    def pytree_step(c, x):  # a (vector, scalar) carry, a dict of ys; 0-d xs slices
        v, s = c
        return (v + x, s * x), {"s": s, "v": v.sum() + 1.0}

    tree = lax.scan(pytree_step, (h0, tnp.sum(h0)), xs1)

    def swap(c, x):  # outputs that are inputs: a swap, a carry as y, a literal y
        a, b = c
        return (b, a + x), (a, 1.0)

    swapped = lax.scan(swap, (h0, h0 * 0.0), xs)

    def mat(h, x):  # a matmul body (BLAS through np.dot) with a hoisted transpose
        return tnp.tanh(h @ W + x @ W.T), None

    matmul = lax.scan(mat, h0, xs)[0]

    def f32(c, x):
        return c * x + 1.0, c.sum()

    single = lax.scan(f32, tnp.ones(2, np.float32), xs32)

    def outer(c, x):  # nested scan
        inner, ys = lax.scan(lambda ci, xi: (ci * 0.9 + xi, ci), c, tnp.reshape(x, (1, 3)) * SIGNS)
        return inner + 1.0, ys.sum(0)

    nested = lax.scan(outer, h0, xs)
    unread_ys = lax.scan(lambda h, x: (h + x, tnp.sin(x)), h0, xs)[0]
    return fwd, rev, empty, tree, swapped, matmul, single, nested, unread_ys


SCANS = tg.jit(_scans)
SCAN_ARGS = (np.array([0.1, -0.2, 0.3]), XS, XS1, XS0, XS32)


@pytest.fixture(scope="module")
def scan_results():
    return SCANS(*SCAN_ARGS)


def test_scans_equal_eager(scan_results):
    want = _scans(*SCAN_ARGS)
    names = ["forward", "reverse", "length 0", "pytree", "swap", "matmul", "float32", "nested",
             "unread ys"]
    for name, g, w in zip(names, scan_results, want):
        _assert_trees_close(g, w, rtol=1e-6 if name == "float32" else 1e-12)
    assert scan_results[2][1].shape == (0, 3)


def test_scans_compile_to_loops_without_impl_calls(scan_results):
    src = SCANS.lower(*SCAN_ARGS).source
    n_scans = 10  # nine in _scans, one nested
    assert src.count("# scan body") == n_scans
    assert "sin" not in src  # ys nothing reads are not computed
    assert "impl" not in src
    assert src.count("def segment") == 1  # one compiled function for the whole program
    if codegen.blas_available():
        assert "np.dot" in src


def test_scan_length_and_reverse_in_source(scan_results):
    src = SCANS.lower(*SCAN_ARGS).source
    assert "in range(4, -1, -1):  # scan body, 5 steps" in src  # reverse
    assert "in range(0):  # scan body, 0 steps" in src


# --------------------------------------------------------------------------
# reverse mode: the derivative's scans compile too

def _rnn_loss(params, xs):
    wx, wh = params

    def step(h, x):
        return tnp.tanh(x @ wx + h @ wh), None

    h, _ = lax.scan(step, tnp.zeros(xs.shape[1:]), xs)
    return tnp.mean(h ** 2)


RNN_GRAD = tg.jit(tg.grad(_rnn_loss))
RNN_ARGS = ((RNG.standard_normal((3, 3)) / 2, RNG.standard_normal((3, 3)) / 2),
            RNG.standard_normal((6, 2, 3)))


def test_jit_grad_of_scan_is_compiled_and_equals_eager():
    got = RNN_GRAD(*RNN_ARGS)
    _assert_trees_close(got, tg.grad(_rnn_loss)(*RNN_ARGS))
    src = RNN_GRAD.lower(*RNN_ARGS).source
    if codegen.blas_available():
        assert "impl" not in src and src.count("def segment") == 1
        assert "in range(5, -1, -1):" in src  # the reverse scan of the backward pass
        # the transposed weights are loop-invariant: computed once, above the loop
        before, loop = src.split("in range(5, -1, -1):")
        assert "# transpose" in before


# --------------------------------------------------------------------------
# a body that cannot be compiled: the scan runs its impl from the driver

_no_lowering_p = Primitive("test_loops_no_lowering")
_no_lowering_p.def_impl(lambda x: x * 3.0)
_no_lowering_p.def_abstract_eval(lambda x: ShapedArray(x.shape, x.dtype))
# a test double, not a primitive of the library: kept out of the registry,
# whose every entry the registry-wide tests check for rules and cases
registry.pop(_no_lowering_p.name)


def _with_unlowerable(h0, xs):
    return lax.scan(lambda h, x: (_no_lowering_p.bind(h) + x, h), h0, xs)


def test_scan_with_unlowerable_body_falls_back_to_its_impl():
    jitted = tg.jit(_with_unlowerable)
    got = jitted(SCAN_ARGS[0], XS)
    _assert_trees_close(got, _with_unlowerable(SCAN_ARGS[0], XS))
    src = jitted.lower(SCAN_ARGS[0], XS).source
    assert "impl_scan" in src and "# scan body" not in src


# --------------------------------------------------------------------------
# cond, switch, while_loop, fori_loop

def _branchy(i, x, s, limit):
    branches = (lambda x, s: (x * 2.0, s + 1.0),
                lambda x, s: (tnp.sin(x) + W[0], s),  # a constant; an input as output
                lambda x, s: (x, 7.0 * tnp.ones(())))
    switched = lax.switch(i, branches, x, s)
    picked = lax.cond(s > 2.0, lambda v: v.sum(), lambda v: tnp.sum(v * v), x)

    def body(c):  # while x.sum() < limit: x = 2 x + 0.5 (a data-dependent trip count)
        v, n = c
        return v * 2.0 + 0.5, n + 1

    looped = lax.while_loop(lambda c: tnp.sum(c[0]) < limit, body, (x, 0))
    counted = lax.fori_loop(0, 3, lambda k, v: v * 0.5 + k, x)
    return switched, picked, looped, counted


BRANCHY = tg.jit(_branchy)


@pytest.mark.parametrize("index", [0, 1, 2])
@pytest.mark.parametrize("limit", [-100.0, 50.0])
def test_cond_switch_and_while_equal_eager(index, limit):
    args = (np.int32(index), np.array([0.5, -1.0, 2.0]), np.float64(1.0 + index), np.float64(limit))
    got = BRANCHY(*args)
    _assert_trees_close(got, _branchy(*args))
    if limit > 0:
        assert int(got[2][1]) > 1  # the loop ran a data-dependent number of times


def test_cond_and_while_source():
    args = (np.int32(0), np.zeros(3), np.float64(3.0), np.float64(1.0))
    src = BRANCHY.lower(*args).source
    for name in ("cond", "while", "scan"):  # (switch's index clip runs its impl)
        assert f"impl_{name}" not in src
    assert "elif" in src and "else:  # branch 2" in src
    assert "while True:" in src and "break" in src


def _cond_loss(x, s):
    return lax.cond(s > 0.0, lambda v: tnp.sum(tnp.sin(v) * v), lambda v: tnp.sum(v * v), x)


COND_GRAD = tg.jit(tg.grad(_cond_loss))


@pytest.mark.parametrize("s", [1.0, -1.0])
def test_jit_grad_of_cond(s):
    x = np.array([0.5, -1.0, 2.0])
    _assert_trees_close(COND_GRAD(x, s), tg.grad(_cond_loss)(x, s))
    assert "impl" not in COND_GRAD.lower(x, s).source
