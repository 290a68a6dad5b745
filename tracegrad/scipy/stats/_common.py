"""What the distribution modules share: standardizing, the support mask, and
the numpydoc sections every distribution function has (so each function's
docstring states only what it computes)."""
import functools
import inspect
import math

from ... import numpy as tnp
from ...primitives import ops
from ..special import _reals

__all__ = ["documented", "exp_of", "standardize", "reals", "outside", "log1mexp", "on_integers",
           "off_support", "log_of"]

_PARAMS = {
    "x": "x : array_like or tracer\n    Points, real.",
    "k": "k : array_like or tracer\n    Points (counts; non-integers have probability 0).",
    "q": "q : array_like or tracer\n    Probabilities in ``[0, 1]`` (NaN outside).",
    "loc": "loc : array_like or tracer, optional\n    Location (default 0).",
    "scale": "scale : array_like or tracer, optional\n    Scale, positive (default 1).",
    "df": "df : array_like or tracer\n    Degrees of freedom, positive.",
    "a": "a : array_like or tracer\n    Shape parameter, positive.",
    "b": "b : array_like or tracer\n    Second shape parameter, positive.",
    "mu": "mu : array_like or tracer\n    Mean, positive.",
    "p": "p : array_like or tracer\n    Probability of 1, in ``[0, 1]``.",
}


# The parameter values SciPy accepts; elsewhere every result is NaN, as in SciPy.
_VALID = {
    "scale": lambda v: ops.gt(v, 0.0),
    "df": lambda v: ops.gt(v, 0.0),
    "a": lambda v: ops.gt(v, 0.0),
    "b": lambda v: ops.gt(v, 0.0),
    "mu": lambda v: ops.ge(v, 0.0),
    "p": lambda v: ops.logical_and(ops.ge(v, 0.0), ops.le(v, 1.0)),
}


def documented(*params):
    """Decorator: append the Parameters, Returns and Raises sections of a
    distribution function of ``params`` to its docstring, and give NaN where
    a parameter is outside its domain (``scale``, ``df``, ``a``, ``b`` <= 0,
    ``mu`` < 0, ``p`` outside ``[0, 1]``), as SciPy does.

    A parameter is a name of the tables above, or a tuple ``(name, doc,
    valid)`` for one this distribution defines itself (``doc`` its numpydoc
    line, ``valid`` a function giving the mask of accepted values, or None)."""

    def decorate(fn):
        docs, valid_of = dict(_PARAMS), dict(_VALID)
        names = []
        for p in params:
            if isinstance(p, tuple):
                name, doc, valid = p
                docs[name] = f"{name} : array_like or tracer\n    {doc}"
                valid_of.pop(name, None)
                if valid is not None:
                    valid_of[name] = valid
                p = name
            names.append(p)
        lines = "\n".join(docs[p] for p in names)
        checked = [p for p in names if p in valid_of]
        signature = inspect.signature(fn)

        @functools.wraps(fn)
        def checked_fn(*args, **kwargs):
            out = fn(*args, **kwargs)
            bound = signature.bind(*args, **kwargs)
            bound.apply_defaults()
            valid = None
            for name in checked:
                ok = valid_of[name](reals(fn.__name__, bound.arguments[name])[0])
                valid = ok if valid is None else ops.logical_and(valid, ok)
            return out if valid is None else tnp.where(valid, out, float("nan"))

        checked_fn.__doc__ = (
            inspect.cleandoc(fn.__doc__) + "\n\nParameters\n----------\n" + lines
            + "\n\nReturns\n-------\narray or tracer\n"
            "    The operands' broadcast shape and float dtype (float32 stays float32);\n"
            "    differentiable in every float operand; NaN where a parameter is\n"
            "    outside its domain (as in SciPy).\n"
            "\nRaises\n------\nTypeError\n    If an operand is complex.\n"
        )
        return checked_fn

    return decorate


def reals(name, *values):
    """Each of ``values`` as a float array or tracer (ints give float64;
    Python scalars take the arrays' float dtype)."""
    return _reals(f"tracegrad.scipy.stats.{name}", *values)


def standardize(x, loc, scale, name):
    """``((x - loc) / scale, scale)``, operands made float."""
    x, loc, scale = reals(name, x, loc, scale)
    return ops.div(ops.sub(x, loc), scale), scale


def outside(mask, value, fill):
    """``fill`` where ``mask``, else ``value`` (``fill`` a Python float)."""
    return ops.select(mask, ops.add(ops.zeros_like(value), fill), value)



def exp_of(log_fn, name):
    """The function ``exp(log_fn(...))`` named ``name`` (``pdf`` from
    ``logpdf``, ``pmf`` from ``logpmf``), with ``log_fn``'s signature and
    documented sections."""

    @functools.wraps(log_fn)
    def fn(*args, **kwargs):
        return ops.exp(log_fn(*args, **kwargs))

    fn.__name__ = fn.__qualname__ = name
    doc = inspect.cleandoc(log_fn.__doc__)
    sections = doc[doc.index("\n\nParameters"):]
    fn.__doc__ = f"``exp({log_fn.__name__}(...))``, with the same arguments." + sections
    return fn


_LOG2 = math.log(2.0)


def log1mexp(t):
    """``log(1 - exp(-t))`` for ``t >= 0``: ``log(-expm1(-t))`` for ``t <= log 2``,
    ``log1p(-exp(-t))`` above (M. Maechler, "Accurately computing log(1 - exp(-|a|))",
    2012: each form where it keeps relative accuracy); ``-inf`` at 0.  The branch not
    taken sees a harmless operand, so derivatives stay finite."""
    small = ops.le(t, _LOG2)
    ts = ops.select(small, t, ops.add(ops.zeros_like(t), _LOG2))
    tl = ops.select(small, ops.add(ops.zeros_like(t), _LOG2), t)
    return ops.select(small, ops.log(ops.neg(ops.expm1(ops.neg(ts)))),
                      ops.log1p(ops.neg(ops.exp(ops.neg(tl)))))


def on_integers(k, lo=None, hi=None):
    """``(off, ks)``: the mask of ``k`` that are not integers in ``[lo, hi]`` (bounds
    optional, arrays or floats) and ``k`` with those entries replaced by ``lo`` (or 0),
    a harmless operand for the formula whose result ``off_support`` then discards."""
    off = ops.ne(k, ops.floor(k))
    if lo is not None:
        off = ops.logical_or(off, ops.lt(k, lo))
    if hi is not None:
        off = ops.logical_or(off, ops.gt(k, hi))
    fill = ops.zeros_like(k) if lo is None else ops.add(ops.zeros_like(k), lo)
    return off, ops.select(off, fill, k)


def off_support(k, off, value):
    """A log-pmf ``value``: ``-inf`` where ``off``, NaN where ``k`` is NaN (as SciPy)."""
    return outside(ops.isnan(k), outside(off, value, -float("inf")), float("nan"))


def log_of(p, q):
    """``log(p)`` given ``p`` and its complement ``q = 1 - p`` (each accurate):
    ``log1p(-q)`` where ``p > 1/2`` (so a CDF near 1 keeps its relative
    accuracy), ``log(p)`` elsewhere; each side sees a harmless operand where
    it is not taken, so no ``0 * inf`` reaches a derivative."""
    big = ops.gt(p, 0.5)
    half = ops.mul(0.5, ops.ones_like(p))
    return ops.select(big, ops.log1p(ops.neg(ops.select(big, q, half))), ops.log(ops.select(big, half, p)))
