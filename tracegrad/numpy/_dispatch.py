"""NumPy protocol dispatch for tracers, through explicit tables.

``np.sin(tracer)`` calls ``Tracer.__array_ufunc__`` and ``np.sum(tracer)``
calls ``Tracer.__array_function__``; both look the NumPy callable up in a
table filled by the ``@implements`` decorator of ``tracegrad.numpy``.  A
NumPy function missing from the tables raises a TypeError naming it, so a
tracer never silently becomes an object array or a constant.
"""
import numpy as np

from .. import numpy as tnp  # partially initialised here; read at call time

__all__ = ["implements", "UFUNC_TABLE", "FUNCTION_TABLE", "array_ufunc", "array_function"]

UFUNC_TABLE = {}
FUNCTION_TABLE = {}

# ufunc.reduce / ufunc.accumulate equivalents, filled lazily by name
_REDUCE = {"add": "sum", "multiply": "prod", "maximum": "max", "minimum": "min",
           "logical_and": "all", "logical_or": "any"}
_ACCUMULATE = {"add": "cumsum", "multiply": "cumprod"}


def implements(*np_callables):
    """Register the decorated function as the tracer version of NumPy callables."""

    def register(fn):
        for c in np_callables:
            if isinstance(c, np.ufunc):
                UFUNC_TABLE[c] = fn
            else:
                FUNCTION_TABLE[c] = fn
        return fn

    return register


def _no_rule(name):
    return TypeError(
        f"numpy.{name} is not supported on tracegrad tracers (no derivative rule "
        f"is registered for it). Use the tracegrad.numpy equivalent if there is "
        f"one, express it with supported functions, or apply it to "
        f"tracegrad.stop_gradient(x) if no derivative is needed."
    )


def array_ufunc(self, ufunc, method, *inputs, **kwargs):
    if kwargs.get("out") is not None:
        raise TypeError(
            f"numpy.{ufunc.__name__}(..., out=...) cannot write into an array "
            "inside a tracegrad transform; use the returned value instead."
        )
    kwargs.pop("out", None)
    if method == "__call__":
        fn = UFUNC_TABLE.get(ufunc)
        if fn is None:
            raise _no_rule(ufunc.__name__)
        return fn(*inputs, **kwargs)
    if method == "reduce" and ufunc.__name__ in _REDUCE:
        axis = kwargs.pop("axis", 0)
        return getattr(tnp, _REDUCE[ufunc.__name__])(inputs[0], axis=axis, **kwargs)
    if method == "accumulate" and ufunc.__name__ in _ACCUMULATE:
        axis = kwargs.pop("axis", 0)
        return getattr(tnp, _ACCUMULATE[ufunc.__name__])(inputs[0], axis=axis, **kwargs)
    if method == "outer" and ufunc in UFUNC_TABLE:
        a, b = (tnp.asarray(v) for v in inputs)
        a = tnp.reshape(a, tuple(tnp.shape(a)) + (1,) * tnp.ndim(b))
        return UFUNC_TABLE[ufunc](a, b, **kwargs)
    if method == "at":
        raise TypeError(
            f"numpy.{ufunc.__name__}.at modifies an array in place, which "
            "tracegrad cannot differentiate; use x.at[idx].add(v) / .set(v), "
            "which return a new array."
        )
    raise _no_rule(f"{ufunc.__name__}.{method}")


def array_function(self, func, types, args, kwargs):
    fn = FUNCTION_TABLE.get(func)
    if fn is None:
        mod = getattr(func, "__module__", "numpy") or "numpy"
        name = func.__name__
        if mod.startswith("numpy.linalg"):
            name = "linalg." + name
        raise _no_rule(name)
    return fn(*args, **kwargs)
