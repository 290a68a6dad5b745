"""``tracegrad.scipy.signal``: SciPy's convolutions and ``detrend``, differentiable.

``convolve``, ``correlate`` and ``fftconvolve`` on N-d arrays,
``convolve2d``/``correlate2d`` with SciPy's boundary modes, ``detrend``,
the spectral estimates ``csd`` and ``welch``, and ``stft``/``istft``, with ``scipy.signal``'s signatures and values
(``jax.scipy.signal`` is the model for what exists).  Every function is
differentiable in all of its array inputs, to any order, and works under
``vmap`` and ``jit``: no new primitive is involved.

* The direct method gathers the larger input into a banded matrix whose
  positions follow from the shapes alone (one ``gather``) and multiplies it
  by the flattened smaller input (one ``matmul``); only the output positions
  the mode keeps are formed.  Its memory is ``output size * smaller input
  size`` entries.
* The FFT method (``fftconvolve``) multiplies the zero-padded transforms
  (``rfftn``/``irfftn`` for real inputs, ``fftn``/``ifftn`` otherwise) and
  crops to the mode, as SciPy does.
* ``correlate(in1, in2)`` is ``convolve(in1, in2[::-1, ...].conj())``, SciPy's
  convention: the second input is conjugated.
* ``csd``/``welch`` (Welch's method) and ``stft`` gather the overlapping
  segments with one ``take`` and transform them with ``rfft``/``fft``;
  ``istft`` overlap-adds the inverse transforms with one scatter-add.
* ``detrend`` subtracts the least-squares fit of each segment, written as a
  fixed projection matrix (it depends on the length and breakpoints only)
  applied along ``axis``.
"""
import math

import numpy as np
from numpy.lib.array_utils import normalize_axis_index

from .. import numpy as tnp
from ..core import Tracer
from ..numpy._core import _array, result_type

__all__ = ["convolve", "correlate", "fftconvolve", "convolve2d", "correlate2d", "detrend",
           "csd", "welch", "stft", "istft"]

_MODES = ("full", "same", "valid")
#: ``method="auto"`` switches to the FFT above this many multiply-adds
#: (direct memory grows as output size times the smaller input's size).
_AUTO_DIRECT_MAX = 1 << 20


def _shape(x):
    return tuple(np.shape(x))


def _cast(x, dt):
    if isinstance(x, Tracer):
        return x if x.dtype == dt else tnp.astype(x, dt)
    return np.asarray(x).astype(dt, copy=False)


def _check_mode(mode, name):
    if mode not in _MODES:
        raise ValueError(f"{name}: acceptable mode flags are 'valid', 'same', or 'full' "
                         f"(got {mode!r})")


def _swap_needed(mode, s1, s2, axes=None):
    """SciPy's rule: in 'valid' mode the first input must be at least as large
    as the second on every (convolved) axis; swap if the second is; raise if
    neither is."""
    if mode != "valid":
        return False
    axes = range(len(s1)) if axes is None else axes
    ok1 = all(s1[a] >= s2[a] for a in axes)
    ok2 = all(s2[a] >= s1[a] for a in axes)
    if not (ok1 or ok2):
        raise ValueError("For 'valid' mode, one must be at least as large as the other in "
                         "every dimension")
    return not ok1


def _mode_window(s1, s2, mode):
    """``(starts, lengths)`` of the kept part of the full convolution, per axis
    (SciPy's ``_centered`` for 'same', relative to ``in1``'s shape)."""
    full = [a + b - 1 for a, b in zip(s1, s2)]
    if mode == "full":
        return [0] * len(full), full
    if mode == "same":
        return [(f - a) // 2 for f, a in zip(full, s1)], list(s1)
    return ([min(a, b) - 1 for a, b in zip(s1, s2)], [abs(a - b) + 1 for a, b in zip(s1, s2)])


def _direct(a, v, starts, lengths):
    """Entries ``starts .. starts + lengths`` (per axis) of the full N-d
    convolution ``sum_i a[i] v[k - i]`` of two arrays of one rank and dtype."""
    if math.prod(_shape(a)) > math.prod(_shape(v)):
        a, v = v, a  # contract over the smaller input (convolution commutes)
    sa, sv = _shape(a), _shape(v)
    nd = len(sa)
    flat = np.zeros((1,) * (2 * nd), dtype=np.intp)
    valid = np.ones((1,) * (2 * nd), dtype=bool)
    strides = [math.prod(sv[d + 1:]) for d in range(nd)]
    for d in range(nd):
        k = np.arange(starts[d], starts[d] + lengths[d])
        j = k[:, None] - np.arange(sa[d])[None, :]
        shape = [1] * (2 * nd)
        shape[d], shape[nd + d] = lengths[d], sa[d]
        j = j.reshape(shape)
        valid = valid & (j >= 0) & (j < sv[d])
        flat = flat + j * strides[d]
    n_out, n_a = math.prod(lengths), math.prod(sa)
    idx = np.where(valid, flat, math.prod(sv))  # math.prod(sv) points at an appended zero
    idx = np.broadcast_to(idx, tuple(lengths) + sa).reshape(n_out, n_a)
    vz = tnp.concatenate([tnp.ravel(v), np.zeros(1, tnp.result_type(v))])
    band = tnp.take(vz, idx)
    out = tnp.matmul(band, tnp.ravel(a))
    return tnp.reshape(out, tuple(lengths))


def _prepare(in1, in2, name):
    in1, in2 = _array(in1), _array(in2)
    if in1.ndim != in2.ndim:
        raise ValueError(f"{name}: in1 and in2 should have the same dimensionality "
                         f"(got {in1.ndim} and {in2.ndim})")
    dt = result_type(in1, in2)
    return _cast(in1, dt), _cast(in2, dt)


def _empty(dt):
    return np.zeros((0,), dtype=dt)


def convolve(in1, in2, mode="full", method="auto"):
    """N-d convolution of two arrays (``scipy.signal.convolve``).

    Parameters
    ----------
    in1, in2 : array_like or tracer
        Arrays of the same rank (any dtype; the result has their promoted
        dtype, integers included for the direct method).
    mode : {"full", "same", "valid"}
        ``"full"``: shape ``s1 + s2 - 1``; ``"same"``: ``in1``'s shape,
        centred on the full output; ``"valid"``: ``|s1 - s2| + 1``, the
        positions that need no zero padding (one input must be at least as
        large as the other on every axis).
    method : {"auto", "direct", "fft"}
        ``"direct"`` sums the products (exact for integers); ``"fft"`` uses
        :func:`fftconvolve` (integer results are rounded back to integers,
        as SciPy does); ``"auto"`` takes the direct method unless the inputs
        are inexact and it would need more than about ``2**20``
        multiply-adds.

    Returns
    -------
    array or tracer
        The convolution, differentiable in both inputs (the derivative of a
        convolution in one input is a correlation with the other).  Two 0-d
        inputs give their product; an empty input gives an empty 1-D array.

    Raises
    ------
    ValueError
        Inputs of different rank, an unknown mode or method, or ``"valid"``
        mode with neither input at least as large as the other everywhere.

    Notes
    -----
    A NaN or infinity in the smaller input reaches every output of the
    direct method (the banded matrix's zeros multiply it), where SciPy's
    direct sum keeps it to the outputs it overlaps; the FFT method spreads
    it everywhere in both.
    """
    _check_mode(mode, "convolve")
    if method not in ("auto", "direct", "fft"):
        raise ValueError(f"convolve: acceptable method flags are 'auto', 'direct', or 'fft' "
                         f"(got {method!r})")
    in1, in2 = _prepare(in1, in2, "convolve")
    s1, s2 = _shape(in1), _shape(in2)
    if in1.ndim == 0:
        return tnp.multiply(in1, in2)
    if 0 in s1 or 0 in s2:
        return _empty(tnp.result_type(in1))
    if _swap_needed(mode, s1, s2):  # checked on every axis, for both methods
        in1, in2, s1, s2 = in2, in1, s2, s1
    dt = np.dtype(tnp.result_type(in1))
    if method == "auto":
        starts, lengths = _mode_window(s1, s2, mode)
        work = math.prod(lengths) * min(math.prod(s1), math.prod(s2))
        method = "fft" if dt.kind in "fc" and work > _AUTO_DIRECT_MAX else "direct"
    if method == "fft":
        out = fftconvolve(in1, in2, mode)
        if dt.kind in "iub":
            out = tnp.astype(tnp.around(out), dt)
        return out
    starts, lengths = _mode_window(s1, s2, mode)
    return _direct(in1, in2, starts, lengths)


def _reverse_conj(x):
    x = tnp.flip(x) if np.ndim(x) else x
    return tnp.conj(x) if np.dtype(tnp.result_type(x)).kind == "c" else x


def correlate(in1, in2, mode="full", method="auto"):
    """N-d cross-correlation (``scipy.signal.correlate``).

    ``z[k] = sum_l in1[l + k - K] * conj(in2[l])`` with ``K`` the offset the
    mode implies: ``convolve(in1, in2[::-1, ::-1, ...].conj(), mode, method)``.

    Parameters
    ----------
    in1, in2 : array_like or tracer
        Arrays of the same rank; ``in2`` is conjugated when complex.
    mode : {"full", "same", "valid"}
        As :func:`convolve` (``"same"`` is centred on ``in1``).
    method : {"auto", "direct", "fft"}
        As :func:`convolve`.

    Returns
    -------
    array or tracer
        Shaped as :func:`convolve`'s result; differentiable in both inputs.

    Raises
    ------
    ValueError
        As :func:`convolve`.
    """
    _check_mode(mode, "correlate")
    in1, in2 = _prepare(in1, in2, "correlate")
    return convolve(in1, _reverse_conj(in2), mode, method)


def _crop(x, starts, lengths):
    idx = tuple(slice(s, s + n) for s, n in zip(starts, lengths))
    return x[idx]


def fftconvolve(in1, in2, mode="full", axes=None):
    """N-d convolution through the FFT (``scipy.signal.fftconvolve``).

    Parameters
    ----------
    in1, in2 : array_like or tracer
        Arrays of the same rank.  Outside ``axes`` their sizes must be equal
        or 1 (they broadcast there).
    mode : {"full", "same", "valid"}
        As :func:`convolve`, over ``axes`` (``"same"`` crops every axis to
        ``in1``'s size).
    axes : int or sequence of int, optional
        Axes to convolve over (default all).  Axes where either input has
        length 1 are handled by broadcasting, as SciPy does.

    Returns
    -------
    array or tracer
        Float (real inputs) or complex; differentiable in both inputs.
        Rounding is the FFT's (about ``eps * log(n)`` relative to the largest
        output), not the direct sum's.

    Raises
    ------
    ValueError
        Inputs of different rank, an empty ``axes``, sizes outside ``axes``
        that do not broadcast, or the conditions of :func:`convolve`.
    """
    _check_mode(mode, "fftconvolve")
    in1, in2 = _prepare(in1, in2, "fftconvolve")
    if in1.ndim == 0:
        return tnp.multiply(in1, in2)
    s1, s2 = _shape(in1), _shape(in2)
    if 0 in s1 or 0 in s2:
        return _empty(np.result_type(tnp.result_type(in1), np.float64))
    nd = in1.ndim
    if axes is None:
        axes = list(range(nd))
    else:
        axes = [normalize_axis_index(int(a), nd) for a in np.atleast_1d(axes)]
        if not axes:
            raise ValueError("when provided, axes cannot be empty")
    axes = sorted({a for a in axes if s1[a] != 1 and s2[a] != 1})
    if not all(s1[a] == s2[a] or s1[a] == 1 or s2[a] == 1 for a in range(nd) if a not in axes):
        raise ValueError(f"incompatible shapes for in1 and in2: {s1} and {s2}")
    out_s1 = s1  # 'same' is centred on the first input as given
    if _swap_needed(mode, s1, s2, axes):
        in1, in2, s1, s2 = in2, in1, s2, s1
    dt = np.dtype(tnp.result_type(in1))
    if dt.kind not in "fc":
        in1, in2 = _cast(in1, np.float64), _cast(in2, np.float64)
    if axes:
        shape = [s1[a] + s2[a] - 1 for a in axes]
        if dt.kind == "c":
            f = tnp.multiply(tnp.fft.fftn(in1, shape, axes), tnp.fft.fftn(in2, shape, axes))
            ret = tnp.fft.ifftn(f, shape, axes)
        else:
            f = tnp.multiply(tnp.fft.rfftn(in1, shape, axes), tnp.fft.rfftn(in2, shape, axes))
            ret = tnp.fft.irfftn(f, shape, axes)
    else:
        ret = tnp.multiply(in1, in2)
    rs = _shape(ret)
    if mode == "full":
        return ret
    if mode == "same":
        want = out_s1
    else:
        want = [s1[a] - s2[a] + 1 if a in axes else rs[a] for a in range(nd)]
    starts = [(r - w) // 2 for r, w in zip(rs, want)]
    return _crop(ret, starts, want)


_BOUNDARIES = {"fill": "constant", "pad": "constant", "wrap": "wrap", "circular": "wrap",
               "symm": "symmetric", "symmetric": "symmetric"}


def _conv2d(in1, in2, mode, boundary, fillvalue, name):
    _check_mode(mode, name)
    if boundary not in _BOUNDARIES:
        raise ValueError(f"{name}: acceptable boundary flags are 'fill', 'wrap' and 'symm' "
                         f"(got {boundary!r})")
    in1, in2 = _prepare(in1, in2, name)
    if in1.ndim != 2:
        raise ValueError(f"{name} inputs must both be 2-D arrays")
    if np.size(fillvalue) != 1:
        raise ValueError("fillvalue must be scalar or an array with one element.")
    return in1, in2


def convolve2d(in1, in2, mode="full", boundary="fill", fillvalue=0):
    """2-D convolution with a boundary rule (``scipy.signal.convolve2d``).

    Parameters
    ----------
    in1, in2 : 2-D array_like or tracer
    mode : {"full", "same", "valid"}
        As :func:`convolve`.
    boundary : {"fill", "wrap", "symm"}
        How ``in1`` is extended beyond its edges: by ``fillvalue``,
        periodically, or mirrored (the edge sample repeated); the aliases
        ``"pad"``, ``"circular"`` and ``"symmetric"`` are accepted.
    fillvalue : scalar or tracer
        The value outside ``in1`` for ``boundary="fill"`` (default 0; a
        tracer is differentiated too).

    Returns
    -------
    2-D array or tracer
        Differentiable in ``in1``, ``in2`` (and a traced ``fillvalue``).

    Raises
    ------
    ValueError
        Inputs that are not 2-D, an unknown mode or boundary, a non-scalar
        ``fillvalue``, or ``"valid"`` mode with neither input at least as
        large as the other on both axes.
    """
    in1, in2 = _conv2d(in1, in2, mode, boundary, fillvalue, "convolve2d")
    return _convolve2d(in1, in2, mode, boundary, fillvalue, False)


def _convolve2d(in1, in2, mode, boundary, fillvalue, correlation):
    """convolve2d of checked inputs; ``correlation``: the window of SciPy's
    correlate2d in 'same' mode (it starts at ``m // 2`` of the full output,
    the convolution's at ``(m - 1) // 2``)."""
    s1, s2 = _shape(in1), _shape(in2)
    if 0 in s1 or 0 in s2:
        return np.zeros((0, 0), tnp.result_type(in1))
    if _swap_needed(mode, s1, s2):
        in1, in2, s1, s2 = in2, in1, s2, s1
    if mode == "valid":
        return _direct(in1, in2, *_mode_window(s1, s2, "valid"))
    widths = [(m - 1, m - 1) for m in s2]
    pmode = _BOUNDARIES[boundary]
    if pmode == "constant":
        fv = tnp.reshape(fillvalue, ()) if isinstance(fillvalue, Tracer) \
            else np.asarray(fillvalue).reshape(())
        if isinstance(fv, Tracer) or fv != 0:
            ext = tnp.add(tnp.pad(tnp.subtract(in1, fv), widths), fv)
        else:
            ext = tnp.pad(in1, widths)
    else:
        ext = tnp.pad(in1, widths, mode=pmode)
    starts, lengths = _mode_window(s1, s2, mode)
    if correlation and mode == "same":
        starts = [m // 2 for m in s2]
    # the full convolution of the extended in1 with in2, from its valid
    # window (which starts at m - 1 on each axis) on
    return _direct(ext, in2, [s + m - 1 for s, m in zip(starts, s2)], lengths)


def correlate2d(in1, in2, mode="full", boundary="fill", fillvalue=0):
    """2-D cross-correlation with a boundary rule (``scipy.signal.correlate2d``).

    ``convolve2d(in1, in2[::-1, ::-1].conj(), ...)``, except that in
    ``"same"`` mode SciPy's window starts at ``in2.shape // 2`` of the full
    output (the convolution's at ``(in2.shape - 1) // 2``); in ``"valid"`` mode
    with ``in2`` the larger input, SciPy's result is taken: the
    correlation of ``in2`` with ``in1`` (``in1`` conjugated), reversed.

    Parameters
    ----------
    in1, in2 : 2-D array_like or tracer
    mode : {"full", "same", "valid"}
    boundary : {"fill", "wrap", "symm"}
    fillvalue : scalar or tracer

    Returns
    -------
    2-D array or tracer
        Differentiable in both inputs.

    Raises
    ------
    ValueError
        As :func:`convolve2d`.
    """
    in1, in2 = _conv2d(in1, in2, mode, boundary, fillvalue, "correlate2d")
    s1, s2 = _shape(in1), _shape(in2)
    if 0 not in s1 and 0 not in s2 and _swap_needed(mode, s1, s2):
        return tnp.flip(_convolve2d(in2, _reverse_conj(in1), mode, boundary, fillvalue, True))
    return _convolve2d(in1, _reverse_conj(in2), mode, boundary, fillvalue, True)


def _detrend_matrix(n, bp, dtype):
    """``I - A pinv(A)`` block by block: the residual of each segment's
    least-squares line (SciPy's design ``[(1..m)/m, 1]``)."""
    r = np.zeros((n, n))
    for lo, hi in zip(bp[:-1], bp[1:]):
        m = hi - lo
        a = np.ones((m, 2))
        a[:, 0] = np.arange(1, m + 1) / m
        r[lo:hi, lo:hi] = np.eye(m) - a @ np.linalg.pinv(a)
    return r.astype(dtype)


def detrend(data, axis=-1, type="linear", bp=0, overwrite_data=False):  # noqa: A002 - SciPy's name
    """Remove a constant or (piecewise) linear trend along an axis
    (``scipy.signal.detrend``).

    Parameters
    ----------
    data : array_like or tracer
        Integers are read as float64.
    axis : int
        The axis along which the trend is fitted.
    type : {"linear", "constant"}
        ``"constant"`` subtracts the mean; ``"linear"`` subtracts, on each
        segment between breakpoints, the least-squares straight line
        (segments are fitted independently, as SciPy does; the short
        aliases ``"l"`` and ``"c"`` are accepted).
    bp : int or sequence of int
        Concrete breakpoints along ``axis`` (``"linear"`` only).
    overwrite_data : bool
        Ignored (the input is never modified); kept for SciPy's signature.

    Returns
    -------
    array or tracer
        ``data``'s shape; float32/64 or complex as ``data``.  Linear in
        ``data``, so differentiable to any order.

    Raises
    ------
    ValueError
        An unknown ``type``, or a breakpoint beyond the axis length.
    TypeError
        Traced breakpoints.
    """
    if type not in ("linear", "l", "constant", "c"):
        raise ValueError("Trend type must be 'linear' or 'constant'.")
    data = _array(data)
    dt = np.dtype(tnp.result_type(data))
    if dt.char not in "dfDF":
        dt = np.dtype(np.float64)
        data = _cast(data, dt)
    if type in ("constant", "c"):
        return tnp.subtract(data, tnp.mean(data, axis=axis, keepdims=True))
    if isinstance(bp, Tracer):
        raise TypeError("detrend: breakpoints bp must be concrete integers")
    axis = normalize_axis_index(axis, data.ndim)
    n = _shape(data)[axis]
    bp = np.sort(np.unique(np.concatenate(np.atleast_1d(0, np.asarray(bp), n))))
    if np.any(bp > n):
        raise ValueError("Breakpoints must be less than length of data along given axis.")
    r = _detrend_matrix(n, [int(b) for b in bp], np.finfo(dt).dtype)
    moved = tnp.moveaxis(data, axis, -1)
    out = tnp.matmul(moved, r.T) if n else moved
    return tnp.moveaxis(out, -1, axis)


# ---------------------------------------------------------------- spectral

def _window(window, nperseg, n, name):
    """SciPy's segment triage: ``(win, nperseg)`` for a window name (SciPy's
    ``get_window``, shortened to the signal when ``nperseg`` exceeds it) or
    an array."""
    if isinstance(window, (str, tuple)):
        if window in ("hann", "hanning"):  # the default: periodic Hann, without SciPy
            nperseg = 256 if nperseg is None else int(nperseg)
            if nperseg < 1:
                raise ValueError("nperseg must be a positive integer")
            nperseg = min(nperseg, n)
            if nperseg == 1:
                return np.ones(1), 1  # SciPy's one-point window
            return 0.5 - 0.5 * np.cos(2.0 * np.pi * np.arange(nperseg) / nperseg), nperseg
        try:
            from scipy.signal import get_window  # lazy: SciPy is optional (window names only)
        except ImportError as e:
            raise ImportError(f"tracegrad.scipy.signal.{name} with a window name needs SciPy's "
                              "get_window: pip install -e \".[scipy]\", or pass the window as "
                              "an array") from e
        nperseg = 256 if nperseg is None else int(nperseg)
        if nperseg < 1:
            raise ValueError("nperseg must be a positive integer")
        nperseg = min(nperseg, n)
        return np.asarray(get_window(window, nperseg)), nperseg
    if isinstance(window, Tracer):
        raise TypeError(f"{name}: the window must be concrete")
    win = np.asarray(window)
    if win.ndim != 1:
        raise ValueError("window must be 1-D")
    if n < win.shape[0]:
        raise ValueError("window is longer than input signal")
    if nperseg is not None and int(nperseg) != win.shape[0]:
        raise ValueError("value specified for nperseg is different from length of window")
    return win, win.shape[0]


def _segment_spectra(x, win, nperseg, noverlap, nfft, detrend_type, onesided, nseg):
    """FFT of each of ``nseg`` windowed, detrended segments along the last
    axis: shape ``x.shape[:-1] + (nseg, nfreq)``."""
    step = nperseg - noverlap
    idx = np.arange(nseg)[:, None] * step + np.arange(nperseg)[None, :]
    seg = tnp.take(x, idx, axis=-1)
    if detrend_type is not False and detrend_type is not None:
        seg = detrend_type(seg) if callable(detrend_type) else detrend(seg, -1, detrend_type)
    seg = tnp.multiply(seg, win)
    if onesided:
        return tnp.fft.rfft(seg, nfft, axis=-1)
    return tnp.fft.fft(seg, nfft, axis=-1)


def _spectral_args(x, nperseg, noverlap, nfft, window, name):
    n = _shape(x)[-1]
    win, nperseg = _window(window, nperseg, n, name)
    nfft = nperseg if nfft is None else int(nfft)
    if nfft < nperseg:
        raise ValueError("nfft must be greater than or equal to nperseg.")
    noverlap = nperseg // 2 if noverlap is None else int(noverlap)
    if noverlap >= nperseg:
        raise ValueError("noverlap must be less than nperseg.")
    return win, nperseg, noverlap, nfft


def _is_complex(x):
    return np.dtype(tnp.result_type(x)).kind == "c"


def _as_inexact(x):
    x = _array(x)
    return x if np.dtype(tnp.result_type(x)).kind in "fc" else _cast(x, np.float64)


def csd(x, y, fs=1.0, window="hann", nperseg=None, noverlap=None, nfft=None,
        detrend="constant", return_onesided=True, scaling="density", axis=-1, average="mean"):
    """Cross power spectral density by Welch's method (``scipy.signal.csd``).

    ``Pxy = mean over segments of conj(X) * Y * scale``, with ``X``, ``Y``
    the FFTs of the detrended, windowed segments (``nperseg`` samples,
    ``noverlap`` shared between neighbours, as many whole segments as fit),
    the one-sided frequencies but 0 (and Nyquist for even ``nfft``) doubled.

    Parameters
    ----------
    x, y : array_like or tracer
        Signals along ``axis``; the other axes broadcast, the shorter signal
        is zero-padded to the longer.
    fs : float
        Sampling frequency.
    window : str, tuple or 1-D array
        A window name for SciPy's ``get_window`` (``"hann"``; then
        ``nperseg`` defaults to 256, shortened to the signal) or the window.
    nperseg, noverlap, nfft : int, optional
        Segment length, overlap (default ``nperseg // 2``), FFT length
        (default ``nperseg``).
    detrend : {"constant", "linear"}, False or callable
        What is removed from each segment (callable: applied to the segments
        stacked along the last axis).
    return_onesided : bool
        Non-negative frequencies only (ignored for complex input).
    scaling : {"density", "spectrum"}
        ``V**2/Hz`` (``1 / (fs * sum(win**2))``) or ``V**2``
        (``1 / sum(win)**2``).
    axis : int
    average : {"mean", "median"}
        How the segments' estimates combine (the median divided by SciPy's
        bias factor; real and imaginary parts separately).

    Returns
    -------
    f : ndarray
        The frequencies (concrete).
    Pxy : array or tracer
        Complex; frequencies on ``axis``.  Differentiable in ``x`` and ``y``.

    Raises
    ------
    ValueError
        Bad segment lengths, an unknown scaling or average, or shapes that
        do not broadcast.
    """
    same = y is x
    x = tnp.moveaxis(_as_inexact(x), axis, -1)
    y = x if same else tnp.moveaxis(_as_inexact(y), axis, -1)
    nx, ny = _shape(x)[-1], _shape(y)[-1]
    if nx != ny:
        longer = max(nx, ny)
        x = tnp.pad(x, [(0, 0)] * (x.ndim - 1) + [(0, longer - nx)])
        y = tnp.pad(y, [(0, 0)] * (y.ndim - 1) + [(0, longer - ny)])
    n = _shape(x)[-1]
    win, nperseg, noverlap, nfft = _spectral_args(x, nperseg, noverlap, nfft, window, "csd")
    if scaling == "density":
        scale = 1.0 / (fs * np.sum(win * win))
    elif scaling == "spectrum":
        scale = 1.0 / np.sum(win) ** 2
    else:
        raise ValueError(f"Unknown scaling: {scaling!r}")
    if average not in ("mean", "median"):
        raise ValueError(f"average must be 'median' or 'mean', got {average!r}")
    onesided = return_onesided and not (_is_complex(x) or _is_complex(y))
    nseg = (n - noverlap) // (nperseg - noverlap)
    sx = _segment_spectra(x, win, nperseg, noverlap, nfft, detrend, onesided, nseg)
    sy = sx if same else _segment_spectra(y, win, nperseg, noverlap, nfft, detrend, onesided,
                                          nseg)
    p = tnp.multiply(tnp.multiply(tnp.conj(sx), sy), scale)
    if onesided:
        double = np.full(_shape(p)[-1], 2.0)
        double[0] = 1.0
        if nfft % 2 == 0:
            double[-1] = 1.0
        p = tnp.multiply(p, double)
    if nseg > 1 and average == "median":
        m = nseg
        ii = 2 * np.arange(1, (m - 1) // 2 + 1)
        bias = 1 + np.sum(1.0 / (ii + 1) - 1.0 / ii)
        p = tnp.add(tnp.median(tnp.real(p), axis=-2), tnp.multiply(
            tnp.median(tnp.imag(p), axis=-2), 1j))
        p = tnp.divide(p, bias)
    else:
        p = tnp.mean(p, axis=-2)
    freqs = np.fft.rfftfreq(nfft, 1 / fs) if onesided else np.fft.fftfreq(nfft, 1 / fs)
    if same:
        p = tnp.real(p)
    return freqs, tnp.moveaxis(p, -1, axis)


def welch(x, fs=1.0, window="hann", nperseg=None, noverlap=None, nfft=None,
          detrend="constant", return_onesided=True, scaling="density", axis=-1, average="mean"):
    """Power spectral density by Welch's method (``scipy.signal.welch``).

    :func:`csd` of ``x`` with itself, real.

    Parameters
    ----------
    x : array_like or tracer
    fs, window, nperseg, noverlap, nfft, detrend, return_onesided, scaling, axis, average
        As :func:`csd`.

    Returns
    -------
    f : ndarray
    Pxx : array or tracer
        Real; differentiable in ``x``.

    Raises
    ------
    ValueError
        As :func:`csd`.
    """
    return csd(x, x, fs, window, nperseg, noverlap, nfft, detrend, return_onesided, scaling,
               axis, average)


_EXTENSIONS = ("even", "odd", "constant", "zeros", None)


def stft(x, fs=1.0, window="hann", nperseg=256, noverlap=None, nfft=None, detrend=False,
         return_onesided=True, boundary="zeros", padded=True, axis=-1, scaling="spectrum"):
    """Short-time Fourier transform (``scipy.signal.stft``).

    Parameters
    ----------
    x : array_like or tracer
    fs, window, nperseg, noverlap, nfft, detrend, return_onesided, axis
        As :func:`csd` (``nperseg`` default 256, detrending off).
    boundary : {"zeros", "even", "odd", "constant", None}
        How ``nperseg // 2`` samples are added at both ends (SciPy's
        extensions: zeros, mirror, point-symmetric mirror, edge value).
    padded : bool
        Zero-pad the end so that the segments cover every sample.
    scaling : {"spectrum", "psd"}
        Scale by ``1 / sum(win)`` or ``1 / sqrt(fs * sum(win**2))``.

    Returns
    -------
    f, t : ndarray
        Frequencies and segment times (concrete).
    Zxx : array or tracer
        Complex; frequencies on ``axis`` and the segments on the last axis
        (``(..., len(f), len(t))`` for ``axis=-1``), as SciPy lays it out.
        Differentiable in ``x``.

    Raises
    ------
    ValueError
        Bad segment lengths, an unknown boundary or scaling.
    """
    if scaling == "psd":
        scale_kind = "density"
    elif scaling == "spectrum":
        scale_kind = "spectrum"
    else:
        raise ValueError(f"Parameter scaling={scaling!r} not in ['spectrum', 'psd']!")
    if boundary not in _EXTENSIONS:
        raise ValueError(f"Unknown boundary option '{boundary}', must be one of: "
                         f"{list(_EXTENSIONS)}")
    x = tnp.moveaxis(_as_inexact(x), axis, -1)
    win, nperseg, noverlap, nfft = _spectral_args(x, nperseg, noverlap, nfft, window, "stft")
    lead = [(0, 0)] * (x.ndim - 1)
    h = nperseg // 2
    if boundary == "zeros":
        x = tnp.pad(x, lead + [(h, h)])
    elif boundary == "even":
        x = tnp.pad(x, lead + [(h, h)], mode="reflect")
    elif boundary == "constant":
        x = tnp.pad(x, lead + [(h, h)], mode="edge")
    elif boundary == "odd":
        x = tnp.subtract(tnp.multiply(tnp.pad(x, lead + [(h, h)], mode="edge"), 2.0),
                         tnp.pad(x, lead + [(h, h)], mode="reflect"))
    step = nperseg - noverlap
    if padded:
        nadd = (-(_shape(x)[-1] - nperseg) % step) % nperseg
        x = tnp.pad(x, lead + [(0, nadd)])
    n = _shape(x)[-1]
    nseg = (n - nperseg) // step + 1
    if scale_kind == "density":
        scale = np.sqrt(1.0 / (fs * np.sum(win * win)))
    else:
        scale = np.sqrt(1.0 / np.sum(win) ** 2)
    onesided = return_onesided and not _is_complex(x)
    z = tnp.multiply(_segment_spectra(x, win, nperseg, noverlap, nfft, detrend, onesided, nseg),
                     scale)
    freqs = np.fft.rfftfreq(nfft, 1 / fs) if onesided else np.fft.fftfreq(nfft, 1 / fs)
    time = np.arange(nperseg / 2, n - nperseg / 2 + 1, step) / float(fs)
    if boundary is not None:
        time = time - (nperseg / 2) / fs
    # SciPy's layout: the frequencies take axis's place (counted in the
    # result, one axis longer, for a negative axis); the segments come last
    return freqs, time, tnp.moveaxis(z, -1, axis - 1 if axis < 0 else axis)


def istft(Zxx, fs=1.0, window="hann", nperseg=None, noverlap=None, nfft=None,  # noqa: N803
          input_onesided=True, boundary=True, time_axis=-1, freq_axis=-2, scaling="spectrum"):
    """Inverse short-time Fourier transform by weighted overlap-add (``scipy.signal.istft``).

    Each segment's inverse FFT (first ``nperseg`` samples) is multiplied by
    the window and added at its offset; the sum is divided by the
    overlap-added squared window where that exceeds ``1e-10``.

    Parameters
    ----------
    Zxx : array_like or tracer
        At least 2-D: frequencies on ``freq_axis``, segments on ``time_axis``.
    fs : float
    window : str, tuple or 1-D array
        As :func:`stft` (an array must have ``nperseg`` entries).
    nperseg, noverlap, nfft : int, optional
        Defaults from the frequency count (``2 * (nfreq - 1)`` one-sided),
        ``nperseg // 2`` and as SciPy chooses.
    input_onesided : bool
        ``Zxx`` holds non-negative frequencies of a real signal (real result).
    boundary : bool
        Remove the ``nperseg // 2`` samples :func:`stft` added at each end.
    time_axis, freq_axis : int
    scaling : {"spectrum", "psd"}
        The scaling :func:`stft` used.

    Returns
    -------
    t : ndarray
        Sample times (``arange(x.shape[0]) / fs``, SciPy's convention).
    x : array or tracer
        The signal, on the last axis (the time axis's place for N-d
        input); differentiable in ``Zxx``.

    Raises
    ------
    ValueError
        ``Zxx`` below 2-D, equal axes, bad segment lengths or window length,
        an unknown scaling.
    """
    z = _array(Zxx)
    if not _is_complex(z):
        z = _cast(z, np.result_type(tnp.result_type(z), 1j))
    nd = z.ndim
    if nd < 2:
        raise ValueError("Input stft must be at least 2d!")
    fa, ta = normalize_axis_index(freq_axis, nd), normalize_axis_index(time_axis, nd)
    if fa == ta:
        raise ValueError("Must specify differing time and frequency axes!")
    nseg = _shape(z)[ta]
    n_default = 2 * (_shape(z)[fa] - 1) if input_onesided else _shape(z)[fa]
    nperseg = n_default if nperseg is None else int(nperseg)
    if nperseg < 1:
        raise ValueError("nperseg must be a positive integer")
    if nfft is None:
        nfft = nperseg if input_onesided and nperseg == n_default + 1 else n_default
    elif nfft < nperseg:
        raise ValueError("nfft must be greater than or equal to nperseg.")
    nfft = int(nfft)
    noverlap = nperseg // 2 if noverlap is None else int(noverlap)
    if noverlap >= nperseg:
        raise ValueError("noverlap must be less than nperseg.")
    step = nperseg - noverlap
    outer = [a for a in range(nd) if a not in (fa, ta)]
    z = tnp.transpose(z, outer + [fa, ta])
    if isinstance(window, (str, tuple)):
        win, _ = _window(window, nperseg, nperseg, "istft")
    else:
        win = np.asarray(window)
        if win.ndim != 1:
            raise ValueError("window must be 1-D")
        if win.shape[0] != nperseg:
            raise ValueError(f"window must have length of {nperseg}")
    if input_onesided:
        subs = tnp.fft.irfft(z, nfft, axis=-2)
    else:
        subs = tnp.fft.ifft(z, nfft, axis=-2)
    subs = subs[..., :nperseg, :]
    if scaling == "spectrum":
        gain = np.sum(win)
    elif scaling == "psd":
        gain = np.sqrt(fs * np.sum(win ** 2))
    else:
        raise ValueError(f"Parameter scaling={scaling!r} not in ['spectrum', 'psd']!")
    length = nperseg + (nseg - 1) * step
    # overlap-add: one scatter-add of every windowed sample at its offset
    vals = tnp.multiply(subs, (win * gain)[:, None])           # (..., nperseg, nseg)
    vals = tnp.moveaxis(tnp.reshape(tnp.swapaxes(vals, -1, -2), _shape(vals)[:-2] + (-1,)), -1, 0)
    idx = (np.arange(nseg)[:, None] * step + np.arange(nperseg)[None, :]).ravel()
    x = tnp.zeros((length,) + _shape(vals)[1:], tnp.result_type(vals)).at[idx].add(vals)
    x = tnp.moveaxis(x, 0, -1)
    norm = np.zeros(length)
    np.add.at(norm, idx, np.tile(win ** 2, nseg))
    if boundary:
        h = nperseg // 2
        x, norm = x[..., h:length - h], norm[h:length - h]
    x = tnp.divide(x, np.where(norm > 1e-10, norm, 1.0))
    if input_onesided:
        x = tnp.real(x)
    if x.ndim > 1 and ta != nd - 1:
        x = tnp.moveaxis(x, -1, ta - 1 if fa < ta else ta)
    return np.arange(_shape(x)[0]) / float(fs), x
