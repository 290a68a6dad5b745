"""``linearize`` and ``linear_transpose`` (JAX's signatures), on the staged IR.

:func:`linearize` runs the forward-mode interpreter with concrete primals
and *staged* tangents over a partial-evaluation trace
(:class:`_PartialEvalTrace`): an operation whose inputs are all known
(primals, residuals, constants) is computed at once, one whose inputs
include a staged tangent becomes an equation of the IR.  The primal
computation therefore runs once, at ``linearize`` time; the IR holds only
tangent equations, with the residuals it needs as its constants, and
``f_jvp`` evaluates that IR.

:func:`linear_transpose` stages ``fun`` on abstract inputs, checks on the
IR that every equation touching an input-dependent value is linear in it
(its JVP rule, staged, must not read the primal of that value; a constant
offset is found by evaluating the IR at zero), and transposes it with the
reverse-mode rules (one recorded pass at zero inputs, reused by every call).
"""
import numpy as np

from ..core import Tracer, new_trace
from ..interpreters.jvp import JVPTrace, split_jvp
from ..interpreters.staging import (ClosedJaxpr, Literal, StagingTrace, StagingTracer,
                                    _type_str, aval_of, check_jaxpr, eval_jaxpr)
from ..errors import ConcretizationTypeError
from ..tree_util import tree_flatten, tree_unflatten
from .api import vjp
from .staging import _leaf_aval, _stage

__all__ = ["linearize", "linear_transpose"]


class _PartialEvalTrace(StagingTrace):
    """Staging that folds known values: a primitive none of whose inputs is
    a tracer of this trace runs at once one level down (on the parent
    trace); the others are staged as equations."""

    __slots__ = ()

    def process_primitive(self, prim, args, params):
        for a in args:
            if isinstance(a, StagingTracer) and a._trace is self:
                return super().process_primitive(prim, args, params)
        return self.parent.process_primitive(prim, args, params)


def _is_inexact_dtype(dtype):
    return np.dtype(dtype).kind in "fc"


def _check_tangents(tangents, avals, tree, name):
    flat, t_tree = tree_flatten(tangents)
    if t_tree != tree:
        raise TypeError(
            f"{name}: the tangents have structure {t_tree}, but the primals have structure "
            f"{tree}; pass one tangent per primal leaf, shaped like it.")
    out = []
    for k, (t, a) in enumerate(zip(flat, avals)):
        if not isinstance(t, (np.ndarray, np.generic, Tracer)):
            t = np.asarray(t, dtype=a.dtype)
        shape, dtype = tuple(t.shape), np.dtype(t.dtype)
        if shape != tuple(a.shape) or dtype != np.dtype(a.dtype):
            raise TypeError(
                f"{name}: tangent {k} has type {_type_str((shape, dtype))}, but its primal "
                f"has type {_type_str(a)}; a tangent must have its primal's shape and "
                f"dtype (cast with .astype({np.dtype(a.dtype).name!r}) or reshape it).")
        out.append(t)
    return out


def linearize(fun, *primals):
    """Evaluate ``fun`` and return its linearization at ``primals``.

    Parameters
    ----------
    fun : callable
        A function of ``len(primals)`` pytree arguments returning a pytree
        of arrays, written with ``tracegrad.numpy`` and the transforms.
    *primals : pytrees of arrays or Python scalars
        Where to linearize; every leaf must be floating point (or complex):
        close over integer arguments (``functools.partial``) instead.

    Returns
    -------
    primals_out : pytree
        ``fun(*primals)``.
    f_jvp : callable
        ``f_jvp(*tangents)``, with tangents structured, shaped and typed as
        ``primals``, returns the tangent of the output (structured as
        ``primals_out``): the same as ``jvp(fun, primals, tangents)[1]``.
        ``fun`` runs once, in ``linearize``; ``f_jvp`` evaluates only the
        staged tangent program (attribute ``jaxpr``, a ``ClosedJaxpr``,
        whose constants are the residuals), so it may be called many times,
        under ``jit``, ``vmap`` and the other transforms.  It evaluates its
        IR directly: ``jit(f_jvp)`` measured no faster below about 1e5
        elements (and costs a first compile), so compiling is left to the
        caller.

    Raises
    ------
    TypeError
        If ``fun`` is not callable, a primal leaf is not floating point;
        when ``f_jvp`` is called, if the tangents' structure, shapes or
        dtypes differ from the primals'.
    tracegrad.errors.ConcretizationTypeError
        If a JVP rule needs the value of a tangent.
    """
    if not callable(fun):
        raise TypeError(f"linearize: fun must be callable, got {type(fun).__name__}")
    flat, in_tree = tree_flatten(tuple(primals))
    vals = []
    for k, x in enumerate(flat):
        x = x if isinstance(x, Tracer) else np.asarray(x)
        if not _is_inexact_dtype(x.dtype):
            raise TypeError(
                f"linearize: primal leaf {k} has dtype {np.dtype(x.dtype).name}; only floating "
                "point and complex inputs can be linearized: close over integer arguments "
                "(functools.partial or a lambda) instead.")
        vals.append(x)
    avals = [_leaf_aval(x) for x in vals]
    with new_trace(_PartialEvalTrace) as pe:
        tangent_in = [pe.new_arg(a) for a in avals]
        with new_trace(JVPTrace) as jt:
            args = tree_unflatten(in_tree, [jt.new_arg(x, t) for x, t in zip(vals, tangent_in)])
            out = fun(*args)
            out_flat, out_tree = tree_flatten(out)
            primals_out, tangents_out = split_jvp(jt, out_flat)
        tangents_out = [
            np.zeros(np.shape(p), p.dtype if _is_inexact_dtype(p.dtype) else np.float64)
            if t is None else t
            for p, t in zip(primals_out, tangents_out)]
        closed = pe.to_jaxpr(tangents_out)
    check_jaxpr(closed.jaxpr)
    primals_out = [p if isinstance(p, Tracer) else np.asarray(p) for p in primals_out]

    def f_jvp(*tangents):
        t_flat = _check_tangents(tuple(tangents), avals, in_tree, "linearize's f_jvp")
        return tree_unflatten(out_tree, eval_jaxpr(closed.jaxpr, closed.consts, *t_flat))

    f_jvp.jaxpr = closed
    f_jvp.__name__ = f"linearized_{getattr(fun, '__name__', 'fun')}"
    return tree_unflatten(out_tree, primals_out), f_jvp


def _nonlinear_use(eqn, linear_mask, values):
    """Why ``eqn`` is not linear in its inputs flagged by ``linear_mask``
    (a string), or None if it is.

    The primitive is affine in those inputs when its JVP's tangent output
    does not depend on their primal values: the JVP rule is staged with
    those inputs and their tangents as IR inputs (the other operands are
    their concrete ``values``) and the dependence read off the result.
    """
    prim = eqn.primitive
    if not prim.differentiable:
        return "it is not differentiable"
    if prim.jvp is None:
        return "it has no JVP rule"
    with new_trace(StagingTrace) as st:
        primal_in = [st.new_arg(a.aval, a.weak_type) if lin else v
                     for a, lin, v in zip(eqn.invars, linear_mask, values)]
        tangent_in = [st.new_arg(a.aval) if lin else None
                      for a, lin in zip(eqn.invars, linear_mask)]
        try:
            _, t_out = prim.jvp(primal_in, tangent_in, **eqn.params)
        except ConcretizationTypeError:
            return "its JVP rule needs the value of that input"
        t_out = list(t_out) if prim.multiple_results else [t_out]
        closed = st.to_jaxpr([t for t in t_out if t is not None])
    depends = {p.var for p, lin in zip(primal_in, linear_mask) if lin}
    for e in closed.jaxpr.eqns:
        if any(not isinstance(a, Literal) and a in depends for a in e.invars):
            depends.update(e.outvars)
    if any(not isinstance(a, Literal) and a in depends for a in closed.jaxpr.outvars):
        return "its derivative depends on the value of its input"
    return None


def _linearity_error(eqn, k, why):
    ins = ", ".join(_type_str(aval_of(a.val)) if isinstance(a, Literal) else _type_str(a.aval)
                    for a in eqn.invars)
    return TypeError(
        f"linear_transpose: fun is not linear in its inputs: equation {k} applies "
        f"primitive '{eqn.primitive.name}' ({ins}) to a value that depends on the inputs, "
        f"and {why}. linear_transpose needs a linear function (sums, scaling by constants, "
        "matmul with constants, reshapes, indexing); for a non-linear function use "
        "tg.vjp, or tg.linear_transpose of the f_jvp that tg.linearize returns.")


def _check_linear(closed):
    """Raise TypeError naming the first equation that makes ``closed`` non-linear.

    Walks the IR once, evaluating it at zero inputs: a value that does not
    depend on the inputs is then exact (it is what the JVP check of an
    equation gets for its other operands), and an equation that is linear
    in its input-dependent operands but gives a non-zero result from zero
    ones adds a constant.
    """
    jaxpr = closed.jaxpr
    linear = set(jaxpr.invars)
    env = {v: c for v, c in zip(jaxpr.constvars, closed.consts)}
    for v in jaxpr.invars:
        env[v] = np.zeros(v.aval.shape, v.aval.dtype)

    def read(a):
        return a.val if isinstance(a, Literal) else env[a]

    for k, eqn in enumerate(jaxpr.eqns):
        mask = [not isinstance(a, Literal) and a in linear for a in eqn.invars]
        values = [read(a) for a in eqn.invars]
        if any(mask):
            why = _nonlinear_use(eqn, mask, values)
            if why is not None:
                raise _linearity_error(eqn, k, why)
        out = eqn.primitive.bind(*values, **eqn.params)
        out = list(out) if eqn.primitive.multiple_results else [out]
        for v, o in zip(eqn.outvars, out):
            env[v] = o
        if any(mask):
            linear.update(eqn.outvars)
            if any(np.any(np.asarray(o)) for o in out):
                raise _linearity_error(
                    eqn, k, "it adds a term that does not depend on the inputs (a constant "
                    "offset: the function is affine, not linear)")
    for a in jaxpr.outvars:
        if isinstance(a, Literal) or a not in linear:
            if np.any(np.asarray(read(a))):
                raise TypeError(
                    "linear_transpose: fun is not linear: an output does not depend on the "
                    "inputs and is not zero (a constant output).")


def linear_transpose(fun, *primals):
    """The transpose of the linear function ``fun`` (JAX's ``linear_transpose``).

    Parameters
    ----------
    fun : callable
        A function linear in its pytree arguments.
    *primals : pytrees of arrays or :class:`~tracegrad.ShapeDtypeStruct`
        Only their shapes and dtypes are read (floating point or complex).

    Returns
    -------
    f_transpose : callable
        ``f_transpose(cotangent)``, with ``cotangent`` structured, shaped
        and typed as ``fun``'s output, returns a tuple with one cotangent
        per primal: ``A^T c`` where ``fun(x) = A x``.  Attribute ``jaxpr``:
        the staged IR of ``fun``.

    Raises
    ------
    TypeError
        If a primal leaf is not floating point; if ``fun`` is not linear
        (it applies a non-linear primitive to a value that depends on its
        inputs, multiplies two such values, or adds a constant): the
        message names the primitive; when ``f_transpose`` is called, if
        the cotangent's structure or dtype differ from the output's.
    ValueError
        If a cotangent's shape differs from the output's.
    """
    if not callable(fun):
        raise TypeError(f"linear_transpose: fun must be callable, got {type(fun).__name__}")
    flat, in_tree = tree_flatten(tuple(primals))
    avals = [_leaf_aval(x) for x in flat]
    for k, a in enumerate(avals):
        if not _is_inexact_dtype(a.dtype):
            raise TypeError(
                f"linear_transpose: primal leaf {k} has dtype {np.dtype(a.dtype).name}; a "
                "linear function's inputs must be floating point or complex.")

    def flat_fun(*xs):
        return fun(*tree_unflatten(in_tree, list(xs)))

    closed, out_tree = _stage(flat_fun, tuple(avals), {}, ())
    _check_linear(closed)
    zeros = [np.zeros(a.shape, a.dtype) for a in avals]
    _, pullback = vjp(lambda *xs: eval_jaxpr(closed.jaxpr, closed.consts, *xs), *zeros)
    out_avals = closed.out_avals

    def f_transpose(cotangent):
        ct_flat, ct_tree = tree_flatten(cotangent)
        if ct_tree != out_tree:
            raise TypeError(
                f"linear_transpose's f_transpose: the cotangent has structure {ct_tree}, but "
                f"fun's output has structure {out_tree}; pass one cotangent per output leaf.")
        return tuple(tree_unflatten(in_tree, list(pullback(list(ct_flat)))))

    f_transpose.jaxpr = ClosedJaxpr(closed.jaxpr, closed.consts)
    f_transpose.out_avals = out_avals
    return f_transpose
