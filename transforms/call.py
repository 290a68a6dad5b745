"""What the call primitives of the transforms share.

A *call primitive* is one primitive whose static params carry user
functions (closures made per call, over the flattened pytrees):
``custom_jvp_call`` and ``custom_vjp_call``
(:mod:`tracegrad.transforms.custom_derivatives`) and ``remat_call``
(:mod:`tracegrad.transforms.checkpointing`).  This module owns the pieces
their rules and wrappers have in common: running a function on concrete
values for the impl and the abstract eval, per-argument VJP rules backed by
one rule for all arguments, the marker cotangent of a hidden operand that
has none, binding keyword arguments to positions, and moving batched
operands to axis 0.  How the functions' closed-over tracers are found is
the closure interpreter's business (:mod:`tracegrad.interpreters.closure`).
"""
import functools
import inspect

import numpy as np

from ..core import EvalTrace, ShapedArray, Tracer, _ctx, dtype_of, set_trace, shape_of
from ..primitives import ops
from ..primitives.batching import move_bdim
from .api import _vjp

__all__ = ["EVAL", "call_aval", "is_float", "zeros_of", "as_output", "untraced",
           "HiddenCotangent", "AllArgsVJP", "cotangent_list", "vjp_in_floats", "resolve_args",
           "batched_args"]

#: Impls run their functions on concrete values straight on the eval
#: interpreter (not through the traces above it, which already let the call pass).
EVAL = EvalTrace(None)


def call_aval(*avals, fun, **params):
    """Abstract eval of a call primitive: ``fun`` run on zeros of the avals.

    Parameters
    ----------
    *avals : ShapedArray or value
        The operands' abstract values (non-arrays are passed as they are).
    fun : callable
        The call's function on flat operands, returning a list of arrays.
    **params
        The call's other params (unused).

    Returns
    -------
    list of ShapedArray
        One per output of ``fun``.
    """
    zeros = [np.zeros(a.shape, a.dtype) if hasattr(a, "shape") else a for a in avals]
    with set_trace(EVAL):
        outs = fun(*zeros)
    return [ShapedArray(np.shape(o), np.asarray(o).dtype) for o in outs]


def is_float(x):
    """True when ``x`` (array, scalar or tracer) has a floating or complex
    dtype: the dtypes that carry derivatives."""
    return np.dtype(dtype_of(x)).kind in "fc"


def zeros_of(x):
    """Concrete zeros of ``x``'s shape and dtype."""
    return np.zeros(shape_of(x), dtype_of(x))


def as_output(x):
    """An output leaf of a user function as a tracer or an ndarray."""
    return x if isinstance(x, Tracer) else np.asarray(x)


def untraced(flat):
    """True when no transform is running and no argument is traced (the
    call would only evaluate the function)."""
    return type(_ctx.trace) is EvalTrace and not any(isinstance(x, Tracer) for x in flat)


class HiddenCotangent:
    """The cotangent of a hidden (closed-over) operand of a custom rule: there
    is none; asking for it (differentiating with respect to a closure) raises
    TypeError with :attr:`message` (see :class:`AllArgsVJP`).

    Parameters
    ----------
    kind : str
        ``"custom_jvp"`` or ``"custom_vjp"``.
    name : str
        The user function's name.
    """

    __slots__ = ("message",)

    def __init__(self, kind, name):
        self.message = (
            f"Detected differentiation of a {kind} function ({name}) with respect to a "
            f"closed-over value. That isn't supported because the custom rule only "
            f"specifies how to differentiate {name} with respect to its explicit "
            "arguments. Pass the closed-over value into the function as an argument, "
            "and adapt the rule."
        )


class AllArgsVJP:
    """Per-argument VJP rules backed by one rule computing every argument's
    cotangent: the first argument's call computes all of them, the others
    reuse the result for the same cotangent object.

    Parameters
    ----------
    rule : callable
        ``rule(ct, ans, *primals, **params) -> list`` with one cotangent
        (None for a zero, a :class:`HiddenCotangent` for none) per primal.
    """

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
        if type(c) is HiddenCotangent:
            self.last = None
            raise TypeError(c.message)
        return c


def vjp_in_floats(fun, primals, name):
    """Reverse mode of a call's flat function in its float arguments only
    (the others are passed as they are): what the call primitives' VJP rules
    run again from the recorded inputs.

    Parameters
    ----------
    fun : callable
        ``fun(*primals) -> list`` of output leaves.
    primals : sequence
        The call's operands.
    name : str
        The public transform, for error messages.

    Returns
    -------
    outs : list
        ``fun``'s outputs, recomputed.
    pull : callable
        ``pull(cts) -> list`` with one cotangent per primal: None for the
        ones that are not floats.
    """
    primals = list(primals)
    floats = [i for i, p in enumerate(primals) if is_float(p)]

    def f(*xs):
        args = list(primals)
        for i, x in zip(floats, xs):
            args[i] = x
        return list(fun(*args))

    outs, pull_floats = _vjp(f, tuple(primals[i] for i in floats), False, name)

    def pull(cts):
        out = [None] * len(primals)
        for i, g in zip(floats, pull_floats(cts)):
            out[i] = g
        return out

    return outs, pull


def cotangent_list(ct, ans):
    """The output cotangents of a call with symbolic zeros (None) made zeros."""
    return [ops.zeros_like(a) if c is None else c for c, a in zip(ct, ans)]


@functools.lru_cache(maxsize=256)
def _signature(fun):
    return inspect.signature(fun)


def resolve_args(fun, args, kwargs, name):
    """Keyword arguments and defaults bound to positions (the call primitives
    are positional, and rules see every argument, as in JAX).

    Parameters
    ----------
    fun : callable
        The user function.
    args : tuple
        Positional arguments of the call.
    kwargs : dict
        Keyword arguments of the call.
    name : str
        The wrapper (``"checkpoint"``, ``"custom_jvp"``), for messages.

    Returns
    -------
    tuple
        Every argument, by position, defaults filled in.

    Raises
    ------
    TypeError
        If the arguments do not match ``fun``'s signature, or ``fun`` takes
        keyword-only or ``**kwargs`` arguments that were used.
    """
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


def batched_args(args, bdims):
    """Batched operands moved to axis 0, with their vmap ``in_axes`` (0 or None).

    Parameters
    ----------
    args : sequence
        A batching rule's operands.
    bdims : sequence of int or None
        Their batch dims.

    Returns
    -------
    moved : list
        The operands, each batched one with its batch dim first.
    axes : tuple of int or None
        0 for a batched operand, None for an unbatched one.
    """
    moved = [a if d is None else move_bdim(a, d, 0) for a, d in zip(args, bdims)]
    return moved, tuple(None if d is None else 0 for d in bdims)
