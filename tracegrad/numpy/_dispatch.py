"""NumPy protocol dispatch for tracers, through explicit tables.

``np.sin(tracer)`` calls ``Tracer.__array_ufunc__`` and ``np.sum(tracer)``
calls ``Tracer.__array_function__``; both look the NumPy callable up in a
table filled by the ``@implements`` decorator of ``tracegrad.numpy``; a
``scipy.special`` ufunc runs the function of the same name in
``tracegrad.scipy.special`` when there is one.  A
NumPy (or SciPy) function missing from the tables raises a TypeError naming
it by its public module (``scipy.special.erf``, ``numpy.linalg.pinv``), so a
tracer never silently becomes an object array or a constant; the message
points to the tracegrad function of the same name when there is one.
"""
import sys

import numpy as np

from .. import numpy as tnp  # partially initialised here; read at call time
from ._array_type import array_result

__all__ = ["implements", "UFUNC_TABLE", "FUNCTION_TABLE", "array_ufunc", "array_function"]

UFUNC_TABLE = {}
FUNCTION_TABLE = {}

# ufunc.reduce / ufunc.accumulate equivalents, filled lazily by name
_REDUCE = {"add": "sum", "multiply": "prod", "maximum": "max", "minimum": "min",
           "logical_and": "all", "logical_or": "any"}
_ACCUMULATE = {"add": "cumsum", "multiply": "cumprod"}


def implements(*np_callables):
    """Register the decorated function as the tracer version of NumPy callables.

    The tables keep ``fn`` itself (tracers in, tracers out); the decorated
    name becomes ``array_result(fn)``, whose plain ndarray results are
    :class:`tracegrad.Array` views (the public boundary, ``_array_type.py``).
    """

    def register(fn):
        fn = getattr(fn, "_raw", fn)
        for c in np_callables:
            if isinstance(c, np.ufunc):
                UFUNC_TABLE[c] = fn
            else:
                FUNCTION_TABLE[c] = fn
        return array_result(fn)

    return register


def _public_module(func):
    """The public module of a NumPy/SciPy callable: ``scipy.special`` for
    ``scipy.special._logsumexp``, ``numpy`` for ``numpy._core...``, the module
    of the SciPy namespace holding a ufunc (ufuncs do not record theirs)."""
    name = getattr(func, "__name__", repr(func))
    mod = getattr(func, "__module__", None)
    if isinstance(func, np.ufunc) and (mod is None or getattr(np, name, None) is not func):
        for candidate in ("numpy", "scipy.special"):
            m = sys.modules.get(candidate)
            if m is not None and getattr(m, name, None) is func:
                return candidate
        return mod
    if not mod:
        return None
    parts = mod.split(".")
    for i, part in enumerate(parts):
        if part.startswith("_"):
            parts = parts[:i]
            break
    public = ".".join(parts)
    return public


# SciPy functions whose tracegrad version lives elsewhere under another name
_ALIASES = {
    ("scipy.special", "expit"): "tracegrad.nn.sigmoid",
    ("scipy.special", "log_expit"): "tracegrad.nn.log_sigmoid",
    ("scipy.special", "logsumexp"): "tracegrad.nn.logsumexp",
    ("scipy.special", "softmax"): "tracegrad.nn.softmax",
    ("scipy.special", "log_softmax"): "tracegrad.nn.log_softmax",
}


def _resolve(path):
    """The object at dotted ``path`` among the loaded modules, or None.

    ``import tracegrad`` loads every tracegrad namespace (``tracegrad.nn``,
    ``tracegrad.numpy.linalg``, ...), so nothing needs importing here."""
    mod_name, _, attr = path.rpartition(".")
    return getattr(sys.modules.get(mod_name), attr, None)


def _equivalent(module, name):
    """The dotted name of tracegrad's version of ``module.name``, or None."""
    if (module, name) in _ALIASES:
        candidates = [_ALIASES[module, name]]
    elif module and (module == "numpy" or module.startswith(("numpy.", "scipy."))):
        sub = "" if module == "numpy" else module[len("numpy"):] if module.startswith("numpy.") \
            else None
        candidates = ([f"tracegrad.numpy{sub}.{name}"] if sub is not None
                      else [f"tracegrad.{module}.{name}"])
    else:
        candidates = []
    for c in candidates:
        if callable(_resolve(c)):
            return c
    return None


def _no_rule(name, module="numpy"):
    qual = f"{module}.{name}" if module else name
    base = name.split(".")[0]
    equivalent = _equivalent(module, base) if "." not in name else None
    if equivalent is not None:
        advice = (f"Call {equivalent}(...) instead (tracegrad's version, differentiable), "
                  f"or apply {qual} to tracegrad.stop_gradient(x) if no derivative is needed.")
    else:
        advice = ("tracegrad has no version of it yet: express it with supported functions "
                  "(tracegrad.numpy), or apply it to tracegrad.stop_gradient(x) if no "
                  "derivative is needed.")
    return TypeError(
        f"{qual} is not supported on tracegrad tracers (no derivative rule is registered "
        f"for it). {advice}"
    )


def _scipy_special_version(ufunc):
    """``tracegrad.scipy.special``'s function for a ``scipy.special`` ufunc
    (the ufunc itself, found in SciPy's namespace under its name, so
    ``scipy.special.erf(tracer)`` runs ``tracegrad.scipy.special.erf``), or None."""
    if _public_module(ufunc) != "scipy.special":
        return None
    fn = _resolve(f"tracegrad.scipy.special.{ufunc.__name__}")
    return fn if callable(fn) else None


def array_ufunc(self, ufunc, method, *inputs, **kwargs):
    if kwargs.get("out") is not None:
        raise TypeError(
            f"numpy.{ufunc.__name__}(..., out=...) cannot write into an array "
            "inside a tracegrad transform; use the returned value instead."
        )
    kwargs.pop("out", None)
    if method == "__call__":
        fn = UFUNC_TABLE.get(ufunc) or _scipy_special_version(ufunc)
        if fn is None:
            raise _no_rule(ufunc.__name__, _public_module(ufunc))
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
    raise _no_rule(f"{ufunc.__name__}.{method}", _public_module(ufunc))


def array_function(self, func, types, args, kwargs):
    fn = FUNCTION_TABLE.get(func)
    if fn is None:
        raise _no_rule(getattr(func, "__name__", repr(func)), _public_module(func))
    return fn(*args, **kwargs)
