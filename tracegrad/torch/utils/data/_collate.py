"""``default_collate`` and ``default_convert``: turning the samples of a batch into
tensors, following the type rules of ``torch.utils.data._utils.collate`` (PyTorch 2.13).
"""
import collections.abc
import copy
import re

import numpy as np

from ..._creation import as_tensor, tensor
from ..._dtype import float64
from ..._ops import stack
from ..._tensor import Tensor

__all__ = ["collate", "default_collate", "default_collate_fn_map", "default_convert"]

# NumPy dtype kinds that do not become tensors: bytes, str, unicode, object
_NON_NUMERIC = re.compile(r"[SaUO]")

_ERROR = ("default_collate: batch must contain tensors, numpy arrays, numbers, dicts or "
          "lists; found {}")


def _is_numpy_value(obj):
    cls = type(obj)
    return cls.__module__ == "numpy" and cls.__name__ not in ("str_", "string_")


def _rebuild(template, values):
    """A container like ``template`` (its type, when that can be rebuilt) holding ``values``
    (a dict for mappings, a list for sequences)."""
    cls = type(template)
    mapping = isinstance(template, collections.abc.Mapping)
    try:
        if mapping and isinstance(template, collections.abc.MutableMapping):
            out = copy.copy(template)
            out.update(values)
            return out
        if not mapping and isinstance(template, collections.abc.MutableSequence):
            out = copy.copy(template)
            for i, v in enumerate(values):
                out[i] = v
            return out
        return cls(values)
    except TypeError:
        return values


def default_convert(data):
    """Convert the NumPy values in ``data`` to tensors, leaving everything else as is.

    The loader's ``collate_fn`` when automatic batching is off (``batch_size=None``).

    Parameters
    ----------
    data : object
        A NumPy array or scalar (becomes ``as_tensor(data)``, sharing the array's dtype;
        arrays of strings or objects are kept), a tensor (returned), or a mapping,
        namedtuple, tuple or sequence of such, converted elementwise (mappings and
        mutable sequences keep their type; tuples become lists, as in PyTorch).
        Anything else, Python numbers and strings included, is returned unchanged.

    Returns
    -------
    object
    """
    if isinstance(data, Tensor):
        return data
    if _is_numpy_value(data):
        if isinstance(data, np.ndarray) and _NON_NUMERIC.search(data.dtype.str):
            return data
        return as_tensor(data)
    if isinstance(data, collections.abc.Mapping):
        return _rebuild(data, {k: default_convert(data[k]) for k in data})
    if isinstance(data, tuple) and hasattr(data, "_fields"):
        return type(data)(*(default_convert(d) for d in data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]
    if isinstance(data, collections.abc.Sequence) and not isinstance(data, (str, bytes)):
        return _rebuild(data, [default_convert(d) for d in data])
    return data


def collate(batch, *, collate_fn_map=None):
    """Collate ``batch`` (a list of samples of the same structure), with the leaf rules
    of ``collate_fn_map``.

    Parameters
    ----------
    batch : list
        The samples.
    collate_fn_map : dict, optional
        Maps a type (or tuple of types) to ``fn(batch, *, collate_fn_map)``, used when
        the first sample is of that type (exact type first, then ``isinstance`` in the
        dict's order). Containers not handled by it are opened: a mapping gives a mapping
        of the collated values per key, a namedtuple a namedtuple of the collated fields,
        any other sequence a list (or, for a mutable sequence, a copy of its type) of the
        collated positions.

    Returns
    -------
    object

    Raises
    ------
    RuntimeError
        when the sequences of a batch differ in length.
    TypeError
        for samples of a type nothing handles.
    """
    elem = batch[0]
    cls = type(elem)
    if collate_fn_map is not None:
        if cls in collate_fn_map:
            return collate_fn_map[cls](batch, collate_fn_map=collate_fn_map)
        for key, fn in collate_fn_map.items():
            if isinstance(elem, key):
                return fn(batch, collate_fn_map=collate_fn_map)
    if isinstance(elem, collections.abc.Mapping):
        return _rebuild(elem, {k: collate([d[k] for d in batch], collate_fn_map=collate_fn_map)
                               for k in elem})
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):
        return cls(*(collate(list(s), collate_fn_map=collate_fn_map) for s in zip(*batch)))
    if isinstance(elem, collections.abc.Sequence):
        size = len(elem)
        if any(len(e) != size for e in batch):
            raise RuntimeError("each element in list of batch should be of equal size")
        columns = [collate(list(s), collate_fn_map=collate_fn_map) for s in zip(*batch)]
        if isinstance(elem, tuple):
            return columns
        return _rebuild(elem, columns)
    raise TypeError(_ERROR.format(cls))


def _collate_tensors(batch, *, collate_fn_map=None):
    return stack(batch, 0)


def _collate_arrays(batch, *, collate_fn_map=None):
    if _NON_NUMERIC.search(batch[0].dtype.str):
        raise TypeError(_ERROR.format(batch[0].dtype))
    return collate([as_tensor(b) for b in batch], collate_fn_map=collate_fn_map)


def _collate_numpy_scalars(batch, *, collate_fn_map=None):
    dtypes = {np.asarray(b).dtype for b in batch}
    if len(dtypes) == 1:  # keep the scalars' dtype (np.int8 -> int8), as PyTorch does
        return as_tensor(np.array(batch, dtype=dtypes.pop()))
    return as_tensor(batch)


def _collate_floats(batch, *, collate_fn_map=None):
    return tensor(batch, dtype=float64)


def _collate_ints(batch, *, collate_fn_map=None):
    return tensor(batch)  # int64; bools (an int subclass) give a bool tensor


def _collate_strings(batch, *, collate_fn_map=None):
    return batch


default_collate_fn_map = {
    Tensor: _collate_tensors,
    np.ndarray: _collate_arrays,
    (np.bool_, np.number, np.object_): _collate_numpy_scalars,
    float: _collate_floats,
    int: _collate_ints,
    str: _collate_strings,
    bytes: _collate_strings,
}


def default_collate(batch):
    """Stack a list of samples into a batch: the loader's default ``collate_fn``.

    Parameters
    ----------
    batch : list
        Samples of the same structure. Leaves, by the first sample's type:

        * ``Tensor`` (shape ``S``): ``torch.stack(batch)``, shape ``(B, *S)``, dtype kept;
        * NumPy array: converted with ``as_tensor`` (dtype kept) and stacked;
          arrays of strings/objects raise TypeError;
        * NumPy scalar: a 1-d tensor of the scalars' dtype;
        * ``float``: a float64 tensor; ``int``: int64; ``bool``: bool;
        * ``str``/``bytes``: the list, unchanged.

        Containers are collated recursively: a dict (mapping) gives a dict of batches
        per key, a namedtuple a namedtuple of batches, a tuple a *list* of batches per
        position (as in PyTorch), a list a list.

    Returns
    -------
    object

    Raises
    ------
    RuntimeError
        for sequences of different lengths, or tensors of different shapes (from
        ``stack``).
    TypeError
        for other leaf types.

    Examples
    --------
    >>> default_collate([(0, 1.5), (1, 2.5)])
    [tensor([0, 1]), tensor([1.5000, 2.5000], dtype=torch.float64)]
    """
    return collate(batch, collate_fn_map=default_collate_fn_map)
