"""Rearranging arrays and applying functions over them: ``copy``, ``block``,
``unstack``, ``rot90``, ``rollaxis``, ``hsplit``/``vsplit``/``dsplit``,
``insert``, ``delete``, ``resize``, ``trim_zeros``, the creation functions
``logspace``, ``geomspace``, ``tri``, and ``apply_along_axis``,
``apply_over_axes``, ``vectorize``.

Each is a composite of existing functions (reshape, transpose, flip, take,
concatenate, ...), so it differentiates in its array arguments to any order.
Positions (``insert``/``delete`` indices, ``trim_zeros``'s cut) are computed
by NumPy on concrete values.
"""
import numpy as np
from numpy.lib.array_utils import normalize_axis_index

from ..core import Tracer, concrete_value, is_concrete
from ..primitives import ops
from ..transforms import vmap as _vmap
from ._array_type import array_result
from ._core import _array, arg, linspace
from ._dispatch import implements
from ._diagonal import diag
from ._flip_pad import flip
from ._indexing import at
from ._join import array_split, concatenate, stack
from ._selection import take
from ._elementwise import where
from ._shape import broadcast_to, expand_dims, moveaxis, ravel, reshape, transpose

__all__ = [  # more below
    "copy", "block", "unstack", "rot90", "rollaxis", "hsplit", "vsplit", "dsplit", "insert",
    "delete", "resize", "trim_zeros", "logspace", "geomspace", "tri", "apply_along_axis",
    "apply_over_axes", "vectorize", "frompyfunc",
]


def _concrete(x, name, what="its input"):
    """The concrete value of ``x``, or a TypeError naming ``name``."""
    if not isinstance(x, Tracer):
        return np.asarray(x)
    try:
        return np.asarray(concrete_value(x))
    except Exception as e:  # a vmap-batched value has none
        raise TypeError(
            f"tracegrad.numpy.{name} needs the concrete value of {what} (the result's "
            f"shape depends on it), which this transform does not have: {e}"
        ) from None


@implements(np.copy)
def copy(a, order="K", subok=False):
    """A copy of ``a`` (``numpy.copy``).

    Parameters
    ----------
    a : array_like or tracer
    order, subok : optional
        Accepted for NumPy compatibility.

    Returns
    -------
    array or tracer
        A new ndarray for plain input; a tracer is returned as is (traced
        values are immutable, so a copy is never observable).  Derivative 1.
    """
    a = arg(a)
    if isinstance(a, Tracer):
        return a
    return np.array(a, copy=True)


def _block_depth(x):
    depth = 0
    while isinstance(x, list):
        if not x:
            raise ValueError("List at arrays cannot be empty")
        x = x[0]
        depth += 1
    return depth


def _block_leaves(x, out):
    if isinstance(x, list):
        for y in x:
            _block_leaves(y, out)
    elif isinstance(x, tuple):
        raise TypeError("block does not accept tuples; use lists of arrays")
    else:
        out.append(_array(x))
    return out


@implements(np.block)
def block(arrays):
    """Assemble an array from nested lists of blocks (``numpy.block``).

    Parameters
    ----------
    arrays : nested lists of array_like or tracers
        The innermost lists are joined along the last axis, the next ones
        along the second-to-last, and so on; blocks are first given leading
        length-1 axes up to the common rank.

    Returns
    -------
    array or tracer
        Differentiable in every block.

    Raises
    ------
    ValueError
        For an empty list, uneven nesting or mismatched block shapes.
    TypeError
        For tuples (NumPy's rule).
    """
    depth = _block_depth(arrays)
    leaves = _block_leaves(arrays, [])
    ndim = max([depth] + [leaf.ndim for leaf in leaves])

    def build(x, level):
        if not isinstance(x, list):
            if level != depth:
                raise ValueError("List depths are mismatched")
            x = _array(x)
            return reshape(x, (1,) * (ndim - x.ndim) + tuple(x.shape)) if x.ndim < ndim else x
        parts = [build(y, level + 1) for y in x]
        return concatenate(parts, axis=-(depth - level))

    if depth == 0:
        out = _array(arrays)
        return out if isinstance(out, Tracer) else np.array(out, copy=True)
    return build(arrays, 0)


@implements(np.unstack)
def unstack(x, /, *, axis=0):
    """Split ``x`` along ``axis`` into a tuple of its slices (``numpy.unstack``).

    Parameters
    ----------
    x : array_like or tracer, at least 1-D
    axis : int

    Returns
    -------
    tuple of arrays or tracers
        ``x.shape[axis]`` of them, each without ``axis``.

    Raises
    ------
    ValueError
        For 0-d input.
    """
    x = _array(x)
    if x.ndim == 0:
        raise ValueError("Input array must be at least 1-d.")
    x = moveaxis(x, normalize_axis_index(axis, x.ndim), 0)
    return tuple(x[i] for i in range(x.shape[0]))


@implements(np.rot90)
def rot90(m, k=1, axes=(0, 1)):
    """Rotate by 90 degrees ``k`` times in the plane of ``axes`` (``numpy.rot90``).

    Parameters
    ----------
    m : array_like or tracer, at least 2-D
    k : int
        Number of counter-clockwise rotations (negative: clockwise).
    axes : pair of ints
        Distinct axes; rotation goes from the first towards the second.

    Returns
    -------
    array or tracer
        A permutation of ``m``'s elements (derivative: the inverse rotation).

    Raises
    ------
    ValueError
        If ``axes`` is not two distinct valid axes.
    """
    m = _array(m)
    axes = tuple(axes)
    if len(axes) != 2:
        raise ValueError("len(axes) must be 2.")
    if axes[0] == axes[1] or abs(axes[0] - axes[1]) == m.ndim:
        raise ValueError("Axes must be different.")
    if axes[0] >= m.ndim or axes[0] < -m.ndim or axes[1] >= m.ndim or axes[1] < -m.ndim:
        raise ValueError(f"Axes={axes} out of range for array of ndim={m.ndim}.")
    k %= 4
    if k == 0:
        return m if isinstance(m, Tracer) else m[...]
    if k == 2:
        return flip(flip(m, axes[0]), axes[1])
    perm = list(range(m.ndim))
    a0, a1 = axes[0] % m.ndim, axes[1] % m.ndim
    perm[a0], perm[a1] = perm[a1], perm[a0]
    if k == 1:
        return transpose(flip(m, axes[1]), tuple(perm))
    return flip(transpose(m, tuple(perm)), axes[1])


@implements(np.rollaxis)
def rollaxis(a, axis, start=0):
    """Move ``axis`` to before position ``start`` (``numpy.rollaxis``; prefer ``moveaxis``).

    Parameters
    ----------
    a : array_like or tracer
    axis : int
    start : int
        ``0 <= start <= a.ndim`` after normalizing negatives.

    Returns
    -------
    array or tracer
        A transpose of ``a``.

    Raises
    ------
    numpy.exceptions.AxisError
        If ``axis`` or ``start`` is out of range.
    """
    a = _array(a)
    n = a.ndim
    axis = normalize_axis_index(axis, n)
    if start < 0:
        start += n
    if not 0 <= start < n + 1:
        raise np.exceptions.AxisError(f"'start' arg requires {-n} <= start < {n + 1}, but {start} was passed in")
    if axis < start:
        start -= 1
    if axis == start:
        return a if isinstance(a, Tracer) else a[...]
    return moveaxis(a, axis, start)


def _split_along(name, ary, indices_or_sections, axis, min_ndim):
    a = _array(ary)
    if a.ndim < min_ndim:
        raise ValueError(f"{name} only works on arrays of {min_ndim} or more dimensions")
    if isinstance(indices_or_sections, (int, np.integer)):
        n = a.shape[axis]
        if n % int(indices_or_sections):
            raise ValueError("array split does not result in an equal division")
    return array_split(a, indices_or_sections, axis=axis)


@implements(np.hsplit)
def hsplit(ary, indices_or_sections):
    """Split along the second axis (the first for 1-D input), ``numpy.hsplit``.

    Parameters
    ----------
    ary : array_like or tracer, at least 1-D
    indices_or_sections : int or sequence of ints
        Equal sections, or the split positions.

    Returns
    -------
    list of arrays or tracers

    Raises
    ------
    ValueError
        For 0-d input or an unequal division.
    """
    a = _array(ary)
    if a.ndim == 0:
        raise ValueError("hsplit only works on arrays of 1 or more dimensions")
    return _split_along("hsplit", a, indices_or_sections, 1 if a.ndim > 1 else 0, 1)


@implements(np.vsplit)
def vsplit(ary, indices_or_sections):
    """Split along the first axis of an at least 2-D array (``numpy.vsplit``).

    Parameters
    ----------
    ary : array_like or tracer, at least 2-D
    indices_or_sections : int or sequence of ints

    Returns
    -------
    list of arrays or tracers

    Raises
    ------
    ValueError
        For input of fewer than 2 dimensions or an unequal division.
    """
    return _split_along("vsplit", ary, indices_or_sections, 0, 2)


@implements(np.dsplit)
def dsplit(ary, indices_or_sections):
    """Split along the third axis of an at least 3-D array (``numpy.dsplit``).

    Parameters
    ----------
    ary : array_like or tracer, at least 3-D
    indices_or_sections : int or sequence of ints

    Returns
    -------
    list of arrays or tracers

    Raises
    ------
    ValueError
        For input of fewer than 3 dimensions or an unequal division.
    """
    return _split_along("dsplit", ary, indices_or_sections, 2, 3)


def _cast(v, dt):
    if isinstance(v, Tracer):
        return v if v.dtype == dt else ops.convert_element_type(v, dt)
    return np.asarray(v).astype(dt)


@implements(np.insert)
def insert(arr, obj, values, axis=None):
    """Insert ``values`` before the positions ``obj`` along ``axis`` (``numpy.insert``).

    Parameters
    ----------
    arr : array_like or tracer
    obj : int, slice or sequence of ints
        Concrete positions.
    values : array_like or tracer
        Cast to ``arr``'s dtype and broadcast as NumPy does.
    axis : int, optional
        None: ``arr`` is flattened first.

    Returns
    -------
    array or tracer
        Differentiable in ``arr`` and ``values`` (a ``take`` of their
        concatenation, at positions NumPy's ``insert`` gives on an index
        vector).

    Raises
    ------
    IndexError
        For a position out of bounds.
    TypeError
        If ``obj`` is traced without a concrete value.
    """
    a = _array(arr)
    if axis is None:
        a, axis = ravel(a), 0
    axis = normalize_axis_index(axis, a.ndim)
    n = a.shape[axis]
    if isinstance(obj, slice):
        idx = np.arange(*obj.indices(n))
    else:
        idx = np.asarray(_concrete(obj, "insert", "obj"))
    v = _cast(_array(values), a.dtype)
    if idx.size == 1:
        v = reshape(v, (1,) * (a.ndim - v.ndim) + tuple(v.shape)) if v.ndim < a.ndim else v
        if idx.ndim == 0:
            v = moveaxis(v, 0, axis)
        numnew = v.shape[axis]
    else:
        numnew = idx.size
    shape = list(a.shape)
    shape[axis] = numnew
    v = broadcast_to(v, tuple(shape))
    tags = np.insert(np.arange(n), idx if idx.size != 1 else int(idx.reshape(())),
                     n + np.arange(numnew))
    if idx.size == 1 and numnew > 1:
        pos = int(idx.reshape(()))
        pos = pos + n if pos < 0 else pos
        if not 0 <= pos <= n:
            raise IndexError(f"index {int(idx.reshape(()))} is out of bounds for axis {axis} with size {n}")
        tags = np.concatenate([np.arange(pos), n + np.arange(numnew), np.arange(pos, n)])
    return take(concatenate([a, v], axis=axis), tags, axis=axis)


@implements(np.delete)
def delete(arr, obj, axis=None):
    """``arr`` without the entries at ``obj`` along ``axis`` (``numpy.delete``).

    Parameters
    ----------
    arr : array_like or tracer
    obj : int, slice, sequence of ints or bool mask
        Concrete.
    axis : int, optional
        None: ``arr`` is flattened first.

    Returns
    -------
    array or tracer
        Differentiable in ``arr``.

    Raises
    ------
    IndexError
        For a position out of bounds.
    """
    a = _array(arr)
    if axis is None:
        a, axis = ravel(a), 0
    axis = normalize_axis_index(axis, a.ndim)
    o = obj if isinstance(obj, slice) else _concrete(obj, "delete", "obj")
    keep = np.delete(np.arange(a.shape[axis]), o)
    return take(a, keep, axis=axis)


@implements(np.resize)
def resize(a, new_shape):
    """``a`` repeated cyclically to fill ``new_shape`` (``numpy.resize``).

    Parameters
    ----------
    a : array_like or tracer
    new_shape : int or tuple of ints

    Returns
    -------
    array or tracer
        Differentiable (each input element's derivative sums its copies);
        zeros for an empty ``a``.

    Raises
    ------
    ValueError
        For a negative size.
    """
    a = _array(a)
    shape = (new_shape,) if isinstance(new_shape, (int, np.integer)) else tuple(new_shape)
    if any(s < 0 for s in shape):
        raise ValueError("all elements of `new_shape` must be non-negative")
    flat = ravel(a)
    size = int(np.prod(shape, dtype=np.int64))
    n = flat.shape[0]
    if n == 0 or size == 0:
        return np.zeros(shape, dtype=a.dtype)
    return reshape(take(flat, np.arange(size) % n), shape)


@implements(np.trim_zeros)
def trim_zeros(filt, trim="fb", axis=None):
    """``filt`` without leading (``"f"``) and/or trailing (``"b"``) zeros.

    Parameters
    ----------
    filt : 1-D array_like or tracer
        Read for its concrete values (where the zeros are).
    trim : str
        Containing "f", "b" or both.
    axis : None
        Only the 1-D form is supported.

    Returns
    -------
    1-D array or tracer
        A slice of ``filt``; differentiable in the kept elements.

    Raises
    ------
    ValueError
        For an invalid ``trim``, or input that is not 1-D.
    TypeError
        Without a concrete value.
    """
    f = _array(filt)
    v = _concrete(f, "trim_zeros", "filt")
    if v.ndim != 1 or axis is not None:
        raise ValueError("tracegrad.numpy.trim_zeros supports 1-D input only")
    t = trim.lower()
    if not set(t) <= {"f", "b"}:
        raise ValueError(f"unexpected character(s) in `trim`: {trim!r}")
    nz = np.flatnonzero(v)
    if nz.size == 0:
        return f[0:0]
    start = nz[0] if "f" in t else 0
    stop = nz[-1] + 1 if "b" in t else v.size
    return f[int(start):int(stop)]


@implements(np.logspace)
def logspace(start, stop, num=50, endpoint=True, base=10.0, dtype=None, axis=0):
    """``base ** linspace(start, stop, num)`` (``numpy.logspace``).

    Parameters
    ----------
    start, stop : array_like or tracer
        Exponents; differentiable.
    num : int
    endpoint : bool
    base : float or array_like or tracer
    dtype : dtype, optional
    axis : int

    Returns
    -------
    array or tracer
    """
    y = linspace(start, stop, num=num, endpoint=endpoint, axis=axis)
    b = arg(base)
    if np.ndim(b) > 0:
        b = expand_dims(_array(b), axis)
    out = ops.pow(b, y)
    return out if dtype is None else _cast(out, np.dtype(dtype))


@implements(np.geomspace)
def geomspace(start, stop, num=50, endpoint=True, dtype=None, axis=0):
    """Numbers spaced evenly on a log scale from ``start`` to ``stop`` (``numpy.geomspace``).

    Parameters
    ----------
    start, stop : scalar or tracer
        Non-zero, of the same sign (real input).
    num : int
    endpoint : bool
    dtype : dtype, optional
    axis : int
        Only 0 is supported for scalar endpoints.

    Returns
    -------
    1-D array or tracer
        The ends are exactly ``start`` and ``stop`` (NumPy's rule);
        differentiable in both.

    Raises
    ------
    ValueError
        If ``start`` or ``stop`` is 0, or their signs differ.
    """
    s0, s1 = _array(start), _array(stop)
    if s0.ndim or s1.ndim:
        raise ValueError("tracegrad.numpy.geomspace supports scalar start and stop only")
    if is_concrete(s0) and is_concrete(s1):  # (staged or batched: not checked)
        c0, c1 = _concrete(s0, "geomspace", "start"), _concrete(s1, "geomspace", "stop")
        if c0 == 0 or c1 == 0:
            raise ValueError("Geometric sequence cannot include zero")
        if np.sign(c0) != np.sign(c1):
            raise ValueError("tracegrad.numpy.geomspace needs start and stop of the same sign "
                             "(the complex path NumPy takes is not supported)")
    dt = np.result_type(s0.dtype, s1.dtype, float)
    sign = _cast(ops.sign(s0), dt)  # (a traced sign: constant, so no derivative of its own)
    a0, a1 = _cast(ops.mul(s0, sign), dt), _cast(ops.mul(s1, sign), dt)
    out = logspace(ops.log10(a0), ops.log10(a1), num=num, endpoint=endpoint, base=10.0)
    if num > 0:
        parts = [reshape(a0, (1,))]
        mid_end = num - 1 if (num > 1 and endpoint) else num
        if mid_end > 1:
            parts.append(out[1:mid_end])
        if num > 1 and endpoint:
            parts.append(reshape(a1, (1,)))
        elif num > 1:
            parts.append(out[mid_end:])
        out = concatenate(parts) if len(parts) > 1 else parts[0]
    out = ops.mul(out, sign)
    return out if dtype is None else _cast(out, np.dtype(dtype))


@implements(np.tri)
def tri(N, M=None, k=0, dtype=float, *, like=None):
    """Ones at and below the ``k``-th diagonal, zeros above (``numpy.tri``).

    Parameters
    ----------
    N, M : int
    k : int
    dtype : dtype

    Returns
    -------
    ndarray, shape (N, M)
        Concrete (no inputs to differentiate).
    """
    return np.tri(N, M, k, dtype=dtype)


@implements(np.apply_along_axis)
def apply_along_axis(func1d, axis, arr, *args, **kwargs):
    """``func1d`` applied to every 1-D slice of ``arr`` along ``axis``.

    Parameters
    ----------
    func1d : callable
        Gets a 1-D array or tracer (and ``*args, **kwargs``); returns a
        scalar or an array of a fixed shape.
    axis : int
    arr : array_like or tracer

    Returns
    -------
    array or tracer
        ``arr``'s shape with ``axis`` replaced by the shape of ``func1d``'s
        result, as NumPy.  Differentiable through ``func1d``.

    Notes
    -----
    A Python loop over the slices, like NumPy's, so ``func1d`` may contain
    any Python code (tracegrad's ``vmap`` is the faster choice when it
    vectorizes).
    """
    a = _array(arr)
    axis = normalize_axis_index(axis, a.ndim)
    moved = moveaxis(a, axis, -1)
    outer = tuple(moved.shape[:-1])
    results = [arg(func1d(moved[ix], *args, **kwargs)) for ix in np.ndindex(*outer)]
    res = stack([_array(r) for r in results])
    res = reshape(res, outer + tuple(res.shape[1:]))
    nd = res.ndim - len(outer)
    perm = list(range(axis)) + list(range(len(outer), res.ndim)) + list(range(axis, len(outer)))
    return transpose(res, tuple(perm)) if nd and perm != list(range(res.ndim)) else res


@implements(np.apply_over_axes)
def apply_over_axes(func, a, axes):
    """``func(a, axis)`` over each of ``axes`` in turn, keeping the rank (``numpy.apply_over_axes``).

    Parameters
    ----------
    func : callable
        ``func(array, axis)`` returning an array of the same rank or one
        less (then the axis is put back with length 1).
    a : array_like or tracer
    axes : int or sequence of ints

    Returns
    -------
    array or tracer
        Same rank as ``a``.

    Raises
    ------
    ValueError
        If ``func`` changes the rank by more than one.
    """
    val = _array(a)
    n = val.ndim
    for ax in np.atleast_1d(np.asarray(axes)):
        ax = int(ax) + n if ax < 0 else int(ax)
        res = _array(func(val, ax))
        if res.ndim == val.ndim:
            val = res
        else:
            res = expand_dims(res, ax)
            if res.ndim != val.ndim:
                raise ValueError("function is not returning an array of the correct shape")
            val = res
    return val


class vectorize:
    """A tracer-aware ``numpy.vectorize``: apply a scalar function elementwise.

    Parameters
    ----------
    pyfunc : callable
        Takes scalars (0-d tracers when traced) and returns a scalar.
    otypes : str or list of dtypes, optional
        Output dtype(s) for plain inputs, as NumPy.
    doc, excluded, cache, signature : optional
        Passed to ``numpy.vectorize`` for plain inputs; with traced inputs
        only ``excluded`` (positional indices or keyword names) is honoured
        and ``signature`` must be None.

    Returns
    -------
    callable
        Plain inputs go through ``numpy.vectorize``; when any argument is a
        tracer, the arguments are broadcast and ``pyfunc`` is applied to
        each element in a Python loop, the results stacked (so any Python
        code works and the result is differentiable).

    Raises
    ------
    NotImplementedError
        For ``signature`` with traced arguments.
    """

    def __init__(self, pyfunc=np._NoValue, otypes=None, doc=None, excluded=None, cache=False,
                 signature=None):
        self.pyfunc = pyfunc
        self.excluded = set(excluded or ())
        self.signature = signature
        self._np = np.vectorize(pyfunc, otypes=otypes, doc=doc, excluded=excluded, cache=cache,
                                signature=signature)
        self.__doc__ = doc if doc is not None else getattr(pyfunc, "__doc__", None)

    @array_result
    def __call__(self, *args, **kwargs):
        leaves = list(args) + list(kwargs.values())
        if not any(isinstance(v, Tracer) for v in leaves):
            return self._np(*args, **kwargs)
        if self.signature is not None:
            raise NotImplementedError("tracegrad.numpy.vectorize with signature= on tracers; "
                                      "use tracegrad.vmap")
        pos = [i for i in range(len(args)) if i not in self.excluded]
        keys = [k for k in kwargs if k not in self.excluded]
        arrays = [_array(args[i]) for i in pos] + [_array(kwargs[k]) for k in keys]
        shape = np.broadcast_shapes(*[tuple(x.shape) for x in arrays])
        flat = [ravel(broadcast_to(x, shape)) if tuple(x.shape) != shape else ravel(x)
                for x in arrays]
        size = int(np.prod(shape, dtype=np.int64))
        outs = []
        for j in range(size):
            a = list(args)
            kw = dict(kwargs)
            for slot, i in enumerate(pos):
                a[i] = flat[slot][j]
            for slot, k in enumerate(keys):
                kw[k] = flat[len(pos) + slot][j]
            outs.append(_array(self.pyfunc(*a, **kw)))
        if not outs:
            return np.zeros(shape)
        return reshape(stack(outs), shape)



def _stack_elements(outs, shape):
    """Scalars returned per element as one array of ``shape`` (NumPy's dtype
    inference over them; float64 when there are none)."""
    if not outs:
        return np.zeros(shape)
    return np.array(outs).reshape(shape)


class frompyfunc:
    """A ufunc-like object applying the scalar function ``func`` elementwise
    (``numpy.frompyfunc``; JAX's ``jax.numpy.frompyfunc``).

    Parameters
    ----------
    func : callable
        Takes ``nin`` scalars and returns one scalar, or a tuple of ``nout``.
    nin, nout : int
        Numbers of inputs and outputs (at least 1 each).
    identity : scalar, optional
        The result of :meth:`reduce` over an empty axis (NumPy's use of it;
        JAX's ``reduce`` also starts every fold from it, so its values
        differ from NumPy's for a non-neutral ``identity``).

    Returns
    -------
    frompyfunc
        Call it with ``nin`` arrays, which broadcast; the result has their
        broadcast shape (a tuple of ``nout`` arrays when ``nout > 1``).

        * Plain inputs: ``func`` is called on each element of the broadcast
          inputs in C order, as NumPy does (any Python code works), and the
          results are stacked into an array of their common dtype, where
          NumPy returns an object array (JAX returns ``func``'s dtype).  The
          elements are NumPy scalars (``numpy.float32`` for float32 input),
          where NumPy passes Python scalars: float64 values are NumPy's,
          float32 ones are computed in float32, so the dtype is the one
          ``func`` gives on tracers too.
        * Any traced input: ``func`` is ``vmap``-ed over the broadcast,
          flattened inputs (as JAX does), so it must be written with
          tracegrad operations on 0-d values; the result is differentiable
          through ``func`` and has ``func``'s dtype.

    Raises
    ------
    ValueError
        For ``nin``/``nout`` below 1, a wrong number of arguments, or
        :meth:`reduce` over an empty axis without ``identity``.
    TypeError
        If ``func`` is not callable.

    Notes
    -----
    Methods: ``outer`` (``nin == 2``), and ``reduce``/``accumulate``
    (``nin == 2``, ``nout == 1``) along one axis, the left fold
    ``func(func(x0, x1), x2)...`` computed as NumPy's object ufuncs do
    (``n - 1`` calls over slices along the axis); ``at`` and ``reduceat``
    are not provided (use ``x.at[...]`` and ``reduce`` on slices).
    """

    def __init__(self, func, /, nin, nout, *, identity=None):
        if not callable(func):
            raise TypeError(f"frompyfunc: func must be callable, got {type(func).__name__}")
        nin, nout = int(nin), int(nout)
        if nin < 1 or nout < 1:
            raise ValueError(f"frompyfunc: nin and nout must be at least 1 (got {nin}, {nout})")
        self.func, self.nin, self.nout, self.identity = func, nin, nout, identity
        self.nargs = nin + nout
        self.__name__ = getattr(func, "__name__", "frompyfunc") + " (vectorized)"
        self.__doc__ = getattr(func, "__doc__", None)

    def __repr__(self):
        return f"<tracegrad.numpy.frompyfunc {self.__name__}, nin={self.nin}, nout={self.nout}>"

    def __call__(self, *args):
        if len(args) != self.nin:
            raise ValueError(f"{self.__name__}: expected {self.nin} positional arguments, "
                             f"got {len(args)}")
        if not any(isinstance(a, Tracer) for a in args):
            arrays = np.broadcast_arrays(*[np.asarray(a) for a in args])
            shape = arrays[0].shape
            outs = [self._call_scalar(*[x[ix] for x in arrays]) for ix in np.ndindex(*shape)]
            if self.nout > 1:
                return tuple(_stack_elements([o[k] for o in outs], shape) for k in range(self.nout))
            return _stack_elements(outs, shape)
        arrays = [_array(a) for a in args]
        shape = np.broadcast_shapes(*[tuple(x.shape) for x in arrays])
        size = int(np.prod(shape, dtype=np.int64))
        if size == 0:
            zeros = np.zeros(shape)
            return (zeros,) * self.nout if self.nout > 1 else zeros
        flat = [ravel(broadcast_to(x, shape)) if tuple(x.shape) != shape else ravel(x)
                for x in arrays]
        out = _vmap(self._call_scalar)(*flat)
        if self.nout > 1:
            return tuple(reshape(o, shape) for o in out)
        return reshape(out, shape)

    def _call_scalar(self, *xs):
        out = self.func(*xs)
        if self.nout > 1:
            if not isinstance(out, (tuple, list)) or len(out) != self.nout:
                raise ValueError(f"{self.__name__}: func must return a tuple of {self.nout} values")
            return tuple(_array(o) for o in out)
        return _array(out)

    def _binary(self, what):
        if self.nin != 2 or self.nout != 1:
            raise ValueError(f"{what} is only defined for nin=2, nout=1 (this one has nin={self.nin}, "
                             f"nout={self.nout})")

    def outer(self, a, b):
        """``func(a[i...], b[j...])`` over every pair: shape ``a.shape + b.shape``."""
        if self.nin != 2:
            raise ValueError(f"outer is only defined for nin=2 (this one has nin={self.nin})")
        a, b = _array(a), _array(b)
        return self(reshape(a, tuple(a.shape) + (1,) * b.ndim), b)

    def _fold(self, a, axis, keep_all):
        a = _array(a)
        if a.ndim == 0:
            raise ValueError("reduce/accumulate need an array of at least one dimension")
        axis = normalize_axis_index(axis, a.ndim)
        moved = moveaxis(a, axis, 0)
        n = moved.shape[0]
        if n == 0:
            if keep_all:
                return a
            if self.identity is None:
                raise ValueError(f"zero-size reduction with {self.__name__}, which has no identity")
            return np.array(np.full(tuple(moved.shape[1:]), self.identity, dtype=object).tolist())
        acc = moved[0]
        parts = [acc]
        for i in range(1, n):
            acc = self(acc, moved[i])
            parts.append(acc)
        if keep_all:
            return moveaxis(stack([_array(p) for p in parts]), 0, axis)
        return acc

    def reduce(self, a, axis=0):
        """The left fold of ``func`` along ``axis`` (``identity`` for an empty axis)."""
        self._binary("reduce")
        return self._fold(a, axis, keep_all=False)

    def accumulate(self, a, axis=0):
        """The running left folds of ``func`` along ``axis``: ``a``'s shape."""
        self._binary("accumulate")
        return self._fold(a, axis, keep_all=True)



# --------------------------------------------------------------------------
# functional forms of NumPy's in-place writers, and more creation


def _no_inplace(name, inplace):
    if inplace:
        raise ValueError(
            f"tracegrad.numpy.{name} cannot modify its input in place (arrays are immutable "
            f"under transforms); pass inplace=False and use the returned array"
        )


@implements(np.diagflat)
def diagflat(v, k=0):
    """A 2-D array with the flattened ``v`` on its ``k``-th diagonal (``numpy.diagflat``).

    Parameters
    ----------
    v : array_like or tracer
    k : int

    Returns
    -------
    array or tracer, shape (n + |k|, n + |k|)
        Differentiable in ``v``.
    """
    return diag(ravel(_array(v)), k)


@array_result
def fill_diagonal(a, val, wrap=False, *, inplace=True):
    """``a`` with its main diagonal set to ``val``, as a new array (JAX's form).

    Parameters
    ----------
    a : array_like or tracer, at least 2-D (all axes equal if more than 2)
    val : scalar, array_like or tracer
        Repeated cyclically along the diagonal, as NumPy.
    wrap : bool
        For tall 2-D arrays, restart the diagonal after ``N + 1`` rows.
    inplace : bool
        Must be False (NumPy's ``fill_diagonal`` writes in place).

    Returns
    -------
    array or tracer
        Differentiable in ``a`` (off the diagonal) and ``val``.

    Raises
    ------
    ValueError
        If ``inplace`` is true, or for unequal axes in more than 2-D.
    """
    _no_inplace("fill_diagonal", inplace)
    a = _array(a)
    shape = tuple(a.shape)
    if len(shape) < 2:
        raise ValueError("array must be at least 2-d")
    if len(shape) > 2 and len(set(shape)) != 1:
        raise ValueError("All dimensions of input must be of equal length")
    size = int(np.prod(shape))
    step = shape[1] + 1 if len(shape) == 2 else int(np.sum(np.cumprod((1,) + shape[:-1])))
    end = size if (wrap or len(shape) != 2) else shape[1] * shape[1]
    flat_idx = np.arange(0, min(end, size), step)
    vals = ravel(_array(val))
    vals = _cast(vals, a.dtype)
    nv = vals.shape[0]
    vals = take(vals, np.arange(flat_idx.size) % nv) if nv != flat_idx.size else vals
    return reshape(at(ravel(a))[flat_idx].set(vals), shape)


@array_result
def put(a, ind, v, mode="raise", *, inplace=True):
    """``a`` with the flat positions ``ind`` set to ``v``, as a new array (JAX's form).

    Parameters
    ----------
    a : array_like or tracer
    ind : int array_like
        Concrete flat positions.
    v : array_like or tracer
        Repeated cyclically if shorter than ``ind``.
    mode : {"raise", "wrap", "clip"}
    inplace : bool
        Must be False.

    Returns
    -------
    array or tracer
        Differentiable in ``a`` and ``v``.

    Raises
    ------
    ValueError
        If ``inplace`` is true, or for a bad mode.
    IndexError
        For positions out of bounds with ``mode="raise"``.
    """
    _no_inplace("put", inplace)
    a = _array(a)
    idx = np.ravel(_concrete(ind, "put", "ind")).astype(np.intp)
    n = int(np.prod(a.shape))
    if mode == "wrap":
        idx = idx % n
    elif mode == "clip":
        idx = np.clip(idx, 0, n - 1)
    elif mode == "raise":
        if idx.size and (idx.min() < -n or idx.max() >= n):
            raise IndexError(f"index {int(idx.max())} is out of bounds for axis 0 with size {n}")
        idx = idx % n if n else idx
    else:
        raise ValueError(f"clipmode must be one of 'clip', 'raise', or 'wrap' (got {mode!r})")
    vals = _cast(ravel(_array(v)), a.dtype)
    if vals.shape[0] != idx.size:
        vals = take(vals, np.arange(idx.size) % vals.shape[0])
    # NumPy writes in order, so the last write to a repeated position wins
    last = {int(i): j for j, i in enumerate(idx)}
    keep = np.array(sorted(last.values()), dtype=np.intp)
    return reshape(at(ravel(a))[idx[keep]].set(take(vals, keep)), tuple(a.shape))


@array_result
def put_along_axis(arr, indices, values, axis, inplace=True, *, mode=None):
    """``arr`` with ``values`` written at ``indices`` along ``axis``, as a new array.

    Parameters
    ----------
    arr : array_like or tracer
    indices : int array_like
        Concrete, broadcastable as for ``take_along_axis``.
    values : array_like or tracer
        Broadcast against ``indices``.
    axis : int
    inplace : bool
        Must be False (JAX's form of NumPy's in-place function).
    mode : None
        Accepted for JAX compatibility.

    Returns
    -------
    array or tracer
        Differentiable in ``arr`` and ``values`` (a scatter).

    Raises
    ------
    ValueError
        If ``inplace`` is true or ``indices`` has the wrong rank.
    """
    _no_inplace("put_along_axis", inplace)
    a = _array(arr)
    idx = np.asarray(_concrete(indices, "put_along_axis", "indices")).astype(np.intp)
    axis = normalize_axis_index(axis, a.ndim)
    if idx.ndim != a.ndim:
        raise ValueError("`indices` and `arr` must have the same number of dimensions")
    shape = np.broadcast_shapes(idx.shape, tuple(1 if i == axis else s for i, s in enumerate(a.shape)))
    idx = np.broadcast_to(idx, shape)
    grids = list(np.indices(shape, sparse=True))
    grids[axis] = idx
    full = tuple(np.broadcast_to(g, shape) for g in grids)
    vals = broadcast_to(_cast(_array(values), a.dtype), shape)
    return at(a)[full].set(vals)


@array_result
def place(arr, mask, vals, *, inplace=True):
    """``arr`` with the positions where ``mask`` is true filled from ``vals`` in order.

    Parameters
    ----------
    arr : array_like or tracer
    mask : bool array_like
        Concrete, ``arr``'s shape.
    vals : array_like or tracer
        Repeated cyclically, as NumPy.
    inplace : bool
        Must be False.

    Returns
    -------
    array or tracer
        Differentiable in ``arr`` and ``vals``.

    Raises
    ------
    ValueError
        If ``inplace`` is true, or ``vals`` is empty while ``mask`` selects.
    """
    _no_inplace("place", inplace)
    a = _array(arr)
    m = np.ravel(_concrete(mask, "place", "mask")).astype(bool)
    pos = np.flatnonzero(m)
    vals = _cast(ravel(_array(vals)), a.dtype)
    if pos.size == 0:
        return a
    if vals.shape[0] == 0:
        raise ValueError("Cannot insert from an empty array!")
    vals = take(vals, np.arange(pos.size) % vals.shape[0])
    return reshape(at(ravel(a))[pos].set(vals), tuple(a.shape))


@array_result
def putmask(a, mask, values, *, inplace=True):
    """``a`` with ``a.flat[n] = values.flat[n % len(values)]`` where ``mask.flat[n]``, as a new array.

    The functional form of NumPy's in-place ``numpy.putmask``, with the same
    convention as :func:`place` and :func:`put` (JAX's keyword): NumPy's
    function writes into ``a`` and returns None, which transforms cannot
    follow (tracers are immutable), so ``inplace=False`` is required and the
    result is returned.  ``numpy.putmask(tracer, ...)`` is therefore not
    dispatched here (it raises tracegrad's TypeError naming this function).

    Parameters
    ----------
    a : array_like or tracer
    mask : bool array_like or tracer
        Same size as ``a`` (read in flat order, as NumPy); may be traced,
        also batched under ``vmap`` (a value's position never depends on the
        mask, unlike :func:`place`).
    values : array_like or tracer
        Read in flat order and repeated cyclically over the flat positions of
        ``a`` (NumPy's rule: position ``n`` takes ``values[n % len(values)]``,
        not the ``n``-th selected value); cast to ``a``'s dtype as NumPy does
        (unsafely: 1.5 into an int array is 1).  Empty ``values`` leave
        ``a`` unchanged, as NumPy.
    inplace : bool
        Must be False.

    Returns
    -------
    array or tracer
        ``a``'s shape and dtype; differentiable in ``a`` and ``values`` (a
        ``where``), not in ``mask``.

    Raises
    ------
    ValueError
        If ``inplace`` is true, or ``mask`` and ``a`` differ in size.
    """
    _no_inplace("putmask", inplace)
    a = _array(a)
    m = _array(mask)
    size = int(np.prod(a.shape, dtype=np.int64))
    if int(np.prod(m.shape, dtype=np.int64)) != size:
        raise ValueError(f"putmask: mask and data must be the same size (mask has shape "
                         f"{tuple(m.shape)}, data {tuple(a.shape)})")
    m = reshape(m, tuple(a.shape))
    if m.dtype != np.bool_:
        m = ops.ne(m, np.zeros((), m.dtype)) if isinstance(m, Tracer) else m.astype(bool)
    vals = ravel(_array(values))
    nv = vals.shape[0]
    if nv == 0 or size == 0:
        return a
    vals = _cast(vals, a.dtype)
    if nv != size:
        vals = take(vals, np.arange(size) % nv)
    return where(m, reshape(vals, tuple(a.shape)), a)


@implements(np.fromfunction)
def fromfunction(function, shape, *, dtype=float, **kwargs):
    """``function(*indices(shape))`` (``numpy.fromfunction``).

    Parameters
    ----------
    function : callable
        Called once with one coordinate array per axis (of ``dtype``); may
        close over tracers.
    shape : tuple of ints
    dtype : dtype
    **kwargs
        Passed to ``function``.

    Returns
    -------
    whatever ``function`` returns
    """
    return function(*np.indices(tuple(shape), dtype=dtype), **kwargs)


__all__ += ["diagflat", "fill_diagonal", "put", "put_along_axis", "place", "putmask", "fromfunction"]

# NumPy's constructors from Python data, bytes and strings (their inputs are
# never traced): the same functions, returning Arrays
frombuffer = array_result(np.frombuffer)
fromiter = array_result(np.fromiter)
fromstring = array_result(np.fromstring)

__all__ += ["frombuffer", "fromiter", "fromstring"]
