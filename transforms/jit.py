"""``jit``: stage a function once per input signature and run the staged program.

The first call with a new *signature* -- the pytree structure of the
arguments, each leaf's shape, dtype and weak type (Python scalars), and the
values of the static arguments -- traces the function into the typed IR
(:func:`tracegrad.make_jaxpr`'s), removes the equations no output needs, and
compiles it with :func:`tracegrad.transforms.codegen.compile_program`: fused
Numba loop nests, one compiled function for the whole program when every
primitive has a lowering, a thin Python driver calling impls between
compiled segments otherwise.  Later calls with the same signature run that
directly: no tracing, no interpreter dispatch, no tracer objects, and under
``jit(grad(f))`` no recording of the backward pass (it is part of the
program).

Under an enclosing transform a jitted function binds the call primitive
``jit_call``, whose rules are jitted too: forward mode runs the compiled
JVP program, reverse mode records one node whose VJP rule runs a compiled
program recomputing the forward pass and pulling cotangents back (as
``checkpoint`` does, so only inputs and outputs are stored), ``vmap`` runs
the compiled batched program, and staging records one equation.  So
``grad(jit(f))``, ``vmap(jit(f))`` and ``jit(jit(f))`` all run compiled.  A
jitted function that closes over a traced value of the enclosing transform
(visible in its closure) runs as plain code under that transform instead.
"""
import functools
import inspect

import numpy as np

from ..core import EvalTrace, Primitive, Tracer, current_trace, set_trace
from ..interpreters.closure import visible_closure_tracers
from ..interpreters.staging import Literal
from ..tree_util import tree_flatten, tree_unflatten
from .api import _jvp
from .batching import vmap
from .codegen import compile_program
from .call import (EVAL, AllArgsVJP, batched_args, cotangent_list, is_float, vjp_in_floats,
                   zeros_of)
from .staging import ShapeDtypeStruct, _is_python_scalar, _stage

__all__ = ["jit", "Lowered"]


class Lowered:
    """What :func:`jit` compiled for one signature (``jitted.lower(*args)``).

    Attributes
    ----------
    jaxpr : ClosedJaxpr
        The staged program, as traced (before dead equations are removed).
    source : str
        The generated source: the Numba functions and the Python driver.
    """

    __slots__ = ("jaxpr", "source", "_fn", "_out_tree")

    def __init__(self, jaxpr, source, fn, out_tree):
        self.jaxpr = jaxpr
        self.source = source
        self._fn = fn
        self._out_tree = out_tree

    def as_text(self):
        """The staged IR, printed one equation per line."""
        return str(self.jaxpr)

    def __repr__(self):
        return f"Lowered(\n{self.as_text()}\n)"


def _hashable(value, where):
    try:
        hash(value)
    except TypeError:
        raise TypeError(
            f"jit: static argument {where} must be hashable (it is part of the cache key), "
            f"got {type(value).__name__}; pass a tuple instead of a list, or make it a "
            "traced (array) argument") from None
    return value


def _leaf_signature(x, k):
    if isinstance(x, Tracer):
        return None  # only when called under a transform, which runs fun itself
    if _is_python_scalar(x):
        return (type(x).__name__,)  # weak: a Python scalar of that type
    if isinstance(x, (np.ndarray, np.generic)):
        return (x.shape, x.dtype)
    if hasattr(x, "shape") and hasattr(x, "dtype"):
        raise TypeError(
            f"jit: argument leaf {k} is a {type(x).__name__}, not an array; pass "
            "np.asarray(x) (a ShapeDtypeStruct has no value to run on)")
    raise TypeError(
        f"jit: argument leaf {k} is a {type(x).__name__} ({x!r:.60}), not an array or a "
        "Python scalar; mark its argument static (static_argnums/static_argnames) or "
        "pass it as an array")


# --------------------------------------------------------------------------
# the call primitive: jit under other transforms


class JitFunction:
    """The static param of ``jit_call``: a flat function (leaves in, a list of
    leaves out), its compiled form, and the jitted functions derived from it
    by the rules (its JVP, VJP and batched forms), made once and reused."""

    __slots__ = ("fn", "name", "compiled", "derived", "out_tree")

    def __init__(self, fn, name):
        self.fn = fn
        self.name = name
        self.compiled = jit(fn)
        self.derived = {}
        self.out_tree = None

    def derive(self, key, make):
        """The derived :class:`JitFunction` ``key`` (``make(fn)`` on first use)."""
        d = self.derived.get(key)
        if d is None:
            d = self.derived[key] = JitFunction(make(self.fn), f"{key[0]}({self.name})")
        return d

    def __repr__(self):
        return f"jit({self.name})"

    __name__ = property(lambda self: repr(self))


jit_call_p = Primitive("jit_call", multiple_results=True)


@jit_call_p.def_impl
def _jit_impl(*args, fun):
    with set_trace(EVAL):  # the compiled program, on concrete values
        return fun.compiled(*args)


@jit_call_p.def_abstract_eval
def _jit_aval(*avals, fun):
    specs = [a if not hasattr(a, "shape") else ShapeDtypeStruct(a.shape, a.dtype) for a in avals]
    closed, _ = _stage(fun.fn, tuple(specs), {}, ())
    return closed.out_avals


def _jit_jvp(primals, tangents, *, fun):
    n = len(primals)
    ts = [zeros_of(p) if t is None else t for p, t in zip(primals, tangents)]

    def make(f):
        def jvp_fn(*a):
            outs, t_outs = _jvp(lambda *x: list(f(*x)), list(a[:n]), list(a[n:]), False, "jit")
            return [*outs, *t_outs]
        return jvp_fn

    res = jit_call_p.bind(*primals, *ts, fun=fun.derive(("jvp",), make))
    m = len(res) // 2
    outs = res[:m]
    return outs, [t if is_float(o) else None for o, t in zip(outs, res[m:])]


jit_call_p.jvp = _jit_jvp


def _jit_vjp(ct, ans, *primals, fun):
    floats = tuple(i for i, p in enumerate(primals) if is_float(p))
    n = len(primals)

    def make(f):
        def vjp_fn(*a):
            _, pull = vjp_in_floats(f, a[:n], "jit")
            g = pull(list(a[n:]))
            return [g[i] for i in floats]  # (the program's outputs: arrays only)
        return vjp_fn

    # the backward program recomputes the forward pass (only the inputs and
    # outputs were kept), compiled like it
    g = jit_call_p.bind(*primals, *cotangent_list(ct, ans), fun=fun.derive(("vjp", floats), make))
    cts = [None] * n
    for i, gi in zip(floats, g):
        cts[i] = gi
    return cts


jit_call_p.vjp = AllArgsVJP(_jit_vjp)


def _batched_outputs(fun, args, axes):
    """Which outputs of ``fun`` depend on a batched operand, read off its IR
    (an output that does not, a primal next to batched tangents, stays
    unbatched, as the other transforms expect)."""
    specs = []
    for a, ax in zip(args, axes):
        if not hasattr(a, "shape"):
            specs.append(a)
        else:
            shape = tuple(a.shape)[1:] if ax == 0 else tuple(a.shape)
            specs.append(ShapeDtypeStruct(shape, a.dtype))
    key = ("deps", axes, tuple((s.shape, s.dtype) if isinstance(s, ShapeDtypeStruct) else type(s)
                               for s in specs))
    known = fun.derived.get(key)
    if known is None:
        jaxpr = _stage(fun.fn, tuple(specs), {}, ())[0].jaxpr
        batched = {v for v, ax in zip(jaxpr.invars, axes) if ax is not None}
        for eqn in jaxpr.eqns:
            if any(type(a) is not Literal and a in batched for a in eqn.invars):
                batched.update(eqn.outvars)
        known = fun.derived[key] = tuple(type(a) is not Literal and a in batched
                                         for a in jaxpr.outvars)
    return known


def _jit_batch(args, bdims, *, fun):
    moved, axes = batched_args(args, bdims)
    out_axes = tuple(0 if b else None for b in _batched_outputs(fun, moved, axes))
    make = lambda f: vmap(lambda *a: list(f(*a)), in_axes=axes, out_axes=list(out_axes))  # noqa: E731
    outs = jit_call_p.bind(*moved, fun=fun.derive(("vmap", axes, out_axes), make))
    return outs, list(out_axes)


jit_call_p.batch = _jit_batch


def jit(fun=None, *, static_argnums=(), static_argnames=(), donate_argnums=()):
    """Compile ``fun`` once per input signature (JAX's ``jax.jit``).

    Parameters
    ----------
    fun : callable
        A function of pytrees of arrays and Python scalars, written with
        ``tracegrad.numpy`` and the transforms.  Omitted: returns a
        decorator (``@jit(static_argnums=1)``; ``functools.partial(jit,
        ...)`` works too).
    static_argnums, static_argnames : int or str, or tuples of them
        Arguments passed as Python values and made part of the cache key
        (they must be hashable): Python control flow may depend on them.
    donate_argnums : int or tuple of int
        Accepted for JAX compatibility; a no-op (NumPy arrays are not
        donated: inputs are never overwritten).

    Returns
    -------
    callable
        ``fun``'s values.  Attributes: ``lower(*args, **kwargs)`` (the
        :class:`Lowered` program for those arguments: ``as_text()``,
        ``source``), ``clear_cache()``, ``__wrapped__``.

    Raises
    ------
    tracegrad.errors.ConcretizationTypeError
        If ``fun`` branches on, or converts, a non-static argument's value.
    TypeError
        For an argument leaf that is not an array or a Python scalar, or an
        unhashable static argument.

    Notes
    -----
    Arrays ``fun`` closes over are constants of the compiled program, read
    by reference (mutating one in place changes later results; JAX copies
    them at compile time).  Under an enclosing transform it binds the call
    primitive ``jit_call``, whose rules run compiled programs (see the
    module docstring).
    """
    if fun is None:
        return functools.partial(jit, static_argnums=static_argnums,
                                 static_argnames=static_argnames, donate_argnums=donate_argnums)
    if not callable(fun):
        raise TypeError(f"jit expects a callable, got {type(fun).__name__}")
    if isinstance(static_argnums, int):
        static_argnums = (static_argnums,)
    if isinstance(static_argnames, str):
        static_argnames = (static_argnames,)
    static_argnums, static_argnames = tuple(static_argnums), tuple(static_argnames)
    try:
        sig = inspect.signature(fun)
    except (TypeError, ValueError):
        sig = None
    if sig is not None:  # a static name given by position, or a static number by name
        params = list(sig.parameters)
        static_argnames += tuple(params[i] for i in static_argnums
                                 if -len(params) <= i < len(params) and params[i] not in static_argnames)
        positional = [name for name, p in sig.parameters.items()
                      if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        static_argnums += tuple(positional.index(name) for name in static_argnames
                                if name in positional and positional.index(name) not in static_argnums)
    cache = {}

    def split(args, kwargs):
        n = len(args)
        static_pos = {i + n if i < 0 else i for i in static_argnums if -n <= i < n}
        dyn_args = tuple(a for i, a in enumerate(args) if i not in static_pos)
        static = tuple((i, _hashable(args[i], f"number {i}")) for i in sorted(static_pos))
        dyn_kwargs = {k: v for k, v in kwargs.items() if k not in static_argnames}
        static += tuple((k, _hashable(kwargs[k], repr(k)))
                        for k in sorted(kwargs) if k in static_argnames)
        return static_pos, dyn_args, dyn_kwargs, static

    def flat_function(args, kwargs):
        """``(flat, in_tree, static)`` of a call, and fun on the flat leaves."""
        static_pos, dyn_args, dyn_kwargs, static = split(args, kwargs)
        flat, in_tree = tree_flatten((dyn_args, dyn_kwargs))
        static_kwargs = {k: kwargs[k] for k in kwargs if k in static_argnames}
        n_args = len(args)
        fixed = {i: args[i] for i in static_pos}

        def flat_fun(*leaves):
            d_args, d_kwargs = tree_unflatten(in_tree, list(leaves))
            it = iter(d_args)
            full = [fixed[i] if i in fixed else next(it) for i in range(n_args)]
            return fun(*full, **d_kwargs, **static_kwargs)

        return flat, in_tree, static, flat_fun

    def compile_for(args, kwargs):
        flat, in_tree, static, flat_fun = flat_function(args, kwargs)
        # (tracegrad.Array and other subclasses: plain views, the impls' fast paths)
        flat = [x.view(np.ndarray) if isinstance(x, np.ndarray) and type(x) is not np.ndarray
                else x for x in flat]
        key = (in_tree, tuple(_leaf_signature(x, k) for k, x in enumerate(flat)), static)
        entry = cache.get(key)
        if entry is None:
            closed, out_tree = _stage(flat_fun, tuple(flat), {}, ())
            source, run = compile_program(closed)
            entry = cache[key] = Lowered(closed, source, run, out_tree)
        return entry, flat

    call_functions = {}  # (in_tree, static) -> JitFunction, for jit_call

    def bind_call(args, kwargs):
        flat, in_tree, static, flat_fun = flat_function(args, kwargs)
        jf = call_functions.get((in_tree, static))
        if jf is None:
            def leaves_fun(*leaves):
                out_flat, jf.out_tree = tree_flatten(flat_fun(*leaves))
                return out_flat

            jf = call_functions[(in_tree, static)] = JitFunction(
                leaves_fun, getattr(fun, "__name__", "fun"))
        outs = jit_call_p.bind(*flat, fun=jf)
        return tree_unflatten(jf.out_tree, outs)

    # Calls whose arguments are all positional NumPy arrays (the common case)
    # look their program up by (count, shapes and dtypes) alone, without
    # flattening pytrees: 38 -> 5 us per call of a jitted x + 1.0.
    array_calls = {} if not (static_argnums or static_argnames) else None

    @functools.wraps(fun)
    def jitted(*args, **kwargs):
        if array_calls is not None and not kwargs and type(current_trace()) is EvalTrace:
            try:
                key = tuple([(x.shape, x.dtype) for x in args if type(x) is np.ndarray])
            except AttributeError:
                key = None
            if key is not None and len(key) == len(args):
                entry = array_calls.get(key)
                if entry is None:
                    entry = array_calls[key] = compile_for(args, kwargs)[0]
                return tree_unflatten(entry._out_tree, entry._fn(*args))
        flat_all = tree_flatten((args, kwargs))[0]
        if type(current_trace()) is EvalTrace:
            if not any(isinstance(x, Tracer) for x in flat_all):
                entry, flat = compile_for(args, kwargs)
                return tree_unflatten(entry._out_tree, entry._fn(*flat))
            if not any(isinstance(x, Tracer) and not x._trace.eager for x in flat_all):
                return fun(*args, **kwargs)  # tensors of an eager trace (tracegrad.torch)
        if visible_closure_tracers(fun):
            return fun(*args, **kwargs)  # closes over a value being traced: plain code
        return bind_call(args, kwargs)

    def lower(*args, **kwargs):
        return compile_for(args, kwargs)[0]

    jitted.lower = lower
    def clear_cache():
        cache.clear()
        if array_calls is not None:
            array_calls.clear()

    jitted.clear_cache = clear_cache
    jitted._cache_size = lambda: len(cache)
    return jitted
