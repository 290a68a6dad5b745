"""Repetition, flipping, rolling and padding in ``tracegrad.numpy``: tile,
repeat, flip, fliplr, flipud, roll and pad.

Built from the structural primitives (``broadcast_to``, ``rev``, ``slice``,
``concatenate``, ``pad``) where the result is a rearrangement of the input,
and from ``gather`` (whose VJP is a ``scatter_add`` that accumulates
repeated positions) for ``repeat`` with per-element counts and the
non-constant ``pad`` modes.  Counts and pad widths are read from concrete
values, so result shapes are always concrete.  Each function is registered
for NumPy's dispatch, so ``np.pad(tracer, 1)`` works.
"""
import operator

import numpy as np
from numpy.lib.array_utils import normalize_axis_index, normalize_axis_tuple

from ..core import Tracer
from ..primitives import ops
from ._core import _array, _concrete_ints, _contains_tracer
from ._dispatch import implements
from ._indexing import getitem
from ._shape import broadcast_to, ravel, reshape

__all__ = [
    "tile",
    "repeat",
    "flip",
    "fliplr",
    "flipud",
    "roll",
    "pad",
]


# ==========================================================================
# repetition, flipping, rolling


@implements(np.tile)
def tile(A, reps):
    """Repeat ``A`` ``reps`` times per axis (NumPy's rank-matching rules).

    Parameters
    ----------
    A : array_like or tracer
    reps : int or sequence of ints
        Repetitions per axis.  If ``reps`` is shorter than ``A.ndim`` it is
        padded with leading 1s; if longer, ``A`` gets leading length-1 axes.

    Returns
    -------
    array or tracer
        ``A``'s dtype; shape ``reps[i] * A.shape[i]`` per (padded) axis.

    Raises
    ------
    ValueError
        If a repetition count is negative.
    TypeError
        If a repetition count is not an integer.

    Notes
    -----
    Implemented as reshape + broadcast + reshape, so the VJP sums the
    cotangent over the copies.
    """
    A = _array(A)
    reps = (reps,) if np.ndim(reps) == 0 else tuple(reps)
    reps = tuple(operator.index(r) for r in reps)
    if any(r < 0 for r in reps):
        raise ValueError(f"negative dimensions are not allowed in tile reps {reps}")
    shape = tuple(A.shape)
    d = max(len(reps), len(shape))
    shape = (1,) * (d - len(shape)) + shape
    reps = (1,) * (d - len(reps)) + reps
    inter = tuple(v for r, n in zip(reps, shape) for v in (1, n))
    big = tuple(v for r, n in zip(reps, shape) for v in (r, n))
    out = ops.broadcast_to(ops.reshape(A, inter), big)
    return ops.reshape(out, tuple(r * n for r, n in zip(reps, shape)))


@implements(np.repeat)
def repeat(a, repeats, axis=None):
    """Repeat each element of ``a`` along ``axis`` (``None``: of the flattened ``a``).

    Parameters
    ----------
    a : array_like or tracer
    repeats : int or sequence of ints
        One count for all elements, or one per element along ``axis``.
    axis : int, optional

    Returns
    -------
    array or tracer
        The VJP sums the cotangents of the copies of each element (a
        ``scatter_add`` for per-element counts).

    Raises
    ------
    ValueError
        Negative counts or a count sequence of the wrong length.
    """
    a = _array(a)
    if axis is None:
        a = ravel(a)
        axis = 0
    axis = normalize_axis_index(axis, a.ndim)
    reps = _concrete_ints(repeats, "repeats")
    n = a.shape[axis]
    if reps.size == 1:
        r = int(reps.reshape(-1)[0])
        if r < 0:
            raise ValueError("negative dimensions are not allowed")
        s = tuple(a.shape)
        inner = s[: axis + 1] + (1,) + s[axis + 1:]
        out = ops.broadcast_to(ops.reshape(a, inner), s[: axis + 1] + (r,) + s[axis + 1:])
        return ops.reshape(out, s[:axis] + (n * r,) + s[axis + 1:])
    idx = np.repeat(np.arange(n), reps)  # NumPy's checks of the counts
    return ops.gather(a, idx, axis)


@implements(np.flip)
def flip(m, axis=None):
    """Reverse the order of elements along ``axis``.

    Parameters
    ----------
    m : array_like or tracer
    axis : None, int or tuple of ints, optional
        Axes to reverse (negative counts from the end); None reverses all.

    Returns
    -------
    array or tracer
        ``m``'s shape and dtype.

    Raises
    ------
    numpy.exceptions.AxisError
        If an axis is out of range.

    Notes
    -----
    Linear: the cotangent is reversed along the same axes.
    """
    m = _array(m)
    axes = tuple(range(m.ndim)) if axis is None else normalize_axis_tuple(axis, m.ndim)
    return ops.rev(m, axes)


def _flip_one(m, axis):
    m = _array(m)
    if m.ndim <= axis:
        raise ValueError(f"Input must be >= {axis + 1}-d.")
    return ops.rev(m, (axis,))


@implements(np.fliplr)
def fliplr(m):
    """Reverse the order of elements along axis 1 (left/right).

    Parameters
    ----------
    m : array_like or tracer
        At least 2-D.

    Returns
    -------
    array or tracer
        ``m``'s shape and dtype.

    Raises
    ------
    ValueError
        If ``m`` has fewer than two dimensions.

    Notes
    -----
    Linear: the cotangent is reversed along axis 1.
    """
    return _flip_one(m, 1)


@implements(np.flipud)
def flipud(m):
    """Reverse the order of elements along axis 0 (up/down).

    Parameters
    ----------
    m : array_like or tracer
        At least 1-D.

    Returns
    -------
    array or tracer
        ``m``'s shape and dtype.

    Raises
    ------
    ValueError
        If ``m`` is 0-d.

    Notes
    -----
    Linear: the cotangent is reversed along axis 0.
    """
    return _flip_one(m, 0)


@implements(np.roll)
def roll(a, shift, axis=None):
    """Shift elements cyclically by ``shift`` along ``axis``.

    Parameters
    ----------
    a : array_like or tracer
    shift : int or tuple of ints
    axis : int or tuple of ints, optional
        None rolls the flattened array and restores the shape.  ``shift``
        and ``axis`` broadcast against each other; shifts of a repeated axis
        add up.

    Returns
    -------
    array or tracer
        ``a``'s shape and dtype.

    Raises
    ------
    ValueError
        If ``shift`` and ``axis`` do not broadcast together or are more than
        1-D.
    numpy.exceptions.AxisError
        If an axis is out of range.

    Notes
    -----
    Two slices concatenated per rolled axis, so the cotangent is rolled
    back by ``-shift``.
    """
    a = _array(a)
    if axis is None:
        return reshape(roll(ravel(a), shift, 0), a.shape)
    b = np.broadcast(np.asarray(shift), np.asarray(axis))
    if b.ndim > 1:
        raise ValueError("'shift' and 'axis' should be scalars or 1D sequences")
    shifts = {}
    for sh, ax in b:
        ax = normalize_axis_index(int(ax), a.ndim)
        shifts[ax] = shifts.get(ax, 0) + int(sh)
    for ax, sh in shifts.items():
        n = a.shape[ax]
        if n == 0 or sh % n == 0:
            continue
        k = n - sh % n  # the result starts at element k
        pre = (slice(None),) * ax
        head, tail = getitem(a, pre + (slice(k, None),)), getitem(a, pre + (slice(0, k),))
        a = ops.concatenate([head, tail], ax)
    return a


# ==========================================================================
# padding


def _as_pairs(x, ndim, what):
    """NumPy's reading of ``pad_width``/``constant_values`` as ``ndim`` (before, after) pairs."""
    x = np.asarray(x)
    if x.ndim < 3:
        if x.size == 1:
            return [(x.reshape(-1)[0],) * 2] * ndim
        if x.size == 2 and x.shape != (2, 1):
            v = x.reshape(-1)
            return [(v[0], v[1])] * ndim
    try:
        return [tuple(p) for p in np.broadcast_to(x, (ndim, 2))]
    except ValueError:
        raise ValueError(
            f"{what} of shape {x.shape} cannot be read as (before, after) pairs for "
            f"{ndim} axes: use an int, (before, after), or ((before_1, after_1), ...)"
        ) from None


_PAD_MODES = ("constant", "edge", "reflect", "symmetric", "wrap", "empty")
_NP_PAD_MODES = ("linear_ramp", "maximum", "mean", "median", "minimum")


@implements(np.pad)
def pad(array, pad_width, mode="constant", **kwargs):
    """Pad an array, NumPy's ``pad`` for the modes below.

    Parameters
    ----------
    array : array_like or tracer
    pad_width : int or sequence
        ``n``, ``(n,)``, ``(before, after)``, ``((before, after),)`` or one
        ``(before, after)`` pair per axis; non-negative integers.
    mode : {"constant", "edge", "reflect", "symmetric", "wrap", "empty"}, optional
        "empty" leaves the padding undefined in NumPy; here it is zero.
    constant_values : scalar or pairs, optional
        For "constant" (default 0), read like ``pad_width``; may be traced,
        then the result is differentiable in it too.
    reflect_type : {"even"}, optional
        For "reflect"/"symmetric"; "odd" is not supported.

    Returns
    -------
    array or tracer
        "constant" lowers to the ``pad`` primitive (its VJP is a strided
        slice).  The other modes are one ``gather`` per padded axis with the
        positions NumPy's own ``pad`` produces for ``arange(n)``, so
        reflected/edge elements accumulate their copies' cotangents.

    Raises
    ------
    ValueError
        Negative widths, an unknown mode or keyword, or padding an empty
        axis with a non-constant mode.
    TypeError
        Non-integer widths.
    NotImplementedError
        For NumPy's statistical modes, callables and ``reflect_type="odd"``.
    """
    array = _array(array)
    widths = np.asarray(pad_width)
    if widths.dtype.kind not in "iu":
        raise TypeError("`pad_width` must be of integral type.")
    pairs = [(int(b), int(a)) for b, a in _as_pairs(widths, array.ndim, "pad_width")]
    if any(b < 0 or a < 0 for b, a in pairs):
        raise ValueError("index can't contain negative values")
    allowed = {"constant": {"constant_values"}, "edge": set(), "wrap": set(), "empty": set(),
               "reflect": {"reflect_type"}, "symmetric": {"reflect_type"}}
    if callable(mode) or mode in _NP_PAD_MODES:
        raise NotImplementedError(
            f"np.pad mode {mode!r} is not supported by tracegrad; supported modes: "
            f"{', '.join(_PAD_MODES)}"
        )
    if mode not in allowed:
        raise ValueError(f"mode '{mode}' is not supported")
    bad = set(kwargs) - allowed[mode]
    if bad:
        raise ValueError(f"unsupported keyword arguments for mode '{mode}': {sorted(bad)}")
    if kwargs.get("reflect_type", "even") != "even":
        raise NotImplementedError("pad with reflect_type='odd' is not supported; use 'even'")
    if mode in ("constant", "empty"):
        return _pad_constant(array, pairs, kwargs.get("constant_values", 0))
    for ax, (b, a) in enumerate(pairs):
        if b == a == 0:
            continue
        n = array.shape[ax]
        if n == 0:
            raise ValueError(
                f"can't extend empty axis {ax} using modes other than 'constant' or 'empty'"
            )
        idx = np.pad(np.arange(n), (b, a), mode=mode)
        array = ops.gather(array, idx, ax)
    return array


def _pad_constant(array, pairs, values):
    if isinstance(values, Tracer) or _contains_tracer(values):
        return _pad_traced_constant(array, pairs, _array(values))
    vals = _as_pairs(values, array.ndim, "constant_values")
    flat = [v for p in vals for v in p]
    if len(set(flat)) <= 1:  # one value everywhere: a single pad
        return ops.pad(array, [(b, a, 0) for b, a in pairs], flat[0] if flat else 0)
    # different values per side: one pad per side; later axes cover the corners
    for ax, ((b, a), (vb, va)) in enumerate(zip(pairs, vals)):
        for cfg, v in (((b, 0, 0), vb), ((0, a, 0), va)):
            if cfg != (0, 0, 0):
                config = [(0, 0, 0)] * array.ndim
                config[ax] = cfg
                array = ops.pad(array, config, v)
    return array


def _pad_traced_constant(array, pairs, values):
    if values.size == 2 and values.ndim < 3 and tuple(values.shape) != (2, 1):
        values = ops.reshape(values, (1, 2))  # (before, after) for every axis
    if values.ndim:
        values = broadcast_to(values, (array.ndim, 2))
    for ax, (b, a) in enumerate(pairs):
        parts = []
        for side, w in ((0, b), (1, a)):
            if w:
                v = values if values.ndim == 0 else getitem(values, (ax, side))
                s = list(array.shape)
                s[ax] = w
                parts.append(ops.broadcast_to(ops.convert_element_type(v, array.dtype), tuple(s)))
        if parts:
            parts.insert(1 if b else 0, array)
            array = ops.concatenate(parts, ax)
    return array
