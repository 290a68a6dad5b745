"""Reverse mode: the VJP interpreter and the backward pass.

During the forward pass a :class:`VJPTracer` carries its ``primal`` and the
:class:`VJPNode` that produced it.  A node records the primitive, its static
params, its input primals, its output (``ans``) and, for each input that is a
tracer of this trace, the parent node.  Values that do not depend on the
inputs are never wrapped.

:func:`backward_pass` walks the graph iteratively in reverse creation order
(every node is created after its parents, so decreasing sequence numbers is a
topological order): a heap holds the nodes that have received a cotangent, the
newest is popped, its cotangent is removed from the table (freed as soon as it
is consumed) and pushed through the primitive's per-argument VJP rules.
Cotangents arriving at the same node are summed; from the third one on, in
place into the sum this pass allocated for the second (an array nothing
else has seen).  Each
returned cotangent is checked against its primal's shape and dtype.  There is
no recursion, so chains of any length work.

Both passes are the per-operation hot path of reverse mode, so they are
written for the common case: a unary or binary application under the eval
trace is unrolled and runs the primitive's impl directly (what the eval trace
would do, one call less); rules of unary and binary primitives are called
with their operands unpacked; the rules of broadcasting primitives are called
as written, and :func:`~tracegrad.primitives.structural.unbroadcast` runs only
where a cotangent's shape or dtype differs from its primal's (then the check
is repeated, so a wrong rule still raises).

The rules are called with whatever trace is current when the backward pass
runs; being written with primitives, they are themselves traced by enclosing
transforms, which gives higher-order derivatives.
"""
import heapq
import itertools

import numpy as np

from ..primitives import ops
from ..primitives.structural import BroadcastingRules, unbroadcast
from ..core import ArrayTracer, EvalTrace, Trace, Tracer, set_trace

__all__ = ["VJPTrace", "VJPTracer", "VJPNode", "GraphFreedError", "backward_pass"]

# Creation order of nodes (VJPNode.seq); a front end that fills a node's slots
# itself (the PyTorch layer's hot path) numbers it from here too.
node_sequence = itertools.count()


class VJPNode:
    """One recorded primitive application (or, with ``prim=None``, an input).

    Attributes
    ----------
    prim : Primitive or None
    params : dict
        Static parameters of the application.
    primals : list
        Input values (arrays, scalars, or tracers of enclosing traces).
    ans : array or list of arrays
        The output(s).
    parents : tuple of (int, VJPNode, int)
        ``(argument index, node, output index of that node)`` for every input
        that depends on the differentiated inputs.
    seq : int
        Creation order; used for the topological order of the backward pass.
    meta : object or None
        Free for a front end that records these nodes itself (the PyTorch
        layer keeps hooks and names here); the engine never reads it.
    """

    __slots__ = ("prim", "params", "primals", "ans", "parents", "seq", "meta", "__weakref__")

    def __init__(self, prim, params, primals, ans, parents, meta=None):
        self.prim = prim
        self.params = params
        self.primals = primals
        self.ans = ans
        self.parents = parents
        self.seq = next(node_sequence)
        self.meta = meta

    def __lt__(self, other):  # heap tie-break; sequence numbers are unique
        return self.seq < other.seq


class VJPTracer(ArrayTracer):
    """A value in reverse mode: ``primal`` plus the node that produced it."""

    __slots__ = ("primal", "node", "out_index")

    def __init__(self, trace, primal, node, out_index=0):
        self._trace = trace
        self.primal = primal
        self.node = node
        self.out_index = out_index


class VJPTrace(Trace):
    """Reverse-mode interpreter: records a graph of :class:`VJPNode`."""

    __slots__ = ()

    def new_arg(self, primal):
        return VJPTracer(self, primal, VJPNode(None, None, None, primal, ()))

    def process_primitive(self, prim, args, params):
        # The hot path of reverse mode.  A unary or binary application to this
        # trace's tracers (holding plain values) and plain values, under the
        # eval trace, is unrolled and runs the impl itself (what the eval
        # trace would do, one call less); anything else takes the general loop.
        parents = None
        if type(self.parent) is EvalTrace:
            n = len(args)
            if n == 2:
                a, b = args
                if type(a) is VJPTracer and a._trace is self:
                    pa = a.primal
                    if type(b) is VJPTracer and b._trace is self:
                        pb = b.primal
                        parents = ((0, a.node, a.out_index), (1, b.node, b.out_index))
                    elif not isinstance(b, Tracer):
                        pb = b
                        parents = ((0, a.node, a.out_index),)
                elif type(b) is VJPTracer and b._trace is self and not isinstance(a, Tracer):
                    pa = a
                    pb = b.primal
                    parents = ((1, b.node, b.out_index),)
                if parents is not None:
                    if isinstance(pa, Tracer) or isinstance(pb, Tracer):
                        parents = None
                    else:
                        primals = [pa, pb]
                        out = prim.impl(pa, pb, **params) if params else prim.impl(pa, pb)
            elif n == 1:
                a = args[0]
                if type(a) is VJPTracer and a._trace is self:
                    pa = a.primal
                    if not isinstance(pa, Tracer):
                        parents = ((0, a.node, a.out_index),)
                        primals = [pa]
                        out = prim.impl(pa, **params) if params else prim.impl(pa)
        if parents is None:  # the general case: one pass over the arguments
            parents = ()
            nested = False  # a primal is a tracer (of an enclosing or eager trace)
            i = 0
            for a in args:
                if type(a) is VJPTracer and a._trace is self:
                    if not parents:
                        primals = list(args)
                    parents += ((i, a.node, a.out_index),)
                    primals[i] = p = a.primal
                    if isinstance(p, Tracer):
                        nested = True
                elif isinstance(a, Tracer):
                    if not a._trace.alive:
                        raise self.leaked(a)
                    nested = True
                i += 1
            parent = self.parent
            if not parents:
                return parent.process_primitive(prim, args, params)
            if prim.vjp_fwd is not None and prim.differentiable:
                # the forward pass that also keeps what the rule needs (one
                # forward pass, not a second one in the backward pass)
                with set_trace(parent):
                    out, residuals = prim.vjp_fwd(primals, **params)
                params = dict(params, residuals=residuals)
            elif nested or type(parent) is not EvalTrace:
                out = parent.process_primitive(prim, primals, params)
            else:
                out = prim.impl(*primals, **params) if params else prim.impl(*primals)
        if not prim.differentiable:
            return out
        if prim.vjp is None:
            raise NotImplementedError(
                f"Reverse-mode differentiation of primitive '{prim.name}' is "
                "not implemented (it has no VJP rule)."
            )
        if prim.multiple_results:
            return self._wrap_results(prim, VJPNode(prim, params, primals, out, parents), out)
        if out.dtype.kind not in "fc":
            return out
        return VJPTracer(self, out, VJPNode(prim, params, primals, out, parents), 0)

    def _wrap_results(self, prim, node, out):
        """Tracers for the float results of a multiple-result primitive."""
        return [
            VJPTracer(self, o, node, k) if _traced_dtype(prim, o) else o
            for k, o in enumerate(out)
        ]


def _traced_dtype(prim, x):
    """True for a float or complex result; integer/bool results carry no derivative."""
    return x.dtype.kind in "fc"


def _accumulate(cts, owned, heap, node, k, ct):
    """Add ``ct`` to output ``k`` of ``node``; queue the node on its first cotangent."""
    prim = node.prim
    if prim is not None and prim.multiple_results:
        slot = cts.get(node)
        if slot is None:
            slot = cts[node] = [None] * len(node.ans)
            heapq.heappush(heap, (-node.seq, node))
        slot[k] = ct if slot[k] is None else ops.add(slot[k], ct)
        return
    old = cts.get(node)
    if old is None:
        cts[node] = ct
        if prim is not None:
            heapq.heappush(heap, (-node.seq, node))
    else:
        _add_to(cts, owned, node, old, ct)


def _add_to(cts, owned, node, old, ct):
    """Sum a further cotangent ``ct`` into ``node``'s running total ``old``."""
    if node in owned and isinstance(ct, (np.ndarray, np.generic)):
        # ``old`` is a sum this pass allocated and nothing else has seen:
        # add in place (no allocation, a third less memory traffic).
        np.add(old, ct, out=old)
    else:
        new = ops.add(old, ct)
        cts[node] = new
        if type(new) is np.ndarray and new.flags.writeable and new.shape == old.shape:
            owned.add(node)  # a fresh array, held only by this table


class GraphFreedError(RuntimeError):
    """A backward pass reached a node whose saved values were released."""


def backward_pass(outputs, prepare=None, release=None, check=None):
    """Propagate cotangents from outputs back to the input nodes.

    Parameters
    ----------
    outputs : iterable of (VJPNode, int, array)
        Output node, output index and the cotangent for that output.
    prepare : callable, optional
        ``prepare(node, ct) -> (ct, primals, ans)`` is called with each
        node's total cotangent just before its rules run, and returns the
        cotangent to use (a front end runs its hooks here) and the values
        handed to the rules (a front end whose nodes save its own array type
        converts here, and may check that saved values were not modified
        since; ``primals`` None means the node was released).  Default: the
        cotangent as summed, ``node.primals`` and ``node.ans`` as recorded.
        One call per node: the engine's per-node overhead is the PyTorch
        layer's backward speed.
    release : callable, optional
        ``release(node) -> bool``: after a node's rules ran, if this returns
        True the node's saved values are dropped (``primals`` and ``ans``
        become None); reaching such a node again raises
        :class:`GraphFreedError`.
    check : callable, optional
        ``check(node, i, c)`` on every cotangent ``c`` a node's rule returns
        for its argument ``i`` (a front end's debugging mode: the PyTorch
        layer's anomaly detection looks for NaN here).

    Returns
    -------
    dict
        Maps each reached input node (``prim is None``) to its cotangent.
        Unreached inputs are absent: their cotangent is a symbolic zero.
    """
    cts = {}
    owned = set()  # nodes whose running sum this pass allocated (mutable)
    heap = []
    for node, k, ct in outputs:
        _accumulate(cts, owned, heap, node, k, ct)
    heappop, heappush = heapq.heappop, heapq.heappush
    while heap:
        node = heappop(heap)[1]
        ct = cts.pop(node)
        if owned:
            owned.discard(node)  # once handed to rules, the array may be shared
        if prepare is None:
            primals, ans = node.primals, node.ans
        else:
            ct, primals, ans = prepare(node, ct)
        prim = node.prim
        rules = prim.vjp
        broadcasting = type(rules) is BroadcastingRules
        if broadcasting:  # call the rules as written; unbroadcast below if needed
            rules = rules.unwrapped
        if primals is None:
            raise GraphFreedError(
                "Trying to backward through the graph a second time (or directly "
                "access saved tensors after they have already been freed). Saved "
                "intermediate values of the graph are freed when you call .backward() "
                "or autograd.grad(). Specify retain_graph=True if you need to backward "
                "through the graph a second time or if you need to access saved "
                "tensors after calling backward."
            )
        params = node.params
        n = 0 if params else len(primals)  # unary and binary rules get their operands unpacked
        for i, parent, k in node.parents:
            rule = rules[i]
            if rule is None:
                continue
            if n == 2:
                c = rule(ct, ans, primals[0], primals[1])
            elif n == 1:
                c = rule(ct, ans, primals[0])
            else:
                c = rule(ct, ans, *primals, **params)
            if c is None:
                continue
            p = primals[i]
            if c.shape != p.shape or c.dtype != p.dtype:
                if broadcasting:
                    c = unbroadcast(c, p)
                if c.shape != p.shape or c.dtype != p.dtype:
                    raise AssertionError(
                        f"VJP rule of primitive '{prim.name}' for argument {i} returned "
                        f"a cotangent of shape {np.shape(c)} and dtype {c.dtype}; the "
                        f"argument has shape {np.shape(p)} and dtype {p.dtype}."
                    )
            if check is not None:
                check(node, i, c)
            # _accumulate, inlined for the common single-result parent
            pprim = parent.prim
            if pprim is not None and pprim.multiple_results:
                _accumulate(cts, owned, heap, parent, k, c)
                continue
            old = cts.get(parent)
            if old is None:
                cts[parent] = c
                if pprim is not None:
                    heappush(heap, (-parent.seq, parent))
            else:
                _add_to(cts, owned, parent, old, c)
        if release is not None and release(node):
            node.primals = node.ans = None
        del ct
    return cts
