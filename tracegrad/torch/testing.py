"""``tracegrad.torch.testing``: PyTorch's :func:`assert_close` and :func:`make_tensor`.

:func:`assert_close` compares tensors, NumPy arrays, Python and NumPy
scalars, ``None`` and nested sequences and mappings of them the way
``torch.testing.assert_close`` (PyTorch 2.13) does: the same default
tolerances by dtype, the same order of checks (structure first, then each
pair in order) and the same messages, word for word, so a failing test reads
as it would under PyTorch.  The arithmetic is NumPy's, in the compared
dtype.
"""
import cmath
import collections.abc
import math
import warnings

import numpy as np

from . import _dtype
from ._creation import as_tensor, from_numpy, rand, randint
from ._ops import _promote_types
from ._tensor import Size, Tensor, check_device

__all__ = ["assert_close", "make_tensor"]

# PyTorch's default (rtol, atol) by dtype; every other dtype compares exactly.
_PRECISION = {
    np.dtype(np.float16): (1e-3, 1e-5),
    np.dtype(np.float32): (1.3e-6, 1e-5),
    np.dtype(np.float64): (1e-7, 1e-7),
    np.dtype(np.complex64): (1.3e-6, 1e-5),
    np.dtype(np.complex128): (1e-7, 1e-7),
}
# Python scalars are compared as tensors of these dtypes would be.
_NUMBER_DTYPE = {
    bool: np.dtype(np.int64),
    int: np.dtype(np.int64),
    float: np.dtype(np.float64),
    complex: np.dtype(np.complex128),
}
_NUMBERS = (int, float, complex, np.number)
_BOOLS = (bool, np.bool_)


class _Failure(Exception):
    """A failed check: the exception type and message for the user, and
    the path of the item (``[1]['w']``) inside nested inputs."""

    def __init__(self, exc_type, message, path=()):
        super().__init__(message)
        self.exc_type = exc_type
        self.message = message
        self.path = path

    def error(self, msg=None):
        """The exception to raise; ``msg`` as in :func:`assert_close`."""
        if isinstance(msg, str):
            return self.exc_type(msg)
        text = self.message
        if self.path:
            text += "\n\nThe failure occurred for item " + "".join(f"[{k!r}]" for k in self.path)
        return self.exc_type(msg(text) if callable(msg) else text)


def _type_repr(x):
    """``<class 'torch.Tensor'>`` for tracegrad's tensors, as PyTorch prints its own."""
    t = type(x)
    if t is Tensor:
        return "<class 'torch.Tensor'>"
    if t.__module__.startswith("tracegrad.torch"):
        return f"<class '{t.__module__[len('tracegrad.'):]}.{t.__qualname__}'>"
    return repr(t)


def _tolerances(dtypes, rtol, atol, path):
    if (rtol is None) != (atol is None):
        raise _Failure(
            ValueError,
            "Both 'rtol' and 'atol' must be either specified or omitted, but got no "
            f"{'rtol' if rtol is None else 'atol'}.",
            path,
        )
    if rtol is not None:
        return rtol, atol
    pairs = [_PRECISION.get(np.dtype(d), (0.0, 0.0)) for d in dtypes]
    return max(r for r, _ in pairs), max(a for _, a in pairs)


# --------------------------------------------------------------------------
# messages


def _mismatch_message(what, extra, abs_diff, abs_idx, rel_diff, rel_idx, rtol, atol):
    equal = rtol == 0 and atol == 0

    def line(kind, diff, idx, tol):
        text = (f"{kind.title()} difference: {diff}" if idx is None
                else f"Greatest {kind} difference: {diff} at index {idx}")
        return text if equal else f"{text} (up to {tol} allowed)"

    return (f"{what} are not {'equal' if equal else 'close'}!\n\n{extra}\n"
            f"{line('absolute', abs_diff, abs_idx, atol)}\n"
            f"{line('relative', rel_diff, rel_idx, rtol)}")


def _scalar_message(actual, expected, rtol, atol):
    """Two Python scalars (or one-element 0-d values, read with ``.item()``)."""
    abs_diff = abs(actual - expected)
    rel_diff = math.inf if expected == 0 else abs_diff / abs(expected)
    return _mismatch_message("Scalars", f"Expected {expected} but got {actual}.",
                             abs_diff, None, rel_diff, None, rtol, atol)


def _tensor_message(actual, expected, close, rtol, atol):
    """Mismatch statistics over the elements that are not close."""
    total = close.size
    bad = total - int(np.count_nonzero(close))
    extra = f"Mismatched elements: {bad} / {total} ({bad / total:.1%})"
    a, e, matched = actual.ravel(), expected.ravel(), close.ravel()
    integral = a.dtype.kind in "biu"
    if integral:  # differences of integers in int64 (no wrap-around)
        a, e = a.astype(np.int64), e.astype(np.int64)
    with np.errstate(all="ignore"):
        abs_diff = np.abs(a - e)
        abs_diff[matched] = 0
        if integral:  # integer division gives the default float dtype, as in PyTorch
            f = _dtype.get_default_dtype().dtype
            rel_diff = abs_diff.astype(f) / np.abs(e).astype(f)
        else:
            rel_diff = abs_diff / np.abs(e)
        rel_diff[matched] = 0
    i, j = int(np.argmax(abs_diff)), int(np.argmax(rel_diff))  # a NaN wins, as in torch.max

    def index(k):
        return tuple(int(d) for d in np.unravel_index(k, actual.shape))

    return _mismatch_message("Tensor-likes", extra, abs_diff[i].item(), index(i),
                             rel_diff[j].item(), index(j), rtol, atol)


# --------------------------------------------------------------------------
# the checks of one pair of leaves


def _isclose(a, e, rtol, atol, equal_nan):
    """``|a - e| <= atol + rtol * |e|`` elementwise; infinities only equal to themselves."""
    with np.errstate(all="ignore"):
        close = np.asarray(a == e)
        if equal_nan and a.dtype.kind in "fc":
            close = close | (np.isnan(a) & np.isnan(e))
        if rtol == 0 and atol == 0:
            return close
        if a.dtype.kind in "biu":
            a, e = a.astype(np.int64), e.astype(np.int64)
        err = np.abs(a - e)
        return close | (np.isfinite(err) & (err <= atol + rtol * np.abs(e)))


def _check_none(actual, expected):
    if not (actual is None and expected is None):
        raise _Failure(AssertionError, f"None mismatch: {actual} is not {expected}")


def _check_bools(actual, expected):
    if actual is not expected:
        raise _Failure(AssertionError, f"Booleans mismatch: {actual} is not {expected}")


def _check_numbers(actual, expected, rtol, atol, equal_nan, check_dtype):
    if check_dtype and type(actual) is not type(expected):
        raise _Failure(
            AssertionError,
            f"The (d)types do not match: {type(actual)} != {type(expected)}.",
        )
    if actual == expected:
        return
    if equal_nan and cmath.isnan(actual) and cmath.isnan(expected):
        return
    abs_diff = abs(actual - expected)
    if cmath.isfinite(abs_diff) and abs_diff <= atol + rtol * abs(expected):
        return
    raise _Failure(AssertionError, _scalar_message(actual, expected, rtol, atol))


def _attribute_mismatch(name, actual, expected):
    return _Failure(
        AssertionError,
        f"The values for attribute '{name}' do not match: {actual} != {expected}.",
    )


def _dtype_repr(d):
    try:
        return repr(_dtype.as_dtype(d))
    except TypeError:  # a NumPy dtype tracegrad.torch has no name for
        return f"torch.{np.dtype(d).name}"


def _strides(a):
    return tuple(s // a.itemsize for s in a.strides)


def _check_arrays(a, e, rtol, atol, equal_nan, check_dtype, check_stride):
    if a.shape != e.shape:
        raise _attribute_mismatch("shape", Size(a.shape), Size(e.shape))
    if check_stride and _strides(a) != _strides(e):
        raise _attribute_mismatch("stride()", _strides(a), _strides(e))
    if check_dtype and a.dtype != e.dtype:
        raise _attribute_mismatch("dtype", _dtype_repr(a.dtype), _dtype_repr(e.dtype))
    if a.dtype != e.dtype:
        common = _promote_types(a.dtype, e.dtype)
        a, e = a.astype(common), e.astype(common)
    close = _isclose(a, e, rtol, atol, equal_nan)
    if close.all():
        return
    if a.ndim == 0:
        message = _scalar_message(a.item(), e.item(), rtol, atol)
    else:
        message = _tensor_message(a, e, close, rtol, atol)
    raise _Failure(AssertionError, message)


def _as_array(x):
    """The NumPy data of a tensor-like, or None if it cannot be a tensor."""
    if isinstance(x, Tensor):
        return x._data
    try:
        data = as_tensor(x)._data
    except Exception:  # anything as_tensor refuses is not a tensor-like
        return None
    return data if data.dtype.kind in "biufc" else None


def _leaf_check(actual, expected, path, opts):
    """The check of one pair of non-container inputs (a zero-argument callable).

    Raises :class:`_Failure` at once for inputs no check applies to and for
    inconsistent tolerances, before any value is compared.
    """
    rtol, atol, equal_nan = opts["rtol"], opts["atol"], opts["equal_nan"]
    if actual is None or expected is None:
        return lambda: _check_none(actual, expected)
    if isinstance(actual, _BOOLS) and isinstance(expected, _BOOLS):
        a, e = bool(actual), bool(expected)
        return lambda: _check_bools(a, e)
    if isinstance(actual, _NUMBERS) and isinstance(expected, _NUMBERS):
        a = actual.item() if isinstance(actual, np.generic) else actual
        e = expected.item() if isinstance(expected, np.generic) else expected
        rtol, atol = _tolerances([_NUMBER_DTYPE[type(a)], _NUMBER_DTYPE[type(e)]], rtol, atol, path)
        return lambda: _check_numbers(a, e, rtol, atol, equal_nan, opts["check_dtype"])
    related = isinstance(actual, type(expected)) or isinstance(expected, type(actual))
    if related and (opts["allow_subclasses"] or type(actual) is type(expected)):
        a, e = _as_array(actual), _as_array(expected)
        if a is not None and e is not None:
            rtol, atol = _tolerances([a.dtype, e.dtype], rtol, atol, path)
            return lambda: _check_arrays(a, e, rtol, atol, equal_nan, opts["check_dtype"],
                                         opts["check_stride"])
    raise _Failure(
        TypeError,
        "No comparison pair was able to handle inputs of type "
        f"{_type_repr(actual)} and {_type_repr(expected)}.",
        path,
    )


def _is_sequence(x):
    return isinstance(x, collections.abc.Sequence) and not isinstance(x, str)


def _sorted_keys(keys):
    try:
        return sorted(keys)
    except TypeError:
        return list(keys)


def _checks(actual, expected, path, opts, out):
    """Append the check of every leaf pair of two nested inputs to ``out``.

    Structural mismatches (lengths, keys) raise :class:`_Failure` here.
    """
    if _is_sequence(actual) and _is_sequence(expected):
        if len(actual) != len(expected):
            raise _Failure(
                AssertionError,
                f"The length of the sequences mismatch: {len(actual)} != {len(expected)}",
                path,
            )
        for i in range(len(actual)):
            _checks(actual[i], expected[i], (*path, i), opts, out)
        return
    if isinstance(actual, collections.abc.Mapping) and isinstance(expected, collections.abc.Mapping):
        missing = [k for k in expected.keys() if k not in actual]
        additional = [k for k in actual.keys() if k not in expected]
        if missing or additional:
            raise _Failure(
                AssertionError,
                "The keys of the mappings do not match:\n"
                f"Missing keys in the actual mapping: {_sorted_keys(missing)}\n"
                f"Additional keys in the actual mapping: {_sorted_keys(additional)}",
                path,
            )
        for k in _sorted_keys(actual.keys()):
            _checks(actual[k], expected[k], (*path, k), opts, out)
        return
    out.append((_leaf_check(actual, expected, path, opts), path))


def assert_close(actual, expected, *, allow_subclasses=True, rtol=None, atol=None,
                 equal_nan=False, check_device=True, check_dtype=True, check_layout=True,
                 check_stride=False, msg=None):
    """Assert that ``actual`` and ``expected`` are close, as PyTorch's ``assert_close``.

    Two values are close if ``|actual - expected| <= atol + rtol * |expected|``
    elementwise; infinities are close only to themselves, and NaNs only to
    NaNs with ``equal_nan=True``.  Tensors must also have the same shape and
    (with ``check_dtype``) dtype.  Inputs may be tensors, NumPy arrays, Python
    or NumPy scalars, ``None``, and (nested) sequences and mappings of them,
    compared item by item.

    Default tolerances (``rtol``, ``atol``) by dtype, the larger of the two
    dtypes' when they differ: float16 ``1e-3, 1e-5``; float32 and complex64
    ``1.3e-6, 1e-5``; float64 and complex128 ``1e-7, 1e-7``; integers and
    bool ``0, 0`` (exact).  Python ``int``, ``float`` and ``complex`` count
    as int64, float64 and complex128.

    Parameters
    ----------
    actual : Tensor, ndarray, scalar, None, or sequence or mapping of them
        The value under test.
    expected : same kinds as ``actual``
        The reference.  Apart from Python scalars, the two types must be
        "directly related" (one an instance of the other's type): a tensor
        is not compared with a list or an ndarray.
    allow_subclasses : bool, optional
        If False, corresponding non-scalar inputs must have the same type.
    rtol, atol : float, optional
        Relative and absolute tolerance; give both or neither.
    equal_nan : bool, optional
        Treat two NaNs as equal.
    check_device : bool, optional
        Accepted for compatibility; every tensor is on the CPU.
    check_dtype : bool, optional
        Require equal dtypes (and equal Python scalar types).  If False,
        tensors are promoted to a common dtype (PyTorch's rules) first.
    check_layout : bool, optional
        Accepted for compatibility; every tensor is strided.
    check_stride : bool, optional
        Also require equal strides.
    msg : str or callable, optional
        Replaces the message of a failed comparison, or (a callable) maps
        the generated message to the one raised.  Errors in the structure of
        the inputs (lengths, keys, types) keep their message, as in PyTorch.

    Returns
    -------
    None

    Raises
    ------
    AssertionError
        If the inputs are not close, or differ in shape, dtype, stride,
        sequence length, mapping keys or scalar type; the message is
        PyTorch's (``Tensor-likes are not close!`` with the number of
        mismatched elements and the greatest absolute and relative
        differences with their indices), followed by the item's position
        for nested inputs.
    TypeError
        If no comparison applies to a pair of inputs (e.g. a tensor and a
        list).
    ValueError
        If only one of ``rtol`` and ``atol`` is given.

    Examples
    --------
    >>> import tracegrad.torch as torch
    >>> from tracegrad.torch.testing import assert_close
    >>> assert_close(torch.tensor([1.0, 2.0]), torch.tensor([1.0, 2.0000001]))
    >>> assert_close(torch.tensor([1.0, 2.0, 3.0]), torch.tensor([1.0, 2.5, 3.0]))
    Traceback (most recent call last):
        ...
    AssertionError: Tensor-likes are not close!
    <BLANKLINE>
    Mismatched elements: 1 / 3 (33.3%)
    Greatest absolute difference: 0.5 at index (1,) (up to 1e-05 allowed)
    Greatest relative difference: 0.20000000298023224 at index (1,) (up to 1.3e-06 allowed)
    >>> assert_close({"w": 1.0}, {"w": 1.5}, rtol=0.5, atol=0.0)
    """
    __tracebackhide__ = True  # pytest shows the caller's line
    opts = {"allow_subclasses": allow_subclasses, "rtol": rtol, "atol": atol,
            "equal_nan": equal_nan, "check_dtype": check_dtype, "check_stride": check_stride}
    checks = []
    try:
        _checks(actual, expected, (), opts, checks)
    except _Failure as failure:
        raise failure.error() from None
    for check, path in checks:
        try:
            check()
        except _Failure as failure:
            failure.path = path
            raise failure.error(msg) from None


# --------------------------------------------------------------------------
# make_tensor


def _bounds(low, high, lowest, highest, default_low, default_high, dt):
    """Validated ``[low, high)`` clamped to the dtype's range (ceiled for integers)."""
    low = default_low if low is None else low
    high = default_high if high is None else high
    if any(isinstance(v, float) and math.isnan(v) for v in (low, high)):
        raise ValueError(f"`low` and `high` cannot be NaN, but got low={low} and high={high}")
    if low == high and (dt.is_floating_point or dt.is_complex):
        warnings.warn(
            "Passing `low==high` to `torch.testing.make_tensor` for floating or complex "
            "types is deprecated since 2.1 and will be removed in 2.3. Use `torch.full(...)` "
            "instead.", FutureWarning, stacklevel=3)
    elif low >= high:
        raise ValueError(f"`low` must be less than `high`, but got {low} >= {high}")
    elif high < lowest or low >= highest:
        raise ValueError(
            f"The value interval specified by `low` and `high` is [{low}, {high}), but {dt} "
            f"only supports [{lowest}, {highest})"
        )
    low, high = min(max(low, lowest), highest), min(max(high, lowest), highest)
    if not (dt.is_floating_point or dt.is_complex):
        return math.ceil(low), math.ceil(high)
    return low, high


def _uniform(shape, low, high, np_dtype):
    """Uniform floats on ``[low, high)`` from the seeded generator (``manual_seed``)."""
    u = rand(*shape, dtype=_dtype.float64)._data
    values = np.asarray(2 * (low / 2 + (high / 2 - low / 2) * u)).astype(np_dtype)
    if high > low:  # rounding to the dtype must not reach high
        values = np.minimum(values, np.nextafter(np_dtype.type(high), np_dtype.type(low)))
    return values


def make_tensor(*shape, dtype, device, low=None, high=None, requires_grad=False,
                noncontiguous=False, exclude_zero=False, memory_format=None):
    """A tensor of ``shape`` filled with random values from ``[low, high)``.

    PyTorch's ``torch.testing.make_tensor``, drawing from tracegrad's
    generator (so ``torch.manual_seed`` makes it repeatable; the values
    differ from PyTorch's).  Default ranges: bool ``[0, 2)``, unsigned
    ``[0, 10)``, signed integers ``[-9, 10)``, floating and complex
    ``[-9, 9)`` (complex: real and imaginary parts each).  Given bounds are
    clamped to the dtype's finite range; for integer dtypes they are
    rounded up.

    Parameters
    ----------
    *shape : int, or one sequence of int
        The shape.
    dtype : dtype
        Element type (``torch.float32``, ``torch.int64``, ``torch.bool``, ...).
    device : str or device
        Must be the CPU (``"cpu"``); required, as in PyTorch.
    low, high : float, optional
        The range (``low`` inclusive, ``high`` exclusive).
    requires_grad : bool, optional
        Make the result a leaf that requires grad (floating dtypes only).
    noncontiguous : bool, optional
        Return a non-contiguous view (every second element along the last
        dimension of a larger array), if the tensor has more than one
        element.
    exclude_zero : bool, optional
        Replace zeros by 1 (bool and integers) or by the dtype's smallest
        normal number (floating and complex).
    memory_format : None, optional
        Only None: tracegrad tensors have no memory formats.

    Returns
    -------
    Tensor
        Of the given shape and dtype.

    Raises
    ------
    ValueError
        For ``requires_grad`` with a bool or integer dtype, ``low >= high``,
        a NaN bound, a range outside the dtype, or both ``noncontiguous``
        and ``memory_format``.
    TypeError
        For an unsupported dtype.
    NotImplementedError
        For a ``memory_format``.
    RuntimeError
        For a device other than the CPU.

    Examples
    --------
    >>> import tracegrad.torch as torch
    >>> from tracegrad.torch.testing import make_tensor
    >>> t = make_tensor(2, 3, dtype=torch.float32, device="cpu", low=-1, high=1)
    >>> t.shape, t.dtype, bool(((t >= -1) & (t < 1)).all())
    (torch.Size([2, 3]), torch.float32, True)
    >>> make_tensor((4,), dtype=torch.int64, device="cpu", low=3, high=4)
    tensor([3, 3, 3, 3])
    """
    if len(shape) == 1 and isinstance(shape[0], collections.abc.Sequence):
        shape = shape[0]
    shape = tuple(int(s) for s in shape)
    check_device(device)
    dt = _dtype.as_dtype(dtype)
    np_dtype = dt.dtype
    if noncontiguous and memory_format is not None:
        raise ValueError(
            "The parameters `noncontiguous` and `memory_format` are mutually exclusive, but "
            f"got noncontiguous={noncontiguous} and memory_format={memory_format}"
        )
    if memory_format is not None:
        raise NotImplementedError(
            "make_tensor: tracegrad.torch tensors have no memory formats (they are "
            "C-contiguous); omit memory_format."
        )
    kind = np_dtype.kind
    if requires_grad and kind in "biu":
        raise ValueError(
            "`requires_grad=True` is not supported for boolean and integral dtypes, but got "
            f"dtype={dt}"
        )
    noncontiguous = noncontiguous and math.prod(shape) > 1
    draw = (*shape[:-1], 2 * shape[-1]) if noncontiguous else shape
    if kind == "b":
        low, high = _bounds(low, high, 0, 2, 0, 2, dt)
        values = randint(low, high, draw, dtype=_dtype.int64)._data.astype(np.bool_)
    elif kind in "iu":
        info = np.iinfo(np_dtype)
        highest = info.max + (1 if np_dtype != np.int64 else 0)
        low, high = _bounds(low, high, info.min, highest, -9, 10, dt)
        values = randint(low, high, draw, dtype=_dtype.int64)._data.astype(np_dtype)
    elif kind in "fc":
        info = np.finfo(np_dtype)
        low, high = _bounds(low, high, float(info.min), float(info.max), -9, 9, dt)
        real = info.dtype  # float32 for complex64
        values = _uniform(draw, low, high, real)
        if kind == "c":
            values = values + 1j * _uniform(draw, low, high, real)
        values = np.asarray(values, dtype=np_dtype)
    else:
        raise TypeError(f"The requested dtype '{dt}' is not supported by torch.testing.make_tensor().")
    if noncontiguous:
        values = values[..., 1::2]
    if exclude_zero:
        values[values == 0] = 1 if kind in "biu" else np.finfo(np_dtype).tiny
    result = from_numpy(values)
    if kind in "fc" and requires_grad:
        result.requires_grad_(True)
    return result
