"""User-defined derivative rules: ``custom_jvp`` and ``custom_vjp``.

This module owns the two call primitives ``custom_jvp_call`` and
``custom_vjp_call``, their rules, and the public wrappers.  The
interpreters treat each like any other primitive:

* eval runs the function;
* forward mode runs the user's JVP rule (custom_jvp), or refuses
  (custom_vjp, as JAX does);
* reverse mode records one node; its VJP rule is the transpose of the
  user's JVP rule (computed by reverse mode over the rule's tangent map,
  which is linear), or the user's ``bwd`` (custom_vjp);
* vmap re-wraps the batched functions in a new call of the same kind.

All rules run with the parent trace current, so every combination nests.

Closures.  A function or rule may use traced values it did not receive as
arguments (a batched value of an enclosing ``vmap``).  Every user function
runs under the closure-tracing interpreter
(:mod:`tracegrad.interpreters.closure`), which reports such a value the
first time it reaches a primitive; the call is then bound again with the
value as an extra, hidden operand, and each later run substitutes that
operand's value at its own level.  Differentiating with respect to a hidden
operand raises TypeError (the user's rule only covers the explicit
arguments, as in JAX), while batching over one works.  The pieces shared
with ``checkpoint`` live in :mod:`tracegrad.transforms.call`.
"""
import functools
import inspect
import threading

import numpy as np

from ..core import Primitive, Tracer, set_trace, shape_of
from ..interpreters.closure import bind_discovering, run_closed
from ..primitives import ops
from ..tree_util import tree_flatten, tree_unflatten
from .api import _vjp
from .batching import vmap
from .call import (EVAL, AllArgsVJP, HiddenCotangent, as_output, batched_args, call_aval,
                   cotangent_list, is_float, resolve_args, untraced, zeros_of)

__all__ = ["custom_jvp", "custom_vjp"]


def _split(args, nondiff_argnums):
    nondiff = tuple(args[i] for i in nondiff_argnums)
    dyn = tuple(a for i, a in enumerate(args) if i not in nondiff_argnums)
    return nondiff, dyn


def _merge(nondiff, dyn, nondiff_argnums, n):
    it_nd, it_d = iter(nondiff), iter(dyn)
    return tuple(next(it_nd) if i in nondiff_argnums else next(it_d) for i in range(n))


# ==========================================================================
# custom_jvp

custom_jvp_call_p = Primitive("custom_jvp_call", multiple_results=True)


@custom_jvp_call_p.def_impl
def _custom_jvp_impl(*args, fun, jvp, n_consts, name):
    with set_trace(EVAL):
        return [np.asarray(o) for o in fun(*args)]


custom_jvp_call_p.def_abstract_eval(call_aval)


def _custom_jvp_jvp(primals, tangents, *, fun, jvp, n_consts, name):
    n = len(primals) - n_consts
    if any(t is not None for t in tangents[n:]):
        raise TypeError(HiddenCotangent("custom_jvp", name).message)
    ts = [zeros_of(p) if t is None else t for p, t in zip(primals, tangents)]
    outs, t_outs = jvp(primals, ts)
    t_outs = [None if t is None else ops.match_aval(t, o) if is_float(o) else None
              for t, o in zip(t_outs, outs)]
    return list(outs), t_outs


custom_jvp_call_p.jvp = _custom_jvp_jvp


def _custom_jvp_vjp(ct, ans, *primals, fun, jvp, n_consts, name):
    # The rule's tangent map t -> jvp(primals, t)[1] is linear: its transpose,
    # applied to ct, is the VJP; computed by one reverse pass over the map.
    n = len(primals) - n_consts
    floats = [i for i, p in enumerate(primals[:n]) if is_float(p)]

    def tangent_map(*t_float):
        ts = [zeros_of(p) for p in primals]
        for i, t in zip(floats, t_float):
            ts[i] = t
        _, t_outs = jvp(primals, ts)
        return [ops.zeros_like(o) if t is None else t for t, o in zip(t_outs, ans)]

    _, pull = _vjp(tangent_map, tuple(zeros_of(primals[i]) for i in floats), False,
                   "custom_jvp")
    g = pull(cotangent_list(ct, ans))
    cts = [None] * n + [HiddenCotangent("custom_jvp", name)] * n_consts
    for i, gi in zip(floats, g):
        cts[i] = gi
    return cts


custom_jvp_call_p.vjp = AllArgsVJP(_custom_jvp_vjp)


def _custom_jvp_batch(args, bdims, *, fun, jvp, n_consts, name):
    moved, axes = batched_args(args, bdims)
    fun_b = vmap(lambda *a: list(fun(*a)), in_axes=axes)
    jvp_b = vmap(lambda p, t: tuple(map(list, jvp(p, t))), in_axes=(list(axes), list(axes)))
    outs = custom_jvp_call_p.bind(*moved, fun=fun_b, jvp=lambda p, t: jvp_b(list(p), list(t)),
                                  n_consts=n_consts, name=name)
    return outs, [0] * len(outs)


custom_jvp_call_p.batch = _custom_jvp_batch


def _argnums_of_names(fun, names, kind):
    """Positions of the parameters ``names`` of ``fun`` (positional-or-keyword ones)."""
    try:
        params = list(inspect.signature(fun).parameters.values())
    except (TypeError, ValueError):
        raise TypeError(
            f"{kind}: nondiff_argnames={names!r} needs the signature of "
            f"{getattr(fun, '__name__', fun)!r}, which Python cannot inspect; pass "
            "nondiff_argnums instead."
        ) from None
    positions = {p.name: i for i, p in enumerate(params)
                 if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)}
    unknown = [n for n in names if n not in positions]
    if unknown:
        raise ValueError(
            f"{kind}: nondiff_argnames {unknown} are not positional parameters of "
            f"{getattr(fun, '__name__', 'the function')} (its positional parameters: "
            f"{list(positions)}); keyword-only arguments cannot be non-differentiated "
            "by name."
        )
    return {positions[n] for n in names}


class _CustomFunction:
    """What :class:`custom_jvp` and :class:`custom_vjp` share: the wrapped
    function, its ``nondiff_argnums``, method binding, and the split of a
    call's arguments into the non-differentiated ones and the flattened
    rest."""

    _kind = ""  # "JVP" or "VJP", for the missing-rule error

    def __init__(self, fun, nondiff_argnums=(), nondiff_argnames=()):
        functools.update_wrapper(self, fun)
        self.fun = fun
        nums = {int(i) for i in nondiff_argnums}
        if isinstance(nondiff_argnames, str):
            nondiff_argnames = (nondiff_argnames,)
        if nondiff_argnames:
            nums |= _argnums_of_names(fun, tuple(nondiff_argnames), type(self).__name__)
        self.nondiff_argnums = tuple(sorted(nums))

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
        args = resolve_args(self.fun, args, kwargs, kind)
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
    nondiff_argnames : tuple of str, optional
        Names of (positional-or-keyword) parameters that are not
        differentiated, added to ``nondiff_argnums`` as in JAX: the rule
        receives them first, in parameter order, whether the call passes
        them by position or by keyword.

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
    ValueError
        If a name in ``nondiff_argnames`` is not a positional parameter of
        ``fun`` (JAX ignores such a name silently).
    """

    _kind = "JVP"

    def __init__(self, fun, nondiff_argnums=(), nondiff_argnames=()):
        super().__init__(fun, nondiff_argnums, nondiff_argnames)
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
        if untraced(flat):  # no transform to apply the rule: just the function
            return self.fun(*args)
        n = len(flat)
        store = {}
        closed = []  # closed-over tracers, found while running (hidden operands)

        def flat_fun(*all_args):
            def run(*flat_args):
                return self.fun(*_merge(nondiff, tree_unflatten(in_tree, flat_args),
                                        nd_nums, len(args)))

            out = run_closed(run, all_args[:n], closed, all_args[n:], store,
                              f"The custom_jvp function {name}")
            out_flat, store["tree"] = tree_flatten(out)
            return [as_output(o) for o in out_flat]

        def flat_jvp(primals, tangents):
            p = tree_unflatten(in_tree, list(primals[:n]))
            t = tree_unflatten(in_tree, list(tangents[:n]))
            res = run_closed(self.jvp, (*nondiff, tuple(p), tuple(t)), closed, primals[n:],
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
            return [as_output(o) for o in p_flat], list(t_flat)

        outs = bind_discovering(
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
        with set_trace(EVAL):
            return [np.asarray(o) for o in fun(*args)]
    _impl_state.in_fwd = True
    try:
        with set_trace(EVAL):
            outs, res = fwd(*args)
    finally:
        _impl_state.in_fwd = False
    store["saved"] = (args, res)  # reused by the VJP rule for these very inputs
    return [np.asarray(o) for o in outs]


custom_vjp_call_p.def_abstract_eval(lambda *avals, fun, **params: call_aval(
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
    cts = bwd(primals[n:], res, cotangent_list(ct, ans))
    cts = [c if c is not None and is_float(p) else None for c, p in zip(cts, primals)]
    return cts + [HiddenCotangent("custom_vjp", store.get("name", ""))] * n_consts


custom_vjp_call_p.vjp = AllArgsVJP(_custom_vjp_vjp)


def _is_array(x):
    return isinstance(x, (np.ndarray, np.generic, Tracer))


def _custom_vjp_batch(args, bdims, *, fun, fwd, bwd, store, n_consts):
    moved, axes = batched_args(args, bdims)
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
    nondiff_argnames : tuple of str, optional
        Names of (positional-or-keyword) parameters that are not
        differentiated, added to ``nondiff_argnums`` as in JAX.

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
    ValueError
        If a name in ``nondiff_argnames`` is not a positional parameter of
        ``fun`` (JAX ignores such a name silently).
    """

    _kind = "VJP"

    def __init__(self, fun, nondiff_argnums=(), nondiff_argnames=()):
        super().__init__(fun, nondiff_argnums, nondiff_argnames)
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
        if untraced(flat):  # no transform to apply the rule: just the function
            return self.fun(*args)
        n = len(flat)
        store = {"name": name}
        closed = []  # closed-over tracers, found while running (hidden operands)

        def full(flat_args):
            return _merge(nondiff, tree_unflatten(in_tree, list(flat_args)), nd_nums,
                          len(args))

        def flat_fun(*all_args):
            out = run_closed(lambda *a: self.fun(*full(a)), all_args[:n], closed,
                              all_args[n:], store, f"The custom_vjp function {name}")
            out_flat, store["tree"] = tree_flatten(out)
            return [as_output(o) for o in out_flat]

        def flat_fwd(*all_args):
            res = run_closed(lambda *a: self.fwd(*full(a)), all_args[:n], closed,
                              all_args[n:], store, f"The custom_vjp fwd of {name}")
            if not (isinstance(res, (tuple, list)) and len(res) == 2):
                raise TypeError(
                    f"The custom_vjp fwd of {name} must return a pair (output, residuals), "
                    f"got {type(res).__name__}."
                )
            out_flat, store["tree"] = tree_flatten(res[0])
            return [as_output(o) for o in out_flat], res[1]

        def flat_bwd(consts, res, cts):
            g = tree_unflatten(store["tree"], list(cts))
            grads = run_closed(self.bwd, (*nondiff, res, g), closed, consts, store,
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
                    g_flat.append(None if c is None or not is_float(x)
                                  else ops.match_aval(c, x))
            return g_flat

        outs = bind_discovering(
            custom_vjp_call_p, flat, closed, store,
            lambda: dict(fun=flat_fun, fwd=flat_fwd, bwd=flat_bwd, store=store,
                         n_consts=len(closed)))
        if "tree" not in store:  # only the JVP rule ran (it raises before this)
            store["tree"] = tree_flatten(self.fun(*args))[1]
        return tree_unflatten(store["tree"], outs)
