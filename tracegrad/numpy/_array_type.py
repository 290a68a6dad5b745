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


def array_result(fn):
    """Decorate a public ``tracegrad.numpy`` function: its plain ndarray
    results become :class:`Array` views (see the module docstring).

    The wrapper shares ``fn``'s module globals (``__globals__``), as if it
    were defined next to ``fn``; everything it uses is a closure variable."""
    if hasattr(fn, "_raw"):
        return fn
    ndarray, array_type, items, plain, plain_args = _ndarray, Array, _items, _plain, _plain_args
    type_, tuple_, list_, isinstance_ = type, tuple, list, isinstance  # fn's module may shadow

    def public(*args, **kwargs):
        for a in args:
            if type_(a) is array_type:  # fn computes on plain ndarrays (kernels, speed)
                args = plain_args(args)
                break
        if kwargs:
            for a in kwargs.values():
                if type_(a) is array_type:
                    kwargs = {k: plain(v) for k, v in kwargs.items()}
                    break
        out = fn(*args, **kwargs)
        cls = type_(out)
        if cls is ndarray:
            return out.view(array_type)
        if cls is tuple_ or cls is list_ or isinstance_(out, tuple_):
            return items(out)
        return out

    public = types.FunctionType(public.__code__, getattr(fn, "__globals__", globals()),
                                public.__name__, None, public.__closure__)
    public = functools.wraps(fn)(public)
    public._raw = fn
    return public


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
