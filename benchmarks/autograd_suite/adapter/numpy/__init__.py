"""autograd.numpy -> tracegrad.numpy, plus the few names autograd's wrapper
adds (``make_diagonal``, ``row_stack``, its ``where``); dtype names and
other constants tracegrad.numpy does not re-export come from NumPy, and
``random`` is NumPy's (the tests draw their data from it)."""
import numpy as _np

import tracegrad.numpy as _tnp
from tracegrad.core import Tracer as _Tracer
from tracegrad.numpy import *  # noqa: F401,F403
import importlib as _importlib

# (the star import bound tracegrad's linalg and fft: rebind this package's)
fft, linalg, random = (_importlib.import_module(f"{__name__}.{m}") for m in ("fft", "linalg", "random"))

__version__ = _np.__version__


def make_diagonal(D, offset=0, axis1=0, axis2=1):
    """``D`` on the diagonal of two new last axes (autograd supports only
    ``offset=0, axis1=-1, axis2=-2``)."""
    if not (offset == 0 and axis1 == -1 and axis2 == -2):
        raise NotImplementedError("make_diagonal supports only offset=0, axis1=-1, axis2=-2")
    return _tnp.expand_dims(D, -1) * _tnp.eye(_tnp.shape(D)[-1])


def row_stack(arrays):
    """NumPy 1's ``row_stack`` (``vstack``), which autograd keeps."""
    return _tnp.vstack(arrays)


def where(condition=None, x=None, y=None):
    """autograd's ``where``: keyword arguments, ``where(c)`` is ``nonzero(c)``,
    and a Python-bool condition over Python values returns the value chosen."""
    if x is None and y is None:
        return _tnp.nonzero(condition)
    arrays = (_np.ndarray, _np.generic, _Tracer)
    if isinstance(condition, bool) and not isinstance(x, arrays) and not isinstance(y, arrays):
        return x if condition else y
    return _tnp.where(condition, x, y)


def __getattr__(name):
    try:
        return getattr(_tnp, name)
    except AttributeError:
        value = getattr(_np, name)
        if callable(value) and not isinstance(value, type):
            raise
        return value  # dtypes and constants
