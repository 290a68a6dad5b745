"""Staging into the typed IR: make_jaxpr, eval_shape, the IR checker, the
concretization errors (issue 10's staging part)."""
import importlib.util
import pathlib

import numpy as np
import pytest

import tracegrad as tg
import tracegrad.numpy as tnp
from tracegrad.core import EvalTrace, UnexpectedTracerError, current_trace
from tracegrad.errors import (
    ConcretizationTypeError,
    TracerArrayConversionError,
    TracerBoolConversionError,
    TracerIntegerConversionError,
)
from tracegrad.interpreters.staging import (
    Jaxpr,
    JaxprEqn,
    JaxprTypeError,
    Literal,
    Var,
    check_jaxpr,
    eval_jaxpr,
)
from tracegrad.core import ShapedArray
from tracegrad.primitives import elementwise as pel
from tracegrad.tree_util import tree_leaves


def loss(x, y):
    return tnp.sum(tnp.sin(x) * y + 2.0)


def test_print_golden():
    assert str(tg.make_jaxpr(loss)(np.ones(3), 2.0)) == (
        "{ lambda ; a:f64[3] b:f64[]. let\n"
        "    c:f64[3] = sin a\n"
        "    d:f64[3] = mul c b\n"
        "    e:f64[3] = add d 2.0\n"
        "    f:f64[] = reduce_sum[axes=(0,)] e\n"
        "  in (f,) }"
    )


def test_print_golden_grad():
    text = str(tg.make_jaxpr(tg.grad(loss))(np.ones(3), 2.0))
    assert text.splitlines()[0] == "{ lambda a:f64[]; b:f64[3] c:f64[]. let"
    assert text.splitlines()[-2] == "    k:f64[3] = sin_grad j b"
    assert text.splitlines()[-1] == "  in (k,) }"


def test_staged_grad_evaluates_to_the_eager_grad():
    x = np.array([0.3, -1.2, 2.0])
    closed = tg.make_jaxpr(tg.grad(loss, argnums=(0, 1)))(x, 2.0)
    gx, gy = closed(x, 0.5)
    ex, ey = tg.grad(loss, argnums=(0, 1))(x, 0.5)
    np.testing.assert_allclose(gx, ex, rtol=1e-15)
    np.testing.assert_allclose(gy, ey, rtol=1e-15)


def test_ir_differentiates_and_batches_like_the_function():
    x = np.array([0.3, -1.2, 2.0])
    closed = tg.make_jaxpr(loss)(x, 2.0)
    f = lambda x, y: closed(x, y)[0]  # noqa: E731
    np.testing.assert_allclose(tg.grad(f)(x, 1.5), tg.grad(loss)(x, 1.5), rtol=1e-15)
    np.testing.assert_allclose(tg.hessian(f)(x, 1.5), tg.hessian(loss)(x, 1.5), rtol=1e-14)
    ys = np.array([1.0, 2.0, -3.0])
    np.testing.assert_allclose(tg.vmap(f, (None, 0))(x, ys), [loss(x, y) for y in ys])


@pytest.mark.parametrize("transform", [tg.vmap, tg.jacfwd, tg.jacrev, tg.hessian])
def test_transforms_stage(transform):
    def f(x):
        return tnp.tanh(x) * tnp.exp(-x)

    g = transform(f) if transform is not tg.hessian else transform(lambda x: tnp.sum(f(x)))
    x = np.linspace(-1.0, 1.0, 4)
    closed = tg.make_jaxpr(g)(x)
    check_jaxpr(closed.jaxpr)
    np.testing.assert_allclose(closed(x)[0], g(x), rtol=1e-13, atol=1e-15)


def test_closed_over_arrays_are_constants():
    w = np.arange(3.0)

    def f(x):
        return tnp.dot(w, x) + w[1]

    closed = tg.make_jaxpr(f)(np.ones(3))
    assert len(closed.jaxpr.constvars) == 1 and closed.consts[0] is w
    assert closed.in_avals == [ShapedArray((3,), np.float64)]
    assert closed.out_avals == [ShapedArray((), np.float64)]
    np.testing.assert_allclose(closed(np.array([1.0, 2.0, 3.0]))[0], 9.0)


def test_static_argnums_allow_python_control_flow():
    def f(x, n):
        for _ in range(n):
            x = tnp.sin(x)
        return x if n > 1 else -x

    closed = tg.make_jaxpr(f, static_argnums=1)(np.ones(2), 3)
    assert [e.primitive.name for e in closed.eqns] == ["sin"] * 3
    assert len(closed.jaxpr.invars) == 1
    closed = tg.make_jaxpr(f, static_argnums=(-1,))(np.ones(2), 1)
    assert [e.primitive.name for e in closed.eqns] == ["sin", "neg"]
    with pytest.raises(ValueError, match="static_argnums 2 is out of range"):
        tg.make_jaxpr(f, static_argnums=2)(np.ones(2), 3)


def test_return_shape_and_pytrees():
    def f(p, x):
        return {"y": p["w"] @ x, "n": tnp.sum(x)}

    p = {"w": np.ones((2, 3), np.float32)}
    closed, shapes = tg.make_jaxpr(f, return_shape=True)(p, np.ones(3, np.float32))
    assert shapes == {"y": tg.ShapeDtypeStruct((2,), np.float32),
                      "n": tg.ShapeDtypeStruct((), np.float32)}
    assert len(closed.jaxpr.invars) == 2


def test_eval_shape_without_values():
    def f(a, b):
        return tnp.concatenate([a, b.T], axis=0), tnp.mean(a, axis=1)

    out = tg.eval_shape(f, tg.ShapeDtypeStruct((2, 5), np.float32),
                        tg.ShapeDtypeStruct((5, 4), np.float32))
    assert out == (tg.ShapeDtypeStruct((6, 5), np.float32), tg.ShapeDtypeStruct((2,), np.float32))
    assert repr(out[0]) == "ShapeDtypeStruct(shape=(6, 5), dtype=float32)"
    assert out[0].ndim == 2 and out[0].size == 30
    assert tg.eval_shape(tg.grad(loss), tg.ShapeDtypeStruct((7,), np.float64), 1.0) == \
        tg.ShapeDtypeStruct((7,), np.float64)


def _raise_bool(x):
    if x[0] > 0:  # the line the message must name
        return x
    return -x


def test_bool_names_the_line_and_the_fixes():
    with pytest.raises(TracerBoolConversionError) as info:
        tg.make_jaxpr(_raise_bool)(np.ones(3))
    msg = str(info.value)
    assert "bool()" in msg and "staged value (bool[])" in msg
    assert "test_staging.py" in msg and "if x[0] > 0:" in msg
    assert "static_argnums" in msg and "tracegrad.numpy.where" in msg
    assert isinstance(info.value, ConcretizationTypeError) and isinstance(info.value, TypeError)
    assert type(current_trace()) is EvalTrace  # nothing left behind


def test_int_index_and_array_conversions_raise():
    with pytest.raises(TracerIntegerConversionError):
        tg.make_jaxpr(lambda x: list(range(int(x))))(3.0)
    with pytest.raises(TracerIntegerConversionError):
        tg.make_jaxpr(lambda i: [1.0, 2.0][i])(np.int64(1))
    with pytest.raises(TracerArrayConversionError, match="NumPy array"):
        tg.make_jaxpr(lambda x: np.asarray(x) + 1)(np.ones(2))
    with pytest.raises(ConcretizationTypeError, match="item"):
        tg.make_jaxpr(lambda x: x.item())(1.0)
    # shapes are known while staging
    assert str(tg.eval_shape(lambda x: tnp.zeros(x.shape[0] * 2), np.ones(3))) == \
        "ShapeDtypeStruct(shape=(6,), dtype=float64)"


def test_leaked_staged_value():
    box = []
    tg.make_jaxpr(lambda x: box.append(x * 2) or x)(np.ones(2))
    with pytest.raises(UnexpectedTracerError):
        tnp.sin(box[0])


def test_check_jaxpr_finds_bad_irs():
    a, b = Var(ShapedArray((3,), np.float64)), Var(ShapedArray((3,), np.float64))
    ok = Jaxpr([], [a], [JaxprEqn(pel.sin_p, [a], {}, [b])], [b])
    check_jaxpr(ok)
    np.testing.assert_allclose(eval_jaxpr(ok, [], np.zeros(3))[0], 0.0)
    wrong_type = Jaxpr([], [a], [JaxprEqn(pel.sin_p, [a], {}, [Var(ShapedArray((2,), np.float64))])], [])
    with pytest.raises(JaxprTypeError, match=r"equation 0 \(sin\).*f64\[2\].*f64\[3\]"):
        check_jaxpr(wrong_type)
    undefined = Jaxpr([], [], [JaxprEqn(pel.sin_p, [a], {}, [b])], [b])
    with pytest.raises(JaxprTypeError, match="used before it is defined"):
        check_jaxpr(undefined)
    twice = Jaxpr([], [a], [JaxprEqn(pel.sin_p, [a], {}, [a])], [a])
    with pytest.raises(JaxprTypeError, match="defined twice"):
        check_jaxpr(twice)
    with pytest.raises(TypeError, match="takes 0 constants and 1 arguments, got 0 and 2"):
        eval_jaxpr(ok, [], np.zeros(3), np.zeros(3))
    assert repr(Literal(2.0)) == "Literal(2.0)"


# --------------------------------------------------------------------------
# every row of the check_grads table, staged: value and gradient

_spec = importlib.util.spec_from_file_location(
    "_grad_table_for_staging", pathlib.Path(__file__).with_name("test_grad_table.py"))
_gt = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_gt)

#: Functions that do not stage: their result's shape depends on the input's
#: values (JAX too stages them only with a static ``size=``).  This list must
#: shrink, never grow.
NOT_STAGED = {
    "unique", "unique_values", "unique_counts", "unique_inverse", "unique_all",
    "intersect1d", "union1d", "setdiff1d", "setxor1d", "trim_zeros",
    "roots",  # (leading zeros set the number of roots)
}


def _summed(fn):
    return lambda *a: sum(tnp.sum(v) for v in tree_leaves(fn(*a)))


@pytest.mark.parametrize("r", [r for r in _gt.TABLE if r.name not in NOT_STAGED],
                         ids=lambda r: r.id)
def test_every_table_row_stages(r):
    args = r.make_args()
    closed = tg.make_jaxpr(r.fn)(*args)
    want = tree_leaves(r.fn(*args))
    got = closed(*args)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-12)
    f = _summed(r.fn)
    staged_grad = tg.make_jaxpr(tg.grad(f))(*args)
    np.testing.assert_allclose(staged_grad(*args)[0], tg.grad(f)(*args), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("name", sorted(NOT_STAGED))
def test_not_staged_yet_is_current(name):
    """Each listed function still fails to stage with a concretization error
    (remove it from NOT_STAGED when it stages)."""
    rows = [r for r in _gt.TABLE if r.name == name]
    assert rows, f"{name} has no row in the check_grads table"
    failed = False
    for r in rows:
        try:
            tg.make_jaxpr(_summed(r.fn))(*r.make_args())
            tg.make_jaxpr(tg.grad(_summed(r.fn)))(*r.make_args())
        except TypeError as e:  # ConcretizationTypeError, or a function's own "needs the concrete value"
            assert "concrete value" in str(e)
            failed = True
    assert failed, f"{name} stages now: remove it from NOT_STAGED"


def test_readme_quick_tour_jaxpr_is_current():
    readme = (pathlib.Path(__file__).parents[1] / "README.md").read_text()
    shown = readme.split("`tg.make_jaxpr(loss)(w, x, y)` stages")[1].split("```\n")[1]

    def quick_tour_loss(w, x, y):
        return tnp.mean((tnp.tanh(x @ w) - y) ** 2)

    rng = np.random.default_rng(0)
    staged = tg.make_jaxpr(quick_tour_loss)(np.ones(3), rng.standard_normal((5, 3)),
                                            rng.standard_normal(5))
    assert str(staged) + "\n" == shown


def test_python_scalar_arguments_are_weakly_typed():
    x32 = np.ones(3, np.float32)

    def f(x, y):
        return x * y + y

    assert tg.eval_shape(f, x32, 2.0) == tg.ShapeDtypeStruct((3,), np.float32)
    assert f(x32, 2.0).dtype == np.float32  # as eagerly
    closed = tg.make_jaxpr(f)(x32, 2)
    assert closed.jaxpr.invars[1].weak_type and not closed.jaxpr.invars[0].weak_type
    assert closed.out_avals == [ShapedArray((3,), np.float32)]
    np.testing.assert_array_equal(closed(x32, 3)[0], np.full(3, 6.0, np.float32))
    # a 0-d array is not a Python scalar: NumPy 2 promotes it (float64)
    assert tg.eval_shape(f, x32, np.float64(2.0)) == tg.ShapeDtypeStruct((3,), np.float64)


def test_staged_indices_wrap_negatives_and_skip_value_checks():
    x = np.arange(5.0)
    at = tg.make_jaxpr(lambda x, i: x[i])(x, np.int64(0))
    assert at(x, np.int64(-1))[0] == 4.0 and at(x, np.int64(2))[0] == 2.0
    take = tg.make_jaxpr(lambda x, i: tnp.take(x, i))(x, np.array([0, 1]))
    np.testing.assert_array_equal(take(x, np.array([-1, 3]))[0], [4.0, 3.0])
    # NumPy's data checks need values: eager raises, the staged IR computes
    with pytest.raises(ZeroDivisionError):
        tnp.average(x, weights=np.zeros(5))
    avg = tg.make_jaxpr(lambda x, w: tnp.average(x, weights=w))(x, np.ones(5))
    assert np.isnan(avg(x, np.zeros(5))[0])
    # and under vmap the index bounds are still checked on every example
    with pytest.raises(IndexError, match="index 7 is out of bounds"):
        tg.vmap(lambda i: tnp.take(x, i))(np.array([1, 7]))
