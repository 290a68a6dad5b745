"""Structural primitives every rule relies on, and the broadcasting helpers.

Owns ``reshape``, ``transpose``, ``broadcast_to``, ``sum_to_shape`` (the one
unbroadcast reduction), ``reduce_sum`` and ``convert_element_type``, plus the
helpers :func:`unbroadcast` and :func:`match_aval` that the rule-declaring
helpers call so no rule author can forget broadcasting.
"""
import builtins

import numpy as np

from .core import (
    Primitive,
    ShapedArray,
    defjvp,
    defjvp_linear,
    defvjp,
    defvjp_variadic,
    dtype_of,
    shape_of,
)
from .batching import defbatch_axes, defbatch_unary, move_bdim
from .kernels import FLOAT_DTYPES, kernel
from .lowering import ArrayOp, Elementwise, Reduction

__all__ = [
    "reshape",
    "transpose",
    "broadcast_to",
    "sum_to_shape",
    "reduce_sum",
    "convert_element_type",
    "concatenate",
    "split",
    "stack_rows",
    "slice",
    "pad",
    "rev",
    "unbroadcast",
    "defvjp_broadcasting",
    "match_aval",
    "zeros_like",
    "ones_like",
    "full_like",
]


_pyslice = builtins.slice


# --------------------------------------------------------------------------
# reshape
reshape_p = Primitive("reshape")
reshape_p.reads = ((), False)
reshape_p.torch_name = "ViewBackward0"


def _lower_reshape(ctx, eqn, operands, outputs):
    if not hasattr(eqn.invars[0], "count"):  # a literal operand: left to the impl
        return None
    return [f"{outputs[0]} = {operands[0]}.reshape({tuple(eqn.params['shape'])!r})"]


reshape_p.lowering = ArrayOp(_lower_reshape)


@reshape_p.def_impl
def _reshape_impl(x, *, shape):
    return np.reshape(x, shape)


@reshape_p.def_abstract_eval
def _reshape_aval(x, *, shape):
    if int(np.prod(x.shape)) != int(np.prod(shape)):
        raise ValueError(f"cannot reshape array of shape {x.shape} into shape {shape}")
    return ShapedArray(shape, x.dtype)


defjvp_linear(reshape_p)
defvjp(reshape_p, lambda ct, ans, x, *, shape: reshape(ct, shape_of(x)))


def _reshape_batch(args, bdims, *, shape):
    x = move_bdim(args[0], bdims[0], 0)
    return reshape_p.bind(x, shape=shape_of(x)[:1] + shape), 0


reshape_p.batch = _reshape_batch


def reshape(x, shape):
    """Reshape ``x`` to ``shape`` (a tuple of ints, no -1; see ``tnp.reshape``)."""
    shape = tuple(int(s) for s in shape)
    if shape_of(x) == shape:
        return x
    return reshape_p.bind(x, shape=shape)


# --------------------------------------------------------------------------
# transpose
transpose_p = Primitive("transpose")


def _lower_transpose(ctx, eqn, operands, outputs):
    if not hasattr(eqn.invars[0], "count"):
        return None
    axes = tuple(eqn.params["axes"])
    x, y = operands[0], outputs[0]
    if axes == tuple(range(len(axes))):
        return [f"{y} = {x}"]
    # a copying loop (compiled code keeps every array C-contiguous; Numba's
    # transpose with an axes tuple measured 4 s of compile time)
    shape = tuple(eqn.outvars[0].aval.shape)
    idx = [ctx.fresh("j") for _ in shape]
    src = [None] * len(axes)
    for d, a in enumerate(axes):
        src[a] = idx[d]
    lines = [f"{y} = np.empty({shape!r}, {ctx.dtype(eqn.outvars[0].aval.dtype)})"]
    for d, n in enumerate(shape):
        lines.append("    " * d + f"for {idx[d]} in range({n}):")
    lines.append("    " * len(shape) + f"{y}[{', '.join(idx)}] = {x}[{', '.join(src)}]")
    return lines


transpose_p.lowering = ArrayOp(_lower_transpose)
transpose_p.reads = ((), False)
transpose_p.torch_name = "PermuteBackward0"


@transpose_p.def_impl
def _transpose_impl(x, *, axes):
    return np.transpose(x, axes)


@transpose_p.def_abstract_eval
def _transpose_aval(x, *, axes):
    return ShapedArray(tuple(x.shape[a] for a in axes), x.dtype)


defjvp_linear(transpose_p)
defvjp(
    transpose_p,
    lambda ct, ans, x, *, axes: transpose(ct, tuple(int(i) for i in np.argsort(axes))),
)


def _transpose_batch(args, bdims, *, axes):
    (x,), (d,) = args, bdims
    # per-example axis a is batched axis a + (a >= d); the batch stays at d
    full = [a + (a >= d) for a in axes]
    full.insert(d, d)
    return transpose_p.bind(x, axes=tuple(full)), d


transpose_p.batch = _transpose_batch


def transpose(x, axes):
    """Permute the axes of ``x``; ``axes`` is a permutation of ``range(ndim)``."""
    axes = tuple(int(a) for a in axes)
    if axes == tuple(range(len(axes))):
        return x
    return transpose_p.bind(x, axes=axes)


# --------------------------------------------------------------------------
# broadcast_to
broadcast_to_p = Primitive("broadcast_to")
broadcast_to_p.reads = ((), False)
broadcast_to_p.torch_name = "ExpandBackward0"
broadcast_to_p.lowering = Elementwise("{0}")  # the loop broadcasts its operands


@broadcast_to_p.def_impl
def _broadcast_to_impl(x, *, shape):
    return np.broadcast_to(x, shape)


@broadcast_to_p.def_abstract_eval
def _broadcast_to_aval(x, *, shape):
    np.broadcast_shapes(x.shape, shape)
    return ShapedArray(shape, x.dtype)


defjvp_linear(broadcast_to_p)
defvjp(broadcast_to_p, lambda ct, ans, x, *, shape: sum_to_shape(ct, shape_of(x)))


def _broadcast_to_batch(args, bdims, *, shape):
    x = move_bdim(args[0], bdims[0], 0)
    xs = shape_of(x)
    x = reshape(x, xs[:1] + (1,) * (len(shape) - len(xs) + 1) + xs[1:])
    return broadcast_to_p.bind(x, shape=xs[:1] + shape), 0


broadcast_to_p.batch = _broadcast_to_batch


def broadcast_to(x, shape):
    """Broadcast ``x`` to ``shape`` with NumPy's rules (a read-only view)."""
    shape = tuple(int(s) for s in shape)
    if shape_of(x) == shape:
        return x
    return broadcast_to_p.bind(x, shape=shape)


# --------------------------------------------------------------------------
# sum_to_shape: the one unbroadcast reduction
sum_to_shape_p = Primitive("sum_to_shape")
sum_to_shape_p.reads = ((), False)
sum_to_shape_p.torch_name = "SumToSizeBackward0"


def _sum_to_shape_index(in_shape, out_shape, params):
    lead = len(in_shape) - len(out_shape)
    return [None if d < lead else "0" if out_shape[d - lead] == 1 and n != 1 else d - lead
            for d, n in enumerate(in_shape)]


sum_to_shape_p.lowering = Reduction(_sum_to_shape_index)


def _sum_to_shape_axes(in_shape, shape):
    lead = len(in_shape) - len(shape)
    axes = tuple(range(lead)) + tuple(
        lead + i for i, s in enumerate(shape) if s == 1 and in_shape[lead + i] != 1
    )
    return axes


@kernel
def _sum_rows_kernel(x, out):
    # out[j] = sum_i x[i, j] for a C-contiguous (n, m) x: one pass over memory
    n, m = x.shape
    for j in range(m):
        out[j] = 0.0
    for i in range(n):
        for j in range(m):
            out[j] += x[i, j]


@sum_to_shape_p.def_impl
def _sum_to_shape_impl(x, *, shape):
    """Sum ``x`` over its broadcast axes down to ``shape``.

    Summing the leading axis of a C-contiguous float array (the cotangent of
    a bias broadcast over a batch) runs in a Numba kernel in one pass; other
    cases use ``np.sum`` (see the kernel table in the README).
    """
    x = np.asarray(x)
    in_shape = x.shape
    axes = _sum_to_shape_axes(in_shape, shape)
    if (
        axes == (0,)
        and x.ndim == 2
        and x.dtype in FLOAT_DTYPES
        and x.flags.c_contiguous
        and x.shape[0] >= 8
    ):
        out = np.empty(in_shape[1], dtype=x.dtype)
        _sum_rows_kernel(x, out)
        return out.reshape(shape)
    return np.sum(x, axis=axes).reshape(shape)


@sum_to_shape_p.def_abstract_eval
def _sum_to_shape_aval(x, *, shape):
    return ShapedArray(shape, x.dtype)


defjvp_linear(sum_to_shape_p)
defvjp(sum_to_shape_p, lambda ct, ans, x, *, shape: broadcast_to(ct, shape_of(x)))


def _sum_to_shape_batch(args, bdims, *, shape):
    x = move_bdim(args[0], bdims[0], 0)
    xs = shape_of(x)
    axes = tuple(a + 1 for a in _sum_to_shape_axes(xs[1:], shape))
    return reshape(reduce_sum(x, axes), xs[:1] + shape), 0


sum_to_shape_p.batch = _sum_to_shape_batch


def sum_to_shape(x, shape):
    """Sum ``x`` over the axes that broadcasting from ``shape`` added or stretched."""
    shape = tuple(shape)
    if shape_of(x) == shape:
        return x
    return sum_to_shape_p.bind(x, shape=shape)


# --------------------------------------------------------------------------
# reduce_sum
reduce_sum_p = Primitive("reduce_sum")
reduce_sum_p.lowering = Reduction(
    lambda in_shape, out_shape, params: [None if d in params["axes"] else d
                                         for d in range(len(in_shape))])
reduce_sum_p.reads = ((), False)
reduce_sum_p.torch_name = "SumBackward1"


@reduce_sum_p.def_impl
def _reduce_sum_impl(x, *, axes):
    return np.sum(x, axis=axes)


@reduce_sum_p.def_abstract_eval
def _reduce_sum_aval(x, *, axes):
    shape = tuple(s for i, s in enumerate(x.shape) if i not in axes)
    return ShapedArray(shape, np.sum(np.zeros((), x.dtype)).dtype)


def _expand_reduced(ct, in_shape, axes):
    """Broadcast a reduction's cotangent back over the reduced ``axes``."""
    kept = tuple(1 if i in axes else s for i, s in enumerate(in_shape))
    return broadcast_to(reshape(ct, kept), in_shape)


defjvp_linear(reduce_sum_p)
defvjp(
    reduce_sum_p,
    lambda ct, ans, x, *, axes: _expand_reduced(ct, shape_of(x), axes),
)
defbatch_axes(reduce_sum_p)


def reduce_sum(x, axes):
    """Sum ``x`` over ``axes`` (a tuple of non-negative ints)."""
    return reduce_sum_p.bind(x, axes=tuple(sorted(int(a) for a in axes)))


# --------------------------------------------------------------------------
# convert_element_type
convert_element_type_p = Primitive("convert_element_type")
convert_element_type_p.reads = ((), False)
convert_element_type_p.torch_name = "ToCopyBackward0"
# (float to integer is left to the impl: NaN and out-of-range values differ)
convert_element_type_p.lowering = Elementwise(
    "{0}", accepts=lambda ins, out, params: not (ins[0].kind == "f" and out.kind in "iu"))


@convert_element_type_p.def_impl
def _convert_impl(x, *, dtype):
    x = np.asarray(x)
    if x.dtype.kind == "c" and np.dtype(dtype).kind != "c":
        x = np.real(x)  # complex to real keeps the real part (no ComplexWarning)
    return x.astype(dtype)[()]


@convert_element_type_p.def_abstract_eval
def _convert_aval(x, *, dtype):
    return ShapedArray(shape_of(x), dtype)  # x may be a (weakly typed) scalar


def _is_float(dt):
    """Floating or complex: the dtypes that carry derivatives."""
    return np.dtype(dt).kind in "fc"


# Between float and complex dtypes the cast is linear over the reals: real
# to complex embeds (x + 0j), complex to real keeps the real part, and each
# is the other's transpose for the pairing Re(sum(a * b)) (JAX's convention).
defjvp(
    convert_element_type_p,
    lambda g, ans, x, *, dtype: convert_element_type(g, dtype)
    if _is_float(dtype) and _is_float(dtype_of(x))
    else None,
)
defvjp(
    convert_element_type_p,
    lambda ct, ans, x, *, dtype: convert_element_type(ct, dtype_of(x))
    if _is_float(dtype) and _is_float(dtype_of(x))
    else None,
)
defbatch_unary(convert_element_type_p)


def convert_element_type(x, dtype):
    """Cast ``x`` to ``dtype``; casts between float and complex dtypes carry
    derivatives (complex to real keeps the real part, as JAX does)."""
    dtype = np.dtype(dtype)
    if dtype_of(x) == dtype and hasattr(x, "dtype"):
        return x
    return convert_element_type_p.bind(x, dtype=dtype)


# --------------------------------------------------------------------------
# concatenate
concatenate_p = Primitive("concatenate")
concatenate_p.reads = ((), False)
concatenate_p.torch_name = "CatBackward0"


@concatenate_p.def_impl
def _concatenate_impl(*xs, axis):
    return np.concatenate(xs, axis=axis)


@concatenate_p.def_abstract_eval
def _concatenate_aval(*xs, axis):
    shape = list(xs[0].shape)
    shape[axis] = sum(x.shape[axis] for x in xs)
    return ShapedArray(shape, np.result_type(*[x.dtype for x in xs]))


def _concatenate_vjp(i, ct, ans, *xs, axis):
    start = sum(shape_of(x)[axis] for x in xs[:i])
    starts = [0] * len(ans.shape)
    limits = list(ans.shape)
    starts[axis], limits[axis] = start, start + shape_of(xs[i])[axis]
    return convert_element_type(slice(ct, starts, limits), dtype_of(xs[i]))


defjvp_linear(concatenate_p)
defvjp_variadic(concatenate_p, _concatenate_vjp)
defbatch_axes(concatenate_p, "axis")


def concatenate(xs, axis):
    """Join arrays of equal rank along an existing ``axis`` (non-negative int)."""
    xs = tuple(xs)
    if len(xs) == 1:
        return xs[0]
    return concatenate_p.bind(*xs, axis=int(axis))


# --------------------------------------------------------------------------
# split: consecutive pieces of static sizes along one axis (the transpose of
# concatenate), one operation however many pieces
split_p = Primitive("split", multiple_results=True)
split_p.reads = ((), False)
split_p.torch_name = "SplitWithSizesBackward0"


@split_p.def_impl
def _split_impl(x, *, sizes, axis):
    x = np.asarray(x)
    return np.split(x, np.cumsum(sizes[:-1]).tolist(), axis=axis)


@split_p.def_abstract_eval
def _split_aval(x, *, sizes, axis):
    if sum(sizes) != x.shape[axis] or any(k < 0 for k in sizes):
        raise ValueError(f"split: sizes {sizes} do not partition axis {axis} of length "
                         f"{x.shape[axis]}")
    out = []
    for k in sizes:
        shape = list(x.shape)
        shape[axis] = k
        out.append(ShapedArray(tuple(shape), x.dtype))
    return out


def _split_jvp(primals, tangents, *, sizes, axis):
    (x,), (t,) = primals, tangents
    ans = split_p.bind(x, sizes=sizes, axis=axis)
    return ans, (None if t is None else split_p.bind(t, sizes=sizes, axis=axis))


def _split_vjp(ct, ans, x, *, sizes, axis):
    # pieces without a cotangent are symbolic zeros: materialize them for the join
    pieces = [zeros_like(a) if c is None else c for c, a in zip(ct, ans)]
    return concatenate(pieces, axis)


split_p.jvp = _split_jvp
defvjp(split_p, _split_vjp)
defbatch_axes(split_p, "axis")


def split(x, sizes, axis):
    """Consecutive pieces of ``x`` along ``axis`` (non-negative int), of lengths
    ``sizes`` (summing to ``x.shape[axis]``).  The cotangent is the
    concatenation of the pieces' cotangents (zeros where a piece has none).

    Returns
    -------
    list of arrays or tracers
    """
    sizes = tuple(int(k) for k in sizes)
    return list(split_p.bind(x, sizes=sizes, axis=int(axis)))


def stack_rows(rows):
    """Stack equally shaped arrays along a new leading axis."""
    rows = [reshape(r, (1,) + shape_of(r)) for r in rows]
    return concatenate(rows, 0)


# --------------------------------------------------------------------------
# slice (static, positive strides)
slice_p = Primitive("slice")
slice_p.reads = ((), False)
slice_p.torch_name = "SliceBackward0"


@slice_p.def_impl
def _slice_impl(x, *, start_indices, limit_indices, strides):
    return np.asarray(x)[_index(start_indices, limit_indices, strides)]


def _index(starts, limits, strides):
    return tuple(_pyslice(a, b, c) for a, b, c in zip(starts, limits, strides))


@slice_p.def_abstract_eval
def _slice_aval(x, *, start_indices, limit_indices, strides):
    shape = tuple(
        max(0, -(-(b - a) // c)) for a, b, c in zip(start_indices, limit_indices, strides)
    )
    return ShapedArray(shape, x.dtype)


def _slice_vjp(ct, ans, x, *, start_indices, limit_indices, strides):
    config = []
    for n, a, s, m in zip(shape_of(x), start_indices, strides, shape_of(ans)):
        last = a + (m - 1) * s if m else a - 1
        config.append((a, n - last - 1, s - 1) if m else (0, n, 0))
    if any(m == 0 for m in shape_of(ans)):
        return np.zeros(shape_of(x), dtype_of(ct))
    return pad(ct, config)


defjvp_linear(slice_p)
defvjp(slice_p, _slice_vjp)


def _slice_batch(args, bdims, *, start_indices, limit_indices, strides):
    (x,), (d,) = args, bdims
    return slice_p.bind(
        x,
        start_indices=start_indices[:d] + (0,) + start_indices[d:],
        limit_indices=limit_indices[:d] + (shape_of(x)[d],) + limit_indices[d:],
        strides=strides[:d] + (1,) + strides[d:],
    ), d


slice_p.batch = _slice_batch


def slice(x, start_indices, limit_indices, strides=None):  # noqa: A001 - lax's name
    """``x[start:limit:stride, ...]`` for static per-axis bounds (strides >= 1)."""
    start_indices = tuple(int(a) for a in start_indices)
    limit_indices = tuple(int(a) for a in limit_indices)
    strides = (1,) * len(start_indices) if strides is None else tuple(int(s) for s in strides)
    if any(s < 1 for s in strides):
        raise ValueError(f"slice strides must be positive, got {strides}; use rev to flip")
    return slice_p.bind(
        x, start_indices=start_indices, limit_indices=limit_indices, strides=strides
    )


# --------------------------------------------------------------------------
# pad (static config of (low, high, interior) per axis, all >= 0)
pad_p = Primitive("pad")
pad_p.reads = ((), False)


def _padded_shape(shape, config):
    return tuple(
        lo + hi + n + max(n - 1, 0) * it for n, (lo, hi, it) in zip(shape, config)
    )


@pad_p.def_impl
def _pad_impl(x, *, config, value):
    x = np.asarray(x)
    out = np.full(_padded_shape(x.shape, config), value, dtype=x.dtype)
    out[tuple(_pyslice(lo, lo + (n - 1) * (it + 1) + 1, it + 1)
              for n, (lo, hi, it) in zip(x.shape, config))] = x
    return out


@pad_p.def_abstract_eval
def _pad_aval(x, *, config, value):
    return ShapedArray(_padded_shape(x.shape, config), x.dtype)


defjvp(pad_p, lambda g, ans, x, *, config, value: pad(g, config, 0.0))
defvjp(
    pad_p,
    lambda ct, ans, x, *, config, value: slice(
        ct,
        [lo for lo, _, _ in config],
        [lo + (n - 1) * (it + 1) + 1 for n, (lo, _, it) in zip(shape_of(x), config)],
        [it + 1 for _, _, it in config],
    ),
)


def _pad_batch(args, bdims, *, config, value):
    (x,), (d,) = args, bdims
    return pad_p.bind(x, config=config[:d] + ((0, 0, 0),) + config[d:], value=value), d


pad_p.batch = _pad_batch


def pad(x, config, value=0.0):
    """Pad ``x`` with the constant ``value``.

    ``config`` holds one ``(low, high, interior)`` triple of non-negative
    ints per axis: ``low``/``high`` elements before/after, ``interior``
    elements between neighbours.
    """
    config = tuple((int(a), int(b), int(c)) for a, b, c in config)
    if any(v < 0 for t in config for v in t):
        raise ValueError(f"pad config entries must be non-negative, got {config}")
    return pad_p.bind(x, config=config, value=float(value))


# --------------------------------------------------------------------------
# rev (flip along static axes)
rev_p = Primitive("rev")
rev_p.reads = ((), False)


@rev_p.def_impl
def _rev_impl(x, *, axes):
    return np.flip(x, axes)


@rev_p.def_abstract_eval
def _rev_aval(x, *, axes):
    return x


defjvp_linear(rev_p)
defvjp(rev_p, lambda ct, ans, x, *, axes: rev(ct, axes))
defbatch_axes(rev_p)


def rev(x, axes):
    """Reverse ``x`` along ``axes`` (a tuple of non-negative ints)."""
    axes = tuple(sorted(int(a) for a in axes))
    if not axes:
        return x
    return rev_p.bind(x, axes=axes)


# --------------------------------------------------------------------------
# helpers used by rule-declaring helpers and transforms


def unbroadcast(ct, like):
    """Reduce a cotangent ``ct`` to the shape and dtype of the primal ``like``.

    Sums over the axes that broadcasting added or stretched, then casts.
    Every broadcasting rule goes through this one function.
    """
    shape = like.shape  # a primal with a cotangent is an array or tracer
    if ct.shape != shape:
        ct = sum_to_shape(ct, shape)
    dtype = like.dtype
    if ct.dtype != dtype:
        ct = convert_element_type(ct, dtype)
    return ct


class BroadcastingRules(tuple):
    """The per-argument VJP rules set by :func:`defvjp_broadcasting`.

    Indexing gives each rule with :func:`unbroadcast` applied to its result.
    ``unwrapped`` holds the rules as written, for the backward pass: it calls
    those and applies :func:`unbroadcast` itself where a cotangent's shape or
    dtype differs from its primal's, which spares the common same-shape case
    a wrapper call and a second check.
    """


def defvjp_broadcasting(prim, *rules):
    """Set per-argument VJP rules of a broadcasting primitive.

    Like :func:`~.core.defvjp`, but each rule's result goes through
    :func:`unbroadcast` to its primal's shape and dtype, so rules may return
    the cotangent in the (broadcast) output shape.
    """

    def wrap(rule, i):
        if rule is None:
            return None

        def vjp_rule(ct, ans, *primals, **params):
            c = rule(ct, ans, *primals, **params)
            return None if c is None else unbroadcast(c, primals[i])

        return vjp_rule

    prim.vjp = BroadcastingRules(wrap(r, i) for i, r in enumerate(rules))
    prim.vjp.unwrapped = rules
    return prim.vjp


def match_aval(t, like):
    """Broadcast and cast a tangent ``t`` to the shape and dtype of ``like``."""
    shape = shape_of(like)
    if shape_of(t) != shape:
        t = broadcast_to(t, shape)
    dtype = dtype_of(like)
    if dtype_of(t) != dtype:
        t = convert_element_type(t, dtype)
    return t


def zeros_like(x):
    """A concrete array of zeros with the shape and dtype of ``x``."""
    return np.zeros(shape_of(x), dtype_of(x))


def ones_like(x):
    """A concrete array of ones with the shape and dtype of ``x``."""
    return np.ones(shape_of(x), dtype_of(x))


def full_like(x, value):
    """``value`` broadcast to the shape of ``x`` (keeps derivatives of ``value``)."""
    return broadcast_to(convert_element_type(value, dtype_of(x)), shape_of(x))

