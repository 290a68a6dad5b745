"""Operators, methods and NumPy protocols of tracers.

Installed on :class:`tracegrad.core.ArrayTracer` when
``tracegrad.numpy`` is imported, so a tracer behaves like an ndarray:
``x + y``, ``x @ y``, ``x[idx]``, ``x.sum(axis=0)``, ``x.T``, ``np.sin(x)``.
Arithmetic operators bind primitives directly (they are the hot path);
methods forward to the ``tracegrad.numpy`` function of the same name,
looked up when called.
"""
from ..core import ArrayTracer
from ..primitives import ops
from ._core import arg
from ._dispatch import array_function, array_ufunc


def _binary(op, reverse=False):
    if reverse:
        def method(self, other):
            if isinstance(other, (list, tuple)):
                other = arg(other)
            return op(other, self)
    else:
        def method(self, other):
            if isinstance(other, (list, tuple)):
                other = arg(other)
            return op(self, other)
    return method


def _tnp(name):
    def method(self, *args, **kwargs):
        from .. import numpy as tnp

        return getattr(tnp, name)(self, *args, **kwargs)

    method.__name__ = name
    method.__doc__ = f"Same as ``tracegrad.numpy.{name}(self, ...)``."
    return method


def _tnp_reflected(name):
    def method(self, other):
        from .. import numpy as tnp

        return getattr(tnp, name)(other, self)

    method.__name__ = name
    return method


def _shape_args(args):
    # x.reshape(2, 3) and x.reshape((2, 3)) both work, as for ndarrays
    return args[0] if len(args) == 1 else args


def _reshape(self, *shape, order="C"):
    from .. import numpy as tnp

    return tnp.reshape(self, _shape_args(shape), order=order)


def _transpose(self, *axes):
    from .. import numpy as tnp

    axes = None if not axes else _shape_args(axes)
    return tnp.transpose(self, axes)


def _at(self):
    from ._indexing import _IndexUpdateHelper

    return _IndexUpdateHelper(self)


def _getitem(self, idx):
    from ._indexing import getitem

    return getitem(self, idx)


def _sort_in_place(self, *args, **kwargs):
    raise TypeError(
        "x.sort() sorts a NumPy array in place, and tracegrad arrays are immutable "
        "inside transforms: use x = tracegrad.numpy.sort(x) (or np.sort(x))."
    )


def _pow(self, other, modulo=None):
    if modulo is not None:
        raise TypeError("pow(x, y, modulo) is not differentiable; use (x ** y) % modulo")
    from .. import numpy as tnp

    return tnp.power(self, other)


def _round(self, ndigits=None):
    from .. import numpy as tnp

    return tnp.round(self, 0 if ndigits is None else ndigits)


def _divmod(self, other):
    return ops.floor_divide(self, other), ops.mod(self, other)


def _rdivmod(self, other):
    return ops.floor_divide(other, self), ops.mod(other, self)


def _setitem(self, idx, value):
    raise TypeError(
        "tracegrad arrays are immutable inside transforms: instead of "
        "x[idx] = v use x = x.at[idx].set(v) (or .add(v) for x[idx] += v)."
    )


_METHODS = {
    "__add__": _binary(ops.add),
    "__radd__": _binary(ops.add, True),
    "__sub__": _binary(ops.sub),
    "__rsub__": _binary(ops.sub, True),
    "__mul__": _binary(ops.mul),
    "__rmul__": _binary(ops.mul, True),
    "__truediv__": _binary(ops.div),
    "__rtruediv__": _binary(ops.div, True),
    "__floordiv__": _binary(ops.floor_divide),
    "__rfloordiv__": _binary(ops.floor_divide, True),
    "__mod__": _binary(ops.mod),
    "__rmod__": _binary(ops.mod, True),
    "__lt__": _binary(ops.lt),
    "__le__": _binary(ops.le),
    "__gt__": _binary(ops.gt),
    "__ge__": _binary(ops.ge),
    "__eq__": _binary(ops.eq),
    "__ne__": _binary(ops.ne),
    "__and__": _binary(ops.logical_and),
    "__rand__": _binary(ops.logical_and, True),
    "__or__": _binary(ops.logical_or),
    "__ror__": _binary(ops.logical_or, True),
    "__xor__": _binary(ops.logical_xor),
    "__rxor__": _binary(ops.logical_xor, True),
    "__invert__": lambda self: ops.logical_not(self),
    "__neg__": lambda self: ops.neg(self),
    "__pos__": lambda self: self,
    "__abs__": lambda self: ops.abs(self),
    "__pow__": _pow,
    "__round__": _round,
    "__divmod__": _divmod,
    "__rdivmod__": _rdivmod,
    "sort": _sort_in_place,
    "__rpow__": _tnp_reflected("power"),
    "__matmul__": _tnp("matmul"),
    "__rmatmul__": _tnp_reflected("matmul"),
    "__getitem__": _getitem,
    "__setitem__": _setitem,
    "__array_ufunc__": array_ufunc,
    "__array_function__": array_function,
    "reshape": _reshape,
    "transpose": _transpose,
    "at": property(_at),
    "T": property(lambda self: _transpose(self)),
    "mT": property(lambda self: _tnp("swapaxes")(self, -1, -2)),
    "real": property(lambda self: self),
    "astype": lambda self, dtype, **kw: ops.convert_element_type(self, dtype),
    "copy": lambda self: self,
    "conj": lambda self: self,
    "conjugate": lambda self: self,
    "flatten": _tnp("ravel"),
}

for _name in (
    "sum", "mean", "prod", "max", "min", "var", "std", "cumsum", "cumprod",
    "argmax", "argmin", "all", "any", "ravel", "squeeze", "swapaxes",
    "clip", "round", "dot", "diagonal", "trace", "repeat", "argsort",
    "take", "nonzero",
):
    _METHODS[_name] = _tnp(_name)


def install():
    for name, fn in _METHODS.items():
        setattr(ArrayTracer, name, fn)


install()
