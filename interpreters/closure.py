"""The closure-tracing interpreter: finds the traced values a function uses
without receiving them as arguments.

A call primitive (``custom_jvp``, ``custom_vjp``, ``checkpoint``, defined in
:mod:`tracegrad.transforms`) carries a user function and runs it again later
(a custom rule during the backward pass, checkpoint's recomputation) or at
another level (under ``vmap``).  Such a function may use traced values it did
not receive: weights closed over by a checkpointed layer, a batched value of
an enclosing ``vmap``.  This module owns the closure conversion that makes
them explicit operands, discovered while the function runs:

* :class:`ClosureTrace` runs the function one level above its parent trace.
  Each closed-over tracer already known is replaced (by identity) with the
  value given for it at the current level; any other tracer that the run did
  not receive or produce raises :class:`ClosedOver`.
* :func:`bind_discovering` binds the call primitive, and on
  :class:`ClosedOver` binds it again with the reported value as an extra,
  hidden operand, until the run completes.
* :func:`visible_closure_tracers` lists the tracers visible in a function's
  closure cells and defaults up front (checkpoint passes them from the start).

Nothing here knows which call primitive it serves or what its rules do.
"""
import functools

from ..core import Trace, Tracer, new_trace
from ..tree_util import tree_flatten

__all__ = ["ClosedOver", "ClosureTrace", "run_closed", "bind_discovering",
           "visible_closure_tracers"]


class ClosedOver(TypeError):
    """A call's function used a traced value from outside (a closure).

    Caught by the call that owns the run, which binds again with the value
    as a hidden operand; if it escapes (the value was first used after the
    call was bound, e.g. only in ``bwd``), its message tells the user what
    to do.

    Parameters
    ----------
    tracer : Tracer
        The closed-over value.
    owner : object
        Identifies the call whose run found it (compared by identity).
    what : str
        The function, for the message (``"The checkpointed function"``).
    """

    def __init__(self, tracer, owner, what):
        super().__init__(
            f"{what} uses a traced value (shape {tracer.shape}, dtype {tracer.dtype}) "
            "from an enclosing transform that it did not receive as an argument and "
            "did not use when it was first called. It is run again later (checkpoint's "
            "recomputation, a custom rule during the backward pass) and must compute the "
            "same thing then; a closure over a variable that changed since (a loop "
            "variable captured by a lambda) reads the new value. Pass the value as an "
            "argument, or bind it as a default argument (lambda h, w=w: ...)."
        )
        self.tracer = tracer
        self.owner = owner


class ClosureTrace(Trace):
    """Runs a user function of a call primitive: replaces closed-over tracers
    (by identity) with the values given for them at this level, and raises
    :class:`ClosedOver` for any other tracer that the run did not receive or
    produce (also one of a finished trace: an enclosing run may map it to a
    value of its own level, once it is an operand).

    Parameters
    ----------
    parent : Trace
        The trace every primitive is passed on to.
    owner : object
        Identifies the run (carried by :class:`ClosedOver`).
    what : str
        The function, for the error message.
    subst : dict
        ``id(closed-over tracer) -> value at this level``.
    known : set
        Ids of the tracers the run received; those it produces are added.
    """

    __slots__ = ("owner", "what", "subst", "known")

    def __init__(self, parent, owner, what, subst, known):
        super().__init__(parent)
        self.owner, self.what, self.subst, self.known = owner, what, subst, known

    def process_primitive(self, prim, args, params):
        vals = list(args)
        for i, a in enumerate(args):
            if isinstance(a, Tracer):
                k = id(a)
                if k in self.subst:
                    vals[i] = self.subst[k]
                elif k not in self.known and not a._trace.eager:
                    raise ClosedOver(a, self.owner, self.what)
        out = self.parent.process_primitive(prim, vals, params)
        for o in (out if prim.multiple_results else (out,)):
            if isinstance(o, Tracer):
                self.known.add(id(o))
        return out


def run_closed(fn, args, closed, values, owner, what):
    """``fn(*args)`` under a :class:`ClosureTrace`.

    Parameters
    ----------
    fn : callable
        The user function (or a flat wrapper of it).
    args : sequence
        Its arguments (pytrees; their tracers are known to the run).
    closed : list of Tracer
        The closed-over tracers found so far.
    values : sequence
        The value of each of ``closed`` at the current level (the hidden
        operands as the running rule received them).
    owner, what
        As for :class:`ClosureTrace`.

    Returns
    -------
    object
        What ``fn`` returns.

    Raises
    ------
    ClosedOver
        When ``fn`` uses a tracer that is neither an argument, one of
        ``closed``, nor produced by the run.
    """
    known = {id(a) for a in tree_flatten(list(args))[0] if isinstance(a, Tracer)}
    subst = {id(c): v for c, v in zip(closed, values)}
    with new_trace(ClosureTrace, owner, what, subst, known):
        return fn(*args)


def bind_discovering(prim, flat, closed, owner, make_params):
    """Bind a call primitive, discovering its hidden operands.

    Parameters
    ----------
    prim : Primitive
        The call primitive.
    flat : sequence
        Its explicit operands.
    closed : list of Tracer
        Hidden operands known so far; extended in place with each
        closed-over tracer a run of the primitive's functions reports.
    owner : object
        The runs' owner: a :class:`ClosedOver` of another owner propagates.
    make_params : callable
        ``() -> dict`` of the primitive's parameters (called per attempt,
        since they may depend on ``len(closed)``).

    Returns
    -------
    object
        What ``prim.bind(*flat, *closed, **make_params())`` returns.

    Raises
    ------
    ClosedOver
        A value reported for another owner, or again for a known one.
    """
    while True:
        try:
            return prim.bind(*flat, *closed, **make_params())
        except ClosedOver as e:
            if e.owner is not owner or any(e.tracer is c for c in closed):
                raise
            closed.append(e.tracer)


def visible_closure_tracers(fun, depth=3):
    """Live tracers in ``fun``'s closure cells, defaults and partial
    arguments (and, ``depth`` levels down, in the functions found there).

    Parameters
    ----------
    fun : callable
        A function, method or ``functools.partial``.
    depth : int, optional
        How many levels of functions found in the closure to search too.

    Returns
    -------
    list of Tracer
        Each found tracer once, in order of discovery; tracers of finished
        or eager traces are left out.
    """
    found, seen = [], set()
    todo = [(fun, depth)]
    while todo:
        f, d = todo.pop()
        if id(f) in seen:
            continue
        seen.add(id(f))
        if isinstance(f, functools.partial):
            parts = [f.func, f.args, f.keywords]
        else:
            f = getattr(f, "__func__", f)
            parts = [c.cell_contents for c in (getattr(f, "__closure__", None) or ())
                     if _cell_filled(c)]
            parts += [getattr(f, "__defaults__", None), getattr(f, "__kwdefaults__", None)]
        for leaf in tree_flatten(parts)[0]:
            if isinstance(leaf, Tracer):
                if leaf._trace.alive and not leaf._trace.eager and id(leaf) not in seen:
                    seen.add(id(leaf))
                    found.append(leaf)
            elif d > 0 and callable(leaf) and not isinstance(leaf, type):
                todo.append((leaf, d - 1))
    return found


def _cell_filled(cell):
    try:
        cell.cell_contents
    except ValueError:  # an empty cell (a name assigned later)
        return False
    return True
