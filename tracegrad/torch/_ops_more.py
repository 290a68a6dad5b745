"""More of PyTorch's tensor operations: scatter/index updates, masked
selection, sets, order statistics, grids, bucketing, cumulative extrema and
in-place random fills, as functions and ``Tensor`` methods.

As in :mod:`._ops`, every differentiable operation is built from tracegrad
primitives (``gather``, ``scatter_add``, ``select``, ...) and recorded under
PyTorch's ``grad_fn`` name with :func:`~._ops._composite`, so derivatives come
from the primitives' VJP rules.  Index arguments must be concrete (not traced
by ``torch.func``); the positions they select are computed with NumPy.
"""
import builtins
import warnings

import numpy as np

from .. import nn as _tnn
from .. import numpy as tnp
from ..primitives import ops
from . import _creation, _grad_mode, _methods, _ops
from ._ops import _composite, _contiguous, _int64, _return_type, _tensor_arg, _value
from ._tensor import Tensor, _dim

__all__ = []  # filled by _public


def _public(fn):
    __all__.append(fn.__name__)
    return fn


_TYPE_NAMES = {"bool": "Bool", "uint8": "Byte", "int8": "Char", "int16": "Short",
               "int32": "Int", "int64": "Long", "float16": "Half", "float32": "Float",
               "float64": "Double", "complex64": "ComplexFloat",
               "complex128": "ComplexDouble"}


def _tname(dt):
    return _TYPE_NAMES.get(np.dtype(dt).name, np.dtype(dt).name)


def _idx_array(index):
    if isinstance(index, Tensor):
        return np.asarray(_value(index))
    return np.asarray(index)


def _flat(t):
    return ops.reshape(t, (int(np.prod(t.shape, dtype=np.int64)),))


def _c_strides(shape):
    st, acc = [], 1
    for s in reversed(shape):
        st.append(acc)
        acc *= int(s)
    return st[::-1]


def _grid_positions(idx_shape, shape, d=None, idx=None):
    """Flat C-order positions in an array of ``shape`` of the elements of a grid of
    ``idx_shape`` (with coordinate ``d`` replaced by ``idx`` when given)."""
    lin = np.zeros(idx_shape, np.int64)
    strides = _c_strides(shape)
    for k, n in enumerate(idx_shape):
        if k == d:
            lin = lin + idx.astype(np.int64) * strides[k]
        else:
            sh = [1] * len(idx_shape)
            sh[k] = n
            lin = lin + (np.arange(n, dtype=np.int64) * strides[k]).reshape(sh)
    return lin.reshape(-1)


# --------------------------------------------------------------------------
# scatter family


def _check_scatter(fname, x, d, idx, src):
    if idx.dtype.name not in ("int64", "int32"):
        raise RuntimeError("scatter(): Expected dtype int32/int64 for index")
    nd = x._data.ndim
    if idx.ndim != builtins.max(nd, 1) and not (nd == 0 and idx.ndim == 0) and idx.size:
        raise RuntimeError("Index tensor must have the same number of dimensions as self tensor")
    if isinstance(src, Tensor):
        if src._data.dtype != x._data.dtype:
            raise RuntimeError("scatter(): Expected self.dtype to be equal to src.dtype")
        if src._data.ndim != idx.ndim and idx.size:
            raise RuntimeError(
                "Index tensor must have the same number of dimensions as src tensor")
    if idx.size == 0:
        return
    xs = x._data.shape if nd else (1,)
    for k in range(idx.ndim):
        too_big = (k != d and idx.shape[k] > xs[k]) or (
            isinstance(src, Tensor) and idx.shape[k] > (src._data.shape or (1,))[k])
        if too_big:
            msg = (f"Expected index {list(idx.shape)} to be no larger than self "
                   f"{list(x._data.shape)} apart from dimension {d}")
            if isinstance(src, Tensor):
                msg += f" and to be no larger size than src {list(src._data.shape)}"
            raise RuntimeError(msg)
    bad = (idx < 0) | (idx >= xs[d])
    if bad.any():
        raise RuntimeError(f"index {int(idx[bad].flat[0])} is out of bounds for dimension "
                           f"{d} with size {xs[d]}")


def _scatter_setup(fname, input, dim, index, src):
    x = _tensor_arg(input)
    nd = x._data.ndim
    d = _dim(dim, nd)
    idx = _idx_array(index)
    _check_scatter(fname, x, d, idx, src)
    if nd == 0:
        idx = idx.reshape(1) if idx.ndim == 0 else idx
    shape = x._data.shape if nd else (1,)
    lin = _grid_positions(idx.shape, shape, d, idx)
    if isinstance(src, Tensor):
        sshape = src._data.shape or (1,)
        spos = _grid_positions(idx.shape, sshape)
    else:
        spos = None
    return x, lin, spos, int(np.prod(shape, dtype=np.int64))


def _src_values(src, spos):
    flat = _flat(src) if src._data.ndim else ops.reshape(src, (1,))
    if spos.size == flat.shape[0] and np.array_equal(spos, np.arange(spos.size)):
        return flat
    return ops.gather(flat, spos, 0)


def _last_of_each(lin):
    """Indices into ``lin`` of the last entry for each distinct position (ascending)."""
    _, first_rev = np.unique(lin[::-1], return_index=True)
    return np.sort(lin.size - 1 - first_rev)


def _hit(lin, n):
    h = np.zeros(n, bool)
    h[lin] = True
    return h


def _rounds(lin):
    """Groups of entries of ``lin`` with unique positions: round ``k`` holds each
    position's ``k``-th entry."""
    order = np.argsort(lin, kind="stable")
    s = lin[order]
    start = np.r_[0, np.nonzero(np.diff(s))[0] + 1] if s.size else np.zeros(0, np.int64)
    occ_sorted = np.arange(s.size) - np.repeat(start, np.diff(np.r_[start, s.size]))
    occ = np.empty(s.size, np.int64)
    occ[order] = occ_sorted
    return [np.nonzero(occ == k)[0] for k in range(int(occ.max()) + 1 if occ.size else 0)]


def _scatter_set(x, lin, v, n, dt):
    xf = ops.reshape(x, (n,))
    hit = _hit(lin, n)
    if dt is None:  # v: the flat source values (a tensor)
        keep = _last_of_each(lin)
        if keep.size == lin.size:
            placed = ops.scatter_add(v, lin, 0, n)
        else:  # repeated positions: the last value, a gradient to every value
            placed = _last_with_every_gradient(v, lin, keep, 0, n)
    else:
        placed = np.asarray(v, dt)
    return ops.reshape(ops.select(hit, placed, xf), x.shape)


def _last_with_every_gradient(v, lin, keep, axis, n):
    """The entries ``keep`` of ``v`` placed at ``lin[keep]`` along ``axis``, with
    PyTorch's derivative for repeated positions: every entry of ``v`` gets the
    gradient of its position (the added term is zero but not its derivative)."""
    last = ops.scatter_add(ops.stop_gradient(ops.gather(v, keep, axis)), lin[keep], axis, n)
    return ops.add(last, ops.scatter_add(ops.sub(v, ops.stop_gradient(v)), lin, axis, n))


def _identity(reduce, dt):
    dt = np.dtype(dt)
    if reduce in ("sum", "mean"):
        return np.zeros((), dt)
    if reduce == "prod":
        return np.ones((), dt)
    big = np.inf if dt.kind == "f" else (True if dt.kind == "b" else np.iinfo(dt).max)
    small = -np.inf if dt.kind == "f" else (False if dt.kind == "b" else np.iinfo(dt).min)
    return np.asarray(small if reduce == "amax" else big, dt)


def _scatter_reduce_flat(x, lin, v, n, reduce, include_self):
    dt = x._data.dtype
    xf = ops.reshape(x, (n,))
    hit = _hit(lin, n)
    base = xf if include_self else ops.select(hit, _identity(reduce, dt), xf)
    if reduce in ("sum", "mean"):
        out = ops.add(base, ops.scatter_add(v, lin, 0, n))
        if reduce == "mean":
            count = np.bincount(lin, minlength=n).astype(np.int64) + int(bool(include_self))
            count = np.maximum(count, 1).astype(dt)
            if dt.kind in "biu":
                out = tnp.floor_divide(out, count)
            else:
                out = ops.div(out, count)
            out = ops.select(hit, out, xf)
    elif (reduce in ("amax", "amin") and dt.kind == "f" and not _ops._is_traced(x)
          and not _ops._is_traced(v) and _grad_mode.is_grad_enabled()):
        out = _even_extremum(x, xf, lin, v, n, reduce, include_self, hit)
    else:
        op = {"prod": ops.mul, "amax": ops.maximum, "amin": ops.minimum}[reduce]
        one = np.ones((), dt)
        out = base
        for sel in _rounds(lin):
            placed = ops.scatter_add(ops.gather(v, sel, 0), lin[sel], 0, n)
            h = _hit(lin[sel], n)
            out = ops.select(h, op(out, ops.select(h, placed, one)), out)
    return ops.reshape(out, x.shape)


def _even_extremum(x, xf, lin, v, n, reduce, include_self, hit):
    """``amax``/``amin`` with PyTorch's derivative: the gradient of a written
    position is split evenly between the values equal to the result (the
    count includes an equal ``input`` entry, which gets its share only with
    ``include_self``)."""
    dt = x._data.dtype
    xd, vd = np.asarray(xf._data), np.asarray(v._data)
    res = np.array(xd if include_self else np.where(hit, _identity(reduce, dt), xd))
    (np.maximum if reduce == "amax" else np.minimum).at(res, lin, vd)
    # PyTorch counts an equal ``input`` entry even without include_self (it then
    # gets no gradient itself)
    tie_self = hit & (xd == res)
    eq_src = vd == res[lin]
    zero = np.zeros((), dt)
    num = ops.scatter_add(ops.select(eq_src, v, zero), lin, 0, n)
    if include_self:
        num = ops.add(ops.select(tie_self, xf, zero), num)
    cnt = tie_self.astype(dt) + np.bincount(lin, weights=eq_src, minlength=n).astype(dt)
    # the value is the result itself; the gradient is 1/cnt for each equal value
    share = ops.div(ops.sub(num, ops.stop_gradient(num)), np.where(cnt > 0, cnt, 1).astype(dt))
    return ops.select(hit, ops.add(res, share), xf)


_REDUCE_NAMES = {"add": "sum", "multiply": "prod"}


@_public
def scatter(input, dim, index, src=None, value=None, *, reduce=None):
    """Write ``src`` (a tensor, or the number ``value``) into a copy of ``input``
    at ``index`` along ``dim``: ``out[i][index[i][j]] = src[i][j]`` (2-D, dim 1).

    Parameters
    ----------
    input : Tensor
    dim : int
    index : Tensor (int64)
        Of ``input``'s number of dimensions; no larger than ``src`` anywhere
        and than ``input`` outside ``dim``.
    src : Tensor or number, optional
        Same dtype as ``input``; a number is taken as ``value``.
    value : number, optional
    reduce : {None, 'add', 'multiply'}, optional
        Combine with the existing entries instead of overwriting.

    Returns
    -------
    Tensor
        ``input``'s shape and dtype (grad_fn ``ScatterBackward0``/``1``,
        ``ScatterReduceBackward0`` with ``reduce``).

    Raises
    ------
    RuntimeError
        PyTorch's errors for a non-int64 index, mismatched ranks or sizes,
        out-of-bounds positions or a ``src`` of another dtype.

    Notes
    -----
    With repeated positions the last ``src`` entry (row-major) is written
    (PyTorch leaves the winner unspecified); every entry receives the
    gradient of its position, as PyTorch.
    """
    if src is None and value is None:
        raise TypeError("scatter() missing required argument 'src' or 'value'")
    if not isinstance(src, Tensor) and src is not None:
        value, src = src, None
    if reduce is not None:
        if reduce not in _REDUCE_NAMES:
            raise RuntimeError(
                "reduce argument must be either add or multiply.")
        if src is None:
            src = _creation.full(index.shape, value, dtype=_tensor_arg(input).dtype)
        return _scatter_reduce(input, dim, index, src, _REDUCE_NAMES[reduce], True,
                               "scatter", "ScatterReduceBackward0")
    if src is not None:
        x, lin, spos, n = _scatter_setup("scatter", input, dim, index, src)
        if lin.size == 0:
            return _ops.clone(x)
        return _contiguous(_composite(
            "ScatterBackward0", lambda: _scatter_set(x, lin, _src_values(src, spos), n, None),
            [x, None, src]))
    x, lin, _, n = _scatter_setup("scatter", input, dim, index, None)
    v = _value(value)
    return _contiguous(_composite("ScatterBackward1",
                                  lambda: _scatter_set(x, lin, v, n, x._data.dtype), [x]))


@_public
def scatter_add(input, dim, index, src):
    """Add ``src`` into a copy of ``input`` at ``index`` along ``dim``
    (repeated positions accumulate): ``out[i][index[i][j]] += src[i][j]``.

    Same arguments and errors as :func:`scatter`; grad_fn
    ``ScatterAddBackward0`` (the gradient of ``src`` is a gather of the
    output gradient).

    Parameters
    ----------
    input : Tensor
    dim : int
    index : Tensor (int64 or int32)
    src : Tensor

    Returns
    -------
    Tensor
        ``input``'s shape and dtype.
    """
    x, lin, spos, n = _scatter_setup("scatter_add", input, dim, index, src)
    if lin.size == 0:
        return _ops.clone(x)
    return _contiguous(_composite(
        "ScatterAddBackward0",
        lambda: ops.reshape(ops.add(ops.reshape(x, (n,)),
                                    ops.scatter_add(_src_values(src, spos), lin, 0, n)), x.shape),
        [x, None, src]))


def _scatter_reduce(input, dim, index, src, reduce, include_self, fname, name):
    x, lin, spos, n = _scatter_setup(fname, input, dim, index, src)
    if lin.size == 0:
        return _ops.clone(x)
    return _contiguous(_composite(
        name, lambda: _scatter_reduce_flat(x, lin, _src_values(src, spos), n, reduce,
                                           include_self), [x, None, src]))


@_public
def scatter_reduce(input, dim, index, src, reduce, *, include_self=True):
    """Reduce ``src`` into a copy of ``input`` at ``index`` along ``dim``.

    Parameters
    ----------
    input, dim, index, src
        As :func:`scatter` (``src`` a tensor).
    reduce : {'sum', 'prod', 'mean', 'amax', 'amin'}
    include_self : bool, optional
        Whether the entries of ``input`` at the written positions take part
        (default True); positions not written keep ``input``'s value.

    Returns
    -------
    Tensor
        grad_fn ``ScatterReduceBackward0``; ``'mean'`` of integers rounds
        down (floor division, as PyTorch).

    Raises
    ------
    RuntimeError
        For an unknown ``reduce`` and the index errors of :func:`scatter`.

    Notes
    -----
    ``amax``/``amin`` split the gradient evenly between the values equal to
    the result, as PyTorch (inside ``torch.func`` transforms: pairwise, in
    index order).
    """
    if reduce not in ("sum", "prod", "mean", "amax", "amin"):
        raise RuntimeError(
            "reduce argument must be either sum, prod, mean, amax or amin, got " + str(reduce))
    return _scatter_reduce(input, dim, index, src, reduce, include_self, "scatter_reduce",
                           "ScatterReduceBackward0")


# --------------------------------------------------------------------------
# index_add / index_copy / index_fill


def _index_1d(fname, x, d, index):
    """The 1-D int64 positions of ``index`` along ``d``, checked as PyTorch's
    ``index_add``/``index_copy``/``index_fill`` check them."""
    idx = _idx_array(index)
    if fname == "index_add":
        if idx.dtype.name not in ("int64", "int32"):
            raise RuntimeError(
                f"index_add_(): Expected dtype int32/int64 for index but got: {_tname(idx.dtype)}")
        if idx.ndim > 1:
            raise IndexError(
                f"index_add_(): Index is supposed to be a vector, but got dim: {idx.ndim} with "
                f"type: {_tname(idx.dtype)} and size: {list(idx.shape)}")
    elif fname == "index_copy":
        if idx.dtype != np.int64:
            raise RuntimeError(
                f"index_copy_(): Expected a long tensor for index, but got {_tname(idx.dtype)}")
        if idx.ndim > 1:
            raise IndexError("index_copy_(): Index should have dimension 1 or 0 (got "
                             f"{idx.ndim})")
    else:
        if idx.dtype != np.int64:
            raise IndexError("index_fill_(): Expected dtype int64 for index.")
        if idx.ndim > 1:
            raise RuntimeError("Index has to be a vector/scalar")
    idx = idx.reshape(-1).astype(np.int64)
    size = x._data.shape[d] if x._data.ndim else 1
    lo = -size if fname == "index_fill" else 0
    bad = (idx < lo) | (idx >= size)
    if bad.any():
        v = int(idx[bad][0])
        if fname == "index_copy":
            raise IndexError(
                f"index_copy_(): index {v} is out of bounds for dimension {d} with size {size}")
        exc = IndexError if fname == "index_fill" else RuntimeError
        raise exc(f"index {v} is out of bounds for dimension {d} with size {size}")
    return idx % size if size else idx


def _check_source(fname, x, d, idx, source):
    xs, ss = x._data.shape, source._data.shape
    nd = len(xs)
    n_src = (ss[d] if len(ss) > d else 1) if ss else 1
    if fname == "index_add":
        if source._data.dtype != x._data.dtype:
            raise RuntimeError(
                f"index_add_(): self ({_tname(x._data.dtype)}) and source "
                f"({_tname(source._data.dtype)}) must have the same scalar type")
        if n_src != idx.size and len(ss) == nd:
            raise RuntimeError(
                f"index_add_(): Number of indices ({idx.size}) should be equal to "
                f"source.size(dim): ({n_src}), for dim: {d}")
        if len(ss) != nd or ss[:d] + ss[d + 1:] != xs[:d] + xs[d + 1:]:
            if not (nd == 0 and source._data.size == idx.size == 1):
                raise RuntimeError(
                    "source tensor shape must match self tensor shape, excluding the specified "
                    f"dimension. Got self.shape = {list(xs)} source.shape = {list(ss)}")
        return
    if len(ss) != nd or ss[:d] + ss[d + 1:] != xs[:d] + xs[d + 1:]:
        if not (nd == 0 and source._data.size == idx.size == 1):
            raise RuntimeError(
                "index_copy_(): Source/destination tensor must have same slice shapes. "
                f"Destination slice shape: {' '.join(str(s) for s in xs[:d] + xs[d + 1:])} "
                f"at dimension {d} and source slice shape: "
                f"{' '.join(str(s) for s in ss[:d] + ss[d + 1:])} at dimension {d}.")
    if n_src != idx.size:
        raise IndexError(f"index_copy_(): Number of indices ({idx.size}) should be equal to "
                         f"source.size(dim) ({n_src})")
    if source._data.dtype != x._data.dtype:
        raise RuntimeError(
            "index_copy_(): self and source expected to have the same dtype, but got (self) "
            f"{_tname(x._data.dtype)} and (source) {_tname(source._data.dtype)}")


def _along(mask, d, nd):
    sh = [1] * nd
    sh[d] = mask.size
    return mask.reshape(sh)


@_public
def index_add(input, dim, index, source, *, alpha=1):
    """``input`` with ``alpha * source[..., j, ...]`` added at ``input[..., index[j], ...]``
    along ``dim`` (repeated indices accumulate).

    Parameters
    ----------
    input : Tensor
    dim : int
    index : Tensor (int64 or int32), 1-D
    source : Tensor
        ``input``'s shape with ``len(index)`` along ``dim``, and its dtype.
    alpha : number, optional

    Returns
    -------
    Tensor
        grad_fn ``IndexAddBackward0``.

    Raises
    ------
    RuntimeError, IndexError
        For a bad index dtype, rank or value, or a mismatched ``source``.
    """
    x = _tensor_arg(input)
    nd = x._data.ndim
    d = _dim(dim, nd)
    idx = _index_1d("index_add", x, d, index)
    _check_source("index_add", x, d, idx, source)

    def fn():
        if nd == 0:
            xs, ss = ops.reshape(x, (1,)), ops.reshape(source, (idx.size,))
        else:
            xs, ss = x, source
        s = ss if alpha == 1 else ops.mul(ss, np.asarray(alpha, x._data.dtype))
        out = ops.add(xs, ops.scatter_add(s, idx, d, xs.shape[d]))
        return ops.reshape(out, x.shape)

    return _contiguous(_composite("IndexAddBackward0", fn, [x, None, source]))


@_public
def index_copy(input, dim, index, source):
    """``input`` with ``input[..., index[j], ...] = source[..., j, ...]`` along ``dim``.

    Same arguments and errors as :func:`index_add` (int64 index);
    grad_fn ``IndexCopyBackward0``.  With repeated indices the last slice wins
    and every slice gets the gradient of its position, as PyTorch.

    Parameters
    ----------
    input : Tensor
    dim : int
    index : Tensor (int64), 1-D
    source : Tensor
        ``input``'s shape with ``len(index)`` along ``dim``, and its dtype.

    Returns
    -------
    Tensor
    """
    x = _tensor_arg(input)
    nd = x._data.ndim
    d = _dim(dim, nd)
    idx = _index_1d("index_copy", x, d, index)
    _check_source("index_copy", x, d, idx, source)

    def fn():
        xs = ops.reshape(x, (1,)) if nd == 0 else x
        ss = ops.reshape(source, (idx.size,)) if nd == 0 else source
        keep = _last_of_each(idx)
        n = xs.shape[d]
        if keep.size == idx.size:
            placed = ops.scatter_add(ss, idx, d, n)
        else:
            placed = _last_with_every_gradient(ss, idx, keep, d, n)
        out = ops.select(_along(_hit(idx, n), d, builtins.max(nd, 1)), placed, xs)
        return ops.reshape(out, x.shape)

    return _contiguous(_composite("IndexCopyBackward0", fn, [x, None, source]))


@_public
def index_fill(input, dim, index, value):
    """``input`` with the slices ``index`` along ``dim`` set to ``value`` (a number
    or a 0-d tensor, whose gradient is the sum over the filled entries).

    grad_fn ``IndexFillBackward0`` (number) or ``IndexFillBackward1`` (tensor).

    Parameters
    ----------
    input : Tensor
    dim : int
    index : Tensor (int64), 0-d or 1-D
        Negative positions count from the end.
    value : number or 0-d Tensor

    Returns
    -------
    Tensor

    Raises
    ------
    RuntimeError, IndexError
        For a non-int64 or multi-dimensional index, an index out of range, or a
        ``value`` tensor that is not 0-d.
    """
    x = _tensor_arg(input)
    nd = x._data.ndim
    d = _dim(dim, nd)
    idx = _index_1d("index_fill", x, d, index)
    if isinstance(value, Tensor) and value._data.ndim:
        raise RuntimeError(
            "index_fill_ only supports a 0-dimensional value tensor, but got tensor with "
            f"{value._data.ndim} dimension(s).")
    n = x._data.shape[d] if nd else 1
    mask = _along(_hit(idx, n), d, nd) if nd else _hit(idx, 1).reshape(())
    if isinstance(value, Tensor):
        v = value
        return _contiguous(_composite(
            "IndexFillBackward1",
            lambda: ops.select(mask, _ops._cast(v, x._data.dtype), x), [x, None, v]))
    v = np.asarray(value, x._data.dtype)
    return _contiguous(_composite("IndexFillBackward0", lambda: ops.select(mask, v, x), [x]))


# --------------------------------------------------------------------------
# masked_select / masked_scatter / take_along_dim


def _check_mask(fname, mask):
    m = _idx_array(mask)
    if m.dtype != np.bool_:
        raise RuntimeError(f"{fname}: expected BoolTensor for mask")
    return m


def _broadcast_shapes(*shapes):
    try:
        return np.broadcast_shapes(*shapes)
    except ValueError:
        a, b = shapes[0], shapes[1]
        n = builtins.max(len(a), len(b))
        pa, pb = (1,) * (n - len(a)) + tuple(a), (1,) * (n - len(b)) + tuple(b)
        for k in range(n - 1, -1, -1):
            if pa[k] != pb[k] and pa[k] != 1 and pb[k] != 1:
                raise RuntimeError(
                    f"The size of tensor a ({pa[k]}) must match the size of tensor b "
                    f"({pb[k]}) at non-singleton dimension {k}") from None
        raise


@_public
def masked_select(input, mask):
    """The entries of ``input`` where the boolean ``mask`` is true, as a 1-D tensor
    (``input`` and ``mask`` broadcast together).

    Parameters
    ----------
    input : Tensor
    mask : Tensor (bool)

    Returns
    -------
    Tensor
        1-D, ``input``'s dtype (grad_fn ``MaskedSelectBackward0``).

    Raises
    ------
    RuntimeError
        For a mask that is not boolean, or shapes that do not broadcast.
    """
    x = _tensor_arg(input)
    m = _check_mask("masked_select", mask)
    shape = _broadcast_shapes(m.shape, x._data.shape)  # (PyTorch's order in its message)
    pos = np.nonzero(np.broadcast_to(m, shape).reshape(-1))[0]
    n = int(np.prod(shape, dtype=np.int64))

    def fn():
        xb = x if x._data.shape == shape else ops.broadcast_to(x, shape)
        return ops.gather(ops.reshape(xb, (n,)), pos, 0)

    return _contiguous(_composite("MaskedSelectBackward0", fn, [x]))


@_public
def masked_scatter(input, mask, source):
    """``input`` with the positions where ``mask`` is true filled, in row-major
    order, by the leading elements of ``source``.

    grad_fn ``MaskedScatterBackward0``.

    Parameters
    ----------
    input : Tensor
    mask : Tensor (bool), broadcast with ``input``
    source : Tensor
        ``input``'s dtype, at least as many elements as true entries.

    Returns
    -------
    Tensor

    Raises
    ------
    RuntimeError
        For a non-boolean mask, a ``source`` of another dtype or with fewer
        elements than the mask's true entries.
    """
    x = _tensor_arg(input)
    m = _idx_array(mask)
    if m.dtype != np.bool_:
        raise RuntimeError("masked_scatter_ only supports boolean masks, but got mask with "
                           f"dtype {_tname(m.dtype)}")
    if source._data.dtype != x._data.dtype:
        raise RuntimeError(
            f"masked_scatter: expected self and source to have same dtypes but got"
            f"{_tname(x._data.dtype)} and {_tname(source._data.dtype)}")
    shape = _broadcast_shapes(x._data.shape, m.shape)
    mb = np.broadcast_to(m, shape).reshape(-1)
    pos = np.nonzero(mb)[0]
    if pos.size > source._data.size:
        raise RuntimeError("Number of elements of source < number of ones in mask")
    n = int(np.prod(shape, dtype=np.int64))

    def fn():
        xb = x if x._data.shape == shape else ops.broadcast_to(x, shape)
        vals = ops.gather(_flat(source) if source._data.ndim else ops.reshape(source, (1,)),
                          np.arange(pos.size), 0)
        placed = ops.scatter_add(vals, pos, 0, n)
        return ops.reshape(ops.select(mb, placed, ops.reshape(xb, (n,))), shape)

    return _contiguous(_composite("MaskedScatterBackward0", fn, [x, None, source]))


@_public
def take_along_dim(input, indices, dim=None):
    """``input``'s entries at ``indices`` along ``dim`` (of the flattened tensor if
    ``dim`` is None); ``input`` and ``indices`` broadcast outside ``dim``.

    Parameters
    ----------
    input : Tensor
    indices : Tensor (integer)
    dim : int, optional

    Returns
    -------
    Tensor
        grad_fn ``GatherBackward0``, as PyTorch.

    Raises
    ------
    RuntimeError
        For non-integer indices or ranks that differ (with ``dim``).
    """
    x = _tensor_arg(input)
    idx = _idx_array(indices)
    if idx.dtype.kind not in "iu":
        raise RuntimeError(
            "torch.take_along_dim(): dtype of indices should be Long but got "
            + _tname(idx.dtype))
    if dim is None:
        n = x._data.size
        flat = idx.reshape(-1).astype(np.int64)
        flat = np.where(flat < 0, flat + n, flat)
        return _contiguous(_composite("GatherBackward0",
                                      lambda: ops.gather(ops.reshape(x, (n,)), flat, 0), [x]))
    nd = x._data.ndim
    d = _dim(dim, nd)
    if idx.ndim != nd:
        raise RuntimeError(
            "torch.take_along_dim(): input and indices should have the same number of "
            f"dimensions, but got {nd} dimensions for input, and {idx.ndim} dimensions "
            "for indices")
    xs, ishape = list(x._data.shape), list(idx.shape)
    xs[d] = ishape[d] = 1
    b = list(_broadcast_shapes(tuple(xs), tuple(ishape)))
    bx, bi = list(b), list(b)
    bx[d], bi[d] = x._data.shape[d], idx.shape[d]
    idx_b = np.broadcast_to(idx, bi).astype(np.int64)
    size = x._data.shape[d]
    idx_b = np.where(idx_b < 0, idx_b + size, idx_b)

    def fn():
        xb = x if list(x._data.shape) == bx else ops.broadcast_to(x, tuple(bx))
        return tnp.take_along_axis(xb, idx_b, axis=d)

    return _contiguous(_composite("GatherBackward0", fn, [x]))


# --------------------------------------------------------------------------
# sets


def _unique_dim(a, d, sorted_, return_inverse, return_counts, consecutive):
    moved = np.moveaxis(a, d, 0)
    rows = moved.reshape(moved.shape[0], -1)
    n = rows.shape[0]
    if consecutive:
        if n == 0:
            starts = np.zeros(0, np.int64)
        else:
            change = np.r_[True, np.any(rows[1:] != rows[:-1], axis=1)]
            starts = np.nonzero(change)[0]
        inv = np.cumsum(np.r_[True, np.any(rows[1:] != rows[:-1], axis=1)]) - 1 if n else \
            np.zeros(0, np.int64)
        counts = np.diff(np.r_[starts, n])
        uniq = moved[starts]
    else:
        order = sorted(range(n), key=lambda i: tuple(rows[i].tolist()))
        order = np.asarray(order, np.int64)
        srows = rows[order]
        change = np.r_[True, np.any(srows[1:] != srows[:-1], axis=1)] if n else \
            np.zeros(0, bool)
        group = np.cumsum(change) - 1
        inv = np.empty(n, np.int64)
        inv[order] = group
        starts = np.nonzero(change)[0]
        counts = np.diff(np.r_[starts, n])
        uniq = moved[order[starts]]
    return np.moveaxis(uniq, 0, d), inv.astype(np.int64), counts.astype(np.int64)


def _unique_result(uniq, inv, counts, return_inverse, return_counts):
    out = [Tensor._wrap(np.ascontiguousarray(uniq))]
    if return_inverse:
        out.append(Tensor._wrap(np.ascontiguousarray(inv, np.int64)))
    if return_counts:
        out.append(Tensor._wrap(np.ascontiguousarray(counts, np.int64)))
    return out[0] if len(out) == 1 else tuple(out)


@_public
def unique(input, sorted=True, return_inverse=False, return_counts=False, dim=None):  # noqa: A002
    """The distinct elements of ``input`` (sorted), or distinct slices along ``dim``.

    Parameters
    ----------
    input : Tensor
    sorted : bool, optional
    return_inverse, return_counts : bool, optional
    dim : int, optional

    Returns
    -------
    Tensor or tuple of Tensor
        The values (no gradient), then the int64 inverse indices (``input``'s
        shape, or ``input.size(dim)``) and counts when asked for.  The values
        are sorted whatever ``sorted`` says.
    """
    x = _tensor_arg(input)
    a = x._data
    if dim is None:
        uniq, inv, counts = np.unique(a.reshape(-1), return_inverse=True, return_counts=True)
        inv = inv.reshape(a.shape)
    else:
        uniq, inv, counts = _unique_dim(a, _dim(dim, a.ndim), sorted, return_inverse,
                                        return_counts, False)
    return _unique_result(uniq, inv, counts, return_inverse, return_counts)


@_public
def unique_consecutive(input, return_inverse=False, return_counts=False, dim=None):
    """``input`` with each run of equal consecutive elements (or slices along ``dim``)
    collapsed to one; the inverse indices and run lengths on request (int64).

    Parameters
    ----------
    input : Tensor
    return_inverse, return_counts : bool, optional
    dim : int, optional

    Returns
    -------
    Tensor or tuple of Tensor
        The values, then the inverse indices and counts when asked for.
    """
    x = _tensor_arg(input)
    a = x._data
    if dim is None:
        flat = a.reshape(-1)
        change = np.r_[True, flat[1:] != flat[:-1]] if flat.size else np.zeros(0, bool)
        starts = np.nonzero(change)[0]
        uniq = flat[starts]
        inv = (np.cumsum(change) - 1).reshape(a.shape)
        counts = np.diff(np.r_[starts, flat.size])
    else:
        uniq, inv, counts = _unique_dim(a, _dim(dim, a.ndim), True, return_inverse,
                                        return_counts, True)
    return _unique_result(uniq, inv, counts, return_inverse, return_counts)


# --------------------------------------------------------------------------
# order statistics


def _named(name, values, indices):
    return _return_type(name)(values, indices)


def _select_along(name, x, idx, d, keepdim):
    """``x``'s entries at ``idx`` (keepdim-shaped indices along ``d``): the values
    (the whole gradient to the selected element) and the int64 indices."""
    shape = x._data.shape[:d] + ((1,) if keepdim else ()) + x._data.shape[d + 1:]
    values = _contiguous(_composite(
        name, lambda: ops.reshape(tnp.take_along_axis(x, idx, axis=d), shape), [x]))
    return values, _int64(idx if keepdim else np.squeeze(idx, d))


def _median_dim(name, input, dim, keepdim, ignore_nan, tname):
    x = _tensor_arg(input)
    a = x._data
    if a.ndim == 0:
        values = _composite(name, lambda: ops.add(x, 0), [x])
        return _named(tname, values, Tensor._wrap(np.zeros((), np.int64)))
    d = _dim(dim, a.ndim)
    if a.shape[d] == 0:
        raise IndexError(f"{tname}(): Expected reduction dim {d} to have non-zero size.")
    order = np.argsort(a, axis=d, kind="stable")
    nans = np.isnan(a).sum(axis=d, keepdims=True) if a.dtype.kind == "f" else \
        np.zeros_like(np.take(a, [0], axis=d), dtype=np.int64)
    n = a.shape[d]
    if ignore_nan:
        valid = n - nans
        k = np.where(valid > 0, (valid - 1) // 2, n - 1)  # all NaN: a NaN
    else:
        k = np.where(nans > 0, n - nans, (n - 1) // 2)  # the first NaN in sorted order
    idx = np.take_along_axis(order, k.astype(np.int64), axis=d)
    values, indices = _select_along(name, x, idx, d, keepdim)
    return _named(tname, values, indices)


def _median_all(name, input, ignore_nan):
    x = _tensor_arg(input)
    a = x._data.reshape(-1)
    if a.size == 0:
        return Tensor._wrap(np.asarray(np.nan, a.dtype)) if a.dtype.kind == "f" else \
            Tensor._wrap(np.zeros((), a.dtype))
    s = np.sort(a, kind="stable")
    nans = int(np.isnan(a).sum()) if a.dtype.kind == "f" else 0
    if ignore_nan:
        valid = a.size - nans
        m = s[(valid - 1) // 2] if valid else s[-1]
    else:
        m = s[-1] if nans else s[(a.size - 1) // 2]
    mask = np.isnan(x._data) if np.isnan(m) else (x._data == m)
    cnt = np.asarray(mask.sum(), x._data.dtype)

    def fn():
        return ops.div(tnp.sum(ops.select(mask, x, np.zeros((), x._data.dtype))), cnt)

    if x._data.dtype.kind not in "fc":
        return Tensor._wrap(np.asarray(m))
    return _composite(name, fn, [x])


@_public
def median(input, dim=None, keepdim=False):
    """The lower median: of all elements (a 0-d tensor; the gradient is split
    evenly between the elements equal to it, as PyTorch), or
    ``torch.return_types.median(values, indices)`` along ``dim``.  NaN
    propagates (the index of a NaN is returned).

    Parameters
    ----------
    input : Tensor
    dim : int, optional
    keepdim : bool, optional

    Returns
    -------
    Tensor or torch.return_types.median
        grad_fn ``MedianBackward0`` (global) or ``MedianBackward1``; the indices
        are int64.

    Raises
    ------
    IndexError
        For a reduction over an empty dimension.
    """
    if dim is None:
        return _median_all("MedianBackward0", input, False)
    return _median_dim("MedianBackward1", input, dim, keepdim, False, "median")


@_public
def nanmedian(input, dim=None, keepdim=False):
    """:func:`median` ignoring NaNs (NaN only where every element is NaN).

    Parameters
    ----------
    input : Tensor
    dim : int, optional
    keepdim : bool, optional

    Returns
    -------
    Tensor or torch.return_types.nanmedian
    """
    if dim is None:
        return _median_all("NanmedianBackward0", input, True)
    return _median_dim("NanmedianBackward1", input, dim, keepdim, True, "nanmedian")


@_public
def kthvalue(input, k, dim=-1, keepdim=False):
    """``torch.return_types.kthvalue(values, indices)``: the ``k``-th smallest
    element (1-based) along ``dim``.

    Parameters
    ----------
    input : Tensor
    k : int
    dim : int, optional
    keepdim : bool, optional

    Returns
    -------
    torch.return_types.kthvalue
        The values (the gradient goes to the selected element) and int64 indices.

    Raises
    ------
    RuntimeError
        If ``k`` is not in ``[1, input.size(dim)]``.
    """
    x = _tensor_arg(input)
    a = x._data
    d = _dim(dim, a.ndim)
    n = a.shape[d] if a.ndim else 1
    if not 1 <= k <= n:
        raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {d}")
    if a.ndim == 0:
        values = _composite("KthvalueBackward0", lambda: ops.add(x, 0), [x])
        return _named("kthvalue", values, Tensor._wrap(np.zeros((), np.int64)))
    order = np.argsort(a, axis=d, kind="stable")
    idx = np.take(order, [k - 1], axis=d)
    return _named("kthvalue", *_select_along("KthvalueBackward0", x, idx, d, keepdim))


@_public
def mode(input, dim=-1, keepdim=False):
    """``torch.return_types.mode(values, indices)``: the most frequent value along
    ``dim`` (the smallest among equally frequent ones) and the index of its
    last occurrence.

    Parameters
    ----------
    input : Tensor
    dim : int, optional
    keepdim : bool, optional

    Returns
    -------
    torch.return_types.mode
    """
    x = _tensor_arg(input)
    a = x._data
    if a.ndim == 0:
        values = _composite("ModeBackward0", lambda: ops.add(x, 0), [x])
        return _named("mode", values, Tensor._wrap(np.zeros((), np.int64)))
    d = _dim(dim, a.ndim)
    moved = np.moveaxis(a, d, -1)
    rows = moved.reshape(-1, moved.shape[-1])
    best = np.empty(rows.shape[0], np.int64)
    for r, row in enumerate(rows):
        vals, counts = np.unique(row, return_counts=True)
        v = vals[np.argmax(counts)]
        best[r] = np.nonzero((row == v) | (np.isnan(row) & np.isnan(v)))[0][-1]
    idx = np.expand_dims(np.moveaxis(best.reshape(moved.shape[:-1] + (1,)), -1, d)
                         .squeeze(d), d)
    return _named("mode", *_select_along("ModeBackward0", x, idx, d, keepdim))


def _cum_extremum(which, input, dim):
    x = _tensor_arg(input)
    a = x._data
    if a.ndim == 0:
        values = _composite(f"Cum{which}Backward0", lambda: ops.add(x, 0), [x])
        return _named(f"cum{which}", values, Tensor._wrap(np.zeros((), np.int64)))
    d = _dim(dim, a.ndim)
    moved = np.moveaxis(a, d, 0)
    idx = np.zeros(moved.shape, np.int64)
    if moved.shape[0]:
        best = moved[0].copy()
        cur = np.zeros(moved.shape[1:], np.int64)
        floating = a.dtype.kind == "f"
        for i in range(moved.shape[0]):
            v = moved[i]
            better = (v >= best) if which == "max" else (v <= best)
            if floating:
                better = np.isnan(v) | (~np.isnan(best) & better)
            best = np.where(better, v, best)
            cur = np.where(better, i, cur)
            idx[i] = cur
    idx = np.moveaxis(idx, 0, d)
    values = _contiguous(_composite(f"Cum{which}Backward0", tnp.take_along_axis, [x], x, idx,
                                    axis=d))
    return _named(f"cum{which}", values, _int64(idx))


@_public
def cummax(input, dim):
    """``torch.return_types.cummax(values, indices)``: running maximum along ``dim``
    (index of the last occurrence on ties; NaN propagates).

    Parameters
    ----------
    input : Tensor
    dim : int

    Returns
    -------
    torch.return_types.cummax
        Values (grad_fn ``CummaxBackward0``) and int64 indices.
    """
    return _cum_extremum("max", input, dim)


@_public
def cummin(input, dim):
    """``torch.return_types.cummin(values, indices)``: running minimum along ``dim``.

    Parameters
    ----------
    input : Tensor
    dim : int

    Returns
    -------
    torch.return_types.cummin
    """
    return _cum_extremum("min", input, dim)


@_public
def logcumsumexp(input, dim):
    """``log(cumsum(exp(input), dim))`` computed stably (grad_fn
    ``LogcumsumexpBackward0``): shifted by the maximum along ``dim``, or, where
    the values along ``dim`` span more than ``exp`` can (an entry would
    underflow), as a ``logsumexp`` over each prefix (quadratic in the length).

    Parameters
    ----------
    input : Tensor
    dim : int

    Returns
    -------
    Tensor
        ``input``'s shape, float dtype.
    """
    x = _ops._float_input(input)
    a = x._data
    if a.ndim == 0:
        return _composite("LogcumsumexpBackward0", lambda: ops.add(x, 0), [x])
    d = _dim(dim, a.ndim)
    span = {2: 10.0, 4: 80.0}.get(a.dtype.itemsize, 700.0)
    if (not _ops._is_traced(x) and a.size and a.dtype.kind == "f"
            and np.nanmax(np.ptp(np.where(np.isfinite(a), a, 0), axis=d)) > span):
        n = a.shape[d]
        keep = np.tril(np.ones((n, n), bool))  # keep[k, i]: i <= k

        def prefixes():
            xm = tnp.moveaxis(x, d, -1)
            rows = tnp.broadcast_to(tnp.expand_dims(xm, -2), xm.shape[:-1] + (n, n))
            masked = ops.select(keep, rows, np.asarray(-np.inf, a.dtype))
            return tnp.moveaxis(_tnn.logsumexp(masked, axis=-1), -1, d)

        return _contiguous(_composite("LogcumsumexpBackward0", prefixes, [x]))

    def fn():
        if _ops._is_traced(x):  # (inside torch.func: the shift from the traced values)
            m = ops.stop_gradient(tnp.max(x, axis=d, keepdims=True))
            m = ops.select(ops.isfinite(m), m, np.zeros((), a.dtype))
        elif a.size:
            m = np.max(a, axis=d, keepdims=True)
            m = np.where(np.isfinite(m), m, 0).astype(a.dtype)
        else:
            m = np.zeros((), a.dtype)
        return ops.add(ops.log(tnp.cumsum(ops.exp(ops.sub(x, m)), axis=d)), m)

    return _contiguous(_composite("LogcumsumexpBackward0", fn, [x]))


@_public
def nanmean(input, dim=None, keepdim=False, *, dtype=None):
    """Mean of the non-NaN elements over ``dim`` (NaN where there are none).

    Parameters
    ----------
    input : Tensor
    dim : int or tuple of int, optional
    keepdim : bool, optional
    dtype : dtype, optional

    Returns
    -------
    Tensor
        grad_fn ``DivBackward0``, as PyTorch's (a sum divided by a count).

    Raises
    ------
    RuntimeError
        For integer input (as PyTorch).
    """
    x = _tensor_arg(input)
    if dtype is not None:
        x = x.to(dtype)
    if x._data.dtype.kind not in "fc":
        raise RuntimeError(
            "nanmean(): expected input to have floating point or complex dtype but got "
            + _tname(x._data.dtype))
    axes = _ops._red_axes(dim, x)
    dt = x._data.dtype

    def fn():
        if _ops._is_traced(x):  # (inside torch.func)
            nan = ops.isnan(x)
            cnt = tnp.sum(ops.convert_element_type(ops.logical_not(nan), dt), axis=axes,
                          keepdims=keepdim)
        else:
            nan = np.isnan(x._data)
            cnt = np.sum(~nan, axis=axes, keepdims=keepdim).astype(dt)
        s = tnp.sum(ops.select(nan, np.zeros((), x._data.dtype), x), axis=axes,
                    keepdims=keepdim)
        return ops.div(s, cnt)

    return _contiguous(_composite("DivBackward0", fn, [x]))


# --------------------------------------------------------------------------
# grids, bucketing, histograms


def _tensors_arg(tensors):
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        return list(tensors[0])
    return list(tensors)


@_public
def meshgrid(*tensors, indexing=None):
    """Coordinate grids of 1-D (or 0-d) tensors: ``'ij'`` (matrix, the default
    with a warning as PyTorch) or ``'xy'`` (Cartesian: the grids of the first two tensors
    take each other's axes).  The results are expanded views (grad_fn ``ExpandBackward0``).

    Parameters
    ----------
    *tensors : Tensor, or one sequence of them
    indexing : {'ij', 'xy'}, optional

    Returns
    -------
    tuple of Tensor
        Each of shape ``(N1, N2, ...)`` (``(N2, N1, ...)`` for ``'xy'``).

    Raises
    ------
    RuntimeError
        For tensors of more than one dimension or of different dtypes, or an
        unknown ``indexing``.
    """
    ts = _tensors_arg(tensors)
    if indexing is None:
        warnings.warn(
            "torch.meshgrid: in an upcoming release, it will be required to pass the "
            "indexing argument.", UserWarning, stacklevel=2)
        indexing = "ij"
    if indexing not in ("ij", "xy"):
        raise RuntimeError(
            f'torch.meshgrid: indexing must be one of "xy" or "ij", but received: {indexing}')
    if not ts:
        raise RuntimeError("meshgrid expects a non-empty TensorList")
    for t in ts:
        if t.dim() > 1:
            raise RuntimeError(
                f"torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got: {t}")
    for t in ts[1:]:
        if t.dtype != ts[0].dtype:
            raise RuntimeError("meshgrid expects all tensors to have the same dtype")
    swap = indexing == "xy" and len(ts) >= 2
    order = list(ts)
    if swap:
        order[0], order[1] = order[1], order[0]
    sizes = [t.numel() for t in order]
    outs = []
    for k, t in enumerate(order):
        sh = [1] * len(order)
        sh[k] = -1
        outs.append(_ops.expand(_ops.reshape(t, sh), sizes))
    if swap:
        outs[0], outs[1] = outs[1], outs[0]
    return tuple(outs)


@_public
def cartesian_prod(*tensors):
    """The Cartesian product of 1-D tensors: ``(N1 * N2 * ..., len(tensors))``
    rows in lexicographic order (a single tensor is returned as it is).

    Parameters
    ----------
    *tensors : Tensor (1-D)

    Returns
    -------
    Tensor
    """
    ts = _tensors_arg(tensors)
    if len(ts) == 1:
        return ts[0]
    grids = meshgrid(*ts, indexing="ij")
    return _ops.stack([_ops.flatten(g) for g in grids], dim=1)


def _search_result(r, out_int32):
    return Tensor._wrap(np.asarray(r, np.int32 if out_int32 else np.int64))


@_public
def bucketize(input, boundaries, *, out_int32=False, right=False):
    """The index of the bucket of each element of ``input`` among the sorted 1-D
    ``boundaries``: ``boundaries[i-1] < x <= boundaries[i]`` (``right=False``) or
    ``boundaries[i-1] <= x < boundaries[i]`` (``right=True``).

    Parameters
    ----------
    input : Tensor or number
    boundaries : Tensor, 1-D, sorted
    out_int32 : bool, optional
    right : bool, optional

    Returns
    -------
    Tensor
        int64 (int32 with ``out_int32``), ``input``'s shape; no gradient.

    Raises
    ------
    RuntimeError
        For boundaries that are not 1-D.
    """
    b = _idx_array(boundaries)
    if b.ndim != 1:
        raise RuntimeError(
            f"boundaries tensor must be 1 dimension, but got dim({b.ndim})")
    a = _idx_array(input)
    return _search_result(np.searchsorted(b, a, side="right" if right else "left"), out_int32)


@_public
def searchsorted(sorted_sequence, input, *, out_int32=False, right=False, side=None,
                 sorter=None):
    """Insertion points of ``input`` in ``sorted_sequence`` along its last dimension
    (leading dimensions match ``input``'s, or a 1-D sequence serves every row).

    Parameters
    ----------
    sorted_sequence : Tensor
    input : Tensor or number
    out_int32, right : bool, optional
    side : {'left', 'right'}, optional
    sorter : Tensor, optional
        Indices that sort ``sorted_sequence`` along its last dimension.

    Returns
    -------
    Tensor
        int64 (int32 with ``out_int32``), ``input``'s shape; no gradient.

    Raises
    ------
    RuntimeError
        For ``side`` other than ``'left'``/``'right'``, ``side`` contradicting
        ``right``, or mismatched leading dimensions.
    """
    if side is not None:
        if side not in ("left", "right"):
            raise RuntimeError(
                f"torch.searchsorted(): side can only be 'left' or 'right' but got {side}")
        if right and side == "left":
            raise RuntimeError(
                "torch.searchsorted(): side and right can't be set to opposites, got side of "
                "left while right was True")
        right = side == "right"
    seq = _idx_array(sorted_sequence)
    scalar = not isinstance(input, Tensor)
    a = _idx_array(input)
    srt = None if sorter is None else _idx_array(sorter)
    if srt is not None:
        seq = np.take_along_axis(seq, srt, axis=-1)
    side_ = "right" if right else "left"
    if seq.ndim == 1:
        return _search_result(np.searchsorted(seq, a, side=side_), out_int32)
    if scalar or a.ndim != seq.ndim or a.shape[:-1] != seq.shape[:-1]:
        raise RuntimeError(
            "torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 "
            "dimensions of boundaries tensor and input value tensor must match, but we got "
            f"boundaries tensor {list(seq.shape)} and input value tensor {list(a.shape)}")
    rows = seq.reshape(-1, seq.shape[-1])
    vals = a.reshape(-1, a.shape[-1])
    out = np.stack([np.searchsorted(r, v, side=side_) for r, v in zip(rows, vals)]) \
        if rows.shape[0] else np.zeros(vals.shape, np.int64)
    return _search_result(out.reshape(a.shape), out_int32)


@_public
def histc(input, bins=100, min=0, max=0):  # noqa: A002
    """Histogram of ``bins`` equal bins over ``[min, max]`` (the data's range when
    both are 0; elements outside are ignored), in ``input``'s floating dtype.

    Parameters
    ----------
    input : Tensor
    bins : int, optional
    min, max : number, optional

    Returns
    -------
    Tensor
        ``(bins,)`` counts in ``input``'s dtype; no gradient.

    Raises
    ------
    RuntimeError
        For integer input, ``bins <= 0`` or ``min > max``.
    """
    x = _tensor_arg(input)
    a = x._data
    if a.dtype.kind not in "f":
        raise NotImplementedError(f"\"histogram_cpu\" not implemented for '{_tname(a.dtype)}'")
    if bins <= 0:
        raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {bins} for dimension 0")
    lo, hi = float(min), float(max)
    if lo == hi and a.size:
        lo, hi = float(a.min()), float(a.max())
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    if lo > hi:
        raise RuntimeError("torch.histc: max must be larger than min")
    flat = a.reshape(-1).astype(np.float64)
    inside = flat[(flat >= lo) & (flat <= hi)]
    pos = np.floor((inside - lo) * bins / (hi - lo)).astype(np.int64)
    pos = np.minimum(pos, bins - 1)
    return Tensor._wrap(np.bincount(pos, minlength=bins).astype(a.dtype))


# --------------------------------------------------------------------------
# in-place forms and in-place random fills


def _inplace_of(fn):
    def method(self, *args, **kwargs):
        return _methods._inplace(self, lambda s, *a: fn(s, *a, **kwargs), *args)

    method.__name__ = fn.__name__ + "_"
    method.__doc__ = f"In-place :func:`{fn.__name__}` (writes into ``self``; returns it)."
    return method


def _random_fill(name, draw):
    """An in-place fill with ``draw(rng, shape, dtype)`` (the tensor keeps its
    place in the graph with a zero gradient, grad_fn ``name``)."""

    def fill(self, rng):
        values = np.asarray(draw(rng, self._data.shape, self._data.dtype))
        return _methods._inplace(
            self, lambda s: _composite(name, _methods._overwrite, [s], s,
                                       values.astype(self._data.dtype)), reads_self=False)

    return fill


def _gen(generator):
    return (generator or _creation.default_generator)._rng


def uniform_(self, from_=0, to=1, *, generator=None, **kwargs):
    """Fill with samples of the uniform distribution on ``[from, to)``."""
    from_ = kwargs.pop("from", from_)
    return _random_fill("UniformBackward0", lambda r, s, dt: r.uniform(from_, to, s))(
        self, _gen(generator))


def normal_(self, mean=0, std=1, *, generator=None):
    """Fill with samples of the normal distribution ``N(mean, std**2)``.

    Raises
    ------
    RuntimeError
        For ``std < 0``.
    """
    if std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {std}")
    return _random_fill("NormalBackward0", lambda r, s, dt: r.normal(mean, std, s))(
        self, _gen(generator))


def bernoulli_(self, p=0.5, *, generator=None):
    """Fill with 0/1 samples, 1 with probability ``p`` (a number or a tensor
    broadcast to ``self``).

    Raises
    ------
    RuntimeError
        For a number ``p`` outside ``[0, 1]``.
    """
    pv = _value(p) if isinstance(p, Tensor) else p
    if not isinstance(p, Tensor) and not 0 <= p <= 1:
        raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={p}")
    return _random_fill(
        "BernoulliBackward2" if not isinstance(p, Tensor) else "BernoulliBackward1",
        lambda r, s, dt: r.random(s) < np.broadcast_to(pv, s))(self, _gen(generator))


def exponential_(self, lambd=1, *, generator=None):
    """Fill with samples of the exponential distribution of rate ``lambd``.

    Raises
    ------
    RuntimeError
        For ``lambd <= 0``.
    """
    if not lambd > 0:
        raise RuntimeError(
            f"exponential_ expects lambda > 0.0, but found lambda={lambd}")
    return _random_fill("ExponentialBackward0",
                        lambda r, s, dt: r.exponential(1.0 / lambd, s))(self, _gen(generator))


def geometric_(self, p, *, generator=None):
    """Fill with samples of the geometric distribution on ``{1, 2, ...}`` with
    success probability ``p``.

    Raises
    ------
    RuntimeError
        For ``p`` outside ``(0, 1)``.
    """
    if not 0 < p < 1:
        raise RuntimeError(f"geometric_ expects p to be in (0, 1), but got p={p}")
    return _random_fill("GeometricBackward0", lambda r, s, dt: r.geometric(p, s))(
        self, _gen(generator))


def log_normal_(self, mean=1, std=2, *, generator=None):
    """Fill with samples ``exp(N(mean, std**2))``.

    Raises
    ------
    RuntimeError
        For ``std <= 0``.
    """
    if not std > 0:
        raise RuntimeError(f"log_normal_ expects std > 0.0, but found std={std}")
    return _random_fill("LogNormalBackward0", lambda r, s, dt: r.lognormal(mean, std, s))(
        self, _gen(generator))


def cauchy_(self, median=0, sigma=1, *, generator=None):
    """Fill with samples of the Cauchy distribution ``median + sigma * tan(pi * (u - 1/2))``.

    Raises
    ------
    RuntimeError
        For ``sigma <= 0``.
    """
    if not sigma > 0:
        raise RuntimeError(f"cauchy_ expects sigma > 0.0, but found sigma={sigma}")
    return _random_fill("CauchyBackward0",
                        lambda r, s, dt: median + sigma * r.standard_cauchy(s))(
        self, _gen(generator))


def _random_bounds(dt):
    dt = np.dtype(dt)
    if dt.kind == "f":
        return 0, 2 ** {2: 11, 4: 24, 8: 53}[dt.itemsize] + 1
    if dt.kind == "b":
        return 0, 2
    return 0, int(np.iinfo(dt).max) + 1


def random_(self, from_=0, to=None, *, generator=None, **kwargs):
    """Fill with integers uniform on ``[from, to - 1]``; ``random_(to)`` is
    ``[0, to - 1]``; with no bounds ``[0, 2**mantissa]`` for floats and
    ``[0, max]`` for integers.

    Raises
    ------
    RuntimeError
        For ``from >= to``.
    """
    from_ = kwargs.pop("from", from_)
    dt = self._data.dtype
    if to is None and from_ == 0 and "from" not in kwargs:
        lo, hi = _random_bounds(dt)
    elif to is None:
        lo, hi = 0, int(from_)
    else:
        lo, hi = int(from_), int(to)
    if lo >= hi:
        raise RuntimeError(
            f"random_ expects 'from' to be less than 'to', but got from={lo} >= to={hi}")
    return _random_fill("RandomBackward0",
                        lambda r, s, dt_: r.integers(lo, hi, s, dtype=np.int64))(
        self, _gen(generator))


_RANDOM_METHODS = {"uniform_": uniform_, "normal_": normal_, "bernoulli_": bernoulli_,
                   "exponential_": exponential_, "geometric_": geometric_,
                   "log_normal_": log_normal_, "cauchy_": cauchy_, "random_": random_}

_OUT_OF_PLACE = ("scatter", "scatter_add", "scatter_reduce", "index_add", "index_copy",
                 "index_fill", "masked_select", "masked_scatter", "take_along_dim", "unique",
                 "unique_consecutive", "median", "nanmedian", "kthvalue", "mode", "cummax",
                 "cummin", "logcumsumexp", "nanmean", "histc")
_IN_PLACE = ("scatter", "scatter_add", "scatter_reduce", "index_add", "index_copy",
             "index_fill", "masked_scatter")


def install():
    g = globals()
    for name in _OUT_OF_PLACE:
        setattr(Tensor, name, g[name])
    for name in _IN_PLACE:
        setattr(Tensor, name + "_", _inplace_of(g[name]))
    for name, fn in _RANDOM_METHODS.items():
        setattr(Tensor, name, fn)


install()

for _name in ("scatter_", "scatter_add_", "scatter_reduce_", "index_add_", "index_copy_",
              "index_fill_", "masked_scatter_"):
    def _fn(input, *args, _name=_name, **kwargs):
        return getattr(input, _name)(*args, **kwargs)

    _fn.__name__ = _name
    _fn.__doc__ = f"``input.{_name}(...)``: the in-place operation as a function."
    globals()[_name] = _fn
del _name, _fn
