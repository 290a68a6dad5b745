"""Primitive objects, the registry, and the helpers that declare their rules.

A :class:`Primitive` is the unit of math that interpreters understand.  Each
one is declared once, and right below the declaration come all of its rules:

``impl``
    ``impl(*arrays, **params)`` on concrete NumPy arrays (a Numba kernel or
    a NumPy call, chosen by measurement; see ``primitives/kernels.py``).
``abstract_eval``
    ``abstract_eval(*avals, **params) -> (shape, dtype)`` (or a list of them
    for multiple results); ``avals`` are ``(shape, dtype)`` pairs.  Used by
    staging and checked against ``impl`` for every primitive by the tests.
``jvp``
    ``jvp(primals, tangents, **params) -> (primal_out, tangent_out)``, where
    a ``None`` tangent is a symbolic zero.  Usually built by :func:`defjvp`
    from one linear rule per argument.
``vjp``
    A tuple with one rule per argument,
    ``rule(ct, ans, *primals, **params) -> cotangent``; ``None`` marks an
    argument with no derivative.  Usually set by :func:`defvjp`.

Rules are written with primitives (never raw NumPy), so every rule is itself
differentiable: that is what makes ``grad(grad(f))`` work.

``bind`` is the only door: it hands the operation to the current trace.
Array operands are positional; static parameters are keywords and must be
hashable.
"""
import functools

from ..core import Primitive, ShapedArray, dtype_of, registry, shape_of

# The rules built below call primitives (ops.add, ...) at call time; ``ops``
# is imported first by ``primitives/__init__`` and is partially initialised
# when this module runs, which is all a module-level ``from . import`` needs.
from . import ops

__all__ = [
    "Primitive",
    "ShapedArray",
    "shape_of",
    "dtype_of",
    "registry",
    "defjvp",
    "defvjp",
    "defvjp_variadic",
    "defjvp_linear",
    "def_nondifferentiable",
]

def defjvp(prim, *rules, post=None):
    """Build ``prim.jvp`` from one linear rule per argument.

    Each rule is ``rule(tangent, ans, *primals, **params)`` returning that
    argument's contribution to the output tangent (``None`` for arguments
    with no derivative).  Contributions are summed; the sum is broadcast and
    cast to the output's shape and dtype, so broadcasting operations need no
    special care.  ``post`` optionally maps ``(tangent_out, ans)`` for
    multiple-result primitives; single-result primitives need nothing.
    """
    rules = tuple(rules)

    def jvp(primals, tangents, **params):
        ans = prim.bind(*primals, **params)
        out = None
        for rule, t in zip(rules, tangents):
            if t is None or rule is None:
                continue
            c = rule(t, ans, *primals, **params)
            if c is None:
                continue
            out = c if out is None else ops.add(out, c)
        if out is not None:
            out = ops.match_aval(out, ans)
        return ans, out

    prim.jvp = jvp
    return jvp


def defjvp_linear(prim):
    """JVP of a primitive that is linear in all of its array arguments.

    The tangent is the primitive applied to the tangents, with symbolic
    zeros instantiated where some (but not all) arguments have tangents.
    """
    def jvp(primals, tangents, **params):
        ans = prim.bind(*primals, **params)
        if all(t is None for t in tangents):
            return ans, None
        ts = [ops.zeros_like(p) if t is None else t for p, t in zip(primals, tangents)]
        return ans, prim.bind(*ts, **params)

    prim.jvp = jvp
    return jvp


def defvjp(prim, *rules):
    """Set the per-argument VJP rules of ``prim``.

    Each rule is ``rule(ct, ans, *primals, **params) -> cotangent`` for its
    argument, or ``None`` when the argument has no derivative.  The returned
    cotangent must have that argument's shape and dtype; the backward pass
    checks this.
    """
    prim.vjp = tuple(rules)
    return prim.vjp


class _VariadicRules:
    """Per-argument VJP rules for a primitive taking any number of operands."""

    __slots__ = ("rule", "cache")

    def __init__(self, rule):
        self.rule = rule
        self.cache = {}

    def __getitem__(self, i):
        r = self.cache.get(i)
        if r is None:
            r = self.cache[i] = functools.partial(self.rule, i)
        return r


def defvjp_variadic(prim, rule):
    """Set one VJP rule for every operand of a variadic primitive.

    ``rule(i, ct, ans, *primals, **params)`` returns the cotangent of
    operand ``i``.
    """
    prim.vjp = _VariadicRules(rule)
    return prim.vjp


def def_nondifferentiable(prim):
    """Mark ``prim`` as carrying no derivative (comparisons, argmax, ...)."""
    prim.differentiable = False
    prim.jvp = None
    prim.vjp = None
    return prim
