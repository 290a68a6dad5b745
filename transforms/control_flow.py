"""Control-flow primitives with sub-IRs: ``scan``, ``cond``, ``while`` (JAX's).

``tracegrad.lax`` runs its loops as Python loops when nothing is staged;
under staging (``make_jaxpr``, ``jit``, at any nesting depth of other
transforms) it traces the loop body once into a :class:`ClosedJaxpr` and
binds one of the primitives below, so a 100-step ``scan`` is one equation.

Interfaces (the code-generation rules in ``transforms/codegen_loops.py``
are written against them):

* ``scan_p.bind(*consts, *init_carry, *xs, jaxpr, num_consts, num_carry,
  length, reverse) -> [*final_carry, *stacked_ys]``.  ``jaxpr`` has no
  constants of its own: invars are consts + carry + one slice per xs leaf,
  outvars new carry + one y per step; ys are stacked on a new axis 0 of
  size ``length`` (with ``reverse`` the iterations run from the end and the
  ys keep xs's order).
* ``cond_p.bind(index, *operands, branches)``: ``index`` an int32 scalar in
  ``[0, len(branches) - 1]``; every branch takes the operands and returns
  the same avals.
* ``while_p.bind(*cond_consts, *body_consts, *init, cond_jaxpr, body_jaxpr,
  cond_nconsts, body_nconsts) -> final carry``.

Each primitive has an impl (a Python loop evaluating the sub-IR with
:func:`eval_jaxpr` on concrete values: what ``jit`` runs until a lowering
exists), an abstract eval checking the operands against the sub-IRs, and
JVP, VJP and batching rules that build new sub-IRs by staging the
transformed body (:func:`stage_flat`), so derivative and batched programs
are themselves scans, conds and whiles, and stage and compile too.  Which
carries have a nonzero tangent, or are batched, is found by a fixpoint over
the body (a carry that is zero/unbatched on entry but not after one step is
promoted), as in JAX.  Reverse mode of ``scan`` stacks the carries in a
forward scan and runs the body's VJP in a reverse scan accumulating the
constants' cotangents in its carry; ``while`` has no reverse mode (JAX's
error); ``cond`` runs a ``cond`` over the branches' VJPs.
"""
import numpy as np

from ..core import Primitive, ShapedArray, Tracer, current_trace, new_trace, set_trace
from ..interpreters.batching import BatchTrace, BatchTracer
from ..interpreters.jvp import JVPTrace, split_jvp
from ..interpreters.staging import (ClosedJaxpr, Jaxpr, Literal, StagingTrace, StagingTracer,
                                    _type_str, aval_of, eval_jaxpr)
from ..primitives import ops
from ..primitives.batching import move_bdim
from ..primitives.lowering import ArrayOp
from .call import EVAL, AllArgsVJP, is_float, vjp_in_floats
from .codegen_loops import emit_cond, emit_scan, emit_while

__all__ = ["scan_p", "cond_p", "while_p", "stage_flat", "staging_active", "is_staged"]


# --------------------------------------------------------------------------
# shared helpers


def staging_active(leaves=()):
    """True when a staging trace (``make_jaxpr``, ``jit``) is running below
    the current trace, or one of ``leaves`` is a staged value: control flow
    then stages as a primitive instead of running as a Python loop."""
    t = current_trace()
    while t is not None:
        if isinstance(t, StagingTrace):
            return True
        t = t.parent
    return any(is_staged(x) for x in leaves)


def is_staged(x):
    """True when ``x`` is, or wraps (at any depth of tracers), a staged value."""
    while isinstance(x, Tracer):
        if isinstance(x, StagingTracer):
            return True
        if isinstance(x, BatchTracer):
            x = x.val
            continue
        if not hasattr(x, "primal"):
            return False
        x = x.primal
    return False


def _is_scalar(x):
    return isinstance(x, (bool, int, float, complex)) and not isinstance(x, np.generic)


def stage_flat(fun, avals, weak=None):
    """Stage ``fun`` (flat values in, flat list out) on abstract inputs.

    Parameters
    ----------
    fun : callable
    avals : sequence of ShapedArray
    weak : sequence of bool, optional
        Inputs standing for Python scalars (weakly typed, see
        :class:`~tracegrad.interpreters.staging.Var`); default none.

    Returns
    -------
    jaxpr : ClosedJaxpr
        With no constants: the values ``fun`` closed over (arrays, tracers
        of enclosing transforms) are hoisted into leading invars.
    consts : list
        Those values, to pass as the leading operands.
    """
    with new_trace(StagingTrace) as trace:
        args = [trace.new_arg(a, w) for a, w in zip(avals, weak or [False] * len(avals))]
        outs = [np.asarray(o) if _is_scalar(o) else o for o in fun(*args)]
        closed = trace.to_jaxpr(outs)
    j = closed.jaxpr
    return ClosedJaxpr(Jaxpr([], list(j.constvars) + list(j.invars), j.eqns, j.outvars), []), \
        list(closed.consts)


def _weak(closed):
    """Which invars of ``closed`` are weakly typed (stand for Python scalars)."""
    return [v.weak_type for v in closed.jaxpr.invars]


def _avals(vals):
    return [aval_of(v) for v in vals]


def _same_avals(got, want, what):
    for k, (g, w) in enumerate(zip(got, want)):
        if _is_scalar(g):
            if tuple(w.shape) != ():
                raise TypeError(f"{what}: operand {k} is a scalar, the sub-IR takes {_type_str(w)}")
            continue
        g = aval_of(g)
        if tuple(g.shape) != tuple(w.shape) or np.dtype(g.dtype) != np.dtype(w.dtype):
            raise TypeError(f"{what}: operand {k} has type {_type_str(g)}, the sub-IR takes "
                            f"{_type_str(w)}")


def _run(closed, *args):
    return eval_jaxpr(closed.jaxpr, closed.consts, *args)


def _zeros(aval):
    """Zeros of ``aval`` (a broadcast scalar: one small constant when staged)."""
    return ops.broadcast_to(np.zeros((), aval.dtype), tuple(aval.shape))


def _depends(jaxpr, mask, differentiable=False):
    """Which outvars of ``jaxpr`` depend on the invars flagged in ``mask``
    (``differentiable``: only through differentiable primitives, into
    float outputs: which outputs can have a nonzero tangent)."""
    marked = {v for v, m in zip(jaxpr.invars, mask) if m}
    for eqn in jaxpr.eqns:
        if differentiable and not eqn.primitive.differentiable:
            continue
        if any(type(a) is not Literal and a in marked for a in eqn.invars):
            for v in eqn.outvars:
                if not differentiable or v.aval.dtype.kind in "fc":
                    marked.add(v)
    return [type(a) is not Literal and a in marked for a in jaxpr.outvars]


def _jvp_fun(closed, nz):
    """``f(*primals, *tangents_of_nz) -> [*outs, *tangents of all float outs]``
    (zero tangents materialized), for staging the JVP of ``closed``."""
    n = len(nz)

    def f(*args):
        primals, tangents = list(args[:n]), list(args[n:])
        with new_trace(JVPTrace) as jt:
            it = iter(tangents)
            ins = [jt.new_arg(p, next(it)) if m else p for p, m in zip(primals, nz)]
            ps, ts = split_jvp(jt, _run(closed, *ins))
        ts = [(_zeros(aval_of(p)) if t is None else t) for p, t in zip(ps, ts) if is_float(p)]
        return ps + ts

    return f


def _select_out_tangents(outs_avals, t_all, keep):
    """Tangent list over float outputs -> one entry per output (None where
    ``keep`` is False or the output is not float)."""
    it = iter(t_all)
    res = []
    for a, k in zip(outs_avals, keep):
        if a.dtype.kind in "fc":
            t = next(it)
            res.append(t if k else None)
        else:
            res.append(None)
    return res


def _fixpoint(step, init):
    """Smallest ``mask >= init`` with ``step(mask) <= mask`` (element-wise or)."""
    mask = list(init)
    while True:
        new = [a or b for a, b in zip(mask, step(mask))]
        if new == mask:
            return mask
        mask = new


def _batch_fun(closed, in_axes, out_batched, size):
    """``f(*vals)`` running ``closed`` batched: ``in_axes`` 0/None per input;
    outputs flagged in ``out_batched`` are returned batched at axis 0 (an
    output that came out unbatched is broadcast), the others unbatched."""

    def f(*vals):
        with new_trace(BatchTrace, size) as bt:
            ins = [bt.new_arg(v, a) for v, a in zip(vals, in_axes)]
            outs = _run(closed, *ins)
            res = []
            for o, b in zip(outs, out_batched):
                if type(o) is BatchTracer and o._trace is bt:
                    if not b:
                        raise AssertionError("control flow batching: an output thought "
                                             "unbatched came out batched")
                    res.append(move_bdim(o.val, o.bdim, 0))
                elif b:
                    a = aval_of(o)
                    res.append(ops.broadcast_to(o, (size,) + tuple(a.shape)))
                else:
                    res.append(o)
        return res

    return f


def _batch_size(args, bdims):
    for a, d in zip(args, bdims):
        if d is not None:
            return int(np.shape(a)[d]) if not hasattr(a, "shape") else int(a.shape[d])
    raise AssertionError("no batched operand")


def _to_front(x, d, size, want):
    """``x`` with batch dim ``d`` (None: unbatched) moved to 0, or
    broadcast to a batch there when ``want`` and unbatched."""
    if d is not None:
        return move_bdim(x, d, 0)
    if want:
        a = aval_of(x) if not _is_scalar(x) else aval_of(np.asarray(x))
        return ops.broadcast_to(x, (size,) + tuple(a.shape))
    return x


# --------------------------------------------------------------------------
# scan


scan_p = Primitive("scan", multiple_results=True)
scan_p.lowering = ArrayOp(emit_scan)


@scan_p.def_impl
def _scan_impl(*args, jaxpr, num_consts, num_carry, length, reverse):
    consts = args[:num_consts]
    carry = list(args[num_consts:num_consts + num_carry])
    xs = args[num_consts + num_carry:]
    y_avals = jaxpr.out_avals[num_carry:]
    ys = [np.empty((length,) + tuple(a.shape), a.dtype) for a in y_avals]
    body, body_consts = jaxpr.jaxpr, jaxpr.consts
    with set_trace(EVAL):
        for step in range(length):
            i = length - 1 - step if reverse else step
            outs = eval_jaxpr(body, body_consts, *consts, *carry, *[x[i] for x in xs])
            carry = outs[:num_carry]
            for buf, y in zip(ys, outs[num_carry:]):
                buf[i] = y
    c_avals = jaxpr.out_avals[:num_carry]
    return [np.asarray(c, a.dtype) for c, a in zip(carry, c_avals)] + ys


@scan_p.def_abstract_eval
def _scan_aval(*avals, jaxpr, num_consts, num_carry, length, reverse):
    n_in = len(jaxpr.in_avals)
    if len(avals) != n_in:
        raise TypeError(f"scan: {len(avals)} operands for a body taking {n_in}")
    want = list(jaxpr.in_avals)
    k = num_consts + num_carry
    x_avals = []
    for j, a in enumerate(avals[k:]):
        a = aval_of(a)
        if not a.shape or a.shape[0] != length:
            raise TypeError(f"scan: xs leaf {j} has type {_type_str(a)}, not a leading axis "
                            f"of length {length}")
        x_avals.append(ShapedArray(a.shape[1:], a.dtype))
    _same_avals(list(avals[:k]) + x_avals, want, "scan")
    outs = jaxpr.out_avals
    carry_out = outs[:num_carry]
    _same_avals(carry_out, want[num_consts:k], "scan (the body's output carry)")
    return list(carry_out) + [ShapedArray((length,) + tuple(a.shape), a.dtype)
                              for a in outs[num_carry:]]


def scan_bind(consts, init, xs, jaxpr, length, reverse):
    """Bind ``scan_p`` on lists of operands."""
    return scan_p.bind(*consts, *init, *xs, jaxpr=jaxpr, num_consts=len(consts),
                       num_carry=len(init), length=int(length), reverse=bool(reverse))


def _split3(args, a, b):
    return list(args[:a]), list(args[a:a + b]), list(args[a + b:])


def _scan_jvp(primals, tangents, *, jaxpr, num_consts, num_carry, length, reverse):
    nc, nk = num_consts, num_carry
    body = jaxpr.jaxpr
    nz_in = [t is not None and is_float(p) for p, t in zip(primals, tangents)]
    c_nz, k_nz, x_nz = _split3(nz_in, nc, nk)
    fl = [a.dtype.kind in "fc" for a in jaxpr.in_avals]

    def step(k_mask):
        out = _depends(body, c_nz + k_mask + x_nz, differentiable=True)
        return out[:nk]

    k_nz = [m and f for m, f in zip(_fixpoint(step, k_nz), fl[nc:nc + nk])]
    mask = c_nz + k_nz + x_nz
    out_nz = _depends(body, mask, differentiable=True)
    out_avals = jaxpr.out_avals
    keep = k_nz + out_nz[nk:]
    jvp_f = _jvp_fun(jaxpr, mask)
    n_in = len(mask)
    out_float = [a.dtype.kind in "fc" for a in out_avals]

    # reorder to the new scan's layout: consts, const tangents, carry, carry
    # tangents, xs, xs tangents; outputs: carry, carry tangents, ys, ys tangents
    in_avals = jaxpr.in_avals
    ic, ik, ix = _split3(list(range(n_in)), nc, nk)
    t_ic = [i for i in ic if mask[i]]
    t_ik = [i for i in ik if mask[i]]
    t_ix = [i for i in ix if mask[i]]
    order_p = ic + ik + ix  # primal positions in the jvp function
    new_in = [("p", i) for i in ic] + [("t", i) for i in t_ic] + [("p", i) for i in ik] + \
        [("t", i) for i in t_ik] + [("p", i) for i in ix] + [("t", i) for i in t_ix]
    t_pos = {i: j for j, i in enumerate(t_ic + t_ik + t_ix)}
    out_t_idx = [j for j in range(len(out_avals)) if out_float[j]]
    carry_t = [j for j in range(nk) if keep[j]]
    ys_t = [j for j in range(nk, len(out_avals)) if keep[j]]

    def body_fn(*args):
        prim = [None] * n_in
        tan = [None] * len(t_pos)
        for (kind, i), a in zip(new_in, args):
            if kind == "p":
                prim[i] = a
            else:
                tan[t_pos[i]] = a
        res = jvp_f(*[prim[i] for i in order_p], *tan)
        outs, ts = res[:len(out_avals)], res[len(out_avals):]
        t_of = dict(zip(out_t_idx, ts))
        return outs[:nk] + [t_of[j] for j in carry_t] + outs[nk:] + [t_of[j] for j in ys_t]

    avals_new = [in_avals[i] for _, i in new_in]
    weak = _weak(jaxpr)
    new_jaxpr, hoisted = stage_flat(body_fn, avals_new,
                                    [weak[i] and k == "p" for k, i in new_in])
    tan_of = {i: t for i, t in enumerate(tangents)}

    def tangent(i):
        t = tan_of[i]
        return _zeros(in_avals[i]) if t is None else t

    p = list(primals)
    consts = hoisted + [p[i] for i in ic] + [tangent(i) for i in t_ic]
    init = [p[i] for i in ik] + [tangent(i) for i in t_ik]
    xs = [p[i] for i in ix] + [tangent(i) for i in t_ix]
    res = scan_bind(consts, init, xs, new_jaxpr, length, reverse)
    nck = nk + len(carry_t)
    carry, carry_dot = res[:nk], res[nk:nck]
    ys, ys_dot = res[nck:nck + len(out_avals) - nk], res[nck + len(out_avals) - nk:]
    t_out = [None] * len(out_avals)
    for j, t in zip(carry_t, carry_dot):
        t_out[j] = t
    for j, t in zip(ys_t, ys_dot):
        t_out[j] = t
    return carry + ys, t_out


scan_p.jvp = _scan_jvp


def _split_known(closed, n_known, n_step):
    """Split ``closed`` (invars: ``n_known`` loop-invariant ones, ``n_step``
    per-step ones, then cotangents) into the equations that need no
    cotangent and read a per-step value (the forward part) and the others
    (the backward part; loop-invariant equations go wherever they are
    needed).  Returns the forward part's equations and the backward part's,
    and the set of variables the forward part defines (with the per-step
    invars): what the backward part may need stacked as residuals."""
    j = closed.jaxpr
    step = set(j.invars[n_known:n_known + n_step])
    ct = set(j.invars[n_known + n_step:])
    fwd, bwd = [], []
    for eqn in j.eqns:
        ins = [a for a in eqn.invars if type(a) is not Literal]
        if any(a in ct for a in ins):
            ct.update(eqn.outvars)
            bwd.append(eqn)
        elif any(a in step for a in ins):
            step.update(eqn.outvars)
            fwd.append(eqn)
        else:  # loop-invariant: both parts may use it
            fwd.append(eqn)
            bwd.append(eqn)
    return fwd, bwd, step


def _live(eqns, outvars):
    needed = {a for a in outvars if type(a) is not Literal}
    keep = []
    for eqn in reversed(eqns):
        if any(v in needed for v in eqn.outvars):
            keep.append(eqn)
            needed.update(a for a in eqn.invars if type(a) is not Literal)
    keep.reverse()
    return keep


class _ScanResiduals:
    """What the reverse scan needs from the forward one: the stacked
    per-step residuals and the pieces of the body's split VJP."""

    __slots__ = ("stacked", "hoisted", "consts", "core", "known_in", "n_res",
                 "avals", "flags")

    def __init__(self, **kw):
        for k, v in kw.items():
            setattr(self, k, v)


def _scan_fwd(primals, *, jaxpr, num_consts, num_carry, length, reverse):
    """Reverse mode's forward pass of a scan: one scan that computes the
    outputs and stacks the residuals the backward scan reads (no second
    forward scan in the backward pass).  Returns ``(outs, residuals)``."""
    nc, nk = num_consts, num_carry
    consts, init, xs = _split3(primals, nc, nk)
    in_avals = jaxpr.in_avals
    out_avals = jaxpr.out_avals
    c_avals, k_avals, x_avals = _split3(in_avals, nc, nk)
    fc = [a.dtype.kind in "fc" for a in c_avals]
    fk = [a.dtype.kind in "fc" for a in k_avals]
    fx = [a.dtype.kind in "fc" for a in x_avals]
    fy = [a.dtype.kind in "fc" for a in out_avals[nk:]]
    ct_k_avals = [a for a, f in zip(k_avals, fk) if f]
    ct_y_avals = [a for a, f in zip(out_avals[nk:], fy) if f]
    nfk = sum(fk)
    n_in = len(in_avals)

    # the body's VJP, staged whole: (consts, carry, x, ct carry, ct y) -> (outs, cts)
    def full(*args):
        prim, cts_in = list(args[:n_in]), list(args[n_in:])
        outs, pull = vjp_in_floats(lambda *a: _run(jaxpr, *a), prim, "scan")
        it_k, it_y = iter(cts_in[:nfk]), iter(cts_in[nfk:])
        cts = [next(it_k) if f else _zeros(a) for a, f in zip(out_avals[:nk], fk)] + \
              [next(it_y) if f else _zeros(a) for a, f in zip(out_avals[nk:], fy)]
        g = pull(cts)
        return list(outs) + [gi for gi, f in zip(g, fc + fk + fx) if f]

    fj, h = stage_flat(full, list(in_avals) + ct_k_avals + ct_y_avals,
                       _weak(jaxpr) + [False] * (len(ct_k_avals) + len(ct_y_avals)))
    nh = len(h)
    j = fj.jaxpr
    n_out = len(out_avals)
    # split it: a forward scan computes the outputs and stacks the residuals,
    # a reverse scan runs the rest (no recomputation of the forward pass)
    fwd, bwd, step_vars = _split_known(fj, nh + nc, nk + len(x_avals))
    g_out = list(j.outvars[n_out:])
    bwd = _live(bwd, g_out)
    residuals, seen = [], set()
    for a in [a for e in bwd for a in e.invars] + g_out:
        if type(a) is not Literal and a in step_vars and a not in seen:
            seen.add(a)
            residuals.append(a)
    known_in = list(j.invars[:nh + nc])
    step_in = list(j.invars[nh + nc:nh + n_in])
    ct_in = list(j.invars[nh + n_in:])
    fwd_out = list(j.outvars[:n_out]) + residuals
    fwd_jaxpr = ClosedJaxpr(Jaxpr([], known_in + step_in, _live(fwd, fwd_out), fwd_out), [])
    res = scan_bind(h + consts, init, xs, fwd_jaxpr, length, reverse)
    core = Jaxpr([], known_in + ct_in[:nfk] + residuals + ct_in[nfk:], bwd, g_out)
    return list(res[:n_out]), _ScanResiduals(
        stacked=list(res[n_out:]), hoisted=h, consts=consts, core=core,
        known_in=known_in, n_res=len(residuals),
        avals=(fwd_jaxpr.in_avals[:nh + nc], [r.aval for r in residuals]),
        flags=(fc, fk, fx, fy))


def _scan_vjp(ct, ans, *primals, jaxpr, num_consts, num_carry, length, reverse,
              residuals=None):
    """The backward scan: runs the body's cotangent equations in the
    opposite order over the residuals :func:`_scan_fwd` stacked."""
    if residuals is None:  # applied without its forward pass (a direct rule call)
        _, residuals = _scan_fwd(primals, jaxpr=jaxpr, num_consts=num_consts,
                                 num_carry=num_carry, length=length, reverse=reverse)
    r = residuals
    nk = num_carry
    fc, fk, fx, fy = r.flags
    _, k_avals, _ = _split3(jaxpr.in_avals, num_consts, nk)
    out_avals = jaxpr.out_avals
    c_avals = jaxpr.in_avals[:num_consts]
    ct_k_avals = [a for a, f in zip(k_avals, fk) if f]
    ct_y_avals = [a for a, f in zip(out_avals[nk:], fy) if f]
    nfc, nfk = sum(fc), sum(fk)
    core, nr = r.core, r.n_res
    known_avals, res_avals = r.avals
    nkn = len(known_avals)

    def bwd_fn(*args):
        kn = list(args[:nkn])
        acc = list(args[nkn:nkn + nfc])
        ct_k = list(args[nkn + nfc:nkn + nfc + nfk])
        rest = list(args[nkn + nfc + nfk:])
        g = eval_jaxpr(core, [], *kn, *ct_k, *rest[:nr], *rest[nr:])
        g_c, g_k, g_x = g[:nfc], g[nfc:nfc + nfk], g[nfc + nfk:]
        return [ops.add(a_, b_) for a_, b_ in zip(acc, g_c)] + list(g_k) + list(g_x)

    ct_c_avals = [a for a, f in zip(c_avals, fc) if f]
    bwd_avals = list(known_avals) + ct_c_avals + ct_k_avals + list(res_avals) + ct_y_avals
    bwd_jaxpr, h2 = stage_flat(bwd_fn, bwd_avals, [v.weak_type for v in r.known_in]
                               + [False] * (len(bwd_avals) - nkn))
    ct_k0 = [_zeros(a) if c is None else c for c, a, f in zip(ct[:nk], k_avals, fk) if f]
    ct_ys = [_zeros(ShapedArray((length,) + tuple(a.shape), a.dtype)) if c is None else c
             for c, a, f in zip(ct[nk:], out_avals[nk:], fy) if f]
    acc0 = [_zeros(a) for a in ct_c_avals]
    out = scan_bind(h2 + r.hoisted + r.consts, acc0 + ct_k0, r.stacked + ct_ys, bwd_jaxpr,
                    length, not reverse)
    g_c, g_k, g_x = out[:nfc], out[nfc:nfc + nfk], out[nfc + nfk:]
    return _scatter(g_c, fc) + _scatter(g_k, fk) + _scatter(g_x, fx)


def _scatter(vals, flags):
    it = iter(vals)
    return [next(it) if f else None for f in flags]


scan_p.vjp = AllArgsVJP(_scan_vjp)
scan_p.vjp_fwd = _scan_fwd


def _scan_batch(args, bdims, *, jaxpr, num_consts, num_carry, length, reverse):
    nc, nk = num_consts, num_carry
    size = _batch_size(args, bdims)
    body = jaxpr.jaxpr
    b_in = [d is not None for d in bdims]
    c_b, k_b, x_b = _split3(b_in, nc, nk)
    k_b = _fixpoint(lambda m: _depends(body, c_b + m + x_b)[:nk], k_b)
    out_b = _depends(body, c_b + k_b + x_b)
    out_b = k_b + out_b[nk:]
    in_axes = [0 if b else None for b in c_b + k_b + x_b]
    avals = [ShapedArray((size,) + tuple(a.shape), a.dtype) if b else a
             for a, b in zip(jaxpr.in_avals, c_b + k_b + x_b)]
    weak = [w and not b for w, b in zip(_weak(jaxpr), c_b + k_b + x_b)]
    new_jaxpr, hoisted = stage_flat(_batch_fun(jaxpr, in_axes, out_b, size), avals, weak)
    consts, init, xs = _split3(args, nc, nk)
    cd, kd, xd = _split3(bdims, nc, nk)
    consts = [_to_front(a, d, size, False) for a, d in zip(consts, cd)]
    init = [_to_front(a, d, size, b) for a, d, b in zip(init, kd, k_b)]
    # xs: the scanned axis stays 0, the batch goes to axis 1 (the body sees axis 0)
    xs = [x if d is None else move_bdim(x, d, 1) for x, d in zip(xs, xd)]
    outs = scan_bind(hoisted + consts, init, xs, new_jaxpr, length, reverse)
    out_dims = [0 if b else None for b in out_b[:nk]] + [1 if b else None for b in out_b[nk:]]
    return outs, out_dims


scan_p.batch = _scan_batch


# --------------------------------------------------------------------------
# cond (and switch)


def join_branches(staged):
    """Branch IRs staged separately, each with its own hoisted constants,
    made to take one operand list: every branch's constants, then the
    operands.

    Parameters
    ----------
    staged : list of (ClosedJaxpr, consts)
        As :func:`stage_flat` returns them, over the same operand avals.

    Returns
    -------
    branches : tuple of ClosedJaxpr
        Each with invars = all constants + operands.
    consts : list
        The constants, in branch order (to pass before the operands).
    """
    consts, offsets = [], []
    for _, c in staged:
        offsets.append(len(consts))
        consts.extend(c)
    if not consts:
        return tuple(j for j, _ in staged), []
    nh = len(consts)
    avals = [a for j, c in staged for a in j.in_avals[:len(c)]]
    weak = [w for j, c in staged for w in _weak(j)[:len(c)]]
    first, n0 = staged[0][0], len(staged[0][1])
    ops_avals = first.in_avals[n0:]
    weak += _weak(first)[n0:]
    out = []
    for (j, c), off in zip(staged, offsets):
        def fn(*args, j=j, off=off, m=len(c)):
            return _run(j, *args[off:off + m], *args[nh:])
        jj, extra = stage_flat(fn, avals + list(ops_avals), weak)
        assert not extra
        out.append(jj)
    return tuple(out), consts


cond_p = Primitive("cond", multiple_results=True)
cond_p.lowering = ArrayOp(emit_cond)


@cond_p.def_impl
def _cond_impl(index, *operands, branches):
    with set_trace(EVAL):
        outs = _run(branches[int(index)], *operands)
    return [np.asarray(o, a.dtype) for o, a in zip(outs, branches[0].out_avals)]


@cond_p.def_abstract_eval
def _cond_aval(index, *operands, branches):
    a = aval_of(np.asarray(index)) if _is_scalar(index) else aval_of(index)
    if a.shape != () or a.dtype.kind not in "iu":
        raise TypeError(f"cond: the branch index must be an integer scalar, got {_type_str(a)}")
    out = branches[0].out_avals
    for k, b in enumerate(branches):
        _same_avals(operands, b.in_avals, f"cond (branch {k})")
        if b.out_avals != out:
            raise TypeError(
                f"cond: branch {k} returns {[_type_str(o) for o in b.out_avals]}, branch 0 "
                f"{[_type_str(o) for o in out]}; every branch must return the same types")
    return list(out)


def cond_bind(index, operands, branches):
    """Bind ``cond_p`` (``branches``: tuple of ClosedJaxpr)."""
    return cond_p.bind(index, *operands, branches=tuple(branches))


def _cond_jvp(primals, tangents, *, branches):
    index, ops_ = primals[0], list(primals[1:])
    tans = list(tangents[1:])
    nz = [t is not None and is_float(p) for p, t in zip(ops_, tans)]
    out_avals = branches[0].out_avals
    keep = [False] * len(out_avals)
    for b in branches:
        keep = [k or d for k, d in zip(keep, _depends(b.jaxpr, nz, differentiable=True))]
    out_float = [a.dtype.kind in "fc" for a in out_avals]
    t_idx = [j for j, f in enumerate(out_float) if f]
    in_avals = branches[0].in_avals
    t_avals = [a for a, m in zip(in_avals, nz) if m]

    staged = []
    for b in branches:
        f = _jvp_fun(b, nz)

        def fn(*args, f=f):
            res = f(*args)
            outs, ts = res[:len(out_avals)], dict(zip(t_idx, res[len(out_avals):]))
            return outs + [ts[j] for j in range(len(out_avals)) if keep[j]]

        staged.append(stage_flat(fn, list(in_avals) + t_avals, _weak(b) + [False] * len(t_avals)))
    new_branches, consts = join_branches(staged)
    t_ops = [t for t, m in zip(tans, nz) if m]
    res = cond_bind(index, consts + ops_ + t_ops, new_branches)
    outs = res[:len(out_avals)]
    it = iter(res[len(out_avals):])
    return outs, [next(it) if k else None for k in keep]


cond_p.jvp = _cond_jvp


def _cond_vjp(ct, ans, index, *operands, branches):
    out_avals = branches[0].out_avals
    in_avals = branches[0].in_avals
    fo = [a.dtype.kind in "fc" for a in out_avals]
    fi = [a.dtype.kind in "fc" for a in in_avals]
    n = len(operands)
    ct_avals = [a for a, f in zip(out_avals, fo) if f]
    staged = []
    for b in branches:
        def fn(*args, b=b):
            _, pull = vjp_in_floats(lambda *a: _run(b, *a), list(args[:n]), "cond")
            it = iter(args[n:])
            g = pull([next(it) if f else _zeros(a) for a, f in zip(out_avals, fo)])
            return [gi for gi, f in zip(g, fi) if f]
        staged.append(stage_flat(fn, list(in_avals) + ct_avals, _weak(b) + [False] * len(ct_avals)))
    new_branches, consts = join_branches(staged)
    cts = [_zeros(a) if c is None else c for c, a, f in zip(ct, out_avals, fo) if f]
    g = cond_bind(index, consts + list(operands) + cts, new_branches)
    return [None] + _scatter(g, fi)


cond_p.vjp = AllArgsVJP(_cond_vjp)


def _cond_batch(args, bdims, *, branches):
    size = _batch_size(args, bdims)
    index, ops_ = args[0], list(args[1:])
    idx_d, op_d = bdims[0], list(bdims[1:])
    in_avals = branches[0].in_avals
    out_avals = branches[0].out_avals
    b_in = [d is not None for d in op_d]
    moved = [_to_front(a, d, size, False) for a, d in zip(ops_, op_d)]
    in_axes = [0 if b else None for b in b_in]
    if idx_d is not None:
        # a batched index: every branch runs on the whole batch, then a select
        outs = [_batch_fun(b, in_axes, [True] * len(out_avals), size)(*moved) for b in branches]
        idx = move_bdim(index, idx_d, 0)
        result = []
        for k, a in enumerate(out_avals):
            shape = (size,) + tuple(a.shape)
            i_b = ops.broadcast_to(ops.reshape(idx, (size,) + (1,) * len(a.shape)), shape)
            acc = outs[-1][k]
            for j in range(len(branches) - 2, -1, -1):
                acc = ops.select(ops.eq(i_b, j), outs[j][k], acc)
            result.append(acc)
        return result, [0] * len(result)
    out_b = [False] * len(out_avals)
    for b in branches:
        out_b = [o or d for o, d in zip(out_b, _depends(b.jaxpr, b_in))]
    avals = [ShapedArray((size,) + tuple(a.shape), a.dtype) if bb else a
             for a, bb in zip(in_avals, b_in)]
    staged = [stage_flat(_batch_fun(b, in_axes, out_b, size), avals,
                         [w and not bb for w, bb in zip(_weak(b), b_in)]) for b in branches]
    new_branches, consts = join_branches(staged)
    outs = cond_bind(index, consts + moved, new_branches)
    return outs, [0 if b else None for b in out_b]


cond_p.batch = _cond_batch


# --------------------------------------------------------------------------
# while


while_p = Primitive("while", multiple_results=True)
while_p.lowering = ArrayOp(emit_while)


@while_p.def_impl
def _while_impl(*args, cond_jaxpr, body_jaxpr, cond_nconsts, body_nconsts):
    cc = args[:cond_nconsts]
    bc = args[cond_nconsts:cond_nconsts + body_nconsts]
    carry = list(args[cond_nconsts + body_nconsts:])
    with set_trace(EVAL):
        while bool(_run(cond_jaxpr, *cc, *carry)[0]):
            carry = _run(body_jaxpr, *bc, *carry)
    return [np.asarray(c, a.dtype) for c, a in zip(carry, body_jaxpr.out_avals)]


@while_p.def_abstract_eval
def _while_aval(*avals, cond_jaxpr, body_jaxpr, cond_nconsts, body_nconsts):
    nc, nb = cond_nconsts, body_nconsts
    carry = list(avals[nc + nb:])
    _same_avals(list(avals[:nc]) + carry, cond_jaxpr.in_avals, "while_loop (cond)")
    _same_avals(list(avals[nc:nc + nb]) + carry, body_jaxpr.in_avals, "while_loop (body)")
    p = cond_jaxpr.out_avals
    if len(p) != 1 or p[0].shape != () or p[0].dtype.kind != "b":
        raise TypeError(f"while_loop: cond_fun must return a boolean scalar, got "
                        f"{[_type_str(a) for a in p]}")
    out = body_jaxpr.out_avals
    _same_avals(out, body_jaxpr.in_avals[nb:], "while_loop (the body's output carry)")
    return list(out)


def while_bind(cond_consts, body_consts, init, cond_jaxpr, body_jaxpr):
    """Bind ``while_p`` on lists of operands."""
    return while_p.bind(*cond_consts, *body_consts, *init, cond_jaxpr=cond_jaxpr,
                        body_jaxpr=body_jaxpr, cond_nconsts=len(cond_consts),
                        body_nconsts=len(body_consts))


def _while_jvp(primals, tangents, *, cond_jaxpr, body_jaxpr, cond_nconsts, body_nconsts):
    nc, nb = cond_nconsts, body_nconsts
    cc, bc, init = _split3(primals, nc, nb)
    _, bt, it_ = _split3(tangents, nc, nb)
    b_nz = [t is not None and is_float(p) for p, t in zip(bc, bt)]
    k_nz = [t is not None and is_float(p) for p, t in zip(init, it_)]
    k_avals = body_jaxpr.out_avals
    fl = [a.dtype.kind in "fc" for a in k_avals]
    k_nz = _fixpoint(lambda m: _depends(body_jaxpr.jaxpr, b_nz + m, differentiable=True), k_nz)
    k_nz = [m and f for m, f in zip(k_nz, fl)]
    if not any(k_nz):
        return while_bind(cc, bc, init, cond_jaxpr, body_jaxpr), [None] * len(init)
    mask = b_nz + k_nz
    jvp_f = _jvp_fun(body_jaxpr, mask)
    nk = len(init)
    bt_nz = [t for t, m in zip(bt, b_nz) if m]
    t_avals = [a for a, m in zip(k_avals, k_nz) if m]
    bc_avals = body_jaxpr.in_avals[:nb]
    bct_avals = [a for a, m in zip(bc_avals, b_nz) if m]
    float_out = [j for j, f in enumerate(fl) if f]
    nbt = len(bct_avals)

    def body_fn(*args):
        b, btan = list(args[:nb]), list(args[nb:nb + nbt])
        k, ktan = list(args[nb + nbt:nb + nbt + nk]), list(args[nb + nbt + nk:])
        res = jvp_f(*b, *k, *btan, *ktan)
        ts = dict(zip(float_out, res[nk:]))
        return res[:nk] + [ts[j] for j in range(nk) if k_nz[j]]

    bw = _weak(body_jaxpr)
    new_body, hb = stage_flat(body_fn, list(bc_avals) + bct_avals + list(k_avals) + t_avals,
                              bw[:nb] + [False] * nbt + bw[nb:] + [False] * len(t_avals))
    ntk = len(t_avals)
    new_cond, hc = stage_flat(lambda *a: _run(cond_jaxpr, *a[:len(a) - ntk]),
                              list(cond_jaxpr.in_avals) + t_avals,
                              _weak(cond_jaxpr) + [False] * ntk)
    t_init = [_zeros(a) if t is None else t for t, a, m in zip(it_, k_avals, k_nz) if m]
    res = while_bind(hc + list(cc), hb + list(bc) + bt_nz, list(init) + t_init,
                     new_cond, new_body)
    it = iter(res[nk:])
    return res[:nk], [next(it) if m else None for m in k_nz]


while_p.jvp = _while_jvp


def _while_vjp(ct, ans, *primals, **params):
    raise ValueError(
        "Reverse-mode differentiation does not work for lax.while_loop or lax.fori_loop "
        "with dynamic start/stop values. Try using lax.scan, or lax.fori_loop with "
        "constant trip count.")


while_p.vjp = AllArgsVJP(_while_vjp)


def _while_batch(args, bdims, *, cond_jaxpr, body_jaxpr, cond_nconsts, body_nconsts):
    nc, nb = cond_nconsts, body_nconsts
    size = _batch_size(args, bdims)
    cc, bc, init = _split3(args, nc, nb)
    cd, bd, kd = _split3(bdims, nc, nb)
    c_b = [d is not None for d in cd]
    b_b = [d is not None for d in bd]
    k_b = [d is not None for d in kd]
    k_b = _fixpoint(lambda m: _depends(body_jaxpr.jaxpr, b_b + m), k_b)
    pred_b = _depends(cond_jaxpr.jaxpr, c_b + k_b)[0]
    if pred_b:
        k_b = [True] * len(init)
    cc = [_to_front(a, d, size, False) for a, d in zip(cc, cd)]
    bc = [_to_front(a, d, size, False) for a, d in zip(bc, bd)]
    init = [_to_front(a, d, size, b) for a, d, b in zip(init, kd, k_b)]

    def batched(avals, mask):
        return [ShapedArray((size,) + tuple(a.shape), a.dtype) if m else a
                for a, m in zip(avals, mask)]

    ax = lambda mask: [0 if m else None for m in mask]  # noqa: E731
    cc_avals = batched(cond_jaxpr.in_avals[:nc], c_b)
    bc_avals = batched(body_jaxpr.in_avals[:nb], b_b)
    k_avals = batched(body_jaxpr.out_avals, k_b)
    cw = [w and not m for w, m in zip(_weak(cond_jaxpr), c_b + k_b)]
    bw = [w and not m for w, m in zip(_weak(body_jaxpr), b_b + k_b)]
    cond_f = _batch_fun(cond_jaxpr, ax(c_b + k_b), [pred_b], size)
    body_f = _batch_fun(body_jaxpr, ax(b_b + k_b), k_b, size)
    if not pred_b:
        new_cond, hc = stage_flat(cond_f, cc_avals + k_avals, cw)
        new_body, hb = stage_flat(body_f, bc_avals + k_avals, bw)
        outs = while_bind(hc + cc, hb + bc, init, new_cond, new_body)
        return outs, ax(k_b)
    # a batched predicate: run while any example runs; finished ones keep their carry
    ncc = len(cc)

    def cond_any(*a):
        return [ops.reduce_any(cond_f(*a)[0], (0,))]

    def body_sel(*a):
        ccs, bcs, k = a[:ncc], a[ncc:ncc + nb], list(a[ncc + nb:])
        p = cond_f(*ccs, *k)[0]
        new = body_f(*bcs, *k)
        out = []
        for n_, o in zip(new, k):
            s = tuple(aval_of(o).shape)
            pb = ops.broadcast_to(ops.reshape(p, (size,) + (1,) * (len(s) - 1)), s)
            out.append(ops.select(pb, n_, o))
        return out

    new_cond, hc = stage_flat(cond_any, cc_avals + k_avals, cw)
    new_body, hb = stage_flat(body_sel, cc_avals + bc_avals + k_avals, cw[:nc] + bw)
    outs = while_bind(hc + cc, hb + cc + bc, init, new_cond, new_body)
    return outs, [0] * len(outs)


while_p.batch = _while_batch
