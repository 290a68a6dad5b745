"""PyTorch's dtype objects (``torch.float32``, ...), backed by NumPy dtypes.

A :class:`dtype` prints like PyTorch's (``torch.float32``) and compares equal
to the NumPy dtype it stands for; ``np.dtype(torch.float32)`` is
``np.dtype('float32')`` (NumPy accepts any object with a ``.dtype``), so the
engine's NumPy code handles tensors' dtypes unchanged.
"""
import threading

import numpy as np

__all__ = [
    "dtype", "float16", "float32", "float64", "half", "float", "double",
    "bfloat16_unsupported", "int8", "int16", "int32", "int64", "uint8", "short",
    "int", "long", "bool", "complex64", "complex128", "cfloat", "cdouble",
    "as_dtype", "get_default_dtype", "set_default_dtype",
]


class dtype:  # noqa: N801 - PyTorch's name
    """A tensor element type (``torch.float32``, ``torch.int64``, ...).

    Attributes
    ----------
    is_floating_point : bool
    is_complex : bool
    is_signed : bool
    itemsize : int
        Bytes per element.
    """

    __slots__ = ("_name", "_np", "is_floating_point", "is_complex", "is_signed", "itemsize")

    def __init__(self, name, np_dtype):
        self._name = name
        self._np = np.dtype(np_dtype)
        self.is_floating_point = self._np.kind == "f"
        self.is_complex = self._np.kind == "c"
        self.is_signed = self._np.kind in "fci"
        self.itemsize = self._np.itemsize

    @property
    def dtype(self):
        """The NumPy dtype (lets ``np.dtype(torch_dtype)`` work)."""
        return self._np

    # a few NumPy dtype attributes, for code written against NumPy dtypes
    kind = property(lambda self: self._np.kind)
    char = property(lambda self: self._np.char)
    type = property(lambda self: self._np.type)

    def __eq__(self, other):
        if isinstance(other, dtype):
            return self is other
        try:
            return self._np == np.dtype(other)
        except TypeError:
            return NotImplemented

    def __hash__(self):
        return hash(self._np)

    def __repr__(self):
        return f"torch.{self._name}"

    def __reduce__(self):
        return (as_dtype, (self._np,))


float16 = half = dtype("float16", np.float16)
float32 = float = dtype("float32", np.float32)  # noqa: A001 - PyTorch's name
float64 = double = dtype("float64", np.float64)
int8 = dtype("int8", np.int8)
int16 = short = dtype("int16", np.int16)
int32 = int = dtype("int32", np.int32)  # noqa: A001
int64 = long = dtype("int64", np.int64)
uint8 = dtype("uint8", np.uint8)
bool = dtype("bool", np.bool_)  # noqa: A001
complex64 = cfloat = dtype("complex64", np.complex64)
complex128 = cdouble = dtype("complex128", np.complex128)
bfloat16_unsupported = None

_BY_NP = {d._np: d for d in (float16, float32, float64, int8, int16, int32, int64, uint8,
                             bool, complex64, complex128)}


_CPP = {"float16": ("c10::Half", "Half"), "float32": ("float", "Float"),
        "float64": ("double", "Double"), "int8": ("signed char", "Char"),
        "int16": ("short int", "Short"), "int32": ("int", "Int"), "int64": ("long int", "Long"),
        "uint8": ("unsigned char", "Byte"), "bool": ("bool", "Bool"),
        "complex64": ("c10::complex<float>", "ComplexFloat"),
        "complex128": ("c10::complex<double>", "ComplexDouble")}


def cpp_name(np_dtype):
    """The C++ type name PyTorch's messages use for a dtype (``float32`` -> ``float``)."""
    return _CPP.get(np.dtype(np_dtype).name, (np.dtype(np_dtype).name,))[0]


def scalar_type_name(np_dtype):
    """PyTorch's ScalarType name of a dtype (``float32`` -> ``Float``)."""
    return _CPP.get(np.dtype(np_dtype).name, (None, np.dtype(np_dtype).name))[1]


def as_dtype(d):
    """The :class:`dtype` for a tracegrad dtype, NumPy dtype or Python type.

    Raises
    ------
    TypeError
        If ``d`` is not a supported element type.
    """
    if isinstance(d, dtype):
        return d
    try:
        npd = np.dtype(d)
    except TypeError:
        raise TypeError(f"{d!r} is not a tensor element type (torch.float32, ...)") from None
    found = _BY_NP.get(npd)
    if found is None:
        raise TypeError(f"dtype {npd} is not supported by tracegrad.torch")
    return found


class _Default(threading.local):
    def __init__(self):
        self.dtype = float32


_default = _Default()


def get_default_dtype():
    """The default floating-point dtype (``torch.float32`` unless changed)."""
    return _default.dtype


def set_default_dtype(d):
    """Set the default floating-point dtype (float32 or float64).

    Raises
    ------
    TypeError
        If ``d`` is not a floating-point dtype.
    """
    d = as_dtype(d)
    if not d.is_floating_point:
        raise TypeError(f"only floating-point types are supported as the default type, got {d}")
    _default.dtype = d
