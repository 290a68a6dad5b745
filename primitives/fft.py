"""The discrete Fourier transform primitive.

One primitive, ``fft``, covers the four transforms NumPy's ``numpy.fft``
is built from, chosen by the static parameter ``fft_type``:

``"FFT"``    complex -> complex, ``sum_j x_j exp(-2 pi i j k / n)`` (unscaled)
``"IFFT"``   complex -> complex, the inverse (scaled by ``1 / n``)
``"RFFT"``   real -> complex, the first ``n // 2 + 1`` entries of ``"FFT"``
             along the last of ``axes``
``"IRFFT"``  complex -> real, the inverse of ``"RFFT"`` (``1 / n``), reading
             only the ``n // 2 + 1`` non-redundant entries (the imaginary
             parts of the zero and, for even ``n``, Nyquist frequencies are
             ignored, as NumPy and pocketfft do)

(real input to the complex transforms is read as complex with zero
imaginary part, and its cotangent is the real part of the transpose) over
the axes ``axes`` (distinct, non-negative, in order: for the real
transforms the last one is the halved axis), with transform lengths
``lengths`` (equal to the input's sizes there, except for ``"IRFFT"``
whose input has ``lengths[-1] // 2 + 1`` entries on the last axis).
Padding, cropping (NumPy's ``n``/``s``) and the ``norm`` scalings are left
to ``tracegrad.numpy.fft``, which builds them from ``pad``, ``slice`` and
``mul``.

Derivatives.  Every transform is linear over the reals, so its JVP is
itself.  Its VJP is its transpose for the bilinear pairing
``<a, b> = Re(sum(a * b))`` (no conjugation; JAX's convention, see
``primitives/elementwise.py``):

* the DFT matrix is symmetric, so ``"FFT"`` and ``"IFFT"`` are their own
  transposes;
* ``"RFFT"``: the cotangent of ``x`` is ``Re(sum_k ct_k exp(-2 pi i j k / n))``
  over the kept frequencies ``k``, which is ``N * irfftn(conj(ct) / m)``
  with ``N = prod(lengths)`` and ``m`` the Hermitian multiplicity along the
  halved axis (1 at frequency 0 and, for even ``n``, at ``n / 2``; 2
  elsewhere): ``irfft`` counts each kept frequency ``m`` times;
* ``"IRFFT"``: the transpose of the above, ``conj(rfftn(ct)) * m / N``
  (the facts JAX's ``lax.fft`` transpose rules also rest on).

Both are written with this primitive (and ``conj``, ``mul``), so they
differentiate again.  The batching rule shifts ``axes`` past the batch dim.
"""
import math

import numpy as np

from .core import Primitive, ShapedArray, defjvp_linear, defvjp, dtype_of, shape_of
from . import ops

__all__ = ["fft"]

FFT_TYPES = ("FFT", "IFFT", "RFFT", "IRFFT")


def complex_dtype(dtype):
    """The complex dtype NumPy's fft computes in for input ``dtype``:
    complex64 for float16/float32/complex64, else complex128."""
    return np.result_type(np.dtype(dtype), 1j)


def real_dtype(dtype):
    """The real counterpart of :func:`complex_dtype` (float32 or float64)."""
    return np.finfo(complex_dtype(dtype)).dtype


fft_p = Primitive("fft")
fft_p.reads = ((), False)  # the transpose reads only shapes and params


@fft_p.def_impl
def _fft_impl(x, *, fft_type, axes, lengths):
    x = np.asarray(x)
    if fft_type == "FFT":
        out = np.fft.fftn(x, axes=axes)
    elif fft_type == "IFFT":
        out = np.fft.ifftn(x, axes=axes)
    elif fft_type == "RFFT":
        out = np.fft.rfftn(x, axes=axes)
    else:
        out = np.fft.irfftn(x, s=lengths, axes=axes)
    want = _fft_aval(ShapedArray(x.shape, x.dtype), fft_type=fft_type, axes=axes,
                     lengths=lengths).dtype
    return out.astype(want, copy=False)


@fft_p.def_abstract_eval
def _fft_aval(x, *, fft_type, axes, lengths):
    shape = list(x.shape)
    if fft_type == "RFFT":
        shape[axes[-1]] = lengths[-1] // 2 + 1
        return ShapedArray(tuple(shape), complex_dtype(x.dtype))
    if fft_type == "IRFFT":
        for a, n in zip(axes, lengths):
            shape[a] = n
        return ShapedArray(tuple(shape), real_dtype(x.dtype))
    return ShapedArray(tuple(shape), complex_dtype(x.dtype))


def _multiplicity(n, axis, ndim, dtype):
    """How often ``irfft`` counts each of the ``n // 2 + 1`` kept
    frequencies (1, 2, ..., 2, 1 or 1, 2, ..., 2), shaped to broadcast along
    ``axis`` of an ``ndim``-d array."""
    m = np.full(n // 2 + 1, 2.0, dtype=dtype)
    m[0] = 1.0
    if n % 2 == 0:
        m[-1] = 1.0
    shape = [1] * ndim
    shape[axis] = m.size
    return m.reshape(shape)


def _fft_transpose(ct, ans, x, *, fft_type, axes, lengths):
    if fft_type in ("FFT", "IFFT"):
        out = fft_p.bind(ct, fft_type=fft_type, axes=axes, lengths=lengths)
        return ops.convert_element_type(out, dtype_of(x))  # real part for a real x
    nd = len(shape_of(ct))
    total = float(math.prod(lengths))
    if fft_type == "RFFT":
        inv_m = 1.0 / _multiplicity(lengths[-1], axes[-1], nd, real_dtype(dtype_of(ct)))
        w = ops.mul(ops.conj(ct), inv_m)
        out = fft_p.bind(w, fft_type="IRFFT", axes=axes, lengths=lengths)
        return ops.convert_element_type(ops.mul(out, total), dtype_of(x))
    # IRFFT
    r = fft_p.bind(ct, fft_type="RFFT", axes=axes, lengths=lengths)
    m = _multiplicity(lengths[-1], axes[-1], nd, real_dtype(dtype_of(ct)))
    return ops.convert_element_type(ops.mul(ops.conj(r), m / total), dtype_of(x))


defjvp_linear(fft_p)
defvjp(fft_p, _fft_transpose)


def _fft_batch(args, bdims, *, fft_type, axes, lengths):
    (x,), (d,) = args, bdims
    axes = tuple(a + 1 if a >= d else a for a in axes)
    return fft_p.bind(x, fft_type=fft_type, axes=axes, lengths=lengths), d


fft_p.batch = _fft_batch


def fft(x, fft_type, axes, lengths=None):
    """Discrete Fourier transform of ``x`` over ``axes`` (the ``fft`` primitive).

    Parameters
    ----------
    x : array or tracer
        Complex (``"FFT"``, ``"IFFT"``, ``"IRFFT"``) or real (``"RFFT"``)
        input; real or integer input to the complex transforms is cast to
        complex64 (from float16/float32) or complex128 first, and integer
        input to ``"RFFT"`` to float64, as NumPy computes.
    fft_type : {"FFT", "IFFT", "RFFT", "IRFFT"}
        The transform (see the module docstring for the formulas and
        scalings).
    axes : sequence of int
        Distinct axes of ``x`` (negative ones count from the end).  For the
        real transforms the last one is the halved axis.
    lengths : sequence of int, optional
        Transform lengths, one per axis.  Required for ``"IRFFT"`` (the
        real output's sizes; ``x`` must have ``lengths[-1] // 2 + 1``
        entries on ``axes[-1]``); for the others it defaults to, and must
        equal, ``x``'s sizes on ``axes``.

    Returns
    -------
    array or tracer
        Complex for ``"FFT"``, ``"IFFT"``, ``"RFFT"`` (``axes[-1]`` halved to
        ``n // 2 + 1`` for ``"RFFT"``); real of ``x``'s precision and shape
        ``lengths`` on ``axes`` for ``"IRFFT"``.

    Raises
    ------
    ValueError
        Unknown ``fft_type``, repeated or out-of-range axes, lengths that do
        not match the input, or a length below 1.
    TypeError
        Complex input to ``"RFFT"`` (take ``real`` first, or use ``"FFT"``).
    """
    if fft_type not in FFT_TYPES:
        raise ValueError(f"fft_type must be one of {FFT_TYPES}, got {fft_type!r}")
    shape = tuple(shape_of(x))
    nd = len(shape)
    axes = tuple(int(a) for a in axes)
    if any(not -nd <= a < nd for a in axes):
        raise ValueError(f"fft axes {axes} out of range for an array of {nd} dimensions")
    axes = tuple(a % nd for a in axes)
    if len(set(axes)) != len(axes):
        raise ValueError(f"fft axes must be distinct, got {axes}; apply the transform "
                         "once per repetition instead")
    if not axes:
        return x
    dtype = dtype_of(x)
    if fft_type == "RFFT":
        if np.dtype(dtype).kind == "c":
            raise TypeError("an RFFT takes real input, got a complex array: take its real "
                            "part first, or use a complex FFT")
        want = real_dtype(dtype)
    else:
        want = complex_dtype(dtype)
    if dtype != want:
        x = ops.convert_element_type(x, want)
    if lengths is None:
        if fft_type == "IRFFT":
            raise ValueError("an IRFFT needs its output lengths")
        lengths = tuple(shape[a] for a in axes)
    lengths = tuple(int(n) for n in lengths)
    if len(lengths) != len(axes):
        raise ValueError(f"fft lengths {lengths} and axes {axes} differ in length")
    if any(n < 1 for n in lengths):
        raise ValueError(f"Invalid number of FFT data points {lengths}: each must be >= 1")
    got = tuple(shape[a] for a in axes)
    if fft_type == "IRFFT":
        need = lengths[:-1] + (lengths[-1] // 2 + 1,)
        if got != need:
            raise ValueError(f"IRFFT input of shape {shape} does not fit lengths {lengths} on "
                             f"axes {axes}: it needs sizes {need} there; pad or crop first")
    elif got != lengths:
        raise ValueError(f"{fft_type} lengths {lengths} differ from the input's sizes {got} "
                         f"on axes {axes}: pad or crop the input first")
    return fft_p.bind(x, fft_type=fft_type, axes=axes, lengths=lengths)
