"""The public boundary of ``tracegrad.numpy``: results as :class:`tracegrad.Array`.

Every public function of ``tracegrad.numpy`` (and of its ``linalg`` and
``fft``) passes through :func:`array_result`, most of them by way of
``@implements`` (see ``_dispatch.py``), the others by decorating their
definition.  A plain ndarray result becomes an ``Array`` view of it (no
copy); tracers, NumPy scalars and anything else pass through unchanged, so
under a transform nothing changes but a few type checks per call.  Tuples
and lists of arrays (``split``, ``linalg.eigh``, ``meshgrid``, ...) have
their ndarray items converted the same way.  Array arguments (positional or
keyword; not those nested in lists) are handed to the function as plain
ndarray views: the primitives' impls then see what they see for plain
NumPy input (the same Numba kernels, the same bits, no subclass overhead).

:func:`install` gives :class:`tracegrad.Array` JAX's ``a.at`` and indexing
with traced indices; it runs when ``tracegrad.numpy`` is imported.
"""
import functools
import inspect
import types

import numpy as np

from .. import numpy as tnp  # partially initialised here; read at call time
from .._array import Array
from ..core import Tracer, TracerConversionError

__all__ = []

_ndarray = np.ndarray


def _items(seq):
    """``seq`` (a tuple, namedtuple or list) with its ndarray items as Arrays."""
    if not any(type(o) is _ndarray for o in seq):
        return seq
    items = [o.view(Array) if type(o) is _ndarray else o for o in seq]
    cls = type(seq)
    if cls is list:
        return items
    if cls is tuple:
        return tuple(items)
    if hasattr(seq, "_fields"):  # namedtuple results (linalg.eigh, unique_all, ...)
        return cls(*items)
    return cls(items)


def _plain(x):
    return x.view(_ndarray) if type(x) is Array else x


def _plain_args(args):
    return tuple([a.view(_ndarray) if type(a) is Array else a for a in args])


def _plain_kwargs(kwargs):
    for v in kwargs.values():
        if type(v) is Array:
            return {k: _plain(v) for k, v in kwargs.items()}
    return kwargs


#: What to do with a result of each type: 0 return it, 1 view it as an
#: Array, 2 convert its items.  Filled as new result types appear (tracers,
#: scalars, namedtuples), so the check is one dict lookup.
_KIND = {_ndarray: 1, tuple: 2, list: 2, Array: 0}


def _kind(cls):
    kind = _KIND[cls] = 2 if issubclass(cls, (tuple, list)) else 0
    return kind


def _wrappers(fn):
    """The two wrappers of ``fn``: for a first positional parameter named
    ``_x`` (:func:`array_result` renames it to ``fn``'s), and for anything."""
    kinds, learn, array_type, items = _KIND, _kind, Array, _items
    plain, plain_args, plain_kwargs = _plain, _plain_args, _plain_kwargs
    type_ = type  # fn's module may shadow names; closure variables cannot be

    def public_x(_x, *args, **kwargs):
        if type_(_x) is array_type:  # fn computes on plain ndarrays (kernels, speed)
            _x = plain(_x)
        if args or kwargs:
            out = fn(_x, *plain_args(args), **plain_kwargs(kwargs))
        else:
            out = fn(_x)
        kind = kinds.get(type_(out))
        if kind is None:
            kind = learn(type_(out))
        if kind == 0:
            return out
        return out.view(array_type) if kind == 1 else items(out)

    def public(*args, **kwargs):
        out = fn(*plain_args(args), **plain_kwargs(kwargs))
        kind = kinds.get(type_(out))
        if kind is None:
            kind = learn(type_(out))
        if kind == 0:
            return out
        return out.view(array_type) if kind == 1 else items(out)

    return public_x, public


def _first_parameter(fn):
    """``(name, positional-only)`` of ``fn``'s first parameter if it is a
    required positional one, else None."""
    try:
        params = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):  # builtins without a signature
        return None
    if not params:
        return None
    p = params[0]
    if p.default is not p.empty or p.kind not in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
        return None
    return p.name, p.kind is p.POSITIONAL_ONLY


def array_result(fn):
    """Decorate a public ``tracegrad.numpy`` function: its plain ndarray
    results become :class:`Array` views, its Array arguments reach it as plain
    ndarray views (see the module docstring).

    The common case, a required first positional parameter, gets a wrapper
    with that parameter by name (``tnp.sum(a=x)`` still works), so a call
    with one argument costs a plain call more than ``fn`` itself (no
    ``*args`` forwarding).  The wrapper shares ``fn``'s module globals
    (``__globals__``), as if defined next to it; everything it uses is a
    closure variable."""
    if hasattr(fn, "_raw"):
        return fn
    public_x, public = _wrappers(fn)
    first = _first_parameter(fn)
    if first is not None and first[0] not in public_x.__code__.co_varnames:
        name, positional_only = first
        code = public_x.__code__.replace(
            co_varnames=(name,) + public_x.__code__.co_varnames[1:],
            co_posonlyargcount=1 if positional_only else 0,
            co_name=getattr(fn, "__name__", "public"),
            co_qualname=getattr(fn, "__qualname__", "public"),
        )
        closure = public_x.__closure__
    else:
        code, closure = public.__code__, public.__closure__
    wrapper = types.FunctionType(code, getattr(fn, "__globals__", globals()),
                                 code.co_name, None, closure)
    wrapper = functools.wraps(fn)(wrapper)
    wrapper._raw = fn
    return wrapper


def _contains_tracer(idx):
    if isinstance(idx, Tracer):
        return True
    if isinstance(idx, (tuple, list)):
        return any(_contains_tracer(e) for e in idx)
    return False


_ndarray_getitem = np.ndarray.__getitem__


def _getitem(self, idx):
    """NumPy's indexing; an index holding a tracer goes to tracegrad's
    (``tnp.at(a)[idx].get()``), so ``a[i]`` works under every transform."""
    try:
        return _ndarray_getitem(self, idx)
    except (TracerConversionError, IndexError, TypeError, ValueError):
        if not _contains_tracer(idx):
            raise
    return tnp.at(self.view(_ndarray))[idx].get()


def _at(self):
    """JAX's ``a.at[idx].set(v)`` (and ``add``, ``subtract``, ``multiply``,
    ``divide``, ``power``, ``min``, ``max``, ``get``): a new array, ``a``
    unchanged.  The same as ``tracegrad.numpy.at(a)``."""
    return tnp.at(self.view(_ndarray))


def install():
    """Give :class:`tracegrad.Array` its ``at`` property and traced indexing."""
    Array.__getitem__ = _getitem
    Array.at = property(_at)


install()
