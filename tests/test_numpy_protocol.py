"""Plain NumPy code differentiates unchanged, through NumPy's dispatch protocols.

A tracer implements ``__array_ufunc__`` and ``__array_function__``: NumPy
functions called on tracers run the ``tracegrad.numpy`` version.  A NumPy
function with no rule raises a TypeError naming it, and a tracer never
silently becomes an object array or a constant.
"""
import warnings

import numpy as np
import pytest

import tracegrad as tg
from tracegrad.core import Tracer
from tracegrad.tree_util import tree_leaves

X = np.array([0.5, -1.2, 2.0])
M = np.array([[1.0, 2.0, -0.5], [0.3, -1.0, 4.0]])


def close(a, b, rtol=1e-12, atol=1e-12):
    np.testing.assert_allclose(np.asarray(a, np.float64), np.asarray(b, np.float64), rtol=rtol, atol=atol)


def traced(v):
    assert isinstance(v, Tracer), f"expected a tracer, got {type(v).__name__}"
    return v


def test_the_issue_example():
    g = tg.grad(lambda x: np.sum(np.sin(x) * x))(X)
    close(g, np.sin(X) + X * np.cos(X))


@pytest.mark.parametrize("name, f, expected", [
    ("exp", lambda x: np.sum(traced(np.exp(x))), lambda x: np.exp(x)),
    ("log", lambda x: np.sum(traced(np.log(x * x))), lambda x: 2 / x),
    ("tanh", lambda x: np.sum(traced(np.tanh(x))), lambda x: 1 - np.tanh(x) ** 2),
    ("maximum", lambda x: np.sum(traced(np.maximum(x, 0.0))), lambda x: (x > 0) * 1.0),
    ("where", lambda x: np.sum(traced(np.where(x > 0, x ** 2, -x))), lambda x: np.where(x > 0, 2 * x, -1.0)),
    ("dot", lambda x: traced(np.dot(x, x)), lambda x: 2 * x),
    ("matmul", lambda x: traced(np.matmul(x, x)), lambda x: 2 * x),
    ("mean", lambda x: traced(np.mean(x ** 2)), lambda x: 2 * x / 3),
    ("concatenate", lambda x: np.sum(traced(np.concatenate([x, 2.0 * x]))), lambda x: np.full(3, 3.0)),
    ("stack", lambda x: np.sum(traced(np.stack([x, x * x], axis=1))), lambda x: 1 + 2 * x),
    ("reshape", lambda x: np.sum(traced(np.reshape(x, (3, 1))) * np.arange(3.0)[:, None]),
     lambda x: np.arange(3.0)),
    ("transpose", lambda x: np.sum(traced(np.transpose(np.stack([x, x]))) * np.array([1.0, 2.0])),
     lambda x: np.full(3, 3.0)),
    ("sum-axis-keepdims", lambda x: np.sum(traced(np.sum(np.outer(x, x), axis=0, keepdims=True))),
     lambda x: 2 * np.sum(x) * np.ones(3)),
    ("add.reduce", lambda x: traced(np.add.reduce(x * x)), lambda x: 2 * x),
    ("multiply.reduce", lambda x: traced(np.multiply.reduce(x)), lambda x: np.prod(x) / x),
    ("add.accumulate", lambda x: np.sum(traced(np.add.accumulate(x))), lambda x: np.array([3.0, 2.0, 1.0])),
    ("linalg.norm", lambda x: traced(np.linalg.norm(x)), lambda x: x / np.linalg.norm(x)),
])
def test_numpy_functions_on_tracers(name, f, expected):
    close(tg.grad(f)(X), expected(X))


def test_ndarray_and_numpy_scalars_with_tracers():
    a = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])

    def f(x):
        terms = [a @ x, a * x, x * a, np.float64(2.0) * x, x * np.float64(2.0), np.float32(2.0) * x,
                 x @ a.T, a - x, x / np.float64(4.0), np.float64(1.0) / (x + 3.0), [1.0, 2.0, 3.0] + x]
        return sum(np.sum(traced(t)) for t in terms)

    g = tg.grad(f)(X)
    want = (a.sum(0) + 2 * a.sum(0) + 2 + 2 + 2 + a.sum(0) - 2 + 0.25 - 1 / (X + 3.0) ** 2 + 1)
    close(g, want)


def test_tracer_methods():
    def f(x):
        # check_grads also runs f on plain arrays, for its finite differences
        t = traced if isinstance(x, Tracer) else (lambda v: v)
        y = t(x.reshape(2, 3))
        assert x.reshape((2, 3)).shape == (2, 3)
        return (t(y.sum()) + t(y.T @ y).sum() + t(y[1, ::2]).sum()
                + t(y.mean(axis=0)).sum() + t(y[:, [0, 0]]).sum()
                + t(y.max()) + t(y.prod()) + y.ravel()[0] + y.transpose(1, 0)[0, 1] + t(y.var()))

    x = np.arange(1.0, 7.0)
    check = tg.test_util.check_grads
    check(f, (x,), order=1)
    assert tg.jvp(lambda x: x.T, (M,), (M,))[1].shape == (3, 2)
    assert tg.grad(lambda x: x.astype(np.float32).sum())(X).dtype == np.float64
    assert tg.jvp(lambda x: x.ndim + x.size + len(x), (X,), (X,))[0] == 1 + 3 + 3


def test_tracer_attributes_and_python_conversions():
    def f(x):
        assert x.shape == (3,) and x.dtype == np.float64 and x.ndim == 1 and x.size == 3
        assert int(x[2]) == 2 and bool(x[0] > 0) and f"{x[2]:.1f}" == "2.0"
        assert x.tolist() == X.tolist() and x[0].item() == 0.5
        assert [v.item() for v in x] == X.tolist()
        # float() would drop the derivative silently (NumPy calls it implicitly)
        with pytest.raises(TypeError, match="derivative"):
            float(x[2])
        with pytest.raises(TypeError, match="derivative"):
            np.float64(x[2])
        with pytest.raises((TypeError, ValueError)):
            np.zeros(3)[0] = x[2]
        return np.sum(x)

    tg.grad(f)(X)


@pytest.mark.parametrize("call, name", [
    (lambda x: np.emath.logn(2, x), "logn"),
    (lambda x: np.i0(x), "i0"),
    (lambda x: np.nextafter(x, x), "nextafter"),
    (lambda x: np.real(np.sort_complex(x)), "sort_complex"),
    (lambda x: np.gcd(x, x), "gcd"),
    (lambda x: np.add.reduceat(x, [0, 1]), "add"),
], ids=["emath-logn", "i0", "nextafter", "sort_complex", "gcd-ufunc", "ufunc-reduceat"])
def test_numpy_function_without_rule_raises_typeerror_naming_it(call, name):
    with pytest.raises(TypeError, match=name):
        tg.grad(lambda x: np.sum(call(x)))(X)


@pytest.mark.parametrize("convert", [
    lambda x: np.asarray(x), lambda x: np.array(x), lambda x: np.array([x, x]),
    lambda x: np.asarray([x[0], 1.0]), lambda x: np.asarray(x, dtype=object),
    lambda x: np.ascontiguousarray(x), lambda x: np.array(x, dtype=np.float64),
], ids=["asarray", "array", "array-of-list", "asarray-of-list", "object", "ascontiguousarray",
        "array-dtype"])
def test_tracer_never_silently_becomes_an_array(convert):
    def f(x):
        convert(x)
        return np.sum(x)

    with pytest.raises(TypeError, match="(?i)tracer|tracegrad"):
        tg.grad(f)(X)
    with pytest.raises(TypeError, match="(?i)tracer|tracegrad"):
        tg.jvp(f, (X,), (X,))


def test_in_place_ufuncs_on_tracers_raise():
    def out_tracer(x):
        np.sin(x, out=x)
        return np.sum(x)

    def out_ndarray(x):
        buf = np.empty(3)
        np.add(x, 1.0, out=buf)
        return np.sum(buf)

    def ufunc_at(x):
        np.add.at(x, [0, 0], 1.0)
        return np.sum(x)

    def augmented(x):
        buf = np.zeros(3)
        buf += x
        return np.sum(buf)

    for f in (out_tracer, out_ndarray, ufunc_at, augmented):
        with pytest.raises(TypeError, match="(?i)out=|in place|at\\[|tracer|tracegrad"):
            tg.grad(f)(X)


def test_augmented_assignment_on_a_tracer_rebinds():
    def f(x):
        y = x
        y += 1.0  # a new value, the old one is untouched
        y *= x
        return np.sum(y) + np.sum(x)

    close(tg.grad(f)(X), 2 * X + 1 + 1)


# --------------------------------------------------------------------------
# every row of the gradient table, spelled with NumPy on tracers


def test_numpy_spelling_of_every_table_row_runs_on_tracers(numpy_row, grad_table):
    r = numpy_row
    args = r.make_args()
    tangents = tuple(np.random.default_rng(2).standard_normal(np.shape(a)).astype(a.dtype) for a in args)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        out_np, t_np = tg.jvp(lambda *xs: r.call(grad_table.NP, *xs), args, tangents)
    out_tg, t_tg = tg.jvp(r.fn, args, tangents)
    for a, b in zip(tree_leaves((out_np, t_np)), tree_leaves((out_tg, t_tg))):
        close(a, b, rtol=1e-10, atol=1e-12)
