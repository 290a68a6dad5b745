"""Operators, methods and NumPy protocols of tracers.

Installed on :class:`tracegrad.core.ArrayTracer` when
``tracegrad.numpy`` is imported, so a tracer behaves like an ndarray:
``x + y``, ``x @ y``, ``x[idx]``, ``x.sum(axis=0)``, ``x.T``, ``np.sin(x)``.
Arithmetic operators bind primitives directly (they are the hot path:
no wrapper function between the operator and ``Primitive.bind``); methods
forward to the ``tracegrad.numpy`` function of the same name, looked up when
called.
"""
from .. import numpy as tnp  # partially initialised here; read at call time
from ..core import ArrayTracer
from ..primitives import elementwise as ew, ops
from ._core import arg
from ._dispatch import array_function, array_ufunc
from ._indexing import _IndexUpdateHelper, getitem


def _binary(prim, reverse=False):
    """Operator method binding the broadcasting binary primitive ``prim``."""
    bind = prim.bind
    if reverse:
        def method(self, other):
            if isinstance(other, (list, tuple)):
                other = arg(other)
            return bind(other, self)
    else:
        def method(self, other):
            if isinstance(other, (list, tuple)):
                other = arg(other)
            return bind(self, other)
    return method


def _tnp(name):
    def method(self, *args, **kwargs):
        return getattr(tnp, name)(self, *args, **kwargs)

    method.__name__ = name
    method.__doc__ = f"Same as ``tracegrad.numpy.{name}(self, ...)``."
    return method


def _tnp_reflected(name):
    def method(self, other):
        return getattr(tnp, name)(other, self)

    method.__name__ = name
    return method


def _shape_args(args):
    # x.reshape(2, 3) and x.reshape((2, 3)) both work, as for ndarrays
    return args[0] if len(args) == 1 else args


def _reshape(self, *shape, order="C"):
    return tnp.reshape(self, _shape_args(shape), order=order)


def _transpose(self, *axes):
    axes = None if not axes else _shape_args(axes)
    return tnp.transpose(self, axes)


def _at(self):
    return _IndexUpdateHelper(self)


def _sort_in_place(self, *args, **kwargs):
    raise TypeError(
        "x.sort() sorts a NumPy array in place, and tracegrad arrays are immutable "
        "inside transforms: use x = tracegrad.numpy.sort(x) (or np.sort(x))."
    )


def _pow(self, other, modulo=None):
    if modulo is not None:
        raise TypeError("pow(x, y, modulo) is not differentiable; use (x ** y) % modulo")
    return tnp.power(self, other)


def _round(self, ndigits=None):
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
    "__add__": _binary(ew.add_p),
    "__radd__": _binary(ew.add_p, True),
    "__sub__": _binary(ew.sub_p),
    "__rsub__": _binary(ew.sub_p, True),
    "__mul__": _binary(ew.mul_p),
    "__rmul__": _binary(ew.mul_p, True),
    "__truediv__": _binary(ew.div_p),
    "__rtruediv__": _binary(ew.div_p, True),
    "__floordiv__": _binary(ew.floor_divide_p),
    "__rfloordiv__": _binary(ew.floor_divide_p, True),
    "__mod__": _binary(ew.mod_p),
    "__rmod__": _binary(ew.mod_p, True),
    "__lt__": _binary(ew.lt_p),
    "__le__": _binary(ew.le_p),
    "__gt__": _binary(ew.gt_p),
    "__ge__": _binary(ew.ge_p),
    "__eq__": _binary(ew.eq_p),
    "__ne__": _binary(ew.ne_p),
    "__and__": _binary(ew.logical_and_p),
    "__rand__": _binary(ew.logical_and_p, True),
    "__or__": _binary(ew.logical_or_p),
    "__ror__": _binary(ew.logical_or_p, True),
    "__xor__": _binary(ew.logical_xor_p),
    "__rxor__": _binary(ew.logical_xor_p, True),
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
    "__getitem__": getitem,
    "__setitem__": _setitem,
    "__array_ufunc__": array_ufunc,
    "__array_function__": array_function,
    "reshape": _reshape,
    "transpose": _transpose,
    "at": property(_at),
    "T": property(lambda self: _transpose(self)),
    "mT": property(lambda self: _tnp("swapaxes")(self, -1, -2)),
    "real": property(lambda self: ops.real(self)),
    "imag": property(lambda self: ops.imag(self)),
    "astype": lambda self, dtype, **kw: ops.convert_element_type(self, dtype),
    "copy": lambda self: self,
    "conj": lambda self: ops.conj(self),
    "conjugate": lambda self: ops.conj(self),
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
