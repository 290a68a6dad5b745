"""The primitive registry: every primitive has its rules, and the rules agree.

* Every primitive has ``impl``, ``abstract_eval`` and a batching rule
  (``batch``, for ``vmap``), and ``jvp`` and ``vjp`` unless it is marked
  non-differentiable.  (``test_vmap_primitives.py`` checks every batching
  rule against a loop over the batch.)
* For every row of the gradient table (``test_grad_table.py``): the JVP and
  the VJP are transposes of each other, ``<u, J v> == <J^T u, v>``, computed
  with ``tg.jvp`` and ``tg.vjp`` only (no finite differences), at first and
  second order.
* While those checks run, every primitive's ``impl``, ``jvp`` and VJP rules
  are wrapped: each impl call is compared with the primitive's
  ``abstract_eval`` (shape and dtype), and the primitives whose rules ran
  are recorded.  Every differentiable primitive in the registry must have
  had both its JVP and its VJP rule exercised.
"""
import numpy as np
import pytest

import tracegrad as tg
import tracegrad.nn  # noqa: F401  (declares its primitives before they are wrapped)
import tracegrad.numpy.linalg  # noqa: F401
from tracegrad.primitives import ShapedArray, registry
from tracegrad.test_util import _inner, _rand_like as _random_like  # the checker's own helpers
from tracegrad.tree_util import tree_leaves


# --------------------------------------------------------------------------
# every primitive declares its rules


def test_every_primitive_has_its_rules():
    offenders = []
    for name, p in sorted(registry.items()):
        missing = [a for a in ("impl", "abstract_eval", "batch") if getattr(p, a) is None]
        if p.differentiable:
            missing += [a for a in ("jvp", "vjp") if getattr(p, a) is None]
        elif p.jvp is not None or p.vjp is not None:
            missing.append("(marked non-differentiable but has derivative rules)")
        if missing:
            offenders.append(f"{name}: {', '.join(missing)}")
    assert not offenders, (
        f"{len(offenders)} primitives lack rules (mark ones with no derivative with "
        f"def_nondifferentiable; 'batch' is the vmap rule, set as prim.batch with the "
        f"helpers of primitives/batching.py): {offenders}"
    )


def test_registry_names_match_primitives():
    bad = [n for n, p in registry.items() if p.name != n]
    assert not bad, f"registry keys that differ from the primitive's name: {bad}"


# --------------------------------------------------------------------------
# instrumentation


class _Record:
    def __init__(self):
        self.bound = set()
        self.jvp_used = set()
        self.vjp_used = set()
        self.aval_errors = []
        self.rows_done = set()


REC = _Record()


def _aval(x):
    if isinstance(x, (np.ndarray, np.generic)):
        return ShapedArray(np.shape(x), x.dtype)
    return x  # Python scalars (and None) stay values


def _check_aval(p, args, params, out):
    expected = p.abstract_eval(*[_aval(a) for a in args], **params)
    outs = list(out) if p.multiple_results else [out]
    exps = list(expected) if p.multiple_results else [expected]
    if len(outs) != len(exps):
        return f"impl gave {len(outs)} results, abstract_eval {len(exps)}"
    for k, (o, e) in enumerate(zip(outs, exps)):
        if not isinstance(o, (np.ndarray, np.generic)):
            return f"impl result {k} is a {type(o).__name__}, not a NumPy array or scalar"
        shape, dtype = e
        if tuple(o.shape) != tuple(shape) or o.dtype != np.dtype(dtype):
            return (f"result {k}: impl gave shape {o.shape} dtype {o.dtype}, "
                    f"abstract_eval says shape {tuple(shape)} dtype {np.dtype(dtype)}")
    return None


def _describe(args, params):
    avals = [f"{a.dtype}{list(np.shape(a))}" if hasattr(a, "dtype") else repr(a) for a in args]
    return f"({', '.join(avals)}; {params})"


def _wrap_impl(p, impl):
    def impl_checked(*args, **params):
        out = impl(*args, **params)
        REC.bound.add(p.name)
        try:
            err = _check_aval(p, args, params, out)
        except Exception as e:  # noqa: BLE001 - a failing abstract_eval is a finding
            err = f"abstract_eval raised {type(e).__name__}: {e}"
        if err:
            REC.aval_errors.append(f"{p.name}{_describe(args, params)}: {err}")
        return out

    return impl_checked


def _wrap_jvp(p, jvp):
    def jvp_recorded(primals, tangents, **params):
        REC.jvp_used.add(p.name)
        return jvp(primals, tangents, **params)

    return jvp_recorded


class _RecordedRules:
    """Per-argument VJP rules that record their use."""

    def __init__(self, p, rules):
        self.p, self.rules = p, rules

    def __getitem__(self, i):
        rule = self.rules[i]
        if rule is None:
            return None

        def rule_recorded(*args, **params):
            REC.vjp_used.add(self.p.name)
            return rule(*args, **params)

        return rule_recorded

    def __len__(self):
        return len(self.rules)

    def __iter__(self):
        return (self[i] for i in range(len(self.rules)))


@pytest.fixture(scope="module")
def instrumented():
    saved = {name: (p.impl, p.jvp, p.vjp) for name, p in registry.items()}
    try:
        for p in registry.values():
            if p.impl is not None:
                p.impl = _wrap_impl(p, p.impl)
            if p.jvp is not None:
                p.jvp = _wrap_jvp(p, p.jvp)
            if p.vjp is not None:
                p.vjp = _RecordedRules(p, p.vjp)
        yield REC
    finally:
        for name, (impl, jvp, vjp) in saved.items():
            p = registry[name]
            p.impl, p.jvp, p.vjp = impl, jvp, vjp


# --------------------------------------------------------------------------
# <u, J v> == <J^T u, v>


def _norm(a):
    return np.sqrt(_inner(a, a))


def _assert_transposes(f, args, rng, what):
    v = _random_like(rng, args)
    out, jv = tg.jvp(f, args, v)
    out_r, vjp_fun = tg.vjp(f, *args)
    u = _random_like(rng, out)
    jtu = vjp_fun(u)
    lhs, rhs = _inner(u, jv), _inner(jtu, v)
    # relative to the sizes involved; the floor covers J == 0 up to roundoff
    scale = _norm(u) * _norm(jv) + _norm(jtu) * _norm(v) + 1e-3 * _norm(u) * _norm(v)
    single = any(np.asarray(a).dtype == np.float32 for a in tree_leaves(args))
    assert abs(lhs - rhs) <= (1e-5 if single else 1e-9) * scale, (
        f"{what}: <u, J v> = {lhs!r} but <J^T u, v> = {rhs!r}"
    )
    for a, b in zip(tree_leaves(out), tree_leaves(out_r)):
        # the same primal computation, up to rounding: a multithreaded BLAS may sum in
        # another order from run to run (logm differed by 1 ulp in a CI run)
        np.testing.assert_allclose(a, b, rtol=1e-13, atol=0,
                                   err_msg=f"{what}: jvp and vjp outputs differ")
    return u, v


def _run_row(r):
    rng = np.random.default_rng(1)
    args = r.make_args()
    u, v = _assert_transposes(r.fn, args, rng, f"{r.id} (first order)")

    # second order: the same identity for (x, u) -> J(x)^T u and
    # (x, v) -> J(x) v, which runs every rule's own primitives under JVP and VJP
    def reverse(xs, u):
        return tg.vjp(r.fn, *xs)[1](u)

    def forward(xs, v):
        return tg.jvp(r.fn, xs, v)[1]

    _assert_transposes(reverse, (args, u), rng, f"{r.id} ((x, u) -> J(x)^T u)")
    _assert_transposes(forward, (args, v), rng, f"{r.id} ((x, v) -> J(x) v)")
    REC.rows_done.add(r.id)


def test_jvp_vjp_consistent(table_row, instrumented):
    r = table_row
    n_before = len(REC.aval_errors)
    _run_row(r)
    new = REC.aval_errors[n_before:]
    assert not new, f"abstract_eval disagrees with impl while running {r.id}: {sorted(set(new))}"


def _run_remaining_rows(table):
    # the checks below need every row to have run (even under -k selection)
    for r in table:
        if r.id not in REC.rows_done:
            try:
                _run_row(r)
            except Exception:  # noqa: BLE001 - that row's own test reports it
                pass


def test_abstract_eval_agrees_with_impl(instrumented, grad_table):
    _run_remaining_rows(grad_table.TABLE)
    assert REC.bound, "no primitive was bound"
    errors = sorted(set(REC.aval_errors))
    assert not errors, f"{len(errors)} impl/abstract_eval disagreements: {errors[:20]}"


# custom_vjp's call primitive has a reverse-mode rule only (forward mode raises,
# as in JAX), so no table row (which checks both modes) can hold it; its rules
# are exercised by tests/test_custom.py.
REVERSE_ONLY = {"custom_vjp_call"}
# random_gamma's derivative in its shape parameter is first order only (as in
# JAX, whose second derivative raises), so no table row (second order) can hold
# it; tests/test_random.py checks its rules in both modes.
FIRST_ORDER_ONLY = {"random_gamma"}
# lax's control-flow primitives are bound only under staging (eagerly, lax runs
# Python loops, which the table's rows differentiate); tests/test_control_flow.py
# checks their rules in both modes to second order (while_loop: forward mode).
STAGED_ONLY = {"scan", "cond", "while"}
# issue 11 (tracegrad.scipy): rules that raise on purpose, so no row can run them:
# schur and hessenberg (no derivative, as in JAX: the factorizations are not
# unique; tests/test_scipy_linalg_more.py checks that they raise) and Riemann's
# zeta in x (none in JAX either; tests/test_scipy_special_more.py checks it).
RAISING_RULES = {"schur", "hessenberg", "riemann_zeta"}


def test_every_differentiable_primitive_exercised(instrumented, grad_table):
    _run_remaining_rows(grad_table.TABLE)
    unexercised = []
    for name, p in sorted(registry.items()):
        if not p.differentiable or name in REVERSE_ONLY | FIRST_ORDER_ONLY | STAGED_ONLY | RAISING_RULES:
            continue
        missing = [m for m, used in (("jvp", REC.jvp_used), ("vjp", REC.vjp_used)) if name not in used]
        if missing:
            unexercised.append(f"{name} ({', '.join(missing)})")
    assert not unexercised, (
        f"{len(unexercised)} differentiable primitives whose rules no table row exercised "
        f"(add rows for the public functions that use them): {unexercised}"
    )
