"""Forward mode: the JVP interpreter.

A :class:`JVPTracer` carries a ``primal`` (the value one level down) and a
``tangent`` of the same shape and dtype.  A value with a zero tangent is not
wrapped at all: plain arrays and outer tracers are the symbolic zeros of this
interpreter, so untouched inputs cost nothing.

``process_primitive`` is op-agnostic: it unwraps this trace's tracers, then
runs the primitive's ``jvp`` rule with the parent trace current, so the
rule's own primitive calls are processed one level down (which is what makes
forward-over-anything nest).
"""
import numpy as np

from ..core import ArrayTracer, Trace, Tracer, _ctx

__all__ = ["JVPTrace", "JVPTracer", "split_jvp"]


class JVPTracer(ArrayTracer):
    """A value in forward mode: ``primal`` with ``tangent`` (same aval)."""

    __slots__ = ("primal", "tangent")

    def __init__(self, trace, primal, tangent):
        self._trace = trace
        self.primal = primal
        self.tangent = tangent


class JVPTrace(Trace):
    """Forward-mode interpreter; see the module docstring."""

    __slots__ = ()

    def new_arg(self, primal, tangent):
        return JVPTracer(self, primal, tangent)

    def process_primitive(self, prim, args, params):
        primals = list(args)
        tangents = [None] * len(args)
        any_tangent = False
        for i, a in enumerate(args):
            if type(a) is JVPTracer and a._trace is self:
                primals[i] = a.primal
                tangents[i] = a.tangent
                any_tangent = True
            elif isinstance(a, Tracer) and not a._trace.alive:
                raise self.leaked(a)
        parent = self.parent
        if not any_tangent or not prim.differentiable:
            return parent.process_primitive(prim, primals, params)
        if prim.jvp is None:
            raise NotImplementedError(
                f"Forward-mode differentiation of primitive '{prim.name}' is "
                "not implemented (it has no JVP rule)."
            )
        prev = _ctx.trace
        _ctx.trace = parent
        try:
            out, tangent_out = prim.jvp(primals, tangents, **params)
        finally:
            _ctx.trace = prev
        if prim.multiple_results:
            return [
                o if t is None else self._wrap(prim, o, t)
                for o, t in zip(out, tangent_out)
            ]
        if tangent_out is None:
            return out
        return self._wrap(prim, out, tangent_out)

    def _wrap(self, prim, primal, tangent):
        if np.shape(primal) != np.shape(tangent) or _dtype(primal) != _dtype(tangent):
            raise AssertionError(
                f"JVP rule of primitive '{prim.name}' returned a tangent of shape "
                f"{np.shape(tangent)} and dtype {_dtype(tangent)} for an output of "
                f"shape {np.shape(primal)} and dtype {_dtype(primal)}."
            )
        if _dtype(primal).kind not in "fc":
            return primal
        return JVPTracer(self, primal, tangent)


def _dtype(x):
    return x.dtype if hasattr(x, "dtype") else np.asarray(x).dtype


def split_jvp(trace, values):
    """The primals and tangents of ``values`` computed under ``trace``.

    A :class:`JVPTracer` of ``trace`` gives its primal and tangent; anything
    else (a constant, an outer tracer) is its own primal with tangent None,
    this interpreter's symbolic zero, which each caller materializes (or not)
    as it needs.

    Returns
    -------
    (list, list)
    """
    primals, tangents = [], []
    for v in values:
        if type(v) is JVPTracer and v._trace is trace:
            primals.append(v.primal)
            tangents.append(v.tangent)
        else:
            primals.append(v)
            tangents.append(None)
    return primals, tangents
