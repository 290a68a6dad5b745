"""Numba code generation for structured control flow: ``scan``, ``cond``, ``while``.

The three ``emit_*`` functions are the :class:`~tracegrad.primitives.lowering.ArrayOp`
emitters of the control-flow primitives of :mod:`tracegrad.transforms.control_flow`
(wired there as ``scan_p.lowering = ArrayOp(emit_scan)`` ...).  Each writes
Python statements into the whole-program Numba function that
:mod:`tracegrad.transforms.codegen` generates, with the code of its sub-IRs
emitted in place by :meth:`EmitContext.lower_jaxpr
<tracegrad.transforms.codegen.EmitContext.lower_jaxpr>` (so a body's
elementwise equations fuse into loop nests as at the top level)::

    h = h0                                 # scan: the carries start as the init
    ys = np.empty((100, 32, 64), np.float64)
    for k_1 in range(100):                 # reverse: range(99, -1, -1)
        x_2 = xs[k_1]                      # a view of one slice (1-D xs: a 0-d view)
        ...the body's statements...
        ys[k_1] = v_7                      # stacked outputs, written in place
        h, = v_7,                          # all carries rebound at once

    if i[()] == 0:                         # cond: one arm per branch
        ...branch 0...
        out = v_3
    else:
        ...
        out = v_9

    while True:                            # while
        ...cond's statements...
        if not v_4[()]:
            break
        ...body's statements...
        c, = v_6,

Typing
------
Every value is an array, never a Numba scalar: a loop-carried variable keeps
one Numba type (a 0-d carry is a 0-d array in every iteration, a literal
init or result is first written into a new 0-d array), and the avals of the
primitives fix dtype and rank.  Carries are rebound, never written into, so
a body returning one of its inputs (another carry, a constant, the slice of
``xs``) needs no copy: all carries are rebound by one tuple assignment,
after the step's ``ys`` are written, so a swap or a ``y`` that is an old
carry reads the old values.  (Numba unifies a read-only input array with a
fresh one as read-only, so a carry initialised from a read-only argument
types too.)  ``ys`` are preallocated and written slice by slice.

Declining
---------
An emitter returns None, so the equation runs its impl from the driver
(:func:`tracegrad.transforms.codegen.compile_program` splits the program
there), when some live equation of a sub-IR has no lowering that accepts it
(:meth:`EmitContext.can_lower`): an impl cannot run inside compiled code.
"""
import numpy as np

from ..interpreters.staging import ClosedJaxpr, Jaxpr, Literal
from ..primitives.lowering import ArrayOp
from .codegen import live_eqns

__all__ = ["emit_scan", "emit_cond", "emit_while"]


def _split_invariant(jaxpr, n_fixed):
    """``(pre, rest)``: the loop-invariant array statements of a loop body
    ``jaxpr`` (whose first ``n_fixed`` invars are the loop's constants) and
    what they need, as a Jaxpr run once before the loop, and the rest of the
    body, taking ``pre``'s results as extra trailing invars.  ``pre`` is None
    when nothing is hoisted.

    Only array statements (a transposed weight matrix, a product of
    constants) and the equations feeding them move: a loop-invariant
    elementwise equation stays fused in the body's loop nest.
    """
    eqns = live_eqns(jaxpr)
    invariant = set(jaxpr.constvars) | set(jaxpr.invars[:n_fixed])
    inv_eqns = []
    for eqn in eqns:
        if all(type(a) is Literal or a in invariant for a in eqn.invars):
            invariant.update(eqn.outvars)
            inv_eqns.append(eqn)
    producer = {v: eqn for eqn in inv_eqns for v in eqn.outvars}
    hoist = set()
    stack = [eqn for eqn in inv_eqns if isinstance(eqn.primitive.lowering, ArrayOp)]
    while stack:
        eqn = stack.pop()
        if id(eqn) in hoist:
            continue
        hoist.add(id(eqn))
        stack.extend(producer[a] for a in eqn.invars if type(a) is not Literal and a in producer)
    if not hoist:
        return None, jaxpr
    pre_eqns = [eqn for eqn in eqns if id(eqn) in hoist]
    rest_eqns = [eqn for eqn in eqns if id(eqn) not in hoist]
    made = {v for eqn in pre_eqns for v in eqn.outvars}
    used = {a for eqn in rest_eqns for a in eqn.invars if type(a) is not Literal}
    used.update(a for a in jaxpr.outvars if type(a) is not Literal)
    outs = [v for eqn in pre_eqns for v in eqn.outvars if v in used and v in made]
    pre = Jaxpr(jaxpr.constvars, jaxpr.invars[:n_fixed], pre_eqns, outs)
    rest = Jaxpr(jaxpr.constvars, list(jaxpr.invars) + outs, rest_eqns, jaxpr.outvars)
    return pre, rest


def _lower_loop_body(ctx, lines, closed, n_fixed, operands):
    """``lower_jaxpr`` of a loop body: its invariant array statements go to
    ``lines`` (before the loop); returns the loop's lines and output names."""
    consts = _sub_consts(ctx, closed)
    pre, rest = _split_invariant(closed.jaxpr, n_fixed)
    extra = []
    if pre is not None:
        pre_lines, extra = ctx.lower_jaxpr(pre, consts, operands[:n_fixed])
        lines.extend(pre_lines)
    return ctx.lower_jaxpr(rest, consts, list(operands) + list(extra))


def _sub_consts(ctx, closed):
    """Names of a sub-IR's own constants (module globals of the generated code)."""
    return [ctx.constant(np.asarray(c), "C") for c in closed.consts]


def _as_array(ctx, lines, a, src, aval):
    """The name of an array holding operand ``a`` (source ``src``) of the
    sub-IR input ``aval``: a literal is written into a new array, an operand
    of another dtype (a weakly typed one) converted."""
    dt = np.dtype(aval.dtype)
    if type(a) is Literal:
        name = ctx.fresh("lit")
        lines.append(f"{name} = np.empty((), {ctx.dtype(dt)})")
        lines.append(f"{name}[()] = {src}")
        return name
    if np.dtype(a.aval.dtype) != dt:
        name = ctx.fresh("cast")
        lines.append(f"{name} = {src}.astype({ctx.dtype(dt)})")
        return name
    return src


def _results(ctx, lines, jaxpr, outs, out_vars, indent=""):
    """Names of the sub-IR's results ``outs`` (from ``lower_jaxpr``) as arrays:
    a literal result goes into a new 0-d array of the dtype of the matching
    equation output in ``out_vars``, so a variable bound to it keeps its
    array type."""
    names = []
    for a, src, v in zip(jaxpr.outvars, outs, out_vars):
        if type(a) is Literal:
            name = ctx.fresh("lit")
            lines.append(f"{indent}{name} = np.empty((), {ctx.dtype(v.aval.dtype)})")
            lines.append(f"{indent}{name}[()] = {src}")
            src = name
        names.append(src)
    return names


def _rebind(targets, values, indent):
    """One simultaneous assignment ``targets = values`` (no line if all equal)."""
    pairs = [(t, v) for t, v in zip(targets, values) if t != v]
    if not pairs:
        return []
    lhs = ", ".join(t for t, _ in pairs) + ","
    rhs = ", ".join(v for _, v in pairs) + ","
    return [f"{indent}{lhs} = {rhs}"]


def _write_slice(ctx, before, ys, k, src, shape):
    """Lines (in the loop) writing the array ``src`` into ``ys[k]``, element
    by element: Numba's array-to-slice assignment compiles a shape-mismatch
    error message (string formatting: measured 8 s of compile time)."""
    size = _size(shape[1:])
    if len(shape) == 1:
        return [f"{ys}[{k}] = {src}[()]"]
    flat = ys
    if len(shape) > 2:
        flat = ctx.fresh(f"{ys}_rows")
        before.append(f"{flat} = {ys}.reshape(({shape[0]}, {size}))")
    i = ctx.fresh("j")
    row = src if len(shape) == 2 else f"{src}.reshape({size})"
    if len(shape) > 2:
        r = ctx.fresh("row")
        return [f"{r} = {row}", f"for {i} in range({size}):", f"    {flat}[{k}, {i}] = {r}[{i}]"]
    return [f"for {i} in range({size}):", f"    {flat}[{k}, {i}] = {row}[{i}]"]


def _size(shape):
    return int(np.prod(shape, dtype=np.int64))


def _named(ctx, outputs):
    """``outputs`` with a fresh name for each unread result (None): a loop
    carry or a branch result is computed even when nothing reads it."""
    return [o if o is not None else ctx.fresh("unread") for o in outputs]


def _indented(lines, indent="    "):
    return [indent + ln for ln in lines] or [indent + "pass"]


def emit_scan(ctx, eqn, operands, outputs):
    """Lines of a ``scan`` equation: one ``for`` loop over the body's code.

    Parameters
    ----------
    ctx : EmitContext
    eqn : JaxprEqn
        ``scan[jaxpr, num_consts, num_carry, length, reverse](*consts,
        *init, *xs)`` with outputs ``(*final_carry, *stacked_ys)``.
    operands, outputs : list of str
        Names of the operands (arrays, or a literal's source) and results.

    Returns
    -------
    list of str or None
        None when the body has an equation without a lowering.
    """
    p = eqn.params
    closed = p["jaxpr"]
    body = closed.jaxpr
    nc, ncar, length = p["num_consts"], p["num_carry"], int(p["length"])
    if not ctx.can_lower(body):
        return None
    lines = []
    ins = [_as_array(ctx, lines, a, src, v.aval) if i < nc + ncar else src
           for i, (a, src, v) in enumerate(zip(eqn.invars, operands, body.invars))]
    consts, init, xs = ins[:nc], ins[nc:nc + ncar], ins[nc + ncar:]
    carry = outputs[:ncar]
    keep = [j for j, y in enumerate(outputs[ncar:]) if y is not None]  # ys someone reads
    if len(keep) < len(outputs) - ncar:  # the body computes only what is read
        body = Jaxpr(body.constvars, body.invars, body.eqns,
                     body.outvars[:ncar] + [body.outvars[ncar + j] for j in keep])
        closed = ClosedJaxpr(body, closed.consts)
    ys = [outputs[ncar + j] for j in keep]
    y_vars = [eqn.outvars[ncar + j] for j in keep]
    carry = _named(ctx, carry)
    lines.extend(_rebind(carry, init, ""))
    for y, v in zip(ys, y_vars):
        lines.append(f"{y} = np.empty({tuple(v.aval.shape)!r}, {ctx.dtype(v.aval.dtype)})")
    k = ctx.fresh("k")
    steps = f"range({length - 1}, -1, -1)" if p["reverse"] else f"range({length})"
    loop = []
    slices = []
    for x, a in zip(xs, eqn.invars[nc + ncar:]):
        s = ctx.fresh("x")
        if len(a.aval.shape) == 1:  # a 0-d view, so the body reads it as any 0-d array
            loop.append(f"{s} = {x}[{k}:{k} + 1].reshape(())")
        else:
            loop.append(f"{s} = {x}[{k}]")
        slices.append(s)
    blines, outs = _lower_loop_body(ctx, lines, closed, nc, consts + carry + slices)
    loop.extend(blines)
    outs = _results(ctx, loop, body, outs, eqn.outvars[:ncar] + y_vars)
    for y, src, v in zip(ys, outs[ncar:], y_vars):
        loop.extend(_write_slice(ctx, lines, y, k, src, v.aval.shape))
    loop.extend(_rebind(carry, outs[:ncar], ""))
    lines.append(f"for {k} in {steps}:  # scan body, {length} steps")
    lines.extend(_indented(loop))
    return lines


def emit_cond(ctx, eqn, operands, outputs):
    """Lines of a ``cond`` equation: an ``if``/``elif``/``else`` chain on the index.

    ``cond[branches](index, *operands)``: ``index`` is an int32 scalar
    already in ``range(len(branches))`` (the last branch is the ``else``);
    each branch maps the operands to the outputs.  Returns None when a
    branch has an equation without a lowering.
    """
    branches = eqn.params["branches"]
    outputs = _named(ctx, outputs)
    if not all(ctx.can_lower(b.jaxpr) for b in branches):
        return None
    lines = []
    index, ops = eqn.invars[0], operands[1:]
    first = branches[0].jaxpr
    ops = [_as_array(ctx, lines, a, src, v.aval)
           for a, src, v in zip(eqn.invars[1:], ops, first.invars)]

    def arm(closed, indent):
        blines, outs = ctx.lower_jaxpr(closed.jaxpr, _sub_consts(ctx, closed), ops)
        body = [indent + ln for ln in blines]
        outs = _results(ctx, body, closed.jaxpr, outs, eqn.outvars, indent)
        body.extend(_rebind(outputs, outs, indent))
        return body or [indent + "pass"]

    if type(index) is Literal or len(branches) == 1:
        which = 0 if len(branches) == 1 else int(index.val)
        lines.extend(arm(branches[which], ""))
        return lines
    i = operands[0]
    for j, closed in enumerate(branches):
        if j == 0:
            lines.append(f"if {i}[()] == {j}:")
        elif j < len(branches) - 1:
            lines.append(f"elif {i}[()] == {j}:  # branch {j}")
        else:
            lines.append(f"else:  # branch {j}")
        lines.extend(arm(closed, "    "))
    return lines


def emit_while(ctx, eqn, operands, outputs):
    """Lines of a ``while`` equation: ``while True:`` over the predicate's code,
    a ``break`` when it is false, then the body's code.

    ``while[cond_jaxpr, body_jaxpr, cond_nconsts, body_nconsts](*cond_consts,
    *body_consts, *init)`` -> the final carry.  Returns None when the
    predicate or the body has an equation without a lowering.
    """
    p = eqn.params
    cj, bj = p["cond_jaxpr"], p["body_jaxpr"]
    cn, bn = p["cond_nconsts"], p["body_nconsts"]
    if not (ctx.can_lower(cj.jaxpr) and ctx.can_lower(bj.jaxpr)):
        return None
    lines = []
    in_avals = [v.aval for v in cj.jaxpr.invars[:cn]] + [v.aval for v in bj.jaxpr.invars]
    ins = [_as_array(ctx, lines, a, src, aval)
           for a, src, aval in zip(eqn.invars, operands, in_avals)]
    cconsts, bconsts, init = ins[:cn], ins[cn:cn + bn], ins[cn + bn:]
    carry = _named(ctx, outputs)
    lines.extend(_rebind(carry, init, ""))
    loop, (pred,) = ctx.lower_jaxpr(cj.jaxpr, _sub_consts(ctx, cj), cconsts + carry)
    loop = list(loop)
    test = pred if type(cj.jaxpr.outvars[0]) is Literal else f"{pred}[()]"
    loop.append(f"if not {test}:")
    loop.append("    break")
    blines, outs = _lower_loop_body(ctx, lines, bj, bn, bconsts + carry)
    loop.extend(blines)
    outs = _results(ctx, loop, bj.jaxpr, outs, eqn.outvars)
    loop.extend(_rebind(carry, outs, ""))
    lines.append("while True:  # while loop")
    lines.extend(_indented(loop))
    return lines
