"""Sliding-window primitives: ``im2col`` (extract every window of an image
into columns) and its transpose ``col2im`` (add columns back into an image).

Convolution, pooling and PyTorch's ``unfold``/``fold`` are built from these
two and ``matmul`` (:mod:`tracegrad.numpy` and the PyTorch layer): a
convolution is ``W @ im2col(x)``, so its reverse rules are ``col2im(W^T @
ct)`` for the input and ``ct @ im2col(x)^T`` for the weight, and every
order of derivative works because each rule is made of these primitives.

Layout (channels first, any number ``n`` of spatial axes):

* an image ``x`` has shape ``(N, C, S_1, ..., S_n)``;
* its columns have shape ``(N, C, k_1, ..., k_n, O_1, ..., O_n)``: for each
  kernel offset ``(j_1, ..., j_n)`` and output position ``(o_1, ...,
  o_n)``, the element of the padded image at ``o_i * stride_i + j_i *
  dilation_i`` along each spatial axis ``i``;
* ``O_i = (S_i + lo_i + hi_i - dilation_i * (k_i - 1) - 1) // stride_i + 1``
  (PyTorch's and JAX's output-size formula), 0 when the padded image is
  shorter than the dilated kernel.

Impls: for one or two spatial axes in float32/float64, the Numba kernels
of :mod:`._window_kernels` (one pass in the columns' memory order, padding
read implicitly); otherwise NumPy, one strided copy (``im2col``) or add
(``col2im``) per kernel offset, each vectorized over the batch, channels
and output positions.
"""
import itertools

import numpy as np

from .batching import move_bdim
from .core import Primitive, ShapedArray, defvjp, shape_of
from .kernels import ensure_numba
from .structural import reshape

_wk = None


def window_kernels():
    """The kernel module :mod:`._window_kernels` (imports Numba on first use)."""
    global _wk
    if _wk is None:
        ensure_numba()
        from . import _window_kernels  # lazy: imports Numba (and compiles) on first use

        _wk = _window_kernels
    return _wk


def _kernel_ok(x, n):
    """True where the Numba kernels apply: 1 or 2 spatial axes, float32/float64."""
    return n in (1, 2) and x.dtype in (np.float32, np.float64)

__all__ = ["im2col", "col2im", "conv_output_shape"]


def conv_output_shape(spatial, kernel_size, stride, padding, dilation):
    """Output spatial shape of a window operation (see the module docstring).

    Parameters
    ----------
    spatial, kernel_size, stride, dilation : tuple of int
        One entry per spatial axis.
    padding : tuple of (int, int)
        ``(low, high)`` zero padding per spatial axis.

    Returns
    -------
    tuple of int
        ``O_i`` per axis, never negative.
    """
    return tuple(
        max((s + lo + hi - d * (k - 1) - 1) // st + 1, 0)
        for s, k, st, (lo, hi), d in zip(spatial, kernel_size, stride, padding, dilation)
    )


def _offset_slices(offset, stride, dilation, out):
    """Slices of the padded image read by one kernel offset."""
    return tuple(
        slice(j * d, j * d + st * (o - 1) + 1, st)
        for j, st, d, o in zip(offset, stride, dilation, out)
    )


def _check_params(name, ndim, kernel_size, stride, padding, dilation):
    n = len(kernel_size)
    if ndim != n + 2:
        raise ValueError(
            f"{name}: an image of {n} spatial axes has {n + 2} dimensions "
            f"(N, C, spatial...), got {ndim}"
        )
    if not (len(stride) == len(padding) == len(dilation) == n):
        raise ValueError(f"{name}: kernel_size, stride, padding and dilation need one entry "
                         f"per spatial axis ({n})")
    if any(k < 1 for k in kernel_size) or any(s < 1 for s in stride) or any(
            d < 1 for d in dilation) or any(p < 0 for pair in padding for p in pair):
        raise ValueError(
            f"{name}: kernel_size, stride and dilation must be positive and padding "
            f"non-negative, got kernel_size={kernel_size}, stride={stride}, "
            f"padding={padding}, dilation={dilation}"
        )


def _batch_into_images(prim):
    """Batching rule: the batch dim joins the image axis ``N`` (one call)."""

    def rule(args, bdims, **params):
        (x,), (d,) = args, bdims
        x = move_bdim(x, d, 0)
        s = tuple(shape_of(x))
        out = prim.bind(reshape(x, (s[0] * s[1],) + s[2:]), **params)
        so = tuple(shape_of(out))
        return reshape(out, s[:2] + so[1:]), 0

    return rule


# --------------------------------------------------------------------------
# im2col: every window of the (padded) image, as columns
im2col_p = Primitive("im2col")
im2col_p.reads = ((), False)
im2col_p.torch_name = "Im2ColBackward0"


@im2col_p.def_impl
def _im2col_impl(x, *, kernel_size, stride, padding, dilation, pad_value):
    x = np.asarray(x)
    lead, spatial = x.shape[:2], x.shape[2:]
    out = conv_output_shape(spatial, kernel_size, stride, padding, dilation)
    cols = np.empty(lead + tuple(kernel_size) + out, dtype=x.dtype)
    if cols.size == 0:
        return cols
    n = len(spatial)
    if _kernel_ok(x, n):
        if n == 1:  # a height-1 image
            x4 = x.reshape(lead + (1,) + spatial)
            cols4 = cols.reshape(lead + (1,) + tuple(kernel_size) + (1,) + out)
            kh, kw, sh, sw, ph, pw, dh, dw = (1, kernel_size[0], 1, stride[0], 0,
                                              padding[0][0], 1, dilation[0])
        else:
            x4, cols4 = x, cols
            (kh, kw), (sh, sw), (dh, dw) = kernel_size, stride, dilation
            ph, pw = padding[0][0], padding[1][0]
        window_kernels().im2col2d(np.ascontiguousarray(x4), kh, kw, sh, sw, ph, pw, dh, dw,
                            x.dtype.type(pad_value), cols4)
        return cols
    if any(lo or hi for lo, hi in padding):
        padded = np.full(lead + tuple(s + lo + hi for s, (lo, hi) in zip(spatial, padding)),
                         pad_value, dtype=x.dtype)
        padded[(Ellipsis,) + tuple(slice(lo, lo + s) for s, (lo, _) in
                                   zip(spatial, padding))] = x
        x = padded
    for offset in itertools.product(*(range(k) for k in kernel_size)):
        cols[(slice(None), slice(None)) + offset] = x[
            (Ellipsis,) + _offset_slices(offset, stride, dilation, out)]
    return cols


@im2col_p.def_abstract_eval
def _im2col_aval(x, *, kernel_size, stride, padding, dilation, pad_value):
    _check_params("im2col", len(x.shape), kernel_size, stride, padding, dilation)
    out = conv_output_shape(x.shape[2:], kernel_size, stride, padding, dilation)
    return ShapedArray(tuple(x.shape[:2]) + tuple(kernel_size) + out, x.dtype)


def _im2col_jvp(primals, tangents, **params):
    (x,), (t,) = primals, tangents
    ans = im2col_p.bind(x, **params)
    if t is None:
        return ans, None
    # padding is a constant: its tangent is zero whatever pad_value is
    return ans, im2col_p.bind(t, **dict(params, pad_value=0.0))


im2col_p.jvp = _im2col_jvp
defvjp(im2col_p, lambda ct, ans, x, *, kernel_size, stride, padding, dilation, pad_value:
       col2im_p.bind(ct, spatial=tuple(shape_of(x)[2:]), kernel_size=kernel_size,
                     stride=stride, padding=padding, dilation=dilation))
im2col_p.batch = _batch_into_images(im2col_p)


def _tuple(v, n, name):
    if isinstance(v, (int, np.integer)):
        return (int(v),) * n
    v = tuple(int(a) for a in v)
    if len(v) != n:
        raise ValueError(f"{name} needs {n} entries (one per spatial axis), got {v}")
    return v


def _pairs(padding, n):
    if isinstance(padding, (int, np.integer)):
        return ((int(padding), int(padding)),) * n
    out = []
    for p in padding:
        out.append((int(p), int(p)) if isinstance(p, (int, np.integer))
                   else (int(p[0]), int(p[1])))
    if len(out) != n:
        raise ValueError(f"padding needs {n} entries (one per spatial axis), got {padding}")
    return tuple(out)


def im2col(x, kernel_size, stride=1, padding=0, dilation=1, pad_value=0.0):
    """Every window of the image ``x``, as columns.

    Parameters
    ----------
    x : array or tracer
        Shape ``(N, C, S_1, ..., S_n)``, any dtype.
    kernel_size : int or tuple of int
        Window shape ``(k_1, ..., k_n)``.
    stride, dilation : int or tuple of int, optional
        Step between windows, and between a window's elements.
    padding : int, tuple of int or tuple of (int, int), optional
        Padding before and after each spatial axis.
    pad_value : float, optional
        Value of the padding (``-inf`` for max pooling); its derivative is
        zero.

    Returns
    -------
    array or tracer
        Shape ``(N, C, k_1, ..., k_n, O_1, ..., O_n)`` (module docstring).

    Raises
    ------
    ValueError
        A rank other than ``n + 2``, or a non-positive kernel size, stride
        or dilation, or negative padding.
    """
    n = len(shape_of(x)) - 2
    if n < 1:
        raise ValueError(f"im2col needs an image (N, C, spatial...), got shape {shape_of(x)}")
    return im2col_p.bind(
        x, kernel_size=_tuple(kernel_size, n, "kernel_size"), stride=_tuple(stride, n, "stride"),
        padding=_pairs(padding, n), dilation=_tuple(dilation, n, "dilation"),
        pad_value=float(pad_value))


# --------------------------------------------------------------------------
# col2im: the transpose of im2col (columns added back where they were read)
col2im_p = Primitive("col2im")
col2im_p.reads = ((), False)
col2im_p.torch_name = "Col2ImBackward0"


@col2im_p.def_impl
def _col2im_impl(cols, *, spatial, kernel_size, stride, padding, dilation):
    cols = np.asarray(cols)
    n = len(spatial)
    lead = cols.shape[:2]
    out = cols.shape[2 + n:]
    if _kernel_ok(cols, n):
        image = np.zeros(lead + tuple(spatial), dtype=cols.dtype)
        if cols.size:
            c = np.ascontiguousarray(cols)
            if n == 1:
                c = c.reshape(lead + (1,) + tuple(kernel_size) + (1,) + tuple(out))
                args = (1, stride[0], 0, padding[0][0], 1, dilation[0])
                window_kernels().col2im2d(c, *args, image.reshape(lead + (1,) + tuple(spatial)))
            else:
                window_kernels().col2im2d(c, stride[0], stride[1], padding[0][0], padding[1][0],
                                    dilation[0], dilation[1], image)
        return image
    padded = np.zeros(lead + tuple(s + lo + hi for s, (lo, hi) in zip(spatial, padding)),
                      dtype=cols.dtype)
    if cols.size:
        for offset in itertools.product(*(range(k) for k in kernel_size)):
            padded[(Ellipsis,) + _offset_slices(offset, stride, dilation, out)] += cols[
                (slice(None), slice(None)) + offset]
    if any(lo or hi for lo, hi in padding):
        padded = np.ascontiguousarray(padded[(Ellipsis,) + tuple(
            slice(lo, lo + s) for s, (lo, _) in zip(spatial, padding))])
    return padded


@col2im_p.def_abstract_eval
def _col2im_aval(cols, *, spatial, kernel_size, stride, padding, dilation):
    n = len(spatial)
    _check_params("col2im", len(cols.shape) - n, kernel_size, stride, padding, dilation)
    out = conv_output_shape(spatial, kernel_size, stride, padding, dilation)
    if tuple(cols.shape[2:]) != tuple(kernel_size) + out:
        raise ValueError(
            f"col2im: columns of shape {tuple(cols.shape)} do not match an image of spatial "
            f"shape {tuple(spatial)} with kernel {kernel_size} (expected (N, C) + "
            f"{tuple(kernel_size) + out})"
        )
    return ShapedArray(tuple(cols.shape[:2]) + tuple(spatial), cols.dtype)


def _col2im_jvp(primals, tangents, **params):
    (c,), (t,) = primals, tangents
    ans = col2im_p.bind(c, **params)
    return ans, None if t is None else col2im_p.bind(t, **params)


col2im_p.jvp = _col2im_jvp
defvjp(col2im_p, lambda ct, ans, cols, *, spatial, kernel_size, stride, padding, dilation:
       im2col_p.bind(ct, kernel_size=kernel_size, stride=stride, padding=padding,
                     dilation=dilation, pad_value=0.0))
col2im_p.batch = _batch_into_images(col2im_p)


def col2im(cols, spatial, kernel_size, stride=1, padding=0, dilation=1):
    """Add columns back into an image: the transpose of :func:`im2col`.

    Parameters
    ----------
    cols : array or tracer
        Shape ``(N, C, k_1, ..., k_n, O_1, ..., O_n)``.
    spatial : tuple of int
        The image's spatial shape ``(S_1, ..., S_n)``.
    kernel_size, stride, padding, dilation
        As for :func:`im2col`; ``O_i`` must be the output shape they give.

    Returns
    -------
    array or tracer
        Shape ``(N, C, S_1, ..., S_n)``: each image element is the sum of
        the columns' entries read from it (padding is dropped).

    Raises
    ------
    ValueError
        Columns whose shape does not match ``spatial`` and the parameters.
    """
    spatial = tuple(int(s) for s in spatial)
    n = len(spatial)
    return col2im_p.bind(
        cols, spatial=spatial, kernel_size=_tuple(kernel_size, n, "kernel_size"),
        stride=_tuple(stride, n, "stride"), padding=_pairs(padding, n),
        dilation=_tuple(dilation, n, "dilation"))
