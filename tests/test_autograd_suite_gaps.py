"""Regression tests for what HIPS autograd's own test suite found missing or
different in tracegrad (the suite runs through the adapter in
benchmarks/autograd_suite/): ``real_if_close`` of complex tracers, integer conversions of traced
values (``np.int64(x)``), float0 derivatives of integer inputs and outputs in
``vjp``/``jvp`` (JAX's convention), and ``rfftn`` with an odd last axis (which
autograd refuses and tracegrad computes: checked against JAX).
"""
import numpy as np
import pytest

import tracegrad as tg
import tracegrad.numpy as tnp
from tracegrad.interpreters.batching import BatchedValueError
from tracegrad.test_util import check_grads


def same(got, want):
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    np.testing.assert_array_equal(got, want)


# --------------------------------------------------------------------------
# real_if_close on tracers: NumPy's choice on the concrete value, the
# derivative of the branch taken

CLOSE = np.array([0.5 + 1e-18j, -2.0 + 0j, 3.0 - 1e-17j])     # |imag| < 100 eps
FAR = np.array([0.5 + 0.1j, -2.0 + 0j, 3.0 - 1e-17j])         # one imaginary part is not


@pytest.mark.parametrize("spelling", [tnp.real_if_close, np.real_if_close])
def test_real_if_close_of_a_nearly_real_tracer_is_its_real_part(spelling):
    t = np.array([1.0 + 2.0j, -1.0j, 0.5 + 0.25j])
    out, dout = tg.jvp(spelling, (CLOSE,), (t,))
    same(out, np.real_if_close(CLOSE))
    same(dout, np.array([1.0, 0.0, 0.5]))  # Re(t)
    _, pull = tg.vjp(spelling, CLOSE)
    same(pull(np.array([1.0, 2.0, -3.0]))[0], np.array([1.0 + 0j, 2.0 + 0j, -3.0 + 0j]))
    # the derivatives of real(z), to second order (finite differences cannot
    # check this branch: a step in the imaginary direction leaves it)
    f, ref = (lambda z: tnp.sum(spelling(z) ** 3)), (lambda z: tnp.sum(tnp.real(z) ** 3))
    same(tg.grad(f)(CLOSE), tg.grad(ref)(CLOSE))
    same(tg.jvp(tg.grad(f), (CLOSE,), (t,))[1], tg.jvp(tg.grad(ref), (CLOSE,), (t,))[1])
    same(tg.grad(f)(CLOSE), 3 * np.real(CLOSE) ** 2 + 0j)


@pytest.mark.parametrize("spelling", [tnp.real_if_close, np.real_if_close])
def test_real_if_close_of_a_complex_tracer_is_the_identity(spelling):
    t = np.array([1.0 + 2.0j, -1.0j, 0.5 + 0.25j])
    out, dout = tg.jvp(spelling, (FAR,), (t,))
    same(out, FAR)
    same(dout, t)
    _, pull = tg.vjp(spelling, FAR)
    ct = np.array([1.0 - 1j, 2.0j, 0.5 + 0j])
    same(pull(ct)[0], ct)
    check_grads(lambda z: spelling(z) * z, (FAR,), order=2, modes=("fwd", "rev"))


def test_real_if_close_tol_and_complex64():
    z = np.array([1.0 + 1e-9j], dtype=np.complex64)
    same(tg.jvp(tnp.real_if_close, (z,), (np.ones(1, np.complex64),))[0], np.real_if_close(z))
    same(tg.jvp(lambda a: tnp.real_if_close(a, tol=1e-12), (CLOSE * 1e6 + 1e-9j,),
                (np.ones(3, complex),))[0],
         np.real_if_close(CLOSE * 1e6 + 1e-9j, tol=1e-12))
    z32 = np.array([2.0 + 0j], dtype=np.complex64)
    out = tg.jvp(tnp.real_if_close, (z32,), (np.ones(1, np.complex64),))
    assert out[0].dtype == np.float32 and out[1].dtype == np.float32


def test_real_if_close_of_a_batched_complex_value_names_the_problem():
    with pytest.raises(TypeError, match=r"real_if_close.*concrete value.*tracegrad\.numpy\.real"):
        tg.vmap(tnp.real_if_close)(CLOSE[:, None])
    # a real batched value has nothing to decide
    same(tg.vmap(tnp.real_if_close)(np.arange(6.0).reshape(3, 2)), np.arange(6.0).reshape(3, 2))
    # nor does a complex value that is the same for every example
    same(tg.vmap(lambda x: x * tnp.real_if_close(CLOSE))(np.ones(2))[1], np.real(CLOSE))


# --------------------------------------------------------------------------
# integer and bool conversions of traced values read the concrete value (no
# derivative exists for them); float and untyped conversions still raise

# the last column is kept half-way between integers, so that finite-difference
# steps do not change its integer conversion
W = np.array([[0.3, -1.0, 2.5], [1.5, 0.5, 0.5], [-0.2, 2.2, 1.5]])


def test_int64_of_a_tracer_indexes_and_the_gradient_flows_elsewhere():
    def fun(w):
        idx = np.int64(w[:, -1])  # [2, 0, 1] (truncation)
        assert idx.dtype == np.int64 and not isinstance(idx, tg.core.Tracer)
        return tnp.sum(w[:, :-1][idx] * np.array([[1.0, 2.0]]))

    same(fun(W), np.sum(W[:, :-1][np.int64(W[:, -1])] * np.array([[1.0, 2.0]])))
    g = tg.grad(fun)(W)
    # row r of w[:, :-1] is picked (idx == r) once each; the index column has none
    same(g, np.array([[1.0, 2.0, 0.0], [1.0, 2.0, 0.0], [1.0, 2.0, 0.0]]))
    check_grads(fun, (W,), order=2, modes=("fwd", "rev"))


@pytest.mark.parametrize("convert, want", [
    (lambda x: np.int64(x), np.array([0, -1, 2])),
    (lambda x: np.asarray(x, dtype=np.int32), np.array([0, -1, 2], dtype=np.int32)),
    (lambda x: np.array(x[2:], dtype=np.uint8), np.array([2], dtype=np.uint8)),
    (lambda x: np.asarray(x, dtype=bool), np.array([True, True, True])),
])
def test_integer_and_bool_conversions_under_jvp_and_vjp(convert, want):
    seen = []
    tg.jvp(lambda x: seen.append(convert(x)) or x, (W[0],), (np.ones(3),))
    tg.vjp(lambda x: seen.append(convert(x)) or x, W[0])
    for got in seen:
        same(got, want)


def test_float_and_untyped_conversions_still_raise():
    for convert in (np.float64, lambda x: np.asarray(x), lambda x: np.asarray(x, dtype=float),
                    lambda x: np.asarray(x, dtype=complex)):
        with pytest.raises(TypeError, match="silently drop its derivative"):
            tg.grad(lambda x: tnp.sum(convert(x)))(W[0])


def test_integer_conversion_inside_vmap_raises_the_batched_value_error():
    with pytest.raises(BatchedValueError, match="varies over an axis mapped by vmap"):
        tg.vmap(lambda x: np.int64(x))(W)


# --------------------------------------------------------------------------
# float0: integer inputs get float0 cotangents from vjp, integer outputs float0
# tangents from jvp, as in JAX


def test_vjp_of_an_integer_input_gives_float0_zeros():
    out, pull = tg.vjp(lambda x: x * 2, np.arange(3))
    same(out, np.array([0, 2, 4]))
    (g,) = pull(np.ones(3, np.int64))
    assert g.dtype == tg.float0 and g.shape == (3,)
    gi, gf = tg.vjp(lambda i, x: i * x, np.arange(3), np.ones(3))[1](np.ones(3))
    assert gi.dtype == tg.float0 and gi.shape == (3,)
    same(gf, np.array([0.0, 1.0, 2.0]))
    # pytrees: only the integer leaves
    (g,) = tg.vjp(lambda d: d["a"] * d["n"], {"a": np.ones(2), "n": np.array([1, 2])})[1](np.ones(2))
    same(g["a"], np.array([1.0, 2.0]))
    assert g["n"].dtype == tg.float0


def test_jvp_of_an_integer_output_gives_float0_zeros():
    out, t = tg.jvp(lambda x: ((x > 0).astype(int) * 3, tnp.argmax(x), x * 2.0),
                    (np.array([1.0, -1.0, 2.0]),), (np.ones(3),))
    same(out[0], np.array([3, 0, 3]))
    assert t[0].dtype == tg.float0 and t[0].shape == (3,)
    assert t[1].dtype == tg.float0 and t[1].shape == ()
    same(t[2], np.full(3, 2.0))
    out, t = tg.jvp(lambda i: i * 2, (np.arange(3),), (np.zeros(3, tg.float0),))
    same(out, np.array([0, 2, 4]))
    assert t.dtype == tg.float0 and t.shape == (3,)


def test_float0_conventions_match_jax():
    jax = pytest.importorskip("jax")
    jnp = jax.numpy
    jax.config.update("jax_enable_x64", True)
    (jg,) = jax.vjp(lambda x: x * 2, jnp.arange(3))[1](jnp.ones(3, jnp.int64))
    (tg_g,) = tg.vjp(lambda x: x * 2, np.arange(3))[1](np.ones(3, np.int64))
    assert jg.dtype == jax.dtypes.float0 and tg_g.dtype == tg.float0 and jg.shape == tg_g.shape
    _, jt = jax.jvp(lambda x: jnp.argmax(x), (jnp.ones(3),), (jnp.ones(3),))
    _, tt = tg.jvp(lambda x: tnp.argmax(x), (np.ones(3),), (np.ones(3),))
    assert jt.dtype == jax.dtypes.float0 and tt.dtype == tg.float0 and jt.shape == tt.shape


# --------------------------------------------------------------------------
# rfftn with an odd last axis: autograd raises NotImplementedError, tracegrad
# differentiates it; values and derivatives against JAX


def test_rfftn_with_an_odd_last_axis_matches_jax():
    jax = pytest.importorskip("jax")
    jnp = jax.numpy
    jax.config.update("jax_enable_x64", True)
    rng = np.random.default_rng(0)
    x = rng.standard_normal((5, 5, 5)) / 10.0
    c = rng.standard_normal((5, 5, 3)) + 1j * rng.standard_normal((5, 5, 3))
    v = rng.standard_normal((5, 5, 5))

    def loss(fft):
        return lambda a: (fft.rfftn(a) * c).real.sum() + (fft.rfftn(a) ** 2 * c).imag.sum()

    np.testing.assert_allclose(tnp.fft.rfftn(x), np.fft.rfftn(x), rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(tg.grad(loss(tnp.fft))(x), jax.grad(loss(jnp.fft))(x),
                               rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(tg.jvp(tg.grad(loss(tnp.fft)), (x,), (v,))[1],
                               jax.jvp(jax.grad(loss(jnp.fft)), (x,), (v,))[1], rtol=1e-10, atol=1e-11)
    check_grads(tnp.fft.rfftn, (x,), order=2, modes=("fwd", "rev"))


# --------------------------------------------------------------------------
# where with Python operands follows NumPy (autograd 1.9 returns Python values)


@pytest.mark.parametrize("args", [(True, 1, 2), (True, 3.0, 4.0), (False, 1, 2.0),
                                  (True, [1, 2], [3, 4])])
def test_where_of_python_values_returns_numpys_arrays(args):
    got, want = tnp.where(*args), np.where(*args)
    assert isinstance(got, np.ndarray)
    same(got, want)


def test_where_takes_positional_arguments_as_numpy():
    with pytest.raises(TypeError):
        tnp.where(condition=[True, False], x=np.ones(2), y=np.zeros(2))
    with pytest.raises(TypeError):
        np.where(condition=[True, False], x=np.ones(2), y=np.zeros(2))
    same(tnp.where([True, False, True]), np.where([True, False, True]))


def test_check_grads_of_a_function_of_an_integer_argument_to_second_order():
    # the reverse-mode recursion differentiates vjp_fun, whose cotangent for the
    # integer argument is float0: check_grads reads it as "no value"
    x, i = np.array([0.5, -1.0, 2.0]), np.array([2, 0, 0])
    check_grads(lambda x, i: x[i] * x, (x, i), order=2, modes=("fwd", "rev"))
    _, pull = tg.vjp(lambda x, i: x[i] * x, x, i)
    gx, gi = pull(np.ones(3))
    # d/dx_j sum_k x[i_k] x_k = x[i_j] + sum over k with i_k == j of x_k
    same(gx, np.array([2.0 + (-1.0 + 2.0), 0.5, 0.5 + 0.5]))
    assert gi.dtype == tg.float0
