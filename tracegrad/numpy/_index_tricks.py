"""Index helpers of ``tracegrad.numpy``: ``r_``/``c_``, ``ix_``, grids
(``meshgrid``, ``mgrid``, ``ogrid``, ``indices``), triangle and diagonal
indices, ``unravel_index``/``ravel_multi_index``, and the selecting
functions ``select``, ``piecewise``, ``choose``, ``compress``, ``extract``.

Functions whose results are integer positions (``indices``,
``tril_indices``, ``unravel_index``, ...) compute them with NumPy on
concrete values and raise a TypeError naming themselves when a transform has
no concrete value (under ``vmap``).  The others are composites of existing
primitives and differentiate in the arrays they select from.
"""
import numpy as np

from ..core import Tracer, concrete_value
from ..primitives import ops
from ._array_type import array_result
from ._core import _array, arg, result_type
from ._dispatch import implements
from ._join import concatenate
from ._selection import take
from ._shape import broadcast_arrays, broadcast_to, ravel, reshape, transpose

__all__ = [
    "r_", "c_", "s_", "index_exp", "mgrid", "ogrid", "ix_", "meshgrid", "indices",
    "tril_indices", "triu_indices", "tril_indices_from", "triu_indices_from", "diag_indices",
    "diag_indices_from", "unravel_index", "ravel_multi_index", "select", "piecewise", "choose",
    "compress", "extract",
]

# NumPy's own objects: they build slices and concrete grids, never arrays of data
s_ = np.s_
index_exp = np.index_exp
mgrid = np.mgrid
ogrid = np.ogrid


def _concrete(x, name, what="its input"):
    """The concrete value of ``x``, or a TypeError naming ``name``."""
    if not isinstance(x, Tracer):
        return np.asarray(x)
    try:
        return np.asarray(concrete_value(x))
    except Exception as e:  # a vmap-batched value has none
        raise TypeError(
            f"tracegrad.numpy.{name} needs the concrete value of {what} (its result is "
            f"integer positions or its shape depends on it), which this transform does "
            f"not have: {e}"
        ) from None


# --------------------------------------------------------------------------
# r_ and c_


class _Concatenator:
    """``r_[...]`` / ``c_[...]``: join arrays, scalars and slices along an axis."""

    def __init__(self, name, axis, ndmin, trans1d):
        self._name, self._axis, self._ndmin, self._trans1d = name, axis, ndmin, trans1d

    def __len__(self):
        return 0

    def __repr__(self):
        return f"tracegrad.numpy.{self._name}"

    def __getitem__(self, key):
        items = key if isinstance(key, tuple) else (key,)
        axis, ndmin, trans1d = self._axis, self._ndmin, self._trans1d
        pieces, scalars, arrays = [], [], []
        for k, item in enumerate(items):
            if isinstance(item, str):
                if k != 0:
                    raise ValueError("string directives must be the first index item")
                if item in ("r", "c"):
                    raise ValueError(f"{self._name}: matrix directives 'r'/'c' are not "
                                     "supported (numpy.matrix is not differentiable)")
                try:
                    vals = [int(v) for v in item.split(",")]
                except ValueError:
                    raise ValueError(f"unknown special directive {item!r}") from None
                axis = vals[0]
                if len(vals) > 1:
                    ndmin = vals[1]
                if len(vals) > 2:
                    trans1d = vals[2]
                continue
            if isinstance(item, slice):
                step = 1 if item.step is None else item.step
                start = 0 if item.start is None else item.start
                if isinstance(step, complex):
                    piece = np.linspace(start, item.stop, int(abs(step)))
                else:
                    piece = np.arange(start, item.stop, step)
                pieces.append(self._upgrade(piece, ndmin, trans1d))
                arrays.append(pieces[-1])
                continue
            if isinstance(item, (int, float, bool, complex)) and not isinstance(item, Tracer):
                scalars.append(item)
                pieces.append(self._upgrade(np.array(item), ndmin, trans1d))
                continue
            a = _array(item)
            piece = self._upgrade(a, ndmin, trans1d)
            pieces.append(piece)
            arrays.append(piece)
        if not pieces:
            return np.array([])
        dt = result_type(*arrays, *scalars) if arrays else np.result_type(*scalars)
        pieces = [p if p.dtype == dt else (ops.convert_element_type(p, dt) if isinstance(
            p, Tracer) else p.astype(dt)) for p in pieces]
        return concatenate(pieces, axis=axis)

    @staticmethod
    def _upgrade(a, ndmin, trans1d):
        nd = a.ndim
        if nd >= ndmin:
            return a
        new = reshape(a, (1,) * (ndmin - nd) + tuple(a.shape))
        if trans1d != -1:
            k2 = ndmin - nd
            k1 = trans1d
            if k1 < 0:
                k1 += k2 + 1
            defaxes = list(range(ndmin))
            axes = defaxes[:k1] + defaxes[k2:] + defaxes[k1:k2]
            if axes != defaxes:
                new = transpose(new, tuple(axes))
        return new


r_ = _Concatenator("r_", 0, 1, -1)
r_.__doc__ = """Join along the first axis: ``r_[a, b, 0:3, 5.0]`` (``numpy.r_``).

Parameters
----------
key : arrays, tracers, scalars, slices, and an optional first string
    Slices become ``arange`` (or ``linspace`` for a complex step ``5j``);
    a first string ``"axis[,ndmin[,trans1d]]"`` sets NumPy's options.

Returns
-------
array or tracer
    NumPy's result dtype; differentiable in the traced pieces.

Raises
------
ValueError
    For the matrix directives ``"r"``/``"c"`` or an unknown directive.
"""
c_ = _Concatenator("c_", -1, 2, 0)
c_.__doc__ = """Join along the last axis, 1-D pieces as columns (``numpy.c_``).

Parameters
----------
key : arrays, tracers, scalars, slices
    As for :data:`r_`.

Returns
-------
array or tracer
    At least 2-D; differentiable in the traced pieces.
"""


# --------------------------------------------------------------------------
# grids


@implements(np.ix_)
def ix_(*args):
    """Open mesh from 1-D sequences, for indexing ``a[ix_(rows, cols)]``.

    Parameters
    ----------
    *args : 1-D array_like or tracer
        Integer or boolean positions (booleans become their ``nonzero``),
        or any 1-D values (traced ones stay traced).

    Returns
    -------
    tuple of arrays or tracers
        The ``k``-th of ``N`` has shape ``(1, ..., n_k, ..., 1)``.

    Raises
    ------
    ValueError
        If an argument is not 1-D.
    """
    out = []
    n = len(args)
    for k, a in enumerate(args):
        a = _array(a)
        if a.ndim != 1:
            raise ValueError("Cross index must be 1 dimensional")
        if not isinstance(a, Tracer) and a.dtype == np.bool_:
            a = np.nonzero(a)[0]
        out.append(reshape(a, (1,) * k + (a.shape[0],) + (1,) * (n - k - 1)))
    return tuple(out)


@implements(np.meshgrid)
def meshgrid(*xi, copy=True, sparse=False, indexing="xy"):
    """Coordinate arrays from coordinate vectors (``numpy.meshgrid``).

    Parameters
    ----------
    *xi : array_like or tracer
        Flattened coordinate vectors.
    copy : bool
        Ignored (results never alias inputs under transforms).
    sparse : bool
        Return broadcastable shapes instead of full grids.
    indexing : {"xy", "ij"}
        Cartesian (first two axes swapped) or matrix indexing.

    Returns
    -------
    tuple of arrays or tracers
        One per input; differentiable (the derivative sums over the copies).

    Raises
    ------
    ValueError
        If ``indexing`` is not "xy" or "ij".
    """
    if indexing not in ("xy", "ij"):
        raise ValueError("Valid values for `indexing` are 'xy' and 'ij'.")
    n = len(xi)
    out = []
    for k, x in enumerate(xi):
        x = ravel(_array(x))
        pos = k
        if indexing == "xy" and n > 1 and k < 2:
            pos = 1 - k
        out.append(reshape(x, (1,) * pos + (-1,) + (1,) * (n - pos - 1)))
    if not sparse and n > 1:
        out = list(broadcast_arrays(*out))
    return tuple(out)


@implements(np.indices)
def indices(dimensions, dtype=int, sparse=False):
    """The grid of indices of an array of shape ``dimensions`` (``numpy.indices``).

    Parameters
    ----------
    dimensions : sequence of ints
    dtype : dtype
    sparse : bool

    Returns
    -------
    ndarray (or tuple of them when ``sparse``)
        Concrete integers, as NumPy.
    """
    return np.indices(tuple(int(d) for d in dimensions), dtype=dtype, sparse=sparse)


@array_result
def tril_indices(n, k=0, m=None):
    """Row and column indices of the lower triangle of an ``(n, m)`` array.

    Parameters
    ----------
    n, m : int
    k : int
        Diagonal offset.

    Returns
    -------
    tuple of two int64 ndarrays
    """
    return np.tril_indices(n, k, m)


@array_result
def triu_indices(n, k=0, m=None):
    """Row and column indices of the upper triangle of an ``(n, m)`` array.

    Parameters
    ----------
    n, m : int
    k : int
        Diagonal offset.

    Returns
    -------
    tuple of two int64 ndarrays
    """
    return np.triu_indices(n, k, m)


def _shape2(arr, name):
    shape = tuple(np.shape(arr)) if not isinstance(arr, Tracer) else tuple(arr.shape)
    if len(shape) != 2:
        raise ValueError("input array must be 2-d")
    return shape


@implements(np.tril_indices_from)
def tril_indices_from(arr, k=0):
    """:func:`tril_indices` for the shape of the 2-D ``arr`` (read for its shape only).

    Parameters
    ----------
    arr : array_like or tracer, 2-D
    k : int

    Returns
    -------
    tuple of two int64 ndarrays

    Raises
    ------
    ValueError
        If ``arr`` is not 2-D.
    """
    n, m = _shape2(arr, "tril_indices_from")
    return np.tril_indices(n, k, m)


@implements(np.triu_indices_from)
def triu_indices_from(arr, k=0):
    """:func:`triu_indices` for the shape of the 2-D ``arr`` (read for its shape only).

    Parameters
    ----------
    arr : array_like or tracer, 2-D
    k : int

    Returns
    -------
    tuple of two int64 ndarrays

    Raises
    ------
    ValueError
        If ``arr`` is not 2-D.
    """
    n, m = _shape2(arr, "triu_indices_from")
    return np.triu_indices(n, k, m)


@array_result
def diag_indices(n, ndim=2):
    """Indices of the main diagonal of an ``(n,) * ndim`` array.

    Parameters
    ----------
    n, ndim : int

    Returns
    -------
    tuple of ``ndim`` int64 ndarrays
    """
    return np.diag_indices(n, ndim)


@implements(np.diag_indices_from)
def diag_indices_from(arr):
    """:func:`diag_indices` for ``arr``, whose axes must have equal lengths.

    Parameters
    ----------
    arr : array_like or tracer, at least 2-D

    Returns
    -------
    tuple of int64 ndarrays

    Raises
    ------
    ValueError
        If ``arr`` has fewer than two dimensions or unequal lengths.
    """
    shape = tuple(arr.shape) if isinstance(arr, Tracer) else np.shape(arr)
    if len(shape) < 2:
        raise ValueError("input array must be at least 2-d")
    if len(set(shape)) != 1:
        raise ValueError("All dimensions of input must be of equal length")
    return np.diag_indices(shape[0], len(shape))


@implements(np.unravel_index)
def unravel_index(indices, shape, order="C"):
    """Flat indices to a tuple of coordinate arrays (``numpy.unravel_index``).

    Parameters
    ----------
    indices : int array_like or tracer
        Read for its concrete value.
    shape : tuple of ints
    order : {"C", "F"}

    Returns
    -------
    tuple of int64 ndarrays

    Raises
    ------
    ValueError
        For an index out of bounds.
    TypeError
        For non-integer indices, or under a transform without concrete values.
    """
    return np.unravel_index(_concrete(indices, "unravel_index", "indices"), shape, order=order)


@implements(np.ravel_multi_index)
def ravel_multi_index(multi_index, dims, mode="raise", order="C"):
    """Coordinate arrays to flat indices (``numpy.ravel_multi_index``).

    Parameters
    ----------
    multi_index : tuple of int array_like or tracers
        Read for their concrete values.
    dims : tuple of ints
    mode : {"raise", "wrap", "clip"} or a tuple of them
    order : {"C", "F"}

    Returns
    -------
    int64 ndarray

    Raises
    ------
    ValueError
        For an index out of bounds with ``mode="raise"``.
    TypeError
        Under a transform without concrete values.
    """
    idx = tuple(_concrete(m, "ravel_multi_index", "multi_index") for m in multi_index)
    return np.ravel_multi_index(idx, dims, mode=mode, order=order)


# --------------------------------------------------------------------------
# selecting


@implements(np.select)
def select(condlist, choicelist, default=0):
    """The element of the first true condition's choice (``numpy.select``).

    Parameters
    ----------
    condlist : list of bool arrays or tracers
    choicelist : list of array_like or tracers
        Same length as ``condlist``; all broadcast together.
    default : scalar or array_like or tracer
        Where no condition holds.

    Returns
    -------
    array or tracer
        The broadcast shape; NumPy's result dtype of the choices and default.
        The derivative flows into the selected choice.

    Raises
    ------
    ValueError
        If the lists differ in length or are empty.
    TypeError
        If a condition is not boolean.
    """
    if len(condlist) != len(choicelist):
        raise ValueError("list of cases must be same length as list of conditions")
    if len(choicelist) == 0:
        raise ValueError("select with an empty condition list is not possible")
    choices = [arg(c) for c in choicelist]
    conds = [_array(c) for c in condlist]
    for i, c in enumerate(conds):
        if np.dtype(c.dtype) != np.bool_:
            raise TypeError(f"invalid entry {i} in condlist: should be boolean ndarray")
    dt = result_type(*choices, arg(default))

    def cast(v):
        v = _array(v)
        return v if v.dtype == dt else (ops.convert_element_type(v, dt) if isinstance(v, Tracer)
                                        else np.asarray(v).astype(dt))

    out = cast(default)
    for c, v in zip(reversed(conds), reversed(choices)):
        out = ops.select(c, cast(v), out)
    if not isinstance(out, Tracer):
        shape = np.broadcast_shapes(*[np.shape(c) for c in conds], *[np.shape(v) for v in choices],
                                    np.shape(default))
        out = np.broadcast_to(out, shape).copy()
    else:
        shape = np.broadcast_shapes(*[tuple(np.shape(c)) for c in conds],
                                    *[tuple(np.shape(v)) for v in choices], np.shape(default))
        if tuple(out.shape) != shape:
            out = broadcast_to(out, shape)
    return out


@implements(np.piecewise)
def piecewise(x, condlist, funclist, *args, **kw):
    """Piecewise-defined function of ``x`` (``numpy.piecewise``).

    Parameters
    ----------
    x : array_like or tracer
    condlist : bool array or list of them (arrays or tracers)
        Later conditions take precedence where several hold, as in NumPy.
    funclist : list of callables or scalars
        One per condition, plus optionally one more for where none holds
        (otherwise 0 there).  Each callable gets ``x`` and ``*args, **kw``.
    *args, **kw
        Passed to the callables.

    Returns
    -------
    array or tracer
        ``x``'s shape and dtype; differentiable through the chosen pieces.

    Raises
    ------
    ValueError
        If ``funclist`` has a length other than ``len(condlist)`` or one more.

    Notes
    -----
    Each callable is applied to all of ``x`` (not only to the elements its
    condition selects, as NumPy does), so that the result works under
    every transform.  Guard a piece that is undefined elsewhere (the
    double-``where`` idiom of :func:`tracegrad.numpy.where`): its NaN or
    inf values are discarded, but a NaN derivative would not be.
    """
    x = _array(x)
    if isinstance(condlist, (bool, np.bool_)) or isinstance(condlist, (np.ndarray, Tracer)) and (
            np.ndim(condlist) == 0 or x.ndim != 0 and np.ndim(condlist) == x.ndim):
        condlist = [condlist]
    elif not isinstance(condlist[0], (list, np.ndarray, Tracer)) and x.ndim != 0:
        condlist = [condlist]
    conds = [_array(c) for c in condlist]
    n = len(conds)
    if len(funclist) not in (n, n + 1):
        raise ValueError(f"with {n} condition(s), either {n} or {n + 1} functions are expected")
    if len(funclist) == n + 1:
        anyc = conds[0]
        for c in conds[1:]:
            anyc = ops.logical_or(anyc, c)
        conds.append(ops.logical_not(anyc))

    def value(f):
        v = f(x, *args, **kw) if callable(f) else f
        v = arg(v)
        dt = x.dtype
        if isinstance(v, Tracer):
            return v if v.dtype == dt else ops.convert_element_type(v, dt)
        return np.asarray(v).astype(dt)

    out = ops.zeros_like(x) if isinstance(x, Tracer) else np.zeros_like(x)
    for c, f in zip(conds, funclist):
        out = ops.select(c, value(f), out)
    return out


@implements(np.choose)
def choose(a, choices, out=None, mode="raise"):
    """``choices[a[i]][i]`` for every position ``i`` (``numpy.choose``).

    Parameters
    ----------
    a : int array_like or tracer
        Which choice, broadcast against the choices.
    choices : sequence of array_like or tracers
    mode : {"raise", "wrap", "clip"}
        Out-of-range indices raise (when ``a`` is concrete), wrap around or
        are clipped.

    Returns
    -------
    array or tracer
        The broadcast shape; the choices' result dtype.  The derivative
        flows into the chosen entries.

    Raises
    ------
    ValueError
        For an index out of range with ``mode="raise"``, or a bad mode.
    TypeError
        If ``out`` is given or ``a`` is not integer.
    """
    if out is not None:
        raise TypeError("tracegrad.numpy.choose does not support out=")
    a = _array(a)
    if np.dtype(a.dtype).kind not in "iub":
        raise TypeError("choose needs integer indices a, got dtype " + str(a.dtype))
    choices = [arg(c) for c in choices]
    n = len(choices)
    if mode == "raise":
        try:
            av = concrete_value(a) if isinstance(a, Tracer) else a
        except Exception:  # under vmap: no check possible
            av = None
        if av is not None and np.size(av) and (np.min(av) < 0 or np.max(av) >= n):
            raise ValueError("invalid entry in choice array")
    elif mode == "wrap":
        a = ops.mod(a, n)
    elif mode == "clip":
        a = ops.clip(a, 0, n - 1)
    else:
        raise ValueError(f"clipmode must be one of 'clip', 'raise', or 'wrap' (got {mode!r})")
    dt = result_type(*choices)
    out_ = None
    for i in reversed(range(n)):
        c = _array(choices[i])
        c = c if c.dtype == dt else (ops.convert_element_type(c, dt) if isinstance(c, Tracer)
                                     else c.astype(dt))
        out_ = c if out_ is None else ops.select(ops.eq(a, i), c, out_)
    shape = np.broadcast_shapes(tuple(np.shape(a)), *[tuple(np.shape(c)) for c in choices])
    if tuple(np.shape(out_)) != shape:
        out_ = broadcast_to(out_, shape)
    return out_


@implements(np.compress)
def compress(condition, a, axis=None, out=None):
    """The slices of ``a`` along ``axis`` where ``condition`` is true (``numpy.compress``).

    Parameters
    ----------
    condition : 1-D bool array_like
        Read for its concrete value; may be shorter than the axis.
    a : array_like or tracer
    axis : int, optional
        None: over the flattened array.

    Returns
    -------
    array or tracer
        Differentiable in ``a`` (a ``take``).

    Raises
    ------
    ValueError
        If ``condition`` is not 1-D or longer than the axis.
    TypeError
        If ``out`` is given, or under a transform without concrete values.
    """
    if out is not None:
        raise TypeError("tracegrad.numpy.compress does not support out=")
    c = _concrete(condition, "compress", "condition")
    if c.ndim != 1:
        raise ValueError("condition must be a 1-d array")
    a = _array(a)
    if axis is None:
        a, axis = ravel(a), 0
    n = a.shape[axis]
    if c.shape[0] > n:
        raise IndexError(f"index {c.shape[0] - 1} is out of bounds for axis {axis} with size {n}")
    return take(a, np.flatnonzero(c), axis=axis)


@implements(np.extract)
def extract(condition, arr):
    """The elements of ``arr`` where ``condition`` is true, flattened (``numpy.extract``).

    Parameters
    ----------
    condition : array_like or tracer of bool (or nonzero values)
        Read for its concrete value.
    arr : array_like or tracer
        Same size as ``condition``.

    Returns
    -------
    1-D array or tracer
        Differentiable in ``arr``.

    Raises
    ------
    TypeError
        Under a transform without concrete values.
    """
    c = _concrete(condition, "extract", "condition")
    return take(ravel(_array(arr)), np.flatnonzero(np.ravel(c)))


@array_result
def mask_indices(n, mask_func, k=0):
    """Indices where ``mask_func(ones((n, n)), k)`` is non-zero (``numpy.mask_indices``).

    Parameters
    ----------
    n : int
    mask_func : callable
        Such as ``tracegrad.numpy.triu``.
    k : int

    Returns
    -------
    tuple of two int64 ndarrays
    """
    m = _concrete(mask_func(np.ones((n, n), dtype=int), k), "mask_indices", "the mask")
    return np.nonzero(m != 0)


__all__ += ["mask_indices"]
