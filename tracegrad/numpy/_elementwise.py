"""Elementwise functions of ``tracegrad.numpy``, with NumPy's signatures.

Each function takes arrays, tracers, Python scalars or nested sequences,
broadcasts with NumPy's rules and promotes dtypes as NumPy 2 does (Python
scalars are weakly typed: ``float32_array * 2.0`` stays float32).  Each is
also registered as the tracer implementation of the NumPy ufunc of the same
name, so ``np.sin(tracer)`` works.  ``out=`` is not supported (arrays are
immutable under transforms); ``dtype=`` casts the result.
"""
import numpy as np

from ..core import Tracer, concrete_value
from ..primitives import ops
from ._core import arg
from ._dispatch import implements

_UNARY = {
    # name: (primitive wrapper, NumPy ufunc, formula of the derivative)
    "negative": (ops.neg, np.negative, "-1"),
    "positive": (lambda x: x, np.positive, "1"),
    "absolute": (ops.abs, np.absolute,
                 "sign(x); 0 at x = 0; for complex x, Re(conj(x) dx)/|x| (real result)"),
    "sign": (ops.sign, np.sign, "none (piecewise constant)"),
    "exp": (ops.exp, np.exp, "exp(x)"),
    "exp2": (ops.exp2, np.exp2, "2**x * log(2)"),
    "expm1": (ops.expm1, np.expm1, "exp(x)"),
    "log": (ops.log, np.log, "1/x; inf at x = 0"),
    "log2": (ops.log2, np.log2, "1/(x log 2)"),
    "log10": (ops.log10, np.log10, "1/(x log 10)"),
    "log1p": (ops.log1p, np.log1p, "1/(1 + x)"),
    "sqrt": (ops.sqrt, np.sqrt, "1/(2 sqrt(x)); inf at x = 0"),
    "cbrt": (ops.cbrt, np.cbrt, "1/(3 cbrt(x)**2); inf at x = 0"),
    "square": (ops.square, np.square, "2x"),
    "reciprocal": (lambda x: np.reciprocal(x) if _integral(x) else ops.reciprocal(x),
                   np.reciprocal, "-1/x**2"),
    "sin": (ops.sin, np.sin, "cos(x)"),
    "cos": (ops.cos, np.cos, "-sin(x)"),
    "tan": (ops.tan, np.tan, "1 + tan(x)**2"),
    "arcsin": (ops.arcsin, np.arcsin, "1/sqrt(1 - x**2); inf at x = +-1"),
    "arccos": (ops.arccos, np.arccos, "-1/sqrt(1 - x**2); -inf at x = +-1"),
    "arctan": (ops.arctan, np.arctan, "1/(1 + x**2)"),
    "sinh": (ops.sinh, np.sinh, "cosh(x)"),
    "cosh": (ops.cosh, np.cosh, "sinh(x)"),
    "tanh": (ops.tanh, np.tanh, "1 - tanh(x)**2"),
    "arcsinh": (ops.arcsinh, np.arcsinh, "1/sqrt(x**2 + 1)"),
    "arccosh": (ops.arccosh, np.arccosh, "1/sqrt(x**2 - 1); inf at x = 1"),
    "arctanh": (ops.arctanh, np.arctanh, "1/(1 - x**2); inf at x = +-1"),
    "floor": (ops.floor, np.floor, "none (piecewise constant)"),
    "ceil": (ops.ceil, np.ceil, "none (piecewise constant)"),
    "rint": (lambda x: np.rint(x) if _integral(x) else ops.round(x), np.rint,
             "none (piecewise constant)"),
    "trunc": (lambda x: ops.select(ops.lt(x, 0), ops.ceil(x), ops.floor(x)), np.trunc,
              "none (piecewise constant)"),
    "isnan": (ops.isnan, np.isnan, "none (bool result)"),
    "isfinite": (ops.isfinite, np.isfinite, "none (bool result)"),
    "isinf": (ops.isinf, np.isinf, "none (bool result)"),
    "logical_not": (ops.logical_not, np.logical_not, "none (bool result)"),
    "conjugate": (ops.conj, np.conjugate, "conj(dx) (linear over the reals)"),
}

_BINARY = {
    "add": (ops.add, np.add, "(1, 1)"),
    "subtract": (ops.sub, np.subtract, "(1, -1)"),
    "multiply": (ops.mul, np.multiply, "(x2, x1)"),
    "divide": (ops.div, np.divide, "(1/x2, -x1/x2**2)"),
    "power": (ops.pow, np.power, "(x2 x1**(x2-1), x1**x2 log(x1))"),
    "maximum": (ops.maximum, np.maximum, "1 to the larger argument; 0.5 each at a tie"),
    "minimum": (ops.minimum, np.minimum, "1 to the smaller argument; 0.5 each at a tie"),
    "fmax": (lambda x, y: _nan_ignoring(ops.maximum, x, y), np.fmax,
             "as maximum: 0.5 each at a tie; a NaN operand gets none"),
    "fmin": (lambda x, y: _nan_ignoring(ops.minimum, x, y), np.fmin,
             "as minimum: 0.5 each at a tie; a NaN operand gets none"),
    "arctan2": (ops.arctan2, np.arctan2,
                "(x, -y)/(x**2 + y**2) for arctan2(y, x); NaN at the origin"),
    "hypot": (ops.hypot, np.hypot, "(x1, x2)/hypot(x1, x2); 0 at the origin"),
    "mod": (ops.mod, np.mod, "(1, -floor(x1/x2))"),
    "logaddexp": (ops.logaddexp, np.logaddexp,
                  "(sigmoid(x1 - x2), sigmoid(x2 - x1)); 0.5 each at a tie"),
    "floor_divide": (ops.floor_divide, np.floor_divide, "none (piecewise constant)"),
    "equal": (ops.eq, np.equal, "none (bool result)"),
    "not_equal": (ops.ne, np.not_equal, "none (bool result)"),
    "less": (ops.lt, np.less, "none (bool result)"),
    "less_equal": (ops.le, np.less_equal, "none (bool result)"),
    "greater": (ops.gt, np.greater, "none (bool result)"),
    "greater_equal": (ops.ge, np.greater_equal, "none (bool result)"),
    "logical_and": (ops.logical_and, np.logical_and, "none (bool result)"),
    "logical_or": (ops.logical_or, np.logical_or, "none (bool result)"),
    "logical_xor": (ops.logical_xor, np.logical_xor, "none (bool result)"),
}


def _integral(x):
    return not isinstance(x, Tracer) and np.asarray(x).dtype.kind in "iub"


def _nan_ignoring(op, x, y):
    """``op(x, y)``, but the other operand where one is NaN (``fmax``/``fmin``)."""
    return ops.select(ops.isnan(y), x, ops.select(ops.isnan(x), y, op(x, y)))


_DOC_RAISES = (
    "Raises\n------\nTypeError\n"
    "    If ``out`` or ``where`` is given (arrays are immutable under\n"
    "    transforms), or an unsupported keyword.\n\n"
)
_DOC_KWARGS = (
    "dtype : dtype, optional\n"
    "    Cast the result (computed in NumPy's result dtype first).\n"
    "casting, order, subok : optional\n"
    "    Accepted for NumPy compatibility and ignored.\n\n"
)


def _doc_summary(name, deriv, what):
    if deriv.startswith("none"):
        return f"NumPy's ``{name}`` {what} (no derivative).\n\n"
    return f"NumPy's ``{name}`` {what}, differentiable.\n\n"


def _doc_dtype(deriv):
    return " (bool)" if deriv == "none (bool result)" else ""


def _doc_derivative(deriv, label):
    if deriv == "none (bool result)":
        return "No derivative: the result is bool.\n"
    if deriv.startswith("none"):
        return (
            "No derivative: the function is piecewise constant, so its result is a\n"
            "constant to every transform (derivative 0 everywhere, also at the jumps).\n"
        )
    return f"{label}: {deriv}.\n"


def _make_unary(name, op, ufunc, deriv):
    @implements(ufunc)
    def f(x, /, out=None, *, where=True, dtype=None, **kwargs):
        if out is not None or where is not True or kwargs:
            _check_kwargs(name, out, where, kwargs)
        out = op(x if isinstance(x, Tracer) else arg(x))
        return out if dtype is None else ops.convert_element_type(out, dtype)

    f.__name__ = f.__qualname__ = name
    f.__doc__ = (
        _doc_summary(name, deriv, "elementwise")
        + "Parameters\n----------\nx : array_like or tracer\n"
        "    Any shape and dtype; Python scalars stay weakly typed.\n"
        + _DOC_KWARGS
        + f"Returns\n-------\narray or tracer\n    Same shape as ``x``; dtype as "
        f"NumPy's ``{name}``{_doc_dtype(deriv)}.\n\n"
        + _DOC_RAISES
        + "Notes\n-----\n"
        + _doc_derivative(deriv, "Derivative")
    )
    return f


def _make_binary(name, op, ufunc, deriv):
    @implements(ufunc)
    def f(x1, x2, /, out=None, *, where=True, dtype=None, **kwargs):
        if out is not None or where is not True or kwargs:
            _check_kwargs(name, out, where, kwargs)
        out = op(x1 if isinstance(x1, Tracer) else arg(x1),
                 x2 if isinstance(x2, Tracer) else arg(x2))
        return out if dtype is None else ops.convert_element_type(out, dtype)

    f.__name__ = f.__qualname__ = name
    f.__doc__ = (
        _doc_summary(name, deriv, "elementwise with broadcasting")
        + "Parameters\n----------\nx1, x2 : array_like or tracer\n"
        "    Broadcast together with NumPy's rules; Python scalars stay weakly\n"
        "    typed (``float32_array + 1.0`` is float32).\n"
        + _DOC_KWARGS
        + f"Returns\n-------\narray or tracer\n    The broadcast shape; dtype as "
        f"NumPy 2's ``{name}``{_doc_dtype(deriv)}.\n\n"
        + _DOC_RAISES
        + "Notes\n-----\n"
        + _doc_derivative(deriv, "Partial derivatives (x1, x2)")
    )
    return f


def _check_kwargs(name, out, where, kwargs):
    if out is not None:
        raise TypeError(
            f"tracegrad.numpy.{name} does not support out=: arrays are immutable "
            "under transforms; use the return value."
        )
    if where is not True:
        raise TypeError(
            f"tracegrad.numpy.{name} does not support where=; use "
            "tracegrad.numpy.where(mask, f(x), other) instead."
        )
    kwargs.pop("casting", None)
    kwargs.pop("order", None)
    kwargs.pop("subok", None)
    if kwargs:
        raise TypeError(f"tracegrad.numpy.{name} got unsupported keywords {sorted(kwargs)}")


# One function per table row, each assigned by name so that editors, pydoc and
# grep find it here (tests/test_namespaces.py checks the lists match the tables).
# fmt: off
negative = _make_unary("negative", *_UNARY["negative"])
positive = _make_unary("positive", *_UNARY["positive"])
absolute = _make_unary("absolute", *_UNARY["absolute"])
sign = _make_unary("sign", *_UNARY["sign"])
exp = _make_unary("exp", *_UNARY["exp"])
exp2 = _make_unary("exp2", *_UNARY["exp2"])
expm1 = _make_unary("expm1", *_UNARY["expm1"])
log = _make_unary("log", *_UNARY["log"])
log2 = _make_unary("log2", *_UNARY["log2"])
log10 = _make_unary("log10", *_UNARY["log10"])
log1p = _make_unary("log1p", *_UNARY["log1p"])
sqrt = _make_unary("sqrt", *_UNARY["sqrt"])
cbrt = _make_unary("cbrt", *_UNARY["cbrt"])
square = _make_unary("square", *_UNARY["square"])
reciprocal = _make_unary("reciprocal", *_UNARY["reciprocal"])
sin = _make_unary("sin", *_UNARY["sin"])
cos = _make_unary("cos", *_UNARY["cos"])
tan = _make_unary("tan", *_UNARY["tan"])
arcsin = _make_unary("arcsin", *_UNARY["arcsin"])
arccos = _make_unary("arccos", *_UNARY["arccos"])
arctan = _make_unary("arctan", *_UNARY["arctan"])
sinh = _make_unary("sinh", *_UNARY["sinh"])
cosh = _make_unary("cosh", *_UNARY["cosh"])
tanh = _make_unary("tanh", *_UNARY["tanh"])
arcsinh = _make_unary("arcsinh", *_UNARY["arcsinh"])
arccosh = _make_unary("arccosh", *_UNARY["arccosh"])
arctanh = _make_unary("arctanh", *_UNARY["arctanh"])
floor = _make_unary("floor", *_UNARY["floor"])
ceil = _make_unary("ceil", *_UNARY["ceil"])
rint = _make_unary("rint", *_UNARY["rint"])
trunc = _make_unary("trunc", *_UNARY["trunc"])
isnan = _make_unary("isnan", *_UNARY["isnan"])
isfinite = _make_unary("isfinite", *_UNARY["isfinite"])
isinf = _make_unary("isinf", *_UNARY["isinf"])
logical_not = _make_unary("logical_not", *_UNARY["logical_not"])
conjugate = _make_unary("conjugate", *_UNARY["conjugate"])
add = _make_binary("add", *_BINARY["add"])
subtract = _make_binary("subtract", *_BINARY["subtract"])
multiply = _make_binary("multiply", *_BINARY["multiply"])
divide = _make_binary("divide", *_BINARY["divide"])
power = _make_binary("power", *_BINARY["power"])
maximum = _make_binary("maximum", *_BINARY["maximum"])
minimum = _make_binary("minimum", *_BINARY["minimum"])
fmax = _make_binary("fmax", *_BINARY["fmax"])
fmin = _make_binary("fmin", *_BINARY["fmin"])
arctan2 = _make_binary("arctan2", *_BINARY["arctan2"])
hypot = _make_binary("hypot", *_BINARY["hypot"])
mod = _make_binary("mod", *_BINARY["mod"])
logaddexp = _make_binary("logaddexp", *_BINARY["logaddexp"])
floor_divide = _make_binary("floor_divide", *_BINARY["floor_divide"])
equal = _make_binary("equal", *_BINARY["equal"])
not_equal = _make_binary("not_equal", *_BINARY["not_equal"])
less = _make_binary("less", *_BINARY["less"])
less_equal = _make_binary("less_equal", *_BINARY["less_equal"])
greater = _make_binary("greater", *_BINARY["greater"])
greater_equal = _make_binary("greater_equal", *_BINARY["greater_equal"])
logical_and = _make_binary("logical_and", *_BINARY["logical_and"])
logical_or = _make_binary("logical_or", *_BINARY["logical_or"])
logical_xor = _make_binary("logical_xor", *_BINARY["logical_xor"])
# fmt: on
__all__ = list(_UNARY) + list(_BINARY)

abs = absolute  # noqa: A001
true_divide = divide
remainder = mod
fix = trunc
conj = conjugate
implements(np.fix)(fix)
__all__ += ["abs", "true_divide", "remainder", "fix", "conj"]

# Docstrings of the functions whose edge semantics are part of the contract,
# and of those that differ from NumPy.
_DOC_NOTES = {
    "power": (
        "\nThe first partial is taken as 0 where ``x2 == 0`` and ``log(x1)`` as 0\n"
        "where ``x1 == 0``: ``x**0`` has derivative 0 in ``x`` (also at\n"
        "``x = 0``), ``0.0**y`` has derivative 0 in ``y`` for ``y > 0`` (the\n"
        "one-sided limit), and a constant exponent never adds ``log(x)`` terms,\n"
        "so ``x**3.0`` at ``x = -2`` has derivative 12.\n"
    ),
    "reciprocal": (
        "\nComputed as ``1.0 / x`` for floats; integer input keeps NumPy's\n"
        "integer result (no derivative).\n"
    ),
    "fmax": (
        "\nA NaN operand is ignored, as by NumPy: the result and the whole\n"
        "derivative go to the other operand (NaN only if both are NaN).\n"
    ),
    "fmin": (
        "\nA NaN operand is ignored, as by NumPy: the result and the whole\n"
        "derivative go to the other operand (NaN only if both are NaN).\n"
    ),
    "conjugate": (
        "\nThe identity on real arrays.  On complex ones its VJP conjugates the\n"
        "cotangent (JAX's convention: cotangents pair with tangents through\n"
        "``Re(sum(a * b))``).\n"
    ),
    "maximum": (
        "\nNaN propagates as in NumPy.  At a tie ``x1 == x2`` each argument\n"
        "receives half the derivative (TensorFlow's and JAX's convention).\n"
    ),
    "minimum": (
        "\nNaN propagates as in NumPy.  At a tie ``x1 == x2`` each argument\n"
        "receives half the derivative (TensorFlow's and JAX's convention).\n"
    ),
    "hypot": (
        "\nThe derivative at the origin is taken as 0 (the subgradient of\n"
        "smallest norm), as for ``linalg.norm``.\n"
    ),
    "mod": (
        "\nFrom ``mod(x1, x2) = x1 - floor(x1 / x2) * x2`` with ``floor``\n"
        "treated as constant.\n"
    ),
    "logaddexp": (
        "\nThe partials are written as sigmoids of the difference, which are\n"
        "finite for any inputs (also at +-1000) and exactly 0.5 at a tie.\n"
    ),
}
for _fn in (power, reciprocal, fmax, fmin, conjugate, maximum, minimum, hypot, mod, logaddexp):
    _fn.__doc__ += _DOC_NOTES[_fn.__name__]
pow = power  # noqa: A001
__all__.append("pow")


@implements(np.where)
def where(condition, x=None, y=None, /):
    """``x`` where ``condition`` is true, else ``y``, with broadcasting.

    Parameters
    ----------
    condition : array_like of bool
        Read for its value only (no derivative).
    x, y : array_like or tracer
        Broadcast together with ``condition``.

    Returns
    -------
    array or tracer
        The broadcast shape of the three arguments; the promoted dtype of
        ``x`` and ``y``.  With only ``condition``: a tuple of int64 arrays,
        ``nonzero(condition)``.

    Raises
    ------
    ValueError
        If exactly one of ``x`` and ``y`` is given, or the shapes do not
        broadcast.

    Notes
    -----
    The derivative flows only into the selected branch, but a NaN or inf
    derivative of the *unselected* branch still poisons the result
    (``0 * inf = nan``), as in every autodiff system.  To guard a branch,
    also guard its input (the double-``where`` idiom)::

        safe_x = tnp.where(x > 0, x, 1.0)
        y = tnp.where(x > 0, tnp.log(safe_x), 0.0)

    With only ``condition``, returns ``nonzero(condition)`` (no derivative).
    """
    if x is None and y is None:
        return np.nonzero(np.asarray(concrete_value(condition)))
    if x is None or y is None:
        raise ValueError("either both or neither of x and y should be given")
    return ops.select(arg(condition), arg(x), arg(y))


@implements(np.clip)
def clip(a, a_min=None, a_max=None, out=None, *, min=None, max=None):  # noqa: A002
    """Clamp ``a`` to ``[a_min, a_max]`` (either may be None).

    Parameters
    ----------
    a : array_like or tracer
    a_min, a_max : array_like, tracer or None
        Bounds, broadcast against ``a``.  ``min``/``max`` are NumPy 2 aliases.

    Returns
    -------
    array or tracer
        The broadcast shape of ``a`` and the bounds; NumPy's dtype.

    Raises
    ------
    TypeError
        If ``out`` is given.
    ValueError
        If both bounds are None.

    Notes
    -----
    The interval is closed: at ``a == a_min`` or ``a == a_max`` the
    derivative with respect to ``a`` is 1 and with respect to the bound 0
    (PyTorch's ``clamp`` convention).  Where ``a`` is outside, the derivative
    goes to the active bound.
    """
    if out is not None:
        raise TypeError("tracegrad.numpy.clip does not support out=")
    a_min = min if a_min is None else a_min
    a_max = max if a_max is None else a_max
    if a_min is None and a_max is None:
        raise ValueError("One of max or min must be given")
    lo = None if a_min is None else arg(a_min)
    hi = None if a_max is None else arg(a_max)
    return ops.clip(arg(a), lo, hi)


@implements(np.round, np.around)
def round(a, decimals=0, out=None):  # noqa: A001
    """Round to ``decimals`` decimal places, half to even (NumPy's ``round``).

    ``around`` is another name for this function.

    Parameters
    ----------
    a : array_like or tracer
        Any shape and dtype.
    decimals : int, optional
        Number of decimal places (default 0); negative values round to the
        left of the decimal point (``round(15, -1)`` is 20).
    out : None
        Must be None.

    Returns
    -------
    array or tracer
        Same shape and dtype as ``a`` (integer input stays integer).

    Raises
    ------
    TypeError
        If ``out`` is given.

    Notes
    -----
    Halves go to the nearest even value (``round(2.5) == 2.0``).  With
    ``decimals != 0`` the value is scaled by ``10**decimals``, rounded and
    scaled back, as in NumPy, so binary representation shows through
    (``round(2.675, 2) == 2.67``).

    No derivative: the function is piecewise constant, so its result is a
    constant to every transform (derivative 0 everywhere, also at the
    jumps).

    Examples
    --------
    >>> import numpy as np, tracegrad.numpy as tnp
    >>> tnp.round(np.array([0.5, 1.5, 2.5, -1.26]), 1)
    array([ 0.5,  1.5,  2.5, -1.3])
    >>> tnp.round(np.array([0.5, 1.5, 2.5]))
    array([0., 2., 2.])
    """
    if out is not None:
        raise TypeError("tracegrad.numpy.round does not support out=")
    return ops.round(arg(a), decimals)


around = round
__all__ += ["where", "clip", "round", "around"]


# --------------------------------------------------------------------------
# complex parts and predicates (NumPy functions, not ufuncs)


def _dtype_kind(x):
    return np.dtype(x.dtype if hasattr(x, "dtype") else np.asarray(x).dtype).kind


@implements(np.real)
def real(val):
    """NumPy's ``real``: the real part, differentiable.

    Parameters
    ----------
    val : array_like or tracer
        Any shape and dtype.

    Returns
    -------
    array or tracer
        Same shape; float64 for complex128, float32 for complex64; a real
        ``val`` is returned as it is.

    Notes
    -----
    Derivative: ``Re(dval)``.  Its VJP sends a real cotangent ``c`` to
    ``c + 0j`` (JAX's convention), so ``grad(lambda z: real(z))(z) == 1``.
    """
    return ops.real(val if isinstance(val, Tracer) else np.asarray(val))


@implements(np.imag)
def imag(val):
    """NumPy's ``imag``: the imaginary part, differentiable.

    Parameters
    ----------
    val : array_like or tracer
        Any shape and dtype.

    Returns
    -------
    array or tracer
        Same shape; float64 for complex128, float32 for complex64; zeros of
        ``val``'s dtype (a constant) for a real ``val``.

    Notes
    -----
    Derivative: ``Im(dval)``.  Its VJP sends a real cotangent ``c`` to
    ``-1j * c`` (JAX's convention), so ``grad(lambda z: imag(z))(z) == -1j``.
    """
    return ops.imag(val if isinstance(val, Tracer) else np.asarray(val))


@implements(np.angle)
def angle(z, deg=False):
    """NumPy's ``angle``: the argument of complex ``z`` in ``(-pi, pi]``.

    Parameters
    ----------
    z : array_like or tracer
        Any shape; real input gives 0 or pi (``arctan2(0, z)``).
    deg : bool, optional
        Degrees instead of radians.

    Returns
    -------
    array or tracer
        Same shape, real dtype (float32 for complex64).

    Notes
    -----
    Computed as ``arctan2(imag(z), real(z))``, so its derivative is
    ``Im(conj(z) dz) / |z|**2`` (NaN at ``z = 0``, as ``arctan2``'s).
    """
    z = z if isinstance(z, Tracer) else np.asarray(z)
    if _dtype_kind(z) == "c":
        a = ops.arctan2(ops.imag(z), ops.real(z))
    else:
        a = ops.arctan2(np.zeros(np.shape(z), np.result_type(_float_dtype(z))),
                        ops.convert_element_type(z, _float_dtype(z)))
    return ops.mul(a, 180.0 / np.pi) if deg else a


def _float_dtype(x):
    dt = np.dtype(x.dtype)
    return dt if dt.kind == "f" else np.dtype(np.float64)


@implements(np.isrealobj)
def isrealobj(x):
    """NumPy's ``isrealobj``: True unless ``x`` has a complex dtype (only the
    dtype is read, never the values).

    Parameters
    ----------
    x : array_like or tracer
        Any shape and dtype.

    Returns
    -------
    bool
    """
    return _dtype_kind(x) != "c"


@implements(np.iscomplex)
def iscomplex(x):
    """NumPy's ``iscomplex``: True where the imaginary part is nonzero.

    Parameters
    ----------
    x : array_like or tracer
        Any shape and dtype.

    Returns
    -------
    array or tracer of bool
        Same shape as ``x``; all False for a real dtype.  No derivative.
    """
    x = x if isinstance(x, Tracer) else np.asarray(x)
    if _dtype_kind(x) != "c":
        return np.zeros(np.shape(x), bool)[()]
    return ops.ne(ops.imag(x), 0)


@implements(np.isreal)
def isreal(x):
    """NumPy's ``isreal``: True where the imaginary part is zero.

    Parameters
    ----------
    x : array_like or tracer
        Any shape and dtype.

    Returns
    -------
    array or tracer of bool
        Same shape as ``x``; all True for a real dtype.  No derivative.
    """
    x = x if isinstance(x, Tracer) else np.asarray(x)
    if _dtype_kind(x) != "c":
        return np.ones(np.shape(x), bool)[()]
    return ops.eq(ops.imag(x), 0)


__all__ += ["real", "imag", "angle", "isrealobj", "iscomplex", "isreal"]
