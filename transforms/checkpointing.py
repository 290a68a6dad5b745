"""``checkpoint`` (``remat``): reverse mode recomputes a function's
intermediates instead of storing them (rematerialization).

This module owns the call primitive ``remat_call`` and its rules, and the
public :func:`checkpoint` wrapper:

* eval runs the function;
* forward mode differentiates the function (a :func:`tracegrad.jvp` of it);
* reverse mode records one node that keeps only the inputs and outputs; its
  VJP rule runs the function again from its inputs under a fresh reverse
  pass, checks that the recomputation reproduced the forward pass's outputs
  bitwise, and pulls the cotangents back through it;
* vmap re-wraps the batched function in a new ``remat_call``.

Traced values the function closes over (a layer's weights) become hidden
operands (:mod:`tracegrad.interpreters.closure`) and are differentiated
like arguments.  The pieces shared with the custom-derivative call
primitives live in :mod:`tracegrad.transforms.call`.
"""
import functools

import numpy as np

from ..core import Primitive, concrete_value, dtype_of, is_concrete, set_trace
from ..interpreters.closure import bind_discovering, run_closed, visible_closure_tracers
from ..tree_util import tree_flatten, tree_unflatten
from .api import _jvp
from .batching import vmap
from .call import (EVAL, AllArgsVJP, as_output, batched_args, call_aval, cotangent_list,
                   resolve_args, untraced, vjp_in_floats, zeros_of)

__all__ = ["checkpoint", "remat"]

remat_call_p = Primitive("remat_call", multiple_results=True)


@remat_call_p.def_impl
def _remat_impl(*args, fun):
    with set_trace(EVAL):
        return [np.asarray(o) for o in fun(*args)]


remat_call_p.def_abstract_eval(call_aval)


def _remat_jvp(primals, tangents, *, fun):
    ts = [zeros_of(p) for p in primals]
    for i, t in enumerate(tangents):
        if t is not None:
            ts[i] = t
    outs, t_outs = _jvp(lambda *a: list(fun(*a)), list(primals), ts, False, "checkpoint")
    return list(outs), list(t_outs)


remat_call_p.jvp = _remat_jvp


def _remat_vjp(ct, ans, *primals, fun):
    outs, pull = vjp_in_floats(fun, primals, "checkpoint")
    _check_recomputed(outs, ans)
    del outs
    return pull(cotangent_list(ct, ans))


remat_call_p.vjp = AllArgsVJP(_remat_vjp)


def _check_recomputed(outs, ans):
    """The recomputation must reproduce the forward pass (bitwise: the same
    primitives on the same values); otherwise its gradient would silently
    belong to another function."""
    for k, (o, a) in enumerate(zip(outs, ans)):
        if not (is_concrete(o) and is_concrete(a)):
            continue  # per-example (vmap) or staged values: nothing to compare here
        o, a = concrete_value(o), concrete_value(a)
        if not np.array_equal(o, a, equal_nan=np.dtype(dtype_of(a)).kind in "fc"):
            raise RuntimeError(
                f"checkpoint: running the function again for the backward pass gave a "
                f"different result (output {k}) than the forward pass. The function must "
                "be deterministic and must not read Python state that changed after it was "
                "called (a loop variable captured by a lambda, a global, an attribute): "
                "pass such values as arguments, or bind them as default arguments "
                "(lambda h, w=w: ...)."
            )


def _remat_batch(args, bdims, *, fun):
    moved, axes = batched_args(args, bdims)
    outs = remat_call_p.bind(*moved, fun=vmap(lambda *a: list(fun(*a)), in_axes=axes))
    return outs, [0] * len(outs)


remat_call_p.batch = _remat_batch


def checkpoint(fun, *, prevent_cse=True, policy=None, static_argnums=()):
    """``fun``, but reverse mode recomputes its intermediates instead of
    storing them (rematerialization; ``jax.checkpoint``).

    Parameters
    ----------
    fun : callable
        Takes and returns pytrees of arrays.
    prevent_cse : bool, optional
        Accepted for JAX compatibility (tracegrad has no compiler to
        de-duplicate the recomputation).
    policy : None, optional
        Only None (save nothing but inputs and outputs) is supported.
    static_argnums : int or tuple of int, optional
        Positional arguments that are Python values, not arrays: passed to
        ``fun`` as they are, never differentiated.

    Returns
    -------
    callable
        Same values and derivatives as ``fun``.  Under ``grad``/``vjp`` only
        ``fun``'s inputs and outputs are kept from the forward pass; the
        backward pass runs ``fun`` again (one extra forward evaluation) to
        differentiate it.  ``tg.remat`` is the same function.

    Raises
    ------
    RuntimeError
        During the backward pass, if running ``fun`` again does not
        reproduce the forward pass's outputs exactly.
    TypeError
        If ``fun`` then uses a traced value it did not use the first time.

    Notes
    -----
    Trades compute for memory: a chain of checkpointed blocks keeps one
    block's intermediates alive at a time during the backward pass instead
    of all of them.

    ``fun`` may close over traced values (a layer's weights): they are
    differentiated like arguments.  Since ``fun`` (a Python function) runs
    again during the backward pass, it must compute the same thing then:
    it must be deterministic and must not read Python state that changes
    after the call, such as a loop variable captured by a lambda (bind it
    as a default argument, ``lambda h, w=w: ...``, or pass it as an
    argument).  The recomputed outputs are compared with the stored ones,
    so a violation raises instead of giving a wrong gradient.
    """

    if policy is not None:
        raise NotImplementedError(
            "tg.checkpoint supports only policy=None (keep nothing but the inputs and "
            "outputs); saving policies are not implemented.")
    static = (static_argnums,) if isinstance(static_argnums, int) else tuple(static_argnums)
    if static:
        inner = fun

        @functools.wraps(fun)
        def with_static(*args, **kwargs):
            args = resolve_args(inner, args, kwargs, "checkpoint")
            fixed = {i % len(args): args[i] for i in static}
            dyn = [a for i, a in enumerate(args) if i not in fixed]

            def f(*d):
                it = iter(d)
                return inner(*(fixed[i] if i in fixed else next(it) for i in range(len(args))))

            return checkpoint(f)(*dyn)

        return with_static

    @functools.wraps(fun)
    def wrapped(*args, **kwargs):
        args = resolve_args(fun, args, kwargs, "checkpoint")
        flat, in_tree = tree_flatten(args)
        if untraced(flat):  # nothing is differentiated: nothing to save or recompute
            return fun(*args)
        n = len(flat)
        store = {}
        # traced values the function closes over become hidden operands (so
        # they are differentiated too); the ones visible in its closure are
        # known up front, others are found when first used
        closed = visible_closure_tracers(fun)

        def flat_fun(*all_args):
            out = run_closed(lambda *a: fun(*tree_unflatten(in_tree, a)), all_args[:n],
                              closed, all_args[n:], store, "The checkpointed function")
            out_flat, store["tree"] = tree_flatten(out)
            return [as_output(o) for o in out_flat]

        outs = bind_discovering(remat_call_p, flat, closed, store, lambda: dict(fun=flat_fun))
        return tree_unflatten(store["tree"], outs)

    return wrapped


remat = checkpoint
