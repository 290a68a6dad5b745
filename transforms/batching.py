"""``vmap``: vectorizing map, with JAX's ``in_axes`` / ``out_axes``."""
import functools

import numpy as np

from ..interpreters.batching import BatchTrace, BatchTracer
from ..core import Tracer, new_trace
from ..primitives import ops
from ..primitives.batching import bdim_to_front, move_bdim
from ..tree_util import tree_flatten, tree_unflatten

__all__ = ["vmap"]


def _check_axis_spec(spec, what):
    if spec is not None and not isinstance(spec, (int, np.integer)):
        raise TypeError(
            f"vmap {what} must be an int, None, or a (nested) tuple/list/dict of them "
            f"matching the arguments; got {spec!r}"
        )


def _broadcast_prefix(spec, tree, what):
    """Leaves of ``spec`` broadcast over the leaves of ``tree`` (``spec`` is a
    tree prefix of ``tree``): one axis spec per leaf of ``tree``."""
    tree_leaves, tree_def = tree_flatten(tree)
    if spec is None or isinstance(spec, (int, np.integer)):
        return [spec] * len(tree_leaves)
    out = []

    def walk(s, t, path):
        if s is None or isinstance(s, (int, np.integer)):
            n = len(tree_flatten(t)[0])
            out.extend([s] * n)
            return
        if isinstance(s, (tuple, list)) and isinstance(t, (tuple, list)):
            if len(s) != len(t):
                raise ValueError(
                    f"vmap {what} specification must be a tree prefix of the corresponding "
                    f"value; got {what} {path}with {len(s)} entries for a value with "
                    f"{len(t)} entries"
                )
            for i, (si, ti) in enumerate(zip(s, t)):
                walk(si, ti, f"{path}[{i}] ")
            return
        if isinstance(s, dict) and isinstance(t, dict):
            if set(s) != set(t):
                raise ValueError(
                    f"vmap {what} specification must be a tree prefix of the corresponding "
                    f"value; got dict keys {sorted(s)} for a value with keys {sorted(t)}"
                )
            for k in sorted(t):
                walk(s[k], t[k], f"{path}[{k!r}] ")
            return
        if not isinstance(s, (tuple, list, dict)):
            _check_axis_spec(s, what)
        # a registered pytree node or a structure mismatch
        s_leaves, s_def = tree_flatten(s, is_leaf=lambda x: x is None)
        t_leaves, t_def = tree_flatten(t)
        if len(s_leaves) == len(t_leaves):
            out.extend(s_leaves)
            return
        raise ValueError(
            f"vmap {what} specification must be a tree prefix of the corresponding value; "
            f"got {what} {s!r} for a value of structure {t_def}"
        )

    walk(spec, tree, "")
    for s in out:
        _check_axis_spec(s, what)
    return out


def vmap(fun, in_axes=0, out_axes=0, *, axis_size=None, spmd_axis_name=None):
    """Vectorizing map: ``fun`` applied to each slice of its arguments along
    the mapped axes, computed as one batched computation.

    Parameters
    ----------
    fun : callable
        Takes pytrees of arrays; returns a pytree of arrays.
    in_axes : int, None, or pytree of them
        Which axis of each argument is mapped: an int (negative counts from
        the end), None for an argument broadcast to every call; a tuple
        (one entry per positional argument) or nested structure that is a
        tree prefix of the arguments.  Keyword arguments are always mapped
        over axis 0.
    out_axes : int, None, or pytree of them
        Where the mapped axis goes in each output; None means the output is
        the same for every example (it must not depend on a mapped input).
    axis_size : int, optional
        The size of the mapped axis.  Required when no argument is mapped
        (``in_axes=None``, or no arguments): every output is then
        broadcast to that size.  Otherwise it must equal the mapped axes'
        length.
    spmd_axis_name : optional
        Accepted for JAX compatibility and ignored: tracegrad runs on one
        device and does not partition the batch.

    Returns
    -------
    callable
        With the signature of ``fun``; each output gains the mapped axis.

    Raises
    ------
    ValueError
        If the mapped axes of the arguments have different lengths (or
        differ from ``axis_size``), an axis is out of range, no argument is
        mapped and no ``axis_size`` is given, an ``in_axes``/``out_axes`` structure does not match, or an
        output with ``out_axes=None`` depends on a mapped input.
    tracegrad.interpreters.batching.BatchedValueError
        (a TypeError) if ``fun`` needs one concrete value of a batched
        value (``if x > 0``, ``int(x)``).

    Notes
    -----
    JAX's semantics (``jax.vmap``): each primitive has a batching rule that
    processes the whole batch at once; ``vmap`` composes with ``grad``,
    ``jvp``, ``vjp``, the Jacobians and itself in any order.
    """
    if not callable(fun):
        raise TypeError(f"vmap expects a callable, got {type(fun).__name__}")
    del spmd_axis_name  # one device: nothing to partition
    if axis_size is not None:
        if isinstance(axis_size, bool) or not isinstance(axis_size, (int, np.integer)) \
                or axis_size < 0:
            raise TypeError(f"vmap axis_size must be a non-negative int, got {axis_size!r}")
        axis_size = int(axis_size)
    if isinstance(in_axes, list) and not isinstance(in_axes, tuple):
        in_axes = tuple(in_axes)  # JAX treats a top-level list like a tuple

    @functools.wraps(fun)
    def batched(*args, **kwargs):
        if isinstance(in_axes, tuple) and len(in_axes) != len(args):
            raise ValueError(
                f"vmap in_axes must be an int, None, or a tuple of entries corresponding "
                f"to the positional arguments passed to the function, but got "
                f"len(in_axes)={len(in_axes)}, len(args)={len(args)}"
            )
        leaves, treedef = tree_flatten((args, kwargs))
        specs = _broadcast_prefix((in_axes, 0), (args, kwargs), "in_axes") if kwargs else \
            _broadcast_prefix(in_axes, args, "in_axes") + []
        size = None
        sizes = []
        vals = []
        for x, ax in zip(leaves, specs):
            if ax is None:
                vals.append((x, None))
                continue
            shape = np.shape(x)
            nd = len(shape)
            if not -nd <= ax < nd:
                raise ValueError(
                    f"vmap was requested to map its argument along axis {ax}, which "
                    f"implies that its rank should be at least {ax + 1 if ax >= 0 else -ax}, "
                    f"but is only {nd} (its shape is {shape})"
                )
            ax = ax % nd
            sizes.append(shape[ax])
            vals.append((x, ax))
        if not sizes and axis_size is None:
            raise ValueError("vmap must have at least one non-None value in in_axes, "
                             "or be given axis_size")
        size = sizes[0] if axis_size is None else axis_size
        if any(s != size for s in sizes):
            mapped = [f"axis {ax} of an argument of shape {np.shape(x)} has size "
                      f"{np.shape(x)[ax]}" for x, ax in vals if ax is not None]
            if axis_size is not None:
                mapped.insert(0, f"the axis_size argument was {axis_size}")
            raise ValueError(
                "vmap got inconsistent sizes for array axes to be mapped:\n  "
                + "\n  ".join(mapped)
            )
        with new_trace(BatchTrace, size) as trace:
            # unmapped leaves go in untouched (a Python scalar stays weakly typed)
            ins = [x if ax is None else trace.new_arg(_as_array(x), ax) for x, ax in vals]
            a, k = tree_unflatten(treedef, ins)
            out = fun(*a, **k)
            out_leaves, out_def = tree_flatten(out)
            out_specs = _broadcast_prefix(out_axes, out, "out_axes")
            inputs = [x for x, _ in vals if isinstance(x, np.ndarray)]
            results = [_out(trace, o, ax, size, inputs) for o, ax in zip(out_leaves, out_specs)]
        return tree_unflatten(out_def, results)

    return batched


def _as_array(x):
    if isinstance(x, Tracer):
        return x
    return np.asarray(x)


def _out(trace, o, ax, size, inputs):
    batched = type(o) is BatchTracer and o._trace is trace
    if ax is None:
        if batched:
            raise ValueError(
                "vmap has mapped output but out_axes is None: an output with "
                "out_axes=None must not depend on a mapped input"
            )
        return o
    if not batched:
        # the same for every example: broadcast along the new axis
        o = o if isinstance(o, Tracer) else np.asarray(o)
        val, bdim = bdim_to_front(o, None, size), 0
    else:
        val, bdim = o.val, o.bdim
    nd = len(np.shape(val))
    if not -nd <= ax < nd:
        raise ValueError(
            f"vmap out_axes {ax} is out of range for an output of rank {nd - 1} "
            f"(shape {np.shape(val)[:bdim] + np.shape(val)[bdim + 1:]})"
        )
    out = move_bdim(val, bdim, ax % nd)
    if not isinstance(out, Tracer):
        out = np.asarray(out)
        # fresh and writable: copy broadcasts and views of the arguments only
        # (a per-example gradient can be hundreds of MB; views of the
        # computation's own temporaries are returned as they are)
        if not out.flags.writeable or any(np.may_share_memory(out, x) for x in inputs):
            out = np.array(out)
    return out


del ops
