"""NumPy indexing for tracers (``x[idx]``) and functional updates (``x.at[idx]``).

``getitem(x, idx)`` follows NumPy's indexing rules exactly:

* *basic* indices (integers, slices with any step, ``None``, ``...``) lower
  to the cheap structural primitives ``slice``, ``rev`` and ``reshape``;
* *advanced* indices (integer arrays and lists, boolean masks, and integers
  once any array is present) lower to one ``gather`` along a single merged
  axis, whose VJP is a ``scatter_add`` that accumulates repeated indices.
  The advanced dimensions go where NumPy puts them: in place of the first
  advanced index when the advanced indices are consecutive items of the
  index (a ``None`` or an ``...`` between them separates them), otherwise
  first.

Boolean masks are turned into integer positions from their concrete value
(tracers carry values), so their result shapes are concrete too.

Under ``vmap`` an integer index array may vary per example (a batched
tracer, e.g. per-example labels): it has no single concrete value, so it
stays an operand of the ``gather`` (and of the ``scatter_add`` of ``.at``),
whose batching rules give each example its own positions.  Bounds are
checked on the values of every example; negative positions are wrapped with
primitives.  Index arrays that do not vary take the concrete path unchanged.
A boolean mask that varies per example cannot work (each example would have
its own result shape) and raises an error naming ``where``.

``x.at[idx]`` returns an :class:`_IndexRef` whose methods ``set``, ``add``,
``subtract``, ``multiply``, ``divide``, ``power``, ``min``, ``max`` and
``get`` return a new array, as JAX's ``.at`` does; ``tnp.at(x)`` gives the
same helper for plain arrays.  All are differentiable in both ``x`` and the
update value.
"""
import math
import operator

import numpy as np

from ..core import Tracer, concrete_value, is_concrete
from ..interpreters.batching import example_values, has_values, varies
from ..primitives import ops
from ._array_type import array_result
from ._core import arg

__all__ = ["at"]

_VALID = (
    "only integers, slices (`:`), ellipsis (`...`), numpy.newaxis (`None`) and "
    "integer or boolean arrays are valid indices"
)


# --------------------------------------------------------------------------
# parsing an index into entries


class _Adv:
    """An advanced index entry: a normalized integer array for one axis."""

    __slots__ = ("idx",)

    def __init__(self, idx):
        self.idx = idx


def _as_index_array(obj):
    """An index given as array, list or tracer: an int or bool ndarray."""
    a = np.asarray(concrete_value(obj)) if isinstance(obj, Tracer) else None
    if a is None:
        if isinstance(obj, (list, tuple)):
            obj = [concrete_value(o) if isinstance(o, Tracer) else o for o in obj]
        a = np.asarray(obj)
        if a.size == 0 and a.dtype.kind == "f" and not isinstance(obj, np.ndarray):
            a = a.astype(np.intp)  # x[[]] selects nothing, as in NumPy
    if a.dtype.kind not in "iub":
        raise IndexError(
            f"arrays used as indices must be of integer (or boolean) type, got dtype "
            f"{a.dtype}; {_VALID}. Cast the index with .astype(int)."
        )
    return a


def _oob(i, axis, n):
    return IndexError(f"index {i} is out of bounds for axis {axis} with size {n}")


# --------------------------------------------------------------------------
# indices that vary over a vmap'd axis


def is_batched(index):
    """True if ``index`` (an index array, or a tuple or list holding index
    arrays) holds a value that varies over a ``vmap``'d axis, or a staged
    one (no value while tracing): positions that stay traced."""
    if isinstance(index, Tracer):
        return varies(index) or not is_concrete(index)
    if isinstance(index, (tuple, list)):
        return any(is_batched(i) for i in index)
    return False


def _batched_index_dtype(a, what="arrays used as indices"):
    """Check the dtype of a batched index; bool masks cannot be batched."""
    kind = np.dtype(a.dtype).kind
    if kind == "b":
        raise IndexError(
            f"a boolean index (shape {tuple(a.shape)}) that varies over an axis mapped "
            "by vmap selects a different number of elements in every example, so the "
            "result has no fixed shape. Use tracegrad.numpy.where(mask, x, fill) (or "
            "multiply by the mask) instead of x[mask] inside vmap."
        )
    if kind not in "iu":
        raise IndexError(
            f"{what} must be of integer (or boolean) type, got dtype {a.dtype}; "
            f"{_VALID}. Cast the index with .astype(int)."
        )


def _normalize_batched(a, axis, n):
    """:func:`_normalize_array` for an index that varies over a vmap'd axis:
    bounds checked on every example's values, negatives wrapped with
    primitives, cast to ``intp``."""
    if a.dtype != np.intp:
        a = ops.convert_element_type(a, np.intp)
    # (a staged index has no values to check: negatives are wrapped, as JAX does)
    if not has_values(a) or _check_bounds(example_values(a)[0], axis, n):
        a = ops.select(ops.lt(a, 0), ops.add(a, n), a)
    return a


def batched_positions(indices, axis, n, mode="raise"):
    """Positions for ``take(a, indices, axis, mode=mode)`` when ``indices``
    varies over a ``vmap``'d axis (see :func:`is_batched`).

    Parameters
    ----------
    indices : tracer
        Integer (or float, truncated as NumPy's ``take`` does) positions.
    axis : int
        The non-negative axis taken along (for error messages).
    n : int
        Its length.
    mode : {"raise", "wrap", "clip"}
        NumPy's ``take`` modes.

    Returns
    -------
    tracer of ``intp``
        Positions in ``[0, n)``, an operand for ``ops.gather``.

    Raises
    ------
    IndexError
        Out-of-range positions (in any example) with ``mode="raise"``, a
        non-empty take from an empty axis, boolean indices.
    ValueError
        An unknown ``mode``.
    """
    if np.dtype(indices.dtype).kind == "f":
        indices = ops.convert_element_type(indices, np.intp)
    _batched_index_dtype(indices, "take indices")
    if mode == "raise":
        return _normalize_batched(indices, axis, n)
    if mode not in ("wrap", "clip"):
        raise ValueError(f"clipmode must be one of 'clip', 'raise', or 'wrap' (got {mode!r})")
    if n == 0 and indices.size:
        raise IndexError("cannot do a non-empty take from an empty axes.")
    indices = ops.convert_element_type(indices, np.intp)
    if mode == "wrap":
        return ops.mod(indices, n)
    return ops.clip(indices, 0, n - 1)


def _normalize_array(a, axis, n):
    """Check bounds of integer index array ``a`` for an axis of size ``n``; wrap negatives."""
    a = a.astype(np.intp, copy=False)
    if _check_bounds(a, axis, n):
        a = np.where(a < 0, a + n, a)
    return a


def _check_bounds(vals, axis, n):
    """Raise NumPy's IndexError unless every position in ``vals`` lies in
    ``[-n, n)``; return whether any is negative."""
    if not vals.size:
        return False
    lo, hi = int(vals.min()), int(vals.max())
    if hi >= n:
        raise _oob(hi, axis, n)
    if lo < -n:
        raise _oob(lo, axis, n)
    return lo < 0


def _expand(shape, idx):
    """Parse ``idx`` against ``shape``.

    Returns ``(entries, new_shape, adjacent)``: one entry per axis of
    ``new_shape`` or ``None`` (a new axis).  ``new_shape`` is ``shape`` with the size-1 axes
    that 0-d boolean indices add.  Axis entries are ``slice`` objects, Python
    ints (basic integer indices) or :class:`_Adv`.  ``adjacent`` says whether
    the advanced indices are consecutive items of ``idx``.
    """
    if not isinstance(idx, tuple):
        idx = (idx,)
    fast = _expand_basic(shape, idx)
    if fast is not None:
        return fast, shape, True
    items = []  # (kind, value); kind in {"none", "ellipsis", "int", "slice", "array", "bool0"}
    for it in idx:
        if it is None:
            items.append(("none", None))
        elif it is Ellipsis:
            items.append(("ellipsis", None))
        elif isinstance(it, slice):
            items.append(("slice", it))
        elif isinstance(it, (bool, np.bool_)):
            items.append(("bool0", bool(it)))
        elif isinstance(it, (int, np.integer)):
            items.append(("int", int(it)))
        elif isinstance(it, (Tracer, list, tuple)) and is_batched(it):
            it = arg(it)  # a list holding batched tracers: stacked into one
            _batched_index_dtype(it)
            items.append(("array", it))  # stays an array even when 0-d
        elif isinstance(it, (np.ndarray, list, tuple, Tracer)):
            a = _as_index_array(it)
            if a.dtype.kind == "b":
                if a.ndim == 0:
                    items.append(("bool0", bool(a)))
                else:
                    items.append(("mask", a))
            elif a.ndim == 0:
                items.append(("int", int(a)))
            else:
                items.append(("array", a))
        elif hasattr(it, "__index__") and not isinstance(it, (float, complex)):
            items.append(("int", operator.index(it)))
        else:
            raise IndexError(f"{_VALID}; got {type(it).__name__} {it!r}")
    n_ell = sum(k == "ellipsis" for k, _ in items)
    if n_ell > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    consumed = sum(v.ndim if k == "mask" else k in ("int", "slice", "array") for k, v in items)
    if consumed > len(shape):
        raise IndexError(
            f"too many indices for array: array is {len(shape)}-dimensional, "
            f"but {consumed} were indexed"
        )
    advanced = any(k in ("array", "mask", "bool0") for k, _ in items)
    # NumPy places the advanced dimensions in place of the advanced indices
    # only if those are consecutive items of the index (a None or an
    # ellipsis between them, even one expanding to no axes, separates them)
    pos = [i for i, (k, _) in enumerate(items) if k in ("array", "mask", "bool0", "int")]
    adjacent = not advanced or pos == list(range(pos[0], pos[0] + len(pos)))
    entries = []
    new_shape = []
    ax = 0  # next axis of `shape`

    def take_axis(entry):
        nonlocal ax
        entries.append(entry)
        new_shape.append(shape[ax])
        ax += 1

    for k, v in items:
        if k == "none":
            entries.append(None)
        elif k == "ellipsis":
            for _ in range(len(shape) - consumed):
                take_axis(slice(None))
        elif k == "slice":
            take_axis(v)
        elif k == "int":
            n = shape[ax]
            if not -n <= v < n:
                raise _oob(v, ax, n)
            v = v + n if v < 0 else v
            take_axis(_Adv(np.asarray(v, np.intp)) if advanced else v)
        elif k == "array":
            norm = _normalize_batched if isinstance(v, Tracer) else _normalize_array
            take_axis(_Adv(norm(v, ax, shape[ax])))
        elif k == "mask":
            got = shape[ax:ax + v.ndim]
            for d, (m, s) in enumerate(zip(v.shape, got)):
                if m != s:
                    raise IndexError(
                        f"boolean index did not match indexed array along axis {ax + d}; "
                        f"size of axis is {s} but size of corresponding boolean axis is {m}"
                    )
            for pos in np.nonzero(v):
                take_axis(_Adv(pos.astype(np.intp)))
        else:  # bool0: a new axis of size 1, indexed by [0] (True) or [] (False)
            entries.append(_Adv(np.zeros(1 if v else 0, np.intp)))
            new_shape.append(1)
    for _ in range(len(shape) - ax):  # implicit trailing full slices
        take_axis(slice(None))
    return entries, tuple(new_shape), adjacent


def _expand_basic(shape, idx):
    """The entries of a tuple of Python ints and slices (the common case), or
    None to take the general path (which also raises the errors)."""
    if len(idx) > len(shape):
        return None
    entries = []
    for it, n in zip(idx, shape):
        t = type(it)
        if t is int:
            if not -n <= it < n:
                return None
            entries.append(it + n if it < 0 else it)
        elif t is slice:
            entries.append(it)
        else:
            return None
    entries.extend([slice(None)] * (len(shape) - len(idx)))
    return entries


# --------------------------------------------------------------------------
# getitem


def _apply_slices(x, entries, shape):
    """Apply the slice and basic-integer entries as one ``slice`` (and a ``rev``
    for negative steps); advanced axes are kept whole.

    Returns the result and NumPy's basic-indexing result shape (1 for each
    None, the length of each slice; integer and advanced axes left out).
    """
    starts, limits, strides, flips, out_shape = [], [], [], [], []
    axis = 0
    for e in entries:
        if e is None:
            out_shape.append(1)
            continue
        n = shape[axis]
        if type(e) is int:  # a basic integer index: a width-one slice, dropped later
            a, b, s = e, e + 1, 1
        elif type(e) is slice:
            a, b, s = e.indices(n)
            count = len(range(a, b, s))
            out_shape.append(count)
            if count == 0:
                a, b, s = 0, 0, 1
            elif s < 0:  # the same elements with a positive stride, then flip
                flips.append(axis)
                a, b, s = a + (count - 1) * s, a + 1, -s
            else:
                b = a + (count - 1) * s + 1
        else:
            a, b, s = 0, n, 1
        starts.append(a)
        limits.append(b)
        strides.append(s)
        axis += 1
    if limits != list(shape) or any(starts) or any(s != 1 for s in strides):
        x = ops.slice(x, starts, limits, strides)
    return ops.rev(x, flips), tuple(out_shape)


def getitem(x, idx):
    """``x[idx]`` with NumPy's full indexing semantics; differentiable in ``x``.

    Parameters
    ----------
    x : array or tracer
    idx : int, slice, None, Ellipsis, integer or boolean array/list, or a tuple of these

    Returns
    -------
    array or tracer
        NumPy's result shape and values.  Basic indexing lowers to one
        ``slice`` (plus ``rev`` for negative steps) and a ``reshape``;
        advanced indexing to one ``gather``.

    Raises
    ------
    IndexError
        Out-of-bounds integers or index arrays, too many indices, more than
        one ellipsis, float indices, mismatched boolean masks, index arrays
        that do not broadcast.
    """
    shape = tuple(x.shape)
    entries, shape1, adjacent = _expand(shape, idx)
    if shape1 != shape:
        x = ops.reshape(x, shape1)
    x, basic_shape = _apply_slices(x, entries, shape1)
    axis_entries = [e for e in entries if e is not None]
    adv_axes = [i for i, e in enumerate(axis_entries) if type(e) is _Adv]
    if not adv_axes:
        return ops.reshape(x, basic_shape)
    return _advanced(x, entries, axis_entries, adv_axes, adjacent)


def _advanced(x, entries, axis_entries, adv_axes, adjacent):
    """Gather for advanced indices at ``adv_axes`` of the (already sliced) ``x``."""
    arrays = [axis_entries[a].idx for a in adv_axes]
    xs = tuple(x.shape)
    dims = [xs[a] for a in adv_axes]
    if len(arrays) == 1:
        lin = arrays[0]
    else:
        try:
            bshape = np.broadcast_shapes(*[tuple(a.shape) for a in arrays])
        except ValueError:
            shapes = " ".join(str(tuple(a.shape)) for a in arrays)
            raise IndexError(
                "shape mismatch: indexing arrays could not be broadcast together "
                f"with shapes {shapes}"
            ) from None
        if any(isinstance(a, Tracer) for a in arrays):  # per-example (vmap'd) positions
            lin = ops.broadcast_to(arrays[0], bshape)
            for arr, n in zip(arrays[1:], dims[1:]):
                lin = ops.add(ops.mul(lin, n), arr)
        else:
            arrays = np.broadcast_arrays(*arrays)
            lin = arrays[0]
            for arr, n in zip(arrays[1:], dims[1:]):  # row-major linear index
                lin = lin * n + arr
    bshape = tuple(lin.shape)
    kept = [n for i, n in enumerate(xs) if i not in adv_axes]  # sliced axes, in order
    if adjacent:
        first = adv_axes[0]
    else:  # NumPy puts the advanced dimensions first
        rest = [i for i in range(len(xs)) if i not in adv_axes]
        x = ops.transpose(x, adv_axes + rest)
        xs = tuple(xs[i] for i in adv_axes + rest)
        first = 0
    merged = xs[:first] + (math.prod(dims),) + xs[first + len(dims):]
    out = ops.gather(ops.reshape(x, merged), lin, first)
    # the data are in NumPy's order already, only the None axes are missing
    out_shape = [] if adjacent else list(bshape)
    kept = iter(kept)
    placed = not adjacent
    for e in entries:
        if e is None:
            out_shape.append(1)
        elif not isinstance(e, _Adv):
            out_shape.append(next(kept))
        elif not placed:
            out_shape.extend(bshape)
            placed = True
    return ops.reshape(out, tuple(out_shape))


# --------------------------------------------------------------------------
# functional updates: x.at[idx]


def _concrete_index(idx):
    """``idx`` with every tracer replaced by its concrete value."""
    if isinstance(idx, Tracer):
        return concrete_value(idx)
    if isinstance(idx, tuple):
        return tuple(_concrete_index(i) for i in idx)
    if isinstance(idx, list):
        return [_concrete_index(i) for i in idx]
    return idx


def _targets(x, idx):
    """Flat positions of ``x`` that ``x[idx]`` selects, flattened, the shape
    of ``x[idx]``, and ``x.size``.

    Indexing an ``arange`` with NumPy itself gives NumPy's exact semantics
    and error messages for every index form.  An index that varies over a
    ``vmap``'d axis indexes the ``arange`` with :func:`getitem` instead: the
    positions are then a batched tracer.
    """
    shape = tuple(x.shape)
    n = math.prod(shape)
    ids = np.arange(n, dtype=np.intp).reshape(shape)
    if is_batched(idx):
        lin = getitem(ids, idx)
        return ops.reshape(lin, (math.prod(lin.shape),)), tuple(lin.shape), n
    lin = ids[_concrete_index(idx)]
    return lin.reshape(-1), lin.shape, n


def _groups(lin):
    """Occurrence number of each entry of flat ``lin`` among equal entries, and
    a mask of the last occurrences (``None``, ``None`` if all are unique)."""
    m = lin.size
    order = np.argsort(lin, kind="stable")
    s = lin[order]
    new = np.empty(m, bool)
    new[:1] = True
    np.not_equal(s[1:], s[:-1], out=new[1:])
    if new.all():
        return None, None
    starts = np.maximum.accumulate(np.where(new, np.arange(m), 0))
    occ = np.empty(m, np.intp)
    occ[order] = np.arange(m) - starts
    last = np.empty(m, bool)
    last[order] = np.append(new[1:], True)
    return occ, last


def _values(x, v, shape):
    """Update values: cast to ``x``'s dtype, broadcast to ``shape``, flattened."""
    v = arg(v)
    if not hasattr(v, "shape"):  # a Python scalar: its weak type does not matter here
        v = np.asarray(v)
    vshape = tuple(np.shape(v))
    while len(vshape) > len(shape) and vshape[0] == 1:  # NumPy drops leading 1s
        vshape = vshape[1:]
    try:
        ok = np.broadcast_shapes(vshape, shape) == tuple(shape)
    except ValueError:
        ok = False
    if not ok:
        raise ValueError(
            f"shape mismatch: value array of shape {np.shape(v)} could not be "
            f"broadcast to indexing result of shape {tuple(shape)}"
        )
    v = ops.convert_element_type(ops.reshape(v, vshape), x.dtype)
    v = ops.broadcast_to(v, tuple(shape))
    return ops.reshape(v, (math.prod(shape),))


def _batched_groups(lin):
    """:func:`_groups` for flat positions ``lin`` that vary over a ``vmap``'d
    axis, computed with primitives so every example gets its own groups.

    Returns ``(occ, last, rounds)``: the occurrence number of each entry and
    the mask of last occurrences (batched tracers), and the largest number
    of occurrences of one position in any example; ``(None, None, 1)`` if no
    example repeats a position (checked on the values of every example).
    Staged positions have no values: ``rounds`` is then ``len(lin)``.
    """
    m = lin.shape[0]
    steps = np.arange(m)
    if has_values(lin):
        vals, _ = example_values(lin)
        srt = np.sort(vals.reshape(-1, m), axis=1)
        same = srt[:, 1:] == srt[:, :-1]
        if not same.any():
            return None, None, 1
        new = np.ones(srt.shape, bool)
        new[:, 1:] = ~same
        starts = np.maximum.accumulate(np.where(new, steps, 0), axis=1)
        rounds = int((steps - starts).max()) + 1  # the longest run of one position
    else:  # staged positions: repeats cannot be counted, so allow the most there can be
        rounds = max(m, 1)
    # the same in primitives: a stable sort keeps equal positions in index
    # order; a group starts where the sorted value changes
    order = ops.argsort(lin, 0, "stable")
    s = ops.gather(lin, order, 0)
    change = ops.ne(ops.slice(s, (1,), (m,)), ops.slice(s, (0,), (m - 1,)))
    true = np.ones(1, bool)
    first = ops.concatenate([true, change], 0)  # first of its group (sorted order)
    group = ops.sub(ops.cumsum(ops.convert_element_type(first, np.intp), 0), 1)
    group_start = ops.scatter_add(ops.select(first, steps, 0), group, 0, m)
    occ_sorted = ops.sub(steps, ops.gather(group_start, group, 0))
    last_sorted = ops.convert_element_type(ops.concatenate([change, true], 0), np.intp)
    occ = ops.scatter_add(occ_sorted, order, 0, m)  # back to index order
    last = ops.ne(ops.scatter_add(last_sorted, order, 0, m), 0)
    return occ, last, rounds


def _placed(v, lin, n, mask=None):
    """``v`` (flat) written at the flat positions ``lin`` of a length-``n``
    vector, and the mask of the positions written.

    Concrete ``lin`` must be unique.  A ``lin`` that varies over a ``vmap``'d
    axis may repeat positions as long as ``mask`` keeps only one entry per
    position (entries outside ``mask`` write nothing).
    """
    if not isinstance(lin, Tracer):
        hit = np.zeros(n, bool)
        hit[lin] = True
        return ops.scatter_add(v, lin, 0, n), hit
    if mask is None:
        ones = np.ones(lin.shape, np.float64)
    else:
        ones = ops.convert_element_type(mask, np.float64)
        v = ops.select(mask, v, np.zeros((), v.dtype))
    hit = ops.gt(ops.scatter_add(ones, lin, 0, n), 0.0)
    return ops.scatter_add(v, lin, 0, n), hit


class _IndexRef:
    """``x.at[idx]``: functional versions of ``x[idx] = ...`` and friends.

    Every method returns a new array of ``x``'s shape and dtype (update values
    are cast to ``x``'s dtype and broadcast to the shape of ``x[idx]``) and is
    differentiable in both ``x`` and the values.  Index semantics (and
    IndexErrors for out-of-bounds positions) are NumPy's, not JAX's clamping.
    JAX's hints ``indices_are_sorted`` and ``unique_indices`` are accepted
    and ignored: repeated indices are found from the concrete index, and
    every method handles them (including ``multiply``, whose derivative JAX
    only gives for unique indices).  Under ``vmap`` the index may vary per
    example: each example then gets its own positions and its own repeats
    (found with primitives: a stable ``argsort`` of the positions).
    """

    __slots__ = ("x", "idx")

    def __init__(self, x, idx):
        self.x = x
        self.idx = idx

    @array_result
    def get(self):
        """``x[idx]``."""
        return getitem(self.x, self.idx)

    @array_result
    def set(self, values, *, indices_are_sorted=False, unique_indices=False):
        """``x`` with ``x[idx] = values``.

        With repeated indices, the value that comes last in the row-major
        order of ``x[idx]`` is written (what NumPy does in practice), and
        only that value receives a derivative; the others get zero.  JAX
        leaves the winner unspecified.
        """
        x = self.x
        lin, shape, n = _targets(x, self.idx)
        v = _values(x, values, shape)
        last = None
        if isinstance(lin, Tracer):  # per-example positions: mask the losers
            _, last, _ = _batched_groups(lin)
        else:
            _, keep = _groups(lin)
            if keep is not None:
                keep = np.nonzero(keep)[0]
                v, lin = ops.gather(v, keep, 0), lin[keep]
        placed, hit = _placed(v, lin, n, last)
        out = ops.select(hit, placed, ops.reshape(x, (n,)))
        return ops.reshape(out, tuple(x.shape))

    @array_result
    def add(self, values, *, indices_are_sorted=False, unique_indices=False):
        """``x`` with ``x[idx] += values``; repeated indices add up every value
        (unlike NumPy's buffered ``x[idx] += v``, like ``np.add.at``)."""
        x = self.x
        lin, shape, n = _targets(x, self.idx)
        v = _values(x, values, shape)
        out = ops.add(ops.reshape(x, (n,)), ops.scatter_add(v, lin, 0, n))
        return ops.reshape(out, tuple(x.shape))

    @array_result
    def subtract(self, values, *, indices_are_sorted=False, unique_indices=False):
        """``x`` with ``x[idx] -= values`` (repeated indices accumulate)."""
        return self.add(ops.neg(arg(values)))

    def _combine(self, values, op):
        """Apply ``x[i] = op(x[i], v)`` for every update, in rounds of unique
        indices (round ``k`` holds each position's ``k``-th update), so that
        repeated indices compose: ``x * v1 * v2``, ``min(x, v1, v2)``."""
        x = self.x
        lin, shape, n = _targets(x, self.idx)
        v = _values(x, values, shape)
        if isinstance(lin, Tracer):  # per-example positions: rounds as masks
            occ, _, count = _batched_groups(lin)
            rounds = [None] if occ is None else [ops.eq(occ, k) for k in range(count)]
        else:
            occ, _ = _groups(lin)
            rounds = [None] if occ is None else [
                np.nonzero(occ == k)[0] for k in range(occ.max() + 1)]
        out = ops.reshape(x, (n,))
        one = np.ones((), x.dtype)
        for sel in rounds:
            if sel is None or isinstance(sel, Tracer):
                placed, hit = _placed(v, lin, n, sel)
            else:
                placed, hit = _placed(ops.gather(v, sel, 0), lin[sel], n)
            # neutral filler off the targets keeps op's derivative finite there
            out = ops.select(hit, op(out, ops.select(hit, placed, one)), out)
        return ops.reshape(out, tuple(x.shape))

    @array_result
    def multiply(self, values, *, indices_are_sorted=False, unique_indices=False):
        """``x`` with ``x[idx] *= values``; repeated indices multiply every value in."""
        return self._combine(values, ops.mul)

    mul = multiply

    @array_result
    def divide(self, values, *, indices_are_sorted=False, unique_indices=False):
        """``x`` with ``x[idx] /= values``; repeated indices divide by every value."""
        return self._combine(values, ops.div)

    @array_result
    def power(self, values, *, indices_are_sorted=False, unique_indices=False):
        """``x`` with ``x[idx] **= values``; repeated indices apply in index order."""
        return self._combine(values, ops.pow)

    @array_result
    def min(self, values, *, indices_are_sorted=False, unique_indices=False):
        """``x`` with ``x[idx] = minimum(x[idx], values)`` over all updates
        (ties split the derivative evenly, as ``minimum`` does)."""
        return self._combine(values, ops.minimum)

    @array_result
    def max(self, values, *, indices_are_sorted=False, unique_indices=False):
        """``x`` with ``x[idx] = maximum(x[idx], values)`` over all updates
        (ties split the derivative evenly, as ``maximum`` does)."""
        return self._combine(values, ops.maximum)

    def __repr__(self):
        return f"_IndexRef(shape={tuple(self.x.shape)}, idx={self.idx!r})"


class _IndexUpdateHelper:
    """The object behind ``x.at``: ``x.at[idx]`` gives an :class:`_IndexRef`."""

    __slots__ = ("x",)

    def __init__(self, x):
        self.x = x

    def __getitem__(self, idx):
        return _IndexRef(self.x, idx)

    def __repr__(self):
        return f"_IndexUpdateHelper(shape={tuple(self.x.shape)})"


def at(x):
    """JAX's ``x.at`` for any array: ``tnp.at(x)[idx].set(v)``.

    Tracers have ``x.at[idx]`` directly; this helper gives the same
    functional updates on plain NumPy arrays and nested lists.

    Parameters
    ----------
    x : array_like or tracer

    Returns
    -------
    _IndexUpdateHelper
        Index it (``[idx]``, any NumPy index) and call ``set``, ``add``,
        ``subtract``, ``multiply``, ``divide``, ``power``, ``min``, ``max`` or
        ``get`` to get a new array; ``x`` is never modified.

    Examples
    --------
    >>> import numpy as np, tracegrad.numpy as tnp
    >>> tnp.at(np.zeros(3))[[0, 0, 2]].add(1.0)
    array([2., 0., 1.])
    """
    x = arg(x)
    if not hasattr(x, "shape"):
        x = np.asarray(x)
    return _IndexUpdateHelper(x)
