"""``tracegrad.numpy.fft``: NumPy 2's ``numpy.fft``, differentiable.

Every transform follows NumPy's signature (``n``/``s``, ``axis``/``axes``,
``norm`` in ``"backward"``, ``"ortho"``, ``"forward"``), result shapes and
dtypes (complex64 from float16/float32/complex64 input, else complex128;
the real results of ``irfft``/``hfft`` are float32 or float64 to match), and
is registered for NumPy dispatch, so ``np.fft.fft(tracer)`` works.

How they are built
------------------
All transforms are the one ``fft`` primitive (``primitives/fft.py``: FFT,
IFFT, RFFT, IRFFT over a set of axes, with JAX ``lax.fft``'s scalings), plus
``pad``/``slice`` for ``n``/``s`` (zero-padding or cropping the input, as
NumPy does), a multiplication for ``norm``, and ``conj`` for the Hermitian
pair ``hfft = irfft(conj(a))`` and ``ihfft = conj(rfft(a))`` with the norm
directions swapped (NumPy's definitions).  Axes repeated in ``axes`` are
transformed once per repetition, one axis at a time, in NumPy's order.

Derivatives
-----------
Every transform is linear over the reals, so it is differentiable
everywhere, to any order, under every transform.  Complex cotangents follow
JAX's convention (the VJP is the transpose of the JVP for the pairing
``Re(sum(a * b))``, no conjugation), so gradients agree with
``jax.numpy.fft``.  ``irfft``/``hfft`` ignore the imaginary parts of the
zero frequency and (even ``n``) the Nyquist frequency, as NumPy does: the
derivative with respect to those parts is 0.  ``fftfreq``/``rfftfreq`` are
differentiable in the sample spacing ``d``; ``fftshift``/``ifftshift`` are
rolls.
"""
import math
import warnings

import numpy as np
from numpy.lib.array_utils import normalize_axis_index

from ..core import Tracer
from ..primitives import ops
from ._array_type import array_result
from ._core import _array, _no_out
from ._dispatch import implements
from ._flip_pad import roll

__all__ = [
    "fft",
    "ifft",
    "fft2",
    "ifft2",
    "fftn",
    "ifftn",
    "rfft",
    "irfft",
    "rfft2",
    "irfft2",
    "rfftn",
    "irfftn",
    "hfft",
    "ihfft",
    "fftfreq",
    "rfftfreq",
    "fftshift",
    "ifftshift",
]

_NORMS = {None: "backward", "backward": "backward", "ortho": "ortho", "forward": "forward"}
_SWAP = {"backward": "forward", "ortho": "ortho", "forward": "backward"}


# --------------------------------------------------------------------------
# helpers


def _norm(norm):
    try:
        return _NORMS[norm]
    except (KeyError, TypeError):
        raise ValueError(f'Invalid norm value {norm!r}; should be "backward", "ortho" or '
                         '"forward" (or None for "backward").') from None


def _check_n(n):
    if n < 1:
        raise ValueError(f"Invalid number of FFT data points ({n}) specified: n (and every "
                         "entry of s) must be at least 1.")
    return n


def _scaled(y, size, norm, inverse):
    """Apply ``norm`` to a transform computed with the primitive's scaling
    (forward unscaled, inverse ``1 / size``)."""
    if norm == "backward":
        return y
    if norm == "ortho":
        factor = math.sqrt(size) if inverse else 1.0 / math.sqrt(size)
    else:  # "forward"
        factor = float(size) if inverse else 1.0 / size
    return ops.mul(y, factor)


def _resize(x, axis, n):
    """``x`` cropped or zero-padded at the end of ``axis`` to length ``n``."""
    shape = tuple(x.shape)
    m = shape[axis]
    if n == m:
        return x
    if n < m:
        return ops.slice(x, (0,) * len(shape), shape[:axis] + (n,) + shape[axis + 1:])
    config = [(0, 0, 0)] * len(shape)
    config[axis] = (0, n - m, 0)
    return ops.pad(x, config, 0.0)


def _axis(a, axis):
    if a.ndim == 0:
        raise ValueError("a 1-D transform needs an array of at least one dimension, got a "
                         "0-d array; reshape it to (1,) first")
    return normalize_axis_index(int(axis), a.ndim)


def _cook(a, s, axes, inverse_real=False):
    """NumPy's ``s``/``axes`` defaults: ``(s, axes)`` as lists, axes
    non-negative; ``s`` entries of -1 take the input's size, None entries
    (deprecated in NumPy 2) the 1-D transform's default."""
    shapeless = s is None
    if shapeless:
        s = [a.shape[normalize_axis_index(int(ax), a.ndim)] for ax in axes] \
            if axes is not None else list(a.shape)
    else:
        s = list(np.atleast_1d(np.asarray(s, dtype=object)))
    if axes is None:
        if not shapeless:
            warnings.warn(
                "`axes` should not be `None` if `s` is not `None` (deprecated in NumPy 2.0): "
                "pass the axes explicitly, e.g. axes=range(-len(s), 0).",
                DeprecationWarning, stacklevel=3)
        axes = list(range(-len(s), 0))
    axes = [normalize_axis_index(int(ax), a.ndim) for ax in np.atleast_1d(axes)] \
        if np.ndim(axes) else [normalize_axis_index(int(axes), a.ndim)]
    if len(s) != len(axes):
        raise ValueError(f"Shape and axes have different lengths: s has {len(s)} entries, "
                         f"axes {len(axes)}.")
    if inverse_real and shapeless:
        s[-1] = (a.shape[axes[-1]] - 1) * 2
    if any(v is None for v in s):
        warnings.warn("Passing None in `s` is deprecated in NumPy 2.0: pass the sizes (or -1 "
                      "for the input's size) instead.", DeprecationWarning, stacklevel=3)
    s = [a.shape[ax] if v is not None and int(v) == -1 else (None if v is None else int(v))
         for v, ax in zip(s, axes)]
    return s, axes


def _c2c(a, s, axes, norm, inverse):
    """Complex transform of ``a`` over distinct ``axes`` with sizes ``s``."""
    kind = "IFFT" if inverse else "FFT"
    x = a
    for ax, n in zip(axes, s):
        x = _resize(x, ax, _check_n(n))
    y = ops.fft(x, kind, tuple(axes))
    return _scaled(y, math.prod(s), norm, inverse)


def _real_input(a, name):
    if np.dtype(a.dtype).kind == "c":
        raise TypeError(f"{name} takes real input, got a {a.dtype} array: take its real part "
                        "first (tnp.real), or use the complex transform (fft/fftn)")


def _distinct(axes):
    return len(set(axes)) == len(axes)


# --------------------------------------------------------------------------
# complex transforms


@implements(np.fft.fft)
def fft(a, n=None, axis=-1, norm=None, out=None):
    """One-dimensional discrete Fourier transform, ``sum_j a_j exp(-2 pi i j k / n)``.

    Parameters
    ----------
    a : array_like or tracer
        Real or complex input.
    n : int, optional
        Transform length: the input is cropped, or zero-padded at the end,
        along ``axis`` to ``n`` (default: its length there).
    axis : int, optional
        The axis transformed (default -1).
    norm : {"backward", "ortho", "forward"}, optional
        Scaling: ``"backward"`` (default, None) none, ``"ortho"``
        ``1 / sqrt(n)``, ``"forward"`` ``1 / n``.
    out : None
        Not supported (tracegrad returns new arrays).

    Returns
    -------
    array or tracer
        Complex (complex64 for float16/float32/complex64 input, else
        complex128), ``a``'s shape with ``n`` on ``axis``.

    Raises
    ------
    ValueError
        ``n < 1``, an unknown ``norm``, or 0-d input.
    numpy.exceptions.AxisError
        ``axis`` out of range.
    """
    _no_out("tracegrad.numpy.fft.fft", out)
    a = _array(a)
    norm, axis = _norm(norm), _axis(a, axis)
    return _c2c(a, [a.shape[axis] if n is None else int(n)], [axis], norm, False)


@implements(np.fft.ifft)
def ifft(a, n=None, axis=-1, norm=None, out=None):
    """One-dimensional inverse DFT, ``(1/n) sum_k a_k exp(2 pi i j k / n)``.

    Parameters and results as in :func:`fft`; the ``norm`` scalings are
    ``"backward"`` ``1 / n`` (default), ``"ortho"`` ``1 / sqrt(n)``,
    ``"forward"`` none.
    """
    _no_out("tracegrad.numpy.fft.ifft", out)
    a = _array(a)
    norm, axis = _norm(norm), _axis(a, axis)
    return _c2c(a, [a.shape[axis] if n is None else int(n)], [axis], norm, True)


def _c2c_nd(a, s, axes, norm, inverse, name, out):
    _no_out(f"tracegrad.numpy.fft.{name}", out)
    a = _array(a)
    norm = _norm(norm)
    s, axes = _cook(a, s, axes)
    if not axes:
        return a
    if _distinct(axes) and None not in s:
        return _c2c(a, s, axes, norm, inverse)
    one = ifft if inverse else fft
    for n, ax in reversed(list(zip(s, axes))):  # NumPy's order, one axis at a time
        a = one(a, n, ax, norm)
    return a


@implements(np.fft.fftn)
def fftn(a, s=None, axes=None, norm=None, out=None):
    """N-dimensional discrete Fourier transform over ``axes``.

    Parameters
    ----------
    a : array_like or tracer
        Real or complex input.
    s : sequence of int, optional
        Transform sizes, one per axis of ``axes`` (the input is cropped or
        zero-padded to them; -1 keeps the input's size).  Default: the
        input's sizes.
    axes : sequence of int, optional
        Axes transformed (default: all, or the last ``len(s)``).  A repeated
        axis is transformed once per repetition, as in NumPy.
    norm : {"backward", "ortho", "forward"}, optional
        As in :func:`fft`, with ``n`` the product of the sizes.
    out : None
        Not supported.

    Returns
    -------
    array or tracer
        Complex, ``a``'s shape with ``s`` on ``axes``.  With no axes at all
        (0-d input), ``a`` itself, as NumPy returns.

    Raises
    ------
    ValueError
        ``s`` and ``axes`` of different lengths, a size below 1, or an
        unknown ``norm``.
    numpy.exceptions.AxisError
        An axis out of range.
    """
    return _c2c_nd(a, s, axes, norm, False, "fftn", out)


@implements(np.fft.ifftn)
def ifftn(a, s=None, axes=None, norm=None, out=None):
    """N-dimensional inverse DFT over ``axes``; see :func:`fftn` and :func:`ifft`."""
    return _c2c_nd(a, s, axes, norm, True, "ifftn", out)


@implements(np.fft.fft2)
def fft2(a, s=None, axes=(-2, -1), norm=None, out=None):
    """Two-dimensional DFT: :func:`fftn` over ``axes=(-2, -1)`` by default."""
    return _c2c_nd(a, s, axes, norm, False, "fft2", out)


@implements(np.fft.ifft2)
def ifft2(a, s=None, axes=(-2, -1), norm=None, out=None):
    """Two-dimensional inverse DFT: :func:`ifftn` over ``axes=(-2, -1)`` by default."""
    return _c2c_nd(a, s, axes, norm, True, "ifft2", out)


# --------------------------------------------------------------------------
# real transforms


@implements(np.fft.rfft)
def rfft(a, n=None, axis=-1, norm=None, out=None):
    """DFT of real input: the ``n // 2 + 1`` non-negative frequencies of :func:`fft`.

    Parameters
    ----------
    a : array_like or tracer
        Real (float, integer or bool) input.
    n : int, optional
        Transform length (input cropped or zero-padded along ``axis``).
    axis : int, optional
        The axis transformed (default -1).
    norm : {"backward", "ortho", "forward"}, optional
        As in :func:`fft`.
    out : None
        Not supported.

    Returns
    -------
    array or tracer
        Complex, ``n // 2 + 1`` long on ``axis``.

    Raises
    ------
    TypeError
        Complex input (NumPy raises too): take ``real`` first or use :func:`fft`.
    ValueError
        ``n < 1``, an unknown ``norm``, or 0-d input.
    """
    _no_out("tracegrad.numpy.fft.rfft", out)
    a = _array(a)
    _real_input(a, "rfft")
    norm, axis = _norm(norm), _axis(a, axis)
    n = _check_n(a.shape[axis] if n is None else int(n))
    y = ops.fft(_resize(a, axis, n), "RFFT", (axis,))
    return _scaled(y, n, norm, False)


@implements(np.fft.irfft)
def irfft(a, n=None, axis=-1, norm=None, out=None):
    """Inverse of :func:`rfft`: a real signal of length ``n`` from its
    non-negative frequencies.

    Parameters
    ----------
    a : array_like or tracer
        The ``n // 2 + 1`` non-negative frequencies along ``axis`` (cropped
        or zero-padded to that length); the imaginary parts of the zero
        frequency and, for even ``n``, of the last one are ignored.
    n : int, optional
        Output length (default ``2 * (m - 1)`` for ``m`` input entries).
    axis : int, optional
        The axis transformed (default -1).
    norm : {"backward", "ortho", "forward"}, optional
        As in :func:`ifft`.
    out : None
        Not supported.

    Returns
    -------
    array or tracer
        Real (float32 for complex64 input, else float64), ``n`` long on ``axis``.

    Raises
    ------
    ValueError
        ``n < 1`` (e.g. the default for a single input entry), an unknown
        ``norm``, or 0-d input.
    """
    _no_out("tracegrad.numpy.fft.irfft", out)
    a = _array(a)
    norm, axis = _norm(norm), _axis(a, axis)
    n = _check_n((a.shape[axis] - 1) * 2 if n is None else int(n))
    y = ops.fft(_resize(a, axis, n // 2 + 1), "IRFFT", (axis,), (n,))
    return _scaled(y, n, norm, True)


@implements(np.fft.rfftn)
def rfftn(a, s=None, axes=None, norm=None, out=None):
    """N-dimensional DFT of real input; the last of ``axes`` is halved to
    ``s[-1] // 2 + 1``.

    Parameters
    ----------
    a : array_like or tracer
        Real input.
    s, axes, norm
        As in :func:`fftn`.
    out : None
        Not supported.

    Returns
    -------
    array or tracer
        Complex, ``a``'s shape with ``s`` on ``axes`` except ``s[-1] // 2 + 1``
        on the last.

    Raises
    ------
    TypeError
        Complex input.
    ValueError, numpy.exceptions.AxisError
        As in :func:`fftn`; also for an empty ``axes``.
    """
    _no_out("tracegrad.numpy.fft.rfftn", out)
    a = _array(a)
    _real_input(a, "rfftn")
    norm = _norm(norm)
    s, axes = _cook(a, s, axes)
    if not axes:
        raise ValueError("rfftn needs at least one axis to transform")
    if not _distinct(axes) or None in s:
        a = rfft(a, s[-1], axes[-1], norm)
        for n, ax in reversed(list(zip(s[:-1], axes[:-1]))):
            a = fft(a, n, ax, norm)
        return a
    x = a
    for ax, n in zip(axes, s):
        x = _resize(x, ax, _check_n(n))
    y = ops.fft(x, "RFFT", tuple(axes))
    return _scaled(y, math.prod(s), norm, False)


@implements(np.fft.irfftn)
def irfftn(a, s=None, axes=None, norm=None, out=None):
    """Inverse of :func:`rfftn`: a real array of sizes ``s`` on ``axes``.

    Parameters
    ----------
    a : array_like or tracer
        Complex input; along the last of ``axes`` it holds ``s[-1] // 2 + 1``
        non-negative frequencies (cropped or zero-padded to that).
    s : sequence of int, optional
        Output sizes (default: the input's, with ``2 * (m - 1)`` on the last
        axis).
    axes, norm
        As in :func:`ifftn`.
    out : None
        Not supported.

    Returns
    -------
    array or tracer
        Real (float32 for complex64 input, else float64), sizes ``s`` on ``axes``.

    Raises
    ------
    ValueError, numpy.exceptions.AxisError
        As in :func:`fftn`; also for an empty ``axes``.
    """
    _no_out("tracegrad.numpy.fft.irfftn", out)
    a = _array(a)
    norm = _norm(norm)
    s, axes = _cook(a, s, axes, inverse_real=True)
    if not axes:
        raise ValueError("irfftn needs at least one axis to transform")
    if not _distinct(axes) or None in s:
        for n, ax in zip(s[:-1], axes[:-1]):
            a = ifft(a, n, ax, norm)
        return irfft(a, s[-1], axes[-1], norm)
    x = a
    for ax, n in zip(axes[:-1], s[:-1]):
        x = _resize(x, ax, _check_n(n))
    x = _resize(x, axes[-1], _check_n(s[-1]) // 2 + 1)
    y = ops.fft(x, "IRFFT", tuple(axes), tuple(s))
    return _scaled(y, math.prod(s), norm, True)


@implements(np.fft.rfft2)
def rfft2(a, s=None, axes=(-2, -1), norm=None, out=None):
    """Two-dimensional :func:`rfftn` (``axes=(-2, -1)`` by default)."""
    return rfftn(a, s, axes, norm, out)


@implements(np.fft.irfft2)
def irfft2(a, s=None, axes=(-2, -1), norm=None, out=None):
    """Two-dimensional :func:`irfftn` (``axes=(-2, -1)`` by default)."""
    return irfftn(a, s, axes, norm, out)


# --------------------------------------------------------------------------
# Hermitian transforms


@implements(np.fft.hfft)
def hfft(a, n=None, axis=-1, norm=None, out=None):
    """DFT of a Hermitian-symmetric signal given by its first half: the real
    spectrum ``irfft(conj(a), n, axis)`` with the norm directions swapped
    (NumPy's definition; ``"backward"`` means unscaled here).

    Parameters
    ----------
    a : array_like or tracer
        The first ``n // 2 + 1`` entries of the signal along ``axis``.
    n : int, optional
        Output length (default ``2 * (m - 1)``).
    axis, norm, out
        As in :func:`irfft`.

    Returns
    -------
    array or tracer
        Real, ``n`` long on ``axis``.
    """
    _no_out("tracegrad.numpy.fft.hfft", out)
    a = _array(a)
    axis = _axis(a, axis)
    if n is None:
        n = (a.shape[axis] - 1) * 2
    return irfft(ops.conj(a), n, axis, _SWAP[_norm(norm)])


@implements(np.fft.ihfft)
def ihfft(a, n=None, axis=-1, norm=None, out=None):
    """Inverse of :func:`hfft`: ``conj(rfft(a, n, axis))`` with the norm
    directions swapped (``"backward"`` scales by ``1 / n``).

    Parameters
    ----------
    a : array_like or tracer
        Real input.
    n, axis, norm, out
        As in :func:`rfft`.

    Returns
    -------
    array or tracer
        Complex, ``n // 2 + 1`` long on ``axis``.
    """
    _no_out("tracegrad.numpy.fft.ihfft", out)
    return ops.conj(rfft(a, n, axis, _SWAP[_norm(norm)]))


# --------------------------------------------------------------------------
# frequencies and shifts


def _check_device(device):
    if device not in (None, "cpu"):
        raise ValueError(f"device must be None or 'cpu', got {device!r}")


@array_result
def fftfreq(n, d=1.0, device=None):
    """Sample frequencies of :func:`fft`: ``[0, 1, ..., (n-1)//2, -(n//2), ..., -1] / (n*d)``.

    Parameters
    ----------
    n : int
        Window length.
    d : float, array or tracer, optional
        Sample spacing (default 1); the result is differentiable in ``d``.
    device : None or "cpu"
        Accepted for NumPy compatibility.

    Returns
    -------
    array or tracer
        Shape ``(n,)``, float64 for a Python or float64 ``d`` (NumPy's result).
    """
    _check_device(device)
    if not isinstance(d, Tracer):
        return np.fft.fftfreq(n, d)
    n = int(n)
    k = np.concatenate([np.arange(0, (n - 1) // 2 + 1), np.arange(-(n // 2), 0)])
    return ops.mul(k.astype(np.float64), ops.div(1.0, ops.mul(d, float(n))))


@array_result
def rfftfreq(n, d=1.0, device=None):
    """Sample frequencies of :func:`rfft`: ``[0, 1, ..., n//2] / (n*d)``.

    Parameters and results as in :func:`fftfreq`; shape ``(n // 2 + 1,)``.
    """
    _check_device(device)
    if not isinstance(d, Tracer):
        return np.fft.rfftfreq(n, d)
    n = int(n)
    k = np.arange(0, n // 2 + 1).astype(np.float64)
    return ops.mul(k, ops.div(1.0, ops.mul(d, float(n))))


def _shift(x, axes, sign):
    x = _array(x)
    if axes is None:
        axes = tuple(range(x.ndim))
        shift = [sign * (n // 2) for n in x.shape]
    elif np.ndim(axes) == 0:
        shift = sign * (x.shape[normalize_axis_index(int(axes), x.ndim)] // 2)
    else:
        shift = [sign * (x.shape[normalize_axis_index(int(ax), x.ndim)] // 2) for ax in axes]
    return roll(x, shift, axes)


@implements(np.fft.fftshift)
def fftshift(x, axes=None):
    """Move the zero frequency to the centre: roll each of ``axes`` (default
    all) by half its length (``n // 2``).

    Parameters
    ----------
    x : array_like or tracer
    axes : int or sequence of int, optional

    Returns
    -------
    array or tracer
        ``x``'s shape and dtype.
    """
    return _shift(x, axes, 1)


@implements(np.fft.ifftshift)
def ifftshift(x, axes=None):
    """Inverse of :func:`fftshift` (rolls by ``-(n // 2)``; differs for odd ``n``)."""
    return _shift(x, axes, -1)
