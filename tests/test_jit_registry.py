"""Every registry primitive under ``tg.jit`` equals eager (issue 10, Tests).

The inputs are ``tests/test_vmap_primitives.py``'s table ``CASES`` (one or
more variants per primitive, with argument generators, static params and
dtypes), imported, not copied: a new primitive gets its jit test with its
vmap case.  For each (primitive, variant, dtype):

* values: ``tg.jit(f)(*args)`` against ``f(*args)`` (same shape and dtype;
  exactly equal for primitives that do not round -- shape, indexing,
  comparison and selection primitives, and every integer or boolean
  result -- and within 1e-12 (float64) or the table's float32 tolerance
  otherwise, so a compiled program whose math differs from the impls' by a
  few ulp still passes);
* for differentiable primitives (variant 0, float64): ``jit(grad(f))``,
  ``grad(jit(f))`` and ``jit(jvp(f))`` against eager ``grad``/``jvp``, on
  a scalar ``sum(out * weights)`` with fixed random weights;
* for the elementwise primitives (those of ``primitives/elementwise.py``):
  each float argument in turn replaced by a Python float (and, next to other
  arguments, a Python int), weakly typed, next to float32 arrays: the jitted
  result's dtype equals eager's.

Each case traces once (one fresh function per case, called once): the
whole file runs in well under a minute.
"""
import dataclasses
import importlib.util
import pathlib

import numpy as np
import pytest

import tracegrad as tg
import tracegrad.numpy as tnp
from tracegrad.core import Primitive
from tracegrad.primitives import elementwise as pel
from tracegrad.primitives import registry

# the inputs of every primitive: tests/test_vmap_primitives.py's table (the
# tests run with --import-mode=importlib, so the file is loaded by path)
_spec = importlib.util.spec_from_file_location(
    "_vmap_table_for_jit", pathlib.Path(__file__).with_name("test_vmap_primitives.py"))
_vt = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_vt)
CASES, F32, F64 = _vt.CASES, _vt.F32, _vt.F64
_apply, _examples, _merge, _outs, _seed, _slots = (
    _vt._apply, _vt._examples, _vt._merge, _vt._outs, _vt._seed, _vt._slots)

# primitives whose value is not rounded (data movement, comparisons,
# selection, sign-like maps): jit must reproduce them bit for bit
EXACT = set("""
    abs neg sign floor ceil round real_part imag_part conjugate relu
    eq ne lt le gt ge isfinite isinf isnan logical_and logical_or logical_xor logical_not
    maximum minimum clip select stop_gradient
    reshape transpose broadcast_to slice rev pad concatenate gather
    reduce_max reduce_min reduce_all reduce_any argmax argmin argsort
    convert_element_type threefry2x32 uint_xor
""".split())

ELEMENTWISE = sorted(p.name for p in vars(pel).values() if isinstance(p, Primitive))


def _check(got, want, dt, rtol32, exact, what):
    got_a, want_a = np.asarray(got), np.asarray(want)
    assert got_a.shape == want_a.shape, f"{what}: shape {got_a.shape}, eager gives {want_a.shape}"
    assert got_a.dtype == want_a.dtype, f"{what}: dtype {got_a.dtype}, eager gives {want_a.dtype}"
    if exact or want_a.dtype.kind not in "fc":
        np.testing.assert_array_equal(got_a, want_a, err_msg=what)
    else:
        tol = rtol32 if (want_a.dtype == F32 or dt == F32 or want_a.dtype == np.complex64) else 1e-12
        np.testing.assert_allclose(got_a, want_a, rtol=tol, atol=tol, equal_nan=True, err_msg=what)


#: control-flow primitives, bound by lax only under staging
LAX_STAGED = {"scan", "cond", "while"}


def _case(name, vi, dt):
    """(prim, variant, array args, f of the array args) of one table entry."""
    prim, v = registry[name], CASES[name][vi]
    if name in LAX_STAGED:  # the case's call is jitted (for vmap): jit the plain function
        v = dataclasses.replace(v, call=v.call.__wrapped__)
    rng = np.random.default_rng(_seed("jit", name, vi, dt))
    template = _examples(v, rng, dt, 1)[0]
    arrays = [template[i] for i in _slots(v)]

    def f(*xs):
        return _apply(prim, v, _merge(v, template, xs))

    f.__name__ = f"{name}_v{vi}"
    return prim, v, arrays, f


def _value_params():
    params = []
    for name in sorted(registry):
        for vi, v in enumerate(CASES.get(name, ())):
            for dt in v.dtypes:
                params.append(pytest.param(name, vi, dt, id=f"{name}-v{vi}-{dt.name}"))
    return params


def test_every_primitive_has_a_case():
    missing = sorted(set(registry) - set(CASES))
    assert not missing, f"primitives without a case in test_vmap_primitives.CASES: {missing}"


@pytest.mark.parametrize("name, vi, dt", _value_params())
def test_jit_value_equals_eager(name, vi, dt):
    prim, v, arrays, f = _case(name, vi, dt)
    jf = tg.jit(f)
    with np.errstate(all="ignore"):
        want = _outs(prim, v, f(*arrays))
        got = _outs(prim, v, jf(*arrays))
        text = jf.lower(*arrays).as_text()  # (the cached program: no second trace)
    assert f" {name}" in text, f"the jitted program does not stage {name}:\n{text}"
    assert len(got) == len(want), f"{len(got)} outputs, eager gives {len(want)}"
    for k, (g, w) in enumerate(zip(got, want)):
        _check(g, w, dt, v.rtol32, name in EXACT, f"{name} v{vi} {dt} output {k}")


# --------------------------------------------------------------------------
# first derivatives, both modes, jit on either side


def _deriv_case(name):
    prim, v, arrays, f = _case(name, 0, F64)
    fpos = [k for k, a in enumerate(arrays) if np.asarray(a).dtype.kind == "f"]
    if name in _vt.X_ONLY:  # differentiable in their last operand only
        fpos = fpos[-1:]
    with np.errstate(all="ignore"):
        outs = _outs(prim, v, f(*arrays))
    rng = np.random.default_rng(_seed("jit-weights", name))
    weights = [rng.standard_normal(np.shape(o)) if np.asarray(o).dtype.kind in "fc" else None
               for o in outs]

    def of_floats(*fs):
        xs = list(arrays)
        for k, x in zip(fpos, fs):
            xs[k] = x
        return f(*xs)

    def scalar(*fs):
        total = 0.0
        for o, w in zip(_outs(prim, v, of_floats(*fs)), weights):
            if w is not None:
                total = total + tnp.sum(tnp.real(o) * w)
        return total

    return prim, v, [arrays[k] for k in fpos], of_floats, scalar


@pytest.mark.parametrize("name", [n for n in sorted(registry) if registry[n].differentiable])
def test_jit_derivatives_equal_eager(name):
    prim, v, fx, of_floats, scalar = _deriv_case(name)
    if not fx:
        pytest.skip(f"{name}'s case has no float argument")
    argnums = tuple(range(len(fx)))
    failures = []
    with np.errstate(all="ignore"):
        if "rev" in v.modes:
            want = tg.grad(scalar, argnums=argnums)(*fx)
            for label, fn in [("jit(grad(f))", tg.jit(tg.grad(scalar, argnums=argnums))),
                              ("grad(jit(f))", tg.grad(tg.jit(scalar), argnums=argnums))]:
                try:
                    got = fn(*fx)
                    for k, (g, w) in enumerate(zip(got, want)):
                        _check(g, w, F64, 0, False, f"{label} cotangent {k}")
                except Exception as e:  # noqa: BLE001 - report every order
                    failures.append(f"{label}: {type(e).__name__}: {e}")
        if "fwd" in v.modes:
            rng = np.random.default_rng(_seed("jit-tangents", name))
            ts = [rng.standard_normal(np.shape(x)) for x in fx]
            want_p, want_t = tg.jvp(of_floats, fx, ts)
            try:
                got_p, got_t = tg.jit(lambda p, t: tg.jvp(of_floats, p, t))(fx, ts)
                for k, (g, w) in enumerate(zip(_outs(prim, v, got_p), _outs(prim, v, want_p))):
                    _check(g, w, F64, 0, name in EXACT, f"jit(jvp(f)) primal {k}")
                for k, (g, w) in enumerate(zip(_outs(prim, v, got_t), _outs(prim, v, want_t))):
                    if w is None or np.asarray(w).dtype.kind not in "fc":
                        continue  # (float0-like tangents of integer outputs)
                    _check(g, w, F64, 0, False, f"jit(jvp(f)) tangent {k}")
            except Exception as e:  # noqa: BLE001
                failures.append(f"jit(jvp(f)): {type(e).__name__}: {e}")
    assert not failures, f"{name} (params {v.params}):\n" + "\n".join(failures)


# --------------------------------------------------------------------------
# float32 arrays next to Python scalars (weak types), elementwise primitives


def _weak_params():
    params = []
    for name in ELEMENTWISE:
        for vi, v in enumerate(CASES.get(name, ())):
            if F32 not in v.dtypes or v.call is not None:
                continue
            arrays = _case(name, vi, F32)[2]
            for k in [k for k, a in enumerate(arrays) if np.asarray(a).dtype == F32]:
                for kind in (float, int) if len(arrays) > 1 else (float,):
                    params.append(pytest.param(name, vi, k, kind,
                                               id=f"{name}-v{vi}-{kind.__name__}{k}"))
    return params


@pytest.mark.parametrize("name, vi, k, kind", _weak_params())
def test_python_scalar_arguments_keep_eager_dtypes(name, vi, k, kind):
    """Argument ``k`` a Python float or int (weakly typed), the others
    float32 arrays: jit's result has eager's dtype (and value)."""
    prim, v, arrays, f = _case(name, vi, F32)
    args = list(arrays)
    first = float(np.asarray(arrays[k]).flat[0])
    args[k] = first if kind is float else int(np.rint(first)) or 1
    with np.errstate(all="ignore"):
        want = _outs(prim, v, f(*args))
        got = _outs(prim, v, tg.jit(f)(*args))
    for j, (g, w) in enumerate(zip(got, want)):
        _check(g, w, F32, v.rtol32, name in EXACT, f"{name} with a Python scalar at {k}, output {j}")


def test_weak_scalars_alone_and_with_float32_match_jax():
    """Python scalars alone give float64 (x64), a float32 array times a
    Python float stays float32, an int array times a Python float is
    float64: as ``jax.jit`` (x64) says."""
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    jnp = jax.numpy
    x32, i64 = np.ones(3, np.float32), np.arange(3)
    for fn_tg, fn_jax, args in [
        (lambda a, b: a * b, lambda a, b: a * b, (x32, 2.0)),
        (lambda a, b: a * b, lambda a, b: a * b, (i64, 2.0)),
        (lambda a, b: a + b, lambda a, b: a + b, (x32, 3)),
        (lambda a: tnp.exp(a), lambda a: jnp.exp(a), (2.0,)),
        (lambda a, b: tnp.maximum(a, b), lambda a, b: jnp.maximum(a, b), (x32, 0.5)),
    ]:
        got = tg.jit(fn_tg)(*args)
        want = jax.jit(fn_jax)(*args)
        assert np.asarray(got).dtype == np.asarray(want).dtype, (args, got, want)
        np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-6)
