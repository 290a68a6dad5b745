"""Building blocks of batching rules (vmap).

A batching rule has the signature ``rule(args, bdims, **params) -> (out,
out_bdim)``: ``args`` are whole batches (arrays or parent-level tracers),
``bdims[i]`` is the axis of ``args[i]`` that is the batch (None when the
argument is the same for every example).  Rules are written with
primitives (through :mod:`.ops`), so they are differentiable and nest.

The helpers here cover the families most primitives belong to:

* :func:`defbatch_elementwise`: operations that apply example by example
  and broadcast like NumPy (``add``, ``sin``, ``select``, ...);
* :func:`move_bdim`, :func:`bdim_to_front`: move (or materialize) the batch
  dim, which is all most structural rules need;
* :func:`shift_axis`, :func:`shift_axes`: per-example axis numbers to the
  batched array's numbers once the batch dim is in front.
"""
from . import ops
from .core import shape_of

__all__ = [
    "move_bdim",
    "bdim_to_front",
    "batch_size",
    "shift_axis",
    "shift_axes",
    "elementwise_batch_rule",
    "defbatch_elementwise",
    "defbatch_unary",
    "axes_batch_rule",
    "defbatch_axes",
]


def batch_size(args, bdims):
    """The batch length, read off the first batched argument."""
    for a, d in zip(args, bdims):
        if d is not None:
            return shape_of(a)[d]
    raise ValueError("no batched argument")


def move_bdim(x, src, dst):
    """Move axis ``src`` of ``x`` to position ``dst`` (a transpose)."""
    nd = len(shape_of(x))
    dst = dst % nd
    if src == dst:
        return x
    perm = [i for i in range(nd) if i != src]
    perm.insert(dst, src)
    return ops.transpose(x, tuple(perm))


def bdim_to_front(x, bdim, size):
    """``x`` with its batch dim at axis 0; an unbatched ``x`` is broadcast
    to ``(size,) + x.shape``."""
    if bdim is None:
        shape = tuple(shape_of(x))
        return ops.broadcast_to(ops.reshape(x, (1,) + shape), (size,) + shape)
    return move_bdim(x, bdim, 0)


def shift_axis(axis, ndim):
    """Per-example ``axis`` (may be negative) of an ``ndim``-d example, as
    an axis of the batched array whose batch dim is at 0."""
    return (axis % ndim) + 1 if ndim else axis + 1


def shift_axes(axes, ndim):
    """:func:`shift_axis` over a tuple (None stays None: all axes)."""
    if axes is None:
        return None
    return tuple(shift_axis(a, ndim) for a in axes)


def elementwise_batch_rule(prim):
    """The rule of an operation that works example by example with NumPy
    broadcasting between its arguments.

    Batched arguments get their batch dim in front and, when an example has
    fewer axes than the result, singleton axes after it so that the batch
    axes line up; unbatched arguments broadcast as they would for one
    example.  The result is batched at axis 0.
    """

    def rule(args, bdims, **params):
        ranks = [len(shape_of(a)) - (d is not None) for a, d in zip(args, bdims)]
        rank = max(ranks)
        moved = []
        for a, d, r in zip(args, bdims, ranks):
            if d is None:
                moved.append(a)
                continue
            a = move_bdim(a, d, 0)
            if r < rank:
                s = tuple(shape_of(a))
                a = ops.reshape(a, s[:1] + (1,) * (rank - r) + s[1:])
            moved.append(a)
        out = prim.bind(*moved, **params)
        if prim.multiple_results:
            return out, [0] * len(out)
        return out, 0

    return rule


def defbatch_elementwise(*prims):
    """Give each of ``prims`` the :func:`elementwise_batch_rule`."""
    for prim in prims:
        prim.batch = elementwise_batch_rule(prim)


def defbatch_unary(*prims):
    """Rule of one-argument operations that act on each element (or that
    otherwise ignore axes): apply as is, the batch dim stays where it is."""

    def make(prim):
        def rule(args, bdims, **params):
            (x,), (d,) = args, bdims
            return prim.bind(x, **params), d

        return rule

    for prim in prims:
        prim.batch = make(prim)


def _shift_param(value):
    """Per-example axis (int) or axes (tuple) once a batch axis is in front:
    non-negative axes move up by one, negative ones count from the end and
    stay."""
    if value is None:
        return None
    if isinstance(value, tuple):
        return tuple(a + 1 if a >= 0 else a for a in value)
    return value + 1 if value >= 0 else value


def axes_batch_rule(prim, params_to_shift=("axes",)):
    """The rule of an operation whose static params name axes of its
    arguments (reductions, softmax, cumsum, ...): every argument gets the
    batch in front (unbatched ones are broadcast), the named params shift by
    one, the primitive runs once; the result is batched at axis 0."""

    def rule(args, bdims, **params):
        size = batch_size(args, bdims)
        moved = [a if a is None else bdim_to_front(a, d, size) for a, d in zip(args, bdims)]
        for name in params_to_shift:
            params[name] = _shift_param(params[name])
        out = prim.bind(*moved, **params)
        if prim.multiple_results:
            return out, [0] * len(out)
        return out, 0

    return rule


def defbatch_axes(prim, *params_to_shift):
    """Give ``prim`` the :func:`axes_batch_rule` (default param: ``axes``)."""
    prim.batch = axes_batch_rule(prim, params_to_shift or ("axes",))
