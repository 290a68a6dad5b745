"""A data set given as Dask collections, as a list of shards.

Each shard is a Dask task (a ``Delayed``, a ``Future`` or a block of a
``dask.array``) whose value reaches the loss on the worker that holds it,
with its shape and dtype when Dask knows them (so bad shards are refused
before any work runs).  The data itself never passes through the client.
"""
import numpy as np

from ..transforms.staging import ShapeDtypeStruct
from ..tree_util import tree_flatten, tree_unflatten

__all__ = ["Shard", "as_shards", "check_specs", "to_arrays", "shard_size"]


class Shard:
    """One unit of work: ``task`` computes a shard (or, for a bag, a list of them).

    ``spec`` is a pytree of :class:`ShapeDtypeStruct` shaped like the shard,
    or None when Dask does not know its shape; ``label`` names it in errors;
    ``batches`` is True for a bag partition (a list of shards summed in order).
    """

    __slots__ = ("task", "spec", "label", "batches")

    def __init__(self, task, spec, label, batches=False):
        self.task, self.spec, self.label, self.batches = task, spec, label, batches


def _is_dask_array(x):
    import dask.array as da  # lazy: optional extra

    return isinstance(x, da.Array)


def _kind(x):
    """'array', 'bag', 'dataframe', 'delayed', 'future' or None."""
    import dask  # lazy: Dask is an optional extra
    from distributed import Future  # lazy: optional extra

    if isinstance(x, Future):
        return "future"
    if not dask.is_dask_collection(x):
        return None
    if _is_dask_array(x):
        return "array"
    module = type(x).__module__
    if module.startswith("dask.bag"):
        return "bag"
    if module.startswith("dask.dataframe") or module.startswith("dask_expr"):
        return "dataframe"
    if module.startswith("dask.delayed"):
        return "delayed"
    return None


def _spec(x):
    if _is_dask_array(x) and not any(np.isnan(d) for d in x.shape):
        return ShapeDtypeStruct(x.shape, x.dtype)
    return None


def _array_blocks(arrays, treedef, where):
    """Shards of a pytree of dask arrays chunked alike along axis 0 only."""
    first = arrays[0]
    for k, a in enumerate(arrays):
        if a.ndim == 0:
            raise ValueError(f"{where}: a 0-d dask array cannot be split into shards along axis 0")
        extra = [i for i in range(1, a.ndim) if len(a.chunks[i]) > 1]
        if extra:
            fix = ", ".join(f"{i}: -1" for i in extra)
            raise ValueError(
                f"{where}: shards are blocks along axis 0, but leaf {k} is also chunked along "
                f"axis {extra[0]} (chunks {a.chunks}); rechunk it with .rechunk({{{fix}}})")
        if a.chunks[0] != first.chunks[0]:
            raise ValueError(
                f"{where}: the arrays must be chunked alike along axis 0 (one shard per block); "
                f"leaf 0 has {first.chunks[0]}, leaf {k} has {a.chunks[0]}; "
                f"rechunk with .rechunk({{0: {first.chunks[0]}}})")
        if a.dtype == object:
            raise TypeError(f"{where}: leaf {k} has dtype object; shards must be numeric arrays")
    blocks = [a.to_delayed().reshape(-1) for a in arrays]
    shards = []
    for i, size in enumerate(first.chunks[0]):
        task = tree_unflatten(treedef, [b[i] for b in blocks])
        if np.isnan(size):
            spec = None
        else:
            spec = tree_unflatten(treedef, [
                ShapeDtypeStruct((size,) + a.shape[1:], a.dtype) for a in arrays])
        shards.append(Shard(task, spec, f"shard {i}"))
    return shards


def as_shards(data):
    """The list of :class:`Shard` of ``data``.

    ``data`` is a ``dask.array`` (blocks along axis 0), a tuple or dict of
    dask arrays chunked alike along axis 0 (shard ``i`` is the tuple or dict
    of their blocks ``i``, for example ``(X, y)``), a ``dask.bag`` whose
    elements are batches, a ``dask.dataframe`` (one shard per partition), or
    a list of shards (``dask.delayed`` objects, ``distributed.Future``
    objects, or dask arrays, each a whole shard).

    Raises
    ------
    TypeError
        If ``data`` is none of those.
    ValueError
        If it is empty, or chunked in a way that does not split into shards.
    """
    where = "tracegrad.distributed: data"
    kind = _kind(data)
    if kind == "array":
        return _array_blocks([data], tree_flatten(0)[1], where)
    if kind == "bag":
        return [Shard(p, None, f"partition {i}", batches=True)
                for i, p in enumerate(data.to_delayed())]
    if kind == "dataframe":
        return [Shard(p, None, f"partition {i}") for i, p in enumerate(data.to_delayed())]
    if kind in ("delayed", "future"):
        raise TypeError(f"{where} is a single {kind} object: pass a list of shards ([shard0, "
                        "shard1, ...]) so each is computed where it lives")
    if isinstance(data, (tuple, dict)):
        leaves, treedef = tree_flatten(data)
        if leaves and all(_kind(x) == "array" for x in leaves):
            return _array_blocks(leaves, treedef, where)
    if isinstance(data, list):
        if not data:
            raise ValueError(f"{where} is an empty list: give at least one shard")
        shards = []
        for i, x in enumerate(data):
            leaves, treedef = tree_flatten(x)
            kinds = {_kind(leaf) for leaf in leaves}
            if not leaves or None in kinds or kinds & {"bag", "dataframe"}:
                raise TypeError(
                    f"{where}[{i}] is {type(x).__name__}: each shard of a list must be a "
                    "dask.delayed object, a distributed.Future or a dask array (or a tuple of "
                    "them); NumPy data would pass through the client: load it on the workers "
                    "with dask.delayed(np.load)(path) or dask.array.from_npy_stack")
            spec = None
            if kinds == {"array"}:
                specs = [_spec(leaf) for leaf in leaves]
                spec = None if None in specs else tree_unflatten(treedef, specs)
            shards.append(Shard(x, spec, f"shard {i}"))
        return shards
    raise TypeError(
        f"{where} is {type(data).__name__}: expected a dask.array, a tuple or dict of dask "
        "arrays, a dask.bag of batches, a dask.dataframe, or a list of dask.delayed shards")


def check_specs(shards):
    """Refuse shards whose trailing shapes or dtypes differ from the first known one."""
    known = [s for s in shards if s.spec is not None]
    if not known:
        return
    ref_leaves, ref_tree = tree_flatten(known[0].spec)
    for s in known[1:]:
        leaves, treedef = tree_flatten(s.spec)
        if treedef != ref_tree:
            raise ValueError(f"tracegrad.distributed: {s.label} is structured as {treedef}, "
                             f"{known[0].label} as {ref_tree}; every shard must be alike")
        for k, (a, b) in enumerate(zip(ref_leaves, leaves)):
            if a.shape[1:] != b.shape[1:] or a.dtype != b.dtype:
                raise ValueError(
                    f"tracegrad.distributed: {s.label} (leaf {k}) has shape {b.shape} and dtype "
                    f"{b.dtype.name}, but {known[0].label} has shape {a.shape} and dtype "
                    f"{a.dtype.name}; shards may differ only in their length along axis 0")


def to_arrays(tree):
    """A shard (or the parameters) as the loss sees it on the worker: pandas
    objects become NumPy arrays, and arrays whose data is not aligned to
    their item size are copied.

    Arrays deserialized from Dask's messages can start at any byte offset,
    and NumPy and BLAS take other code paths (with other roundings) on
    unaligned data; aligned copies make a shard's gradient the same bits on
    every worker, whichever message brought it there.
    """
    leaves, treedef = tree_flatten(tree)
    out = []
    for leaf in leaves:
        if hasattr(leaf, "to_numpy") and type(leaf).__module__.startswith("pandas"):
            leaf = leaf.to_numpy()
        if isinstance(leaf, np.ndarray) and not (leaf.flags.aligned and leaf.flags.c_contiguous):
            leaf = np.require(leaf, requirements=("C", "A", "O"))
        out.append(leaf)
    return tree_unflatten(treedef, out)


def shard_size(shard):
    """The length along axis 0 of a shard's first leaf (1 for a scalar)."""
    leaves, _ = tree_flatten(shard)
    for leaf in leaves:
        shape = np.shape(leaf)
        if shape:
            return int(shape[0])
    return 1
