"""Errors that tracegrad raises for staged (abstract) values, as ``jax.errors``.

A *staged* value exists only as a shape and a dtype while a function is
traced into the IR (``tracegrad.make_jaxpr``, ``tracegrad.eval_shape``):
Python cannot branch on it, convert it to an ``int`` or turn it into a NumPy
array, because it has no value yet.

* :class:`ConcretizationTypeError`: any operation that needs the concrete
  value of a staged one;
* :class:`TracerBoolConversionError`: ``bool(x)``, ``if x:``, ``while x:``,
  ``x and y``;
* :class:`TracerIntegerConversionError`: ``int(x)``, ``operator.index(x)``
  (``range(x)``, ``a[x]`` on a Python list);
* :class:`TracerArrayConversionError`: ``np.asarray(x)`` and the NumPy
  functions tracegrad does not dispatch.

All four are ``TypeError`` subclasses (the last three subclasses of the
first), so one ``except ConcretizationTypeError`` catches them all.  The
message names the operation, the line of the user's code that asked for it
and the fixes.  Part of the core layer: it imports nothing of tracegrad.
"""
import linecache
import os
import sys

__all__ = [
    "ConcretizationTypeError",
    "TracerBoolConversionError",
    "TracerIntegerConversionError",
    "TracerArrayConversionError",
    "concretization_error",
]

_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# the installed tracegrad package and its three mapped source folders
_OWN = tuple(os.path.join(_PACKAGE_DIR, d) + os.sep
             for d in ("tracegrad", "transforms", "primitives", "interpreters"))


class ConcretizationTypeError(TypeError):
    """The concrete value of a staged value was needed (see the module docstring)."""


class TracerBoolConversionError(ConcretizationTypeError):
    """``bool()`` of a staged value: Python control flow on it."""


class TracerIntegerConversionError(ConcretizationTypeError):
    """``int()`` or ``operator.index()`` of a staged value."""


class TracerArrayConversionError(ConcretizationTypeError):
    """Conversion of a staged value to a NumPy array."""


_KINDS = {
    "bool": (TracerBoolConversionError, "bool() (Python control flow: if, while, and, or, not)"),
    "int": (TracerIntegerConversionError, "int() or an index (range(x), a list indexed by x)"),
    "index": (TracerIntegerConversionError, "int() or an index (range(x), a list indexed by x)"),
    "array": (TracerArrayConversionError, "conversion to a NumPy array (np.asarray, or a "
                                          "NumPy function tracegrad does not dispatch)"),
}


def user_line():
    """``"file:line: code"`` of the innermost frame outside tracegrad, or ''."""
    f = sys._getframe(1)
    while f is not None:
        path = os.path.abspath(f.f_code.co_filename)
        if not path.startswith(_OWN):
            line = linecache.getline(path, f.f_lineno).strip()
            return f"{f.f_code.co_filename}:{f.f_lineno}" + (f": {line}" if line else "")
        f = f.f_back
    return ""


def concretization_error(kind, aval):
    """The error for ``kind`` ("bool", "int", "index", "array", or any other
    operation name) applied to a staged value of abstract value ``aval``.

    Returns
    -------
    ConcretizationTypeError
        Of the subclass for ``kind`` (the base class for other operations).
    """
    cls, what = _KINDS.get(kind, (ConcretizationTypeError, kind))
    where = user_line()
    return cls(
        f"Abstract tracer value encountered where a concrete value is expected: {what} "
        f"of a staged value ({aval}) while tracing a function into tracegrad's IR "
        "(jit, make_jaxpr, eval_shape); it has a shape and a dtype but no value yet."
        + (f"\nThe operation is at {where}" if where else "")
        + "\nFixes: mark the argument it comes from as static (static_argnums=...), so "
        "its value is known while tracing; replace the Python branch by a traced "
        "selection (tracegrad.numpy.where(cond, x, y)) or staged control flow "
        "(tracegrad.lax.cond, tracegrad.lax.while_loop); or compute the value from "
        "shapes (x.shape, x.ndim), which are known."
    )
