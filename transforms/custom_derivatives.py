"""User-defined derivative rules (``custom_jvp``, ``custom_vjp``) and
``checkpoint`` (rematerialization).

Each is a *call primitive*: one primitive whose static params carry the
user's functions (closures made per call, over the flattened pytrees).  The
interpreters treat it like any other primitive:

* eval runs the function;
* forward mode runs the user's JVP rule (custom_jvp), refuses (custom_vjp,
  as JAX does), or differentiates the function (checkpoint);
* reverse mode records one node; its VJP rule is the transpose of the
  user's JVP rule (computed by reverse mode over the rule's tangent map,
  which is linear), the user's ``bwd`` (custom_vjp), or a fresh reverse pass
  over the function recomputed from its inputs (checkpoint);
* vmap re-wraps the batched functions in a new call of the same kind.

All rules run with the parent trace current, so every combination nests.

Closures.  A function may use traced values it did not receive as arguments
(weights closed over by a checkpointed layer, a batched value of an
enclosing ``vmap``).  Every user function runs under a
:class:`_ClosureTrace`, which reports such a value the first time it reaches
a primitive; the call is then bound again with the value as an extra,
hidden operand (closure conversion, discovered while running), and each
later run substitutes that operand's value at its own level.  For
``checkpoint`` hidden operands are differentiated like the others; for
``custom_jvp``/``custom_vjp`` differentiating with respect to one raises
TypeError (the user's rule only covers the explicit arguments, as in JAX),
while batching over one works.
"""
import functools
import inspect
import threading

import numpy as np

from ..core import EvalTrace, Trace, Tracer, _ctx, new_trace, set_trace
from ..primitives.core import Primitive, dtype_of, shape_of
from ..primitives import ops
from ..tree_util import tree_flatten, tree_unflatten

__all__ = ["custom_jvp", "custom_vjp", "checkpoint", "remat"]


def _is_float(x):
    return np.dtype(dtype_of(x)).kind == "f"


def _zeros(x):
    return np.zeros(shape_of(x), dtype_of(x))


def _as_out(x):
    return x if isinstance(x, Tracer) else np.asarray(x)


class _ClosedOver(TypeError):
    """A call's function used a traced value from outside (a closure).

    Caught by the call that owns the run, which binds again with the value
    as a hidden operand; if it escapes (the value was first used after the
    call was bound, e.g. only in ``bwd``), its message tells the user what
    to do.
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


class _ClosureTrace(Trace):
    """Runs a user function of a call primitive: replaces closed-over tracers
    (by identity) with the values given for them at this level, and raises
    :class:`_ClosedOver` for any other tracer that the run did not receive or
    produce (also one of a finished trace: an enclosing run may map it to a
    value of its own level, once it is an operand)."""

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
                    raise _ClosedOver(a, self.owner, self.what)
        out = self.parent.process_primitive(prim, vals, params)
        for o in (out if prim.multiple_results else (out,)):
            if isinstance(o, Tracer):
                self.known.add(id(o))
        return out


# Impls run their functions on concrete values straight on the eval
# interpreter (not through the traces above it, which already let the call pass).
_EVAL = EvalTrace(None)


def _run_closed(fn, args, closed, values, owner, what):
    """``fn(*args)`` with the closed-over tracers ``closed`` replaced by
    ``values`` (the hidden operands' values at the current level)."""
    known = {id(a) for a in tree_flatten(list(args))[0] if isinstance(a, Tracer)}
    subst = {id(c): v for c, v in zip(closed, values)}
    with new_trace(_ClosureTrace, owner, what, subst, known):
        return fn(*args)


def _bind_discovering(prim, flat, closed, owner, make_params):
    """Bind ``prim`` on ``flat`` plus the hidden operands ``closed`` (a list,
    extended with each closed-over tracer a run of the functions reports)."""
    while True:
        try:
            return prim.bind(*flat, *closed, **make_params())
        except _ClosedOver as e:
            if e.owner is not owner or any(e.tracer is c for c in closed):
                raise
            closed.append(e.tracer)


def _untraced(flat):
    """True when no transform is running and no argument is traced (the
    call would only evaluate the function)."""
    return type(_ctx.trace) is EvalTrace and not any(isinstance(x, Tracer) for x in flat)


class _HiddenCt:
    """The cotangent of a hidden (closed-over) operand of a custom rule: there
    is none; asking for it (differentiating with respect to a closure) raises."""

    __slots__ = ("message",)

    def __init__(self, kind, name):
        self.message = (
            f"Detected differentiation of a {kind} function ({name}) with respect to a "
            f"closed-over value. That isn't supported because the custom rule only "
            f"specifies how to differentiate {name} with respect to its explicit "
            "arguments. Pass the closed-over value into the function as an argument, "
            "and adapt the rule."
        )



class _AllArgsVJP:
    """Per-argument VJP rules backed by one rule computing every argument's
    cotangent: the first argument's call computes all of them, the others
    reuse the result for the same cotangent object."""

    __slots__ = ("rule", "last")

    def __init__(self, rule):
        self.rule = rule
        self.last = None

    def __getitem__(self, i):
        return functools.partial(self._one, i)

    def _one(self, i, ct, ans, *primals, **params):
        last = self.last
        if last is None or last[0] is not ct or last[1] is not ans:
            last = self.last = (ct, ans, self.rule(ct, ans, *primals, **params))
        cts = last[2]
        if i == len(cts) - 1 or all(c is None for c in cts[i + 1:]):
            self.last = None  # the last one asking: drop the reference
        c = cts[i]
        if type(c) is _HiddenCt:
            self.last = None
            raise TypeError(c.message)
        return c


def _cotangent_list(ct, ans):
    return [ops.zeros_like(a) if c is None else c for c, a in zip(ct, ans)]


@functools.lru_cache(maxsize=256)
def _signature(fun):
    return inspect.signature(fun)


def _resolve_args(fun, args, kwargs, name):
    """Keyword arguments and defaults bound to positions (the call primitives
    are positional, and rules see every argument, as in JAX)."""
    try:
        sig = _signature(fun)
    except (TypeError, ValueError):  # unhashable callable or no signature
        if not kwargs:
            return args
        sig = inspect.signature(fun)
    try:
        bound = sig.bind(*args, **kwargs)
    except TypeError as e:
        raise TypeError(f"{name}: {e}") from None
    bound.apply_defaults()
    if bound.kwargs:
        raise TypeError(
            f"{name} functions cannot take keyword-only or **kwargs arguments "
            f"({sorted(bound.kwargs)}); pass them positionally."
        )
    return bound.args


def _split(args, nondiff_argnums):
    nondiff = tuple(args[i] for i in nondiff_argnums)
    dyn = tuple(a for i, a in enumerate(args) if i not in nondiff_argnums)
    return nondiff, dyn


def _merge(nondiff, dyn, nondiff_argnums, n):
    it_nd, it_d = iter(nondiff), iter(dyn)
    return tuple(next(it_nd) if i in nondiff_argnums else next(it_d) for i in range(n))


def _batched_args(args, bdims):
    """Batched operands moved to axis 0 (vmap in_axes: 0 or None)."""
    from ..primitives.batching import move_bdim

    moved = [a if d is None else move_bdim(a, d, 0) for a, d in zip(args, bdims)]
    return moved, tuple(None if d is None else 0 for d in bdims)


# ==========================================================================
# custom_jvp

custom_jvp_call_p = Primitive("custom_jvp_call", multiple_results=True)


@custom_jvp_call_p.def_impl
def _custom_jvp_impl(*args, fun, jvp, n_consts, name):
    with set_trace(_EVAL):
        return [np.asarray(o) for o in fun(*args)]


def _call_aval(*avals, fun, **params):
    from .. import numpy as tnp  # noqa: F401  (the functions may use it)

    zeros = [np.zeros(a.shape, a.dtype) if hasattr(a, "shape") else a for a in avals]
    with set_trace(_EVAL):
        outs = fun(*zeros)
    from ..primitives.core import ShapedArray

    return [ShapedArray(np.shape(o), np.asarray(o).dtype) for o in outs]


custom_jvp_call_p.def_abstract_eval(_call_aval)


def _custom_jvp_jvp(primals, tangents, *, fun, jvp, n_consts, name):
    n = len(primals) - n_consts
    if any(t is not None for t in tangents[n:]):
        raise TypeError(_HiddenCt("custom_jvp", name).message)
    ts = [_zeros(p) if t is None else t for p, t in zip(primals, tangents)]
    outs, t_outs = jvp(primals, ts)
    t_outs = [None if t is None else ops.match_aval(t, o) if _is_float(o) else None
              for t, o in zip(t_outs, outs)]
    return list(outs), t_outs


custom_jvp_call_p.jvp = _custom_jvp_jvp


def _custom_jvp_vjp(ct, ans, *primals, fun, jvp, n_consts, name):
    # The rule's tangent map t -> jvp(primals, t)[1] is linear: its transpose,
    # applied to ct, is the VJP; computed by one reverse pass over the map.
    from .api import _vjp

    n = len(primals) - n_consts
    floats = [i for i, p in enumerate(primals[:n]) if _is_float(p)]

    def tangent_map(*t_float):
        ts = [_zeros(p) for p in primals]
        for i, t in zip(floats, t_float):
            ts[i] = t
        _, t_outs = jvp(primals, ts)
        return [ops.zeros_like(o) if t is None else t for t, o in zip(t_outs, ans)]

    _, pull = _vjp(tangent_map, tuple(_zeros(primals[i]) for i in floats), False,
                   "custom_jvp")
    g = pull(_cotangent_list(ct, ans))
    cts = [None] * n + [_HiddenCt("custom_jvp", name)] * n_consts
    for i, gi in zip(floats, g):
        cts[i] = gi
    return cts


custom_jvp_call_p.vjp = _AllArgsVJP(_custom_jvp_vjp)


def _custom_jvp_batch(args, bdims, *, fun, jvp, n_consts, name):
    from .batching import vmap

    moved, axes = _batched_args(args, bdims)
    fun_b = vmap(lambda *a: list(fun(*a)), in_axes=axes)
    jvp_b = vmap(lambda p, t: tuple(map(list, jvp(p, t))), in_axes=(list(axes), list(axes)))
    outs = custom_jvp_call_p.bind(*moved, fun=fun_b, jvp=lambda p, t: jvp_b(list(p), list(t)),
                                  n_consts=n_consts, name=name)
    return outs, [0] * len(outs)


custom_jvp_call_p.batch = _custom_jvp_batch


class _CustomFunction:
    """What :class:`custom_jvp` and :class:`custom_vjp` share: the wrapped
    function, its ``nondiff_argnums``, method binding, and the split of a
    call's arguments into the non-differentiated ones and the flattened
    rest."""

    _kind = ""  # "JVP" or "VJP", for the missing-rule error

    def __init__(self, fun, nondiff_argnums=()):
        functools.update_wrapper(self, fun)
        self.fun = fun
        self.nondiff_argnums = tuple(int(i) for i in nondiff_argnums)

    def __get__(self, obj, objtype=None):
        return self if obj is None else functools.partial(self, obj)

    def _split_call(self, args, kwargs, has_rule):
        """``(name, args, nondiff, dyn, flat, in_tree)`` of a call; raises the
        missing-rule AttributeError when ``has_rule`` is false."""
        name = getattr(self.fun, "__name__", "function")
        kind = type(self).__name__
        if not has_rule:
            method = "defjvp" if kind == "custom_jvp" else "defvjp"
            raise AttributeError(
                f"No {self._kind} defined for {kind} function {name} using {method}."
            )
        args = _resolve_args(self.fun, args, kwargs, kind)
        nondiff, dyn = _split(args, self.nondiff_argnums)
        flat, in_tree = tree_flatten(dyn)
        return name, args, nondiff, dyn, flat, in_tree


class custom_jvp(_CustomFunction):  # noqa: N801 - JAX's name
    """A function with a user-defined JVP (forward-mode) rule.

    Parameters
    ----------
    fun : callable
        The function; takes and returns pytrees of arrays.
    nondiff_argnums : tuple of int, optional
        Positions of arguments that are not differentiated (static values,
        functions); they are passed first to the JVP rule.

    Notes
    -----
    JAX's interface (``jax.custom_jvp``)::

        @tg.custom_jvp
        def f(x, y): ...

        @f.defjvp
        def f_jvp(primals, tangents):
            x, y = primals
            x_dot, y_dot = tangents
            return f(x, y), <tangent of the output>

    Tangents of inputs that carry none are zeros.  Under reverse mode
    (``grad``, ``vjp``) the VJP is the transpose of the rule's tangent map,
    which must be linear in the tangents; under ``vmap`` the function and the
    rule are batched together, so the rule still applies.

    Raises
    ------
    AttributeError
        When called before :meth:`defjvp`.
    """

    _kind = "JVP"

    def __init__(self, fun, nondiff_argnums=()):
        super().__init__(fun, nondiff_argnums)
        self.jvp = None

    def defjvp(self, jvp):
        """Set the JVP rule ``jvp(*nondiff_args, primals, tangents) ->
        (primal_out, tangent_out)``; returns ``jvp`` (usable as a decorator)."""
        self.jvp = jvp
        return jvp

    def defjvps(self, *jvps):
        """Set the JVP from one rule per differentiable argument,
        ``jvp_i(tangent_i, primal_out, *primals) -> tangent_out contribution``
        (None for an argument with no derivative); the contributions are
        summed (JAX's ``defjvps``).  The output must be a single array."""
        fun = self.fun

        def jvp(*args):
            *nondiff, primals, tangents = args
            full = _merge(tuple(nondiff), tuple(primals), self.nondiff_argnums,
                          len(nondiff) + len(primals))
            ans = fun(*full)
            out = None
            for rule, t in zip(jvps, tangents):
                if rule is None:
                    continue
                c = rule(t, ans, *primals)
                out = c if out is None else ops.add(out, c)
            return ans, (ops.zeros_like(ans) if out is None else ops.match_aval(out, ans))

        self.jvp = jvp

    def __call__(self, *args, **kwargs):
        name, args, nondiff, dyn, flat, in_tree = self._split_call(
            args, kwargs, self.jvp is not None)
        nd_nums = self.nondiff_argnums
        if _untraced(flat):  # no transform to apply the rule: just the function
            return self.fun(*args)
        n = len(flat)
        store = {}
        closed = []  # closed-over tracers, found while running (hidden operands)

        def flat_fun(*all_args):
            def run(*flat_args):
                return self.fun(*_merge(nondiff, tree_unflatten(in_tree, flat_args),
                                        nd_nums, len(args)))

            out = _run_closed(run, all_args[:n], closed, all_args[n:], store,
                              f"The custom_jvp function {name}")
            out_flat, store["tree"] = tree_flatten(out)
            return [_as_out(o) for o in out_flat]

        def flat_jvp(primals, tangents):
            p = tree_unflatten(in_tree, list(primals[:n]))
            t = tree_unflatten(in_tree, list(tangents[:n]))
            res = _run_closed(self.jvp, (*nondiff, tuple(p), tuple(t)), closed, primals[n:],
                              store, f"The custom_jvp rule of {name}")
            if not (isinstance(res, (tuple, list)) and len(res) == 2):
                raise TypeError(
                    f"The custom_jvp rule of {name} must return a pair (primal_out, "
                    f"tangent_out), got {type(res).__name__}."
                )
            p_out, t_out = res
            p_flat, p_tree = tree_flatten(p_out)
            t_flat, t_tree = tree_flatten(t_out)
            if p_tree != t_tree:
                raise TypeError(
                    f"The custom_jvp rule of {name} returned a primal output of structure "
                    f"{p_tree} and a tangent output of structure {t_tree}; they must match."
                )
            for k, (po, to) in enumerate(zip(p_flat, t_flat)):
                if shape_of(po) != shape_of(to):
                    raise TypeError(
                        f"The custom_jvp rule of {name} returned a tangent of shape "
                        f"{shape_of(to)} for primal output {k} of shape {shape_of(po)}; "
                        "each tangent must have its primal output's shape."
                    )
            store["tree"] = p_tree
            return [_as_out(o) for o in p_flat], list(t_flat)

        outs = _bind_discovering(
            custom_jvp_call_p, flat, closed, store,
            lambda: dict(fun=flat_fun, jvp=flat_jvp, n_consts=len(closed), name=name))
        return tree_unflatten(store["tree"], outs)


# ==========================================================================
# custom_vjp

custom_vjp_call_p = Primitive("custom_vjp_call", multiple_results=True)


class _ImplState(threading.local):
    in_fwd = False


_impl_state = _ImplState()


@custom_vjp_call_p.def_impl
def _custom_vjp_impl(*args, fun, fwd, bwd, store, n_consts):
    # ``fwd`` usually calls the function itself (``return f(x), res``): inside
    # it, custom_vjp calls evaluate their plain function (JAX's semantics;
    # calling their ``fwd`` again would recurse forever).  A node recorded
    # for such an inner call recomputes its residuals in its VJP rule.
    if _impl_state.in_fwd:
        with set_trace(_EVAL):
            return [np.asarray(o) for o in fun(*args)]
    _impl_state.in_fwd = True
    try:
        with set_trace(_EVAL):
            outs, res = fwd(*args)
    finally:
        _impl_state.in_fwd = False
    store["saved"] = (args, res)  # reused by the VJP rule for these very inputs
    return [np.asarray(o) for o in outs]


custom_vjp_call_p.def_abstract_eval(lambda *avals, fun, **params: _call_aval(
    *avals, fun=fun))


def _custom_vjp_jvp(primals, tangents, *, fun, fwd, bwd, store, n_consts):
    raise TypeError(
        f"can't apply forward-mode autodiff (jvp) to a custom_vjp function "
        f"{store.get('name', '')}: it has a reverse-mode rule only. Use tg.grad/tg.vjp/"
        "tg.jacrev, or define the function with tg.custom_jvp instead."
    )


custom_vjp_call_p.jvp = _custom_vjp_jvp


def _custom_vjp_vjp(ct, ans, *primals, fun, fwd, bwd, store, n_consts):
    saved = store.get("saved")
    if saved is not None and len(saved[0]) == len(primals) and all(
            a is b for a, b in zip(saved[0], primals)):
        res = saved[1]
    else:  # under an outer transform the residuals must be traced: recompute
        res = fwd(*primals)[1]
    n = len(primals) - n_consts
    cts = bwd(primals[n:], res, _cotangent_list(ct, ans))
    cts = [c if c is not None and _is_float(p) else None for c, p in zip(cts, primals)]
    return cts + [_HiddenCt("custom_vjp", store.get("name", ""))] * n_consts


custom_vjp_call_p.vjp = _AllArgsVJP(_custom_vjp_vjp)


def _is_array(x):
    return isinstance(x, (np.ndarray, np.generic, Tracer))


def _custom_vjp_batch(args, bdims, *, fun, fwd, bwd, store, n_consts):
    from .batching import vmap

    moved, axes = _batched_args(args, bdims)
    n = len(args) - n_consts
    fun_b = vmap(lambda *a: list(fun(*a)), in_axes=axes)
    box = {}

    def fwd_arrays(*a):
        # only array residuals are batched; other leaves (ints, strings,
        # flags) are the same for every example and are passed through
        outs, res = fwd(*a)
        leaves, tree = tree_flatten(res)
        box["static"] = (tree, tuple(None if _is_array(r) else r for r in leaves),
                         tuple(_is_array(r) for r in leaves))
        return list(outs), [r for r in leaves if _is_array(r)]

    fwd_v = vmap(fwd_arrays, in_axes=axes)

    def fwd_b(*a):
        outs, arrays = fwd_v(*a)
        return outs, (arrays, box["static"])

    def bwd_b(consts, res, cts):
        arrays, (tree, static, is_arr) = res

        def bwd_one(consts_one, arrs, c):
            it = iter(arrs)
            leaves = [next(it) if k else v for k, v in zip(is_arr, static)]
            return list(bwd(consts_one, tree_unflatten(tree, leaves), c))

        out = vmap(bwd_one, in_axes=(list(axes[n:]), 0, 0))(list(consts), arrays, list(cts))
        # an argument that is the same for every example gets the sum of the
        # per-example cotangents
        return [o if o is None or d is not None else ops.reduce_sum(o, (0,))
                for o, d in zip(out, axes)]

    outs = custom_vjp_call_p.bind(*moved, fun=fun_b, fwd=fwd_b, bwd=bwd_b,
                                  store={"name": store.get("name", "")}, n_consts=n_consts)
    return outs, [0] * len(outs)


custom_vjp_call_p.batch = _custom_vjp_batch


class custom_vjp(_CustomFunction):  # noqa: N801 - JAX's name
    """A function with a user-defined VJP (reverse-mode) rule.

    Parameters
    ----------
    fun : callable
        The function; takes and returns pytrees of arrays.
    nondiff_argnums : tuple of int, optional
        Positions of arguments that are not differentiated; they are passed
        first to ``bwd``.

    Notes
    -----
    JAX's interface (``jax.custom_vjp``)::

        @tg.custom_vjp
        def f(x, y): ...

        def f_fwd(x, y):
            return f(x, y), residuals        # any pytree

        def f_bwd(residuals, g):             # g: cotangent of the output
            return (x_bar, y_bar)            # one per differentiable input

        f.defvjp(f_fwd, f_bwd)

    Forward mode (``jvp``, ``jacfwd``, ``hessian``) raises TypeError, as in
    JAX.  Under ``vmap`` the three functions are batched together.  Under
    nested reverse mode the outer derivative differentiates ``fwd`` and
    ``bwd`` themselves.

    Raises
    ------
    AttributeError
        When called before :meth:`defvjp`.
    """

    _kind = "VJP"

    def __init__(self, fun, nondiff_argnums=()):
        super().__init__(fun, nondiff_argnums)
        self.fwd = self.bwd = None

    def defvjp(self, fwd, bwd):
        """Set ``fwd(*args) -> (output, residuals)`` and ``bwd(*nondiff_args,
        residuals, output_cotangent) -> tuple of input cotangents`` (one per
        differentiable argument, None for a zero)."""
        self.fwd, self.bwd = fwd, bwd

    def __call__(self, *args, **kwargs):
        name, args, nondiff, dyn, flat, in_tree = self._split_call(
            args, kwargs, self.fwd is not None)
        nd_nums = self.nondiff_argnums
        if _untraced(flat):  # no transform to apply the rule: just the function
            return self.fun(*args)
        n = len(flat)
        store = {"name": name}
        closed = []  # closed-over tracers, found while running (hidden operands)

        def full(flat_args):
            return _merge(nondiff, tree_unflatten(in_tree, list(flat_args)), nd_nums,
                          len(args))

        def flat_fun(*all_args):
            out = _run_closed(lambda *a: self.fun(*full(a)), all_args[:n], closed,
                              all_args[n:], store, f"The custom_vjp function {name}")
            out_flat, store["tree"] = tree_flatten(out)
            return [_as_out(o) for o in out_flat]

        def flat_fwd(*all_args):
            res = _run_closed(lambda *a: self.fwd(*full(a)), all_args[:n], closed,
                              all_args[n:], store, f"The custom_vjp fwd of {name}")
            if not (isinstance(res, (tuple, list)) and len(res) == 2):
                raise TypeError(
                    f"The custom_vjp fwd of {name} must return a pair (output, residuals), "
                    f"got {type(res).__name__}."
                )
            out_flat, store["tree"] = tree_flatten(res[0])
            return [_as_out(o) for o in out_flat], res[1]

        def flat_bwd(consts, res, cts):
            g = tree_unflatten(store["tree"], list(cts))
            grads = _run_closed(self.bwd, (*nondiff, res, g), closed, consts, store,
                                f"The custom_vjp bwd of {name}")
            if not isinstance(grads, (tuple, list)):
                raise TypeError(
                    f"The custom_vjp bwd of {name} must return a tuple with one cotangent "
                    f"per differentiable argument, got {type(grads).__name__}."
                )
            if len(grads) != len(dyn):
                raise TypeError(
                    f"The custom_vjp bwd of {name} returned {len(grads)} cotangents for "
                    f"{len(dyn)} differentiable arguments."
                )
            g_flat = []
            for k, (gi, xi) in enumerate(zip(grads, dyn)):
                leaves_x = tree_flatten(xi)[0]
                if gi is None:
                    g_flat.extend([None] * len(leaves_x))
                    continue
                leaves_g = tree_flatten(gi, is_leaf=lambda v: v is None)[0]
                if len(leaves_g) != len(leaves_x):
                    raise TypeError(
                        f"The custom_vjp bwd of {name} returned a cotangent whose structure "
                        f"does not match its argument's (argument {k})."
                    )
                for c, x in zip(leaves_g, leaves_x):
                    if c is not None and shape_of(c) != shape_of(x):
                        raise ValueError(
                            f"The custom_vjp bwd of {name} returned a cotangent of shape "
                            f"{shape_of(c)} for argument {k} of shape {shape_of(x)}; each "
                            "cotangent must have its argument's shape."
                        )
                    g_flat.append(None if c is None or not _is_float(x)
                                  else ops.match_aval(c, x))
            return g_flat

        outs = _bind_discovering(
            custom_vjp_call_p, flat, closed, store,
            lambda: dict(fun=flat_fun, fwd=flat_fwd, bwd=flat_bwd, store=store,
                         n_consts=len(closed)))
        if "tree" not in store:  # only the JVP rule ran (it raises before this)
            store["tree"] = tree_flatten(self.fun(*args))[1]
        return tree_unflatten(store["tree"], outs)


# ==========================================================================
# checkpoint (remat): recompute instead of storing

remat_call_p = Primitive("remat_call", multiple_results=True)


@remat_call_p.def_impl
def _remat_impl(*args, fun):
    with set_trace(_EVAL):
        return [np.asarray(o) for o in fun(*args)]


remat_call_p.def_abstract_eval(_call_aval)


def _remat_jvp(primals, tangents, *, fun):
    from .api import _jvp

    ts = [_zeros(p) for p in primals]
    for i, t in enumerate(tangents):
        if t is not None:
            ts[i] = t
    outs, t_outs = _jvp(lambda *a: list(fun(*a)), list(primals), ts, False, "checkpoint")
    return list(outs), list(t_outs)


remat_call_p.jvp = _remat_jvp


def _remat_vjp(ct, ans, *primals, fun):
    from .api import _vjp

    floats = [i for i, p in enumerate(primals) if _is_float(p)]

    def f(*xs):
        args = list(primals)
        for i, x in zip(floats, xs):
            args[i] = x
        return list(fun(*args))

    outs, pull = _vjp(f, tuple(primals[i] for i in floats), False, "checkpoint")
    _check_recomputed(outs, ans)
    del outs
    g = pull(_cotangent_list(ct, ans))
    cts = [None] * len(primals)
    for i, gi in zip(floats, g):
        cts[i] = gi
    return cts


remat_call_p.vjp = _AllArgsVJP(_remat_vjp)


def _check_recomputed(outs, ans):
    """The recomputation must reproduce the forward pass (bitwise: the same
    primitives on the same values); otherwise its gradient would silently
    belong to another function."""
    from ..interpreters.batching import BatchedValueError
    from ..core import concrete_value

    for k, (o, a) in enumerate(zip(outs, ans)):
        try:
            o, a = concrete_value(o), concrete_value(a)
        except BatchedValueError:  # per-example values: nothing to compare here
            continue
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
    from .batching import vmap

    moved, axes = _batched_args(args, bdims)
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
            args = _resolve_args(inner, args, kwargs, "checkpoint")
            fixed = {i % len(args): args[i] for i in static}
            dyn = [a for i, a in enumerate(args) if i not in fixed]

            def f(*d):
                it = iter(d)
                return inner(*(fixed[i] if i in fixed else next(it) for i in range(len(args))))

            return checkpoint(f)(*dyn)

        return with_static

    @functools.wraps(fun)
    def wrapped(*args, **kwargs):
        args = _resolve_args(fun, args, kwargs, "checkpoint")
        flat, in_tree = tree_flatten(args)
        if _untraced(flat):  # nothing is differentiated: nothing to save or recompute
            return fun(*args)
        n = len(flat)
        store = {}
        # traced values the function closes over become hidden operands (so
        # they are differentiated too); the ones visible in its closure are
        # known up front, others are found when first used
        closed = _visible_closure_tracers(fun)

        def flat_fun(*all_args):
            out = _run_closed(lambda *a: fun(*tree_unflatten(in_tree, a)), all_args[:n],
                              closed, all_args[n:], store, "The checkpointed function")
            out_flat, store["tree"] = tree_flatten(out)
            return [_as_out(o) for o in out_flat]

        outs = _bind_discovering(remat_call_p, flat, closed, store, lambda: dict(fun=flat_fun))
        return tree_unflatten(store["tree"], outs)

    return wrapped


def _visible_closure_tracers(fun, depth=3):
    """Live tracers in ``fun``'s closure cells, defaults and partial
    arguments (and, ``depth`` levels down, in the functions found there)."""
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


remat = checkpoint
