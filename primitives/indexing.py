"""Indexing primitives: ``gather``, its transpose ``scatter_add``, and ``argsort``.

Every gather-like operation of ``tracegrad.numpy`` (advanced indexing,
``take``, ``take_along_axis``, ``sort``, ``repeat`` with per-element counts,
the ``edge``/``reflect``/``symmetric``/``wrap`` modes of ``pad``) lowers to
:func:`gather` along one axis with a concrete integer index array.  Its VJP is
:func:`scatter_add`, which accumulates the cotangents of repeated indices, and
the VJP of ``scatter_add`` is ``gather`` again, so derivatives of every order
close over these two primitives.

Index arrays are ordinary (integer) operands, never differentiated.  They must
already be non-negative and in bounds: the ``tracegrad.numpy`` functions
normalize and check them, with NumPy's error messages, before binding.  An
index is usually a concrete array; under ``vmap`` it may also be a batched
tracer (per-example positions, e.g. labels), which the batching rules below
turn into one gather (or scatter) over the whole batch.
"""
import math

import numpy as np

from ..core import Tracer
from .batching import bdim_to_front, move_bdim
from .core import Primitive, ShapedArray, def_nondifferentiable, defjvp, defvjp, dtype_of, shape_of
from .elementwise import add
from .kernels import FLOAT_DTYPES, kernel
from .structural import convert_element_type, reshape

__all__ = ["gather", "scatter_add", "argsort"]


def _gather_shape(x_shape, idx_shape, axis):
    return tuple(x_shape[:axis]) + tuple(idx_shape) + tuple(x_shape[axis + 1:])


def _index_operand(idx):
    """An index operand: a concrete ``intp`` array, or a tracer (an index
    that varies over a ``vmap``'d axis) cast to ``intp``."""
    if isinstance(idx, Tracer):
        return idx if dtype_of(idx) == np.intp else convert_element_type(idx, np.intp)
    return np.asarray(idx, dtype=np.intp)


def _flat_positions(idx, size, pre, n):
    """Positions into a flattened ``(size, *pre, n)`` block for a batched index.

    ``idx`` has its batch dim in front, ``(size, *B)``, with positions in
    ``[0, n)`` along one axis preceded by the per-example axes ``pre``.
    Returns ``lin`` of shape ``(size, *pre, *B)`` with
    ``lin[b, p, j] = (b * prod(pre) + ravel(p)) * n + idx[b, j]``: the index
    of a gather (or scatter) along axis 0 of the ``(size * prod(pre) * n,
    *post)`` reshape, which gives every example its own positions without
    moving any data.
    """
    nb = len(shape_of(idx)) - 1
    offsets = np.arange(size * math.prod(pre), dtype=np.intp) * n
    offsets = offsets.reshape((size,) + tuple(pre) + (1,) * nb)
    idx = reshape(idx, (size,) + (1,) * len(pre) + tuple(shape_of(idx)[1:]))
    return add(idx, offsets)


# --------------------------------------------------------------------------
# gather
gather_p = Primitive("gather")
gather_p.reads = ((), False)
gather_p.torch_name = "IndexBackward0"


@gather_p.def_impl
def _gather_impl(x, idx, *, axis):
    """``np.take(x, idx, axis)``.

    NumPy, by measurement: a Numba gather loop took 1.57x NumPy's time on
    1e6 single elements and 1.0-1.1x on 1e3-1e6 elements in rows of 64; it
    won only below ~1e3 elements by under 1 us, which the kernel's call
    overhead gives back (see the kernel table in the README).
    """
    return np.take(x, idx, axis=axis)


@gather_p.def_abstract_eval
def _gather_aval(x, idx, *, axis):
    return ShapedArray(_gather_shape(x.shape, idx.shape, axis), x.dtype)


defjvp(gather_p, lambda g, ans, x, idx, *, axis: gather(g, idx, axis), None)
defvjp(
    gather_p,
    lambda ct, ans, x, idx, *, axis: scatter_add(ct, idx, axis, shape_of(x)[axis]),
    None,
)


def _gather_batch(args, bdims, *, axis):
    (x, idx), (dx, di) = args, bdims
    nb = len(shape_of(idx)) - (di is not None)
    if di is None:  # shared positions: gather along the shifted axis
        ax = axis + 1 if dx <= axis else axis
        return gather_p.bind(x, idx, axis=ax), (dx if dx < ax else dx - 1 + nb)
    if dx is None:  # shared x: the index's batch dim lands among its axes
        return gather_p.bind(x, idx, axis=axis), axis + di
    # per-example x and positions: one gather from the flattened batch
    size = shape_of(x)[dx]
    x = move_bdim(x, dx, 0)
    xs = shape_of(x)
    pre, n, post = xs[1:axis + 1], xs[axis + 1], xs[axis + 2:]
    lin = _flat_positions(move_bdim(idx, di, 0), size, pre, n)
    flat = reshape(x, (size * math.prod(pre) * n,) + post)
    return gather_p.bind(flat, lin, axis=0), 0


gather_p.batch = _gather_batch


def gather(x, idx, axis):
    """Select entries of ``x`` along ``axis`` at the integer positions ``idx``.

    Parameters
    ----------
    x : array or tracer, shape ``(*pre, n, *post)``
    idx : integer ndarray (or integer tracer) of any shape ``B``
        Positions in ``[0, n)`` (already normalized: no negatives, no bounds
        check is made here).  A tracer is an index that varies over a
        ``vmap``'d axis.
    axis : int
        Non-negative axis of ``x``.

    Returns
    -------
    array or tracer, shape ``(*pre, *B, *post)``, dtype of ``x``
        ``out[p, b, q] = x[p, idx[b], q]``.

    Notes
    -----
    The VJP is :func:`scatter_add` with the same indices: a position selected
    ``k`` times receives the sum of its ``k`` cotangents.
    """
    return gather_p.bind(x, _index_operand(idx), axis=int(axis))


# --------------------------------------------------------------------------
# scatter_add
scatter_add_p = Primitive("scatter_add")
scatter_add_p.reads = ((), False)


@kernel
def _scatter_add_kernel(u, idx, out):
    # out[p, idx[j], q] += u[p, j, q]; u (pre, m, post), out (pre, size, post)
    pre, m, post = u.shape
    if post == 1:  # a flat scatter: keep the inner loop free of the q loop
        for p in range(pre):
            for j in range(m):
                out[p, idx[j], 0] += u[p, j, 0]
        return
    for p in range(pre):
        for j in range(m):
            r = idx[j]
            for q in range(post):
                out[p, r, q] += u[p, j, q]


@scatter_add_p.def_impl
def _scatter_add_impl(u, idx, *, axis, size):
    """Accumulate ``u`` into zeros of the gathered-from shape.

    Float inputs run the Numba kernel ``_scatter_add_kernel`` (one pass over
    ``u``; repeated indices accumulate).  Measured (see the kernel table in
    the README): scattering rows of 64 floats it is 4-30x faster than
    ``np.add.at`` and 2-6x faster than ``np.bincount`` from 16 to 1e6
    elements; scattering single float64 elements it is 1.5x faster than
    ``np.add.at`` and 1.2-1.6x faster than ``np.bincount`` from 1e4 to 1e6
    updates, but below ~4e3 updates ``np.bincount`` is faster (0.7 us
    against 4.9 us at 16), so that case uses ``np.bincount``.  Other dtypes
    (integer ``.at[].add``) use ``np.add.at``.
    """
    u = np.asarray(u)
    idx = np.asarray(idx)
    if idx.size and (idx.min() < 0 or idx.max() >= size):
        # the kernel does not check bounds; tracegrad.numpy normalizes
        # indices first, so only direct calls of the primitive get here
        raise IndexError(
            f"scatter_add: indices must lie in [0, {size}); got {idx.min()} to "
            f"{idx.max()}. Normalize negative indices before calling the primitive."
        )
    shape = u.shape
    pre = shape[:axis]
    post = shape[axis + idx.ndim:]
    out_shape = pre + (size,) + post
    if u.dtype in FLOAT_DTYPES:
        npre, npost = math.prod(pre), math.prod(post)
        if npre * npost == 1 and idx.size < 4096 and u.dtype == np.float64:
            # few single elements: bincount's lower call cost wins
            flat = np.bincount(idx.reshape(-1), weights=u.reshape(-1), minlength=size)
            return flat.astype(np.float64, copy=False).reshape(out_shape)  # int64 if empty
        out = np.zeros((npre, size, npost), dtype=u.dtype)
        _scatter_add_kernel(
            np.ascontiguousarray(u).reshape(npre, idx.size, npost),
            np.ascontiguousarray(idx, dtype=np.int64).reshape(-1),
            out,
        )
        return out.reshape(out_shape)
    out = np.zeros(out_shape, dtype=u.dtype)
    u = u.reshape(pre + (idx.size,) + post)
    np.add.at(out, (slice(None),) * axis + (idx.reshape(-1),), u)
    return out


@scatter_add_p.def_abstract_eval
def _scatter_add_aval(u, idx, *, axis, size):
    shape = tuple(u.shape[:axis]) + (size,) + tuple(u.shape[axis + len(idx.shape):])
    return ShapedArray(shape, u.dtype)


defjvp(
    scatter_add_p,
    lambda g, ans, u, idx, *, axis, size: scatter_add(g, idx, axis, size),
    None,
)
defvjp(scatter_add_p, lambda ct, ans, u, idx, *, axis, size: gather(ct, idx, axis), None)


def _scatter_add_batch(args, bdims, *, axis, size):
    (u, idx), (du, di) = args, bdims
    nb = len(shape_of(idx)) - (di is not None)
    if di is None:  # shared positions
        if axis < du < axis + nb:  # the batch is among the scattered axes
            u, du = move_bdim(u, du, 0), 0
        if du <= axis:
            return scatter_add_p.bind(u, idx, axis=axis + 1, size=size), du
        return scatter_add_p.bind(u, idx, axis=axis, size=size), du - nb + 1
    # per-example positions: one scatter into the flattened batch
    n = shape_of(idx)[di]
    u = bdim_to_front(u, du, n)
    us = shape_of(u)
    pre, post = us[1:axis + 1], us[axis + 1 + nb:]
    lin = _flat_positions(move_bdim(idx, di, 0), n, pre, size)
    out = scatter_add_p.bind(u, lin, axis=0, size=n * math.prod(pre) * size)
    return reshape(out, (n,) + pre + (size,) + post), 0


scatter_add_p.batch = _scatter_add_batch


def scatter_add(u, idx, axis, size):
    """Sum the slices of ``u`` into an array of zeros at positions ``idx``.

    The transpose of :func:`gather`: with ``u`` of shape
    ``(*pre, *idx.shape, *post)``, returns ``out`` of shape
    ``(*pre, size, *post)`` with ``out[p, r, q] = sum over b with idx[b] == r
    of u[p, b, q]``.  Repeated indices accumulate.

    Parameters
    ----------
    u : array or tracer
    idx : integer ndarray (or integer tracer)
        Positions in ``[0, size)`` (not checked here); a tracer is an index
        that varies over a ``vmap``'d axis.
    axis : int
        Non-negative axis of the result that ``idx`` indexes.
    size : int
        Length of that axis.
    """
    return scatter_add_p.bind(u, _index_operand(idx), axis=int(axis), size=int(size))


# --------------------------------------------------------------------------
# argsort (no derivative)
argsort_p = Primitive("argsort")


@argsort_p.def_impl
def _argsort_impl(x, *, axis, kind):
    return np.argsort(x, axis=axis, kind=kind)


@argsort_p.def_abstract_eval
def _argsort_aval(x, *, axis, kind):
    return ShapedArray(x.shape, np.intp)


def_nondifferentiable(argsort_p)


def _argsort_batch(args, bdims, *, axis, kind):
    (x,), (d,) = args, bdims
    return argsort_p.bind(x, axis=axis + 1 if d <= axis else axis, kind=kind), d


argsort_p.batch = _argsort_batch


def argsort(x, axis, kind=None):
    """Indices that sort ``x`` along the non-negative ``axis`` (no derivative).

    ``kind`` is NumPy's (``None``/"quicksort", "mergesort", "heapsort",
    "stable"); "stable" keeps equal elements in their original order.
    """
    return argsort_p.bind(x, axis=int(axis), kind=kind)
