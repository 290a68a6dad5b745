"""tg.jit: one trace per signature, the staged program run by a generated
driver, equal to eager everywhere (issue 10, first stage)."""
import functools
import importlib.util
import pathlib

import numpy as np
import pytest

import tracegrad as tg
import tracegrad.numpy as tnp
from tracegrad.core import EvalTrace, current_trace
from tracegrad.errors import TracerBoolConversionError
from tracegrad.tree_util import tree_leaves


def counting(fn):
    """``fn`` and a list that grows by one per call (per trace, under jit)."""
    calls = []

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        calls.append(1)
        return fn(*args, **kwargs)

    return wrapper, calls


def loss(w, x, y):
    return tnp.mean((tnp.tanh(x @ w) - y) ** 2)


def test_values_and_gradients_equal_eager():
    rng = np.random.default_rng(0)
    w, x, y = rng.standard_normal(3), rng.standard_normal((5, 3)), rng.standard_normal(5)
    # (compiled loops round differently: fused multiply-adds, sums in loop order)
    np.testing.assert_allclose(tg.jit(loss)(w, x, y), loss(w, x, y), rtol=1e-13)
    np.testing.assert_allclose(tg.jit(tg.grad(loss))(w, x, y), tg.grad(loss)(w, x, y), rtol=1e-12)
    np.testing.assert_allclose(tg.jit(tg.hessian(loss))(w, x, y), tg.hessian(loss)(w, x, y),
                               rtol=1e-12)
    per_example = tg.vmap(tg.grad(loss), in_axes=(None, 0, 0))
    np.testing.assert_allclose(tg.jit(per_example)(w, x, y), per_example(w, x, y), rtol=1e-12)


def test_second_call_does_not_trace_and_signature_changes_do():
    f, calls = counting(lambda x, s: tnp.sum(tnp.sin(x)) * s)
    jf = tg.jit(f)
    jf(np.ones(3), 2.0)
    jf(np.zeros(3), 5.0)  # same signature: no trace
    assert len(calls) == 1
    jf(np.ones(4), 2.0)  # shape
    jf(np.ones(4, np.float32), 2.0)  # dtype
    jf(np.ones(4, np.float32), 2)  # a Python int instead of a float (weak type)
    assert len(calls) == 4
    jf(np.ones(3), 3.0)
    assert len(calls) == 4
    jf.clear_cache()
    jf(np.ones(3), 3.0)
    assert len(calls) == 5


def test_array_only_calls_share_the_programs_of_other_calls():
    # positional NumPy arrays take a lookup by shapes and dtypes; other calls
    # (a tracegrad.Array, a keyword, a list) flatten pytrees: one program each
    f, calls = counting(lambda x, y: tnp.sum(x * y))
    jf = tg.jit(f)
    x, y = np.arange(3.0), np.ones(3)
    assert jf(x, y) == 3.0
    assert jf(x, y=y) == 3.0  # a keyword: another pytree structure
    assert len(calls) == 2
    assert jf(tnp.asarray(x), y) == 3.0  # the positional structure: its program
    assert jf(2 * x, y) == 6.0
    assert len(calls) == 2
    assert jf(x, y.astype(np.float32)) == 3.0
    assert jf(x[None], y) == 3.0
    assert len(calls) == 4
    with pytest.raises(TypeError, match="argument leaf 1 is a str"):
        jf(x, "y")
    h = tg.jit(lambda x, y: x + y)
    for _ in range(2):  # a failed trace caches nothing
        with pytest.raises(ValueError, match="broadcast|shape"):
            h(np.ones(2), np.ones(3))
    np.testing.assert_array_equal(h(np.ones(2), np.ones(2)), [2.0, 2.0])


def test_weak_python_scalars_keep_the_array_dtype():
    jf = tg.jit(lambda x, s: x * s)
    out = jf(np.ones(2, np.float32), 3.0)
    assert out.dtype == np.float32
    np.testing.assert_array_equal(out, [3.0, 3.0])


def test_static_arguments():
    def power_sum(x, n, *, mode="sum"):
        for _ in range(n):
            x = x * 2.0
        return tnp.sum(x) if mode == "sum" else tnp.max(x)

    f, calls = counting(power_sum)
    jf = tg.jit(f, static_argnums=1, static_argnames="mode")
    assert jf(np.ones(3), 2) == 12.0
    assert jf(np.ones(3), 3) == 24.0
    assert jf(np.ones(3), 3, mode="max") == 8.0
    assert jf(np.ones(3), n=3, mode="max") == 8.0  # a static number passed by name
    assert jf(np.full(3, 2.0), 3) == 48.0
    assert len(calls) == 4
    with pytest.raises(TypeError, match="static argument number 1 must be hashable"):
        jf(np.ones(3), [3])


def test_decorator_forms():
    @tg.jit
    def a(x):
        return x + 1.0

    @tg.jit(static_argnums=(1,))
    def b(x, k):
        return x * k

    @functools.partial(tg.jit, static_argnames=("k",))
    def c(x, k):
        return x - k

    assert a(1.0) == 2.0 and b(np.ones(2), 3)[0] == 3.0 and c(np.ones(2), k=1)[0] == 0.0
    assert a.__name__ == "a" and a.__wrapped__ is not None
    assert tg.jit(lambda x: x, donate_argnums=0)(np.ones(1))[0] == 1.0  # donation: a no-op


def test_pytrees_and_dynamic_keyword_arguments():
    def f(params, x, *, scale):
        return {"out": params["w"] @ x * scale, "aux": (tnp.sum(x), None)}

    p = {"w": np.eye(2)}
    out = tg.jit(f)(p, np.array([1.0, 2.0]), scale=np.float64(3.0))
    np.testing.assert_array_equal(out["out"], [3.0, 6.0])
    assert out["aux"][0] == 3.0 and out["aux"][1] is None


def test_lower_shows_the_ir_and_the_driver():
    g = tg.jit(tg.grad(loss))
    rng = np.random.default_rng(1)
    lowered = g.lower(np.ones(3), rng.standard_normal((5, 3)), rng.standard_normal(5))
    text = lowered.as_text()
    assert text.startswith("{ lambda") and "tanh_grad" in text
    assert "@numba.njit" in lowered.source and "\ndef run(" in lowered.source
    # the loss value itself is dead code in the gradient program: not run
    n_eqns = len(lowered.jaxpr.eqns)
    n_stmts = sum(1 for line in lowered.source.splitlines()
                  if "  # " in line and not line.lstrip().startswith("#"))
    assert 0 < n_stmts < n_eqns


def test_closed_over_arrays_and_errors():
    w = np.arange(3.0)
    jf = tg.jit(lambda x: tnp.dot(w, x))
    assert jf(np.ones(3)) == 3.0

    def branchy(x):
        if x > 0:
            return x
        return -x

    with pytest.raises(TracerBoolConversionError, match="static_argnums"):
        tg.jit(branchy)(1.0)
    assert type(current_trace()) is EvalTrace
    assert tg.jit(branchy, static_argnums=0)(-2.0) == 2.0
    with pytest.raises(TypeError, match="argument leaf 0 is a str"):
        tg.jit(lambda s: s)("text")
    with pytest.raises(TypeError, match="jit expects a callable"):
        tg.jit(3)


def test_composes_with_every_transform_and_runs_compiled():
    def plain(x, y):
        return tnp.sum(tnp.sin(x) ** 2 * y) + tnp.max(x) * y[0]

    f, calls = counting(plain)
    jf = tg.jit(f)
    x, y = np.array([0.1, 0.7, -1.3]), np.array([2.0, 0.5, 1.5])
    for transform in (tg.grad, tg.jacfwd, tg.jacrev, tg.hessian):
        np.testing.assert_allclose(transform(jf)(x, y), transform(plain)(x, y), rtol=1e-13,
                                   atol=1e-15)
    out, t = tg.jvp(jf, (x, y), (np.ones(3), np.zeros(3)))
    want, t_want = tg.jvp(plain, (x, y), (np.ones(3), np.zeros(3)))
    np.testing.assert_allclose([out, t], [want, t_want], rtol=1e-14)
    xs = np.stack([x, 2 * x, -x])
    np.testing.assert_allclose(tg.vmap(jf, (0, None))(xs, y), [plain(r, y) for r in xs],
                               rtol=1e-14)
    np.testing.assert_allclose(tg.vmap(tg.grad(jf), (0, None))(xs, y),
                               [tg.grad(plain)(r, y) for r in xs], rtol=1e-13)
    np.testing.assert_allclose(tg.jit(tg.vmap(jf, (0, None)))(xs, y), [plain(r, y) for r in xs],
                               rtol=1e-14)
    np.testing.assert_allclose(tg.jit(tg.jit(jf))(x, y), plain(x, y), rtol=1e-15)
    # the derivative programs are traced once each, then reused
    n = len(calls)
    tg.grad(jf)(x + 1.0, y)
    tg.hessian(jf)(x - 1.0, y)
    assert len(calls) == n
    # under grad, the call is one staged equation with its compiled VJP
    text = str(tg.make_jaxpr(tg.grad(jf))(x, y))
    assert "jit_call[fun=jit(plain)]" in text and "jit_call[fun=jit(vjp(plain))]" in text


def test_closure_over_a_traced_value_runs_as_plain_code():
    def outer(w):
        inner = tg.jit(lambda x: tnp.sum(w * x))
        return inner(np.arange(3.0))

    np.testing.assert_allclose(tg.grad(outer)(np.ones(3)), [0.0, 1.0, 2.0])


def test_custom_rules_and_checkpoint_inside_jit():
    @tg.custom_jvp
    def clipped(x):
        return tnp.clip(x, -1.0, 1.0)

    clipped.defjvp(lambda p, t: (clipped(p[0]), t[0]))  # straight-through

    def f(x):
        return tnp.sum(tg.checkpoint(lambda z: tnp.sin(z) * z)(clipped(x) * 3.0))

    x = np.array([-2.0, 0.3, 0.9])
    np.testing.assert_allclose(tg.jit(f)(x), f(x), rtol=1e-15)
    np.testing.assert_allclose(tg.jit(tg.grad(f))(x), tg.grad(f)(x), rtol=1e-14)
    np.testing.assert_allclose(tg.grad(tg.jit(f))(x), tg.grad(f)(x), rtol=1e-14)


# --------------------------------------------------------------------------
# every row of the check_grads table under jit: value and gradient

_spec = importlib.util.spec_from_file_location(
    "_grad_table_for_jit", pathlib.Path(__file__).with_name("test_grad_table.py"))
_gt = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_gt)
_NOT_STAGED = {"unique", "unique_values", "unique_counts", "unique_inverse", "unique_all",
               "intersect1d", "union1d", "setdiff1d", "setxor1d", "trim_zeros", "roots"}
# (the functions whose output shape depends on the values: tests/test_staging.py's NOT_STAGED)


@pytest.mark.parametrize("r", [r for r in _gt.TABLE if r.name not in _NOT_STAGED],
                         ids=lambda r: r.id)
def test_every_table_row_under_jit(r):
    args = r.make_args()
    for g, w in zip(tree_leaves(tg.jit(r.fn)(*args)), tree_leaves(r.fn(*args))):
        np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-12)
        assert np.asarray(g).dtype == np.asarray(w).dtype

    def summed(*a):
        return sum(tnp.sum(v) for v in tree_leaves(r.fn(*a)))

    np.testing.assert_allclose(tg.jit(tg.grad(summed))(*args), tg.grad(summed)(*args),
                               rtol=1e-10, atol=1e-12)


def test_array_inputs_run_as_plain_arrays():
    a = tnp.linspace(0.0, 1.0, 5)
    assert isinstance(a, tg.Array)
    out = tg.jit(lambda x: tnp.sin(x) * 2.0)(a)
    np.testing.assert_allclose(out, np.sin(np.linspace(0.0, 1.0, 5)) * 2.0, rtol=1e-15)
    assert type(out) is np.ndarray  # transform outputs are plain, as grad's
