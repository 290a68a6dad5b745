"""Numba kernels behind :mod:`.conv` and ``argmax`` (imported on first use: imports Numba).

* ``im2col2d``/``col2im2d``: the window copy and its transpose for images
  with two spatial axes (one-axis images run as height-1 images), reading
  the padding implicitly (no padded copy of the image).  One pass over the
  columns in their memory order; NumPy needs one strided copy (or add) per
  kernel offset plus a padded copy.  Measured in the LeNet benchmark
  (torch_cnn, 20 steps): col2im 95 ms in NumPy against 39 ms, im2col about
  the same either way (70 against 65 ms).
* ``argmax_mid``: the first maximum along the middle axis of an ``(M, K,
  L)`` array, the layout of a window reduction.  NumPy's ``argmax`` along
  a non-last axis costs 1.7-2.9 ms for ``(64, 6, 4, 144)`` float32 here
  (it does not vectorize across the inner axis); the kernel walks ``L``
  innermost.  A NaN counts as the maximum, the first NaN winning, as in
  NumPy's ``argmax``.

Kernels are module-level functions, so Numba's on-disk cache applies.
"""
import math

import numba
import numpy as np

_OPTS = dict(cache=True, nogil=True, error_model="numpy")


@numba.njit(inline="always")
def _valid_range(n_out, stride, offset, size):
    """Output positions ``q`` in ``[lo, hi)`` read ``q * stride + offset`` inside ``[0, size)``."""
    lo = 0
    if offset < 0:
        lo = (-offset + stride - 1) // stride
    hi = n_out
    if (n_out - 1) * stride + offset >= size:
        hi = (size - 1 - offset) // stride + 1 if size - 1 - offset >= 0 else 0
    if hi < lo:
        hi = lo
    return lo, hi


@numba.njit(**_OPTS)
def im2col2d(x, kh, kw, sh, sw, ph, pw, dh, dw, pad_value, out):
    """``out[n, c, i, j, p, q] = x[n, c, p sh - ph + i dh, q sw - pw + j dw]``
    (``pad_value`` outside ``x``); ``x`` is ``(N, C, H, W)``, ``out`` is ``(N, C,
    kh, kw, OH, OW)``, both C-contiguous."""
    N, C, H, W = x.shape
    OH, OW = out.shape[4], out.shape[5]
    for n in range(N):
        for c in range(C):
            for i in range(kh):
                for j in range(kw):
                    q_lo, q_hi = _valid_range(OW, sw, j * dw - pw, W)
                    for p in range(OH):
                        h = p * sh - ph + i * dh
                        row = out[n, c, i, j, p]
                        if h < 0 or h >= H:
                            for q in range(OW):
                                row[q] = pad_value
                            continue
                        src = x[n, c, h]
                        for q in range(q_lo):
                            row[q] = pad_value
                        w0 = j * dw - pw
                        for q in range(q_lo, q_hi):
                            row[q] = src[q * sw + w0]
                        for q in range(q_hi, OW):
                            row[q] = pad_value


@numba.njit(**_OPTS)
def col2im2d(cols, sh, sw, ph, pw, dh, dw, out):
    """The transpose of :func:`im2col2d`: ``out`` (zeroed, ``(N, C, H, W)``) gets
    every column entry added at the image position it was read from."""
    N, C, kh, kw, OH, OW = cols.shape
    H, W = out.shape[2], out.shape[3]
    for n in range(N):
        for c in range(C):
            dst = out[n, c]
            for i in range(kh):
                for j in range(kw):
                    q_lo, q_hi = _valid_range(OW, sw, j * dw - pw, W)
                    w0 = j * dw - pw
                    for p in range(OH):
                        h = p * sh - ph + i * dh
                        if h < 0 or h >= H:
                            continue
                        row = cols[n, c, i, j, p]
                        drow = dst[h]
                        for q in range(q_lo, q_hi):
                            drow[q * sw + w0] += row[q]


@numba.njit(**_OPTS)
def argmax_mid(x, out):
    """``out[m, l]``: index of the first maximum of ``x[m, :, l]`` (a NaN wins)."""
    M, K, L = x.shape
    best = np.empty(L, dtype=x.dtype)
    for m in range(M):
        for l in range(L):
            best[l] = x[m, 0, l]
            out[m, l] = 0
        for k in range(1, K):
            for l in range(L):
                v = x[m, k, l]
                b = best[l]
                if v > b or (math.isnan(v) and not math.isnan(b)):
                    best[l] = v
                    out[m, l] = k
