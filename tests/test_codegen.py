"""Numba code generation for jit (transforms/codegen.py): each lowering rule
against the primitive's impl, the fallback, the no-SciPy split, the parallel
path and the fast-math fix-up pass."""
import numpy as np
import pytest

import tracegrad as tg
import tracegrad.numpy as tnp
from tracegrad.core import registry
from tracegrad.transforms import codegen

SPECIAL = np.array([0.0, -0.0, 1.5, -2.25, np.inf, -np.inf, np.nan, 1e-300, 700.0, -800.0])


def _check(fn, *args, rtol=1e-12):
    got = tg.jit(fn)(*args)
    want = fn(*args)
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape
    if want.dtype.kind == "f":
        np.testing.assert_allclose(got, want, rtol=rtol, atol=0, equal_nan=True)
        # signed zeros: same sign bit where the eager result is zero
        z = want == 0
        assert np.array_equal(np.signbit(got[z]), np.signbit(want[z]))
    else:
        np.testing.assert_array_equal(got, want)


UNARY = ["negative", "abs", "exp", "expm1", "log", "log1p", "sqrt", "sin", "cos", "tan",
         "arctan", "sinh", "cosh", "tanh", "floor", "ceil"]


@pytest.mark.parametrize("name", UNARY)
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_unary_lowerings_equal_eager_on_special_values(name, dtype):
    fn = getattr(tnp, name)
    x = SPECIAL.astype(dtype).reshape(2, 5)
    with np.errstate(all="ignore"):
        _check(lambda a: fn(a), x, rtol=1e-6 if dtype == np.float32 else 1e-13)


BINARY = ["add", "subtract", "multiply", "divide", "power", "maximum", "minimum",
          "equal", "not_equal", "less", "less_equal", "greater", "greater_equal"]


@pytest.mark.parametrize("name", BINARY)
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_binary_lowerings_broadcast_and_keep_dtypes(name, dtype):
    fn = getattr(tnp, name)
    x = SPECIAL.astype(dtype).reshape(2, 1, 5)
    y = np.array([[0.0], [-0.0], [2.0]], dtype)  # (3, 1): broadcasts against (2, 1, 5)
    with np.errstate(all="ignore"):
        _check(lambda a, b: fn(a, b), x, y, rtol=1e-6 if dtype == np.float32 else 1e-13)
        _check(lambda a: fn(a, 2), x)  # a weak Python scalar keeps float32


@pytest.mark.parametrize("dtype", [np.int64, np.int32, np.bool_])
def test_integer_and_bool_lowerings(dtype):
    x = np.array([[0, 1, 2], [3, 4, 5]]).astype(dtype)
    y = np.array([1, 0, 1]).astype(dtype)
    _check(lambda a, b: tnp.add(a, b), x, y)
    _check(lambda a, b: tnp.multiply(a, b), x, y)
    _check(lambda a, b: tnp.less(a, b), x, y)
    _check(lambda a, b: tnp.where(a > b, a, b), x, y)
    _check(lambda a, b: tnp.maximum(a, b), x, y)
    _check(lambda a: tnp.sum(a, axis=0), x)
    _check(lambda a, b: a / 2, x, y)  # integer true division: float64


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("axis,keepdims", [(None, False), (0, False), (1, True), ((0, 2), False)])
def test_reductions_over_axes(dtype, axis, keepdims):
    x = np.random.default_rng(0).standard_normal((3, 4, 5)).astype(dtype)
    _check(lambda a: tnp.sum(tnp.sin(a) * 2.0, axis=axis, keepdims=keepdims), x,
           rtol=1e-5 if dtype == np.float32 else 1e-12)


def test_shape_primitives_and_matmul_in_one_compiled_function():
    rng = np.random.default_rng(1)
    a, x = rng.standard_normal((6, 6)), rng.standard_normal(6)
    f = lambda v: tnp.sum(tnp.tanh(v) ** 2) + v @ a @ v  # noqa: E731
    h = tg.jit(tg.hessian(f))
    np.testing.assert_allclose(h(x), tg.hessian(f)(x), rtol=1e-12)
    src = h.lower(x).source
    if codegen.blas_available():
        assert src.count("@numba.njit") == 1 and "(its impl)" not in src
        assert "np.dot(" in src and "# transpose" in src


def test_without_scipy_matmul_runs_numpy_between_segments(monkeypatch):
    monkeypatch.setattr(codegen, "_blas", False)
    rng = np.random.default_rng(2)
    w = rng.standard_normal((4, 3))
    f = lambda v: tnp.sum(tnp.tanh(w @ tnp.sin(v) * 2.0 + 1.0) ** 2)  # noqa: E731
    x = rng.standard_normal(3)
    g = tg.jit(tg.grad(f))
    np.testing.assert_allclose(g(x), tg.grad(f)(x), rtol=1e-12)
    src = g.lower(x).source
    assert "np.dot(" not in src and "matmul (its impl)" in src


def test_primitive_without_lowering_falls_back_to_its_impl():
    prim = registry["cumsum"]
    assert prim.lowering is None
    x = np.linspace(-1.0, 1.0, 7)
    f = lambda v: tnp.sum(tnp.cumsum(tnp.sin(v) * 3.0 + v) * tnp.cos(v))  # noqa: E731
    g = tg.jit(tg.grad(f))
    np.testing.assert_allclose(g(x), tg.grad(f)(x), rtol=1e-12)
    assert "cumsum (its impl)" in g.lower(x).source


def test_two_equations_between_impls_compile_only_when_large():
    f = lambda v: tnp.cumsum(tnp.tanh(tnp.cumsum(v) + 1.0))  # noqa: E731
    big = np.linspace(-1.0, 1.0, codegen.FUSE_PAIR_MIN_SIZE)
    small = np.linspace(-1.0, 1.0, 16)
    for x in (big, small):
        np.testing.assert_allclose(tg.jit(f)(x), f(x), rtol=1e-12)
    src = tg.jit(f).lower(big).source
    assert src.count("@numba.njit") == 1 and "tanh (its impl)" not in src
    src = tg.jit(f).lower(small).source
    assert "@numba.njit" not in src and "tanh (its impl)" in src


def test_short_segments_on_small_arrays_between_impls_run_their_impls():
    def f(v, n):
        y = tnp.cumsum(v)
        for _ in range(n):
            y = tnp.sin(y) * 2.0
        return tnp.cumsum(y)

    small = np.linspace(-1.0, 1.0, 16)
    short = tg.jit(f, static_argnums=1)
    np.testing.assert_allclose(short(small, 2), f(small, 2), rtol=1e-12)
    assert "@numba.njit" not in short.lower(small, 2).source  # 4 equations: impls
    n = codegen.SMALL_SEGMENT_MIN // 2  # 2n equations
    np.testing.assert_allclose(short(small, n), f(small, n), rtol=1e-12)
    src = short.lower(small, n).source
    assert src.count("@numba.njit") == 1 and "sin (its impl)" not in src
    big = np.linspace(-1.0, 1.0, codegen.FUSE_PAIR_MIN_SIZE)
    src = short.lower(big, 2).source
    assert src.count("@numba.njit") == 1 and "sin (its impl)" not in src
    # a loop is compiled even alone between impls
    loop = lambda v: tnp.cumsum(tg.lax.fori_loop(0, 3, lambda i, y: y * 0.5, tnp.cumsum(v)))  # noqa: E731
    np.testing.assert_allclose(tg.jit(loop)(small), loop(small), rtol=1e-12)
    assert tg.jit(loop).lower(small).source.count("@numba.njit") == 1


def test_trailing_transpose_before_an_impl_stays_a_view():
    g = lambda m: tnp.cumsum(tnp.transpose(tnp.sin(tnp.cumsum(m, axis=0)) * 2.0 + 1.0), axis=0)  # noqa: E731
    m = np.random.default_rng(3).standard_normal((40, 30))
    np.testing.assert_allclose(tg.jit(g)(m), g(m), rtol=1e-12)
    src = tg.jit(g).lower(m).source
    assert "transpose (its impl)" in src and "# transpose" not in src.split("def run")[0]
    # a transpose whose result is the program's output stays compiled
    h = lambda m: tnp.transpose(tnp.sin(tnp.cumsum(m, axis=0)) * 2.0 + 1.0)  # noqa: E731
    np.testing.assert_allclose(tg.jit(h)(m), h(m), rtol=1e-12)
    assert "transpose (its impl)" not in tg.jit(h).lower(m).source


def test_parallel_loop_above_the_threshold(monkeypatch):
    monkeypatch.setattr(codegen, "PARALLEL_MIN_SIZE", 64)
    x = np.linspace(-3.0, 3.0, 200)
    f = lambda v: tnp.sum(tnp.tanh(v) * tnp.sin(v) + tnp.exp(-v * v))  # noqa: E731
    g = tg.jit(tg.grad(f))
    np.testing.assert_allclose(g(x), tg.grad(f)(x), rtol=1e-12, atol=1e-15)  # (cancellation at 0)
    np.testing.assert_allclose(tg.jit(f)(x), f(x), rtol=1e-12)
    src = g.lower(x).source
    assert "numba.prange" in src and "'parallel': True" in src


def test_fast_sine_fix_up_pass_for_large_arguments():
    x = np.linspace(-3.0, 3.0, 2048)
    x[5], x[700] = 3e6, np.inf  # outside the fast sine's range
    f = lambda v: tnp.sin(v) * 2.0 + tnp.cos(v)  # noqa: E731
    src = tg.jit(f).lower(x).source
    assert "fsin(" in src and "if n_bad:" in src and "math.sin(" in src
    with np.errstate(invalid="ignore"):
        _check(f, x, rtol=1e-14)


def test_source_is_named_after_the_ir():
    f = lambda v: tnp.exp(v) * 2.0  # noqa: E731
    x = np.ones(3)
    src = tg.jit(f).lower(x).source
    assert "# exp" in src and "# mul" in src and "e_b = " in src


def test_lowerings_are_declared_on_the_primitives():
    for name in ["add", "mul", "sin", "tanh", "tanh_grad", "reduce_sum", "reshape",
                 "transpose", "broadcast_to", "matmul", "sum_to_shape"]:
        assert registry[name].lowering is not None, name
