"""PyTorch's tensor printing (``repr(tensor)``), reproduced on NumPy arrays.

This module owns the print options of ``tracegrad.torch``
(:func:`set_printoptions`, :func:`get_printoptions`, :func:`printoptions`)
and :func:`format_tensor`, which turns an array into the exact text
``repr(torch.tensor(...))`` shows for a CPU tensor holding the same values.

How PyTorch lays a tensor out (the facts this module reproduces; see the
PyTorch documentation of ``torch.set_printoptions``):

* One width for every element of a tensor: the longest text among the
  nonzero finite values (the shown ones, when summarized); every element is
  right-aligned to it. ``nan``, ``inf`` and zeros do not take part.
* Floating-point values use one of three styles for the whole tensor. If every
  nonzero finite value is a whole number, they print without decimals and
  with a trailing ``.`` (``27.``). Otherwise ``precision`` decimals
  (``3.1416``). Scientific notation (``1.0000e+08``) replaces either style
  when the largest nonzero finite magnitude is more than 1000 times the
  smallest, exceeds 1e8, or the smallest is below 1e-4 (or when the
  ``sci_mode`` option forces it on or off).
* Integers print as Python prints them, booleans as ``True``/``False``,
  complex values as ``real+imagj`` with each part formatted by its own
  formatter (one for all real parts, one for all imaginary parts).
* A row of a vector holds as many elements as fit in ``linewidth`` after the
  indentation; further elements go on continuation lines. Rows of matrices
  are separated by one newline, blocks of rank-3 tensors by two, and so on.
* With more than ``threshold`` elements, every dimension longer than
  ``2 * edgeitems`` shows only its first and last ``edgeitems`` entries with
  ``...`` between them.
* Suffixes (``size=``, ``dtype=``, ``grad_fn=``/``requires_grad=True``) follow
  the values after ``, ``, or start a new line indented under the values when
  they would pass ``linewidth``.
"""
import contextlib
import math

import numpy as np

from . import _dtype

__all__ = ["format_tensor", "set_printoptions", "get_printoptions", "printoptions"]

# precision, threshold, edgeitems, linewidth of each named profile
_PROFILES = {
    "default": (4, 1000, 3, 80),
    "short": (2, 1000, 2, 80),
    "full": (4, math.inf, 3, 80),
}
_LAYOUT_KEYS = ("precision", "threshold", "edgeitems", "linewidth")
_OPTION_KEYS = _LAYOUT_KEYS + ("sci_mode",)

# module state, shared by all threads (as PyTorch's is)
_options = dict(zip(_LAYOUT_KEYS, _PROFILES["default"]), sci_mode=None)


def set_printoptions(precision=None, threshold=None, edgeitems=None, linewidth=None,
                     profile=None, sci_mode=None):
    """Set how tensors print, with the semantics of ``torch.set_printoptions``.

    Options given as ``None`` keep their current value, except ``sci_mode``:
    every call sets it (``None`` restores the automatic choice).

    Parameters
    ----------
    precision : int, optional
        Decimals of floating-point values (default 4).
    threshold : int or float, optional
        Tensors with more elements than this are summarized with ``...``
        (default 1000; ``math.inf`` never summarizes).
    edgeitems : int, optional
        Entries shown at each end of a summarized dimension (default 3).
        With 0, a summarized tensor prints as ``[...]`` and every tensor
        shows its ``size=``.
    linewidth : int, optional
        Characters per line before a row wraps (default 80).
    profile : {"default", "short", "full"}, optional
        First resets precision, threshold, edgeitems and linewidth to the
        profile's values (``"short"``: precision 2, edgeitems 2; ``"full"``:
        no summarization); the other arguments then override them. As in
        PyTorch, another name changes nothing.
    sci_mode : bool or None, optional
        True or False forces scientific notation on or off for floating-point
        values; None (the default) lets the values choose.
    """
    if profile in _PROFILES:
        _options.update(zip(_LAYOUT_KEYS, _PROFILES[profile]))
    for key, value in zip(_LAYOUT_KEYS, (precision, threshold, edgeitems, linewidth)):
        if value is not None:
            _options[key] = value
    _options["sci_mode"] = sci_mode


def get_printoptions():
    """The current print options, as keywords for :func:`set_printoptions`.

    Returns
    -------
    dict
        Keys ``precision``, ``threshold``, ``edgeitems``, ``linewidth`` and
        ``sci_mode`` (a copy: changing it changes nothing).
    """
    return dict(_options)


@contextlib.contextmanager
def printoptions(**kwargs):
    """Context manager: :func:`set_printoptions` inside, the old options after.

    Parameters
    ----------
    **kwargs
        The keywords of :func:`set_printoptions`.
    """
    saved = get_printoptions()
    set_printoptions(**kwargs)
    try:
        yield
    finally:
        set_printoptions(**saved)


def _resolve_options(overrides):
    opts = dict(_options)
    if overrides:
        unknown = sorted(set(overrides) - set(_OPTION_KEYS))
        if unknown:
            raise TypeError(f"unknown print option(s) {unknown}; printoptions= takes a mapping "
                            f"with keys among {list(_OPTION_KEYS)} (as get_printoptions() returns)")
        opts.update(overrides)
    return opts


# ---------------------------------------------------------------------------
# element formatting

def _magnitude_extremes(values):
    """The values whose text can be the longest in any style.

    A formatted value's length grows with its magnitude for a given sign
    (fixed notation), and its exponent's digit count is largest at either end
    of the magnitude range (scientific notation), so the smallest and largest
    magnitude of each sign are enough to know the widest text.
    """
    picked = []
    for part in (values[values > 0], values[values < 0]):
        if part.size:
            mags = np.abs(part)
            picked += [part[np.argmin(mags)], part[np.argmax(mags)]]
    return [v.item() for v in picked]


class _Formatter:
    """Formats the elements of one real tensor (or the real or imaginary parts).

    Built from the values that will be shown; decides the style and the
    common width once, then :meth:`format` pads each element to that width.
    """

    def __init__(self, values, opts):
        flat = np.asarray(values).reshape(-1)
        self.precision = opts["precision"]
        self.floating = flat.dtype.kind == "f"
        self.int_mode = True
        self.sci_mode = False
        self.width = 1
        if not self.floating:
            if flat.size:
                self.width = max(len(str(v.item())) for v in (flat.min(), flat.max()))
            return
        shown = flat[np.isfinite(flat) & (flat != 0)]
        if not shown.size:
            return
        mags = np.abs(shown).astype(np.float64)
        smallest, largest = mags.min(), mags.max()
        self.int_mode = bool(np.all(shown == np.ceil(shown)))
        forced = opts["sci_mode"]
        if forced is None:
            with np.errstate(over="ignore"):  # 1e300 / 1e-300 is inf: scientific
                ratio = largest / smallest
            self.sci_mode = bool(ratio > 1000.0 or largest > 1.0e8 or smallest < 1.0e-4)
        else:
            self.sci_mode = forced
        # the trailing "." of whole numbers counts in the width
        extra = 1 if self.int_mode and not self.sci_mode else 0
        self.width = max(len(self._text(v)) + extra for v in _magnitude_extremes(shown))

    def _text(self, value):
        if self.sci_mode:
            return f"{value:.{self.precision}e}"
        if self.int_mode:
            return f"{value:.0f}"
        return f"{value:.{self.precision}f}"

    def format(self, value):
        """The text of one element (a Python scalar), right-aligned to the width."""
        if not self.floating:
            text = str(value)
        else:
            text = self._text(value)
            if self.int_mode and not self.sci_mode and math.isfinite(value):
                text += "."
        return text.rjust(self.width)


def _element_formatter(formatters):
    """A function from a Python scalar to its text, and the element width."""
    if len(formatters) == 1:
        return formatters[0].format, formatters[0].width
    real_fmt, imag_fmt = formatters

    def format_complex(value):
        real = real_fmt.format(value.real)
        imag = (imag_fmt.format(value.imag) + "j").lstrip()
        return real + imag if imag[0] in "+-" else real + "+" + imag

    # the imaginary part adds its width and the "j"
    return format_complex, real_fmt.width + imag_fmt.width + 1


def _shown_values(a, edgeitems):
    """The entries a summarized print shows (for sizing the formatters)."""
    if a.ndim >= 2 and not edgeitems:
        return a[(slice(0, 0),) * a.ndim]
    if edgeitems:
        for axis, n in enumerate(a.shape):
            if n > 2 * edgeitems:
                keep = np.r_[0:edgeitems, n - edgeitems:n]
                a = np.take(a, keep, axis=axis)
    return a


# ---------------------------------------------------------------------------
# layout

def _layout(a, indent, summarize, fmt, opts):
    """The bracketed text of ``a``, whose first line starts at column ``indent``."""
    format_one, width = fmt
    edge = opts["edgeitems"]
    if a.ndim == 0:
        return format_one(a.item())
    cut = summarize and a.shape[0] > 2 * edge
    if a.ndim == 1:
        if summarize and not edge:
            items = ["..."]
        elif cut:
            items = ([format_one(v) for v in a[:edge].tolist()] + [" ..."]
                     + [format_one(v) for v in a[-edge:].tolist()])
        else:
            items = [format_one(v) for v in a.tolist()]
        # each element takes its width plus ", "
        per_line = max(1, math.floor((opts["linewidth"] - indent) / (width + 2)))
        lines = [", ".join(items[i:i + per_line]) for i in range(0, len(items), per_line)]
        return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"
    if cut:
        n = a.shape[0]
        rows = ([_layout(a[i], indent + 1, summarize, fmt, opts) for i in range(edge)] + ["..."]
                + [_layout(a[i], indent + 1, summarize, fmt, opts) for i in range(n - edge, n)])
    else:
        rows = [_layout(row, indent + 1, summarize, fmt, opts) for row in a]
    return "[" + ("," + "\n" * (a.ndim - 1) + " " * (indent + 1)).join(rows) + "]"


def _values_text(a, indent, opts):
    summarize = a.size > opts["threshold"]
    shown = _shown_values(a, opts["edgeitems"]) if summarize else a
    if a.dtype.kind == "c":
        formatters = (_Formatter(shown.real, opts), _Formatter(shown.imag, opts))
    else:
        formatters = (_Formatter(shown, opts),)
    return _layout(a, indent, summarize, _element_formatter(formatters), opts)


def _close(text, suffixes, indent, linewidth):
    """Append the suffixes and the closing parenthesis, wrapping as PyTorch does."""
    # PyTorch's measure of the last line: its length plus 2 (plus 1 if a
    # newline precedes it), reproduced as is since it decides the wrapping
    line_len = len(text) - text.rfind("\n") + 1
    parts = [text]
    for suffix in suffixes:
        if line_len + len(suffix) + 2 > linewidth:
            parts.append(",\n" + " " * indent + suffix)
            line_len = indent + len(suffix)
        else:
            parts.append(", " + suffix)
            line_len += len(suffix) + 2
    parts.append(")")
    return "".join(parts)


def format_tensor(data, *, requires_grad=False, grad_fn_name=None, default_dtype=None,
                  printoptions=None):
    """The text ``repr(tensor)`` shows for a CPU tensor holding ``data``.

    Reproduces PyTorch's ``Tensor.__repr__`` (which ``str`` shares) for
    strided CPU tensors: value formatting, alignment, wrapping, summarization
    and suffixes, under the current print options.

    Parameters
    ----------
    data : numpy.ndarray or array_like
        The values, any shape (0-d and empty included); dtype float16/32/64,
        int8/16/32/64, uint8, bool, complex64 or complex128.
    requires_grad : bool, optional
        Adds ``requires_grad=True`` (when there is no ``grad_fn_name``).
    grad_fn_name : str, optional
        Adds ``grad_fn=<grad_fn_name>``, e.g. ``"MulBackward0"``.
    default_dtype : tracegrad.torch dtype or numpy dtype, optional
        The default floating-point dtype the ``dtype=`` suffix is relative to;
        defaults to ``_dtype.get_default_dtype()``. The default complex dtype
        is complex128 when it is float64, otherwise complex64.
    printoptions : mapping, optional
        Overrides of the current print options for this call, with keys among
        those :func:`get_printoptions` returns; missing keys keep their
        current values.

    Returns
    -------
    str
        E.g. ``"tensor([1., 2.], requires_grad=True)"`` or
        ``"tensor([], size=(0, 3))"``.

    Raises
    ------
    TypeError
        If the dtype is not one tracegrad.torch supports, or ``printoptions``
        has an unknown key.

    Notes
    -----
    The ``dtype=`` suffix appears when the dtype is not the default of its
    kind (the default float and complex dtypes, int64, bool); an empty tensor
    shows it whenever the dtype is not the default float dtype, and shows
    ``size=`` unless it is 1-D. With ``edgeitems`` 0 every tensor shows
    ``size=``.
    """
    a = np.asarray(data)
    dtype = _dtype.as_dtype(a.dtype)
    float_default = (_dtype.get_default_dtype() if default_dtype is None
                     else _dtype.as_dtype(default_dtype))
    complex_default = _dtype.complex128 if float_default is _dtype.float64 else _dtype.complex64
    opts = _resolve_options(printoptions)
    prefix = "tensor("
    indent = len(prefix)
    suffixes = []
    if a.size == 0:
        if a.ndim != 1:
            suffixes.append(f"size={tuple(a.shape)}")
        if dtype is not float_default:
            suffixes.append(f"dtype={dtype!r}")
        text = "[]"
    else:
        if not opts["edgeitems"]:
            suffixes.append(f"size={tuple(a.shape)}")
        if dtype not in (float_default, complex_default, _dtype.int64, _dtype.bool):
            suffixes.append(f"dtype={dtype!r}")
        text = _values_text(a, indent, opts)
    if grad_fn_name is not None:
        suffixes.append(f"grad_fn=<{grad_fn_name}>")
    elif requires_grad:
        suffixes.append("requires_grad=True")
    return _close(prefix + text, suffixes, indent, opts["linewidth"])
